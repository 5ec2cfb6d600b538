"""A person's decisions on an insight, each one commit through the door; promote appends one history entry
through ingest's writer and the next dream decides whether it becomes memory."""

from __future__ import annotations

import json
from datetime import date

import pytest

from nanodream.config import Settings
from nanodream.edits import insights as decisions
from nanodream.edits.insights import decide
from nanodream.insights.records import check, render
from nanodream.insights.shelf import read_shelf
from nanodream.run.dream import run_dream
from nanodream.vocab import ExitCode, Refused
from tests.support.gitdates import commit_at
from tests.support.workspaces import entry, git, snapshot, write_history

NAME = "hetzner-costs-follow-hosting"
SUMMARY = "Hosting costs at Hetzner rose after the load balancer went live. The March decision chose Hetzner."


@pytest.fixture
def proposed(workspace):
    fields = {"name": NAME, "summary": SUMMARY, "what_if": "What if hosting now costs more than planned?",
              "possible_outcome": "The hosting budget is revisited.", "rationale": "Both name Hetzner.",
              "likelihood": 0.6, "confidence": 0.5, "topics": ["hetzner", "hosting", "costs"], "themes": [],
              "sources": [{"ref": "skill:ops", "reason": "a", "weight": 0.5, "relation": "supports"},
                          {"ref": "session:telegram:7", "reason": "b", "weight": 0.5, "relation": "supports"}]}
    folder = workspace.root / "memory/insights"
    folder.mkdir()
    (folder / f"{NAME}.md").write_text(render(check(fields, created=date(2026, 10, 1))))
    write_history(workspace, [entry(1, "[durable] The staging server runs Debian 12.", "telegram:7")])
    commit_at(workspace, "2026-10-01T12:00:00Z", "an insight")
    return workspace


@pytest.mark.parametrize(("decision", "status"), [("reinforce", "reinforced"), ("stale", "stale"),
                                                  ("reject", "rejected")])
def test_each_decision_is_one_commit_with_its_note(proposed, decision, status):
    report = decide(proposed, Settings(), NAME, decision, "checked \x1b[2J the invoices", today=date(2026, 10, 5))
    assert report.outcome == status and report.status == status and report.before == "proposed"
    insight = read_shelf(proposed).get(NAME)
    assert insight.status == status and insight.updated == date(2026, 10, 5)
    assert insight.decisions[-1] == f"2026-10-05 {status}: checked \\x1b[2J the invoices"  # controls shown, not obeyed
    message = git(proposed, "log", "-1", "--format=%B")
    assert message.startswith(f"insights: {decision} {NAME}") and "Dream-Kind: insights" in message
    assert f"Dream-Insight: {NAME} {decision}" in message
    assert git(proposed, "rev-parse", "HEAD").startswith(report.commit[:8])
    assert proposed.history_file.read_text().count("\n") == 1  # only promote touches history


def test_a_rejected_insight_leaves_view(proposed):
    decide(proposed, Settings(), NAME, "reject")
    shelf = read_shelf(proposed)
    assert shelf.shown() == [] and [i.name for i in shelf.shown("rejected")] == [NAME]


@pytest.mark.parametrize(("name", "decision", "said"), [("no-such-insight", "reject", "no insight named"),
                                                        (NAME, "archive", "unknown decision")])
def test_an_unknown_name_or_decision_is_refused_with_exit_2_and_nothing_changes(proposed, name, decision, said):
    before = snapshot(proposed)
    report = decide(proposed, Settings(), name, decision)
    assert report.outcome == "refused" and report.exit_code == ExitCode.USAGE and said in report.reason
    assert snapshot(proposed) == before


def test_a_decision_already_taken_changes_nothing(proposed):
    decide(proposed, Settings(), NAME, "stale")
    head = git(proposed, "rev-parse", "HEAD")
    again = decide(proposed, Settings(), NAME, "stale")
    assert again.outcome == "nothing-to-do" and "already stale" in again.reason
    assert git(proposed, "rev-parse", "HEAD") == head


def _entries(workspace) -> list[dict]:
    return [json.loads(line) for line in workspace.history_file.read_text().splitlines() if line.strip()]


def test_promote_appends_one_history_entry_and_the_next_dream_decides(proposed):
    memory_before = (proposed.root / "memory/MEMORY.md").read_text()
    report = decide(proposed, Settings(), NAME, "promote", "worth keeping")

    assert report.outcome == "promoted" and report.history_cursor == 2
    [added] = _entries(proposed)[1:]
    assert added["session_key"] == f"insight:{NAME}" and added["cursor"] == 2
    assert added["content"] == f"[durable] {SUMMARY.split('. ')[0]}."  # the statement: its first sentence
    insight = read_shelf(proposed).get(NAME)
    assert insight.status == "promoted"
    assert insight.decisions[-1].endswith("promoted: worth keeping; appended to history as cursor 2")
    assert (proposed.root / "memory/MEMORY.md").read_text() == memory_before  # no fact written by the decision
    assert decide(proposed, Settings(), NAME, "promote").outcome == "nothing-to-do"
    assert len(_entries(proposed)) == 2  # exactly one entry

    dreamed = run_dream(proposed, Settings())
    assert dreamed.outcome == "committed", dreamed.reason
    assert "Hosting costs at Hetzner rose" in (proposed.root / "memory/MEMORY.md").read_text()


def test_promote_waits_while_the_host_is_writing_history(proposed):
    with proposed.history_file.open("a") as handle:
        handle.write('{"cursor": 2, "timestamp": "2026-10-02 10:00", "content": "half')  # mid-write
    before = snapshot(proposed)
    report = decide(proposed, Settings(), NAME, "promote")
    assert report.outcome == "busy" and report.exit_code == ExitCode.BUSY
    assert snapshot(proposed) == before


def test_a_promote_interrupted_after_its_append_never_appends_twice(proposed, monkeypatch):
    def refuse(*args, **kwargs):
        raise Refused("git refused the commit")

    monkeypatch.setattr(decisions, "committed", refuse)
    assert decide(proposed, Settings(), NAME, "promote").outcome == "refused"
    assert len(_entries(proposed)) == 2 and read_shelf(proposed).get(NAME).status == "proposed"
    monkeypatch.undo()

    report = decide(proposed, Settings(), NAME, "promote")

    assert report.outcome == "promoted" and report.history_cursor is None
    assert len(_entries(proposed)) == 2
    assert read_shelf(proposed).get(NAME).decisions[-1].endswith("its history entry was appended before")
