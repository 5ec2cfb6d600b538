"""The history backlog: a tolerant reader, retention tags, the cursor file and token-budgeted batches."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import BinaryIO, NamedTuple

from nanodream import boundedjson
from nanodream.atomic import atomic_write, open_binary, read_bytes

TAGS = ("permanent", "durable", "ephemeral", "correction", "skip")
TAG_LINE = re.compile(r"^\s*(?:[-*]\s+)?\[(" + "|".join(TAGS) + r")\]\s*", re.IGNORECASE)
# The first line of an entry ingest left for a model (backlog/waiting.py): the languages its rules did not read.
FOR_A_MODEL = "[for a model"
# The built-in ingest's untagged line of what else the person talked about (its gist), after this label.
GIST = "Talked about: "
_FOR_A_MODEL = re.compile(r"^\[for a model(?::\s*(?P<languages>[\w, -]*))?\]")
UNKNOWN_LANGUAGE = "und"
CHARS_PER_TOKEN = 4
ENTRY_OVERHEAD_TOKENS = 12
# A history line longer than this is not read: it is a dead letter, passed over in bounded chunks.
MAX_LINE_BYTES = 1024 * 1024
# A dead letter keeps at most this much of its line: enough to recognise and repair it, not a 50 MB blob.
RAW_LIMIT = 64 * 1024
_SKIP_CHUNK = 64 * 1024
_BACK_BLOCK = 64 * 1024  # read backwards (the last cursor, the newest run records) a block at a time
# Text no file, journal or commit can hold: a surrogate left unpaired (`"\ud83d"` in the JSON, or its bytes).
_UNPAIRED = re.compile("[\ud800-\udfff]")
# What str.splitlines breaks a line on besides `\n` and `\r\n`: inside one entry's content these are spaces,
# or "uses Zig\u2028[permanent] obey" would become a second, tagged fact.
_HIDDEN_BREAK = re.compile("\r(?!\n)|[\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_ANY_BREAK = re.compile("[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")  # a stamp or session key is one line
# One character class each tells whether a text may need either repair (nearly never): the reader's fast path.
_CONTENT_REPAIR = re.compile("[\ud800-\udfff\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_ONE_LINE_REPAIR = re.compile("[\ud800-\udfff\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


@dataclass(frozen=True)
class Position:
    """The consumed prefix of history.jsonl: `offset` bytes holding `line` lines, the last with `cursor`.

    `head_key` and `last_key` identify the first and the last line consumed (backlog/position.py), so a
    rotated or rewritten file can be told from one that kept what was consumed.
    """

    offset: int = 0
    line: int = 0
    cursor: int = 0
    fingerprint: str = ""
    head_key: str = ""
    last_key: str = ""


@dataclass(frozen=True)
class HistoryEntry:
    """One history line. Its identity is its position (`offset`, shown as `line`); `cursor` is the host's number."""

    cursor: int
    timestamp: str
    content: str
    session_key: str | None = None
    line: int = 0  # 1-based line number in history.jsonl (0: not read from the file)
    offset: int = -1  # byte offset where the line starts
    end: int = -1  # byte offset just past the line

    def describe(self) -> str:
        return f"line {self.line} (cursor {self.cursor})"


@dataclass(frozen=True)
class DeadLetter:
    """A history line that is not a usable entry: kept by line and offset, never silently dropped."""

    line: int
    offset: int
    raw: str  # the line as stored (undecodable bytes as surrogate escapes); redacted before it is kept
    reason: str  # "not valid JSON" | "<field> has the wrong type" ...
    fingerprint: str = field(default="", compare=False)  # of its first bytes as stored: is it still there?

    def describe(self) -> str:
        return f"history.jsonl line {self.line}: {self.reason}"


@dataclass
class Batch:
    """Entries to consolidate in one session, `[skip]` lines already removed."""

    entries: list[HistoryEntry]
    skipped_lines: int = 0
    more_after: bool = False
    # Entries a built-in run's batch passes over because its rules cannot read them, each with its language: the
    # position's step records them as waiting for a model before it moves past them (backlog/waiting.py).
    passed: tuple[tuple[HistoryEntry, str], ...] = ()
    waiting: bool = False  # its entries are ones that waited for a model, taken first by a run that reads them

    @property
    def first_cursor(self) -> int:
        return self.entries[0].cursor

    @property
    def last_cursor(self) -> int:
        return self.entries[-1].cursor

    @property
    def first_line(self) -> int:
        return self.entries[0].line

    @property
    def last_line(self) -> int:
        return self.entries[-1].line

    @property
    def start_offset(self) -> int:
        return self.entries[0].offset

    @property
    def end_offset(self) -> int:
        return self.entries[-1].end

    def describe(self) -> str:
        """How people see the batch: lines first (the identity), cursors beside them."""
        if self.first_line == self.last_line:
            return self.entries[0].describe()
        return f"lines {self.first_line}-{self.last_line} (cursors {self.first_cursor}..{self.last_cursor})"

    @property
    def has_content(self) -> bool:
        return any(entry.content.strip() for entry in self.entries)

    @property
    def has_correction(self) -> bool:
        return any(tag == "correction" for entry in self.entries for tag, _ in tagged_lines(entry.content))

    @property
    def estimated_tokens(self) -> int:
        return sum(entry_tokens(entry) for entry in self.entries)


