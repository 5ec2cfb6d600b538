"""kill -9 at every step of a run: the next run always recovers to a consistent state and loses nothing.

Each case starts a real process (tests/support/fault_driver.py) that SIGKILLs itself at one named point of a
three-batch run. Then, in this process:
1. a run whose engine refuses every batch performs only the recovery; the memory files must equal the
   state after some whole number of batches (the old commit or the new one, never a mix), be committed,
   not be mistaken for hand edits, and the cursor must match the last commit's consumed range;
2. a normal run finishes the backlog; the result must equal an uninterrupted run's, with every history
   entry consumed by exactly one commit.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from nanodream.backlog.history import read_cursor
from nanodream.memory.transaction import ensure_repository
from nanodream.run.context import RunOptions
from nanodream.run.dream import run_dream
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.support.fault_engine import FILES, SETTINGS, SKILL, AppendEngine, RefusingEngine
from tests.support.paths import REPO
from tests.support.workspaces import entry, git, write_history

REPO = REPO
FACTS = ["The ledger stores amounts in cents.", "Invoices are numbered per year.", "Backups run nightly at 02:00."]
ENTRIES = len(FACTS)


def fresh_workspace(root: Path) -> Workspace:
    ws = Workspace.at(root)
    scaffold(ws.root)
    ensure_repository(GitStore(ws))
    write_history(ws, [entry(i, f"[durable] {fact}") for i, fact in enumerate(FACTS, start=1)])
    return ws


def memory(ws: Workspace) -> dict[str, str | None]:
    paths = (*FILES, SKILL)
    return {p: (ws.root / p).read_text() if (ws.root / p).exists() else None for p in paths}


def consumed_ranges(ws: Workspace) -> list[tuple[int, int]]:
    log = git(ws, "log", "--reverse", "--format=%B")
    return [(int(a), int(b)) for a, b in re.findall(r"^Dream-Cursor: (\d+)\.\.(\d+)$", log, re.MULTILINE)]


def stray_temp_files(ws: Workspace) -> list[str]:
    return [p.relative_to(ws.root).as_posix() for p in ws.root.rglob(".*.tmp") if ".git" not in p.parts]


@pytest.fixture(scope="module")
def states(tmp_path_factory) -> list[dict[str, str | None]]:
    """Memory after 0, 1, 2 and 3 batches of an uninterrupted run."""
    ws = fresh_workspace(tmp_path_factory.mktemp("reference") / "ws")
    found = [memory(ws)]
    for _ in FACTS:
        report = run_dream(ws, SETTINGS, RunOptions(max_batches=1), engine_factory=AppendEngine)
        assert report.outcome == "committed", report.reason
        found.append(memory(ws))
    return found


def kill_run(ws: Workspace, point: str, nth: int) -> None:
    done = subprocess.run([sys.executable, "-m", "tests.support.fault_driver", str(ws.root), point, str(nth)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, f"{point}#{nth} was never reached: {done.stdout}{done.stderr}"


def assert_recovers(ws: Workspace, states: list[dict[str, str | None]]) -> None:
    report = run_dream(ws, SETTINGS, engine_factory=RefusingEngine)
    assert report.manual_commit is None, "a half-applied dream was committed as the person's hand edits"
    assert not ws.journal_file.exists()
    assert GitStore(ws).dirty_paths() == []  # what is on disk is exactly what HEAD holds
    assert stray_temp_files(ws) == []
    on_disk = memory(ws)
    assert on_disk in states, "memory is a mix of two commits"
    ranges = consumed_ranges(ws)
    assert states.index(on_disk) == len(ranges)
    assert read_cursor(ws.cursor_file) == (ranges[-1][1] if ranges else 0)

    report = run_dream(ws, SETTINGS, engine_factory=AppendEngine)
    assert report.outcome in ("committed", "nothing-to-do"), report.reason
    assert memory(ws) == states[-1]
    assert consumed_ranges(ws) == [(i, i) for i in range(1, ENTRIES + 1)]  # each entry once, none lost
    assert read_cursor(ws.cursor_file) == ENTRIES


CASES = [
    ("before-staging", 1), ("in-session", 2), ("before-journal", 1), ("journal-torn", 1),
    ("between-files", 1), ("between-files", 3), ("mid-file-write", 2), ("mid-file-write", 4),
    ("before-commit", 1), ("before-ref-update", 1), ("after-commit", 1), ("cursor-torn", 1),
    ("before-journal-clear", 1), ("before-record", 1),
    ("between-files", 6), ("before-commit", 2), ("after-commit", 3),  # later batches, earlier ones committed
]


# The default run kills at a sample of the points, one of each kind of step (before the journal, a torn journal,
# a half-written file, the ref, the cursor, a later batch); `pytest -m crash_matrix` (which .ci/run also runs)
# kills at every one. Each case is a process of its own: the whole matrix is a minute of a suite's time.
SAMPLED = {("before-journal", 1), ("journal-torn", 1), ("mid-file-write", 2), ("before-ref-update", 1),
           ("cursor-torn", 1), ("after-commit", 3)}


@pytest.mark.parametrize("point,nth", [
    pytest.param(point, nth, id=f"{point}#{nth}", marks=() if (point, nth) in SAMPLED else pytest.mark.crash_matrix)
    for point, nth in CASES])
def test_kill_nine_at_any_point_recovers_without_loss(tmp_path, states, point, nth):
    ws = fresh_workspace(tmp_path / "ws")
    kill_run(ws, point, nth)
    assert_recovers(ws, states)


def test_a_torn_apply_really_is_torn_before_recovery(tmp_path, states):
    """The between-files case is not vacuous: right after the kill the files are a mix of two states."""
    ws = fresh_workspace(tmp_path / "ws")
    kill_run(ws, "between-files", 2)
    assert memory(ws) not in states and ws.journal_file.exists()
    assert_recovers(ws, states)


def test_a_second_kill_during_recovery_is_recovered_too(tmp_path, states):
    ws = fresh_workspace(tmp_path / "ws")
    kill_run(ws, "before-commit", 1)  # files applied, commit missing
    kill_run(ws, "before-commit", 1)  # the recovery's own commit is killed
    assert ws.journal_file.exists()
    assert_recovers(ws, states)
