"""The built-in engine on a host's tagged lines in other languages: each goes where its language's data file says,
in the words it was written in; a host's entry in a language no file describes is not filed but waits."""

from __future__ import annotations

import pytest

from nanodream.backlog.waiting import load_waiting
from nanodream.config import Settings
from nanodream.engines.routing import route_fact
from nanodream.run.dream import run_dream
from nanodream.vocab import Outcome
from nanodream.workspace import MEMORY, SOUL, USER
from tests.support.workspaces import entry, write_history

BUILTIN = Settings(model="builtin")

ROUTED = [
    ("[permanent] Antworte immer auf Deutsch.", SOUL, "Rules"),
    ("[permanent] Der Benutzer arbeitet nachts.", USER, "Preferences"),
    ("[permanent] Je préfère des réponses courtes.", USER, "Preferences"),
    ("[permanent] No uses emojis en los commits.", SOUL, "Rules"),
    ("[durable] Decidimos usar Django no backend.", MEMORY, "Decisions"),
    ("[permanent] 以后请用中文回答。", SOUL, "Rules"),
    ("[permanent] 私は東京に住んでいます。", USER, "Identity"),
    ("[durable] Django를 쓰기로 했어요.", MEMORY, "Decisions"),
    ("[durable] The staging server runs Debian 12.", MEMORY, "Infrastructure"),  # English keeps its rules
    ("[durable] Sem 2 starts in March.", MEMORY, "Project"),  # an English word that is a cue elsewhere
    ("[permanent] Utilise toujours TypeScript strict.", SOUL, "Rules"),  # English to the model, without its words
    ("[permanent] No emojis.", SOUL, "Rules"),  # a prohibition without a verb, on its own
    ("[permanent] No trailing whitespace, please.", SOUL, "Rules"),
    ("[permanent] No problem.", MEMORY, "Project"),  # an idiom, no rule
    ("[durable] A gente decidiu migrar pro Postgres.", MEMORY, "Decisions"),
    ("[permanent] User's Email: mira@example.org", USER, "Identity"),  # a line ingest wrote from a key block
    ("[permanent] User's Stadt: Leipzig", USER, "Identity"),
]


@pytest.mark.parametrize(("line", "path", "section"), ROUTED)
def test_a_tagged_line_goes_where_its_language_says(line, path, section):
    text = line.split("] ", 1)[1]
    assert (route_fact(text).path, route_fact(text).section) == (path, section)


def test_a_hosts_lines_are_filed_in_their_words_and_one_in_a_language_without_a_file_waits(workspace):
    write_history(workspace, [
        entry(1, "[permanent] Antworte immer auf Deutsch.\n[permanent] 我喜欢简洁的回答。"),
        entry(2, "[durable] Il server di produzione gira su Debian e i backup partono ogni notte alle due."),
        entry(3, "[durable] Django를 쓰기로 했어요."),
    ])
    report = run_dream(workspace, BUILTIN)
    assert report.outcome == Outcome.COMMITTED, report.reason
    assert "- Antworte immer auf Deutsch." in (workspace.root / SOUL).read_text()
    assert "- 我喜欢简洁的回答。" in (workspace.root / USER).read_text()
    memory = (workspace.root / MEMORY).read_text()
    assert "- Django를 쓰기로 했어요." in memory and "Debian" not in memory
    assert [(item.line, item.language) for item in load_waiting(workspace)] == [(2, "it")]


def test_a_sentence_of_one_korean_word_is_a_sentence_not_a_fragment(workspace):
    """Korean joins a sentence into one word ("채식주의자예요", "I am a vegetarian"): filed as written, not refused
    as a fragment and consumed."""
    write_history(workspace, [entry(1, "[permanent] 채식주의자예요.")])
    assert run_dream(workspace, BUILTIN).outcome == Outcome.COMMITTED
    assert "채식주의자예요." in (workspace.root / USER).read_text()


def test_a_command_of_one_word_in_another_language_is_a_rule_not_a_fragment(workspace):
    """"Tutéame." and "Tutoie-moi." ("call me tu") were read as rules at ingest and refused as fragments at run."""
    write_history(workspace, [entry(1, "[permanent] Tutéame.\n[permanent] Tutoie-moi.\n[permanent] Whatever.")])
    assert run_dream(workspace, BUILTIN).outcome == Outcome.COMMITTED
    soul = (workspace.root / SOUL).read_text()
    assert "- Tutéame." in soul and "- Tutoie-moi." in soul and "Whatever" not in soul


def test_a_german_rule_ending_on_its_verbs_particle_is_no_cut_off_fragment(workspace):
    """"… mit Sie an." ends on "an", a word no English sentence ends on: the rule was refused as a fragment."""
    write_history(workspace, [entry(1, "[permanent] Von jetzt an sprich mich bitte immer mit Sie an.\n"
                                       "[permanent] Always use the")])
    assert run_dream(workspace, BUILTIN).outcome == Outcome.COMMITTED
    soul = (workspace.root / SOUL).read_text()
    assert "- Von jetzt an sprich mich bitte immer mit Sie an." in soul and "Always use the" not in soul


# A move and a time zone said in one sentence, in the person's language (issue 45's correction, beyond English).
MOVED_WITH_TIME_ZONE = [
    ("Ich wohne in Berlin.", "Meine Zeitzone ist UTC+1.",
     "Ich bin nach New York gezogen, meine Zeitzone ist jetzt UTC-5."),
    ("Vivo en Madrid.", "Mi zona horaria es UTC+1.", "Me mudé a Nueva York, mi zona horaria ahora es UTC-5."),
    ("我住在上海。", "我的时区是UTC+8。", "我搬到纽约了，我的时区现在是UTC-5。"),
    ("東京に住んでいます。", "タイムゾーンはUTC+9です。", "ニューヨークに引っ越しました、タイムゾーンはUTC-5です。"),
]


@pytest.mark.parametrize(("home", "zone", "moved"), MOVED_WITH_TIME_ZONE)
def test_one_sentence_giving_two_attributes_new_values_replaces_the_line_of_each(workspace, home, zone, moved):
    """"Ich bin nach New York gezogen, meine Zeitzone ist jetzt UTC-5." replaced where the person lives and left
    "Meine Zeitzone ist UTC+1." active beside it: only its first attribute was read."""
    said = [entry(1, f"[permanent] {home}", day=1), entry(2, f"[permanent] {zone}", day=2)]
    write_history(workspace, said)
    assert run_dream(workspace, BUILTIN).outcome == Outcome.COMMITTED
    write_history(workspace, [*said, entry(3, f"[permanent] {moved}", day=9)])
    assert run_dream(workspace, BUILTIN).outcome == Outcome.COMMITTED
    user = (workspace.root / USER).read_text()
    assert moved in user
    assert home.rstrip("。.") not in user and zone.rstrip("。.") not in user
