"""What every person's change shares: entering the door, reading what is there now, landing as one commit.

Restore and review both merge old and new text into the file as it is today, so both need the same answer
to "what is there now, and may we write it": a plain file inside the workspace (no symlink anywhere on the
way), of a path nanodream versions, in UTF-8.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields

from nanodream.atomic import read_bytes
from nanodream.changes import FileChange
from nanodream.memory.door import Door, writing
from nanodream.memory.transaction import CommitFailed, Progress
from nanodream.vocab import Refused, Report
from nanodream.workspace import TRACKED_PATTERNS, Workspace


def through_door(workspace: Workspace, report: Report, change: Callable[[Door], None]) -> None:
    """Make one change inside the door. Every refusal — the door's or the change's own — lands in `report`,
    with what entering the door did first (recovery, the person's hand edits) on the reports that say it."""
    try:
        with writing(workspace) as door:
            try:
                change(door)
            finally:
                _note_entry(report, door)
    except Refused as exc:
        report.refuse(exc)


def _note_entry(report: Report, door: Door) -> None:
    said = {f.name for f in fields(report)}
    for name in ("recovered", "manual_commit"):
        if name in said:
            setattr(report, name, getattr(door, name))


def on_disk(workspace: Workspace, path: str) -> bytes | None:
    """The file's bytes now, or None when it does not exist; Refused for what a change must not write."""
    if not any(path == p or (p.endswith("/") and path.startswith(p)) for p in TRACKED_PATTERNS):
        raise Refused(f"{path} is not a file nanodream versions; change it with git directly")
    parts = path.split("/")
    for depth in range(1, len(parts) + 1):
        if workspace.root.joinpath(*parts[:depth]).is_symlink():
            raise Refused(f"{'/'.join(parts[:depth])} is a symlink; nanodream only writes plain files inside the "
                          "workspace")
    target = workspace.root / path
    if not target.exists():
        return None
    if not target.is_file():
        raise Refused(f"{path} is not a file; move it away and try again")
    return read_bytes(target)  # never through a link swapped in since the check above


def as_text(path: str, data: bytes | None) -> str | None:
    """The bytes as text; Refused when they are not UTF-8 (a change would garble them)."""
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{path} is not UTF-8 text; change it with git directly") from None


def committed(door: Door, run_id: str, message: str, changes: list[FileChange],
              progress: Progress | None = None) -> str | None:
    """Apply a person's change through the door as one commit; a commit git refuses is refused as a whole."""
    try:
        return door.change(run_id, message, changes, progress)
    except CommitFailed as exc:
        raise Refused(str(exc)) from None
