"""Appending entries to history.jsonl, the host's file: complete lines, in one write, after a journal.

history.jsonl belongs to the host agent, which may append to it at any moment and takes no lock of ours. So
ingest only ever appends, with O_APPEND in a single write (the kernel never interleaves it with another
append), and continues the cursor numbering after the file's last entry. When the host's last line lacks its
newline, a complete entry gets one first; an unfinished one means the host is mid-write, and nothing is
appended until it has finished.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path

from nanodream import boundedjson
from nanodream.atomic import open_binary
from nanodream.backlog import turns
from nanodream.backlog.history import MAX_LINE_BYTES, lines_backwards, parse_line
from nanodream.backlog.turns import Turn
from nanodream.ingest.journal import IngestJournal
from nanodream.ingest.seen import Seen
from nanodream.workspace import Workspace


@dataclass(frozen=True)
class Entry:
    timestamp: str
    content: str
    session_key: str
    turns: tuple[Turn, ...] = ()  # its messages as the turn store keeps them (their cursor is the entry's)

    def line(self, cursor: int) -> str:
        data = {"cursor": cursor, "timestamp": self.timestamp, "content": self.content, "session_key": self.session_key}
        return json.dumps(data, ensure_ascii=False) + "\n"


class HistoryMidWrite(RuntimeError):
    """history.jsonl ends in an unfinished line: the host is writing it; appending now would corrupt it."""


@dataclass(frozen=True)
class Tail:
    size: int
    last_cursor: int
    needs_newline: bool  # the last line is a complete entry without its newline


def tail_of(path: Path) -> Tail:
    """The file's size, its last cursor (0 for none) and whether its last line needs a newline first.

    Read backwards in bounded blocks until an entry parses: a history ending in a huge line, or gigabytes of
    nothing, costs time, never memory.
    """
    try:
        handle = open_binary(path)
    except FileNotFoundError:
        return Tail(0, 0, False)
    with handle:
        size = os.fstat(handle.fileno()).st_size
        lines = lines_backwards(handle, size)
        last = next(lines, b"")  # what follows the last newline: b"" when the file ends with one
        unfinished = last is None or bool(last.strip())
        if unfinished and (last is None or not _complete_json(last)):
            raise HistoryMidWrite("history.jsonl ends in an unfinished line (the host agent is writing?); "
                                  "nothing was appended, the transcripts wait for the next pass")
        earlier = chain([last], lines) if unfinished else lines
        cursor = next((entry.cursor for raw in earlier if raw and (entry := parse_line(raw)) is not None), 0)
    return Tail(size, cursor, unfinished)


def _complete_json(raw: bytes) -> bool:
    try:
        boundedjson.loads(raw, max_bytes=MAX_LINE_BYTES)
    except ValueError:
        return False
    return True


def append(workspace: Workspace, entries: list[Entry], journal: IngestJournal, seen: Seen) -> list[int]:
    """Append `entries` as one write under `journal`, then settle the pass's state (their turns first); the
    cursors they got.

    `journal` arrives with its keys and watermarks; the start offset, the payload and the turns' place are filled
    in here.
    """
    path = workspace.history_file
    path.parent.mkdir(parents=True, exist_ok=True)  # a workspace of SOUL.md alone has no memory/ yet
    tail = tail_of(path)
    cursors = list(range(tail.last_cursor + 1, tail.last_cursor + 1 + len(entries)))
    payload = ("\n" if tail.needs_newline else "") + "".join(e.line(c) for e, c in zip(entries, cursors, strict=True))
    journal.start, journal.payload = tail.size, payload
    said = "".join(replace(turn, cursor=cursor).line() for e, cursor in zip(entries, cursors, strict=True)
                   for turn in e.turns)
    if said:
        where = turns.plan_append(workspace)
        journal.turns_segment, journal.turns_start, journal.turns_payload = where.segment, where.start, said
    journal.save(workspace)
    data = payload.encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        written = os.write(fd, data)
        while written < len(data):  # a regular file takes it all at once; a signal could cut it short
            written += os.write(fd, data[written:])
        os.fsync(fd)
    finally:
        os.close(fd)
    journal.settle(workspace, seen)
    return cursors
