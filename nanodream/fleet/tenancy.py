"""Whether the fleet may touch a tenant's workspace at all: the two ways a tenant could reach past its own folder.

- **A link.** A workspace folder that is a symbolic link, or a link at a path nanodream uses inside one
  (`.nanodream`, `.git`, `memory/history.jsonl`, …), can lead into another tenant's workspace: following it
  would write another tenant's id, take its queue slot and lock, and dream its history. Such a tenant is
  skipped with the reason, before anything of it is read or written.
- **A repository that asks git to run programs** (hooks, `core.fsmonitor`, filter drivers, …). nanodream never
  runs them (versioning/gitconfig.py), and the fleet does not dream such a workspace at all until a person
  removes them: the reason names each key.

The sweep checks links for every workspace it finds and the repository's configuration files and hooks for
every one that is due (no git process: thousands of workspaces); the job checks both again, through git,
since the tenant can change either in between.
"""

from __future__ import annotations

import os

from nanodream.layout import Linked, check_plain
from nanodream.versioning.gitconfig import file_findings
from nanodream.versioning.gitrunner import repository_programs
from nanodream.workspace import Workspace


def linked(workspace: Workspace) -> str:
    """Why the workspace reaches through a link ('' when it does not)."""
    if os.path.islink(workspace.root):
        return (f"{workspace.root} is a symbolic link to another folder; a fleet never follows one (it could be "
                "another tenant's workspace)")
    try:
        check_plain(workspace)
    except Linked as exc:
        return f"{workspace.root}: {exc}"
    return ""


def runs_programs(workspace: Workspace, *, quick: bool = False) -> str:
    """Why the workspace's repository is not dreamed ('' when it configures nothing git would run). `quick` (the
    sweep, for thousands of workspaces) reads the configuration files without starting git."""
    found = file_findings(workspace.root) if quick else repository_programs(workspace.root)
    if not found:
        return ""
    named = ", ".join(finding.describe() for finding in found)
    return (f"{workspace.root}: its git repository asks git to run programs ({named}); nanodream never runs them "
            "and a fleet does not dream this workspace until they are removed")


def refusal(workspace: Workspace) -> str:
    """Why the fleet must not dream this workspace ('' when it may)."""
    return linked(workspace) or runs_programs(workspace)
