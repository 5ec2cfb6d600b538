"""One dream run: lock → recover → batch → session → guards → apply → commit → cursor → record."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from nanodream import guards
from nanodream.commitmsg import dream_message, manual_message
from nanodream.config import Settings
from nanodream.engines import Engine, SessionError, SessionRequest, engine_for
from nanodream.gitstore import DREAM_IDENTITY, GitStore
from nanodream.history import Batch, next_batch, read_cursor, write_cursor
from nanodream.journal import Journal, read_current, remove_stale_temp_files, write_files
from nanodream.lock import WorkspaceBusy, workspace_lock
from nanodream.prompt import active_prompt, render_user_message
from nanodream.records import append_record
from nanodream.staging import Staging
from nanodream.tools import ToolBox, ToolLimits
from nanodream.workspace import Workspace

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_BUSY = 0, 1, 2, 75


@dataclass
class BatchOutcome:
    outcome: str  # committed | no-change | failed | dry-run
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


@dataclass
class RunReport:
    run_id: str
    model: str
    trigger: str
    outcome: str = "nothing-to-do"  # committed | no-change | nothing-to-do | busy | failed | dry-run
    reason: str = ""
    batches: list[BatchOutcome] = field(default_factory=list)
    recovered: str = ""
    manual_commit: str | None = None
    malformed_lines: int = 0
    skipped_lines: int = 0
    started: str = ""
    finished: str = ""
    duration_s: float = 0.0

    @property
    def exit_code(self) -> int:
        return {"busy": EXIT_BUSY, "failed": EXIT_FAILED}.get(self.outcome, EXIT_OK)

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
        return sum(b.entries for b in self.batches if b.outcome in ("committed", "no-change"))

    @property
    def commits(self) -> list[str]:
        return [b.commit for b in self.batches if b.commit]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(exit_code=self.exit_code, tokens_in=self.tokens_in, tokens_out=self.tokens_out,
                    cost=self.cost, entries=self.entries, commits=self.commits)
        return data


def new_run_id() -> str:
    return f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def run_dream(workspace: Workspace, settings: Settings, *, dry_run: bool = False,
              max_batches: int | None = None, trigger: str = "manual",
              engine_factory: Callable[[Settings], Engine] = engine_for) -> RunReport:
    """Run dreams batch by batch until the backlog is empty or a limit or failure stops the run."""
    report = RunReport(run_id=new_run_id(), model=settings.model, trigger=trigger,
                       started=datetime.now(UTC).isoformat(timespec="seconds"))
    clock = time.monotonic()
    try:
        with workspace_lock(workspace):
            _run_locked(workspace, settings, report, dry_run=dry_run,
                        max_batches=max_batches or settings.max_batches, engine_factory=engine_factory)
    except WorkspaceBusy as exc:
        report.outcome, report.reason = "busy", str(exc)
    report.finished = datetime.now(UTC).isoformat(timespec="seconds")
    report.duration_s = round(time.monotonic() - clock, 3)
    if not dry_run:
        append_record(workspace, _record(report))
    return report


def _run_locked(workspace: Workspace, settings: Settings, report: RunReport, *, dry_run: bool,
                max_batches: int, engine_factory: Callable[[Settings], Engine]) -> None:
    store = GitStore(workspace)
    if not dry_run:
        store.ensure_repo()
        report.recovered = recover(workspace, store)
        dirty = store.dirty_paths()
        if dirty:
            report.manual_commit = store.commit(manual_message(dirty), store.user_identity())
    cursor = read_cursor(workspace.cursor_file)
    engine: Engine | None = None
    limits = ToolLimits.from_settings(settings)
    while len(report.batches) < (1 if dry_run else max_batches):
        batch = next_batch(workspace.history_file, cursor, settings.batch_tokens)
        if batch is None:
            break
        report.malformed_lines += batch.malformed_lines
        report.skipped_lines += batch.skipped_lines
        if batch.has_content and engine is None:
            engine = engine_factory(settings)
        outcome = _dream_batch(workspace, store, settings, engine, batch, limits, report.run_id, dry_run)
        report.batches.append(outcome)
        if outcome.outcome == "failed":
            report.outcome, report.reason = "failed", outcome.reason
            return
        cursor = batch.last_cursor
        stop = _budget_exhausted(report, settings)
        if stop:
            report.reason = stop
            break
    if report.batches:
        report.outcome = "dry-run" if dry_run else (
            "committed" if report.commits else "no-change")
    elif not report.reason:
        report.reason = "the backlog is empty"


def _dream_batch(workspace: Workspace, store: GitStore, settings: Settings, engine: Engine | None,
                 batch: Batch, limits: ToolLimits, run_id: str, dry_run: bool) -> BatchOutcome:
    outcome = BatchOutcome("no-change", batch.first_cursor, batch.last_cursor, len(batch.entries))
    staging = Staging(workspace)
    toolbox = ToolBox(staging, limits, redact_secrets=settings.secret_policy == "redact")
    if engine is not None and batch.has_content:
        request = SessionRequest(active_prompt(workspace).text, render_user_message(staging, batch, limits), batch)
        try:
            result = engine.run(request, toolbox)
        except SessionError as exc:
            outcome.outcome, outcome.reason = "failed", exc.reason
            outcome.tokens_in, outcome.tokens_out = exc.tokens_in, exc.tokens_out
            return outcome
        outcome.tokens_in, outcome.tokens_out, outcome.cost = result.tokens_in, result.tokens_out, result.cost
        outcome.summary = result.summary
    violations = guards.check(staging, batch, settings, toolbox.refusals)
    outcome.warnings = [str(v) for v in violations if not v.blocking]
    blocking = [v for v in violations if v.blocking]
    if blocking:
        outcome.outcome = "failed"
        outcome.reason = "guard refused the result: " + "; ".join(str(v) for v in blocking)
        return outcome
    changes = staging.changes()
    outcome.changes = [f"{c.path}: {c.kind} (+{c.line_counts()[0]} -{c.line_counts()[1]})" for c in changes]
    if dry_run:
        outcome.outcome = "dry-run"
        outcome.diff = "".join(change.unified_diff() for change in changes)
        return outcome
    if changes:
        message = dream_message(summary=outcome.summary, changes=changes, run_id=run_id, model=settings.model,
                                batch=batch, tokens_in=outcome.tokens_in, tokens_out=outcome.tokens_out,
                                cost=outcome.cost)
        journal = Journal(run_id=run_id, message=message, cursor_end=batch.last_cursor,
                          before={c.path: c.before for c in changes}, after={c.path: c.after for c in changes})
        outcome.commit = apply_journal(workspace, store, journal)
        outcome.outcome = "committed"
    else:
        write_cursor(workspace.cursor_file, batch.last_cursor)
    return outcome


def apply_journal(workspace: Workspace, store: GitStore, journal: Journal) -> str | None:
    """Journal first, then files, commit, cursor, and only then forget the journal: any crash is recoverable."""
    journal.save(workspace)
    write_files(workspace.root, journal.after)
    sha = store.commit(journal.message, DREAM_IDENTITY)
    _advance_cursor(workspace, journal.cursor_end)
    Journal.clear(workspace)
    return sha


def recover(workspace: Workspace, store: GitStore) -> str:
    """Finish or undo an interrupted apply, then fast-forward the cursor to the last commit's range."""
    strays = remove_stale_temp_files(workspace)
    note = f"removed {len(strays)} temp file(s) of an interrupted write" if strays else ""
    journal = Journal.load(workspace)
    if journal is not None:
        note = (note + "; " if note else "") + _recover_journal(workspace, store, journal)
    mark = store.cursor_mark()
    if mark is not None and read_cursor(workspace.cursor_file) < mark:
        write_cursor(workspace.cursor_file, mark)
        note = (note + "; " if note else "") + f"cursor fast-forwarded to {mark} from the last dream commit"
    return note


