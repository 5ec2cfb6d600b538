"""The backlog survey, kept between runs: a run reads only what was appended and what was consumed since the last one.

`survey` (backlog/history.py) counts every pending entry and finds every dead letter and cursor anomaly after the
position; with a million lines pending that is seconds of work, and every run did it again. What it found is
kept in `.nanodream/survey.json`: from where (`base`), how far the file was read (`scanned`, with a fingerprint of
that prefix), the pending count and tokens, and the dead letters and anomalies by offset. The next survey reads
only the lines appended since, subtracts the lines consumed since (base up to the new position), and drops what
lies before the position: the same answer as reading everything after the position again.

A missing, unreadable or no-longer-matching record (a rotated file, a position moved back, another `max_jump`) is
replaced by a full survey from the position. Only a run, which holds the workspace lock, writes the record;
`status` and the scheduler read it.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from nanodream import boundedjson
from nanodream.atomic import atomic_write, open_binary
from nanodream.backlog.history import (
    Anomaly,
    DeadLetter,
    HistoryEntry,
    Position,
    Survey,
    cursor_anomaly,
    entry_tokens,
    marked_languages,
    raw_lines,
    read_from,
    read_line,
)
from nanodream.backlog.past import whole_lines_end
from nanodream.backlog.position import fingerprint
from nanodream.workspace import Workspace

STATE_VERSION = 2  # 2: entries waiting for a model are kept apart from the pending ones


def state_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "survey.json"


@dataclass
class _Kept:
    """A survey of the lines from `base` up to `scanned` (whole lines only), anomalies and letters by offset."""

    max_jump: int
    base: dict[str, int]  # {"offset", "line", "cursor"}: the position it was counted from
    scanned: int  # bytes read: the end of the last whole line
    scanned_line: int
    last_cursor: int  # of the last entry read, or base's cursor when none is pending
    pending: int = 0
    tokens: int = 0
    letters: list[list] = field(default_factory=list)  # [line, offset, reason, fingerprint]
    anomalies: list[list] = field(default_factory=list)  # [line, cursor, offset, message]
    waiting: list[list] = field(default_factory=list)  # [offset, languages]: entries ingest left for a model
    fingerprint: str = ""


def survey_of(workspace: Workspace, start: Position, max_jump: int, *, keep: bool) -> Survey:
    """What waits after `start`, as `history.survey` finds it, reading only what changed since the kept survey.

    `keep`: save what was found for the next survey (a run, under the workspace lock; never a preview).
    """
    path = workspace.history_file
    kept = _load(state_file(workspace), path, max_jump)
    stable = whole_lines_end(path)
    if kept is None or not _within(path, kept, start, stable):
        kept = _Kept(max_jump, {"offset": start.offset, "line": start.line, "cursor": start.cursor},
                     start.offset, start.line, start.cursor)
    _read_on(path, kept, stable)
    if start.offset > kept.base["offset"]:
        _consumed(path, kept, start)
    found = _as_survey(path, kept)
    _tail(path, kept, found)
    if keep:
        kept.fingerprint = fingerprint(path, kept.scanned)
        with contextlib.suppress(OSError):  # a read-only workspace surveys from its position each time
            atomic_write(state_file(workspace), json.dumps({"version": STATE_VERSION, **asdict(kept)},
                                                           separators=(",", ":")) + "\n")
    return found


def _within(path: Path, kept: _Kept, start: Position, stable: int) -> bool:
    """Whether the kept survey can be brought to `start`: a position at or after its base, not past what the file
    holds whole, and at a line's start (a position just past a line consumed while the host was still writing it
    reads the rest of that line as a line of its own, which the kept survey read whole)."""
    if start.offset == kept.base["offset"]:
        return True
    if not kept.base["offset"] < start.offset <= max(kept.scanned, stable):
        return False
    with open_binary(path) as handle:
        handle.seek(start.offset - 1)
        return handle.read(1) == b"\n"


def _load(state: Path, path: Path, max_jump: int) -> _Kept | None:
    try:
        data = boundedjson.load_file(state)
        if data.pop("version", None) != STATE_VERSION:
            return None
        kept = _Kept(**data)
        size = path.stat().st_size if path.is_file() else 0
        if kept.max_jump != max_jump or size < kept.scanned or fingerprint(path, kept.scanned) != kept.fingerprint:
            return None
        return kept
    except (OSError, ValueError, TypeError, AttributeError):
        return None


def _read_on(path: Path, kept: _Kept, stable: int) -> None:
    """Survey the whole lines appended since `kept.scanned`, as one pass from the base would have."""
    if stable <= kept.scanned:
        return
    previous = kept.last_cursor
    with open_binary(path) as handle:
        for raw in raw_lines(handle, kept.scanned, kept.scanned_line):
            if raw.start >= stable:
                break
            item = read_line(raw)
            if isinstance(item, DeadLetter):
                kept.letters.append([item.line, item.offset, item.reason, item.fingerprint])
            elif item is not None:
                anomaly = cursor_anomaly(item, previous, kept.max_jump)
                if anomaly:
                    kept.anomalies.append([item.line, item.cursor, item.offset, anomaly])
                _count(kept, item)
                previous = item.cursor
            kept.scanned, kept.scanned_line = raw.end, raw.number
    kept.last_cursor = previous


def _count(kept: _Kept, entry: HistoryEntry) -> None:
    marked = marked_languages(entry.content)
    if marked is not None:
        kept.waiting.append([entry.offset, ", ".join(marked)])
    else:
        kept.pending += 1
        kept.tokens += entry_tokens(entry)


def _consumed(path: Path, kept: _Kept, start: Position) -> None:
    """Take out what lies before the new position `start` (consumed since the kept survey), and count the first
    entry after it against `start`'s cursor, as a survey from `start` does."""
    for item in read_from(path, kept.base["offset"], kept.base["line"]):
        if item.offset >= start.offset:
            break
        if isinstance(item, HistoryEntry) and marked_languages(item.content) is None:
            kept.pending -= 1
            kept.tokens -= entry_tokens(item)
    kept.waiting = [waiting for waiting in kept.waiting if waiting[0] >= start.offset]
    kept.letters = [letter for letter in kept.letters if letter[1] >= start.offset]
    kept.anomalies = [anomaly for anomaly in kept.anomalies if anomaly[2] >= start.offset]
    kept.base = {"offset": start.offset, "line": start.line, "cursor": start.cursor}
    first = next((item for item in read_from(path, start.offset, start.line) if isinstance(item, HistoryEntry)), None)
    if first is None or first.end > kept.scanned:  # none, or only the line still being written (`_tail` reads it)
        kept.last_cursor = start.cursor
        return
    kept.anomalies = [anomaly for anomaly in kept.anomalies if anomaly[2] != first.offset]
    anomaly = cursor_anomaly(first, start.cursor, kept.max_jump)
    if anomaly:
        kept.anomalies.insert(0, [first.line, first.cursor, first.offset, anomaly])


def _as_survey(path: Path, kept: _Kept) -> Survey:
    found = Survey(pending=kept.pending, tokens=kept.tokens, last_cursor=kept.last_cursor,
                   waiting=Counter(languages for _, languages in kept.waiting))
    found.anomalies = [Anomaly(line, cursor, message) for line, cursor, _, message in kept.anomalies]
    for line, offset, reason, print_ in kept.letters:
        letter = next(read_from(path, offset, line - 1), None)  # its text, read again: the state keeps none
        raw = letter.raw if isinstance(letter, DeadLetter) and letter.offset == offset else ""
        found.dead_letters.append(DeadLetter(line, offset, raw, reason, print_))
    return found


def _tail(path: Path, kept: _Kept, found: Survey) -> None:
    """The line still being written after the last whole one, if it already reads as an entry (never kept)."""
    previous = found.last_cursor
    for item in read_from(path, kept.scanned, kept.scanned_line):
        if isinstance(item, HistoryEntry):
            anomaly = cursor_anomaly(item, previous, kept.max_jump)
            if anomaly:
                found.anomalies.append(Anomaly(item.line, item.cursor, anomaly))
            found.count(item)
            found.last_cursor = previous = item.cursor