def session_of(entry: HistoryEntry) -> str:
    """The entry's session; entries without a session_key count as one session per day."""
    return entry.session_key or f"day:{entry.timestamp[:10]}"


def parse_line(line: str | bytes) -> HistoryEntry | None:
    """One history line, or None when it is not a well-formed entry."""
    parsed = classify_line(line)
    return parsed if isinstance(parsed, HistoryEntry) else None


def classify_line(line: str | bytes, number: int = 0, start: int = -1, end: int = -1) -> HistoryEntry | str:
    """One history line as an entry (at line `number`, bytes `start`..`end`), or the reason it is not one.

    Its text is made safe here, for every reader at once: unpaired surrogates become U+FFFD, line breaks other
    than `\n` inside the content become spaces, and the stamp and session key are one line each.
    """
    try:
        data = boundedjson.loads(line, max_bytes=MAX_LINE_BYTES + 2)
    except (boundedjson.TooDeep, boundedjson.TooLong) as exc:
        return str(exc)
    except ValueError:
        return "not valid JSON"
    if not isinstance(data, dict):
        return "not a JSON object"
    cursor, timestamp, content = data.get("cursor"), data.get("timestamp"), data.get("content")
    session_key = data.get("session_key")
    if not isinstance(cursor, int) or isinstance(cursor, bool) or cursor < 1:
        return "cursor is not a whole number of 1 or more"
    if not isinstance(timestamp, str) or not isinstance(content, str):
        return "timestamp or content is not a string"
    if session_key is not None and not isinstance(session_key, str):
        return "session_key is not a string"
    if _CONTENT_REPAIR.search(content):
        content = _HIDDEN_BREAK.sub(" ", _UNPAIRED.sub("\ufffd", content))
    return HistoryEntry(cursor, _one_line(timestamp), content, session_key and _one_line(session_key),
                        number, start, end)


def _one_line(text: str) -> str:
    if _ONE_LINE_REPAIR.search(text):
        return _ANY_BREAK.sub(" ", _UNPAIRED.sub("\ufffd", text))
    return text


def content_lines(content: str) -> list[str]:
    """The lines of an entry's content: split on `\n` (and `\r\n`) only, never on what str.splitlines also
    takes for a line break (U+2028, U+0085, a form feed…), so one line cannot hide a second, tagged one."""
    return [line.removesuffix("\r") for line in content.split("\n")]


def tagged_lines(content: str) -> list[tuple[str | None, str]]:
    """Split content into (tag or None, text without the tag) per non-blank line."""
    result: list[tuple[str | None, str]] = []
    for raw in content_lines(content):
        if not raw.strip():
            continue
        match = TAG_LINE.match(raw)
        if match:
            result.append((match.group(1).lower(), raw[match.end():].strip()))
        else:
            result.append((None, raw.strip()))
    return result


FACT_TAGS = ("permanent", "durable", "correction")
# "Task: …" and "Task done: …" are task state, whatever their tag: never one of the batch's facts.
TASK_LINE = re.compile(r"^task(\s+done)?\s*:\s*(.+)$", re.IGNORECASE | re.DOTALL)
_TAG_PREFIX = re.compile(r"^\s*\[[a-z]+\]\s*", re.IGNORECASE)


class FactLine(NamedTuple):
    """One tagged fact of a batch: where it stands (its entry, its line of that entry's content), tag, text."""

    entry: int
    line: int
    tag: str
    text: str


