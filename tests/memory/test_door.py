"""The write door (memory/door.py) and the self-undoing transaction, from every command that writes.

Each writer must refuse a broken journal, a ref git will not move and a full disk the same way, and leave
the workspace exactly as it was: `git status` clean, no journal, and a person's next hand edit committed
alone. The index a person stages from must never be left holding a reversal of a commit.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path

import pytest

from nanodream import atomic
from nanodream.memory.transaction import pending_sync_file
from nanodream.run.dream import run_dream
from nanodream.slash import respond
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import ExitCode
from nanodream.workspace import Workspace
from tests.support.cli import cli
from tests.support.memory_engine import LiteralEngine, append_history, build_history, dream_settings
from tests.support.workspaces import entry, git, snapshot

BROKEN_JOURNAL = "{torn"




@pytest.fixture
def history(workspace):
    return workspace, build_history(workspace)


def _writers(ws: Workspace, shas: dict[str, str]) -> dict[str, list[str]]:
    """Every command that writes, as a person would type it (each has something it could act on)."""
    root = str(ws.root)
    return {
        "run": ["run", "-w", root],
        "restore": ["restore", shas["b"], "-w", root],
        "review accept --all": ["review", "accept", "--all", "-w", root],  # an empty lane: nothing to do
        "review reject --all": ["review", "reject", "--all", "-w", root],
        "forget": ["forget", "--session", "cli:direct", "-w", root],
        "pin": ["pin", "postgres", "-w", root],
        "prompt init": ["prompt", "init", "-w", root],
        "prompt reset": ["prompt", "reset", "-w", root],
        "quarantine retry": ["quarantine", "retry", "1", "-w", root],
        "history ack": ["history", "ack", "--all", "-w", root],
    }


def test_every_writer_refuses_an_unreadable_journal_the_same_way_and_leaves_it_alone(history):
    ws, shas = history
    append_history(ws, entry(6, "[durable] memory/MEMORY.md: Uses redis"))
    ws.journal_file.write_text(BROKEN_JOURNAL)
    before = snapshot(ws)
    for name, args in _writers(ws, shas).items():
        result = cli(*args)
        assert result.exit_code == ExitCode.NEEDS_PERSON, (name, result.output)
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("blocked: "), (name, lines)
        assert ".nanodream/journal.json is not a journal nanodream can recover" in lines[0], (name, lines)
        assert lines[0].endswith("move it away to continue") and "internal error" not in result.output, name
        assert ws.journal_file.read_text() == BROKEN_JOURNAL and snapshot(ws) == before, name
        as_json = cli(*args, "--json")
        assert as_json.exit_code == ExitCode.NEEDS_PERSON
        shown = json.loads(as_json.stdout)
        assert ".nanodream/journal.json" in (shown.get("reason") or shown.get("error")), name


def test_the_slash_commands_refuse_a_broken_journal_too(history):
    ws, shas = history
    ws.journal_file.write_text(BROKEN_JOURNAL)
    for text in ("/dream", f"/dream-restore {shas['b'][:8]}", "/dream-accept all", "/dream-prompt init"):
        reply = respond(ws.root, text)
        assert reply.exit_code == ExitCode.NEEDS_PERSON, (text, reply.markdown)
        assert ".nanodream/journal.json" in reply.markdown and "unexpected error" not in reply.markdown


@pytest.fixture
def taken_after_the_check(monkeypatch):
    """The locks these tests lay stand for another git process that takes them just after the door looked (a
    lock no process holds when the door looks is cleared as stale: tests/versioning/test_git_locks.py)."""
    monkeypatch.setattr("nanodream.memory.door.clear_stale_locks", lambda workspace: [])


def _lock_head(ws: Workspace) -> Path:
    """What another git process leaves while it moves HEAD: git refuses to move the ref meanwhile."""
    lock = ws.root / ".git" / "refs" / "heads" / "main.lock"
    lock.write_text("")
    return lock


def _clean(ws: Workspace) -> None:
    assert git(ws, "status", "--porcelain") == ""
    assert not ws.journal_file.exists()


def _next_hand_edit_is_committed_alone(ws: Workspace) -> None:
    user = ws.root / "USER.md"
    user.write_text(user.read_text() + "- Typed by the person.\n")
    append_history(ws, entry(90, "[skip] nothing"))
    report = run_dream(ws, dream_settings(), engine_factory=lambda settings: LiteralEngine())
    assert report.manual_commit is not None
    changed = git(ws, "show", "--format=", "--name-only", report.manual_commit).splitlines()
    assert changed == ["USER.md"]
    added = [line for line in git(ws, "show", "--format=", report.manual_commit).splitlines()
             if line.startswith("+") and not line.startswith("+++")]
    assert added == ["+- Typed by the person."]  # the person's one line, nothing of the failed change


@pytest.mark.parametrize("writer", ["run", "restore", "pin", "forget", "review reject --all"])
def test_a_commit_git_refuses_puts_every_file_back(history, writer, taken_after_the_check):
    ws, shas = history
    append_history(ws, entry(6, "[durable] memory/MEMORY.md: Uses redis"))
    if writer == "review reject --all":  # something to reject: a proposal waiting for review
        assert cli("run", "--review", "-w", str(ws.root)).exit_code == 0
    head = git(ws, "rev-parse", "HEAD")
    before = snapshot(ws)
    lock = _lock_head(ws)
    args = _writers(ws, shas)[writer]
    if writer == "run":
        report = run_dream(ws, dream_settings(), engine_factory=lambda settings: LiteralEngine())
        exit_code, said = report.exit_code, report.reason
    else:
        result = cli(*args)
        exit_code, said = result.exit_code, result.stderr
    assert exit_code == ExitCode.FAILED, said
    assert "could not be committed" in said and "back as they were" in said and "internal error" not in said
    assert snapshot(ws) == before and git(ws, "rev-parse", "HEAD") == head
    lock.unlink()
    _clean(ws)
    _next_hand_edit_is_committed_alone(ws)


def test_a_git_that_refuses_the_ref_update_puts_every_file_back(history, tmp_path, monkeypatch):
    """git itself refusing the ref (a workspace's own hook never runs: tests/versioning/test_git_untrusted.py)."""
    ws, _ = history
    append_history(ws, entry(6, "[durable] memory/MEMORY.md: Uses redis"))
    refusing = tmp_path / "refusing-git"
    refusing.mkdir()
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True, check=True).stdout.strip()
    (refusing / "git").write_text(f'#!/bin/sh\ncase " $* " in *" update-ref "*) echo "fatal: refused" >&2; exit 1;; '
                                  f'esac\nexec {real} "$@"\n')
    (refusing / "git").chmod(0o755)
    before = snapshot(ws)
    monkeypatch.setenv("PATH", f"{refusing}{os.pathsep}{os.environ['PATH']}")
    report = run_dream(ws, dream_settings(), engine_factory=lambda settings: LiteralEngine())
    monkeypatch.undo()
    assert report.outcome == "failed" and "could not be committed" in report.reason
    assert report.batches[-1].blameless  # git's refusal is no poisoned entry: never split or quarantined
    assert snapshot(ws) == before
    _clean(ws)
    _next_hand_edit_is_committed_alone(ws)


