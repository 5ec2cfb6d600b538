"""`run -o FILE`, `run --allow-empty` and `run --lookback DAYS`: what nightly-dreaming users expect."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import yaml

from nanodream.backlog import lookback
from nanodream.backlog.history import HistoryEntry, entry_tokens, read_from
from nanodream.backlog.quarantine import QuarantinedEntry, save_quarantine
from nanodream.cli import app
from nanodream.config import Settings
from nanodream.engines import SessionResult
from nanodream.run.context import RunOptions
from nanodream.run.dream import run_dream
from tests.support.cli import runner
from tests.support.scripted_server import reason_per_fact
from tests.support.workspaces import write_history


def stamp(days_ago: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days_ago)).strftime("%Y-%m-%d %H:%M")


def item(cursor: int, content: str, days_ago: float, session: str = "telegram:1") -> dict:
    return {"cursor": cursor, "timestamp": stamp(days_ago), "session_key": session, "content": content}


class Recorder:
    """A model double that files nothing and keeps the user message it was sent."""

    name = "recorder"

    def __init__(self) -> None:
        self.messages: list[str] = []

    def __call__(self, settings):
        return self

    def run(self, request, toolbox):
        self.messages.append(request.user_message)
        return SessionResult(summary="read it")

    def follow_up(self, request, result, message, toolbox):
        return SessionResult(summary=reason_per_fact(message, "a recording double keeps nothing"))


def test_output_file_holds_what_json_prints_as_json_or_yaml(workspace, tmp_path):
    write_history(workspace, [item(1, "[durable] The API is written in Go.", 1)])
    result = runner.invoke(app, ["run", "-w", str(workspace.root), "--json", "-o", str(tmp_path / "r.yaml")])
    printed = json.loads(result.stdout)
    assert yaml.safe_load((tmp_path / "r.yaml").read_text()) == printed
    again = runner.invoke(app, ["run", "-w", str(workspace.root), "-o", str(tmp_path / "r.json")])
    assert again.exit_code == 0 and json.loads((tmp_path / "r.json").read_text())["outcome"] == "nothing-to-do"


def test_an_unwritable_output_file_is_one_clear_error_after_the_run(workspace, tmp_path):
    write_history(workspace, [item(1, "[durable] The API is written in Go.", 1)])
    (tmp_path / "plain").write_text("a file, not a folder")
    result = runner.invoke(app, ["run", "-w", str(workspace.root), "-o", str(tmp_path / "plain" / "r.json")])
    assert result.exit_code == 1 and "could not write" in result.output and "the run ended committed" in result.output


def test_allow_empty_runs_the_tidy_pass_only_when_the_backlog_is_empty(workspace):
    memory = workspace.root / "memory/MEMORY.md"
    memory.write_text("# Memory\n\n## Project\n- Uses Go.\n- Uses Go.\n")
    assert run_dream(workspace, Settings()).outcome == "nothing-to-do"  # without the flag: nothing
    empty = run_dream(workspace, Settings(), RunOptions(allow_empty=True))
    assert empty.tidy and empty.outcome == "committed" and memory.read_text().count("Uses Go.") == 1
    write_history(workspace, [item(1, "[durable] The DB is Postgres.", 1)])
    with_backlog = run_dream(workspace, Settings(), RunOptions(allow_empty=True))
    assert not with_backlog.tidy and "Postgres" in memory.read_text()
    idle = run_dream(workspace, Settings(), RunOptions(allow_empty=True))
    assert idle.tidy and idle.outcome == "no-change"  # nothing left to tidy


def test_lookback_shows_recent_consumed_history_as_context_and_never_consumes_it_again(workspace):
    write_history(workspace, [item(1, "[durable] Old news from last month.", 40),
                              item(2, "[durable] The staging DB moved to Frankfurt.", 2),
                              item(3, "[skip] thanks!\n[durable] Deploys need two approvals.", 1, "telegram:2")])
    run_dream(workspace, Settings(), RunOptions(max_batches=1))  # builtin consumes all three
    with workspace.history_file.open("a") as handle:
        handle.write(json.dumps(item(4, "[correction] The staging DB moved back to Dublin.", 0.1)) + "\n")
    engine = Recorder()
    report = run_dream(workspace, Settings(model="fake/recorder"), RunOptions(lookback_days=7),
                       engine_factory=engine)
    assert report.entries == 1 and report.batches[0].first_cursor == 4
    message = engine.messages[0]
    context = message.split("<context>", 1)[1].split("</context>", 1)[0]
    assert "moved to Frankfurt" in context and "two approvals" in context
    assert "Old news" not in context and "thanks!" not in context  # too old; [skip] lines never shown
    assert message.index("</context>") < message.index("<history>")
    assert "moved back to Dublin" not in context and "moved back to Dublin" in message.split("<history>", 1)[1]
    plain = Recorder()
    run_dream(workspace, Settings(model="fake/recorder"), RunOptions(dry_run=True), engine_factory=plain)
    assert not plain.messages or "<context>" not in plain.messages[0]


def entries_of(workspace) -> list[HistoryEntry]:
    return [e for e in read_from(workspace.history_file) if isinstance(e, HistoryEntry)]


def test_recent_before_reads_backwards_across_blocks_within_its_budget(workspace, monkeypatch):
    monkeypatch.setattr(lookback, "BLOCK", 37)  # many block boundaries, lines split across them
    rows = [item(i, f"[durable] Fact number {i} about the billing service.", 10 - i) for i in range(1, 10)]
    write_history(workspace, [*rows[:4], "{broken", "", *rows[4:]])
    entries = entries_of(workspace)
    last = entries[-1]
    since = datetime.now(UTC) - timedelta(days=20)
    found = lookback.recent_before(workspace.history_file, last, since, budget_tokens=10_000)
    assert [e.cursor for e in found] == list(range(1, 9))
    assert [(e.line, e.offset) for e in found] == [(e.line, e.offset) for e in entries[:-1]]  # same identity
    two = entry_tokens(found[-1]) + entry_tokens(found[-2])
    cheap = lookback.recent_before(workspace.history_file, last, since, budget_tokens=two)
    assert [e.cursor for e in cheap] == [7, 8]  # the budget keeps the newest
    recent = lookback.recent_before(workspace.history_file, last, datetime.now(UTC) - timedelta(days=3.5),
                                    budget_tokens=10_000)
    assert [e.cursor for e in recent] == [7, 8]
    held = frozenset({entries[6].offset})
    assert [e.cursor for e in lookback.recent_before(workspace.history_file, last, since, 10_000, held)] == \
        [1, 2, 3, 4, 5, 6, 8]


def test_lookback_leaves_quarantined_entries_out(workspace):
    write_history(workspace, [item(1, "[durable] Poisoned but true.", 1), item(2, "[durable] Fine.", 1)])
    first = entries_of(workspace)[0]
    save_quarantine(workspace, [QuarantinedEntry(cursor=1, timestamp=first.timestamp, preview="x", reason="boom",
                                                 quarantined_at=stamp(0), run_id="r", line=1, offset=0)])
    run_dream(workspace, Settings())
    with workspace.history_file.open("a") as handle:
        handle.write(json.dumps(item(3, "[durable] New.", 0)) + "\n")
    engine = Recorder()
    run_dream(workspace, Settings(model="fake/recorder"), RunOptions(lookback_days=3), engine_factory=engine)
    assert "Poisoned" not in engine.messages[0] and "Fine." in engine.messages[0]
