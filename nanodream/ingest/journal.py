"""The write-ahead journal of one ingest pass: what it appends to history and the state that follows.

Written before the append, removed once the turns, the watermarks and message keys are saved. On the next start,
`recover` finds out how far the pass got: its bytes whole in history (finish: the turns written whole, the state
saved), a torn tail of them at the very end (cut back: only bytes ingest itself wrote, never a host's), or
nothing (the turns cut back too; its messages are read again). So a crash anywhere adds nothing twice, to history
or to the turn store (backlog/turns.py), and leaves no torn line.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nanodream import boundedjson
from nanodream.atomic import atomic_write, open_binary, open_plain
from nanodream.backlog import turns
from nanodream.ingest import watermarks
from nanodream.ingest.watermarks import Watermark, state_dir
from nanodream.workspace import Workspace

if TYPE_CHECKING:  # the store's SQLite is loaded by a pass, never by `status`, which reads this module
    from nanodream.ingest.seen import Seen


@dataclass
class IngestJournal:
    start: int  # history.jsonl's size just before the append
    payload: str  # exactly what is appended (a newline first when the host's last line lacked one)
    keys: list[str] = field(default_factory=list)  # the messages the payload holds
    marks: dict[str, dict[str, Any]] = field(default_factory=dict)  # watermarks to save once it is in
    turns_segment: str = ""  # the turn store's segment the pass's turns go to ("": none kept)
    turns_start: int = 0  # its size before them
    turns_payload: str = ""  # the turns' lines

    def save(self, workspace: Workspace) -> None:
        atomic_write(journal_file(workspace), json.dumps(asdict(self), ensure_ascii=False))

    @property
    def turns_at(self) -> turns.Append:
        return turns.Append(self.turns_segment, self.turns_start)

    def settle(self, workspace: Workspace, seen: Seen) -> None:
        """Write the turns, record the keys, then the watermarks, then forget the journal: each step safe to
        repeat."""
        if self.turns_segment:
            turns.settle(workspace, self.turns_at, self.turns_payload.encode("utf-8"))
        seen.add(self.keys)
        try:
            held = watermarks.load(workspace)
        except watermarks.WatermarksUnreadable:  # a pass reads every source again then (pipeline): start afresh
            held = {}
        new = {path: Watermark(**mark) for path, mark in self.marks.items()}
        watermarks.save(workspace, watermarks.merged(held, new))
        clear(workspace)


def journal_file(workspace: Workspace) -> Path:
    return state_dir(workspace) / "journal.json"


_BLOCK = 1024 * 1024  # what a recovery reads of history at a time


class IngestJournalUnreadable(ValueError):
    pass


def load(workspace: Workspace) -> IngestJournal | None:
    try:
        return IngestJournal(**boundedjson.load_file(journal_file(workspace)))
    except FileNotFoundError:
        return None
    except (ValueError, TypeError, UnicodeDecodeError):
        raise IngestJournalUnreadable(f"{journal_file(workspace)} is unreadable; move it away to continue "
                                      "(the messages it covered are then read again)") from None


def clear(workspace: Workspace) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(journal_file(workspace))


def recover(workspace: Workspace, seen: Seen) -> str:
    """Finish or undo an interrupted pass (see the module's docstring); a line saying what was done, or ''."""
    journal = load(workspace)
    if journal is None:
        return ""
    history = workspace.history_file
    payload = journal.payload.encode("utf-8")
    if _holds(history, journal.start, payload):
        journal.settle(workspace, seen)
        return "finished an interrupted ingest (what it appended was in history whole)"
    size, end_start, end = _end_of(history, journal.start, len(payload))
    torn = _torn_at(end, payload, from_start=end_start == journal.start)
    if journal.turns_segment:
        turns.undo(workspace, journal.turns_at)
    clear(workspace)
    if torn is None and size <= journal.start:
        return "an interrupted ingest had appended nothing; its messages are read again"
    if torn is None or not _cut(history, size, end_start + torn):
        return ("an interrupted ingest left no whole line in history and could not cut back a torn one the host "
                "wrote after (nanodream lists it as malformed); its messages are read again")
    return "cut back a line an interrupted ingest left torn at the end of history; its messages are read again"


def _cut(path: Path, expected_size: int, keep: int) -> bool:
    """Truncate to `keep` bytes, only if nobody appended since the file was `expected_size` bytes long."""
    fd = open_plain(path, os.O_RDWR)  # never through a link swapped in since the door's check
    try:
        if os.fstat(fd).st_size != expected_size:
            return False
        os.ftruncate(fd, keep)
        os.fsync(fd)
    finally:
        os.close(fd)
    return True


def _holds(path: Path, start: int, payload: bytes) -> bool:
    """Whether `payload` is whole in the file after byte `start`, read a block at a time: whatever a host
    appended since (a 200 MB line) costs time, never memory."""
    keep = max(len(payload) - 1, 0)
    try:
        with open_binary(path) as handle:
            handle.seek(start)
            carry = b""
            while block := handle.read(_BLOCK):
                window = carry + block
                if payload in window:
                    return True
                carry = window[-keep:] if keep else b""  # the whole window when it is shorter
    except FileNotFoundError:
        pass
    return False


def _end_of(path: Path, start: int, length: int) -> tuple[int, int, bytes]:
    """The file's size, and its last bytes after `start` — no more than `length` of them — with where they begin:
    a torn tail of a payload of `length` bytes can only lie there."""
    try:
        with open_binary(path) as handle:
            size = handle.seek(0, os.SEEK_END)
            begin = max(start, size - length)
            handle.seek(begin)
            return size, begin, handle.read(size - begin)
    except FileNotFoundError:
        return start, start, b""


def _torn_at(end: bytes, payload: bytes, *, from_start: bool) -> int | None:
    """Where in `end` a strict, non-empty prefix of `payload` starts (at a line's start, or at `end`'s own start
    when that is where the pass began) and runs to the end, if one does."""
    starts = [0] if from_start else []
    at = end.find(b"\n")
    while at >= 0:
        starts.append(at + 1)
        at = end.find(b"\n", at + 1)
    for start in starts:
        rest = end[start:]
        if rest and len(rest) < len(payload) and payload.startswith(rest):
            return start
    return None
