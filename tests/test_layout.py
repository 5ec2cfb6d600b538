"""No tenant reads another: a link anywhere nanodream reads or writes stops every command (exit 78), before any read.

Two workspaces side by side; the first links one of its paths into the second. Whatever the path — history,
state, git, a memory file, a skill, the prompt, the config — nanodream refuses naming it, and neither
workspace changes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from nanodream import api
from nanodream.cli import app
from nanodream.memory.transaction import ensure_repository
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.support.cli import runner
from tests.support.workspaces import entry, git, write_history


def _tree(root: Path) -> dict[str, str]:
    """Every file under root (git's objects and nanodream's state included), as link targets or contents."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            out[rel] = path.read_bytes().hex()
    return out


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Workspace, Workspace]:
    mine, theirs = Workspace.at(tmp_path / "mine"), Workspace.at(tmp_path / "theirs")
    for ws, fact in ((mine, "[durable] Mine uses Go."), (theirs, "[permanent] Their password hint is the cat.")):
        scaffold(ws.root)
        ensure_repository(GitStore(ws))
        write_history(ws, [entry(1, fact)])
    (theirs.root / "skills" / "deploy").mkdir()
    (theirs.root / "skills" / "deploy" / "SKILL.md").write_text("---\nname: deploy\ndescription: d\n---\n\n1. x\n")
    (theirs.root / "prompts").mkdir()
    (theirs.root / "prompts" / "dream.md").write_text("Their prompt.\n")
    (theirs.root / "nanodream.toml").write_text('model = "builtin"\n')
    assert runner.invoke(app, ["run", "-w", str(theirs.root)]).exit_code == 0  # their state folder exists
    return mine, theirs


def _replace_with_link(mine: Workspace, theirs: Workspace, rel: str) -> None:
    target = mine.root / rel
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif target.exists() or target.is_symlink():
        target.unlink()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(theirs.root / rel, target_is_directory=(theirs.root / rel).is_dir())


# A linked skill is not here: it is left alone, not a reason to stop (tests/test_linked_skills.py).
LINKED = [".git", ".nanodream", ".nanodream/position.json", ".nanodream/runs.jsonl", "memory",
          "memory/history.jsonl", "memory/MEMORY.md", "SOUL.md", "USER.md", "prompts", "prompts/dream.md",
          "nanodream.toml", ".gitignore", "memory/archive", "memory/insights", "memory/insights/hetzner.md"]


@pytest.mark.parametrize("rel", LINKED)
def test_a_link_into_another_workspace_stops_every_command_naming_it(pair, rel):
    mine, theirs = pair
    if rel.startswith("skills/deploy") and rel != "skills/deploy":
        (mine.root / "skills" / "deploy").mkdir(parents=True, exist_ok=True)
    _replace_with_link(mine, theirs, rel)
    shown = rel.split("/")[0] if rel in (".git", ".nanodream", "memory", "skills", "prompts") else rel
    theirs_before, mine_before = _tree(theirs.root), _tree(mine.root)

    for command in (["run"], ["status"], ["log"], ["restore", "HEAD"], ["pin", "Go"], ["review"]):
        result = runner.invoke(app, [*command, "-w", str(mine.root)])
        assert result.exit_code == 78, (command, result.output)
        assert result.stderr.startswith("blocked: ") and result.stderr.count("\n") == 1, (command, result.stderr)
        assert "symbolic link" in result.stderr or ".git is not a folder" in result.stderr
        assert shown in result.stderr, (command, result.stderr)
    assert api.run(mine.root).exit_code == 78 and api.recall(mine.root, "cat").exit_code == 78
    assert _tree(theirs.root) == theirs_before and _tree(mine.root) == mine_before


@pytest.mark.parametrize("rel", ["memory/insights", "memory/insights/hetzner.md"])
def test_a_linked_insights_folder_or_record_stops_the_insight_commands_too_and_never_wedges_a_commit(pair, rel):
    mine, theirs = pair
    (theirs.root / "memory" / "insights").mkdir(exist_ok=True)
    (theirs.root / "memory" / "insights" / "hetzner.md").write_text("---\nname: hetzner\n---\n")
    _replace_with_link(mine, theirs, rel)
    write_history(mine, [entry(1, "[durable] Mine uses Go."), entry(2, "[durable] Mine deploys with Nomad.")])
    before = _tree(mine.root)
    for command in (["run"], ["run", "--allow-empty"], ["insights"], ["reflect"], ["why", "Go"], ["recall", "Go"]):
        result = runner.invoke(app, [*command, "-w", str(mine.root)])
        assert result.exit_code == 78 and rel in result.stderr, (command, result.output)
    assert _tree(mine.root) == before


def test_a_gitdir_file_pointing_into_another_repository_is_refused(pair):
    mine, theirs = pair
    shutil.rmtree(mine.root / ".git")
    (mine.root / ".git").write_text(f"gitdir: {theirs.root / '.git'}\n")
    head = git(theirs, "rev-parse", "HEAD")
    result = runner.invoke(app, ["run", "-w", str(mine.root)])
    assert result.exit_code == 78 and ".git is not a folder" in result.stderr
    assert git(theirs, "rev-parse", "HEAD") == head


def test_a_hand_edit_never_commits_a_link(workspace, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("# User\n\n- elsewhere\n")
    (workspace.root / "USER.md").unlink()
    (workspace.root / "USER.md").symlink_to(outside)
    write_history(workspace, [entry(1, "[durable] A fact.")])
    head = git(workspace, "rev-parse", "HEAD")
    assert runner.invoke(app, ["run", "-w", str(workspace.root)]).exit_code == 78
    assert git(workspace, "rev-parse", "HEAD") == head
    assert "120000" not in git(workspace, "ls-tree", "-r", "HEAD")


def test_a_nanobot_workspace_without_git_gets_the_allowlist_before_its_first_commit(tmp_path):
    root = tmp_path / "nanobot"
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "MEMORY.md").write_text("# Memory\n")
    (root / "USER.md").write_text("# User\n")
    (root / "sessions").mkdir()
    (root / "sessions" / "cli_direct.jsonl").write_text('{"role": "user", "content": "my key is hunter2"}\n')
    ws = Workspace.at(root)
    write_history(ws, [entry(1, "[durable] Uses Go.")])
    assert runner.invoke(app, ["run", "-w", str(root)]).exit_code == 0
    assert (root / ".gitignore").is_file()
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)  # what a person might type
    tracked = git(ws, "ls-files").splitlines()
    assert "memory/history.jsonl" not in tracked and not any(p.startswith((".nanodream", "sessions")) for p in tracked)
    assert "memory/MEMORY.md" in tracked


def test_json_output_names_the_link_too(pair):
    mine, theirs = pair
    _replace_with_link(mine, theirs, "memory/history.jsonl")
    result = runner.invoke(app, ["status", "-w", str(mine.root), "--json"])
    assert result.exit_code == 78 and "memory/history.jsonl" in json.loads(result.stdout)["error"]
