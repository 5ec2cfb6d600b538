"""The write-ahead journal of one ingest pass: what it appends to history and the state that follows.

Written before the append, removed once the watermarks and message keys are saved. On the next start,
`recover` finds out how far the pass got: its bytes whole in history (finish saving the state), a torn tail of
them at the very end (cut back: only bytes ingest itself wrote, never a host's), or nothing (its messages are
read again). So a crash anywhere adds nothing twice and leaves no torn line.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nanodream import boundedjson
from nanodream.atomic import atomic_write, open_binary
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

    def save(self, workspace: Workspace) -> None:
        atomic_write(journal_file(workspace), json.dumps(asdict(self), ensure_ascii=False))

    def settle(self, workspace: Workspace, seen: Seen) -> None:
        """Record the keys, then the watermarks, then forget the journal: each step safe to repeat."""
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
    tail = _read_from(history, journal.start)
    payload = journal.payload.encode("utf-8")
    if payload in tail:
        journal.settle(workspace, seen)
        return "finished an interrupted ingest (what it appended was in history whole)"
    torn = _torn_at(tail, payload)
    clear(workspace)
    if torn is None and not tail:
        return "an interrupted ingest had appended nothing; its messages are read again"
    if torn is None or not _cut(history, journal.start + len(tail), journal.start + torn):
        return ("an interrupted ingest left no whole line in history and could not cut back a torn one the host "
                "wrote after (nanodream lists it as malformed); its messages are read again")
    return "cut back a line an interrupted ingest left torn at the end of history; its messages are read again"


def _cut(path: Path, expected_size: int, keep: int) -> bool:
    """Truncate to `keep` bytes, only if nobody appended since the file was `expected_size` bytes long."""
    with open(path, "r+b") as handle:
        if os.fstat(handle.fileno()).st_size != expected_size:
            return False
        handle.truncate(keep)
        os.fsync(handle.fileno())
    return True


def _read_from(path: Path, offset: int) -> bytes:
    try:
        with open_binary(path) as handle:
            handle.seek(offset)
            return handle.read()
    except FileNotFoundError:
        return b""


def _torn_at(tail: bytes, payload: bytes) -> int | None:
    """Where a strict, non-empty prefix of `payload` starts in `tail` and runs to its end, if one does."""
    for start in [0, *(i + 1 for i, byte in enumerate(tail) if byte == 0x0A)]:
        rest = tail[start:]
        if rest and len(rest) < len(payload) and payload.startswith(rest):
            return start
    return None
