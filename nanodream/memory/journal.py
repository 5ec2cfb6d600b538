"""The write-ahead journal that lets an interrupted apply be finished or undone on the next start."""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nanodream import boundedjson
from nanodream.atomic import atomic_write, fsync_dir, is_writable, read_text
from nanodream.versioning.gitstate import NeedsPerson
from nanodream.workspace import ARCHIVE_DIR, Workspace


@dataclass
class Journal:
    """Everything needed to finish a validated dream: new file contents, message, history range."""

    run_id: str
    message: str
    before: dict[str, str | None]
    after: dict[str, str | None]
    position: dict[str, Any] | None = None  # the history position once the commit landed (None: no history)
    position_reset: bool = False  # a replaying restore sets the position back instead of only advancing
    # Journals written before positions existed carry cursors instead; they are still rolled forward.
    cursor_end: int = 0
    cursor_reset: int | None = None
    # A landing (a sync's merge): a commit built beforehand that HEAD moves to from `parent` once the files are
    # written, the quarantine holding its objects until then, the proposals to lay once it has landed
    # ({"files": {path: [before, after]}, "message"}), and the remote-tracking ref that follows ([ref, sha]).
    target: str | None = None
    parent: str | None = None
    objects: str | None = None
    proposals: list[dict[str, Any]] = field(default_factory=list)
    tracking: list[str] | None = None
    travelled: str = ""  # what the state's travelled mark says once another machine's commits land (gitstore.py)
    # Entries waiting for a model (backlog/waiting.py): {"add": [records the position passes], "release": [keys of
    # those this commit dreamed]}, settled right before the position moves.
    waiting: dict[str, list[Any]] | None = None

    def save(self, workspace: Workspace) -> None:
        """Refuse, before anything is written, text no file or commit can hold: recovery would fail on it forever."""
        problem = self.unwritable()
        if problem:
            raise ValueError(f"{problem} holds text that cannot be written (an unpaired surrogate); nothing applied")
        # ASCII: a memory file's undecodable bytes travel as \udcXX escapes and come back unchanged.
        atomic_write(workspace.journal_file, json.dumps(asdict(self)))

    def unwritable(self) -> str:
        """What of this journal cannot be written ('' when all of it can): the commit message or a file's text."""
        if not is_writable(self.message):
            return "the commit message"
        return next((path for path, text in sorted(self.after.items()) if text is not None and not is_writable(text)),
                    "")

    @classmethod
    def load(cls, workspace: Workspace) -> Journal | None:
        try:
            data = boundedjson.load_file(workspace.journal_file)
            return cls(**data)
        except FileNotFoundError:
            return None
        except (ValueError, TypeError):
            # A journal torn before its rename cannot exist (atomic write); anything else is foreign.
            raise JournalUnreadable(workspace) from None

    @staticmethod
    def clear(workspace: Workspace) -> None:
        try:
            os.unlink(workspace.journal_file)
        except FileNotFoundError:
            return
        fsync_dir(workspace.state_dir)


class JournalUnreadable(NeedsPerson):
    """A journal no run can finish or undo: retrying cannot help, so the run stops for a person (exit 78)."""

    def __init__(self, workspace: Workspace, why: str = "") -> None:
        what = f"{workspace.journal_file} is not a journal nanodream can recover"
        super().__init__(what + (f" ({' '.join(why.split())[:200]})" if why else ""),
                         "an interrupted run left it; check `git status` for half-written memory files, then move "
                         "it away to continue")


def write_files(root: Path, contents: dict[str, str | None]) -> None:
    """Make each path hold the given content atomically; None deletes the file (and an emptied skill dir)."""
    for rel, content in sorted(contents.items()):
        target = root / rel
        if content is None:
            try:
                target.unlink()
            except FileNotFoundError:
                continue
            if rel.startswith("skills/"):
                with contextlib.suppress(OSError):  # the folder still holds other files: leave them
                    target.parent.rmdir()
        else:
            atomic_write(target, content)


def read_current(root: Path, paths: list[str]) -> dict[str, str | None]:
    current: dict[str, str | None] = {}
    for rel in paths:
        target = root / rel
        current[rel] = read_text(target) if target.is_file() else None
    return current


# Temp names atomic_write gives the files nanodream writes: `.<name>.<8 random chars>.tmp`.
_STALE_TEMP = re.compile(
    r"\.(?:SOUL\.md|USER\.md|MEMORY\.md|SKILL\.md|\d{4}-\d{2}\.md|\.dream_cursor|journal\.json|position\.json)"
    r"\.[a-z0-9_]{8}\.tmp"
)


def remove_stale_temp_files(workspace: Workspace) -> list[str]:
    """Delete temp files that a process killed inside atomic_write left next to the files it was writing.

    Call only under the workspace lock. Left alone, one beside a SKILL.md sits in a tracked folder and the
    next commit would version it for good.
    """
    root = workspace.root
    folders = [root, root / "memory", root / ARCHIVE_DIR, workspace.state_dir]
    skills = root / "skills"
    if skills.is_dir() and not skills.is_symlink():
        folders += [child for child in skills.iterdir() if child.is_dir() and not child.is_symlink()]
    removed = []
    for folder in folders:
        if not folder.is_dir() or folder.is_symlink():
            continue
        for path in folder.iterdir():
            if _STALE_TEMP.fullmatch(path.name) and path.is_file() and not path.is_symlink():
                path.unlink()
                removed.append(path.relative_to(root).as_posix())
    return sorted(removed)
