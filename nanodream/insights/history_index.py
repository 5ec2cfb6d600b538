"""Consumed history by session, kept in `.nanodream/history-index.json`: no phase reads history.jsonl from its
first line to search it or to find a session's entries.

A session is kept as connect searches it: the union of its entries' subject terms and of their names, its newest
day, where its newest entry sits, and its RECENT newest entries (offset, line and terms; the text is read back
with one seek when shown) — never the text, and never a record per line. The index grows with the sessions and
their words, not with the history's length: loading and writing it stays cheap on a million consumed lines.

What a run consumed is added by that run (`up_to_date`). A consumed history of at most FIRST_BYTES is indexed whole
the first time; a longer one — an adopted history, up to a million lines before nanodream's first run — is left to
idle runs: a run that finds nothing to consume indexes up to IDLE_BYTES more of it, newest first, in one
streaming pass (`backfill`), until the whole consumed history is in. So a run that consumes costs the same on a
history of a thousand lines as on one of a million, and no run reads more than its share. A history file rotated
or rewritten under the index (its indexed part no longer has the same fingerprint) is indexed again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from nanodream.atomic import atomic_write, open_binary
from nanodream.backlog.history import (
    FOR_A_MODEL,
    GIST,
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

FORMAT = 2
SHOWN_LIMIT = 400  # characters of an entry a search shows
RECENT = 20  # entries a session keeps by place: those a search shows and a repeated fact is checked against
FIRST_BYTES = 1024 * 1024  # a consumed history this long or shorter is indexed whole when first seen (~4k lines)
IDLE_BYTES = 16 * 1024 * 1024  # older consumed history an idle run indexes (~70k typical lines, a few seconds)
MAX_INDEX_BYTES = 64 * 1024 * 1024  # an index file past this is not read (it is rebuilt: costing time only)
_COUNT_BLOCK = 1024 * 1024


@dataclass(frozen=True)
class Indexed:
    """One entry, by where it lives and the terms it holds."""

    offset: int
    line: int
    terms: tuple[str, ...]


@dataclass
class Session:
    """What one session key's consumed entries say, together."""

    terms: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    day: str = ""  # its newest entry's day, YYYY-MM-DD ('' when no timestamp has one)
    last: int = -1  # the offset of its newest entry
    recent: list[Indexed] = field(default_factory=list)  # its RECENT newest entries, in file order

    def add(self, entry: HistoryEntry) -> None:
        said = _plain(entry.content)
        found = terms(said)
        self.terms |= found
        self.names |= named(said)
        day = entry.timestamp.strip()[:10]
        self.day = max(self.day, day) if day[:4].isdigit() else self.day
        self.last = max(self.last, entry.offset)
        if len(self.recent) < RECENT or entry.offset > self.recent[0].offset:
            self.recent.append(Indexed(entry.offset, entry.line, tuple(sorted(found))))
            self.recent.sort(key=lambda item: item.offset)
            del self.recent[:-RECENT]


@dataclass
class HistoryIndex:
    offset: int = 0  # indexed up to here (the saved position when it was last grown)
    line: int = 0
    fingerprint: str = ""
    by_session: dict[str, Session] = field(default_factory=dict)
    start: int = 0  # indexed from here (0: from the first line); older lines come in idle runs
    start_line: int = 0

    def sessions(self) -> dict[str, Session]:
        """Session key → what its consumed entries say."""
        return self.by_session

    def add(self, entry: HistoryEntry) -> None:
        self.by_session.setdefault(session_of(entry), Session()).add(entry)


def index_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "history-index.json"


def up_to_date(workspace: Workspace, upto: Position, *, since: Position | None = None,
               save: bool = True) -> HistoryIndex:
    """The index grown from where it stopped up to `upto` (the saved position): what runs consumed since. A first
    index takes the whole consumed history when it is at most FIRST_BYTES; a longer one starts at `since` (where
    this run began: what it consumed is in) and the older lines wait for idle runs (`backfill`)."""
    path = workspace.history_file
    index = _current(workspace)
    if not path.is_file() or index.offset >= upto.offset:
        return index
    if index.offset == 0 and upto.offset > FIRST_BYTES:  # a first look at a long consumed history
        first = since if since is not None and since.offset <= upto.offset else upto
        index.start = index.offset = first.offset
        index.start_line = index.line = first.line
    _index(path, index, index.offset, index.line, upto.offset)
    index.offset, index.line, index.fingerprint = upto.offset, upto.line, fingerprint(path, upto.offset)
    if save:
        _save(workspace, index)
    return index