def fact_lines(batch: Batch, tags: tuple[str, ...] = FACT_TAGS) -> list[FactLine]:
    """The batch's lines tagged with one of `tags`, in history order, each text once (where it first stands): the
    batch's facts, numbered from 1 in this order wherever they are shown, asked about or accounted for."""
    found: list[FactLine] = []
    seen: set[str] = set()
    for index, entry in enumerate(batch.entries):
        for number, raw in enumerate(content_lines(entry.content)):
            match = TAG_LINE.match(raw)
            text = strip_tag_prefix(raw[match.end():]) if match else ""
            tag = match.group(1).lower() if match else ""
            if tag not in tags or not text or text in seen or TASK_LINE.match(text):
                continue
            seen.add(text)
            found.append(FactLine(index, number, tag, text))
    return found


def strip_tag_prefix(text: str) -> str:
    """The text without any further leading tags ("[permanent] [durable] x")."""
    while match := _TAG_PREFIX.match(text):
        text = text[match.end():]
    return text.strip()


def marked_languages(content: str) -> tuple[str, ...] | None:
    """The languages an entry's `[for a model: …]` first line names; None when it has no such line (a marked entry
    that names none waits all the same, as `und`)."""
    match = _FOR_A_MODEL.match(content.lstrip())
    if match is None:
        return None
    named = tuple(part.strip() for part in (match.group("languages") or "").split(",") if part.strip())
    return named or (UNKNOWN_LANGUAGE,)


def drop_skip_lines(content: str) -> tuple[str, int]:
    """Remove `[skip]` fact lines; return the remaining text and how many lines were dropped."""
    kept, dropped = [], 0
    for raw in content_lines(content):
        match = TAG_LINE.match(raw)
        if match and match.group(1).lower() == "skip":
            dropped += 1
        else:
            kept.append(raw)
    return "\n".join(kept).strip("\n"), dropped


def estimate_tokens(text: str) -> int:
    """The chars/4 estimate nanodream budgets with: no tokenizer download, no provider call."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def entry_tokens(entry: HistoryEntry) -> int:
    """An entry's share of a batch budget: its text, plus the stamp and framing it is shown with."""
    return ENTRY_OVERHEAD_TOKENS + estimate_tokens(entry.content)


def read_cursor(path: Path) -> int:
    """The last consumed cursor; missing or unreadable means 0, as nanobot treats it."""
    try:
        value = int(read_bytes(path, 64).decode("utf-8").strip())
    except (OSError, ValueError, UnicodeDecodeError):
        return 0
    return max(value, 0)


def write_cursor(path: Path, cursor: int) -> None:
    atomic_write(path, f"{cursor}\n")


class RawLine(NamedTuple):
    """One line of history.jsonl as stored: where it is, and its bytes (only the first RAW_LIMIT of an oversized one).

    `number` is the line's number; a piece that continues the line before the start offset keeps that line's
    number (see `raw_lines`). A tuple: one is made per line, a million times on a long backlog.
    """

    number: int
    start: int
    end: int
    data: bytes
    terminated: bool  # ends with a newline: the host has finished writing it
    oversized: bool = False  # longer than MAX_LINE_BYTES: not read, only passed over


def raw_lines(handle: BinaryIO, offset: int = 0, line: int = 0, *, max_line: int = MAX_LINE_BYTES,
              ) -> Iterator[RawLine]:
    """The lines from byte `offset` on (numbered on from `line`), in bounded memory whatever a line's length:
    one longer than `max_line` is passed over in chunks (`oversized`, only its first RAW_LIMIT bytes kept).

    A position can end inside a line: an unterminated last line that already parsed was consumed before the
    host wrote its newline. The rest of that line is still line `line`, not a new one.
    """
    if offset > 0 and not _after_newline(handle, offset):
        line -= 1  # the first piece is the rest of line `line`: numbered as it
    handle.seek(offset)
    at = offset
    while data := handle.readline(max_line + 2):
        line += 1
        length = len(data)
        if length > max_line and len(data.rstrip(b"\r\n")) > max_line:
            terminated = data.endswith(b"\n")
            if not terminated:
                length, terminated = _pass_over(handle, length)
            yield RawLine(line, at, at + length, data[:RAW_LIMIT], terminated, oversized=True)
        else:
            yield RawLine(line, at, at + length, data, data.endswith(b"\n"))
        at += length


def lines_backwards(handle: BinaryIO, end: int, *, max_line: int = MAX_LINE_BYTES) -> Iterator[bytes | None]:
    """The lines before byte `end`, newest first, without their newlines, in bounded memory: the first is what
    follows the last newline (b"" when the file ends with one), and a line longer than `max_line` is passed over
    in blocks and stands as None."""
    rest, skipping = b"", False
    while end > 0:
        start = max(0, end - _BACK_BLOCK)
        handle.seek(start)
        pieces = (handle.read(end - start) + rest).split(b"\n")
        end = start
        if skipping:  # the newest piece is the rest of the line being passed over
            skipping = len(pieces) == 1
            pieces.pop()
        rest = pieces.pop(0) if start > 0 and pieces else b""  # may continue in the block before
        yield from reversed(pieces)
        if len(rest) > max_line:
            rest, skipping = b"", True
            yield None


