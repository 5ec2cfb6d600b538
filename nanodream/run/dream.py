"""One dream run: lock → recover → batch → session → guards → apply → commit → cursor → record."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from nanodream.config import Settings
from nanodream.engines import Engine, SessionError, SessionRequest, describe_error, engine_for
from nanodream.prompting.prompt import session_texts
from nanodream.run.history import Batch, HistoryEntry, drop_skip_lines, iter_after, read_cursor, write_cursor
from nanodream.run.journal import Journal, read_current, remove_stale_temp_files, write_files
from nanodream.run.lock import WorkspaceBusy, workspace_lock
from nanodream.run.poison import MAX_SUSPECTS, Isolation, failure_streak, next_clean_batch
from nanodream.run.quarantine import QuarantineUnreadable, load_quarantine, quarantined_cursors, save_quarantine
from nanodream.run.records import append_record, read_records
from nanodream.run.staging import Staging
from nanodream.run.tools import ToolBox, ToolLimits
from nanodream.run.transcripts import save_transcript
from nanodream.safety import guards
from nanodream.versioning.commitmsg import dream_message, manual_message
from nanodream.versioning.gitstore import DREAM_IDENTITY, GitStore
from nanodream.workspace import Workspace

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_BUSY = 0, 1, 2, 75


@dataclass
class BatchOutcome:
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


@dataclass
class RunReport:
    run_id: str
    model: str
    trigger: str  # manual | cron | slash | schedule | retry
    outcome: str = "nothing-to-do"  # committed | no-change | nothing-to-do | busy | failed | dry-run
    reason: str = ""
    batches: list[BatchOutcome] = field(default_factory=list)
    quarantined: list[int] = field(default_factory=list)
    failed_at: list[int] | None = None  # [first, last] cursor of the batch the run failed on
    recovered: str = ""
    manual_commit: str | None = None
    malformed_lines: int = 0
    skipped_lines: int = 0
    tidy: bool = False
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

    @property
    def consumed(self) -> list[int] | None:
        """[first, last] history cursor of the batches this run finished, or None."""
        done = [b for b in self.batches if b.outcome in ("committed", "no-change")]
        return [done[0].first_cursor, done[-1].last_cursor] if done else None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(exit_code=self.exit_code, tokens_in=self.tokens_in, tokens_out=self.tokens_out,
                    cost=self.cost, entries=self.entries, commits=self.commits, consumed=self.consumed)
        return data


def new_run_id() -> str:
    return f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def _never_stop() -> str:
    return ""


def run_dream(workspace: Workspace, settings: Settings, *, dry_run: bool = False,
              max_batches: int | None = None, trigger: str = "manual", tidy: bool = False,
              engine_factory: Callable[[Settings], Engine] = engine_for,
              should_stop: Callable[[], str] = _never_stop) -> RunReport:
    """Run dreams batch by batch until the backlog is empty or a limit, failure or stop request ends the run.

    With `tidy`, run one maintenance session over the memory alone instead: no history, cursor untouched.
    `should_stop` is asked between batches: a non-empty answer is the reason to end after the batch that just
    finished (e.g. a SIGTERM, or the host agent starting a user turn). A KeyboardInterrupt raised mid-batch
    abandons that batch: a half-applied one is finished from its journal before the lock is let go, the
    attempt is recorded as failed, and the interrupt is raised again for the caller.
    """
    report = RunReport(run_id=new_run_id(), model=settings.model, trigger=trigger, tidy=tidy,
                       started=datetime.now(UTC).isoformat(timespec="seconds"))
    clock = time.monotonic()
    interrupted = False
    try:
        with workspace_lock(workspace):
            try:
                _run_locked(workspace, settings, report, dry_run=dry_run, should_stop=should_stop,
                            max_batches=max_batches or settings.max_batches, engine_factory=engine_factory)
            except KeyboardInterrupt:
                interrupted = True
                report.outcome, report.reason = "failed", "abandoned on interrupt"
                if not dry_run:
                    report.recovered = recover(workspace, GitStore(workspace)) or report.recovered
            except Exception as exc:  # git refusing, an unreadable journal, a full disk: one line, no traceback
                # Whatever was half-applied is journalled and is finished or undone by the next run.
                report.outcome = "failed"
                report.reason = f"internal error: {describe_error(exc)}"
    except WorkspaceBusy as exc:
        report.outcome, report.reason = "busy", str(exc)
    report.finished = datetime.now(UTC).isoformat(timespec="seconds")
    report.duration_s = round(time.monotonic() - clock, 3)
    if not dry_run:
        append_record(workspace, _record(report))
    if interrupted:
        raise KeyboardInterrupt
    return report


def _prepare(workspace: Workspace, store: GitStore, report: RunReport) -> None:
    """Finish an interrupted run and commit the person's hand edits before any dream touches the files."""
    store.ensure_repo()
    report.recovered = recover(workspace, store)
    dirty = store.dirty_paths()
    if dirty:
        report.manual_commit = store.commit(manual_message(dirty), store.user_identity())


