"""A staged copy of the memory files: the only thing the dream's tools ever edit."""

from __future__ import annotations

import difflib
import itertools
from dataclasses import dataclass

from nanodream.atomic import read_text
from nanodream.workspace import Workspace


@dataclass(frozen=True)
class FileChange:
    path: str
    before: str | None
    after: str | None

    @property
    def kind(self) -> str:
        if self.before is None:
            return "added"
        if self.after is None:
            return "deleted"
        return "modified"

    def line_counts(self) -> tuple[int, int]:
        """(lines added, lines removed) from the real diff, not from anyone's description of it."""
        added = removed = 0
        diff = difflib.unified_diff(_lines(self.before), _lines(self.after), n=0)
        # Skip the two file headers by position, not by prefix: a removed front-matter line "---" reads "----".
        for line in itertools.islice(diff, 2, None):
            if line.startswith("+"):
                added += 1
            elif line.startswith("-"):
                removed += 1
        return added, removed

    def unified_diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                _lines(self.before, keepends=True),
                _lines(self.after, keepends=True),
                fromfile="/dev/null" if self.before is None else f"a/{self.path}",
                tofile="/dev/null" if self.after is None else f"b/{self.path}",
            )
        )


def _lines(text: str | None, keepends: bool = False) -> list[str]:
    return [] if text is None else text.splitlines(keepends)


class Staging:
    """In-memory contents of every memory file; `None` marks a file that does not (or no longer) exist."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.original: dict[str, str | None] = {}
        for path in workspace.memory_paths():
            self.original[path] = read_text(workspace.root / path)
        self.current: dict[str, str | None] = dict(self.original)

    def read(self, path: str) -> str | None:
        return self.current.get(path)

    def write(self, path: str, content: str) -> None:
        self.original.setdefault(path, None)
        self.current[path] = content

    def delete(self, path: str) -> None:
        self.original.setdefault(path, None)
        self.current[path] = None

    def existing_paths(self) -> list[str]:
        return [path for path, content in self.current.items() if content is not None]

    def skill_paths(self) -> list[str]:
        return sorted(p for p in self.existing_paths() if p.startswith("skills/"))

    def changes(self) -> list[FileChange]:
        """Files whose staged content differs from disk, in a stable order."""
        return [
            FileChange(path, self.original.get(path), content)
            for path, content in sorted(self.current.items())
            if content != self.original.get(path)
        ]