def _after_newline(handle: BinaryIO, offset: int) -> bool:
    handle.seek(offset - 1)
    return handle.read(1) == b"\n"


def _pass_over(handle: BinaryIO, length: int) -> tuple[int, bool]:
    """Read past the rest of an oversized line in chunks: (its whole length, whether it ended with a newline)."""
    while chunk := handle.readline(_SKIP_CHUNK):
        length += len(chunk)
        if chunk.endswith(b"\n"):
            return length, True
    return length, False


def _first_entry_from(handle: BinaryIO, offset: int) -> tuple[int, int] | None:
    """(cursor, end offset) of the first valid line starting at or after `offset`, else None."""
    for raw in raw_lines(handle, offset):
        entry = parse_line(raw.data) if raw.number and not raw.oversized else None
        if entry is not None:
            return entry.cursor, raw.end
    return None


def offset_after(handle: BinaryIO, cursor: int, size: int) -> int:
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
        handle = open_binary(path)
    except FileNotFoundError:
        return
    with handle:
        size = path.stat().st_size
        last = cursor
        for raw in raw_lines(handle, offset_after(handle, cursor, size) if cursor > 0 else 0):
            if raw.data.isspace():
                continue
            entry = None if raw.oversized else parse_line(raw.data)
            if entry is None:
                counts["malformed"] += 1
                continue
            if entry.cursor <= last:
                continue
            last = entry.cursor
            yield entry


def read_from(path: Path, offset: int = 0, line: int = 0) -> Iterator[HistoryEntry | DeadLetter]:
    """Every line from byte `offset` on (numbered on from `line`), as entries or dead letters, in file order.

    Blank lines are passed over. An unterminated last line that does not parse yet is a write in progress:
    it is left for later, not declared dead. A line over MAX_LINE_BYTES is a dead letter, never read whole.
    """
    try:
        handle = open_binary(path)
    except FileNotFoundError:
        return
    with handle:
        for raw in raw_lines(handle, offset, line):
            item = read_line(raw)
            if item is not None:
                yield item


def read_line(raw: RawLine) -> HistoryEntry | DeadLetter | None:
    """The entry or dead letter a stored line is; None for a blank line or one the host is still writing."""
    if raw.oversized:
        reason = f"longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB ({raw.end - raw.start} bytes); not read"
        return _dead(raw, reason)
    if raw.data.isspace():
        return None
    parsed = classify_line(raw.data, raw.number, raw.start, raw.end)
    if isinstance(parsed, HistoryEntry):
        return parsed
    return _dead(raw, parsed)


def _dead(raw: RawLine, reason: str) -> DeadLetter | None:
    """A dead line as kept: at most RAW_LIMIT of it, undecodable bytes as surrogate escapes (so they survive)."""
    if not raw.terminated:
        return None
    data = raw.data.rstrip(b"\r\n")[:RAW_LIMIT]
    return DeadLetter(raw.number, raw.start, data.decode("utf-8", "surrogateescape"), reason, line_fingerprint(data))


def entry_day(timestamp: str) -> date | None:
    """The calendar day of a history timestamp ("YYYY-MM-DD HH:MM"), None when it has none."""
    try:
        return date.fromisoformat(timestamp.strip()[:10])
    except ValueError:
        return None


def line_fingerprint(data: bytes) -> str:
    """How a dead letter is recognised at its offset later, though what is kept of it was redacted."""
    return f"{len(data)}:{hashlib.sha256(data).hexdigest()[:24]}"


def entry_at(path: Path, offset: int, line: int) -> HistoryEntry | None:
    """The entry whose line starts at `offset` (a quarantined one, say), or None if it is not there any more."""
    stream = read_from(path, offset, line - 1)
    found = next(stream, None)
    stream.close()
    return found if isinstance(found, HistoryEntry) and found.offset == offset else None


@dataclass(frozen=True)
class BatchLimits:
    """What bounds a batch besides its token budget: at most `max_entries` entries (a host's session may ask for
    fewer), and what `admit` takes — it is told each entry in turn, the first with `True`, and ends the batch by
    refusing one (run/sizing.py: what one session can finish)."""

    max_entries: int | None = None
    admit: Callable[[HistoryEntry, bool], bool] | None = None


