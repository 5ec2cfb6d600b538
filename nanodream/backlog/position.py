"""How far the history has been consumed, by position: the byte offset into history.jsonl, not a cursor number.

Hosts reset, repeat and jump their cursor numbers; a position cannot skip an appended line whatever its
cursor says. The position lives in nanodream's own state (`.nanodream/position.json`) with a fingerprint of
the consumed prefix, so a rewritten or rotated file is noticed, and with keys of the first and last line
consumed, so it can be told what happened: a file that still holds the last line consumed is read on from
just after it; a file that holds none of what was consumed (rotated: a new file) is read from its first
line; a file that starts as before but lost the last line consumed cannot be placed, and a person decides.
`.dream_cursor` is still written for nanobot: it holds the cursor of the last line consumed in file order, or, while
an entry waits for a model (backlog/waiting.py), of the last line before the first such entry.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import BinaryIO

from nanodream import boundedjson
from nanodream.atomic import atomic_write, open_binary
from nanodream.backlog.history import MAX_LINE_BYTES, Position, parse_line, raw_lines, read_cursor, write_cursor
from nanodream.backlog.waiting import nanobot_cursor
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
    """Persist the position, then `.dream_cursor` (nanobot reads it): the cursor of the last line consumed, or of
    the last before the first entry still waiting for a model (backlog/waiting.py)."""
    atomic_write(position_file(workspace), json.dumps(asdict(position)) + "\n")
    write_cursor(workspace.cursor_file, nanobot_cursor(workspace, position))


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
        derived = _derived(str(path), read_cursor(workspace.cursor_file), _stamp(path))
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


@functools.lru_cache(maxsize=4)
def _derived(path: str, cursor: int, stamp: tuple[int, int, int]) -> Position:
    """`from_cursor`, once per file state: a run resumes several times (recovery, then the backlog) before it
    saves the position it derived, and a large adopted history should be read once."""
    return from_cursor(Path(path), cursor)


def _stamp(path: Path) -> tuple[int, int, int]:
    try:
        found = path.stat()
    except OSError:
        return 0, 0, 0
    return found.st_size, found.st_mtime_ns, found.st_ino


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
    """The position just before the first line, in file order, whose cursor is above `cursor` (an upgrade).

    One pass, but not one JSON decode per line: a block of lines all written the way hosts write them
    (`{"cursor": N, ...`, the key once per line) whose highest N is not above `cursor` cannot hold that line, so it
    is passed over at the speed of a regular expression over its bytes (an adopted history of a million lines is a
    fraction of a second); any other block is read line by line.
    """
    if cursor <= 0 or not path.is_file():
        return Position()
    offset = line = last = 0
    with open_binary(path) as handle:
        while True:
            block = _whole_lines(handle, offset)
            if not block:
                break
            skipped = _passed_over(block, cursor)
            if skipped is not None:
                offset, line, last = offset + len(block), line + block.count(b"\n"), skipped
                continue
            stop, offset, line, last = _read_block(handle, offset, line, last, len(block), cursor)
            if stop:
                break
    return position_at(path, offset, line, last or cursor)


_FAST_BLOCK = 1024 * 1024
_WRITTEN_AS_USUAL = re.compile(rb'\n\{"cursor": ?(\d+),')  # a line's start: a literal prefix is searched fast


def _whole_lines(handle: BinaryIO, offset: int) -> bytes:
    """About a block of whole, newline-ended lines from `offset`; the rest of the file when it holds no newline there
    (b'' at the end). A line longer than the block comes back alone, cut: `_passed_over` never passes it over."""
    handle.seek(offset)
    data = handle.read(_FAST_BLOCK)
    cut = data.rfind(b"\n")
    return data[:cut + 1] if cut >= 0 else data


def _passed_over(block: bytes, cursor: int) -> int | None:
    """The cursor of the block's last line when every line of it is provably not above `cursor`; else None.

    Every line must start `{"cursor": N,` with the key nowhere else in it (a JSON string cannot hold `"cursor"`
    unescaped, so a second one would be a second key, whose value is the one that counts), end with a newline, and
    the last line must be an entry (its cursor is what `.dream_cursor` gets when the position stops after it).
    """
    if not block.endswith(b"\n"):
        return None
    numbers = _WRITTEN_AS_USUAL.findall(b"\n" + block)
    lines = block.count(b"\n")
    if len(numbers) != lines or block.count(b'"cursor"') != lines or max(map(int, numbers)) > cursor:
        return None
    last = parse_line(block[block.rfind(b"\n", 0, len(block) - 1) + 1:])
    return last.cursor if last is not None else None


def _read_block(handle: BinaryIO, offset: int, line: int, last: int, length: int,
                cursor: int) -> tuple[bool, int, int, int]:
    """Read the lines of the next `length` bytes from `offset` one by one: (whether the line above `cursor` was
    found, and the offset, line count and last cursor before it)."""
    end = offset + length
    for raw in raw_lines(handle, offset, line):
        entry = None if raw.oversized or raw.data.isspace() else parse_line(raw.data)
        if entry is not None and entry.cursor > cursor:
            return True, offset, line, last
        offset, line = raw.end, raw.number
        last = entry.cursor if entry is not None else last
        if offset >= end:
            break
    return False, offset, line, last


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
