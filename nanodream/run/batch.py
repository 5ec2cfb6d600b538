"""One batch, end to end: the declared passes of run/pipeline.py over one staged copy, in their order.

Every path that dreams — the backlog loop, a split half, a quarantine retry, a tidy pass — comes through
`dream_batch`, so each honours the same limits, guards and transaction.
"""

from __future__ import annotations

from nanodream.backlog.history import Batch
from nanodream.engines import Engine
from nanodream.engines.facts import batch_facts
from nanodream.memory.staging import Staging
from nanodream.run.apply import pending_overlay
from nanodream.run.context import RunContext
from nanodream.run.passes import BatchHooks, BatchWork, PassResult
from nanodream.run.pipeline import BATCH_PASSES
from nanodream.run.report import BatchOutcome
from nanodream.toolbox.tools import ToolBox
from nanodream.vocab import FAILURES, Outcome

__all__ = ["BatchHooks", "dream_batch"]


def dream_batch(ctx: RunContext, engine: Engine | None, batch: Batch | None,
                hooks: BatchHooks | None = None) -> BatchOutcome:
    """One session over one batch (None: a tidy pass, which consumes no history), checked and applied.

    `engine` may be None only for a batch with nothing left to dream (every line was `[skip]`). A batch a model's
    tools session failed whole as model-no-op is dreamed once more in structured mode when the engine offers it
    (`tool_mode = "auto"`): what that keeps is applied, and the run's later batches start there.
    """
    outcome = _passes(ctx, engine, batch, hooks)
    fallback = getattr(engine, "fallback", None)
    if (outcome.outcome != Outcome.MODEL_NO_OP or outcome.held_back is not None or batch is None
            or fallback is None or not batch_facts(batch)):
        return outcome  # structured mode files tagged facts: without them it has nothing to try
    twin = fallback()
    if twin is None:
        return outcome
    # The structured attempt starts with the tools session's spend, so its commit's trailers count both sessions.
    second = _passes(ctx, twin, batch, hooks, earlier=outcome)
    if second.outcome not in FAILURES:
        engine.adopt(twin)
        second.warnings.insert(0, f"the tools session could not do the job ({outcome.reason}); structured mode "
                                  "dreamed the batch again and kept it")
        return second
    if second.outcome != Outcome.MODEL_NO_OP:  # the server refused the structured request: the tools' verdict stands
        outcome.replace_spend(second)
        outcome.warnings.append(f"structured mode could not be tried: {second.reason}")
        return outcome
    second.reason = f"structured mode: {second.reason} (the tools session before it: {outcome.reason})"
    return second


def _passes(ctx: RunContext, engine: Engine | None, batch: Batch | None, hooks: BatchHooks | None,
            earlier: BatchOutcome | None = None) -> BatchOutcome:
    """One attempt at a batch: the passes in order; the first that fails the batch or ends it is the last to run.
    `earlier`: an attempt at the same batch before this one, whose sessions this one's spend counts first."""
    span = (batch.first_cursor, batch.last_cursor, len(batch.entries)) if batch else (0, 0, 0)
    outcome = BatchOutcome(Outcome.NO_CHANGE, *span)
    if earlier is not None:
        outcome.add_spend(earlier)
    if batch is not None:
        outcome.first_line, outcome.last_line = batch.first_line, batch.last_line
    staging = Staging(ctx.workspace, pending_overlay(ctx), ctx.door.committed if ctx.door is not None else None)
    observer = ctx.options.observer
    toolbox = ToolBox(staging, ctx.limits, redact_secrets=ctx.settings.secret_policy == "redact",
                      on_call=lambda number, name: observer.activity(f"applying tool {number}: {name}"))
    work = BatchWork(ctx, engine, batch, hooks or BatchHooks(), staging, toolbox, outcome)
    for each in BATCH_PASSES:
        result = each.step(work)
        _settle(outcome, result)
        if result.stops:
            break
    outcome.settle_sessions()
    return outcome


def _settle(outcome: BatchOutcome, result: PassResult) -> None:
    """Fold one pass's result into the batch outcome."""
    outcome.warnings += result.warnings
    if result.failure:
        outcome.capacity |= result.capacity
        outcome.blameless |= result.blameless
        outcome.fail(result.failure, result.failed_as)
