"""A staged copy of the memory files: the only thing the dream's tools ever edit.

Tools see every file with plain `\n` line endings (a model writes `\n`, and `old_text` must match what it
read). When the staged text is turned back into a change, every line the session did not touch gets its
exact original bytes back, line ending included, and new lines take the file's dominant ending.
"""

from __future__ import annotations

import difflib
import itertools
from collections import Counter
from dataclasses import dataclass

from nanodream.atomic import read_text
from nanodream.workspace import ARCHIVE_DIR, ARCHIVE_PATH, Workspace


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
        diff = difflib.unified_diff(_lines(self.before), _lines(self.after), n=0, lineterm="")
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
                _lines(self.before),
                _lines(self.after),
                fromfile="/dev/null" if self.before is None else f"a/{self.path}",
                tofile="/dev/null" if self.after is None else f"b/{self.path}",
            )
        )


def _lines(text: str | None) -> list[str]:
    return [] if text is None else _split_on_newline(text)


def _split_on_newline(text: str) -> list[str]:
    """Lines with their `\n` kept, split on `\n` only (str.splitlines also splits on \f, \x1c, U+2028...)."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def plain_newlines(raw: str) -> str:
    """The text as tools see it: CRLF line endings read as LF."""
    return raw.replace("\r\n", "\n")


def with_original_endings(raw_before: str | None, after: str) -> str:
    """`after` (LF text) with every line it shares with `raw_before` restored to its exact original bytes."""
    if raw_before is None or "\r\n" not in raw_before:
        return after
    old_raw = _split_on_newline(raw_before)
    old_view = [plain_newlines(line) for line in old_raw]
    new_view = _split_on_newline(after)
    endings = Counter("\r\n" if line.endswith("\r\n") else "\n" for line in old_raw if line.endswith("\n"))
    dominant = endings.most_common(1)[0][0] if endings else "\n"
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, old_view, new_view, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out += old_raw[i1:i2]
        else:
            out += [line[:-1] + dominant if line.endswith("\n") else line for line in new_view[j1:j2]]
    return "".join(out)


class Staging:
    """In-memory contents of every memory file; `None` marks a file that does not (or no longer) exist.

    `on_disk` holds the exact text read (what applying must not clobber), `original` and `current` the
    LF views the tools and guards work on.
    """

    def __init__(self, workspace: Workspace, overlay: dict[str, str | None] | None = None) -> None:
        """`overlay`: files as the review lane's pending proposals would leave them, read instead of the disk."""
        self.workspace = workspace
        self.on_disk: dict[str, str | None] = {}
        for path in workspace.memory_paths():
            self.on_disk[path] = read_text(workspace.root / path)
        self.on_disk.update(overlay or {})
        self.original: dict[str, str | None] = {
            path: None if raw is None else plain_newlines(raw) for path, raw in self.on_disk.items()}
        self.current: dict[str, str | None] = dict(self.original)

    def read(self, path: str) -> str | None:
        return self.current.get(path)

    def write(self, path: str, content: str) -> None:
        self._track(path)
        self.current[path] = content

    def delete(self, path: str) -> None:
        self._track(path)
        self.current[path] = None

    def _track(self, path: str) -> None:
        self.on_disk.setdefault(path, None)
        self.original.setdefault(path, None)

    def include(self, path: str) -> str | None:
        """Stage a file the session does not see (an archive month), so a step after the session can extend it."""
        if path not in self.on_disk:
            target = self.workspace.root / path
            raw = read_text(target) if target.is_file() and not target.is_symlink() else None
            self.on_disk[path] = raw
            self.original[path] = self.current[path] = None if raw is None else plain_newlines(raw)
        return self.current[path]

    def existing_paths(self) -> list[str]:
        return [path for path, content in self.current.items() if content is not None]

    def archive_paths(self) -> list[str]:
        """The archive's month files, on disk or staged by this session, oldest month first."""
        folder = self.workspace.root / ARCHIVE_DIR
        on_disk = {f"{ARCHIVE_DIR}/{p.name}" for p in folder.glob("*.md") if p.is_file() and not p.is_symlink()}
        staged = {p for p in self.existing_paths() if p.startswith(f"{ARCHIVE_DIR}/")}
        return sorted(p for p in on_disk | staged if ARCHIVE_PATH.fullmatch(p))

    def skill_paths(self) -> list[str]:
        return sorted(p for p in self.existing_paths() if p.startswith("skills/"))

    def changes(self) -> list[FileChange]:
        """Files whose staged content differs from disk, in a stable order, as exact texts to write."""
        changes = []
        for path, content in sorted(self.current.items()):
            if content == self.original.get(path):
                continue
            before = self.on_disk.get(path)
            after = None if content is None else with_original_endings(before, content)
            changes.append(FileChange(path, before, after))
        return changes