def _run_locked(workspace: Workspace, settings: Settings, report: RunReport, *, dry_run: bool,
                max_batches: int, engine_factory: Callable[[Settings], Engine],
                should_stop: Callable[[], str]) -> None:
    store = GitStore(workspace)
    if not dry_run:
        _prepare(workspace, store, report)
    cursor = read_cursor(workspace.cursor_file)
    engine: Engine | None = None
    limits = ToolLimits.from_settings(settings)
    if report.tidy:
        engine = _start_engine(settings, engine_factory, report)
        if engine is None:
            return
        outcome = _dream_batch(workspace, store, settings, engine, None, limits, report.run_id, dry_run)
        report.batches.append(outcome)
        report.outcome, report.reason = outcome.outcome, outcome.reason
        return
    try:
        quarantined = quarantined_cursors(workspace)
    except QuarantineUnreadable as exc:
        report.outcome, report.reason = "failed", str(exc)
        return
    past_runs = read_records(workspace, limit=200)
    isolation = Isolation()
    limit = 1 if dry_run else max_batches
    while True:
        stop = should_stop() if report.batches else ""
        if stop:
            report.reason = stop
            break
        from_split = bool(isolation.queue)
        if from_split:
            batch = isolation.queue.pop(0)
        else:
            batch = next_clean_batch(workspace.history_file, cursor, settings.batch_tokens,
                                     quarantined | set(report.quarantined) | isolation.excluded())
            if batch is None:
                break
        if len(report.batches) >= limit:
            if not dry_run:
                report.reason = f"batch limit reached ({limit}); the rest waits for the next run"
            break
        if not from_split:
            report.malformed_lines += batch.malformed_lines
            report.skipped_lines += batch.skipped_lines
        if isolation.suspects and not batch.has_content:
            break  # only a real session can show that the model works and the suspect is the problem
        streak = failure_streak(past_runs, batch.first_cursor)
        if not dry_run and not isolation.active and streak >= settings.split_after and len(batch.entries) > 1:
            isolation.split(batch)  # it failed every time lately: go straight to its halves
            continue
        if batch.has_content and engine is None:
            engine = _start_engine(settings, engine_factory, report)
            if engine is None:
                return
        # Suspects are quarantined right before this batch is applied: its success is the proof.
        before_apply = (lambda: report.quarantined.extend(isolation.confirm(workspace, report.run_id))
                        ) if isolation.suspects else None
        outcome = _dream_batch(workspace, store, settings, engine, batch, limits, report.run_id, dry_run,
                               before_apply=before_apply)
        report.batches.append(outcome)
        if outcome.outcome == "failed":
            poisoned = from_split or isolation.suspects or streak + 1 >= settings.split_after
            if dry_run or not poisoned:
                report.outcome, report.reason = "failed", outcome.reason
                report.failed_at = [batch.first_cursor, batch.last_cursor]
                return
            if len(batch.entries) > 1:
                outcome.outcome = "split"
                isolation.split(batch)
            else:
                isolation.suspect(batch.entries[0], outcome.reason, outcome)
                if len(isolation.suspects) >= MAX_SUSPECTS:
                    break
        else:
            cursor = batch.last_cursor
        stop = _budget_exhausted(report, settings)
        if stop:
            report.reason = stop
            break
    _conclude(report, isolation, dry_run)


def _start_engine(settings: Settings, engine_factory: Callable[[Settings], Engine],
                  report: RunReport) -> Engine | None:
    """The engine, or None with the run marked failed in one clear line (e.g. a provider package missing)."""
    try:
        return engine_factory(settings)
    except Exception as exc:
        report.outcome, report.reason = "failed", f"cannot start engine {settings.model!r}: {describe_error(exc)}"
        return None


def _conclude(report: RunReport, isolation: Isolation, dry_run: bool) -> None:
    """The run's outcome once its loop ended without a plain failure."""
    note = f" ({report.reason})" if report.reason else ""
    if isolation.suspects:
        report.outcome, report.reason = "failed", isolation.unresolved() + note
        first = isolation.suspects[0].entry.cursor
        report.failed_at = [first, first]
        return
    if report.batches and report.consumed is None and not dry_run:
        # Only failed halves: a limit or a stop cut the search short and nothing moved.
        first = report.batches[0]
        report.outcome = "failed"
        report.reason = f"{report.batches[-1].reason}; stopped while splitting the failing batch{note}"
        report.failed_at = [first.first_cursor, first.last_cursor]
        return
    if report.quarantined:
        shown = ", ".join(f"#{c}" for c in report.quarantined)
        quarantined = f"quarantined {shown}: failed on its own while later entries succeeded (nanodream quarantine)"
        report.reason = f"{quarantined}; {report.reason}" if report.reason else quarantined
    if report.batches:
        report.outcome = "dry-run" if dry_run else (
            "committed" if report.commits else "no-change")
    elif not report.reason:
        report.reason = "the backlog is empty"


