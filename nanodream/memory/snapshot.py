"""The memory files as last committed, kept while a writer is inside the door.

Right after the door has committed a person's hand edits, and after each change the transaction commits, the
files on disk are the commit's. Each file's text is kept with its stat signature (size, modification time in
nanoseconds, inode): while the signature holds, the file is still the commit's, without asking git or reading it
again. A run's later batches stage their copy from here (a thousand skills are not re-read for every batch), and
what a session shows of files already in git is not secret-scanned again for its transcript.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from nanodream.atomic import read_text
from nanodream.workspace import Workspace

Signature = tuple[int, int, int]


def signature(path: os.PathLike | str) -> Signature | None:
    try:
        found = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return found.st_size, found.st_mtime_ns, found.st_ino


@dataclass
class Committed:
    """Memory files whose text on disk is the last commit's, by workspace-relative path."""

    workspace: Workspace
    files: dict[str, tuple[Signature, str]] = field(default_factory=dict)

    @classmethod
    def read(cls, workspace: Workspace, since: dict[str, Signature | None] | None = None,
             committed: Callable[[list[str]], dict[str, str | None]] | None = None) -> Committed:
        """Every memory file as it is now: call only when the files are known to be the commit's — or, with
        `since` (each file's signature when they were) and `committed` (the commit's text of the paths asked),
        once they were: a file changed since (a person typing into it right now) is taken from the commit."""
        kept = cls(workspace)
        paths = workspace.memory_paths()
        moved = [p for p in paths if since is not None and p in since and signature(workspace.root / p) != since[p]]
        kept.refresh([p for p in paths if p not in moved])
        for path, text in (committed(moved) if moved and committed is not None else {}).items():
            if text is not None:
                kept.files[path] = ((-1, -1, -1), text)  # known as committed; never the file's signature
        return kept


    def refresh(self, paths: list[str]) -> None:
        """Take `paths` as committed now (the transaction just wrote and committed them); a gone file is dropped."""
        for path in paths:
            target = self.workspace.root / path
            before = signature(target)
            try:
                text = read_text(target)
            except OSError:
                text = None
            if before is None or text is None or signature(target) != before:  # gone, or changing as it is read
                self.files.pop(path, None)
            else:
                self.files[path] = (before, text)

    def base(self, path: str) -> str | None:
        """The text `path` had in the last commit the door knows of, whatever the file on disk holds now (a person
        may be editing it: their edit is merged in when a change lands, memory/transaction.py); None when unknown."""
        kept = self.files.get(path)
        return None if kept is None else kept[1]

    def text(self, path: str) -> str | None:
        """The committed text of `path` when the file on disk is still it; None when it may differ (or is gone)."""
        kept = self.files.get(path)
        if kept is None or signature(self.workspace.root / path) != kept[0]:
            return None
        return kept[1]


def signatures(workspace: Workspace) -> dict[str, Signature | None]:
    """Each memory file's signature now (one stat each): what `Committed.read` tells a later change by."""
    return {path: signature(workspace.root / path) for path in workspace.memory_paths()}
