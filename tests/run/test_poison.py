"""Poisoned batches over real HTTP: a model that always fails on one entry cannot block the queue forever."""

from __future__ import annotations

import json
import re

import pytest

from nanodream.backlog.history import read_cursor
from nanodream.backlog.quarantine import QuarantinedEntry, add_to_quarantine, load_quarantine, quarantine_file
from nanodream.cli import app
from nanodream.config import Settings
from nanodream.run.context import RunOptions
from nanodream.run.dream import retry_quarantined, run_dream
from nanodream.run.records import read_records
from nanodream.status import workspace_status
from tests.support.cli import runner
from tests.support.fakes import NoteEngine, noting_model, sessions
from tests.support.scripted_server import call, final
from tests.support.workspaces import entry, git, llm_settings, snapshot, write_history

POISON = "MARKER-THAT-THE-PROVIDER-REJECTS"


def six_entries(ws, poison_at: int | None = 4) -> None:
    write_history(ws, [
        entry(i, f"[durable] Project fact number {i}." + (f" {POISON}" if i == poison_at else ""))
        for i in range(1, 7)
    ])


def settings_for(server, **overrides):
    values = dict(batch_tokens=1000, split_after=3, max_retries=0)
    values.update(overrides)
    return llm_settings(server, **values)


def test_a_poisoned_entry_is_quarantined_after_n_failures_and_the_queue_moves_on(workspace, serve):
    six_entries(workspace)
    server = serve([noting_model(poison=POISON)] * 40)
    settings = settings_for(server)
    before = snapshot(workspace)
    for _ in range(2):  # below the threshold: a plain failure that changes nothing
        report = run_dream(workspace, settings)
        assert report.outcome == "failed" and report.failed_at == [1, 6]
        assert snapshot(workspace) == before and load_quarantine(workspace) == []
    server.requests.clear()

    report = run_dream(workspace, settings)  # third failure in a row: split until one entry fails alone

    assert report.quarantined == [4]
    assert report.outcome == "committed"
    assert "quarantined line 4" in report.reason
    assert sessions(server.requests) == [[1, 2, 3, 4, 5, 6], [1, 2, 3], [4, 5, 6], [4], [5, 6]]
    assert [b.outcome for b in report.batches] == ["split", "committed", "split", "quarantined", "committed"]
    assert read_cursor(workspace.cursor_file) == 6
    memory = (workspace.root / "memory/MEMORY.md").read_text()
    assert "- noted 1..3" in memory and "- noted 5..6" in memory
    trailers = re.findall(r"^Dream-Cursor: (\d+)\.\.(\d+)$", git(workspace, "log", "--format=%B"), re.MULTILINE)
    assert sorted(trailers) == [("1", "3"), ("5", "6")]  # every other entry consumed exactly once

    [held] = load_quarantine(workspace)
    assert held.cursor == 4 and POISON in held.preview and "BadRequestError" in held.reason
    assert held.run_id == report.run_id
    info = workspace_status(workspace, settings)
    assert [q["cursor"] for q in info.quarantine] == [4]
    assert "history.jsonl" not in git(workspace, "ls-files")  # the entry itself stays where it was
    assert POISON in workspace.history_file.read_text()
    assert read_records(workspace)[-1].quarantined == [4]

    assert run_dream(workspace, settings).outcome == "nothing-to-do"  # and it is never retried on its own


def test_a_batch_known_to_fail_goes_straight_to_its_halves(workspace, serve):
    six_entries(workspace, poison_at=1)
    server = serve([noting_model(poison=POISON)] * 40)
    settings = settings_for(server, split_after=2)
    assert run_dream(workspace, settings).outcome == "failed"
    assert run_dream(workspace, settings, RunOptions(max_batches=1)).outcome == "failed"  # split, then out of batches
    server.requests.clear()

    report = run_dream(workspace, settings)

    assert sessions(server.requests)[0] == [1, 2, 3]  # the whole batch is not paid for a third time
    assert report.quarantined == [1]
    assert read_cursor(workspace.cursor_file) == 6