def _dream_batch(workspace: Workspace, store: GitStore, settings: Settings, engine: Engine | None,
                 batch: Batch | None, limits: ToolLimits, run_id: str, dry_run: bool, *,
                 before_apply: Callable[[], None] | None = None, trailers: tuple[str, ...] = ()) -> BatchOutcome:
    """One session over one batch (None: a tidy pass, which consumes no history), checked and applied.

    `before_apply` runs once every check passed, before any write.
    """
    span = (batch.first_cursor, batch.last_cursor, len(batch.entries)) if batch else (0, 0, 0)
    outcome = BatchOutcome("no-change", *span)
    staging = Staging(workspace)
    toolbox = ToolBox(staging, limits, redact_secrets=settings.secret_policy == "redact")
    if engine is not None and (batch is None or batch.has_content):
        prompt, message = session_texts(workspace, settings, staging, store, batch)
        request = SessionRequest(prompt.text, message.text, batch or Batch([]))
        try:
            result = engine.run(request, toolbox)
        except SessionError as exc:
            outcome.outcome, outcome.reason = "failed", exc.reason
            outcome.tokens_in, outcome.tokens_out = exc.tokens_in, exc.tokens_out
            if not dry_run:
                _keep_transcript(workspace, settings, run_id, batch, exc.transcript, f"failed: {exc.reason}")
            return outcome
        except Exception as exc:  # a bug in an engine must not escape as a traceback; nothing was applied
            outcome.outcome, outcome.reason = "failed", f"engine error: {describe_error(exc)}"
            return outcome
        outcome.tokens_in, outcome.tokens_out, outcome.cost = result.tokens_in, result.tokens_out, result.cost
        outcome.summary = result.summary
        if not dry_run:
            _keep_transcript(workspace, settings, run_id, batch, result.transcript, "finished")
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
    moved = _changed_on_disk(workspace, staging, [c.path for c in changes])
    if moved:
        outcome.outcome = "failed"
        outcome.reason = (f"{', '.join(moved)} changed on disk during the session; nothing applied, so those "
                          "edits are kept and the batch runs again next time")
        return outcome
    if before_apply is not None:
        before_apply()
    if changes:
        message = dream_message(summary=outcome.summary, changes=changes, run_id=run_id, model=settings.model,
                                batch=batch, tokens_in=outcome.tokens_in, tokens_out=outcome.tokens_out,
                                cost=outcome.cost)
        if trailers:
            message += "\n" + "\n".join(trailers)
        journal = Journal(run_id=run_id, message=message, cursor_end=span[1],  # 0 never moves the cursor
                          before={c.path: c.before for c in changes}, after={c.path: c.after for c in changes})
        outcome.commit = apply_journal(workspace, store, journal)
        outcome.outcome = "committed"
    elif batch is not None:
        _advance_cursor(workspace, batch.last_cursor)
    return outcome


def _changed_on_disk(workspace: Workspace, staging: Staging, paths: list[str]) -> list[str]:
    """Files someone else (the host agent, a person) wrote while the session ran: applying would lose that."""
    current = read_current(workspace.root, paths)
    return [path for path in paths if current[path] != staging.original.get(path)]


def _keep_transcript(workspace: Workspace, settings: Settings, run_id: str, batch: Batch | None,
                     messages: list[dict[str, Any]], ended: str) -> None:
    first, last = (batch.first_cursor, batch.last_cursor) if batch else (0, 0)  # 0: a tidy pass
    save_transcript(workspace, run_id=run_id, first_cursor=first, last_cursor=last,
                    model=settings.model, messages=messages, ended=ended, keep=settings.keep_transcripts)


def retry_quarantined(workspace: Workspace, settings: Settings, cursor: int, *,
                      engine_factory: Callable[[Settings], Engine] = engine_for) -> RunReport:
    """Dream one quarantined entry on its own; on success it leaves the quarantine, on failure it stays.

    The workspace cursor is already past the entry, so the commit carries `Dream-Cursor-Reset` with the
    current cursor: a later fast-forward from this commit must not move the cursor back to the entry.
    """
    report = RunReport(run_id=new_run_id(), model=settings.model, trigger="retry",
                       started=datetime.now(UTC).isoformat(timespec="seconds"))
    clock = time.monotonic()
    try:
        with workspace_lock(workspace):
            _retry_locked(workspace, settings, report, cursor, engine_factory)
    except WorkspaceBusy as exc:
        report.outcome, report.reason = "busy", str(exc)
    report.finished = datetime.now(UTC).isoformat(timespec="seconds")
    report.duration_s = round(time.monotonic() - clock, 3)
    append_record(workspace, _record(report))
    return report


