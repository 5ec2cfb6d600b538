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
from nanodream.engines.facts import batch_facts
from nanodream.memory import archive, transaction
from nanodream.memory.staging import Staging
from nanodream.prompting.prompt import session_texts
from nanodream.rejected import read_ledger, rejected_keys
from nanodream.run import accounting, askfirst, confirmations, guards, merges
from nanodream.run.accounting import Account
from nanodream.run.claims import unconfirmed
from nanodream.run.context import RunContext
from nanodream.run.pressure import relieve
from nanodream.run.report import BatchOutcome
from nanodream.run.transcripts import Transcript, save_transcript
from nanodream.safety import secret_scan
from nanodream.toolbox.tools import ToolBox
from nanodream.versioning import pending
from nanodream.versioning.commitmsg import DreamFacts, change_line, dream_message
from nanodream.vocab import FAILURES, Outcome, Trailer, count_entries
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

    `engine` may be None only for a batch with nothing left to dream (every line was `[skip]`). A batch a model's
    tools session failed whole as model-no-op is dreamed once more in structured mode when the engine offers it
    (`tool_mode = "auto"`): what that keeps is applied, and the run's later batches start there.
    """
    outcome = _dream(ctx, engine, batch, hooks)
    fallback = getattr(engine, "fallback", None)
    if (outcome.outcome != Outcome.MODEL_NO_OP or outcome.held_back is not None or batch is None
            or fallback is None or not batch_facts(batch)):
        return outcome  # structured mode files tagged facts: without them it has nothing to try
    twin = fallback()
    if twin is None:
        return outcome
    second = _dream(ctx, twin, batch, hooks)
    if second.outcome not in FAILURES:
        second.add_spend(outcome)
        engine.adopt(twin)
        second.warnings.insert(0, f"the tools session could not do the job ({outcome.reason}); structured mode "
                                  "dreamed the batch again and kept it")
        return second
    if second.outcome != Outcome.MODEL_NO_OP:  # the server refused the structured request: the tools' verdict stands
        outcome.add_spend(second)
        outcome.warnings.append(f"structured mode could not be tried: {second.reason}")
        return outcome
    second.add_spend(outcome)
    second.reason = f"structured mode: {second.reason} (the tools session before it: {outcome.reason})"
    return second


def _dream(ctx: RunContext, engine: Engine | None, batch: Batch | None, hooks: BatchHooks) -> BatchOutcome:
    """One attempt at a batch: session, accounting, guards, apply."""
    span = (batch.first_cursor, batch.last_cursor, len(batch.entries)) if batch else (0, 0, 0)
    outcome = BatchOutcome(Outcome.NO_CHANGE, *span)
    if batch is not None:
        outcome.first_line, outcome.last_line = batch.first_line, batch.last_line
    staging = Staging(ctx.workspace, _pending_overlay(ctx))
    observer = ctx.options.observer
    toolbox = ToolBox(staging, ctx.limits, redact_secrets=ctx.settings.secret_policy == "redact",
                      on_call=lambda number, name: observer.activity(f"applying tool {number}: {name}"))
    account = Account()
    if engine is not None and (batch is None or batch.has_content):
        account = _session(ctx, engine, batch, toolbox, outcome)
        if outcome.outcome in FAILURES:
            return outcome
    merges.keep_dates(staging)
    askfirst.mark_ask_first(staging)
    left_out = [f"left out a rejected fact: {line}" for line in guards.drop_rejected(staging, _rejected(ctx))]
    left_out += guards.leave_out_unsafe(staging, ctx.settings)
    mentioned = [entry.content for entry in batch.entries] if batch else ()
    relief = relieve(staging, ctx.store, ctx.settings, ctx.limits, mentioned=mentioned)
    if relief.problems:
        outcome.capacity = True
        return outcome.fail(relief.failure)
    violations = guards.check(staging, batch, ctx.settings, ctx.limits, toolbox.refusals,
                              strict_corrections=not ctx.settings.offline)
    outcome.warnings += [str(v) for v in violations if not v.blocking] + left_out
    blocking = [v for v in violations if v.blocking]
    if blocking:
        return _refused(outcome, blocking)
    consumed = _consumed(batch, account, toolbox, outcome)
    if outcome.outcome in FAILURES:
        return outcome
    changes = staging.changes()
    outcome.changes = [change_line(change) for change in changes]
    outcome.unconfirmed = unconfirmed(outcome.summary, [change.path for change in changes])
    if ctx.dry_run:
        outcome.outcome = Outcome.DRY_RUN
        outcome.diff = "".join(change.unified_diff() for change in changes)
        return outcome
    outcome = _apply(ctx, consumed, staging, outcome, hooks)
    if outcome.outcome not in FAILURES:
        confirmations.record(ctx.workspace, relief.confirmed, archive.today(),
                             present=(staging.read(archive.SOURCE) or "").split("\n"))
    return outcome


def _refused(outcome: BatchOutcome, blocking: list[guards.Violation]) -> BatchOutcome:
    """A guard refused the result: a poisoned entry may be why (split to find it), or the model broke memory
    (held: a model that cannot do the job fails the same way on every half)."""
    reason = "guard refused the result: " + "; ".join(str(v) for v in blocking)
    if any(v.entry_caused for v in blocking):
        return outcome.fail(reason)
    return outcome.fail(f"{reason} — the model's edits broke memory; see `nanodream model check`",
                        Outcome.MODEL_NO_OP)


def _consumed(batch: Batch | None, account: Account, toolbox: ToolBox, outcome: BatchOutcome) -> Batch | None:
    """The part of the batch whose facts are all accounted for: what this batch may consume.

    The rest is held back as a failed batch (`outcome.held_back`) with the cursor before the first entry whose
    fact is unaccounted; when that is the first entry, the whole batch fails and nothing is applied. What was
    kept is committed with the part before it: the commit records exactly what it consumed, and a later run
    finds those facts held, so nothing is filed twice.
    """
    first = account.first_open_entry()
    if batch is None or first is None:
        return batch
    reason = accounting.unaccounted_reason(toolbox, account)
    if first == 0:
        outcome.fail(reason, Outcome.MODEL_NO_OP)
        return None
    kept, rest = Batch(batch.entries[:first]), Batch(batch.entries[first:])
    outcome.first_cursor, outcome.last_cursor, outcome.entries = kept.first_cursor, kept.last_cursor, first
    outcome.first_line, outcome.last_line = kept.first_line, kept.last_line
    outcome.held_back = BatchOutcome(Outcome.NO_CHANGE, rest.first_cursor, rest.last_cursor, len(rest.entries),
                                     first_line=rest.first_line, last_line=rest.last_line)
    outcome.held_back.fail(f"{reason}; {count_entries(first)} before it consumed", Outcome.MODEL_NO_OP)
    outcome.held_back.unaccounted = outcome.unaccounted
    return kept


def _session(ctx: RunContext, engine: Engine, batch: Batch | None, toolbox: ToolBox,
             outcome: BatchOutcome) -> Account:
    """Run the engine over the staged copy and account for the batch's facts; a failure marks `outcome` failed
    and nothing was applied."""
    context = _lookback(ctx, batch)
    prompt, message, signals = session_texts(toolbox, ctx.store, ctx.settings, batch, context)
    request = SessionRequest(prompt.text, message.text, batch or Batch([]), ctx.options.observer.activity,
                             rejected=_rejected(ctx), skills=signals.health, user_blocks=message.blocks())
    try:
        result = engine.run(request, toolbox)
        ledgers = accounting.Ledgers(proposed=lambda: _proposed_lines(ctx), strict_corrections=not ctx.settings.offline)
        result, account = accounting.hold_to_account(engine, request, result, toolbox, ledgers=ledgers,
                                                     text_calls=ctx.settings.tool_mode != "native")
    except SessionError as exc:
        _failed_session(ctx, batch, exc, toolbox, outcome)
        return Account()
    except Exception as exc:  # a bug in an engine must not escape as a traceback; nothing was applied
        outcome.fail(f"engine error: {describe_error(exc)}")
        return Account()
    outcome.tokens_in, outcome.tokens_out, outcome.cost = result.tokens_in, result.tokens_out, result.cost
    outcome.cached_tokens = result.cached_tokens
    # They become the commit message, log and record: no credential, nothing git cannot hold.
    outcome.requests, outcome.summary = result.requests, _said(result.summary)
    outcome.warnings += result.warnings
    outcome.unkept = account.unkept
    outcome.reasons = [{key: _said(text) for key, text in r.to_dict().items()} for r in account.reasons]
    outcome.unaccounted = [{"fact": item.fact.text, "entry_line": batch.entries[item.fact.entry].line if batch
                            else 0, "problem": _said(item.note)} for item in account.unaccounted]
    _keep_transcript(ctx, batch, result.transcript, outcome.reason or "finished")
    return account


def _failed_session(ctx: RunContext, batch: Batch | None, exc: SessionError, toolbox: ToolBox,
                    outcome: BatchOutcome) -> None:
    """A session that stopped: a provider error may come from an entry (split to find it); a cap, a loop or
    calls no tool can run say the model cannot do the job (held, never split)."""
    outcome.fail(exc.reason)
    spent = exc.spent  # what the failed session cost counts toward the run's budgets too
    outcome.tokens_in, outcome.tokens_out, outcome.cost = spent.tokens_in, spent.tokens_out, spent.cost
    outcome.cached_tokens, outcome.requests = spent.cached_tokens, spent.requests
    if exc.misuse and not toolbox.staging.changes():
        outcome.fail(accounting.misuse_reason(exc.reason), Outcome.MODEL_NO_OP)
    elif exc.model_fault:
        outcome.fail(f"{exc.reason}; the model could not finish the job — see `nanodream model check`",
                     Outcome.MODEL_NO_OP)
    _keep_transcript(ctx, batch, exc.transcript, f"failed: {outcome.reason}")


def _proposed_lines(ctx: RunContext) -> list[str]:
    """The lines of memory as the pending review proposals would leave it ([] without proposals)."""
    if pending.tip(ctx.store) is None:
        return []
    return [line for text in pending.pending_view(ctx.store).values() for line in (text or "").splitlines()]


def _said(text: str) -> str:
    """The model's words as they may be kept: credentials redacted, nothing git or a record cannot hold."""
    return writable(secret_scan.redact(None, text)[0])




def _pending_overlay(ctx: RunContext) -> dict[str, str | None]:
    """A review run (and its dry run) sees memory as the pending proposals would leave it: nothing twice."""
    if ctx.review == "off":
        return {}
    return pending.pending_view(ctx.store, None if ctx.review == "all" else SOUL)


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
