"""What a run tells its caller (CLI, slash command, scheduler) and what it leaves in the run records."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from nanodream.vocab import CONSUMED, ExitCode, Outcome, RunRecord, exit_code_for, utc_stamp


@dataclass
class BatchOutcome:
    """One session over one batch (or one tidy pass) and what became of it."""

    outcome: str  # committed | no-change | failed | dry-run | split | quarantined
    first_cursor: int
    last_cursor: int
    entries: int
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    commit: str | None = None
    summary: str = ""
    reason: str = ""
    changes: list[str] = field(default_factory=list)
    diff: str = ""
    warnings: list[str] = field(default_factory=list)  # non-blocking guard findings, reported not enforced

    def fail(self, reason: str) -> BatchOutcome:
        self.outcome, self.reason = Outcome.FAILED, reason
        return self


@dataclass
class RunReport:
    run_id: str
    model: str
    trigger: str  # manual | cron | slash | schedule | retry
    outcome: str = Outcome.NOTHING_TO_DO  # committed | no-change | nothing-to-do | busy | failed | dry-run
    reason: str = ""
    batches: list[BatchOutcome] = field(default_factory=list)
    quarantined: list[int] = field(default_factory=list)
    failed_at: list[int] | None = None  # [first, last] cursor of the batch the run failed on
    recovered: str = ""
    manual_commit: str | None = None
    malformed_lines: int = 0
    skipped_lines: int = 0
    tidy: bool = False
    started: str = field(default_factory=utc_stamp)
    finished: str = ""
    duration_s: float = 0.0

    def fail(self, reason: str, at: tuple[int, int] | None = None) -> None:
        self.outcome, self.reason = Outcome.FAILED, reason
        if at is not None:
            self.failed_at = list(at)

    @property
    def exit_code(self) -> ExitCode:
        return exit_code_for(self.outcome)

    @property
    def tokens_in(self) -> int:
        return sum(b.tokens_in for b in self.batches)

    @property
    def tokens_out(self) -> int:
        return sum(b.tokens_out for b in self.batches)

    @property
    def cost(self) -> float | None:
        costs = [b.cost for b in self.batches if b.cost is not None]
        return sum(costs) if costs else None

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

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(exit_code=int(self.exit_code), tokens_in=self.tokens_in, tokens_out=self.tokens_out,
                    cost=self.cost, entries=self.entries, commits=self.commits, consumed=self.consumed)
        return data

    def to_record(self) -> RunRecord:
        commits = self.commits
        return RunRecord(
            id=self.run_id, start=self.started, end=self.finished, trigger=self.trigger, outcome=self.outcome,
            reason=self.reason, model=self.model, entries=self.entries, consumed=self.consumed,
            batches=len(self.batches), tokens_in=self.tokens_in, tokens_out=self.tokens_out, cost=self.cost,
            commit=commits[-1] if commits else None, commits=commits, duration_s=self.duration_s,
            malformed_lines=self.malformed_lines, recovered=self.recovered, quarantined=self.quarantined,
            failed_at=self.failed_at, tidy=self.tidy,
            warnings=[warning for batch in self.batches for warning in batch.warnings],
        )
