"""The words every layer shares: exit codes, outcomes, reports and their JSON, the run record, run ids, trailers.

One spelling each, so the CLI, the slash commands, the scheduler and the records cannot drift apart.
Imports nothing from nanodream: any module may use it, including on `status`'s fast path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import UTC, date, datetime
from enum import Enum, IntEnum, StrEnum
from functools import cache
from typing import Any

from nanodream import clock


class ExitCode(IntEnum):
    """What a nanodream process exits with (documented in README's CLI section)."""

    OK = 0
    FAILED = 1  # the run or command failed; the workspace is as it was
    USAGE = 2  # bad arguments, configuration or workspace
    UNAVAILABLE = 69  # a service nanodream needs is down: Redis, for the fleet commands (EX_UNAVAILABLE)
    BUSY = 75  # another run holds the workspace (EX_TEMPFAIL): try again later
    NEEDS_PERSON = 78  # git mid-operation, a conflict, a credential, a full file, a rewritten history: no retry helps
    INTERRUPTED = 130  # a second Ctrl-C/SIGTERM abandoned the batch in progress


class Outcome(StrEnum):
    """How a run, a batch or a restore ended; the value is what records and JSON carry."""

    COMMITTED = "committed"
    NO_CHANGE = "no-change"  # the batch was consumed but nothing was worth keeping
    NOTHING_TO_DO = "nothing-to-do"
    DRY_RUN = "dry-run"
    BUSY = "busy"
    BLOCKED = "blocked"  # nothing was written: the workspace needs a person first (see ExitCode.NEEDS_PERSON)
    FAILED = "failed"
    MODEL_NO_OP = "model-no-op"  # the model changed nothing twice while the batch held facts memory lacks
    MISCONFIGURED = "misconfigured"  # the model cannot be called as configured (a missing key): a person must act
    SPLIT = "split"  # a failing batch was split into halves to find a poisoned entry
    QUARANTINED = "quarantined"
    RESTORED = "restored"
    REFUSED = "refused"  # a person's change that cannot go ahead as asked; nothing was written
    ACCEPTED = "accepted"  # review proposals landed as commits
    REJECTED = "rejected"  # review proposals dropped, their facts recorded as rejected
    FORGOTTEN = "forgotten"  # what some history entries taught was taken out of memory
    PINNED = "pinned"
    UNPINNED = "unpinned"
    CREATED = "created"  # a file a person asked for (the prompt override) now exists
    REMOVED = "removed"
    INGESTED = "ingested"  # transcripts became history entries
    REINFORCED = "reinforced"  # a person counted one more sighting for a hypothesis line
    PROMOTED = "promoted"  # a hypothesis line became a plain preference
    STALE = "stale"  # a hypothesis line was marked stale
    OPENED = "opened"  # a host's dream session holds the workspace and waits for the host's edits (run/hosted.py)
    ASKED = "asked"  # a host's dream session was asked about facts it left open; still open for one more round
    ABORTED = "aborted"  # a host's dream session ended with nothing applied (abort, or idle expiry)
    SYNCED = "synced"  # memory merged with the remote's, and the remote holds it too (docs/sync.md)


class EntryOutcome(StrEnum):
    """Why a history entry was not consumed the ordinary way (run records' `notable`, `status`)."""

    SKIPPED = "skipped"  # only [skip] lines
    MALFORMED = "malformed"  # not an entry at all: kept as a dead letter
    QUARANTINED = "quarantined"
    ANOMALY = "anomaly"  # its cursor went back, repeated or jumped; read in file order all the same
    WAITING = "waiting"  # the built-in rules cannot read it: it waits for a model (backlog/waiting.py)


# The trigger of a fleet job's runs: a tenant's workspace, whose [[ingest]] paths the worker must not follow.
FLEET_TRIGGER = "fleet"
# The trigger of a dream whose model is a host agent driving the session over MCP or Python (run/hosted.py).
HOST_TRIGGER = "host"

# The transcript formats `nanodream ingest` reads (`--format`, `format =` of an [[ingest]] source).
INGEST_FORMATS = ("nanobot", "openai", "claude-code", "codex", "openclaw")

# The reason's first word when a batch failed because a file is full and nothing may move: not a poisoned entry.
CAPACITY = "capacity"

# Batches that consumed their history (the cursor moved past them).
CONSUMED = frozenset({Outcome.COMMITTED, Outcome.NO_CHANGE})
# Runs that ended well, whether or not there was anything to do.
SUCCEEDED = CONSUMED | {Outcome.NOTHING_TO_DO}
# Batches and runs that failed: nothing of the batch was applied and the cursor did not move. Only `failed`
# counts toward splitting a batch and quarantining an entry; the others say nothing about the history.
FAILURES = frozenset({Outcome.FAILED, Outcome.MODEL_NO_OP, Outcome.MISCONFIGURED})


def exit_code_for(outcome: str) -> ExitCode:
    codes = {Outcome.BUSY: ExitCode.BUSY, Outcome.FAILED: ExitCode.FAILED, Outcome.BLOCKED: ExitCode.NEEDS_PERSON,
             Outcome.REFUSED: ExitCode.FAILED, Outcome.MODEL_NO_OP: ExitCode.FAILED,
             Outcome.MISCONFIGURED: ExitCode.USAGE}
    return codes.get(outcome, ExitCode.OK)


class Refused(Exception):
    """Why a change cannot go ahead — busy, needs a person, unreadable state, bad target — and the exit code.

    Every writer turns its refusals into this one shape, so every front end says them the same way.
    """

    def __init__(self, reason: str, hint: str = "", exit_code: int = ExitCode.FAILED) -> None:
        super().__init__(reason)
        self.reason, self.hint, self.exit_code = reason, hint, ExitCode(exit_code)

    @property
    def outcome(self) -> Outcome:
        return {ExitCode.BUSY: Outcome.BUSY, ExitCode.NEEDS_PERSON: Outcome.BLOCKED}.get(self.exit_code,
                                                                                         Outcome.REFUSED)


# declared JSON -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """How a declared value's JSON differs from its dataclass fields, said once on the class (`json_shape`).

    A class's shape adds to its bases': `hidden` fields stay out, `derived` properties go in (their return
    annotation is their type), `renamed` fields take another key, `rounded` floats keep that many digits,
    `spread` fields lend their own keys to this object, and `inner` names the one field whose JSON is the whole
    JSON while it is not None (an envelope: a report around a domain answer).
    """

    hidden: tuple[str, ...] = ()
    derived: tuple[str, ...] = ()
    renamed: tuple[tuple[str, str], ...] = ()
    rounded: tuple[tuple[str, int], ...] = ()
    spread: tuple[str, ...] = ()
    inner: str | None = None

    def merged(self, other: Shape) -> Shape:
        """This shape with `other` (a subclass's) on top."""
        return Shape(self.hidden + other.hidden, self.derived + other.derived, self.renamed + other.renamed,
                     self.rounded + other.rounded, self.spread + other.spread, other.inner or self.inner)


@cache
def shape_of(cls: type) -> Shape:
    """The shape a class declares with its bases', base first; a plain dataclass has the empty shape."""
    shape = Shape()
    for klass in reversed(cls.__mro__):
        own = klass.__dict__.get("json_shape")
        if isinstance(own, Shape):
            shape = shape.merged(own)
    return shape


def json_keys(cls: type) -> list[tuple[str, str]]:
    """(key, attribute) of a declared class's JSON object in order, spread fields left to the caller."""
    shape = shape_of(cls)
    renamed = dict(shape.renamed)
    names = [f.name for f in fields(cls)] + list(shape.derived)
    return [(renamed.get(name, name), name) for name in dict.fromkeys(names)
            if name not in shape.hidden and name not in shape.spread]


def as_json(value: Any) -> Any:
    """`value` as the JSON it is declared to be: dataclasses by their fields and shape, containers item by item,
    enums as their value, times and days as ISO 8601; anything else as it is (json.dumps says the rest)."""
    if is_dataclass(value) and not isinstance(value, type):
        return _object_json(value)
    if isinstance(value, list | tuple):
        return [as_json(item) for item in value]
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat(timespec="seconds")
    if isinstance(value, date):
        return value.isoformat()
    return value


def _object_json(value: Any) -> dict[str, Any]:
    shape = shape_of(type(value))
    if shape.inner is not None and getattr(value, shape.inner) is not None:
        return as_json(getattr(value, shape.inner))
    digits = dict(shape.rounded)
    data: dict[str, Any] = {}
    for name in shape.spread:
        data.update(as_json(getattr(value, name)) or {})
    for key, name in json_keys(type(value)):
        item = getattr(value, name)
        data[key] = round(item, digits[name]) if name in digits and isinstance(item, float) else as_json(item)
    return data


class Declared:
    """A value whose JSON is declared by its dataclass fields and its `json_shape`: never written by hand."""

    def to_json(self) -> Any:
        return as_json(self)


@dataclass(kw_only=True)
class Report(Declared):
    """What every action tells its caller: how it ended, why, what to do next, and the exit code that says so.

    The exit code follows the outcome unless set (a refusal's usage error is exit 2, not 1). Its JSON is every
    field, with `exit_code` in place of the internal `code`.
    """

    json_shape = Shape(hidden=("code",), derived=("exit_code",))

    outcome: str = Outcome.NOTHING_TO_DO
    reason: str = ""
    hint: str = ""
    code: int | None = field(default=None, repr=False)  # an explicit exit code; None: the outcome's

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode(self.code) if self.code is not None else exit_code_for(self.outcome)

    @exit_code.setter
    def exit_code(self, value: int) -> None:
        self.code = int(value)

    def refuse(self, refused: Refused) -> None:
        self.outcome, self.reason, self.hint, self.code = (refused.outcome, refused.reason, refused.hint,
                                                           refused.exit_code)


# The keys every report has; a report whose JSON is only its own answer hides them (`Shape(hidden=VERDICT)`).
VERDICT = ("outcome", "reason", "hint", "exit_code")


def count(number: int, noun: str, plural: str = "") -> str:
    """'1 line', '2 lines', '1 entry', '0 entries': how every message counts things (`plural` when not noun+s)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def entries_by_language(languages: dict[str, int], entries: int) -> str:
    """'2 in es, 1 in ja': entries waiting for a model by language, saying so when one holds more than one
    language (the counts then add up to more than the entries)."""
    shown = ", ".join(f"{n} in {language}" for language, n in sorted(languages.items()))
    return shown + ("; an entry may hold two languages" if sum(languages.values()) > entries else "")


def by_language(counts: dict[str, int]) -> str:
    """'3 messages in zh, 1 in de': the person's messages the rules left for a model, by language (most first)."""
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(f"{count(n, 'message') if i == 0 else n} in {lang}" for i, (lang, n) in enumerate(ranked))


def numbered(noun: str, names: Sequence[object], plural: str = "") -> str:
    """'line 4', 'lines 4, 9', 'argument path': things named one by one, with the noun agreeing."""
    return f"{noun if len(names) == 1 else plural or noun + 's'} {', '.join(map(str, names))}"


def nothing_to_do(reason: str) -> str:
    """How a run with nothing to do says so: "nothing to do: the backlog is empty", or its own reason when that
    already says it ("nothing to do; 2 entries wait for a model …")."""
    reason = reason or "the backlog is empty"
    return reason if reason.startswith("nothing to do") else f"nothing to do: {reason}"


def count_entries(number: int) -> str:
    """'1 entry', '2 entries': how every message counts history entries."""
    return count(number, "entry", "entries")


def new_run_id() -> str:
    """Sortable by start time, unique across processes: `20261123T040102Z-3fa9c1`."""
    return f"{clock.now():%Y%m%dT%H%M%SZ}-{os.urandom(3).hex()}"


def utc_stamp(moment: datetime | None = None) -> str:
    return (moment or clock.now()).astimezone(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class RunRecord(Declared):
    """One line of .nanodream/runs.jsonl: an attempt as `status`, `log` and the scheduler read it back."""

    id: str
    start: str
    trigger: str
    outcome: str
    end: str = ""
    reason: str = ""
    model: str = ""
    entries: int = 0
    consumed: list[int] | None = None  # [first, last] history cursor of the batches finished
    batches: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    commit: str | None = None
    commits: list[str] = field(default_factory=list)
    cached_tokens: int = 0  # of tokens_in, those read from the provider's prompt cache
    duration_s: float = 0.0
    malformed_lines: int = 0
    recovered: str = ""
    quarantined: list[int] = field(default_factory=list)
    failed_at: list[int] | None = None  # [first, last] history line of the batch the run failed on
    tidy: bool = False
    warnings: list[str] = field(default_factory=list)
    consumed_lines: list[int] | None = None  # [first, last] history line of the batches finished
    notices: list[str] = field(default_factory=list)
    anomalies: list[str] = field(default_factory=list)
    dead_letters: list[str] = field(default_factory=list)
    notable: list[dict[str, Any]] = field(default_factory=list)  # {line, cursor, outcome, detail}
    requests: int = 0  # model requests, all batches together
    request_bytes: int = 0  # what those requests sent (messages, tools, response format as JSON)
    reasons: list[dict[str, str]] = field(default_factory=list)  # {fact, reason}: facts a session kept out, and why
    unconfirmed: list[str] = field(default_factory=list)  # what a session's summary claims that its diff does not show
    misfiled: list[str] = field(default_factory=list)  # facts committed in another file than they belong in
    phases: dict[str, Any] | None = None  # the insight phases: notes, their own tokens and cost, commit, insights
    # every model or engine session of the run, in order, with the history lines of its batch: {lines, mode,
    # requests, tokens_in, tokens_out, cached_tokens, cost, seconds, ended, transcript}; the totals above are sums
    sessions: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunRecord | None:
        """A record read back from disk; None when it lacks what every record has (a foreign line)."""
        known = {f.name for f in fields(cls)}
        try:
            return cls(**{key: value for key, value in data.items() if key in known})
        except TypeError:
            return None


# commit trailers -----------------------------------------------------------------------------------------

TRAILER_PREFIX = "Dream-"


BUILTIN_MODEL = "builtin"  # the model setting of the offline engine, and its commits' Dream-Model


class Trailer(StrEnum):
    """The machine-readable lines at the end of every nanodream commit message."""

    KIND = "Dream-Kind"  # dream | manual | restore
    RUN = "Dream-Run"
    MODEL = "Dream-Model"
    CURSOR = "Dream-Cursor"  # first..last history cursor a dream consumed (the host's numbers)
    LINES = "Dream-Lines"  # first..last line of history.jsonl it consumed
    OFFSETS = "Dream-Offsets"  # the byte range [start..end) of history.jsonl it consumed
    POSITION = "Dream-Position"  # the history position (bytes consumed) once this commit has landed
    TIDY = "Dream-Tidy"
    TOKENS = "Dream-Tokens"  # in=N out=M cached=C (cached: of N, read from the provider's prompt cache)
    COST = "Dream-Cost"  # dollars, or "unknown"
    # each session of a batch that took more than one (auto's tools session, then its structured one):
    # "MODE requests=R in=N out=M cached=C seconds=S; MODE …" — Dream-Tokens and Dream-Cost are their sums
    SESSIONS = "Dream-Sessions"
    CURSOR_RESET = "Dream-Cursor-Reset"  # the cursor a commit sets instead of advancing it
    QUARANTINE_RETRY = "Dream-Quarantine-Retry"
    RESTORES = "Dream-Restores"
    RESTORE_MODE = "Dream-Restore-Mode"
    ACCEPTED = "Dream-Accepted"  # a review proposal landed on the branch: its history was consumed when proposed
    CONFLICT = "Dream-Conflict"  # a pending proposal that no longer applies, and why
    INSIGHT = "Dream-Insight"  # an insight a person decided on: NAME DECISION
    INSIGHT_TOKENS = "Dream-Insight-Tokens"  # the insight phases' own tokens, apart from the consolidation's
    INSIGHT_COST = "Dream-Insight-Cost"
    HELD = "Dream-Held"  # a proposal of lines a run held back for a person, and why (run/holds.py)
    HISTORY = "Dream-History"  # the fingerprint of the history consumed up to Dream-Position (backlog/position.py)
    REMOTE = "Dream-Remote"  # a sync's merge: the remote and branch whose memory it merged (docs/sync.md)
    MACHINE = "Machine"  # the machine that made the commit: `[sync] machine`, default the host name (docs/sync.md)
    WAITING = "Dream-Waiting"  # lines of history.jsonl that waited for a model and this dream read
    # sessions that failed as too big on the entries this commit consumed: sessions=N requests=R in=I out=O bytes=B
    FAILED = "Dream-Failed"


_TRAILER_LINE = re.compile(r"^(Dream-[A-Za-z-]+|Machine):[ \t]*(.*?)\s*$")
_RANGE = re.compile(r"^(\d+)\.\.(\d+)$")
_TOKENS = re.compile(r"^in=(\d+) out=(\d+)(?: cached=(\d+))?$")  # commits before issue 26 have no cached=


def is_trailer_line(line: str) -> bool:
    """A line of a trailer paragraph nanodream reads (`Dream-*` or `Machine`)."""
    return bool(_TRAILER_LINE.match(line))


def format_trailers(pairs: list[tuple[Trailer, object]]) -> list[str]:
    return [f"{name}: {value}" for name, value in pairs]


def format_range(first: int, last: int) -> str:
    return f"{first}..{last}"


def _parse_range(value: str) -> tuple[int, int] | None:
    match = _RANGE.match(value)
    return (int(match.group(1)), int(match.group(2))) if match else None


def format_tokens(tokens_in: int, tokens_out: int, cached_tokens: int = 0) -> str:
    return f"in={tokens_in} out={tokens_out} cached={cached_tokens}"


def spoken_tokens(tokens_in: int, tokens_out: int, cached_tokens: int | None = None, sep: str = " · ") -> str:
    """'tokens in 4050 (3000 cached) · out 20': how every command says what a session or run spent."""
    cached = f" ({cached_tokens} cached)" if cached_tokens else ""
    return f"tokens in {tokens_in}{cached}{sep}out {tokens_out}"


def format_cost(cost: float | None) -> str:
    return "unknown" if cost is None else f"{cost:.6f}"


@dataclass(frozen=True)
class Trailers:
    """The `Dream-*` trailers of a message's last paragraph, with typed readings of the ones that carry numbers.

    Summary lines that look like trailers are quoted away when the message is written, so only the real
    trailer paragraph is read.
    """

    values: dict[str, str]

    @classmethod
    def parse(cls, message: str) -> Trailers:
        paragraphs = [p for p in message.strip().split("\n\n") if p.strip()]
        if len(paragraphs) < 2:
            return cls({})
        values: dict[str, str] = {}
        for line in paragraphs[-1].splitlines():
            match = _TRAILER_LINE.match(line)
            if match:
                values[match.group(1)] = match.group(2)
        return cls(values)

    def get(self, name: Trailer) -> str | None:
        return self.values.get(name)

    @property
    def cursor_range(self) -> tuple[int, int] | None:
        return _parse_range(self.values.get(Trailer.CURSOR, ""))

    @property
    def line_range(self) -> tuple[int, int] | None:
        return _parse_range(self.values.get(Trailer.LINES, ""))

    @property
    def offset_range(self) -> tuple[int, int] | None:
        return _parse_range(self.values.get(Trailer.OFFSETS, ""))

    @property
    def position(self) -> int | None:
        raw = self.values.get(Trailer.POSITION, "")
        return int(raw) if raw.isdigit() else None

    @property
    def cursor_reset(self) -> int | None:
        raw = self.values.get(Trailer.CURSOR_RESET, "")
        return int(raw) if raw.isdigit() else None

    @property
    def tokens(self) -> tuple[int, int] | None:
        match = _TOKENS.match(self.values.get(Trailer.TOKENS, ""))
        return (int(match.group(1)), int(match.group(2))) if match else None

    @property
    def failed(self) -> dict[str, int] | None:
        """`Dream-Failed`: what the sessions that failed as too big on this commit's entries cost, by key."""
        pairs = [part.split("=", 1) for part in self.values.get(Trailer.FAILED, "").split()]
        found = {key: int(value) for key, value in (p for p in pairs if len(p) == 2) if value.isdigit()}
        return found if "sessions" in found else None

    @property
    def cached_tokens(self) -> int | None:
        """Of the input tokens, those read from the provider's prompt cache; None when the commit does not say."""
        match = _TOKENS.match(self.values.get(Trailer.TOKENS, ""))
        return int(match.group(3)) if match and match.group(3) is not None else None

    @property
    def sessions(self) -> list[str]:
        """The modes of the sessions a batch took, in order, when it took more than one ([] otherwise)."""
        raw = self.values.get(Trailer.SESSIONS, "")
        return [part.split()[0] for part in raw.split(";") if part.split()]

    @property
    def cost(self) -> float | None:
        try:
            return float(self.values[Trailer.COST])
        except (KeyError, ValueError):  # absent, or "unknown": the provider did not report a price
            return None

    @property
    def machine(self) -> str | None:
        """The machine that made the commit; None for a commit from before machines were named."""
        return self.values.get(Trailer.MACHINE) or None

    @property
    def cursor_mark(self) -> int | None:
        """The cursor this commit leaves behind: its reset if it has one, else the end of its range."""
        if self.cursor_reset is not None:
            return self.cursor_reset
        span = self.cursor_range
        return span[1] if span else None
