"""A history.jsonl that was rotated or rewritten: read from its first line when it is a new file, from just
after the last line consumed when it still holds it, and stopped for a person when neither can be known.
Never "nothing to do" over unread entries; dead letters of the old file are dropped with a notice."""

from __future__ import annotations

import json

import pytest

from nanodream.backlog.position import position_file
from nanodream.config import Settings
from nanodream.run.dream import run_dream
from nanodream.status import workspace_status
from tests.support.cli import cli
from tests.support.fakes import NoteEngine
from tests.support.workspaces import entry, write_history

SETTINGS = Settings(model="fake/m")


def dream(workspace) -> tuple:
    engine = NoteEngine()
    return run_dream(workspace, SETTINGS, engine_factory=engine), engine


def consumed_three(workspace, *extra) -> None:
    write_history(workspace, [entry(i, f"[durable] old fact {i}") for i in range(1, 4)] + list(extra))
    report, _ = dream(workspace)
    assert report.outcome == "committed", report.reason




@pytest.mark.parametrize("new_file", [
    [entry(1, "[durable] new fact 1"), entry(2, "[durable] new fact 2")],  # the host's counter restarted
    [entry(4, "[durable] new fact 4"), entry(5, "[durable] new fact 5")],  # it went on counting
    [entry(1, f"[durable] a much longer new file, fact {i}") for i in range(1, 9)],  # longer than the old one
    [entry(7, "[durable] one new fact")],
    [entry(i, f"[durable] new fact {i}") for i in range(1, 6)],  # its lines end where the old file's did
], ids=["restarted", "continued", "longer", "one-line", "same-line-lengths"])
def test_a_rotated_history_is_read_from_its_first_line(workspace, new_file):
    consumed_three(workspace)
    workspace.history_file.rename(workspace.history_file.with_name("history.jsonl.1"))
    write_history(workspace, new_file)

    status = workspace_status(workspace, SETTINGS)
    assert status.pending_entries == len(new_file) and "rotated or rewritten" in status.notice
    report, engine = dream(workspace)

    assert report.outcome == "committed", report.reason
    assert [c for batch in engine.batches for c in batch] == [e["cursor"] for e in new_file]
    assert report.consumed_lines == [1, len(new_file)]
    assert any("rotated or rewritten" in n and "reading it from line 1" in n for n in report.notices)
    assert workspace_status(workspace, SETTINGS).pending_entries == 0
    assert dream(workspace)[0].outcome == "nothing-to-do"


def test_a_history_emptied_and_written_again_is_read_from_its_first_line(workspace):
    consumed_three(workspace)
    workspace.history_file.write_text("")
    assert dream(workspace)[0].outcome == "nothing-to-do"
    write_history(workspace, [entry(1, "[durable] after the truncation")])
    report, engine = dream(workspace)
    assert report.outcome == "committed" and engine.batches == [[1]]


def test_a_rewrite_that_cannot_be_placed_stops_for_a_person_until_told_where_to_resume(workspace):
    consumed_three(workspace)
    kept_start = [entry(1, "[durable] old fact 1"), entry(2, "[durable] old fact 2")]
    write_history(workspace, [*kept_start, entry(3, "[durable] old fact 3, redacted"), entry(4, "[durable] new")])
    position = position_file(workspace).read_text()

    done = cli("run", "-w", str(workspace.root))

    assert done.exit_code == 78, done.output
    said = " ".join(done.output.split())
    assert "history.jsonl was rotated or rewritten" in said and ".dream_cursor" in said
    assert position_file(workspace).read_text() == position  # nothing consumed, nothing guessed
    status = json.loads(cli("status", "-w", str(workspace.root), "--json").output)
    assert "rotated or rewritten" in status["notice"] and status["pending_entries"] == 4
    assert json.loads(cli("run", "-w", str(workspace.root), "--json").output)["outcome"] == "blocked"

    position_file(workspace).unlink()  # the way out the message gives
    workspace.cursor_file.write_text("3\n")
    report, engine = dream(workspace)
    assert report.outcome == "committed" and engine.batches == [[4]]


@pytest.mark.parametrize("new_cursors", [[1, 2], [3]])
def test_a_position_saved_before_line_keys_never_marks_unread_entries_consumed(workspace, new_cursors):
    consumed_three(workspace)
    saved = json.loads(position_file(workspace).read_text())
    position_file(workspace).write_text(json.dumps({k: saved[k] for k in ("offset", "line", "cursor", "fingerprint")}))
    write_history(workspace, [entry(c, f"[durable] rotated fact {c}") for c in new_cursors])

    report, engine = dream(workspace)

    assert report.outcome == "blocked" and "rotated or rewritten" in report.reason
    assert engine.batches == []


def test_dead_letters_of_the_old_file_are_dropped_with_a_notice(workspace):
    consumed_three(workspace, "not json at all {", "[1, 2]")
    assert [d["line"] for d in workspace_status(workspace, SETTINGS).dead_letters] == [4, 5]
    workspace.history_file.rename(workspace.history_file.with_name("history.jsonl.1"))
    write_history(workspace, [entry(1, "[durable] new fact 1")])

    status = json.loads(cli("status", "-w", str(workspace.root), "--json").output)
    assert status["dead_letters"] == []  # line 4 and 5 of the old file are no lines of this one
    report, _ = dream(workspace)

    assert report.outcome == "committed"
    assert "dropped 2 dead letters history.jsonl no longer holds (rotated or rewritten): lines 4, 5 of the old file" \
        in report.notices
    assert json.loads(cli("history", "-w", str(workspace.root), "--json").output) == []


def test_a_dead_letter_the_rewritten_file_still_holds_is_kept(workspace):
    write_history(workspace, [entry(1, "[durable] a"), "broken {", entry(2, "[durable] b")])
    dream(workspace)
    write_history(workspace, [entry(2, "[durable] b"), "broken {", entry(3, "[durable] c")])  # moved: line 2 still
    status = workspace_status(workspace, SETTINGS)
    assert [d["line"] for d in status.dead_letters] == [2]


def test_status_never_lists_a_dead_letter_beyond_the_end_of_the_file(workspace):
    write_history(workspace, [entry(i, f"[durable] f {i}") for i in range(1, 4)] + ["bad {"] * 3)
    dream(workspace)
    write_history(workspace, [entry(1, "[durable] f 1")])
    lines = workspace.history_file.read_text().count("\n")
    assert all(d["line"] <= lines for d in workspace_status(workspace, SETTINGS).dead_letters)
