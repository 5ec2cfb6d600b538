"""The history backlog: a tolerant reader, retention tags, the cursor file and token-budgeted batches."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from nanodream.atomic import atomic_write

TAGS = ("permanent", "durable", "ephemeral", "correction", "skip")
TAG_LINE = re.compile(r"^\s*(?:[-*]\s+)?\[(" + "|".join(TAGS) + r")\]\s*", re.IGNORECASE)
CHARS_PER_TOKEN = 4
ENTRY_OVERHEAD_TOKENS = 12
_DECODER = json.JSONDecoder()
_JSON_WHITESPACE = " \t\n\r"


@dataclass(frozen=True)
class HistoryEntry:
    cursor: int
    timestamp: str
    content: str
    session_key: str | None = None


@dataclass
class Batch:
    """Entries to consolidate in one session, `[skip]` lines already removed."""

    entries: list[HistoryEntry]
    skipped_lines: int = 0
    malformed_lines: int = 0
    more_after: bool = False

    @property
    def first_cursor(self) -> int:
        return self.entries[0].cursor

    @property
    def last_cursor(self) -> int:
        return self.entries[-1].cursor

    @property
    def has_content(self) -> bool:
        return any(entry.content.strip() for entry in self.entries)

    @property
    def has_correction(self) -> bool:
        return any(tag == "correction" for entry in self.entries for tag, _ in tagged_lines(entry.content))

    @property
    def estimated_tokens(self) -> int:
        return sum(estimate_tokens(entry) for entry in self.entries)


@dataclass
class Backlog:
    """What is waiting after the cursor, as counted by a full scan (for `status`)."""

    pending: int = 0
    malformed: int = 0
    last_cursor: int = 0


def parse_line(line: str | bytes) -> HistoryEntry | None:
    """One history line, or None when it is not a well-formed entry."""
    try:
        data = _decode_json(line)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    cursor, timestamp, content = data.get("cursor"), data.get("timestamp"), data.get("content")
    session_key = data.get("session_key")
    if not isinstance(cursor, int) or isinstance(cursor, bool) or cursor < 1:
        return None
    if not isinstance(timestamp, str) or not isinstance(content, str):
        return None
    if session_key is not None and not isinstance(session_key, str):
        return None
    return HistoryEntry(cursor, timestamp, content, session_key)


def _decode_json(line: str | bytes) -> object:
    """Exactly what json.loads accepts for a UTF-8 line, at about half its cost.

    json.loads spends half its time re-detecting the encoding of bytes and running two whitespace regexes;
    on a never-consumed backlog of a million lines (`status`) that was a third of the scan (bench/backlog.py).
    """
    if isinstance(line, bytes):
        text = line.decode("utf-8", "surrogatepass")  # as json.loads decodes bytes, but with C's fast path
        text = text[1:] if text.startswith("\ufeff") else text  # json.loads forgives a UTF-8 BOM in bytes
    else:
        text = line
    text = text.strip(_JSON_WHITESPACE)
    value, end = _DECODER.raw_decode(text)
    if end != len(text):
        raise ValueError("extra data after the JSON value")
    return value


def tagged_lines(content: str) -> list[tuple[str | None, str]]:
    """Split content into (tag or None, text without the tag) per non-blank line."""
    result: list[tuple[str | None, str]] = []
    for raw in content.splitlines():
        if not raw.strip():
            continue
        match = TAG_LINE.match(raw)
        if match:
            result.append((match.group(1).lower(), raw[match.end():].strip()))
        else:
            result.append((None, raw.strip()))
    return result


def drop_skip_lines(content: str) -> tuple[str, int]:
    """Remove `[skip]` fact lines; return the remaining text and how many lines were dropped."""
    kept, dropped = [], 0
    for raw in content.splitlines():
        match = TAG_LINE.match(raw)
        if match and match.group(1).lower() == "skip":
            dropped += 1
        else:
            kept.append(raw)
    return "\n".join(kept).strip("\n"), dropped


def estimate_tokens(entry: HistoryEntry) -> int:
    """A provider-independent estimate, good enough to size batches without a tokenizer download."""
    return ENTRY_OVERHEAD_TOKENS + (len(entry.content) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def read_cursor(path: Path) -> int:
    """The last consumed cursor; missing or unreadable means 0, as nanobot treats it."""
    try:
        value = int(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError, UnicodeDecodeError):
        return 0
    return max(value, 0)


def write_cursor(path: Path, cursor: int) -> None:
    atomic_write(path, f"{cursor}\n")


def _first_entry_from(handle, offset: int) -> tuple[int, int] | None:
    """(cursor, end offset) of the first valid line starting at or after `offset`, else None."""
    if offset > 0:
        handle.seek(offset - 1)
        if handle.read(1) != b"\n":
            handle.readline()
    else:
        handle.seek(0)
    while True:
        line = handle.readline()
        if not line:
            return None
        entry = parse_line(line)
        if entry is not None:
            return entry.cursor, handle.tell()


def offset_after(handle, cursor: int, size: int) -> int:
    """Byte offset of the first line whose entry comes after `cursor`, by bisection over the file.

    Cursors increase through the file, so this costs O(log size) line reads instead of a full scan:
    the cursor of a long-lived agent is near the end of a very large file.
    """
    low, high = 0, size
    while low < high:
        middle = (low + high) // 2
        found = _first_entry_from(handle, middle)
        if found is None or found[0] > cursor:
            high = middle
        else:
            low = found[1]
    return low


def iter_after(path: Path, cursor: int, counter: dict[str, int] | None = None) -> Iterator[HistoryEntry]:
    """Entries after `cursor`, oldest first; malformed lines are counted in counter['malformed']."""
    counts = counter if counter is not None else {}
    counts.setdefault("malformed", 0)
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return
    with handle:
        size = path.stat().st_size
        handle.seek(offset_after(handle, cursor, size) if cursor > 0 else 0)
        last = cursor
        for line in handle:
            if not line.strip():
                continue
            entry = parse_line(line)
            if entry is None:
                counts["malformed"] += 1
                continue
            if entry.cursor <= last:
                continue
            last = entry.cursor
            yield entry


def next_batch(path: Path, cursor: int, budget_tokens: int) -> Batch | None:
    """The oldest entries after `cursor` that fit `budget_tokens`; an oversized entry goes alone."""
    counter: dict[str, int] = {}
    entries: list[HistoryEntry] = []
    skipped = 0
    used = 0
    more_after = False
    stream = iter_after(path, cursor, counter)
    for entry in stream:
        content, dropped = drop_skip_lines(entry.content)
        cleaned = HistoryEntry(entry.cursor, entry.timestamp, content, entry.session_key)
        cost = estimate_tokens(cleaned)
        if entries and used + cost > budget_tokens:
            more_after = True
            break
        entries.append(cleaned)
        skipped += dropped
        used += cost
    stream.close()
    if not entries:
        return None
    return Batch(entries, skipped_lines=skipped, malformed_lines=counter["malformed"], more_after=more_after)


def scan_backlog(path: Path, cursor: int) -> Backlog:
    """Count what waits after the cursor (streams the tail; used by `status`)."""
    counter: dict[str, int] = {}
    backlog = Backlog(last_cursor=cursor)
    for entry in iter_after(path, cursor, counter):
        backlog.pending += 1
        backlog.last_cursor = entry.cursor
    backlog.malformed = counter.get("malformed", 0)
    return backlog
