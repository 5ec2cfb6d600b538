"""GitStore's light reads of HEAD (used by `status`): right repository, no commit yet, no heavy imports."""

from __future__ import annotations

import subprocess
import sys

from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.conftest import git


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
