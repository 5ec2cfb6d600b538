"""A structured-mode batch both the mode's tests and the whole-cost tests dream: a fact and a correction of a line
an earlier dream wrote, and the items a scripted model answers with."""

from __future__ import annotations

from nanodream.versioning.gitstore import DREAM_IDENTITY, GitStore
from nanodream.workspace import Workspace
from tests.support.workspaces import entry, write_history

OLD = "- Project kiwi deploys with Nomad on host atlas."


def kiwi_backlog(workspace: Workspace) -> Workspace:
    """`workspace` with OLD committed in MEMORY.md and two entries waiting: two facts, then OLD's correction."""
    memory = workspace.root / "memory" / "MEMORY.md"
    memory.write_text(memory.read_text() + OLD + "\n")
    GitStore(workspace).commit("seed", DREAM_IDENTITY)
    write_history(workspace, [
        entry(1, "[permanent] User prefers answers in British English.\n[durable] The nightly backup runs at "
                 "02:00 on host birch."),
        entry(2, "[correction] Project kiwi now deploys with Kubernetes, not Nomad."),
    ])
    return workspace


def item(number: int, file: str, line: str = "", replaces: str = "", reason: str = "") -> dict:
    """One item of a structured answer."""
    return {"number": number, "file": file, "line": line, "replaces": replaces, "reason": reason}