def test_a_full_disk_mid_write_puts_the_files_already_written_back(history, monkeypatch):
    ws, _ = history
    append_history(ws, entry(6, "[durable] memory/MEMORY.md: Uses redis"), entry(7, "[permanent] USER.md: Likes rain"))
    before = snapshot(ws)
    real_write = atomic.atomic_write
    written: list[str] = []

    def fill_up(path, data):
        if path.name in ("MEMORY.md", "USER.md"):
            written.append(path.name)
            if len(written) == 2:  # the second memory file of the change finds the disk full
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real_write(path, data)

    monkeypatch.setattr("nanodream.memory.journal.atomic_write", fill_up)
    report = run_dream(ws, dream_settings(), engine_factory=lambda settings: LiteralEngine())
    monkeypatch.undo()
    assert report.outcome == "failed" and "No space left on device" in report.reason
    assert "back as they were" in report.reason
    assert snapshot(ws) == before
    _clean(ws)
    again = run_dream(ws, dream_settings(), engine_factory=lambda settings: LiteralEngine())
    assert again.outcome == "committed" and "- Uses redis" in (ws.root / "memory/MEMORY.md").read_text()


class Crash(BaseException):
    """A process killed at that very line (nothing after it runs, no except clause sees it)."""


def test_a_crash_between_the_commit_and_the_index_update_is_finished_by_the_next_start(history, monkeypatch):
    ws, _ = history
    append_history(ws, entry(6, "[durable] memory/MEMORY.md: Uses redis"))
    real_sync = GitStore.sync_index

    def killed(self, old, new, *, stale_only=False):
        raise Crash()

    monkeypatch.setattr(GitStore, "sync_index", killed)
    with pytest.raises(Crash):
        run_dream(ws, dream_settings(), engine_factory=lambda settings: LiteralEngine())
    monkeypatch.setattr(GitStore, "sync_index", real_sync)
    assert "M  memory/MEMORY.md" in git(ws, "status", "--porcelain") or "MM" in git(ws, "status", "--porcelain")

    report = run_dream(ws, dream_settings(), engine_factory=lambda settings: LiteralEngine())
    assert "commit had landed" in report.recovered
    _clean(ws)  # the person's index follows the dream: their next `git commit` cannot revert it


