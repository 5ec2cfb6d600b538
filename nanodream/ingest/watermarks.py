"""How far each source file has been read: its identity, the bytes consumed and a fingerprint of them.

Kept in nanodream's own state (`.nanodream/ingest/watermarks.json`), one per file, by the path it was read at.
Like history's own position (backlog/position.py), the fingerprint hashes the first and last bytes of the
consumed prefix, so a file rotated, truncated or rewritten under the same name is noticed and read again from
the start; the messages already ingested are then recognised by their keys (seen.py), never added twice.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nanodream import boundedjson
from nanodream.atomic import atomic_write
from nanodream.backlog.position import fingerprint
from nanodream.workspace import Workspace


@dataclass
class Watermark:
    path: str
    format: str
    device: int = 0
    inode: int = 0
    size: int = 0  # the file's size when it was last read
    offset: int = 0  # bytes consumed: complete lines only (a whole JSON document: all of it)
    line: int = 0  # lines consumed
    fingerprint: str = ""
    context: dict[str, Any] = field(default_factory=dict)  # what earlier records said (the session id)
    messages: int = 0  # messages ingested from this file, over every pass
    read_at: str = ""  # when a pass last found something new in it


def state_dir(workspace: Workspace) -> Path:
    return workspace.state_dir / "ingest"


def watermarks_file(workspace: Workspace) -> Path:
    return state_dir(workspace) / "watermarks.json"


class WatermarksUnreadable(ValueError):
    pass


def load(workspace: Workspace) -> dict[str, Watermark]:
    """Every file's watermark by path; {} before the first ingest. WatermarksUnreadable when it is damaged."""
    try:
        data = boundedjson.load_file(watermarks_file(workspace))
        return {path: Watermark(**mark) for path, mark in data.items()}
    except FileNotFoundError:
        return {}
    except (ValueError, TypeError, AttributeError, UnicodeDecodeError):
        raise WatermarksUnreadable(f"{watermarks_file(workspace)} is unreadable") from None


def save(workspace: Workspace, marks: dict[str, Watermark]) -> None:
    data = {path: asdict(mark) for path, mark in sorted(marks.items())}
    atomic_write(watermarks_file(workspace), json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def change(path: Path, stat: os.stat_result, mark: Watermark | None, document: bool) -> str:
    """What happened to the file since its watermark: new | unchanged | appended | replaced | rewritten."""
    if mark is None:
        return "new"
    if (stat.st_dev, stat.st_ino) != (mark.device, mark.inode):
        return "replaced"  # rotated, or written anew and renamed over the old one
    if stat.st_size < mark.offset or fingerprint(path, mark.offset) != mark.fingerprint:
        return "rewritten"
    if stat.st_size == mark.size:
        return "unchanged"
    return "rewritten" if document else "appended"


def by_inode(marks: dict[str, Watermark]) -> dict[tuple[int, int], list[Watermark]]:
    """The watermarks by the file they were taken of (device, inode): how a renamed file is found again."""
    index: dict[tuple[int, int], list[Watermark]] = {}
    for mark in marks.values():
        index.setdefault((mark.device, mark.inode), []).append(mark)
    return index


def moved_here(path: Path, stat: os.stat_result, index: dict[tuple[int, int], list[Watermark]]) -> Watermark | None:
    """The watermark of a file renamed to `path` (log rotation: app.jsonl → app.jsonl.1), carried over.

    Matched by device and inode (`index`: by_inode), and only when the old path no longer is that file.
    """
    for mark in index.get((stat.st_dev, stat.st_ino), []):
        if mark.path != str(path) and not _same(mark.path, stat):
            return Watermark(**{**asdict(mark), "path": str(path)})
    return None


def merged(held: dict[str, Watermark], new: dict[str, Watermark]) -> dict[str, Watermark]:
    """`held` with the `new` marks laid over it. The mark of a file that moved to a new mark's path (same device
    and inode, no longer at its old path) goes: its messages and bytes are counted once, under its new name."""
    moved_to = {(mark.device, mark.inode): path for path, mark in new.items() if mark.inode}
    result = {**held, **new}
    for path, mark in held.items():
        new_path = moved_to.get((mark.device, mark.inode), path)
        if new_path != path and path not in new and not _is_at(path, mark):
            del result[path]
    return result


def _is_at(path: str, mark: Watermark) -> bool:
    try:
        now = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (mark.device, mark.inode)


def _same(path: str, stat: os.stat_result) -> bool:
    try:
        now = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (stat.st_dev, stat.st_ino)
