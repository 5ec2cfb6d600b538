"""Real `nanodream` processes, where a process is the point: concurrency, SIGTERM, and kill -9."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading

from nanodream.backlog.history import read_cursor
from nanodream.config import Settings
from nanodream.run.dream import run_dream
from nanodream.run.records import read_records
from nanodream.scheduling.timetable import scheduler_file
from tests.support.fakes import NoteEngine, noting_model, sessions
from tests.support.paths import REPO
from tests.support.waiting import HANG, until
from tests.support.workspaces import entry, git, snapshot, write_history

REPO = REPO


class Output:
    """Collects a pipe in the background so a test can wait for a line without blocking forever."""

    def __init__(self, pipe) -> None:
        self.text = ""
        self._thread = threading.Thread(target=self._pump, args=(pipe,), daemon=True)
        self._thread.start()

    def _pump(self, pipe) -> None:
        for line in pipe:
            self.text += line

    def wait_for(self, needle: str) -> None:
        until(lambda: needle in self.text, self._thread.is_alive, f"never saw {needle!r} in {self.text!r}")

    def finish(self) -> str:
        self._thread.join(HANG)
        return self.text


def spawn(ws, server, *args: str, **env: str) -> tuple[subprocess.Popen, Output, Output]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("NANODREAM_", "GIT_"))}
    environ.update(PYTHONPATH=str(REPO), LITELLM_LOCAL_MODEL_COST_MAP="True", NANODREAM_MODEL="openai/scripted-model",
                   NANODREAM_API_BASE=server.url, NANODREAM_API_KEY="test-key", NANODREAM_MAX_RETRIES="0",
                   NANODREAM_TIMEOUT=str(HANG), **env)
    process = subprocess.Popen([sys.executable, "-m", "nanodream", *args, "-w", str(ws.root)], cwd=REPO,
                               env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return process, Output(process.stdout), Output(process.stderr)


def gated_model():
    """The first request waits at a gate the test opens; `arrived` tells the test a session is under way."""
    arrived, gate = threading.Event(), threading.Event()
    model = noting_model()

    def first(body):
        arrived.set()
        gate.wait(HANG)
        return model(body)

    return [first] + [model] * 20, arrived, gate


def eight_entries(ws) -> None:
    write_history(ws, [entry(i, f"[durable] fact number {i} " + "x" * 60) for i in range(1, 9)])


def test_concurrent_runs_exactly_one_commits_and_the_others_exit_busy(workspace, serve):
    write_history(workspace, [entry(i, f"[durable] fact {i}") for i in range(1, 5)])
    script, arrived, gate = gated_model()
    server = serve(script)
    runs = [spawn(workspace, server, "run") for _ in range(4)]
    try:
        until(lambda: sum(p.poll() is not None for p, _, _ in runs) >= 3,  # the winner waits at the gate
              what="the other runs did not give up")
        assert arrived.wait(HANG)
    finally:
        gate.set()
    codes = [p.wait(HANG) for p, _, _ in runs]

    assert sorted(codes) == [0, 75, 75, 75]
    for (_, _, err), code in zip(runs, codes, strict=True):
        if code == 75:
            assert "busy:" in err.finish() and "another dream is running" in err.text
    assert sessions(server.requests) == [[1, 2, 3, 4]]  # no entry reached the model twice
    assert sorted(r.outcome for r in read_records(workspace)) == ["busy", "busy", "busy", "committed"]
    assert re.findall(r"^Dream-Cursor: .*$", git(workspace, "log", "--format=%B"), re.MULTILINE) == [
        "Dream-Cursor: 1..4"]
    assert read_cursor(workspace.cursor_file) == 4


def test_sigterm_during_a_scheduled_run_finishes_the_batch_and_exits_cleanly(workspace, serve):
    eight_entries(workspace)
    script, arrived, gate = gated_model()
    server = serve(script)
    process, out, err = spawn(workspace, server, "schedule", "--every", "1h", NANODREAM_BATCH_TOKENS="70")
    try:
        assert arrived.wait(HANG)  # the first batch's session is under way
        process.send_signal(signal.SIGTERM)
        err.wait_for("SIGTERM: stopping after the current batch")
    finally:
        gate.set()
    assert process.wait(HANG) == 0, err.finish()

    assert sessions(server.requests) == [[1, 2]]  # the batch finished; no other batch started
    assert read_cursor(workspace.cursor_file) == 2
    assert not workspace.journal_file.exists() and git(workspace, "status", "--porcelain") == ""
    assert "Dream-Cursor: 1..2" in git(workspace, "log", "-1", "--format=%B")
    record = read_records(workspace)[-1]
    assert record.trigger == "schedule" and record.outcome == "committed"
    assert record.reason.startswith("stopped by SIGTERM")
    log = out.finish()
    assert "next run at" in log and "ran: #1..#2 (2 entries)" in log and "stopped by SIGTERM" in log
    assert not scheduler_file(workspace).exists()


def test_a_second_sigterm_abandons_the_batch_and_leaves_the_workspace_as_it_was(workspace, serve):
    eight_entries(workspace)
    before = snapshot(workspace)
    script, arrived, gate = gated_model()
    server = serve(script)
    process, _, err = spawn(workspace, server, "run")
    try:
        assert arrived.wait(HANG)
        process.send_signal(signal.SIGTERM)
        err.wait_for("finishing the current batch")
        process.send_signal(signal.SIGTERM)
        assert process.wait(HANG) == 130
    finally:
        gate.set()
    assert "abandoned" in err.finish()
    assert snapshot(workspace) == before
    [record] = read_records(workspace)
    assert record.outcome == "failed" and record.reason == "abandoned on interrupt"


HOLD_THE_LOCK = """
import sys, time
from nanodream.memory.lock import workspace_lock
from nanodream.workspace import Workspace
with workspace_lock(Workspace.at(sys.argv[1])):
    print("held", flush=True)
    time.sleep(120)
"""


def test_a_lock_held_by_a_killed_process_does_not_block_the_next_run(workspace):
    eight_entries(workspace)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_THE_LOCK, str(workspace.root)], cwd=REPO,
                              env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        settings = Settings(model="fake/model")
        assert run_dream(workspace, settings, engine_factory=NoteEngine()).outcome == "busy"
    finally:
        holder.kill()
        holder.wait(HANG)
    assert workspace.lock_file.exists()  # the file is left behind; the kernel dropped the lock itself
    report = run_dream(workspace, settings, engine_factory=NoteEngine())
    assert report.outcome == "committed" and read_cursor(workspace.cursor_file) == 8
