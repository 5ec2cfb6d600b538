"""What a run tells its caller (CLI, slash command, scheduler) and what it leaves in the run records."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from nanodream.insights.reflect import Reflection
from nanodream.safety import secret_scan
from nanodream.vocab import CONSUMED, Outcome, Report, RunRecord, Shape, utc_stamp

# Entries listed per run record as not consumed normally; `status` shows the newest of these.
NOTABLE_LIMIT = 200


@dataclass(frozen=True)
class SessionSpend:
    """What one session cost and left behind: the run record's `sessions`, a commit's Dream-Sessions trailer."""

    mode: str  # tools | structured | builtin
    requests: int
    tokens_in: int
    tokens_out: int
    cached_tokens: int
    cost: float | None
    seconds: float
    ended: str  # "finished", or "failed: <reason>"
    transcript: str | None  # the file under .nanodream/transcripts/ that keeps it (None: not kept)
    outcome: str = ""  # what became of the attempt it was part of (committed, model-no-op, …): set when it ends
    request_bytes: int = 0  # what its model requests sent

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class BatchOutcome:
    """One session over one batch (or one tidy pass) and what became of it."""

    json_shape = Shape(hidden=("held_back",))  # a hand-over inside the run: the held-back part is a batch of its own

    outcome: str  # committed | no-change | failed | dry-run | split | quarantined
    first_cursor: int
    last_cursor: int
    entries: int
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    commit: str | None = None
    summary: str = ""
    cached_tokens: int = 0  # of tokens_in, read from the provider's prompt cache
    reason: str = ""
    changes: list[str] = field(default_factory=list)
    diff: str = ""
    warnings: list[str] = field(default_factory=list)  # non-blocking guard findings, reported not enforced
    first_line: int = 0  # the batch's lines in history.jsonl: its identity (cursors are the host's numbers)
    last_line: int = 0
    capacity: bool = False  # failed because a file is full and nothing may move: never split or quarantined
    blameless: bool = False  # failed for a reason no history entry causes (git refused the commit): never split
    proposal: str | None = None  # review lane: the commit on refs/nanodream/pending holding what waits for review
    requests: int = 0  # model requests of the session
    unkept: list[str] = field(default_factory=list)  # tagged facts memory lacked after a session that changed nothing
    reasons: list[dict[str, str]] = field(default_factory=list)  # {fact, reason}: why the session kept one out
    unconfirmed: list[str] = field(default_factory=list)  # what the summary claims that the diff does not show
    misfiled: list[str] = field(default_factory=list)  # facts committed where they landed, not where they belong
    # tagged facts neither kept nor explained after the session: {fact, entry_line, problem}; never consumed
    unaccounted: list[dict[str, object]] = field(default_factory=list)
    held_back: BatchOutcome | None = None  # the batch's entries from the first unaccounted fact on, failed
    request_bytes: int = 0  # what the session's model requests sent
    oversized: str = ""  # the cap that stopped the session on more than one entry (tokens | calls): too big a batch
    # every session spent on the batch, in order (auto's tools session, then its structured one): each one's mode,
    # requests, tokens, cost, seconds, how it ended and the file its transcript was kept in (docs/json.md)
    sessions: list[dict[str, Any]] = field(default_factory=list)

    def add_spend(self, other: BatchOutcome) -> None:
        """Count what an earlier attempt at the same batch spent (tokens, requests, cost) as this one's too, and
        its sessions before this one's."""
        self.tokens_in, self.tokens_out = self.tokens_in + other.tokens_in, self.tokens_out + other.tokens_out
        self.cached_tokens, self.requests = self.cached_tokens + other.cached_tokens, self.requests + other.requests
        self.request_bytes += other.request_bytes
        if other.cost is not None:
            self.cost = (self.cost or 0.0) + other.cost
        self.sessions = [*other.sessions, *self.sessions]

    def replace_spend(self, later: BatchOutcome) -> None:
        """Take a later attempt's spend and sessions as this one's: it counted this one's already (run/batch.py)."""
        self.tokens_in, self.tokens_out, self.cached_tokens = later.tokens_in, later.tokens_out, later.cached_tokens
        self.requests, self.cost, self.sessions = later.requests, later.cost, list(later.sessions)
        self.request_bytes = later.request_bytes

    def settle_sessions(self) -> None:
        """The attempt is over: each of its sessions records what became of it."""
        for session in self.sessions:
            session["outcome"] = session.get("outcome") or self.outcome

    def count_session(self, session: SessionSpend) -> None:
        """One more session spent on this batch: its tokens, requests and cost are the batch's too."""
        self.tokens_in, self.tokens_out = self.tokens_in + session.tokens_in, self.tokens_out + session.tokens_out
        self.cached_tokens += session.cached_tokens
        self.requests += session.requests
        self.request_bytes += session.request_bytes
        if session.cost is not None:
            self.cost = (self.cost or 0.0) + session.cost
        self.sessions.append(session.to_dict())

    def fail(self, reason: str, outcome: str = Outcome.FAILED) -> BatchOutcome:
        # a reason can quote what a session wrote (a pinned line, a tool error): it reaches records and quarantine
        self.outcome, self.reason = outcome, secret_scan.redacted(reason)
        return self


