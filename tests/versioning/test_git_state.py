"""nanodream writes nothing while the workspace's git needs a person, and never commits a hand-written secret."""

from __future__ import annotations

import json
import subprocess

import pytest

from nanodream.config import Settings
from nanodream.run.dream import run_dream
from nanodream.vocab import ExitCode
from tests.support.cli import cli
from tests.support.fakes import NoteEngine
from tests.support.workspaces import entry, git, snapshot, write_history

AWS_KEY = "AKIA" + "Z7QW3RT5YU8IO2PL"




def commit_all(ws, message: str) -> None:
    git(ws, "add", "-A")
    git(ws, "-c", "user.name=p", "-c", "user.email=p@x", "commit", "-qm", message)


def conflicting_branches(ws) -> None:
    """main and `other` both changed the same USER.md line."""
    user = ws.root / "USER.md"
    git(ws, "checkout", "-qb", "other")
    user.write_text(user.read_text() + "- Lives in Lyon\n")
    commit_all(ws, "other")
    git(ws, "checkout", "-q", "main")
    user.write_text(user.read_text() + "- Lives in Oslo\n")
    commit_all(ws, "main")


def merging(ws) -> None:
    conflicting_branches(ws)
    subprocess.run(["git", "merge", "-q", "other"], cwd=ws.root, capture_output=True, check=False)


def rebasing(ws) -> None:
    conflicting_branches(ws)
    subprocess.run(["git", "-c", "user.name=p", "-c", "user.email=p@x", "rebase", "-q", "other"], cwd=ws.root,
                   capture_output=True, check=False)


def cherry_picking(ws) -> None:
    conflicting_branches(ws)
    subprocess.run(["git", "cherry-pick", "other"], cwd=ws.root, capture_output=True, check=False)


def bisecting(ws) -> None:
    git(ws, "bisect", "start")


def detached(ws) -> None:
    git(ws, "checkout", "-q", "--detach")


def pasted_markers(ws) -> None:
    (ws.root / "memory/MEMORY.md").write_text("# Memory\n\n<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> other\n")
    commit_all(ws, "oops")


STATES = {
    "merge": (merging, "a merge is in progress", "git merge --abort"),
    "rebase": (rebasing, "a rebase is in progress", "git rebase --abort"),
    "cherry-pick": (cherry_picking, "a cherry-pick is in progress", "git cherry-pick --abort"),
    "bisect": (bisecting, "a bisect is in progress", "git bisect reset"),
    "detached HEAD": (detached, "detached HEAD", "git switch main"),
    "conflict markers": (pasted_markers, "memory/MEMORY.md holds git conflict markers (line 3)", "resolve"),
}


@pytest.mark.parametrize("state", STATES, ids=list(STATES))
def test_every_writing_command_refuses_while_git_needs_a_person(workspace, state):
    make, named, way_out = STATES[state]
    write_history(workspace, [entry(1, "[durable] A fact.")])
    make(workspace)
    before, index = snapshot(workspace), (workspace.root / ".git/index").read_bytes()
    head = git(workspace, "rev-parse", "HEAD")

    result = cli("run", "-w", str(workspace.root), "--json")
    assert result.exit_code == ExitCode.NEEDS_PERSON, result.output
    report = json.loads(result.output)
    assert report["outcome"] == "blocked" and named in report["reason"] and way_out in report["reason"]

    for command in (["restore", head, "-w", str(workspace.root)], ["prompt", "init", "-w", str(workspace.root)]):
        refused = cli(*command)
        assert refused.exit_code == ExitCode.NEEDS_PERSON and named in refused.output, (command, refused.output)
    assert snapshot(workspace) == before and (workspace.root / ".git/index").read_bytes() == index
    assert git(workspace, "rev-parse", "HEAD") == head


def test_a_credential_in_a_hand_edit_refuses_the_run_naming_file_line_and_rule_not_the_secret(workspace):
    write_history(workspace, [entry(1, "[durable] A fact.")])
    user = workspace.root / "USER.md"
    user.write_text(user.read_text() + f"- My AWS key is {AWS_KEY}\n")
    before, head = snapshot(workspace), git(workspace, "rev-parse", "HEAD")

    report = run_dream(workspace, Settings(model="fake/m"), engine_factory=NoteEngine())

    assert report.outcome == "blocked" and report.exit_code == ExitCode.NEEDS_PERSON
    line = user.read_text().splitlines().index(f"- My AWS key is {AWS_KEY}") + 1
    assert f"USER.md line {line}: AWS Access Key" in report.reason
    assert AWS_KEY not in report.reason and AWS_KEY not in workspace.runs_file.read_text()
    assert snapshot(workspace) == before and git(workspace, "rev-parse", "HEAD") == head
    assert AWS_KEY in user.read_text()  # their file is theirs: not rewritten behind their back
