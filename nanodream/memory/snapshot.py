"""The memory files as last committed, kept while a writer is inside the door.

Right after the door has committed a person's hand edits, and after each change the transaction commits, the
files on disk are the commit's. Each file's text is kept with its stat signature (size, modification time in
nanoseconds, inode): while the signature holds, the file is still the commit's, without asking git or reading it
again. A run's later batches stage their copy from here (a thousand skills are not re-read for every batch), and
what a session shows of files already in git is not secret-scanned again for its transcript.
"""

from __future__ import annotations

import os
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
    def read(cls, workspace: Workspace) -> Committed:
        """Every memory file as it is now: call only when the files are known to be the commit's."""
        kept = cls(workspace)
        kept.refresh(workspace.memory_paths())
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

    def text(self, path: str) -> str | None:
        """The committed text of `path` when the file on disk is still it; None when it may differ (or is gone)."""
        kept = self.files.get(path)
        if kept is None or signature(self.workspace.root / path) != kept[0]:
            return None
        return kept[1]
