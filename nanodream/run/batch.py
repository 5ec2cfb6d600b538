"""One batch, end to end: a session over a staged copy, the guards, then the apply transaction.

Every path that dreams — the backlog loop, a split half, a quarantine retry, a tidy pass — comes through
`dream_batch`, so each honours the same limits, guards and transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from nanodream.atomic import writable
from nanodream.backlog.history import Batch, HistoryEntry
from nanodream.backlog.lookback import recent_before
from nanodream.backlog.position import Position, position_at
from nanodream.backlog.quarantine import QuarantineUnreadable, held_offsets
from nanodream.changes import FileChange
from nanodream.config import zone
from nanodream.engines import Engine, SessionError, SessionRequest, describe_error
from nanodream.memory import archive, transaction
from nanodream.memory.staging import Staging
from nanodream.prompting.prompt import session_texts
from nanodream.rejected import read_ledger, rejected_keys
from nanodream.run import askfirst, cascade, confirmations, guards, merges, noop, supersede
from nanodream.run.claims import unconfirmed
from nanodream.run.context import RunContext
from nanodream.run.pressure import relieve
from nanodream.run.report import BatchOutcome
from nanodream.run.transcripts import Transcript, save_transcript
from nanodream.safety import secret_scan
from nanodream.toolbox.tools import ToolBox
from nanodream.versioning import pending
from nanodream.versioning.commitmsg import DreamFacts, change_line, dream_message
from nanodream.vocab import FAILURES, Outcome, Trailer
from nanodream.workspace import SOUL


@dataclass(frozen=True)
class BatchHooks:
    """What a caller adds to the common path: a step right before the first write, extra commit trailers."""

    before_apply: Callable[[], None] | None = None
    trailers: tuple[tuple[Trailer, object], ...] = ()
    position: Position | None = None  # where progress stands after this batch, if not at its end (a retry)


def dream_batch(ctx: RunContext, engine: Engine | None, batch: Batch | None,
                hooks: BatchHooks = BatchHooks()) -> BatchOutcome:
    """One session over one batch (None: a tidy pass, which consumes no history), checked and applied.

    `engine` may be None only for a batch with nothing left to dream (every line was `[skip]`).
    """
    span = (batch.first_cursor, batch.last_cursor, len(batch.entries)) if batch else (0, 0, 0)
    outcome = BatchOutcome(Outcome.NO_CHANGE, *span)
    if batch is not None:
        outcome.first_line, outcome.last_line = batch.first_line, batch.last_line
    staging = Staging(ctx.workspace, _pending_overlay(ctx))
    observer = ctx.options.observer
    toolbox = ToolBox(staging, ctx.limits, redact_secrets=ctx.settings.secret_policy == "redact",
                      on_call=lambda number, name: observer.activity(f"applying tool {number}: {name}"))
    if engine is not None and (batch is None or batch.has_content):
        _session(ctx, engine, batch, toolbox, outcome)
        if outcome.outcome in FAILURES:
            return outcome
    merges.keep_dates(staging)
    askfirst.mark_ask_first(staging)
    left_out = [f"left out a rejected fact: {line}" for line in guards.drop_rejected(staging, _rejected(ctx))]
    left_out += guards.leave_out_unsafe(staging, ctx.settings)
    supersede.keep_replaced(staging, ctx.store, batch, today=archive.today(), held_back=_held_back(ctx))
    mentioned = [entry.content for entry in batch.entries] if batch else ()
    relief = relieve(staging, ctx.store, ctx.settings, ctx.limits, mentioned=mentioned)
    if relief.problems:
        outcome.capacity = True
        return outcome.fail(relief.failure)
    violations = guards.check(staging, batch, ctx.settings, ctx.limits, toolbox.refusals)
    outcome.warnings += [str(v) for v in violations if not v.blocking] + left_out
    blocking = [v for v in violations if v.blocking]
    if blocking:
        return outcome.fail("guard refused the result: " + "; ".join(str(v) for v in blocking))
    changes = staging.changes()
    outcome.changes = [change_line(change) for change in changes]
    outcome.unconfirmed = unconfirmed(outcome.summary, [change.path for change in changes])
    if ctx.dry_run:
        outcome.outcome = Outcome.DRY_RUN
        outcome.diff = "".join(change.unified_diff() for change in changes)
        return outcome
    outcome = _apply(ctx, batch, staging, outcome, hooks)
    if outcome.outcome not in FAILURES:
        confirmations.record(ctx.workspace, relief.confirmed, archive.today(),
                             present=(staging.read(archive.SOURCE) or "").split("\n"))
    return outcome


def _session(ctx: RunContext, engine: Engine, batch: Batch | None, toolbox: ToolBox,
             outcome: BatchOutcome) -> None:
    """Run the engine over the staged copy; a failure marks `outcome` failed and nothing was applied."""
    context = _lookback(ctx, batch)
    prompt, message, signals = session_texts(toolbox, ctx.store, ctx.settings, batch, context)
    request = SessionRequest(prompt.text, message.text, batch or Batch([]), ctx.options.observer.activity,
                             rejected=_rejected(ctx), skills=signals.health, user_blocks=message.blocks())
    try:
        result = engine.run(request, toolbox)
        result, account = noop.hold_to_account(engine, request, result, toolbox,
                                               text_calls=ctx.settings.tool_mode != "native")
        result = cascade.revisit(engine, request, result, toolbox, today=archive.today())
    except SessionError as exc:
        outcome.fail(exc.reason)
        spent = exc.spent  # what the failed session cost counts toward the run's budgets too
        outcome.tokens_in, outcome.tokens_out, outcome.cost = spent.tokens_in, spent.tokens_out, spent.cost
        outcome.cached_tokens, outcome.requests = spent.cached_tokens, spent.requests
        if exc.misuse and not toolbox.staging.changes():
            outcome.fail(noop.misuse_reason(exc.reason), Outcome.MODEL_NO_OP)
        _keep_transcript(ctx, batch, exc.transcript, f"failed: {outcome.reason}")
        return
    except Exception as exc:  # a bug in an engine must not escape as a traceback; nothing was applied
        outcome.fail(f"engine error: {describe_error(exc)}")
        return
    outcome.tokens_in, outcome.tokens_out, outcome.cost = result.tokens_in, result.tokens_out, result.cost
    outcome.cached_tokens = result.cached_tokens
    # They become the commit message, log and record: no credential, nothing git cannot hold.
    outcome.requests, outcome.summary = result.requests, _said(result.summary)
    outcome.warnings += result.warnings
    outcome.unkept = account.unkept
    outcome.reasons = [{key: _said(text) for key, text in r.to_dict().items()} for r in account.reasons]
    if account.no_op:
        outcome.fail(noop.no_op_reason(toolbox, account), Outcome.MODEL_NO_OP)
    _keep_transcript(ctx, batch, result.transcript, outcome.reason or "finished")


def _said(text: str) -> str:
    """The model's words as they may be kept: credentials redacted, nothing git or a record cannot hold."""
    return writable(secret_scan.redact(None, text)[0])