@dataclass
class PhaseOutcome:
    """The run's insight phases after the consolidation (docs/insights.md): what ran, what each said, what they
    proposed or changed, and what they spent — recorded apart from the consolidation's tokens and cost."""

    ran: list[str] = field(default_factory=list)  # the phases that read something, in order
    notes: list[str] = field(default_factory=list)  # one line per phase: what it did, or why it was skipped
    reflection: Reflection | None = None
    insights: list[dict[str, Any]] = field(default_factory=list)  # each record this run proposed or changed
    back_edges: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # cited ref → insights citing it
    tokens_in: int = 0
    tokens_out: int = 0
    cached_tokens: int = 0
    cost: float | None = None
    requests: int = 0
    commit: str | None = None
    diff: str = ""  # a dry run's

    def to_record(self) -> dict[str, Any]:
        """What the run record keeps: the notes, the spend, the commit and each insight's name and change."""
        return {"ran": self.ran, "notes": self.notes, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "cached_tokens": self.cached_tokens, "cost": self.cost, "requests": self.requests,
                "commit": self.commit,
                "insights": [{"name": item["name"], "change": item["change"]} for item in self.insights]}


@dataclass
class RunReport(Report):
    """A run: outcome committed | no-change | nothing-to-do | dry-run | failed | busy | blocked | refused.

    Its JSON (`run --json`, docs/json.md) is every field plus the totals computed from the batches.
    """

    json_shape = Shape(derived=("tokens_in", "tokens_out", "cached_tokens", "cost", "entries", "commits",
                                "consumed", "consumed_lines", "requests", "request_bytes", "reasons", "unconfirmed",
                                "misfiled",
                                "insights", "back_edges"))

    run_id: str
    model: str
    trigger: str  # manual | cron | slash | schedule | retry | mcp | fleet | host
    batches: list[BatchOutcome] = field(default_factory=list)
    quarantined: list[int] = field(default_factory=list)
    failed_at: list[int] | None = None  # [first, last] history line of the batch the run failed on
    recovered: str = ""
    notices: list[str] = field(default_factory=list)  # one line each: how reading resumed (upgrade, rewrite)
    anomalies: list[str] = field(default_factory=list)  # cursor numbering gone wrong, with line numbers
    dead_letters: list[str] = field(default_factory=list)  # lines that are not entries, with line numbers
    notable: list[dict[str, Any]] = field(default_factory=list)  # entries not consumed normally, and why
    ingest: dict[str, Any] | None = None  # the configured transcript sources ingested first (`ingest --json`'s shape)
    manual_commit: str | None = None
    malformed_lines: int = 0
    skipped_lines: int = 0
    tidy: bool = False
    phases: PhaseOutcome | None = None  # the insight phases, when any was on and the consolidation got that far
    waiting_for_model: int = 0  # history entries the built-in rules cannot read, left for a model (backlog/waiting.py)
    started: str = field(default_factory=utc_stamp)
    finished: str = ""
    duration_s: float = 0.0

    def fail(self, reason: str, at: tuple[int, int] | None = None, outcome: str = Outcome.FAILED) -> None:
        self.outcome, self.reason = outcome, reason
        if at is not None:
            self.failed_at = list(at)

    def settle_failure(self, batch: BatchOutcome, at: tuple[int, int] | None = None) -> None:
        """A failed batch ends the run: failed, or blocked when a file is full of what may not move (no retry
        helps: a person trims the file or raises its cap)."""
        self.fail(batch.reason, at, outcome=batch.outcome)
        if batch.capacity:
            self.outcome = Outcome.BLOCKED

    @property
    def tokens_in(self) -> int:
        return sum(b.tokens_in for b in self.batches)

    @property
    def tokens_out(self) -> int:
        return sum(b.tokens_out for b in self.batches)

    @property
    def cached_tokens(self) -> int:
        return sum(b.cached_tokens for b in self.batches)

    @property
    def cost(self) -> float | None:
        costs = [b.cost for b in self.batches if b.cost is not None]
        return sum(costs) if costs else None

    @property
    def requests(self) -> int:
        return sum(b.requests for b in self.batches)

    @property
    def request_bytes(self) -> int:
        return sum(b.request_bytes for b in self.batches)

    @property
    def entries(self) -> int:
        return sum(b.entries for b in self.batches if b.outcome in CONSUMED)

    @property
    def commits(self) -> list[str]:
        return [b.commit for b in self.batches if b.commit]

    @property
    def consumed(self) -> list[int] | None:
        """[first, last] history cursor of the batches this run finished, or None."""
        done = [b for b in self.batches if b.outcome in CONSUMED]
        return [done[0].first_cursor, done[-1].last_cursor] if done else None

    @property
    def consumed_lines(self) -> list[int] | None:
        """[first, last] history line of the batches this run finished, or None."""
        done = [b for b in self.batches if b.outcome in CONSUMED]
        return [done[0].first_line, done[-1].last_line] if done else None

    def note_entry(self, line: int, cursor: int | None, outcome: str, detail: str) -> None:
        """An entry not consumed the ordinary way: skipped by tag, malformed, quarantined, or a cursor anomaly."""
        if len(self.notable) < NOTABLE_LIMIT:
            self.notable.append({"line": line, "cursor": cursor, "outcome": outcome, "detail": detail})

    @property
    def reasons(self) -> list[dict[str, str]]:
        """Every batch's `{fact, reason}` for what its session kept out."""
        return [r for b in self.batches for r in b.reasons]

    @property
    def unconfirmed(self) -> list[str]:
        """What the sessions' summaries claim that their diffs do not show."""
        return [note for b in self.batches for note in b.unconfirmed]

    @property
    def misfiled(self) -> list[str]:
        """Facts the sessions filed in another file than they belong in, committed where they landed."""
        return [note for b in self.batches for note in b.misfiled]

    @property
    def insights(self) -> list[dict[str, Any]]:
        """The insight records this run proposed or changed, each with its sources as edges (`run -o`)."""
        return self.phases.insights if self.phases else []

    @property
    def back_edges(self) -> dict[str, list[dict[str, Any]]]:
        """Per ref this run's insights cite, every insight citing it."""
        return self.phases.back_edges if self.phases else {}

    def to_record(self) -> RunRecord:
        commits = self.commits
        return RunRecord(
            id=self.run_id, start=self.started, end=self.finished, trigger=self.trigger, outcome=self.outcome,
            reason=self.reason, model=self.model, entries=self.entries, consumed=self.consumed,
            batches=len(self.batches), tokens_in=self.tokens_in, tokens_out=self.tokens_out,
            cached_tokens=self.cached_tokens, cost=self.cost,
            commit=commits[-1] if commits else None, commits=commits, duration_s=self.duration_s,
            malformed_lines=self.malformed_lines, recovered=self.recovered, quarantined=self.quarantined,
            failed_at=self.failed_at, tidy=self.tidy, consumed_lines=self.consumed_lines, notices=self.notices,
            anomalies=self.anomalies, dead_letters=self.dead_letters, notable=self.notable,
            warnings=[warning for batch in self.batches for warning in batch.warnings], requests=self.requests,
            request_bytes=self.request_bytes,
            reasons=[r for b in self.batches for r in b.reasons],
            unconfirmed=[note for b in self.batches for note in b.unconfirmed], misfiled=self.misfiled,
            phases=self.phases.to_record() if self.phases else None,
            sessions=[{"lines": [b.first_line, b.last_line], **spent} for b in self.batches for spent in b.sessions],
        )