def _retry_locked(workspace: Workspace, settings: Settings, report: RunReport, cursor: int,
                  engine_factory: Callable[[Settings], Engine]) -> None:
    try:
        entries = load_quarantine(workspace)
    except QuarantineUnreadable as exc:
        report.outcome, report.reason = "failed", str(exc)
        return
    held = next((e for e in entries if e.cursor == cursor), None)
    if held is None:
        report.outcome, report.reason = "failed", f"entry #{cursor} is not in quarantine"
        return
    entry = _find_entry(workspace, cursor)
    if entry is None:
        report.outcome, report.reason = "failed", f"entry #{cursor} is no longer in memory/history.jsonl"
        return
    store = GitStore(workspace)
    _prepare(workspace, store, report)
    content, _ = drop_skip_lines(entry.content)
    batch = Batch([HistoryEntry(entry.cursor, entry.timestamp, content, entry.session_key)])
    try:
        engine = engine_factory(settings) if batch.has_content else None
    except Exception as exc:
        report.outcome, report.reason = "failed", f"cannot start engine {settings.model!r}: {exc}"
        return
    mark = max(read_cursor(workspace.cursor_file), cursor)
    limits = ToolLimits(settings.max_tool_calls, settings.max_file_chars, settings.max_skill_chars)
    outcome = _dream_batch(workspace, store, settings, engine, batch, limits, report.run_id, False,
                           trailers=(f"Dream-Quarantine-Retry: {cursor}", f"Dream-Cursor-Reset: {mark}"))
    report.batches.append(outcome)
    if outcome.outcome == "failed":
        held.reason, held.retries = outcome.reason, held.retries + 1
        save_quarantine(workspace, entries)
        report.outcome, report.reason = "failed", outcome.reason
        report.failed_at = [cursor, cursor]
        return
    # Only now, after the commit: a crash before this line re-dreams the entry, it never loses it.
    save_quarantine(workspace, [e for e in entries if e.cursor != cursor])
    report.outcome = "committed" if outcome.commit else "no-change"
    report.reason = f"entry #{cursor} left the quarantine"


def _find_entry(workspace: Workspace, cursor: int) -> HistoryEntry | None:
    stream = iter_after(workspace.history_file, cursor - 1)
    found = next(stream, None)
    stream.close()
    return found if found is not None and found.cursor == cursor else None


def apply_journal(workspace: Workspace, store: GitStore, journal: Journal) -> str | None:
    """Journal first, then files, commit, cursor, and only then forget the journal: any crash is recoverable."""
    journal.save(workspace)
    write_files(workspace.root, journal.after)
    sha = store.commit(journal.message, DREAM_IDENTITY)
    _settle_cursor(workspace, journal)
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
        _settle_cursor(workspace, journal)
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
    _settle_cursor(workspace, journal)
    Journal.clear(workspace)
    return f"completed interrupted run {journal.run_id}"


def _settle_cursor(workspace: Workspace, journal: Journal) -> None:
    """After the commit: advance to the journal's range end, or set back a replaying restore's cursor."""
    if journal.cursor_reset is not None:
        write_cursor(workspace.cursor_file, journal.cursor_reset)
    else:
        _advance_cursor(workspace, journal.cursor_end)


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


def record_run(workspace: Workspace, report: RunReport) -> None:
    """Append the run record for an attempt decided outside run_dream (e.g. a scheduler that found the host busy)."""
    append_record(workspace, _record(report))


def _record(report: RunReport) -> dict[str, Any]:
    commits = report.commits
    return {
        "id": report.run_id, "start": report.started, "end": report.finished, "trigger": report.trigger,
        "outcome": report.outcome, "reason": report.reason, "entries": report.entries,
        "consumed": report.consumed, "batches": len(report.batches),
        "tokens_in": report.tokens_in, "tokens_out": report.tokens_out, "cost": report.cost,
        "commit": commits[-1] if commits else None, "commits": commits, "model": report.model,
        "duration_s": report.duration_s, "malformed_lines": report.malformed_lines, "recovered": report.recovered,
        "quarantined": report.quarantined, "failed_at": report.failed_at, "tidy": report.tidy,
        "warnings": [warning for batch in report.batches for warning in batch.warnings],
    }