def test_an_index_another_git_process_holds_is_updated_once_it_is_free(history, taken_after_the_check):
    ws, _ = history
    append_history(ws, entry(6, "[durable] memory/MEMORY.md: Uses redis"))
    index_lock = ws.root / ".git" / "index.lock"
    index_lock.write_text("")
    report = run_dream(ws, dream_settings(), engine_factory=lambda settings: LiteralEngine())
    assert report.outcome == "committed"  # the commit does not need the person's index
    assert pending_sync_file(ws).exists()
    index_lock.unlink()
    assert git(ws, "diff", "--cached", "--name-only") == "memory/MEMORY.md"  # it stages a reversal now

    later = run_dream(ws, dream_settings(), engine_factory=lambda settings: LiteralEngine())
    assert "updated git's index" in later.recovered
    _clean(ws)
    assert not pending_sync_file(ws).exists()


def test_a_person_staging_meanwhile_is_never_undone_by_the_retry(history, taken_after_the_check):
    ws, _ = history
    append_history(ws, entry(6, "[durable] memory/MEMORY.md: Uses redis"))
    index_lock = ws.root / ".git" / "index.lock"
    index_lock.write_text("")
    run_dream(ws, dream_settings(), engine_factory=lambda settings: LiteralEngine())
    index_lock.unlink()
    memory = ws.root / "memory/MEMORY.md"
    memory.write_text(memory.read_text() + "- Staged by the person.\n")
    git(ws, "add", "memory/MEMORY.md")
    staged = git(ws, "ls-files", "-s", "memory/MEMORY.md")

    from nanodream.memory.door import writing

    with writing(ws):
        pass
    assert git(ws, "ls-files", "-s", "memory/MEMORY.md") == staged


def test_a_change_that_can_be_neither_committed_nor_put_back_stops_for_a_person(history, monkeypatch,
                                                                              taken_after_the_check):
    ws, _ = history
    append_history(ws, entry(6, "[durable] memory/MEMORY.md: Uses redis"))
    lock = _lock_head(ws)
    from nanodream.memory import journal as journal_module

    real_write = journal_module.write_files
    calls = []

    def second_write_fails(root, contents):
        calls.append(contents)
        if len(calls) == 2:  # putting the files back
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(root / "memory/MEMORY.md"))
        real_write(root, contents)

    monkeypatch.setattr("nanodream.memory.transaction.write_files", second_write_fails)
    report = run_dream(ws, dream_settings(), engine_factory=lambda settings: LiteralEngine())
    monkeypatch.undo()
    assert report.outcome == "blocked" and report.exit_code == ExitCode.NEEDS_PERSON
    assert ".nanodream/journal.json" in report.reason and "putting its files back failed" in report.reason
    assert ws.journal_file.exists()  # the only record of what was half written: kept for the person
    lock.unlink()
    finished = run_dream(ws, dream_settings(), engine_factory=lambda settings: LiteralEngine())
    assert finished.recovered.startswith("completed interrupted run")
    _clean(ws)