def backfill(workspace: Workspace, upto: Position, budget: int = IDLE_BYTES) -> bool:
    """Index up to `budget` bytes of consumed history older than the index holds, newest first, in one streaming
    pass; False when there was nothing left to index. For runs with nothing else to do."""
    index = up_to_date(workspace, upto)
    if index.start <= 0 or not workspace.history_file.is_file():
        return False
    start, start_line = _line_from(workspace.history_file, max(index.start - budget, 0))
    _index(workspace.history_file, index, start, start_line, index.start)
    index.start, index.start_line = start, start_line
    _save(workspace, index)
    return True


def _current(workspace: Workspace) -> HistoryIndex:
    """The saved index, or an empty one when the history under it was rotated or rewritten."""
    index = _load(workspace)
    path = workspace.history_file
    if index.offset and (not path.is_file() or fingerprint(path, index.offset) != index.fingerprint):
        return HistoryIndex()  # what it holds describes another file
    return index


def _index(path: Path, index: HistoryIndex, offset: int, line: int, end: int) -> None:
    """Add the entries from `offset` (line `line`) up to `end`, streaming: nothing per line is kept but a
    session's words and its newest entries' places."""
    if offset >= end:
        return
    stream = read_from(path, offset, line)
    for item in stream:
        if item.offset >= end:
            break
        if isinstance(item, HistoryEntry):
            index.add(item)
    stream.close()


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


def _plain(content: str) -> str:
    """An entry's words: without its tags, `[skip]` lines, ingest's own labels (the marker of what waits for a
    model, the gist's "Talked about:") and quoting; else connect links sessions by "talked", "built" and "model"."""
    return " ".join(text.removeprefix(GIST).removeprefix("> ") for tag, text in tagged_lines(content)
                    if tag != "skip" and not text.startswith(FOR_A_MODEL))


def shown(workspace: Workspace, item: Indexed) -> str:
    """The entry's text as a search shows it: read at its offset, `[skip]` lines out, tags off, credentials
    redacted."""
    entry = entry_at(workspace.history_file, item.offset, item.line)
    if entry is None:
        return ""
    text = " ".join(secret_scan.redact(None, _plain(entry.content))[0].split())
    return text if len(text) <= SHOWN_LIMIT else text[: SHOWN_LIMIT - 1] + "…"


def _save(workspace: Workspace, index: HistoryIndex) -> None:
    sessions = {key: {"terms": sorted(s.terms), "names": sorted(s.names), "day": s.day, "last": s.last,
                      "recent": [[e.offset, e.line, list(e.terms)] for e in s.recent]}
                for key, s in index.by_session.items()}
    data = {"format": FORMAT, "offset": index.offset, "line": index.line, "fingerprint": index.fingerprint,
            "start": index.start, "start_line": index.start_line, "sessions": sessions}
    workspace.state_dir.mkdir(exist_ok=True)
    atomic_write(index_file(workspace), json.dumps(data, separators=(",", ":")) + "\n")


def _load(workspace: Workspace) -> HistoryIndex:
    """The saved index; an empty one when there is none or it cannot be trusted (it is rebuilt, costing time only)."""
    try:
        data = load_file(index_file(workspace), max_bytes=MAX_INDEX_BYTES)
        if data.get("format") != FORMAT:
            return HistoryIndex()
        sessions = {str(key): Session(set(map(str, s["terms"])), set(map(str, s["names"])), str(s["day"]),
                                      int(s["last"]), [Indexed(int(offset), int(line), tuple(map(str, held)))
                                                       for offset, line, held in s["recent"]])
                    for key, s in data["sessions"].items()}
        return HistoryIndex(int(data["offset"]), int(data["line"]), str(data["fingerprint"]), sessions,
                            int(data.get("start", 0)), int(data.get("start_line", 0)))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return HistoryIndex()
