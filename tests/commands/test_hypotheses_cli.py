"""`nanodream hypotheses`: listing the marked lines, a person's four decisions, and evidence that went away."""

from __future__ import annotations

import json

import pytest

from nanodream import api
from nanodream.cli import app
from nanodream.edits.forget import Target, forget
from nanodream.edits.restore import restore_commit
from nanodream.memory.lock import workspace_lock
from tests.support.cli import runner
from tests.support.memory_engine import dream
from tests.support.workspaces import entry, git, snapshot

USER, SOUL, REJECTED = "USER.md", "SOUL.md", "memory/rejected.md"
SHORT = "- Prefers short answers <!-- hypothesis: 1 of 2, mild -->"
PAY = "- Lets the agent pay invoices <!-- hypothesis: 2 of 3, neutral --> <!-- ask-first -->"


@pytest.fixture
def marked(workspace):
    """USER.md holds two hypotheses (lines 6 and 7), SOUL.md one (line 6), all committed."""
    user, soul = workspace.root / USER, workspace.root / SOUL
    user.write_text(user.read_text() + "- Lives in Lyon\n" + SHORT + "\n" + PAY + "\n")
    soul.write_text(soul.read_text() + "- Be brief\n- Don't use tables: the user corrected this "
                                       "<!-- hypothesis: 1 of 3, neutral -->\n")
    git(workspace, "commit", "-qam", "hypotheses by hand")
    return workspace


def cli(workspace, *args: str):
    return runner.invoke(app, ["hypotheses", *args, "-w", str(workspace.root)])


def test_list_shows_each_with_its_ref_count_tone_and_ask_first(marked):
    result = cli(marked)
    assert result.exit_code == 0, result.output
    assert "USER.md:7  Prefers short answers  [1 of 2, mild]" in result.output
    assert "USER.md:8  Lets the agent pay invoices  [2 of 3, neutral · ask-first]" in result.output
    listed = json.loads(cli(marked, "list", "--json").output)["hypotheses"]
    assert [h["ref"] for h in listed] == ["SOUL.md:7", "USER.md:7", "USER.md:8"]
    assert listed[2] == {"path": USER, "line": 8, "ref": "USER.md:8", "text": "Lets the agent pay invoices",
                         "count": 2, "needed": 3, "tone": "neutral", "stale_since": None, "ask_first": True}


def test_promote_drops_the_marker_and_keeps_ask_first_as_one_manual_commit(marked):
    result = cli(marked, "promote", "USER.md:8")
    assert result.exit_code == 0, result.output
    assert "✓ promoted USER.md:8" in result.output
    assert "- Lets the agent pay invoices <!-- ask-first -->\n" in (marked.root / USER).read_text()
    assert "Dream-Kind: manual" in git(marked, "log", "-1", "--format=%B")
    assert git(marked, "status", "--porcelain") == ""


def test_reinforce_counts_a_sighting_and_promotes_when_that_is_enough(marked):
    report = api.resolve_hypothesis(marked, "USER.md:7", "reinforce")
    assert report.outcome == "promoted" and report.after == "- Prefers short answers"
    report = api.resolve_hypothesis(marked, "8", "reinforce")  # the only hypothesis on a line 8: 3 of 3
    assert report.outcome == "promoted" and report.after == "- Lets the agent pay invoices <!-- ask-first -->"
    report = api.resolve_hypothesis(marked, "SOUL.md:7", "reinforce")
    assert report.outcome == "reinforced"
    assert report.after == "- Don't use tables: the user corrected this <!-- hypothesis: 2 of 3, neutral -->"
    assert "reinforce: Don't use tables" in git(marked, "log", "-1", "--format=%s")


def test_stale_marks_it_once_and_reject_records_it_so_no_dream_adds_it_again(marked):
    report = api.resolve_hypothesis(marked, "SOUL.md:7", "stale")
    assert report.outcome == "stale" and ", stale since " in report.after
    again = api.resolve_hypothesis(marked, "SOUL.md:7", "stale")
    assert again.outcome == "nothing-to-do" and again.commit is None and again.exit_code == 0

    result = cli(marked, "reject", "USER.md:7", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["outcome"] == "rejected"
    assert "Prefers short answers" not in (marked.root / USER).read_text()
    assert "- Prefers short answers <!-- USER.md · rejected hypothesis" in (marked.root / REJECTED).read_text()
    dream(marked, entry(1, "[durable] USER.md: Prefers short answers <!-- hypothesis: 1 of 2, mild -->"))
    assert "Prefers short answers" not in (marked.root / USER).read_text()


@pytest.mark.parametrize(("ref", "says"), [
    ("USER.md:6", "line 6 of USER.md is no hypothesis line"),
    ("7", "line 7 is a hypothesis in 2 files"),
    ("memory/history.jsonl:1", "memory/history.jsonl holds no hypotheses"),
    ("seven", "'seven' names no line"),
    ("USER.md:99", "line 99 of USER.md is no hypothesis line"),
])
def test_a_wrong_line_is_one_clear_line_exit_2_and_nothing_written(marked, ref, says):
    before = snapshot(marked)
    result = cli(marked, "promote", ref)
    assert result.exit_code == 2 and says in result.output, result.output
    assert snapshot(marked) == before
    if ref == "7":
        assert "SOUL.md:7 or USER.md:7" in result.output


def test_an_unknown_decision_is_refused_by_the_api(marked):
    report = api.resolve_hypothesis(marked, "USER.md:7", "delete")
    assert report.exit_code == 2 and "choose one of reinforce, stale, reject, promote" in report.reason


def test_busy_and_hand_edits_go_through_the_door(marked):
    with workspace_lock(marked):
        result = cli(marked, "promote", "USER.md:7")
    assert result.exit_code == 75 and "busy:" in result.output
    user = marked.root / USER
    user.write_text(user.read_text() + "- Likes tea\n")
    report = api.resolve_hypothesis(marked, "USER.md:7", "promote")
    assert report.manual_commit and report.commit and git(marked, "status", "--porcelain") == ""
    assert git(marked, "log", "-2", "--format=%s").splitlines()[1].startswith("manual:")


def test_a_hypothesis_that_also_drew_on_forgotten_entries_goes_stale(workspace):
    dream(workspace, entry(1, "[durable] USER.md: Prefers short answers <!-- hypothesis: 2 of 3, neutral -->",
                           session_key="work"),
          entry(2, "User wants short answers again. [skip] ok", session_key="private"))
    report = forget(workspace, Target(session="private"))
    assert report.outcome == "forgotten" and report.review == []
    assert [line.split(": ", 1)[1] for line in report.staled] == [
        "- Prefers short answers <!-- hypothesis: 2 of 3, neutral -->"]
    assert "<!-- hypothesis: 2 of 3, neutral, stale since " in (workspace.root / USER).read_text()


def test_undoing_a_sighting_leaves_the_hypothesis_stale_and_does_not_reject_it(workspace):
    dream(workspace, entry(1, "[durable] USER.md: Prefers short answers <!-- hypothesis: 1 of 3, neutral -->"))
    dream(workspace, entry(2, "[correction] USER.md: Prefers short answers <!-- hypothesis: 1 of 3, neutral --> => "
                              "Prefers short answers <!-- hypothesis: 2 of 3, neutral -->"))
    report = restore_commit(workspace, "HEAD")
    assert report.outcome == "restored", report.reason
    user = (workspace.root / USER).read_text()
    assert "- Prefers short answers <!-- hypothesis: 1 of 3, neutral, stale since " in user
    assert report.rejected == []  # the fact stays in memory: no ledger entry to keep it out
