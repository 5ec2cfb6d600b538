"""A staged copy of the memory files: the only thing the dream's tools ever edit.

Tools see every file with plain `\n` line endings (a model writes `\n`, and `old_text` must match what it
read). When the staged text is turned back into a change, every line the session did not touch gets its
exact original bytes back, line ending included, and new lines take the file's dominant ending.
"""

from __future__ import annotations

import difflib
from collections import Counter

from nanodream.atomic import read_text, writable
from nanodream.changes import FileChange, split_on_newline
from nanodream.memory.snapshot import Committed
from nanodream.workspace import ARCHIVE_DIR, ARCHIVE_PATH, CORE_FILES, Workspace


def plain_newlines(raw: str) -> str:
    """The text as tools see it: CRLF line endings read as LF."""
    return raw.replace("\r\n", "\n")


def with_original_endings(raw_before: str | None, after: str) -> str:
    """`after` (LF text) with every line it shares with `raw_before` restored to its exact original bytes."""
    if raw_before is None or "\r\n" not in raw_before:
        return after
    old_raw = split_on_newline(raw_before)
    old_view = [plain_newlines(line) for line in old_raw]
    new_view = split_on_newline(after)
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

    `on_disk` holds the exact text the session starts from — the base a change is merged from when it lands
    (memory/transaction.py) — and `original` and `current` the LF views the tools and guards work on.
    """

    def __init__(self, workspace: Workspace, overlay: dict[str, str | None] | None = None,
                 committed: Committed | None = None) -> None:
        """`overlay`: files as the review lane's pending proposals would leave them, read instead of the disk.
        `committed`: the files as last committed (memory/snapshot.py): the session starts from them, not from what a
        person may be typing into a file right now (their edit becomes their own commit when the change lands,
        and the change is merged onto it); `as_committed` names them. Without it, the files are read."""
        self.workspace = workspace
        self.on_disk: dict[str, str | None] = {}
        self.as_committed: set[str] = set()
        for path in workspace.memory_paths():
            kept = committed.base(path) if committed is not None else None
            if kept is None:
                self.on_disk[path] = read_text(workspace.root / path)
            else:
                self.on_disk[path] = kept
                self.as_committed.add(path)
        self.on_disk.update(overlay or {})
        self.as_committed -= set(overlay or {})
        # every staged file is as last committed: what it shows of them is already in git
        self.settled = all(path in self.as_committed for path, text in self.on_disk.items() if text is not None)
        self.original: dict[str, str | None] = {
            path: None if raw is None else plain_newlines(raw) for path, raw in self.on_disk.items()}
        self.current: dict[str, str | None] = dict(self.original)

    def read(self, path: str) -> str | None:
        return self.current.get(path)

    def write(self, path: str, content: str) -> None:
        """Stage `content`; a stray surrogate (a model's `\\ud83d`) becomes U+FFFD, as no file can hold it."""
        self._track(path)
        self.current[path] = writable(content)

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

    def core_lines(self, *, began: bool = False) -> list[str]:
        """The core files' lines as staged, or as the session began from them (`began`)."""
        files = self.original if began else self.current
        return [line for path in CORE_FILES for line in (files.get(path) or "").splitlines()]

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
