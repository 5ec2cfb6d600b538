"""How far the history has been consumed, by position: the byte offset into history.jsonl, not a cursor number.

Hosts reset, repeat and jump their cursor numbers; a position cannot skip an appended line whatever its
cursor says. The position lives in nanodream's own state (`.nanodream/position.json`) with a fingerprint of
the consumed prefix, so a rewritten or rotated file is noticed, and with keys of the first and last line
consumed, so it can be told what happened: a file that still holds the last line consumed is read on from
just after it; a file that holds none of what was consumed (rotated: a new file) is read from its first
line; a file that starts as before but lost the last line consumed cannot be placed, and a person decides.
`.dream_cursor` is still written for nanobot: it holds the cursor of the last line consumed in file order.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import BinaryIO

from nanodream import boundedjson
from nanodream.atomic import atomic_write, open_binary
from nanodream.backlog.history import MAX_LINE_BYTES, Position, parse_line, raw_lines, read_cursor, write_cursor
from nanodream.workspace import Workspace

# The fingerprint hashes the file's first and last SAMPLE bytes before the position: O(1) whatever the
# file's size, and any rotation, truncation or rewrite of the consumed part changes one of them.
SAMPLE = 4096
_BLOCK = 64 * 1024
NEEDS_PERSON_HINT = ("remove .nanodream/position.json and write the cursor of the last entry already dreamed into "
                     "memory/.dream_cursor (0 reads the whole file), then run again")


def position_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "position.json"


def fingerprint(path: Path, offset: int) -> str:
    """A hash of the first and last SAMPLE bytes of `path`'s first `offset` bytes ('' for nothing consumed)."""
    if offset <= 0:
        return ""
    with path.open("rb") as handle:  # also a transcript's, whose named path may be a link the person chose
        head = handle.read(min(SAMPLE, offset))
        handle.seek(max(offset - SAMPLE, 0))
        tail = handle.read(offset - max(offset - SAMPLE, 0))
    return hashlib.sha256(b"%d\0" % offset + head + b"\0" + tail).hexdigest()[:32]


def line_key(data: bytes) -> str:
    """What identifies one stored line wherever it moves: a hash of its bytes, surrounding whitespace aside."""
    return hashlib.sha256(data.strip()).hexdigest()[:24]


def position_at(path: Path, offset: int, line: int, cursor: int) -> Position:
    if offset <= 0:
        return Position(offset, line, cursor)
    with open_binary(path) as handle:
        first = next((raw for raw in raw_lines(handle) if not raw.data.isspace()), None)
        last = _last_line(handle, offset)
    head = line_key(first.data) if first is not None and first.start < offset else ""
    return Position(offset, line, cursor, fingerprint(path, offset), head, line_key(last) if last else "")


def _last_line(handle: BinaryIO, offset: int) -> bytes:
    """The last non-blank line ending at or before `offset`, read backwards in blocks (b'' past MAX_LINE_BYTES)."""
    tail, start = b"", offset
    while start > 0 and len(tail) <= MAX_LINE_BYTES + _BLOCK:
        start = max(0, start - _BLOCK)
        handle.seek(start)
        tail = handle.read(offset - start)
        text = tail.rstrip()
        cut = text.rfind(b"\n")
        if text and (cut >= 0 or start == 0):
            return text[cut + 1:] if len(text) - cut - 1 <= MAX_LINE_BYTES else b""
    return b""


def save_position(workspace: Workspace, position: Position) -> None:
    """Persist the position, then `.dream_cursor` (nanobot reads it): the cursor of the last line consumed."""
    atomic_write(position_file(workspace), json.dumps(asdict(position)) + "\n")
    write_cursor(workspace.cursor_file, position.cursor)


def _load(workspace: Workspace) -> Position | None:
    try:
        data = boundedjson.load_file(position_file(workspace))
        return Position(**data)
    except FileNotFoundError:
        return None
    except (ValueError, TypeError, UnicodeDecodeError):
        return None  # unreadable state is rebuilt from the cursor, like a missing one, and said so


@dataclass(frozen=True)
class Resumed:
    """Where reading resumes, and a one-line notice when that had to be worked out (upgrade, rewritten file).

    `needs_person` is set when the file was rewritten so that no position can be trusted: nothing is read until
    a person says where to resume (`NEEDS_PERSON_HINT`); `position` is then the saved one, unchanged.
    """

    position: Position
    notice: str = ""
    anomaly: bool = False  # the file was rewritten: also worth a line in `status`
    needs_person: str = ""