def _recover_journal(workspace: Workspace, store: GitStore, journal: Journal) -> str:
    if store.head_message().strip() == journal.message.strip():
        _advance_cursor(workspace, journal.cursor_end)
        Journal.clear(workspace)
        return f"finished interrupted run {journal.run_id} (commit had landed; cursor written)"
    current = read_current(workspace.root, list(journal.after))
    foreign = [p for p, text in current.items() if text not in (journal.before[p], journal.after[p])]
    if foreign:
        # Someone edited the files after the crash: undo only the dream's own writes, keep theirs.
        write_files(workspace.root, {p: journal.before[p] for p, text in current.items()
                                     if text == journal.after[p]})
        Journal.clear(workspace)
        return f"abandoned interrupted run {journal.run_id}: {', '.join(foreign)} changed since; batch will rerun"
    write_files(workspace.root, journal.after)
    store.commit(journal.message, DREAM_IDENTITY)
    _advance_cursor(workspace, journal.cursor_end)
    Journal.clear(workspace)
    return f"completed interrupted run {journal.run_id}"


def _advance_cursor(workspace: Workspace, cursor: int) -> None:
    if read_cursor(workspace.cursor_file) < cursor:
        write_cursor(workspace.cursor_file, cursor)


def _budget_exhausted(report: RunReport, settings: Settings) -> str:
    used = report.tokens_in + report.tokens_out
    if used >= settings.max_run_tokens:
        return f"run token budget reached ({used} >= {settings.max_run_tokens}); the rest waits for the next run"
    cost = report.cost
    if settings.max_cost is not None and cost is not None and cost >= settings.max_cost:
        return f"run cost budget reached (${cost:.4f} >= ${settings.max_cost:.4f}); the rest waits"
    return ""


def _record(report: RunReport) -> dict[str, Any]:
    return {
        "id": report.run_id, "start": report.started, "end": report.finished, "trigger": report.trigger,
        "outcome": report.outcome, "reason": report.reason, "entries": report.entries,
        "tokens_in": report.tokens_in, "tokens_out": report.tokens_out, "cost": report.cost,
        "commits": report.commits, "model": report.model, "duration_s": report.duration_s,
        "malformed_lines": report.malformed_lines, "recovered": report.recovered,
        "warnings": [warning for batch in report.batches for warning in batch.warnings],
    }
