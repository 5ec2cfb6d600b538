"""The turn store: every message ingest took in, redacted as history is, where `recall` can search it.

History holds what a dream should weigh (tagged facts and a gist per chunk); rules and models leave most of what
was said out of it, so a question whose answer only one turn held would find nothing once memory is consolidated.
Ingest therefore also keeps each message it takes in — the person's and the agent's, every named speaker — in
`.nanodream/turns/`, JSON Lines in numbered segments (`000001.jsonl`, …) of about SEGMENT_BYTES, one line a turn:

    {"key", "cursor", "session", "day", "time", "role", "speaker", "text"}

`cursor` is the history entry the message went into, `day` and `time` when it was said on the person's clock
(the entry's time when the transcript has none). It is nanodream's own file, not the host's: never loaded into a
prompt, never dreamed, never committed or carried to another machine (nothing under `.nanodream/` is). Written
once per message, after history and under the same journal (ingest/journal.py), so a crash neither loses a turn
nor keeps one twice. Bounded: a turn keeps at most TEXT_CHARS characters, and the store at most the newest
`keep_turns_mb` (whole oldest segments dropped, said so; 0 keeps none). `forget` takes a session's turns out.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from nanodream import boundedjson
from nanodream.atomic import atomic_write, open_binary, open_plain
from nanodream.backlog.history import raw_lines
from nanodream.workspace import Workspace

SEGMENT_BYTES = 1024 * 1024  # a segment is closed past this: recall re-reads only the open one after an ingest
TEXT_CHARS = 16_000  # a pasted log or a long answer is kept to this; what follows is said to be cut
LINE_BYTES = boundedjson.LINE_BYTES
_SEGMENT = re.compile(r"\d{6}\.jsonl")
_FIELDS = {"key": str, "cursor": int, "session": str, "day": str, "time": str, "role": str, "speaker": str,
           "text": str}


def turns_dir(workspace: Workspace) -> Path:
    return workspace.state_dir / "turns"


@dataclass(frozen=True)
class Turn:
    """One message as the store keeps it (the module's docstring says what each field holds)."""

    key: str
    cursor: int
    session: str
    day: str  # YYYY-MM-DD
    time: str  # HH:MM, or "" when unknown
    role: str  # user | assistant
    speaker: str  # a named speaker (an OpenAI `name`, a LoCoMo speaker), "" for the person and their agent
    text: str

    @property
    def shown(self) -> str:
        """As a transcript shows it: a named speaker's name in front ("Caroline: I went …")."""
        return f"{self.speaker}: {self.text}" if self.speaker else self.text

    @property
    def said(self) -> str:
        """Where and when, as recall shows a turn: "said on 2023-05-08 in openai:web-42"."""
        return f"said on {self.day} in {self.session}"

    def line(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False) + "\n"


def kept_text(text: str) -> str:
    """`text` as the store keeps it: at most TEXT_CHARS characters, a longer one cut and said so."""
    if len(text) <= TEXT_CHARS:
        return text
    return f"{text[:TEXT_CHARS]} […{len(text) - TEXT_CHARS} characters not kept]"


def parse_turn(data: bytes) -> Turn | None:
    """One stored line as a Turn; None for anything else (a line torn by a crash, a hand edit)."""
    try:
        record = boundedjson.loads(data, max_bytes=LINE_BYTES)
    except ValueError:
        return None
    if not isinstance(record, dict) or any(type(record.get(name)) is not kind for name, kind in _FIELDS.items()):
        return None
    return Turn(**{name: record[name] for name in _FIELDS})


def segments(workspace: Workspace) -> list[Path]:
    """The store's segments, oldest first (plain files only: a link is never followed)."""
    folder = turns_dir(workspace)
    if not folder.is_dir() or folder.is_symlink():
        return []
    found = [path for path in folder.iterdir() if _SEGMENT.fullmatch(path.name) and not path.is_symlink()]
    return sorted(path for path in found if path.is_file())


@dataclass(frozen=True)
class Stored:
    """Where one turn lives: its segment, the byte it starts at and its 1-based line."""

    offset: int
    line: int
    turn: Turn


def read_segment(path: Path) -> Iterator[Stored]:
    """Every turn of a segment in order; lines that are not turns are passed over."""
    with open_binary(path) as handle:
        for raw in raw_lines(handle, max_line=LINE_BYTES):
            if raw.terminated and not raw.oversized and (turn := parse_turn(raw.data)) is not None:
                yield Stored(raw.start, raw.number, turn)


def turn_at(path: Path, offset: int) -> Turn | None:
    """The turn whose line starts at `offset` of `path`, None when it is gone (dropped, forgotten)."""
    try:
        with open_binary(path) as handle:
            handle.seek(offset)
            return parse_turn(handle.readline(LINE_BYTES + 2))
    except OSError:
        return None


# Writing: one append per ingest pass, recorded in its journal first ------------------------------------------


@dataclass(frozen=True)
class Append:
    """Where a pass's turns go: a segment (by name) and the size it had before them."""

    segment: str
    start: int


def plan_append(workspace: Workspace) -> Append:
    """The open segment and its size, or the next one when it is full (the first: 000001.jsonl)."""
    held = segments(workspace)
    if held and held[-1].stat().st_size < SEGMENT_BYTES:
        return Append(held[-1].name, held[-1].stat().st_size)
    number = int(held[-1].stem) + 1 if held else 1
    return Append(f"{number:06d}.jsonl", 0)


def settle(workspace: Workspace, where: Append, payload: bytes) -> None:
    """Make the segment end with exactly `payload` after `where.start`; safe to repeat (a recovery does).

    Ingest is the store's one writer and runs behind the workspace's door, so nothing but this pass (or its
    own interrupted attempt) can have written after `start`: what is there is cut back and written whole.
    """
    folder = turns_dir(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    fd = open_plain(folder / where.segment, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        size = os.fstat(fd).st_size
        start = min(where.start, size)  # forget shortened it since: the turns go at its end
        if size == start + len(payload) and os.pread(fd, len(payload), start) == payload:
            return
        os.ftruncate(fd, start)
        written = os.pwrite(fd, payload, start)
        while written < len(payload):
            written += os.pwrite(fd, payload[written:], start + written)
        os.fsync(fd)
    finally:
        os.close(fd)


def undo(workspace: Workspace, where: Append) -> None:
    """Cut the segment back to its size before an interrupted pass that never reached history."""
    path = turns_dir(workspace) / where.segment
    try:
        fd = open_plain(path, os.O_RDWR)
    except FileNotFoundError:
        return
    try:
        if os.fstat(fd).st_size > where.start:
            os.ftruncate(fd, where.start)
            os.fsync(fd)
    finally:
        os.close(fd)


# Bounds and forgetting ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dropped:
    turns: int = 0
    before: str = ""  # the day of the newest turn dropped


def keep_newest(workspace: Workspace, max_bytes: int) -> Dropped:
    """Drop whole oldest segments while the store holds more than `max_bytes` (the open one too when 0)."""
    held = segments(workspace)
    total = sum(path.stat().st_size for path in held)
    turns, before = 0, ""
    for path in held:
        if total <= max_bytes:
            break
        said = [stored.turn for stored in read_segment(path)]
        turns, before = turns + len(said), max([before, *(turn.day for turn in said)])
        total -= path.stat().st_size
        path.unlink()
    return Dropped(turns, before)


def remove(workspace: Workspace, chosen: Callable[[Turn], bool], *, dry_run: bool = False) -> int:
    """Take the turns `chosen` accepts out of every segment (each rewritten atomically); how many there were."""
    removed = 0
    for path in segments(workspace):
        kept: list[str] = []
        gone = 0
        for stored in read_segment(path):
            if chosen(stored.turn):
                gone += 1
            else:
                kept.append(stored.turn.line())
        if gone and not dry_run:
            atomic_write(path, "".join(kept))
        removed += gone
    return removed