def resume(workspace: Workspace) -> Resumed:
    """The saved position if it still describes the file; otherwise where the rewritten file is to be read from."""
    path = workspace.history_file
    saved = _load(workspace)
    size = path.stat().st_size if path.is_file() else 0
    if saved is None:
        derived = from_cursor(path, read_cursor(workspace.cursor_file))
        note = "" if derived.offset == 0 and derived.cursor == 0 else (
            f"history position derived from .dream_cursor {derived.cursor}: resuming at line {derived.line + 1}")
        return Resumed(derived, note)
    if size < saved.offset:
        problem = f"it is shorter than the {saved.offset} bytes already consumed"
    elif fingerprint(path, saved.offset) != saved.fingerprint:
        problem = "its consumed part changed"
    else:
        return Resumed(saved)
    return _rewritten(path, saved, f"history.jsonl was rotated or rewritten ({problem})")


def _rewritten(path: Path, saved: Position, what: str) -> Resumed:
    """Where to read a file whose consumed part is not what was consumed (see the module docstring)."""
    scan = _Scan.of(path, saved)
    if scan.found is not None:
        found = scan.found
        return Resumed(found, f"{what}: the last line consumed (cursor {found.cursor}) is now line {found.line}; "
                              f"resuming at line {found.line + 1}", anomaly=True)
    starts_alike = bool(saved.head_key) and scan.first_key == saved.head_key
    unplaceable = not saved.last_key and scan.first_cursor is not None and scan.first_cursor <= saved.cursor
    if starts_alike or unplaceable:  # (a position saved before the keys existed cannot be placed by them)
        reason = f"{what} and nanodream cannot tell which of its lines were already dreamed"
        return Resumed(saved, f"{reason}; {NEEDS_PERSON_HINT}", anomaly=True, needs_person=reason)
    return Resumed(Position(), f"{what}: none of the lines consumed before is in it; reading it from line 1",
                   anomaly=True)


@dataclass
class _Scan:
    """One pass over a rewritten file, stopping at the saved last line: where it is now, and how the file starts."""

    found: Position | None = None  # just after the first line with the saved last key
    first_key: str = ""
    first_cursor: int | None = None

    @classmethod
    def of(cls, path: Path, saved: Position) -> _Scan:
        scan = cls()
        if not path.is_file():
            return scan
        with open_binary(path) as handle:
            for raw in (raw for raw in raw_lines(handle) if not raw.data.isspace()):
                key = line_key(raw.data)
                entry = None if raw.oversized else parse_line(raw.data)
                scan.first_key = scan.first_key or key
                if scan.first_cursor is None and entry is not None:
                    scan.first_cursor = entry.cursor
                if saved.last_key == key and raw.terminated:
                    scan.found = position_at(path, raw.end, raw.number, entry.cursor if entry else saved.cursor)
                    break
        return scan


def from_cursor(path: Path, cursor: int) -> Position:
    """The position just before the first line, in file order, whose cursor is above `cursor` (an upgrade)."""
    if cursor <= 0 or not path.is_file():
        return Position()
    offset = line = 0
    last = 0
    with open_binary(path) as handle:
        for raw in raw_lines(handle):
            entry = None if raw.oversized or raw.data.isspace() else parse_line(raw.data)
            if entry is not None and entry.cursor > cursor:
                break
            offset, line = raw.end, raw.number
            last = entry.cursor if entry is not None else last
    return position_at(path, offset, line, last or cursor)


def position_at_offset(path: Path, offset: int) -> Position | None:
    """The position `offset` bytes in (its line count and last cursor read from the file); None if past the end.

    An offset just before a line's newline is one too: an unterminated last line, consumed before the host
    finished it.
    """
    if not path.is_file() or path.stat().st_size < offset:
        return None
    line = 0
    last = b""
    with open_binary(path) as handle:
        for raw in raw_lines(handle):
            if raw.start >= offset:
                break
            if raw.end > offset and (raw.oversized or raw.data[offset - raw.start:].strip()):
                return None  # the offset is not at a line boundary: not a position this file ever had
            line = raw.number
            last = raw.data if not (raw.oversized or raw.data.isspace()) else last
    entry = parse_line(last) if last else None
    return position_at(path, offset, line, entry.cursor if entry is not None else 0)
