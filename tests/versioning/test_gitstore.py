"""GitStore over the one git runner: the right repository whatever the environment, one-line failures,
commits that contain only memory files and leave the person's staging area alone, and a light `status`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from nanodream.versioning.gitrunner import GitError, run_git
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.support.workspaces import git


def test_head_is_read_from_the_workspace_even_when_git_variables_point_elsewhere(workspace, tmp_path, monkeypatch):
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    subprocess.run(["git", "-C", str(other), "-c", "user.name=o", "-c", "user.email=o@x", "commit", "-q",
                    "--allow-empty", "-m", "someone else's commit"], check=True)
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    store = GitStore(workspace)
    sha, message = store.head_sha(), store.head_message()
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name)
    assert sha == git(workspace, "rev-parse", "HEAD")
    assert message == git(workspace, "log", "-1", "--format=%B") + "\n"
    assert message.startswith("init: start versioning agent memory\n")


def test_a_repository_without_commits_has_no_head_and_no_message(tmp_path):
    ws = Workspace.at(tmp_path / "ws")
    scaffold(ws.root)
    subprocess.run(["git", "init", "-q", str(ws.root)], check=True)
    store = GitStore(ws)
    assert store.exists
    assert store.head_sha() is None
    assert store.head_message() == ""


def test_status_imports_neither_gitpython_nor_filelock_nor_the_yaml_parser(workspace):
    """A fresh interpreter: `status` must stay light (bench/startup.py measures it)."""
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from nanodream.cli import app\n"
        f"result = CliRunner().invoke(app, ['status', '-w', {str(workspace.root)!r}])\n"
        "assert result.exit_code == 0 and 'init: start versioning' in result.output, result.output\n"
        "print(sorted(m for m in ('git', 'filelock', 'frontmatter', 'yaml', 'litellm') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def other_repository(tmp_path):
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    subprocess.run(["git", "-C", str(other), "-c", "user.name=o", "-c", "user.email=o@x", "commit", "-q",
                    "--allow-empty", "-m", "someone else's commit"], check=True)
    return other


def test_a_commit_lands_in_the_workspace_whatever_git_variables_a_hook_left(workspace, tmp_path, monkeypatch):
    other = other_repository(tmp_path)
    theirs = git(Workspace.at(other), "rev-parse", "HEAD")
    (workspace.root / "USER.md").write_text("# User\n\n- Prefers tea\n")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    sha = GitStore(workspace).commit("manual: tea\n\nDream-Kind: manual", ("p", "p@x"))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name)
    assert sha == git(workspace, "rev-parse", "HEAD")
    assert git(workspace, "show", "--name-only", "--format=", "HEAD") == "USER.md"
    assert git(Workspace.at(other), "rev-parse", "HEAD") == theirs
    assert git(Workspace.at(other), "status", "--porcelain") == ""


def test_a_failing_git_command_is_one_line_naming_the_command(workspace):
    with pytest.raises(GitError) as failed:
        run_git(workspace.root, "cat-file", "blob", "0" * 40)
    assert "\n" not in str(failed.value) and str(failed.value).startswith("git cat-file blob failed: ")


def test_commits_leave_the_persons_staging_area_as_it_was(workspace):
    notes = workspace.root / "notes.txt"  # not a memory file: the .gitignore allowlist ignores it
    notes.write_text("my draft\n")
    git(workspace, "add", "-f", "notes.txt")
    soul = workspace.root / "SOUL.md"
    soul.write_text(soul.read_text() + "- Be brief.\n")

    GitStore(workspace).commit("manual: brief\n\nDream-Kind: manual", ("p", "p@x"))

    assert git(workspace, "show", "--name-only", "--format=", "HEAD") == "SOUL.md"  # only the memory file
    assert git(workspace, "diff", "--cached", "--name-only") == "notes.txt"  # still staged, not committed
    assert "notes.txt" not in git(workspace, "ls-tree", "-r", "--name-only", "HEAD")
    assert git(workspace, "status", "--porcelain", "--", "SOUL.md") == ""  # the index knows the new commit
