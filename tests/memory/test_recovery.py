"""The journal: an apply interrupted after validation is finished, or undone, on the next start."""

from __future__ import annotations

import pytest

from nanodream.backlog.history import read_cursor
from nanodream.memory.journal import Journal
from nanodream.run.dream import run_dream
from nanodream.versioning.gitstore import GitStore
from tests.support.scripted_server import call, final, keeps_nothing
from tests.support.workspaces import entry, git, llm_settings, snapshot, write_history

RULE_EDIT = call("edit_file", path="SOUL.md", old_text="## Rules\n", new_text="## Rules\n\n- Be brief.\n")


class Crash(BaseException):
    """Stands in for the process dying: nothing after it runs, not even `except Exception` handlers."""


def crash_on_commit(monkeypatch):
    def die(self, message, author):
        raise Crash()
    monkeypatch.setattr(GitStore, "commit", die)


def test_crash_between_apply_and_commit_is_rolled_forward(workspace, serve, monkeypatch):
    write_history(workspace, [entry(1, "[permanent] be brief")])
    server = serve([RULE_EDIT, final("Added a rule")])
    with monkeypatch.context() as patch:
        crash_on_commit(patch)
        with pytest.raises(Crash):
            run_dream(workspace, llm_settings(server))
    assert workspace.journal_file.exists() and read_cursor(workspace.cursor_file) == 0
    report = run_dream(workspace, llm_settings(server))
    assert report.recovered.startswith("completed interrupted run")
    assert report.manual_commit is None  # the half-applied dream is not mistaken for hand edits
    assert git(workspace, "log", "-1", "--format=%s") == "dream: Added a rule"
    assert "- Be brief." in (workspace.root / "SOUL.md").read_text()
    assert read_cursor(workspace.cursor_file) == 1 and not workspace.journal_file.exists()
    assert report.outcome == "nothing-to-do"


def test_crash_after_commit_before_cursor_write_does_not_reconsume(workspace, serve, monkeypatch):
    write_history(workspace, [entry(1, "[permanent] be brief")])
    server = serve([RULE_EDIT, final("Added a rule")])
    with monkeypatch.context() as patch:
        patch.setattr("nanodream.memory.transaction.advance", lambda ws, c: (_ for _ in ()).throw(Crash()))
        with pytest.raises(Crash):
            run_dream(workspace, llm_settings(server))
    commits = git(workspace, "rev-list", "--count", "HEAD")
    report = run_dream(workspace, llm_settings(server))
    assert "commit had landed" in report.recovered
    assert git(workspace, "rev-list", "--count", "HEAD") == commits
    assert read_cursor(workspace.cursor_file) == 1


def test_hand_edit_after_a_crash_is_kept_and_the_dream_is_undone(workspace, serve, monkeypatch):
    write_history(workspace, [entry(1, "[correction] everything changed")])
    original_soul, original_user = ((workspace.root / name).read_text() for name in ("SOUL.md", "USER.md"))
    server = serve([call("write_file", path="SOUL.md", content=original_soul + "- dream version: everything changed\n"),
                    call("write_file", path="USER.md", content=original_user + "- dream user\n"), final("rewrote")])
    with monkeypatch.context() as patch:
        crash_on_commit(patch)
        with pytest.raises(Crash):
            run_dream(workspace, llm_settings(server))
    (workspace.root / "SOUL.md").write_text("# Soul\n\n- typed by the person\n")
    server.script[:] = [keeps_nothing()] * 2
    report = run_dream(workspace, llm_settings(server))
    assert "abandoned interrupted run" in report.recovered
    assert (workspace.root / "SOUL.md").read_text() == "# Soul\n\n- typed by the person\n"
    assert (workspace.root / "USER.md").read_text() == original_user
    assert report.manual_commit is not None  # the person's edit is committed as theirs
    assert read_cursor(workspace.cursor_file) == 1  # the batch was consumed again by this run


def test_unreadable_journal_is_reported_not_guessed(workspace):
    workspace.state_dir.mkdir(exist_ok=True)
    workspace.journal_file.write_text("{not json")
    with pytest.raises(Exception, match="unreadable"):
        Journal.load(workspace)


def test_an_error_mid_apply_puts_the_files_back_and_the_batch_runs_again(workspace, serve, monkeypatch):
    write_history(workspace, [entry(1, "[permanent] be brief")])
    server = serve([RULE_EDIT, final("Added a rule"), RULE_EDIT, final("Added a rule")])
    before = snapshot(workspace)

    def refuse(self, message, author):
        raise OSError("index.lock: File exists")

    with monkeypatch.context() as patch:
        patch.setattr(GitStore, "commit", refuse)
        report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "failed" and report.exit_code == 1
    assert "could not be committed (OSError: index.lock: File exists)" in report.reason
    assert "back as they were" in report.reason and "internal error" not in report.reason
    assert not workspace.journal_file.exists() and read_cursor(workspace.cursor_file) == 0
    assert snapshot(workspace) == before and git(workspace, "status", "--porcelain") == ""
    report = run_dream(workspace, llm_settings(server))
    assert report.recovered == "" and report.manual_commit is None  # nothing of the dream is mistaken for theirs
    assert git(workspace, "log", "-1", "--format=%s") == "dream: Added a rule"
    assert read_cursor(workspace.cursor_file) == 1
