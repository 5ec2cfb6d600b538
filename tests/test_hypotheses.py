"""Hypothesis lines: written with a marker and evidence count, accepted by the guards, promoted when stated."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from nanodream import clock
from nanodream.config import Settings
from nanodream.hypotheses import (
    Hypothesis,
    Tone,
    asks_first,
    evidence,
    marked,
    parse,
    tone_of,
    with_hypothesis,
)
from nanodream.prompting.prompt_override import builtin_prompt
from nanodream.run.dream import run_dream
from tests.support.memory_engine import append_history, dream
from tests.support.workspaces import entry, git

USER = "USER.md"


def test_marker_round_trip():
    line = marked("Prefers short answers", 2)
    assert line == "Prefers short answers <!-- hypothesis: 2 of 3, neutral -->"
    assert evidence(line) == 2 and evidence("Prefers tea") is None
    assert evidence("Prefers tea <!-- hypothesis: 2 -->") == 2  # the original form still reads
    assert marked(line, 3) == "Prefers short answers"  # enough evidence: a plain line


def test_a_hypothesis_line_passes_the_guards_and_is_committed(workspace):
    report = dream(workspace, entry(1, "[durable] USER.md: Prefers short answers <!-- hypothesis: 1 -->"))
    assert report.outcome == "committed", report.reason
    assert "- Prefers short answers <!-- hypothesis: 1 -->" in (workspace.root / USER).read_text()


def test_the_builtin_engine_promotes_a_hypothesis_the_user_then_states(workspace):
    user = workspace.root / USER
    user.write_text(user.read_text() + "- User prefers dark mode <!-- hypothesis: 2 -->\n")
    append_history(workspace, entry(1, "[permanent] User prefers dark mode."))
    report = run_dream(workspace, Settings(model="builtin"))
    assert report.outcome == "committed", report.reason
    text = user.read_text()
    assert "- User prefers dark mode\n" in text and "hypothesis" not in text and text.count("dark mode") == 1
    assert "1 hypothesis line confirmed" in git(workspace, "log", "-1", "--format=%B")


def test_the_prompt_documents_the_marking():
    prompt = builtin_prompt()
    assert "<!-- hypothesis: 1 of 2, mild -->" in prompt and "Rejected facts" in prompt
    assert "stale since YYYY-MM-DD" in prompt and "<!-- ask-first -->" in prompt and "## Anti-patterns" in prompt


# the marker, tone and ask-first ----------------------------------------------------------------------------


def test_the_marker_says_count_needed_tone_and_staleness():
    line = "- Prefers short answers <!-- hypothesis: 1 of 2, mild, stale since 2026-11-02 --> <!-- ask-first -->"
    found = parse(line)
    assert found == Hypothesis(1, Tone.MILD, date(2026, 11, 2)) and found.stale and not found.due
    assert with_hypothesis(line, found.sighted(Tone.NEUTRAL)) == "- Prefers short answers <!-- ask-first -->"
    assert with_hypothesis(line, Hypothesis(1, Tone.NEUTRAL)) == (
        "- Prefers short answers <!-- hypothesis: 1 of 3, neutral --> <!-- ask-first -->")


@pytest.mark.parametrize(("tones", "promoted_after"), [
    ([Tone.STRONG], 1), ([Tone.MILD, Tone.MILD], 2), ([Tone.NEUTRAL] * 3, 3), ([Tone.NEUTRAL, Tone.STRONG], 2),
    ([Tone.NEUTRAL, Tone.MILD], 2),
])
def test_the_strongest_tone_so_far_decides_how_many_sightings_are_enough(tones, promoted_after):
    seen = Hypothesis(1, tones[0])
    counts = [seen.due]
    for tone in tones[1:]:
        seen = seen.sighted(tone)
        counts.append(seen.due)
    assert counts.index(True) + 1 == promoted_after


@pytest.mark.parametrize(("text", "tone"), [
    ("I told you to use grep", Tone.STRONG), ("as I said, English please", Tone.STRONG),
    ("Answer in English again", Tone.STRONG), ("STOP pasting logs", Tone.STRONG), ("shorter please!!", Tone.STRONG),
    ("stop adding emojis", Tone.STRONG), ("please don't add emojis", Tone.MILD), ("I'd rather have tables", Tone.MILD),
    ("Use the AWS CLI for S3", Tone.NEUTRAL), ("don't stop the server", Tone.NEUTRAL),
])
def test_tone(text, tone):
    assert tone_of(text) == tone


@pytest.mark.parametrize(("text", "risky"), [
    ("User prefers that the agent pay the hosting invoices automatically.", True),
    ("User is fine with the agent sharing their calendar with Anna.", True),
    ("Agent may store the deploy key's passphrase in the vault.", True),
    ("User prefers the agent to log in to the bank and download statements.", True),
    ("Never share the user's home address.", False),
    ("User prefers dark mode in all tools.", False),
    ("Address the user as Sam.", False),
    ("Keep answers under 500 tokens.", False),
])
def test_ask_first_marks_what_lets_the_agent_act_on_payments_credentials_security_or_personal_data(text, risky):
    assert asks_first(text) is risky


# the builtin engine's hypothesis lane ----------------------------------------------------------------------


def drained(workspace, *lines: tuple[int, str, str]):
    """Dream the entries (days of October 2026) with the clock on October 20: a hypothesis gone stale on one of
    those days is weeks, not a year, from leaving active memory."""
    append_history(workspace, *(entry(n, content, session, day) for n, (day, session, content) in
                                enumerate(lines, start=1)))
    with clock.pinned(datetime(2026, 10, 20, 12, tzinfo=UTC)):
        report = run_dream(workspace, Settings(model="builtin"))
    assert report.outcome == "committed", report.reason
    return (workspace.root / USER).read_text(), (workspace.root / "SOUL.md").read_text()


def test_a_strong_complaint_is_a_plain_rule_at_once(workspace):
    _, soul = drained(workspace, (2, "tg:1", '[correction] User said: "I told you, stop pasting whole logs!!"'))
    assert "- Don't paste whole logs: the user corrected this\n" in soul and "hypothesis" not in soul


def test_mild_complaints_are_promoted_on_the_second_sighting(workspace):
    mild = "[correction] User asked, please, for shorter answers."
    user, _ = drained(workspace, (2, "tg:1", mild))
    assert "- Prefers shorter answers. <!-- hypothesis: 1 of 2, mild -->" in user
    user, _ = drained(workspace, (4, "tg:2", "[correction] User said: \"I'd rather have shorter answers, please\""))
    assert "- Prefers shorter answers.\n" in user and "hypothesis" not in user


def test_plain_complaints_need_three_sightings_and_repetition_counts_as_strong(workspace):
    plain = "[correction] User complained about emojis in commit messages."
    user, _ = drained(workspace, (2, "a", plain), (3, "b", plain))
    assert "emojis in commit messages. <!-- hypothesis: 2 of 3, neutral -->" in user
    user, _ = drained(workspace, (5, "c", "[correction] User complained again about emojis in commit messages."))
    assert "- Dislikes emojis in commit messages.\n" in user


def test_a_stated_preference_is_filed_at_once_and_a_risky_one_asks_first(workspace):
    user, _ = drained(workspace, (2, "tg:1", "[permanent] User prefers that the agent pay the hosting bill each "
                                             "month.\n[durable] User prefers tea."))
    assert "- User prefers that the agent pay the hosting bill each month. <!-- ask-first -->" in user
    assert "- User prefers tea.\n" in user


def test_a_stated_opposite_makes_a_hypothesis_stale(workspace):
    user_file = workspace.root / USER
    user_file.write_text(user_file.read_text() + "- Dislikes bullet points <!-- hypothesis: 2 of 3, neutral -->\n")
    user, _ = drained(workspace, (9, "tg:1", "[permanent] User likes bullet points."))
    assert "- Dislikes bullet points <!-- hypothesis: 2 of 3, neutral, stale since 2026-10-09 -->" in user
    assert "- User likes bullet points." in user


def test_a_hypothesis_stale_for_longer_than_archive_after_days_leaves_active_memory(workspace):
    from datetime import UTC, datetime, timedelta

    long_ago = (datetime.now(UTC).date() - timedelta(days=40)).isoformat()
    recently = (datetime.now(UTC).date() - timedelta(days=5)).isoformat()
    user_file = workspace.root / USER
    user_file.write_text(user_file.read_text()
                         + f"- Dislikes tables <!-- hypothesis: 1 of 3, neutral, stale since {long_ago} -->\n"
                         + f"- Dislikes emojis <!-- hypothesis: 2 of 3, neutral, stale since {recently} -->\n"
                         + f"- Likes maps <!-- hypothesis: 1 of 3, neutral, stale since {long_ago} --> <!-- keep -->\n")
    git(workspace, "commit", "-qam", "hand edits")
    append_history(workspace, entry(1, "[durable] Project ledgerline bills in SEK."))
    report = run_dream(workspace, Settings(model="builtin", archive_after_days=30))
    assert report.outcome == "committed", report.reason
    user = user_file.read_text()
    assert "Dislikes tables" not in user and "Dislikes emojis" in user and "Likes maps" in user
    archived = (workspace.root / f"memory/archive/{datetime.now(UTC):%Y-%m}.md").read_text()
    assert "## Preferences (archived" in archived and "- Dislikes tables" in archived


def test_a_stale_rule_leaves_soul_md_only_with_a_change_the_batch_may_make(workspace):
    from datetime import UTC, datetime, timedelta

    long_ago = (datetime.now(UTC).date() - timedelta(days=40)).isoformat()
    soul_file = workspace.root / "SOUL.md"
    stale_rule = f"- Don't use tables: the user corrected this <!-- hypothesis: 1 of 3, stale since {long_ago} -->"
    soul_file.write_text(soul_file.read_text() + stale_rule + "\n")
    git(workspace, "commit", "-qam", "hand edits")
    append_history(workspace, entry(1, "Untagged chatter about the weather."))
    report = run_dream(workspace, Settings(model="builtin", archive_after_days=30))
    assert report.outcome == "no-change", report.reason  # untagged history may not change SOUL.md
    assert "Don't use tables" in soul_file.read_text()
    append_history(workspace, entry(2, "[permanent] Always answer in English."))
    report = run_dream(workspace, Settings(model="builtin", archive_after_days=30))
    assert report.outcome == "committed", report.reason
    assert "Don't use tables" not in soul_file.read_text()


def test_an_anti_pattern_replaces_the_rule_it_contradicts_and_keeps_the_one_that_agrees(workspace):
    soul_file = workspace.root / "SOUL.md"
    soul_file.write_text(soul_file.read_text() + "- Use search_files for content search.\n"
                                                 "- Use grep for content search.\n")
    git(workspace, "commit", "-qam", "rules by hand")
    _, soul = drained(workspace, (2, "cli:a", "[correction] Don't use search_files for content search, use grep."))
    assert "- Use search_files for content search." not in soul
    assert "- Use grep for content search." in soul
    assert "- Don't use search_files for content search — instead use grep (search)" in soul