def _pending_overlay(ctx: RunContext) -> dict[str, str | None]:
    """A review run (and its dry run) sees memory as the pending proposals would leave it: nothing twice."""
    if ctx.review == "off":
        return {}
    return pending.pending_view(ctx.store, None if ctx.review == "all" else SOUL)


def _held_back(ctx: RunContext) -> tuple[str, ...]:
    """Files whose changes wait for a person while the archive is applied now: their replaced lines stay put."""
    return (SOUL,) if ctx.review == "soul" else ()


def _waiting(ctx: RunContext, changes: list[FileChange]) -> list[FileChange]:
    """The changes that wait for review instead of reaching the files."""
    if ctx.review == "all":
        return changes
    return [c for c in changes if c.path == SOUL] if ctx.review == "soul" else []


def _apply(ctx: RunContext, batch: Batch | None, staging: Staging, outcome: BatchOutcome,
           hooks: BatchHooks) -> BatchOutcome:
    waiting = _waiting(ctx, staging.changes())
    changes = [c for c in staging.changes() if c not in waiting]
    moved = transaction.changed_since_staged(ctx.workspace, staging, [c.path for c in changes])
    if moved:
        return outcome.fail(f"{', '.join(moved)} changed on disk during the session; nothing applied, so those "
                            "edits are kept and the batch runs again next time")
    if hooks.before_apply is not None:
        hooks.before_apply()
    position = hooks.position or _end_of(ctx, batch)
    facts = DreamFacts(run_id=ctx.run_id, model=ctx.settings.model, batch=batch, tokens_in=outcome.tokens_in,
                       tokens_out=outcome.tokens_out, cost=outcome.cost, cached_tokens=outcome.cached_tokens,
                       position=position.offset if position is not None else None, unconfirmed=outcome.unconfirmed)
    if waiting:  # first, so a crash before the position moves re-dreams a batch whose proposal is already seen
        files = {c.path: None if c.after is None else c.after.encode("utf-8", "surrogateescape") for c in waiting}
        outcome.proposal = pending.propose(ctx.store, files, dream_message(outcome.summary, waiting, facts,
                                                                            hooks.trailers))
        outcome.outcome = Outcome.COMMITTED
    if changes:
        message = dream_message(outcome.summary, changes, facts, hooks.trailers)
        try:
            outcome.commit = ctx.door.change(ctx.run_id, message, changes, transaction.Progress(position))
        except transaction.CommitFailed as exc:  # the files are back as they were: the batch runs again
            outcome.blameless = True
            return outcome.fail(str(exc))
        outcome.outcome = Outcome.COMMITTED
    elif position is not None:
        transaction.advance(ctx.workspace, position)
    return outcome


def _rejected(ctx: RunContext) -> frozenset[frozenset[str]]:
    """The whole ledger's keys: the builtin engine and the final filter honour all of it, not the excerpt."""
    return rejected_keys(read_ledger(ctx.workspace))


def _lookback(ctx: RunContext, batch: Batch | None) -> list[HistoryEntry]:
    """Already-consumed entries of the last `lookback_days` before the batch (none unless asked for)."""
    days = ctx.options.lookback_days
    if not days or batch is None or not batch.entries:
        return []
    try:
        held = held_offsets(ctx.workspace)
    except QuarantineUnreadable:
        held = frozenset()
    since = datetime.now(zone(ctx.settings.timezone)) - timedelta(days=days)
    return recent_before(ctx.workspace.history_file, batch.entries[0], since, ctx.settings.lookback_tokens, held)


def _end_of(ctx: RunContext, batch: Batch | None) -> Position | None:
    """The history position just past the batch (None for a tidy pass, which consumes no history)."""
    if batch is None:
        return None
    return position_at(ctx.workspace.history_file, batch.end_offset, batch.last_line, batch.last_cursor)


def _keep_transcript(ctx: RunContext, batch: Batch | None, messages: list[dict[str, Any]], ended: str) -> None:
    if ctx.dry_run:
        return
    first, last = (batch.first_cursor, batch.last_cursor) if batch else (0, 0)  # 0: a tidy pass
    transcript = Transcript(run_id=ctx.run_id, first_cursor=first, last_cursor=last, model=ctx.settings.model,
                            messages=messages, ended=ended)
    save_transcript(ctx.workspace, transcript, keep=ctx.settings.keep_transcripts)
