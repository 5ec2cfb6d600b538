"""Consumed history by session and subject, kept in `.nanodream/history-index.json` and grown from where it
stopped up to nanodream's saved position: no phase reads history.jsonl from its first line to search it or to
find a session's entries.

Each entry is kept as where it lives (offset and line, so its text is read back with one seek), its day, its
session and its subject terms; never its text. A history file that was rotated or rewritten under the index
(its indexed part no longer has the same fingerprint) is indexed again, once.

An adopted history may hold a million consumed lines before nanodream's first run. Indexing them all would make
that run cost seconds per hundred thousand lines, so a first index covers the newest `WINDOW` bytes before the
position, and each later run indexes one more window further back (`start` moves towards the file's first line)
until the whole consumed history is in: every run's cost stays bounded, and the oldest history is searchable
within a few runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from nanodream.atomic import atomic_write, open_binary
from nanodream.backlog.history import (
    HistoryEntry,
    Position,
    entry_at,
    read_from,
    session_of,
    tagged_lines,
)
from nanodream.backlog.position import fingerprint
from nanodream.boundedjson import load_file
from nanodream.insights.terms import named, terms
from nanodream.safety import secret_scan
from nanodream.workspace import Workspace

FORMAT = 1
SHOWN_LIMIT = 400  # characters of an entry a search shows
WINDOW = 8 * 1024 * 1024  # bytes of consumed history one run indexes beyond what it consumed (~17k typical entries)
_COUNT_BLOCK = 1024 * 1024


@dataclass(frozen=True)
class Indexed:
    offset: int
    line: int
    day: str  # YYYY-MM-DD ('' when the timestamp has none)
    session: str
    terms: tuple[str, ...]
    names: tuple[str, ...] = ()  # of its terms, those that name a thing (terms.named)


@dataclass
class HistoryIndex:
    offset: int = 0  # indexed up to here (the saved position when it was last grown)
    line: int = 0
    fingerprint: str = ""
    entries: list[Indexed] = field(default_factory=list)
    start: int = 0  # indexed from here (0: from the first line); older lines come a window per run
    start_line: int = 0

    def sessions(self) -> dict[str, list[Indexed]]:
        """Session key → its entries, in file order."""
        found: dict[str, list[Indexed]] = {}
        for item in self.entries:
            found.setdefault(item.session, []).append(item)
        return found


def index_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "history-index.json"


def up_to_date(workspace: Workspace, upto: Position, *, save: bool = True) -> HistoryIndex:
    """The index grown from where it stopped up to `upto` (the saved position), and one window further back
    when older consumed lines are not in it yet (see the module's docstring)."""
    path = workspace.history_file
    index = _load(workspace)
    if index.offset and (not path.is_file() or fingerprint(path, index.offset) != index.fingerprint):
        index = HistoryIndex()  # rotated or rewritten under the index: what it holds describes another file
    if not path.is_file() or (index.offset >= upto.offset and not (index.start and save)):
        return index
    first = False
    if index.offset < upto.offset:
        if index.offset == 0 and upto.offset > WINDOW:  # a first index of a long consumed history
            index.start, index.start_line = _line_from(path, upto.offset - WINDOW)
            index.offset, index.line, first = index.start, index.start_line, True
        index.entries += _entries(path, index.offset, index.line, upto.offset)
        index.offset, index.line, index.fingerprint = upto.offset, upto.line, fingerprint(path, upto.offset)
    if index.start and save and not first:  # every later run, growing or not, takes one window further back
        _older_window(path, index)
    if save:
        workspace.state_dir.mkdir(exist_ok=True)
        atomic_write(index_file(workspace), json.dumps(_stored(index), separators=(",", ":")) + "\n")
    return index


def _entries(path: Path, offset: int, line: int, end: int) -> list[Indexed]:
    found = []
    for item in read_from(path, offset, line):
        if item.offset >= end:
            break
        if isinstance(item, HistoryEntry):
            found.append(_indexed(item))
    return found


def _older_window(path: Path, index: HistoryIndex) -> None:
    """Index the window of consumed lines just before the oldest indexed one."""
    start, start_line = _line_from(path, max(index.start - WINDOW, 0))
    index.entries[:0] = _entries(path, start, start_line, index.start)
    index.start, index.start_line = start, start_line


def _line_from(path: Path, at: int) -> tuple[int, int]:
    """(offset, lines before it) of the first line that starts at or after byte `at`: newlines counted block by
    block, never a line decoded."""
    if at <= 0:
        return 0, 0
    with open_binary(path) as handle:
        handle.seek(at - 1)  # the byte before: a newline there means a line starts at `at`
        offset = at - 1
        while block := handle.read(_COUNT_BLOCK):
            newline = block.find(b"\n")
            if newline >= 0:
                offset += newline + 1
                break
            offset += len(block)
        handle.seek(0)
        lines = read = 0
        while read < offset and (block := handle.read(min(_COUNT_BLOCK, offset - read))):
            lines += block.count(b"\n")
            read += len(block)
    return offset, lines


def _indexed(entry: HistoryEntry) -> Indexed:
    said = _plain(entry.content)
    day = entry.timestamp.strip()[:10]
    return Indexed(entry.offset, entry.line, day, session_of(entry), tuple(sorted(terms(said))),
                   tuple(sorted(named(said))))


def _plain(content: str) -> str:
    """An entry's text without its tags, `[skip]` lines left out."""
    return " ".join(text for tag, text in tagged_lines(content) if tag != "skip")


def shown(workspace: Workspace, item: Indexed) -> str:
    """The entry's text as a search shows it: read at its offset, `[skip]` lines out, tags off, credentials
    redacted."""
    entry = entry_at(workspace.history_file, item.offset, item.line)
    if entry is None:
        return ""
    text = " ".join(secret_scan.redact(None, _plain(entry.content))[0].split())
    return text if len(text) <= SHOWN_LIMIT else text[: SHOWN_LIMIT - 1] + "…"


def _stored(index: HistoryIndex) -> dict:
    return {"format": FORMAT, "offset": index.offset, "line": index.line, "fingerprint": index.fingerprint,
            "entries": [[e.offset, e.line, e.day, e.session, list(e.terms), list(e.names)] for e in index.entries],
            "start": index.start, "start_line": index.start_line}


def _load(workspace: Workspace) -> HistoryIndex:
    """The saved index; an empty one when there is none or it cannot be trusted (it is rebuilt, costing time only)."""
    try:
        data = load_file(index_file(workspace))
        if data.get("format") != FORMAT:
            return HistoryIndex()
        entries = [Indexed(int(offset), int(line), str(day), str(session), tuple(map(str, held)),
                           tuple(map(str, names))) for offset, line, day, session, held, names in data["entries"]]
        return HistoryIndex(int(data["offset"]), int(data["line"]), str(data["fingerprint"]), entries,
                            int(data.get("start", 0)), int(data.get("start_line", 0)))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return HistoryIndex()

