"""Repository states that need a person: nanodream writes nothing until they are resolved.

A merge, rebase, cherry-pick, revert or bisect in progress, a detached HEAD, or conflict markers in a
memory file mean someone is in the middle of something; committing then would sweep their half-done work
into a memory commit. Every command that writes checks this first and stops with one line that names the
state and the way out (exit code 78: retrying later will not help until someone acts).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from nanodream.atomic import read_bytes, read_text
from nanodream.workspace import Workspace

if TYPE_CHECKING:
    from nanodream.versioning.gitstore import GitStore
# (file or folder in .git that marks the state, what to call it, how to get out)
_IN_PROGRESS = (
    ("MERGE_HEAD", "a merge is in progress", "finish it with `git commit`, or `git merge --abort`"),
    ("rebase-merge", "a rebase is in progress", "`git rebase --continue` or `git rebase --abort`"),
    ("rebase-apply", "a rebase is in progress", "`git rebase --continue` or `git rebase --abort`"),
    ("CHERRY_PICK_HEAD", "a cherry-pick is in progress", "`git cherry-pick --continue` or `git cherry-pick --abort`"),
    ("REVERT_HEAD", "a revert is in progress", "`git revert --continue` or `git revert --abort`"),
    ("BISECT_LOG", "a bisect is in progress", "`git bisect reset`"),
)
_CONFLICT_START = re.compile(r"^<{7}(?: |$)", re.MULTILINE)
_CONFLICT_END = re.compile(r"^>{7}(?: |$)", re.MULTILINE)


class NeedsPerson(Exception):
    """The workspace is in a state only a person can resolve; `hint` says how."""

    def __init__(self, reason: str, hint: str) -> None:
        super().__init__(f"{reason}; {hint}")
        self.reason, self.hint = reason, hint


def check_writable(workspace: Workspace) -> None:
    """Raise NeedsPerson when git is mid-operation, HEAD is detached, or a memory file holds conflict markers."""
    git_dir = workspace.root / ".git"
    if git_dir.is_dir():
        for marker, state, way_out in _IN_PROGRESS:
            if (git_dir / marker).exists():
                raise NeedsPerson(f"{state} in {workspace.root}", way_out)
        head = read_bytes(git_dir / "HEAD", 4096).decode("utf-8", errors="replace").strip()  # never via a link
        if not head.startswith("ref: "):
            raise NeedsPerson(f"detached HEAD in {workspace.root} (at {head[:8]})",
                              "`git switch main` (or the branch that holds the memory), then run again")
    for path in workspace.memory_paths():
        text = read_text(workspace.root / path)
        start = _CONFLICT_START.search(text)
        if start and _CONFLICT_END.search(text):
            line = text.count("\n", 0, start.start()) + 1
            raise NeedsPerson(f"{path} holds git conflict markers (line {line})",
                              "resolve the conflict in that file, then run again")


def check_hand_edits(workspace: Workspace, store: GitStore, paths: list[str]) -> None:
    """A credential a person wrote into a memory file stops the run: nanodream will not commit it, nor rewrite
    their file behind their back. The message names file, line and rule — never the secret."""
    from nanodream.safety import secret_scan  # detect-secrets: only when there are hand edits to scan

    at_head = store.tree_paths("HEAD") if store.head_sha() else {}
    for path in paths:
        target = workspace.root / path
        if not target.is_file() or target.is_symlink():
            continue
        before = store.blob(at_head[path]).decode("utf-8", "surrogateescape") if path in at_head else None
        hits = secret_scan.scan_added(before, read_text(target))
        if hits:
            raise NeedsPerson(f"{path} line {hits[0].line}: {hits[0].rule} in your uncommitted edit",
                              "remove the credential (keep it in an environment variable), then run again")
