"""Already-consumed history shown again as read-only context (`run --lookback DAYS`).

A batch that starts mid-conversation reads better with what was said just before it. The entries right
before the batch, stamped within the last DAYS (timestamps read in the workspace's time zone), are read
backwards from the batch's first byte — never the whole file — newest first until their own token budget is
spent, and handed to the session oldest first. They are never consumed again: the position does not move
for them. Quarantined entries and `[skip]` lines are left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from nanodream.atomic import open_binary
from nanodream.backlog.history import MAX_LINE_BYTES, HistoryEntry, drop_skip_lines, entry_tokens, parse_line

BLOCK = 64 * 1024


def recent_before(path: Path, first: HistoryEntry, since: datetime, budget_tokens: int,
                  excluded: frozenset[int] = frozenset()) -> list[HistoryEntry]:
    """Entries before `first` stamped at or after `since` (an aware time), within `budget_tokens`, oldest first."""
    chosen: list[HistoryEntry] = []
    used = 0
    for entry in _backwards(path, first.offset, first.line):
        when = stamped(entry.timestamp, since.tzinfo)
        if when is not None and when < since:
            break
        content, _ = drop_skip_lines(entry.content)
        if when is None or entry.offset in excluded or not content.strip():
            continue
        entry = replace(entry, content=content)
        used += entry_tokens(entry)
        if used > budget_tokens:
            break
        chosen.append(entry)
    return chosen[::-1]


def stamped(timestamp: str, tz) -> datetime | None:
    """A history timestamp ("YYYY-MM-DD HH:MM", or ISO 8601) as an aware time; naive ones are in `tz`."""
    try:
        when = datetime.fromisoformat(timestamp.strip())
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=tz or ZoneInfo("UTC"))


def _backwards(path: Path, end: int, end_line: int) -> Iterator[HistoryEntry]:
    """The well-formed entries before byte `end` (the start of line `end_line`), last first, read in blocks.

    A line longer than MAX_LINE_BYTES is passed over without being gathered whole (it is a dead letter).
    """
    try:
        handle = open_binary(path)
    except FileNotFoundError:
        return
    with handle:
        position, carry, line, first = end, b"", end_line, True
        skipping = False  # inside a line too long to read: its pieces are dropped until its start is found
        while position > 0:
            start = max(0, position - BLOCK)
            handle.seek(start)
            pieces = (handle.read(position - start) + carry).split(b"\n")
            if first and pieces[-1] == b"":
                pieces.pop()  # the newline that ends the line just before `end`
            first = False
            if skipping and pieces:
                pieces[-1], skipping = b"", len(pieces) == 1
            carry = pieces.pop(0) if start > 0 else b""  # a line that began before this block
            if len(carry) > MAX_LINE_BYTES:
                carry, skipping = b"", True
            at = start + (len(carry) + 1 if start > 0 else 0)
            placed = []
            for piece in pieces:
                placed.append((piece, at))
                at += len(piece) + 1
            for piece, offset in reversed(placed):
                line -= 1
                entry = parse_line(piece) if piece.strip() else None
                if entry is not None:
                    yield replace(entry, line=line, offset=offset, end=offset + len(piece) + 1)
            position = start
