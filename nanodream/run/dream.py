"""One dream run: lock → recover → batch → session → guards → apply → commit → cursor → record.

`run_dream` drains the backlog batch by batch; `retry_quarantined` dreams one set-aside entry alone. Both
go through `attempt` (lock, interrupt handling, one-line failures, the run record) and through
`batch.dream_batch` (session, guards, the apply transaction), so they honour the same limits.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from nanodream.backlog.deadletters import drop_stale, remember
from nanodream.backlog.history import Batch, BatchLimits, HistoryEntry, drop_skip_lines, entry_at, read_from
from nanodream.backlog.position import NEEDS_PERSON_HINT, Position, resume, save_position
from nanodream.backlog.quarantine import (
    QuarantinedEntry,
    QuarantineUnreadable,
    held_offsets,
    load_quarantine,
    save_quarantine,
)
from nanodream.backlog.surveyed import survey_of
from nanodream.backlog.waiting import (
    WaitingUnreadable,
    by_language,
    count_waiting,
    locate,
    next_batch,
    refresh,
    unread_rest,
)
from nanodream.config import Settings
from nanodream.engines import Engine, describe_error, engine_for
from nanodream.memory import transaction
from nanodream.memory.door import writing
from nanodream.run.apply import pass_unread
from nanodream.run.batch import BatchHooks, dream_batch
from nanodream.run.context import EngineUnavailable, RunContext, RunOptions, never_stop
from nanodream.run.phases import before_run, run_phases
from nanodream.run.pipeline import RUN_PASSES
from nanodream.run.poison import MAX_SUSPECTS, Isolation, failure_streak
from nanodream.run.records import append_record, read_records
from nanodream.run.report import NOTABLE_LIMIT, BatchOutcome, RunReport
from nanodream.run.sizing import Sizing, failed_trailer
from nanodream.versioning import pending
from nanodream.versioning.gitstate import NeedsPerson
from nanodream.vocab import (
    FAILURES,
    EntryOutcome,
    ExitCode,
    Outcome,
    Refused,
    Trailer,
    count,
    count_entries,
    entries_by_language,
    numbered,
    utc_stamp,
)
from nanodream.workspace import Workspace


def run_dream(workspace: Workspace, settings: Settings, options: RunOptions | None = None, *,
              engine_factory: Callable[[Settings], Engine] = engine_for,
              should_stop: Callable[[], str] = never_stop) -> RunReport:
    """Run dreams batch by batch until the backlog is empty or a limit, failure or stop request ends the run.

    With `options.tidy`, run one maintenance session over the memory alone instead: no history, cursor
    untouched. A KeyboardInterrupt raised mid-batch abandons that batch: a half-applied one is finished from
    its journal before the lock is let go, the attempt is recorded as failed, and the interrupt is re-raised.
    """
    ctx = RunContext(workspace, settings, options or RunOptions(), engine_factory=engine_factory,
                     should_stop=should_stop)
    return attempt(ctx, _dream_backlog)


def retry_quarantined(workspace: Workspace, settings: Settings, line: int, *,
                      engine_factory: Callable[[Settings], Engine] = engine_for) -> RunReport:
    """Dream the quarantined entry of history line `line` on its own; on success it leaves the quarantine.

    Progress is already past the entry, so the commit carries the current position (and, for nanobot's
    `.dream_cursor`, `Dream-Cursor-Reset`): a later fast-forward from this commit never moves progress back.
    """
    ctx = RunContext(workspace, settings, RunOptions(trigger="retry"), engine_factory=engine_factory)
    return attempt(ctx, lambda ctx, report: _retry(ctx, report, line))


def attempt(ctx: RunContext, body: Callable[[RunContext, RunReport], None]) -> RunReport:
    """Run `body` inside the write door and record the attempt, whatever happens inside."""
    report = RunReport(run_id=ctx.run_id, model=ctx.settings.model, trigger=ctx.options.trigger,
                       tidy=ctx.options.tidy)
    clock = time.monotonic()
    interrupted = False
    try:
        with writing(ctx.workspace, preview=ctx.dry_run) as door:
            report.recovered = door.recovered
            interrupted = _guarded(replace(ctx, door=door), body, report)
    except Refused as exc:
        report.refuse(exc)
    report.finished = utc_stamp()
    report.duration_s = round(time.monotonic() - clock, 3)
    if not ctx.dry_run:
        _record(ctx.workspace, report)
    if interrupted:
        raise KeyboardInterrupt
    return report


def _guarded(ctx: RunContext, body: Callable[[RunContext, RunReport], None], report: RunReport) -> bool:
    """Run `body`; any failure becomes one line in the report. True when an interrupt abandoned the batch."""
    try:
        body(ctx, report)
    except (Refused, NeedsPerson):
        raise  # the door says these, the same way for every command
    except KeyboardInterrupt:
        report.fail("abandoned on interrupt")
        if not ctx.dry_run:  # a half-applied change is finished from its journal before the lock is let go
            report.recovered = transaction.recover(ctx.workspace, ctx.store) or report.recovered
        return True
    except Exception as exc:  # a bug or an unforeseen failure: one line, no traceback; the journal covers the rest
        report.fail(f"internal error: {describe_error(exc)}")
    return False


def _record(workspace: Workspace, report: RunReport) -> None:
    """Append the run record; a workspace the door found read-only cannot take one, and its refusal says why."""
    try:
        append_record(workspace, report.to_record())
    except OSError:
        if report.outcome != Outcome.REFUSED:
            raise


def _prepare(ctx: RunContext, report: RunReport) -> None:
    """The person's hand edits land first (unless every change waits for review), then pending proposals.

    A host's session may end with nothing applied (an abort, its idle timer): its hand edits are only vetted now,
    and land as the person's commit right before its own, so an abandoned session leaves git exactly as it was.
    """
    door = ctx.door
    if ctx.options.hosted:
        door.vet()
    elif ctx.review != "all":
        door.settle()
    report.manual_commit = door.manual_commit
    report.notices += door.notices
    if ctx.review != "off" and pending.restack(ctx.store):
        report.notices.append("pending proposals laid again on the branch's newest commit (see nanodream review)")


def _dream_backlog(ctx: RunContext, report: RunReport) -> None:
    if not ctx.dry_run:
        _prepare(ctx, report)
        if not ctx.options.tidy and not ctx.options.hosted:
            _ingest_sources(ctx, report)
    before = before_run(ctx.workspace) if ctx.settings.phases else None
    exploring = False
    try:
        if ctx.options.tidy:
            _tidy(ctx, report)
        else:
            _drain(ctx, report)
            if ctx.options.allow_empty and report.outcome == Outcome.NOTHING_TO_DO:
                report.tidy = exploring = True  # the maintenance pass, then connect explores old material
                _tidy(ctx, report)
        if before is not None:
            run_phases(ctx, report, before, exploring, RUN_PASSES)
        if report.outcome == Outcome.NOTHING_TO_DO and not report.batches:
            _idle(ctx, report)
    except EngineUnavailable as exc:
        report.fail(str(exc), outcome=exc.outcome)


def _idle(ctx: RunContext, report: RunReport) -> None:
    """A run with nothing to consume indexes a share of the consumed history connect cannot search yet (an
    adopted history's older lines: insights/history_index.py), so runs that consume never pay for it."""
    if ctx.dry_run or "connect" not in ctx.settings.phases:
        return
    from nanodream.insights.history_index import backfill

    if backfill(ctx.workspace, resume(ctx.workspace).position):
        report.notices.append("indexed older consumed history for connect's searches, a share per idle run")


def _ingest_sources(ctx: RunContext, report: RunReport) -> None:
    """The [[ingest]] sources become history first, inside the same door, so cron needs one command.

    A source that cannot be read, or a chunk that failed, is reported and waits for the next run; the dream
    goes ahead with the history there is. A configuration error refuses the run, like any other setting. A
    fleet job reads none: a tenant's nanodream.toml must not point the worker at paths it may read.
    """
    from nanodream.config import ConfigError, ingest_sources
    from nanodream.ingest.pipeline import IngestRequest, ingest
    from nanodream.vocab import FLEET_TRIGGER

    try:
        sources = [] if ctx.options.trigger == FLEET_TRIGGER else ingest_sources(ctx.workspace)
    except ConfigError as exc:
        raise Refused(f"configuration: {exc}", exit_code=ExitCode.USAGE) from None
    try:
        found = ingest(ctx.door, ctx.settings, IngestRequest(tuple(sources), trigger=ctx.options.trigger))
    except Refused as exc:
        if exc.exit_code in (ExitCode.NEEDS_PERSON, ExitCode.USAGE):
            raise  # a configuration mistake (a missing key, a model litellm cannot route) is the run's too
        report.notices.append(f"ingest: {exc.reason}")
        return
    if sources or found.recovered:
        report.ingest = found.to_json()


def _tidy(ctx: RunContext, report: RunReport) -> None:
    ctx.options.observer.batch_started(None)
    outcome = dream_batch(ctx, ctx.engine(), None)
    ctx.options.observer.batch_finished(outcome)
    report.batches.append(outcome)
    report.outcome, report.reason = outcome.outcome, outcome.reason
    if outcome.outcome == Outcome.FAILED:
        report.settle_failure(outcome)


@dataclass
class _Planned:
    batch: Batch
    from_split: bool
    streak: int


@dataclass
class _Backlog:
    """Where the next batch comes from: the history after the position, or the halves of a failing batch."""

    ctx: RunContext
    report: RunReport
    position: Position
    held: set[int]  # offsets of quarantined entries, passed over
    past_runs: list = field(default_factory=list)
    isolation: Isolation = field(default_factory=Isolation)
    tried: set[int] = field(default_factory=set)  # waiting entries this run has dreamed already (a dry run: previewed)
    sizing: Sizing | None = None  # how big a batch one session can take (run/sizing.py)

    def take(self) -> _Planned | None:
        """The next batch to dream, or None when the backlog is empty or the run's batch limit is reached."""
        while True:
            from_split = bool(self.isolation.queue)
            batch = self.isolation.queue.pop(0) if from_split else self._next_from_history()
            if batch is None:
                if not from_split:
                    self._pass_unread_rest()
                return None
            if len(self.report.batches) >= self.ctx.batch_limit:
                if not self.ctx.dry_run:
                    self.report.reason = (f"batch limit reached ({self.ctx.batch_limit}); "
                                          "the rest waits for the next run")
                return None
            if not from_split:
                self.report.skipped_lines += batch.skipped_lines
            if self.isolation.suspects and not batch.has_content:
                return None  # only a real session can show that the model works and the suspect is the problem
            streak = failure_streak(self.past_runs, batch.first_line)
            if not self._failed_every_time(streak, batch):
                return _Planned(batch, from_split, streak)
            self.isolation.split(batch)  # it failed every time lately: go straight to its halves

    def _next_from_history(self) -> Batch | None:
        """Entries waiting for a model first when the engine reads them, then the history after the position, as
        many as one session can take (run/sizing.py)."""
        excluded = frozenset(self.held | self.tried) | self.isolation.excluded()
        admit = self.sizing.admission() if self.sizing is not None else None
        limits = BatchLimits(self.ctx.options.max_entries, admit)
        return next_batch(self.ctx.workspace, self.position, self.ctx.settings.batch_tokens, excluded,
                          reads_everything=not self.ctx.settings.offline, limits=limits)

    def _pass_unread_rest(self) -> None:
        """A built-in run that has nothing left to read records what it passes over at the end of history as
        waiting and moves past it: otherwise a host's entry in another language would stay pending for ever."""
        if not self.ctx.settings.offline or self.ctx.dry_run:
            return
        excluded = frozenset(self.held | self.tried) | self.isolation.excluded()
        rest = unread_rest(self.ctx.workspace, self.position, excluded)
        if not rest:
            return
        self.position = pass_unread(self.ctx, rest)
        for entry, language in rest:
            self.report.note_entry(entry.line, entry.cursor, EntryOutcome.WAITING,
                                   f"left for a model ({language}): the built-in rules cannot read it whole")

    def _failed_every_time(self, streak: int, batch: Batch) -> bool:
        return (not self.ctx.dry_run and not self.isolation.active and streak >= self.ctx.settings.split_after
                and len(batch.entries) > 1)

    def hooks(self, batch: Batch) -> BatchHooks:
        """Suspects are quarantined right before the next batch is applied: its success is the proof. A batch that
        moves past sessions which failed as too big names what they cost in its commit (`Dream-Failed`)."""
        passed = self.sizing.passed(batch) if self.sizing is not None else []
        trailers = ((Trailer.FAILED, failed_trailer(passed)),) if passed else ()
        return BatchHooks(before_apply=self._quarantine_suspects if self.isolation.suspects else None,
                          trailers=trailers)

    def _quarantine_suspects(self) -> None:
        reasons = {s.entry.offset: s.reason for s in self.isolation.suspects}
        for entry in self.isolation.confirm(self.ctx.workspace, self.report.run_id):
            self.held.add(entry.offset)
            self.report.quarantined.append(entry.line)
            self.report.note_entry(entry.line, entry.cursor, EntryOutcome.QUARANTINED, reasons[entry.offset])

    def _passed(self, batch: Batch) -> None:
        """Move past a batch that succeeded, noting the entries it left waiting for a model (its apply recorded
        them); a batch of waiting entries lies behind the position and moves nothing."""
        if batch.waiting:
            return
        self.position = Position(batch.end_offset, batch.last_line, batch.last_cursor)
        for entry, language in batch.passed:
            if entry.offset < batch.end_offset:
                self.report.note_entry(entry.line, entry.cursor, EntryOutcome.WAITING,
                                       f"left for a model ({language}): the built-in rules cannot read it whole")

    def landed(self, planned: _Planned, outcome: BatchOutcome, engine: Engine | None) -> None:
        """A batch (or its part before an unaccounted fact) was consumed: what sizing learns from it."""
        if self.sizing is not None and outcome.entries:
            kept = Batch(planned.batch.entries[:outcome.entries])
            self.sizing.landed(kept, outcome, structured=bool(getattr(engine, "structured", True)))

    def settle(self, planned: _Planned, outcome: BatchOutcome) -> bool:
        """Move past a batch that succeeded, or split / suspect one that keeps failing; False ends the run."""
        batch = planned.batch
        if batch.waiting:
            self.tried |= {entry.offset for entry in batch.entries}
        if outcome.outcome not in FAILURES:
            self._passed(batch)
            for entry in batch.entries:
                if not entry.content.strip():
                    self.report.note_entry(entry.line, entry.cursor, EntryOutcome.SKIPPED, "only [skip] lines")
            return True
        if outcome.oversized and len(batch.entries) > 1 and not self.ctx.dry_run and self.sizing is not None:
            self._smaller(planned, outcome)
            return True
        poisoned = planned.from_split or self.isolation.suspects or planned.streak + 1 >= self.ctx.settings.split_after
        # A full file, git refusing the commit, a model that cannot use tools or a missing key: no poisoned entry.
        if (self.ctx.dry_run or outcome.capacity or outcome.blameless or outcome.outcome != Outcome.FAILED
                or not poisoned):
            self.report.settle_failure(outcome, at=(batch.first_line, batch.last_line))
            return False
        if len(batch.entries) > 1:
            outcome.outcome = Outcome.SPLIT
            self.isolation.split(batch)
            return True
        self.isolation.suspect(batch.entries[0], outcome.reason, outcome)
        return len(self.isolation.suspects) < MAX_SUSPECTS


    def _smaller(self, planned: _Planned, outcome: BatchOutcome) -> None:
        """A cap stopped the session on more than one entry: the batch was too big, not the model or an entry bad.
        Remembered (before anything else), and its entries go again in a batch of at most half as many."""
        assert self.sizing is not None
        batch = planned.batch
        self.sizing.too_big(batch, outcome.oversized, outcome, self.report.run_id)
        half = max(1, len(batch.entries) // 2)
        outcome.outcome = Outcome.SPLIT
        outcome.reason = (f"{outcome.reason} on {count_entries(len(batch.entries))}: too big for one session; "
                          f"dreamed again at most {count_entries(half)} at a time")
        if planned.from_split:
            self.isolation.split(batch)  # a half of a search for a poisoned entry: its own halves come next


def _backlog(ctx: RunContext, report: RunReport) -> _Backlog | None:
    """Where the run's batches come from: past the quarantine (capacity holds released first), from the position;
    None when the quarantine or the waiting ledger cannot be read (the report says why)."""
    try:
        held = set(held_offsets(ctx.workspace))
        if not ctx.dry_run and not ctx.options.hosted:
            _release_capacity_holds(ctx, report)
            held = set(held_offsets(ctx.workspace))
        start = _resume(ctx, report)
    except (QuarantineUnreadable, WaitingUnreadable) as exc:
        report.fail(str(exc))
        return None
    return _Backlog(ctx, report, start, held, read_records(ctx.workspace, limit=200),
                    sizing=Sizing(ctx.workspace, ctx.settings, keep=not ctx.dry_run))


def _drain(ctx: RunContext, report: RunReport) -> None:
    backlog = _backlog(ctx, report)
    if backlog is None:
        return
    observer = ctx.options.observer
    while not _stop_requested(ctx, report):
        observer.activity("reading the next batch of history")
        planned = backlog.take()
        if planned is None:
            break
        engine = ctx.engine() if planned.batch.has_content else None
        observer.batch_started(planned.batch)
        outcome = dream_batch(ctx, engine, planned.batch, backlog.hooks(planned.batch))
        # a batch whose part before it could not be applied fails as a whole, the usual way
        held_back = outcome.held_back if outcome.outcome not in FAILURES else None
        outcome.held_back = None
        observer.batch_finished(outcome)
        report.batches += [outcome, held_back] if held_back else [outcome]
        if outcome.outcome not in FAILURES and not ctx.dry_run:
            backlog.landed(planned, outcome, engine)
        if held_back is not None:  # its first entries are consumed; the rest ends the run, the cursor before it
            report.settle_failure(held_back, at=(held_back.first_line, held_back.last_line))
            return
        if not backlog.settle(planned, outcome):
            if report.outcome in FAILURES or report.outcome == Outcome.BLOCKED:
                return  # a plain failure, a full file, a model that cannot use tools: the run ends on this batch
            break  # too many suspects: _conclude says why
        report.reason = _budget_exhausted(report, ctx.settings)
        if report.reason:
            break
    _conclude(report, backlog.isolation, ctx.dry_run)
    _still_waiting(ctx, report, backlog.position)


def _still_waiting(ctx: RunContext, report: RunReport, position: Position) -> None:
    """Say how many entries wait for a model once the run is over: those it recorded and any after the position
    (a built-in run leaves them there until it has something to read past them)."""
    after = survey_of(ctx.workspace, position, ctx.settings.max_cursor_jump, keep=False)
    try:
        languages = count_waiting(ctx.workspace, position, after)
    except WaitingUnreadable:
        return
    report.waiting_for_model = sum(languages.values())
    if not report.waiting_for_model:
        return
    shown = entries_by_language(by_language(languages), report.waiting_for_model)
    waits, them = ("waits", "it") if report.waiting_for_model == 1 else ("wait", "them")
    note = (f"{count_entries(report.waiting_for_model)} {waits} for a model ({shown}): the built-in rules cannot "
            f"read {them} whole, and the next run with a model takes {them} first")
    if report.outcome == Outcome.NOTHING_TO_DO:
        report.reason = f"nothing to do; {note}"
    else:
        report.notices.append(note)


def _resume(ctx: RunContext, report: RunReport) -> Position:
    """Where reading starts, with every dead letter and cursor anomaly after it reported (and dead letters kept).

    Raises NeedsPerson when history.jsonl was rewritten so that no place in it can be trusted.
    """
    resumed = resume(ctx.workspace)
    if resumed.needs_person:
        raise NeedsPerson(resumed.needs_person, NEEDS_PERSON_HINT)
    _follow_waiting(ctx, report, resumed.position)
    if resumed.notice:
        report.notices.append(resumed.notice)
        if resumed.anomaly:
            report.anomalies.append(resumed.notice)
        if not ctx.dry_run:
            save_position(ctx.workspace, resumed.position)  # repaired once, not re-derived every run
    if not ctx.dry_run:
        _drop_stale_letters(ctx, report)
    found = survey_of(ctx.workspace, resumed.position, ctx.settings.max_cursor_jump, keep=not ctx.dry_run)
    ctx.options.observer.backlog(found.pending, found.tokens, ctx.settings.batch_tokens)
    report.malformed_lines = len(found.dead_letters)
    report.dead_letters = [letter.describe() for letter in found.dead_letters[:NOTABLE_LIMIT]]
    report.anomalies += [anomaly.message for anomaly in found.anomalies[:NOTABLE_LIMIT]]
    for letter in found.dead_letters:
        report.note_entry(letter.line, None, EntryOutcome.MALFORMED, letter.reason)
    for anomaly in found.anomalies:
        report.note_entry(anomaly.line, anomaly.cursor, EntryOutcome.ANOMALY, anomaly.message)
    if not ctx.dry_run:  # with none found, this still redacts a file an earlier version kept raw
        remember(ctx.workspace, found.dead_letters)
    return resumed.position


def _follow_waiting(ctx: RunContext, report: RunReport, position: Position) -> None:
    """Entries waiting for a model that the host moved are followed; those it cut away are said, and let go."""
    waiting = locate(ctx.workspace, position)
    if not ctx.dry_run:
        refresh(ctx.workspace, waiting)
    if waiting.lost:
        lines = numbered("line", [item.line for item in waiting.lost[:NOTABLE_LIMIT]])
        report.notices.append(f"{count_entries(len(waiting.lost))} that waited for a model left history.jsonl "
                              f"(rotated or rewritten by the host): {lines} of the old file")


def _drop_stale_letters(ctx: RunContext, report: RunReport) -> None:
    stale = drop_stale(ctx.workspace)
    if stale:
        lines = numbered("line", [letter.line for letter in stale[:NOTABLE_LIMIT]])
        report.notices.append(f"dropped {count(len(stale), 'dead letter')} history.jsonl no longer holds (rotated "
                              f"or rewritten): {lines} of the old file")


def _stop_requested(ctx: RunContext, report: RunReport) -> bool:
    stop = ctx.should_stop() if report.batches else ""
    if stop:
        report.reason = stop
    return bool(stop)


def _conclude(report: RunReport, isolation: Isolation, dry_run: bool) -> None:
    """The run's outcome once its loop ended without a plain failure."""
    note = f" ({report.reason})" if report.reason else ""
    if isolation.suspects:
        first = isolation.suspects[0].entry.line
        report.fail(isolation.unresolved() + note, at=(first, first))
        return
    if report.batches and report.consumed is None and not dry_run:
        first = report.batches[0]
        if all(batch.oversized for batch in report.batches):  # not a poisoned entry: no streak toward a split
            report.fail(f"{report.batches[-1].reason}; the next run takes the smaller batch{note}")
            return
        # Only failed halves: a limit or a stop cut the search short and nothing moved.
        report.fail(f"{report.batches[-1].reason}; stopped while splitting the failing batch{note}",
                    at=(first.first_line, first.last_line))
        return
    if report.quarantined:
        shown = ", ".join(f"line {line}" for line in report.quarantined)
        quarantined = f"quarantined {shown}: failed on its own while later entries succeeded (nanodream quarantine)"
        report.reason = f"{quarantined}; {report.reason}" if report.reason else quarantined
    if report.batches:
        report.outcome = Outcome.DRY_RUN if dry_run else (Outcome.COMMITTED if report.commits else Outcome.NO_CHANGE)
    elif not report.reason:
        report.reason = "the backlog is empty"


def _budget_exhausted(report: RunReport, settings: Settings) -> str:
    used = report.tokens_in + report.tokens_out
    if used >= settings.max_run_tokens:
        return f"run token budget reached ({used} >= {settings.max_run_tokens}); the rest waits for the next run"
    cost = report.cost
    if settings.max_cost is not None and cost is not None and cost >= settings.max_cost:
        return f"run cost budget reached (${cost:.4f} >= ${settings.max_cost:.4f}); the rest waits"
    return ""


# one quarantined entry ----------------------------------------------------------------------------------


def _retry(ctx: RunContext, report: RunReport, line: int) -> None:
    try:
        entries = load_quarantine(ctx.workspace)
    except QuarantineUnreadable as exc:
        report.fail(str(exc))
        return
    held = next((e for e in entries if e.line == line or (e.line == 0 and e.cursor == line)), None)
    if held is None:  # entries held before positions are named by their cursor
        shown = ", ".join(f"line {n}" for n in sorted(e.line or e.cursor for e in entries)) or "none"
        raise Refused(f"line {line} is not in quarantine (quarantined: {shown})", exit_code=ExitCode.USAGE)
    entry = _locate(ctx.workspace, held)
    if entry is None:
        report.fail(f"the entry of {held.describe()} is no longer in memory/history.jsonl")
        return
    _prepare(ctx, report)
    try:
        outcome = _redream(ctx, entry)
    except EngineUnavailable as exc:
        report.fail(str(exc), outcome=exc.outcome)
        return
    report.batches.append(outcome)
    if outcome.outcome in FAILURES:
        held.reason, held.retries = outcome.reason, held.retries + 1
        save_quarantine(ctx.workspace, entries)
        report.settle_failure(outcome, at=(entry.line, entry.line))
        return
    # Only now, after the commit: a crash before this line re-dreams the entry, it never loses it.
    save_quarantine(ctx.workspace, [e for e in entries if e is not held])
    report.outcome = Outcome.COMMITTED if outcome.commit else Outcome.NO_CHANGE
    report.reason = f"the entry of {entry.describe()} left the quarantine"


def _redream(ctx: RunContext, entry: HistoryEntry) -> BatchOutcome:
    """Dream one entry behind the position on its own; its commit never moves progress back."""
    content, _ = drop_skip_lines(entry.content)
    batch = Batch([replace(entry, content=content)])
    now = resume(ctx.workspace).position
    mark = max(now.cursor, entry.cursor)
    hooks = BatchHooks(trailers=((Trailer.QUARANTINE_RETRY, entry.line), (Trailer.CURSOR_RESET, mark)),
                       position=now if now.offset >= entry.end else None)
    return dream_batch(ctx, ctx.engine() if batch.has_content else None, batch, hooks)


def _release_capacity_holds(ctx: RunContext, report: RunReport) -> None:
    """Entries an older nanodream quarantined because a file was full were never poison: dream them again."""
    entries = load_quarantine(ctx.workspace)
    for held in [e for e in entries if "over its cap" in e.reason]:
        entry = _locate(ctx.workspace, held)
        outcome = _redream(ctx, entry) if entry is not None else None
        if outcome is None or outcome.outcome in FAILURES:
            continue  # still held, with its old reason; `nanodream quarantine` shows it
        report.batches.append(outcome)
        entries.remove(held)
        save_quarantine(ctx.workspace, entries)
        report.notices.append(f"released {held.describe()} from quarantine: it was held for a full file, "
                              "not a poisoned entry, and is now dreamed")


def _locate(workspace: Workspace, held: QuarantinedEntry) -> HistoryEntry | None:
    """The held entry in history.jsonl: at its offset, or (quarantined before positions) by its cursor."""
    if held.offset >= 0:
        return entry_at(workspace.history_file, held.offset, held.line)
    return next((item for item in read_from(workspace.history_file)
                 if isinstance(item, HistoryEntry) and item.cursor == held.cursor), None)


def record_run(workspace: Workspace, report: RunReport) -> None:
    """Append the run record for an attempt decided outside run_dream (e.g. a scheduler that found the host busy)."""
    append_record(workspace, report.to_record())