def test_an_outage_quarantines_nothing(workspace, serve):
    six_entries(workspace, poison_at=None)
    server = serve([noting_model(poison="Project fact")] * 40)  # every entry fails: the provider is down
    before = snapshot(workspace)
    report = run_dream(workspace, settings_for(server, split_after=1))
    assert report.outcome == "failed"
    assert "looks like a provider or configuration problem" in report.reason
    assert load_quarantine(workspace) == []
    assert snapshot(workspace) == before
    assert report.failed_at == [1, 1]


def test_a_poisoned_last_entry_waits_for_a_later_success(workspace, serve):
    six_entries(workspace, poison_at=6)
    server = serve([noting_model(poison=POISON)] * 40)
    settings = settings_for(server, split_after=1)
    report = run_dream(workspace, settings)
    assert report.outcome == "failed" and report.quarantined == []
    assert "the entry on line 6 (cursor 6) fails on its own" in report.reason
    assert "once a later entry dreams" in report.reason
    assert read_cursor(workspace.cursor_file) == 5  # everything before it went through

    with workspace.history_file.open("a") as handle:
        handle.write(json.dumps(entry(7, "[durable] A later fact.")) + "\n")
    report = run_dream(workspace, settings)
    assert report.quarantined == [6]
    assert read_cursor(workspace.cursor_file) == 7


def test_retrying_a_quarantined_entry_that_now_works(workspace, serve):
    six_entries(workspace)
    server = serve([noting_model(poison=POISON)] * 40)
    run_dream(workspace, settings_for(server, split_after=1))
    assert [q.cursor for q in load_quarantine(workspace)] == [4]

    fixed = serve([noting_model()] * 4)  # e.g. a different model that accepts the entry
    report = retry_quarantined(workspace, settings_for(fixed), 4)

    assert report.outcome == "committed", report.reason
    assert sessions(fixed.requests) == [[4]]
    assert load_quarantine(workspace) == []
    assert read_cursor(workspace.cursor_file) == 6  # the cursor never moves back
    message = git(workspace, "log", "-1", "--format=%B")
    assert "Dream-Cursor: 4..4" in message and "Dream-Cursor-Reset: 6" in message
    workspace.cursor_file.unlink()  # a lost cursor is rebuilt from the commits: to 6, not back to 4
    assert run_dream(workspace, settings_for(fixed)).outcome == "nothing-to-do"
    assert read_cursor(workspace.cursor_file) == 6


def test_retrying_an_entry_that_still_fails_keeps_it_and_changes_nothing(workspace, serve):
    six_entries(workspace)
    server = serve([noting_model(poison=POISON)] * 40)
    run_dream(workspace, settings_for(server, split_after=1))
    before = snapshot(workspace)

    report = retry_quarantined(workspace, settings_for(server), 4)

    assert report.outcome == "failed" and report.exit_code == 1
    assert snapshot(workspace) == before
    [held] = load_quarantine(workspace)
    assert held.retries == 1 and "BadRequestError" in held.reason


def test_quarantine_cli_lists_and_refuses_unknown_entries(workspace, serve):
    six_entries(workspace)
    server = serve([noting_model(poison=POISON)] * 40)
    run_dream(workspace, settings_for(server, split_after=1))

    listed = runner.invoke(app, ["quarantine", "list", "-w", str(workspace.root)])
    assert listed.exit_code == 0 and "line 4 (cursor 4)" in listed.output and POISON[:20] in listed.output
    as_json = runner.invoke(app, ["quarantine", "-w", str(workspace.root), "--json"])
    assert [item["cursor"] for item in json.loads(as_json.output)] == [4]
    status = runner.invoke(app, ["status", "-w", str(workspace.root)])
    assert "quarantine 1 set aside: line 4" in status.output

    unknown = runner.invoke(app, ["quarantine", "retry", "3", "-w", str(workspace.root)])
    assert unknown.exit_code == 2 and "line 3 is not in quarantine (quarantined: line 4)" in unknown.output


