"""Reading what is new in one source file: complete lines after its watermark, or the whole file again.

A line still being written (no newline yet) waits for the next pass. A complete line that is not JSON is
passed over and reported by number: one damaged line must not stop a transcript. Files found inside a source
folder are opened without following a symlink, so one swapped in after the listing is refused too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from nanodream import boundedjson
from nanodream.backlog.history import raw_lines
from nanodream.backlog.position import fingerprint
from nanodream.ingest.detect import HEAD_BYTES, MAX_LINE, open_transcript, read_document, starts_document
from nanodream.ingest.formats.base import FILE, Context, Format
from nanodream.ingest.message import Message, chained
from nanodream.ingest.watermarks import Watermark


@dataclass
class FileRead:
    path: Path
    how: str  # new | appended | rewritten | replaced
    mark: Watermark  # the watermark once these messages are in history
    start: int = 0  # the offset reading began at
    messages: list[Message] = field(default_factory=list)
    bad_lines: list[int] = field(default_factory=list)

    @property
    def bytes_read(self) -> int:
        return self.mark.offset - self.start


def read_new(path: Path, fmt: Format, how: str, since: Watermark | None, *, follow: bool) -> FileRead:
    """The messages after `since` (None: from the start) and the watermark that follows them."""
    with open_transcript(path, follow=follow) as handle:
        stat = os.fstat(handle.fileno())
        start = since or Watermark(str(path), fmt.name, context={FILE: path.stem})
        mark = Watermark(str(path), fmt.name, stat.st_dev, stat.st_ino, stat.st_size, start.offset, start.line,
                         context=dict(start.context), messages=start.messages, read_at=start.read_at)
        found = FileRead(path, how, mark, start.offset)
        if starts_document(handle.read(HEAD_BYTES)):
            _read_document(handle, fmt, found)
        else:
            _read_lines(handle, fmt, found)
    mark.fingerprint = fingerprint(path, mark.offset)
    return found


def _read_lines(handle, fmt: Format, found: FileRead) -> None:
    """Complete lines after the watermark, in bounded memory: a line longer than MAX_LINE is passed over in
    chunks and reported like any other line that is not JSON."""
    mark = found.mark
    whole = found.path.suffix == ".json"  # a .json file is written whole: its last line is done, newline or not
    for raw in raw_lines(handle, mark.offset, mark.line, max_line=MAX_LINE):
        if not raw.terminated and not whole:
            break  # still being written: the next pass reads it whole
        mark.offset, mark.line = raw.end, raw.number
        if raw.data.isspace():
            continue
        try:
            record = None if raw.oversized else _record(raw.data)
        except ValueError:
            record = None
        if record is None:
            found.bad_lines.append(mark.line)
            continue
        found.messages += _identified(fmt.read(record, mark.context), mark.context)


def _record(data: bytes) -> object:
    """One line's JSON value; a byte that is not UTF-8 costs only itself (read as U+FFFD), not the message."""
    try:
        return boundedjson.loads(data, max_bytes=MAX_LINE + 2)
    except boundedjson.NotUTF8:
        return boundedjson.loads(data.decode("utf-8", "replace"), max_bytes=4 * MAX_LINE)


SHOWN_LINES = 5  # line numbers a notice names before it counts the rest


def passed_over(path: Path, numbers: list[int]) -> str:
    """The notice for a file's lines that are not JSON: which, and that the rest was read."""
    shown = ", ".join(str(number) for number in numbers[:SHOWN_LINES])
    more = f" and {len(numbers) - SHOWN_LINES} more" if len(numbers) > SHOWN_LINES else ""
    which = f"line {shown}" if len(numbers) == 1 else f"lines {shown}{more}"
    return f"{path}: {which} passed over: not JSON (the rest of the file was read)"


def _read_document(handle, fmt: Format, found: FileRead) -> None:
    """A JSON array is read whole, every time it changes; its messages already ingested are recognised by key."""
    records, data = read_document(handle, found.path)
    mark = found.mark
    mark.offset, mark.line = len(data), data.count(b"\n")
    for record in records:
        found.messages += _identified(fmt.read(record, mark.context), mark.context)


def _identified(messages: list[Message], context: Context) -> list[Message]:
    return [chained(message, context) for message in messages]
