"""History entries are identified by position: a host's cursor resets, repeats and jumps never skip an entry,
malformed lines are reported by line number until acknowledged, and a rewritten file is noticed."""

from __future__ import annotations

import json

from nanodream.backlog.history import read_cursor
from nanodream.backlog.position import position_file
from nanodream.config import Settings
from nanodream.run.dream import run_dream
from nanodream.status import workspace_status
from tests.support.cli import cli
from tests.support.fakes import NoteEngine
from tests.support.workspaces import entry, write_history

SETTINGS = Settings(model="fake/m")


def append(ws, *items) -> None:
    with ws.history_file.open("a") as handle:
        for item in items:
            handle.write((item if isinstance(item, str) else json.dumps(item)) + "\n")




def test_a_host_counter_reset_is_consumed_and_reported_not_skipped(workspace):
    write_history(workspace, [entry(i, f"[durable] fact {i}") for i in range(1, 4)])
    assert run_dream(workspace, SETTINGS, engine_factory=NoteEngine()).outcome == "committed"
    append(workspace, entry(1, "[durable] after the reset"), entry(2, "[durable] and one more"))

    engine = NoteEngine()
    report = run_dream(workspace, SETTINGS, engine_factory=engine)

    assert report.outcome == "committed" and engine.batches == [[1, 2]]
    assert report.consumed_lines == [4, 5]
    assert report.anomalies == ["history.jsonl line 4: cursor 1 goes back from 3 (the host's counter restarted?); "
                                "read in file order, nothing skipped"]
    assert {"line": 4, "cursor": 1, "outcome": "anomaly", "detail": report.anomalies[0]} in report.notable
    assert read_cursor(workspace.cursor_file) == 2  # nanobot sees the cursor of the last line consumed
    status = workspace_status(workspace, SETTINGS)
    assert status.anomalies == report.anomalies and status.entry_outcomes["counts"] == {"anomaly": 1}
    assert status.position == {"line": 5, "offset": workspace.history_file.stat().st_size, "cursor": 2}


def test_a_repeated_or_absurd_cursor_does_not_hide_later_entries(workspace):
    write_history(workspace, [entry(1, "[durable] a"), entry(999_999, "[durable] absurd"), entry(2, "[durable] b")])
    engine = NoteEngine()
    report = run_dream(workspace, SETTINGS, engine_factory=engine)
    assert engine.batches == [[1, 999_999, 2]] and report.entries == 3
    assert [a.split(":")[0] for a in report.anomalies] == ["history.jsonl line 2", "history.jsonl line 3"]
    append(workspace, entry(3, "[durable] c"))
    later = NoteEngine()
    assert run_dream(workspace, SETTINGS, engine_factory=later).outcome == "committed" and later.batches == [[3]]


def test_malformed_lines_are_reported_by_line_until_acknowledged(workspace):
    write_history(workspace, [entry(1, "[durable] a"), '{"cursor": 2, "timest', entry(3, "[durable] b"), "[1, 2]"])
    report = run_dream(workspace, SETTINGS, engine_factory=NoteEngine())
    assert report.dead_letters == ["history.jsonl line 2: not valid JSON", "history.jsonl line 4: not a JSON object"]
    assert report.malformed_lines == 2 and report.entries == 2

    shown = cli("status", "-w", str(workspace.root))
    assert "history.jsonl line 2: not valid JSON" in shown.output and "history ack" in shown.output
    listed = json.loads(cli("history", "-w", str(workspace.root), "--json").output)
    assert [(d["line"], d["raw"]) for d in listed] == [(2, '{"cursor": 2, "timest'), (4, "[1, 2]")]

    acked = cli("history", "ack", "2", "-w", str(workspace.root))
    assert acked.exit_code == 0 and acked.output.strip() == "acknowledged line 2"
    status = json.loads(cli("status", "-w", str(workspace.root), "--json").output)
    assert status["dead_letters"] == [{"line": 4, "reason": "not a JSON object"}]
    assert cli("history", "ack", "--all", "-w", str(workspace.root)).exit_code == 0
    assert json.loads(cli("status", "-w", str(workspace.root), "--json").output)["dead_letters"] == []
    unknown = cli("history", "ack", "9", "-w", str(workspace.root))
    assert unknown.exit_code == 2 and "acknowledged" in unknown.output and "line 9" in unknown.output
    assert "none" not in unknown.output and "nothing acknowledged for line 9" in unknown.output


def test_an_upgraded_workspace_resumes_after_its_dream_cursor_with_a_notice(workspace):
    write_history(workspace, [entry(i, f"[durable] fact {i}") for i in range(1, 5)])
    workspace.cursor_file.write_text("2\n")  # written by an older nanodream or by nanobot: no position state
    engine = NoteEngine()
    report = run_dream(workspace, SETTINGS, engine_factory=engine)
    assert engine.batches == [[3, 4]]
    assert report.notices == ["history position derived from .dream_cursor 2: resuming at line 3"]
    assert position_file(workspace).exists()


def test_a_rewritten_history_resumes_after_the_last_line_consumed_and_says_so(workspace):
    write_history(workspace, [entry(i, f"[durable] fact {i}") for i in range(1, 5)])
    run_dream(workspace, SETTINGS, engine_factory=NoteEngine())
    write_history(workspace, [entry(4, "[durable] fact 4"), entry(5, "[durable] fact 5")])  # compacted: shorter
    engine = NoteEngine()
    report = run_dream(workspace, SETTINGS, engine_factory=engine)
    assert engine.batches == [[5]]
    assert report.anomalies[0].startswith("history.jsonl was rotated or rewritten (it is shorter than the")
    assert "the last line consumed (cursor 4) is now line 1; resuming at line 2" in report.notices[0]


def test_show_lists_the_entries_a_dream_consumed_by_line(workspace):
    write_history(workspace, [entry(7, "[durable] a"), entry(3, "[durable] b")])  # cursors out of order
    report = run_dream(workspace, SETTINGS, engine_factory=NoteEngine())
    detail = json.loads(cli("show", report.commits[0], "-w", str(workspace.root), "--json").output)
    assert [(e["line"], e["cursor"]) for e in detail["history_entries"]] == [(1, 7), (2, 3)]
    assert detail["lines"] == {"first": 1, "last": 2}