def test_an_unreadable_quarantine_file_fails_the_run_without_touching_anything(workspace, serve):
    six_entries(workspace)
    server = serve([noting_model()] * 4)
    quarantine_file(workspace).parent.mkdir(exist_ok=True)
    quarantine_file(workspace).write_text("{oops")
    before = snapshot(workspace)
    report = run_dream(workspace, settings_for(server))
    assert report.outcome == "failed" and "quarantine.json is unreadable" in report.reason
    assert snapshot(workspace) == before and server.requests == []


def test_an_entry_quarantined_just_before_a_crash_is_not_dreamed_again(workspace):
    six_entries(workspace)
    # the run that quarantined #4 died before its next batch was applied: cursor still at 3
    workspace.cursor_file.write_text("3\n")
    add_to_quarantine(workspace, [QuarantinedEntry(cursor=4, timestamp="2026-10-01 10:04", preview="…",
                                                   reason="rejected", quarantined_at="2026-10-01T10:00:00+00:00",
                                                   run_id="earlier")])
    engine = NoteEngine()
    report = run_dream(workspace, Settings(model="fake/m"), engine_factory=engine)
    assert engine.batches == [[5, 6]]
    assert report.outcome == "committed" and read_cursor(workspace.cursor_file) == 6
    assert [q.cursor for q in load_quarantine(workspace)] == [4]


def quarantine_entry_four(workspace, serve) -> None:
    six_entries(workspace)
    server = serve([noting_model(poison=POISON)] * 40)
    run_dream(workspace, settings_for(server, split_after=1))
    assert [q.cursor for q in load_quarantine(workspace)] == [4]


def test_a_retried_entry_honours_max_repeated_failures(workspace, serve):
    quarantine_entry_four(workspace, serve)
    before = snapshot(workspace)
    stuck = call("edit_file", path="memory/MEMORY.md", old_text="no such line", new_text="- x")
    looping = serve([stuck, stuck, final("Done")])

    report = retry_quarantined(workspace, settings_for(looping, max_repeated_failures=2), 4)

    assert report.outcome == "model-no-op", report.reason  # a loop says the model cannot do the job
    assert "the same failing edit_file call was repeated 2 times" in report.reason
    assert snapshot(workspace) == before
    [held] = load_quarantine(workspace)
    assert held.retries == 1 and "repeated 2 times" in held.reason


class InterruptingEngine:
    """Stages an edit through the real tools, then the person presses Ctrl-C mid-session."""

    name = "interrupting"

    def __call__(self, settings):
        return self

    def run(self, request, toolbox):
        toolbox.call("edit_file", {"path": "memory/MEMORY.md", "old_text": "## Project\n",
                                   "new_text": "## Project\n- half-done\n"})
        raise KeyboardInterrupt


def test_an_interrupted_retry_leaves_the_workspace_byte_identical_and_is_recorded(workspace, serve):
    quarantine_entry_four(workspace, serve)
    before, held_before = snapshot(workspace), quarantine_file(workspace).read_bytes()

    with pytest.raises(KeyboardInterrupt):
        retry_quarantined(workspace, Settings(model="fake/m"), 4, engine_factory=InterruptingEngine())

    assert snapshot(workspace) == before
    assert quarantine_file(workspace).read_bytes() == held_before
    record = read_records(workspace)[-1]
    assert (record.trigger, record.outcome, record.reason) == ("retry", "failed", "abandoned on interrupt")


def test_a_retry_that_meets_an_unrecoverable_journal_stops_for_a_person_in_one_line(workspace, serve):
    quarantine_entry_four(workspace, serve)
    workspace.journal_file.write_text("{torn")
    before = snapshot(workspace)

    report = retry_quarantined(workspace, Settings(model="fake/m"), 4, engine_factory=NoteEngine())

    assert report.outcome == "blocked" and report.exit_code == 78
    assert ".nanodream/journal.json" in report.reason and report.reason.endswith("move it away to continue")
    assert "internal error" not in report.reason and "\n" not in report.reason
    assert snapshot(workspace) == before and [q.cursor for q in load_quarantine(workspace)] == [4]