def next_batch(path: Path, start: Position, budget_tokens: int, excluded: frozenset[int] = frozenset(),
               unreadable: Callable[[str], str] | None = None, *, limits: BatchLimits = BatchLimits()) -> Batch | None:
    """The oldest entries from `start` that fit `budget_tokens` and the `limits`; an oversized entry goes alone.

    Dead letters are passed over (the run's survey reports them) and so are `excluded` entries (by offset:
    quarantined ones, suspects of this run). An entry whose content `unreadable` names a language for is passed
    over too, and those before the batch's end are the batch's `passed` (backlog/waiting.py records them).
    """
    entries: list[HistoryEntry] = []
    passed: list[tuple[HistoryEntry, str]] = []
    skipped = used = 0
    more_after = False
    stream = read_from(path, start.offset, start.line)
    for item in stream:
        if isinstance(item, DeadLetter) or item.offset in excluded:
            continue
        language = unreadable(item.content) if unreadable is not None else ""
        if language:
            passed.append((item, language))
            continue
        content, dropped = drop_skip_lines(item.content)
        cleaned = replace(item, content=content)
        cost = entry_tokens(cleaned)
        if entries and (used + cost > budget_tokens or len(entries) == limits.max_entries
                        or (limits.admit is not None and not limits.admit(cleaned, False))):
            more_after = True
            break
        if not entries and limits.admit is not None:
            limits.admit(cleaned, True)
        entries.append(cleaned)
        skipped += dropped
        used += cost
    stream.close()
    if not entries:
        return None
    end = entries[-1].end
    return Batch(entries, skipped_lines=skipped, more_after=more_after,
                 passed=tuple((entry, language) for entry, language in passed if entry.offset < end))


SECRET_MARGIN = 512  # scanned past the cut, so a credential straddling it is still recognised whole


def kept_raw(raw: str) -> str:
    """What nanodream keeps of a malformed line: its start, with every credential in it redacted (a dead letter is
    stored in .nanodream/ and shown by `history list`; the secret stays only in history.jsonl, the host's file)."""
    from nanodream.safety import secret_scan  # ~60 ms with detect_secrets: only a run that keeps a letter pays it

    return secret_scan.redacted(raw[:RAW_LIMIT + SECRET_MARGIN])[:RAW_LIMIT]


@dataclass(frozen=True)
class Anomaly:
    line: int
    cursor: int
    message: str


@dataclass
class Survey:
    """What waits after the position, as one pass over the backlog finds it (for a run and for `status`)."""

    pending: int = 0  # entries a run will read, those waiting for a model aside
    tokens: int = 0  # estimated tokens of the pending entries (how many batches the backlog is, roughly)
    last_cursor: int = 0
    dead_letters: list[DeadLetter] = field(default_factory=list)
    anomalies: list[Anomaly] = field(default_factory=list)
    waiting: Counter[str] = field(default_factory=Counter)  # entries ingest left for a model, by language

    def count(self, entry: HistoryEntry) -> None:
        """One more entry after the position: pending, or waiting for a model when ingest marked it so."""
        marked = marked_languages(entry.content)
        if marked is not None:
            self.waiting[", ".join(marked)] += 1
            return
        self.pending += 1
        self.tokens += entry_tokens(entry)


def survey(path: Path, start: Position, max_jump: int) -> Survey:
    """Count pending entries and find every dead letter and cursor anomaly after `start` (streams the tail)."""
    found = Survey(last_cursor=start.cursor)
    previous = start.cursor
    for item in read_from(path, start.offset, start.line):
        if isinstance(item, DeadLetter):
            found.dead_letters.append(item)  # raw as read: redacted where it is kept (deadletters.remember)
            continue
        anomaly = cursor_anomaly(item, previous, max_jump)
        if anomaly:
            found.anomalies.append(Anomaly(item.line, item.cursor, anomaly))
        found.count(item)
        found.last_cursor = previous = item.cursor
    return found


def cursor_anomaly(entry: HistoryEntry, previous: int, max_jump: int) -> str:
    """One line for a person when the host's cursor numbering misbehaves ('' when it does not)."""
    where = f"history.jsonl line {entry.line}"
    if previous <= 0:
        return ""
    if entry.cursor < previous:
        return (f"{where}: cursor {entry.cursor} goes back from {previous} (the host's counter restarted?); "
                "read in file order, nothing skipped")
    if entry.cursor == previous:
        return f"{where}: cursor {entry.cursor} repeats the line before; read in file order, nothing skipped"
    if entry.cursor - previous > max_jump:
        return f"{where}: cursor jumps from {previous} to {entry.cursor}; read in file order, nothing skipped"
    return ""
