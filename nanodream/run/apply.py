"""The last passes of a batch: what changed and what the summary claims, then the one transaction that lands it.

A review run's changes wait on refs/nanodream/pending instead of reaching the files; everything else is one
commit through the door (memory/transaction.py), after which the history position moves.
"""

from __future__ import annotations

from nanodream.backlog.history import Batch
from nanodream.backlog.position import Position, position_at
from nanodream.changes import FileChange
from nanodream.memory import transaction
from nanodream.memory.staging import Staging
from nanodream.run.claims import unconfirmed
from nanodream.run.context import RunContext
from nanodream.run.passes import DONE, BatchWork, PassResult
from nanodream.run.summaries import unfounded
from nanodream.versioning import pending
from nanodream.versioning.commitmsg import DreamFacts, change_line, dream_message
from nanodream.vocab import Outcome, Trailer
from nanodream.workspace import SOUL


def preview(work: BatchWork) -> PassResult:
    """Note each changed file and what the summary claims the diff does not show; a model's summary that is not
    words, or names a value memory does not hold, is dropped (the commit's subject is then the change summary,
    and its body says why). A dry run ends here."""
    outcome, changes = work.outcome, work.staging.changes()
    outcome.changes = [change_line(change) for change in changes]
    outcome.unconfirmed = unconfirmed(outcome.summary, [change.path for change in changes])
    dropped = "" if work.ctx.settings.offline else unfounded(outcome.summary, changes, _memory(work.staging))
    if dropped:
        outcome.summary = ""
        outcome.unconfirmed.append(f"{dropped}: the subject is the change summary instead")
    if not work.ctx.dry_run:
        return DONE
    outcome.outcome = Outcome.DRY_RUN
    outcome.diff = "".join(change.unified_diff() for change in changes)
    return PassResult(ends=True)


def _memory(staging: Staging) -> list[str]:
    """Every memory file as the batch leaves it: core files, skills and the archive months it staged."""
    return [staging.read(path) or "" for path in staging.existing_paths()]


def pending_overlay(ctx: RunContext) -> dict[str, str | None]:
    """A review run (and its dry run) sees memory as the pending proposals would leave it: nothing twice."""
    if ctx.review == "off":
        return {}
    return pending.pending_view(ctx.store, None if ctx.review == "all" else SOUL)


def _waiting(ctx: RunContext, changes: list[FileChange]) -> list[FileChange]:
    """The changes that wait for review instead of reaching the files."""
    if ctx.review == "all":
        return changes
    return [c for c in changes if c.path == SOUL] if ctx.review == "soul" else []


def apply(work: BatchWork) -> PassResult:
    """Propose what waits for review, commit the rest through the door, then move the history position."""
    ctx, batch, staging, outcome, hooks = work.ctx, work.batch, work.staging, work.outcome, work.hooks
    waiting = _waiting(ctx, staging.changes())
    changes = [c for c in staging.changes() if c not in waiting]
    moved = transaction.changed_since_staged(ctx.workspace, staging, [c.path for c in changes])
    if moved:
        return PassResult(failure=f"{', '.join(moved)} changed on disk during the session; nothing applied, so "
                                  "those edits are kept and the batch runs again next time")
    if hooks.before_apply is not None:
        hooks.before_apply()
    position = hooks.position or _end_of(ctx, batch)
    facts = DreamFacts(run_id=ctx.run_id, model=ctx.settings.model, batch=batch, tokens_in=outcome.tokens_in,
                       tokens_out=outcome.tokens_out, cost=outcome.cost, cached_tokens=outcome.cached_tokens,
                       position=position.offset if position is not None else None, unconfirmed=outcome.unconfirmed,
                       sessions=outcome.sessions)
    if waiting:  # first, so a crash before the position moves re-dreams a batch whose proposal is already seen
        files = {c.path: None if c.after is None else c.after.encode("utf-8", "surrogateescape") for c in waiting}
        outcome.proposal = pending.propose(ctx.store, files, dream_message(outcome.summary, waiting, facts,
                                                                            hooks.trailers))
        outcome.outcome = Outcome.COMMITTED
    notes: tuple[str, ...] = ()
    if work.held is not None:  # on top of the review lane's proposal, before the position moves like it
        held = work.held
        message = dream_message(held.summary(), held.changes, facts, (*hooks.trailers, (Trailer.HELD, held.trailer())))
        sha = pending.propose_change(ctx.store, {c.path: (_bytes(c.before), _bytes(c.after)) for c in held.changes},
                                     message) or pending.tip(ctx.store) or ""
        outcome.proposal = outcome.proposal or sha
        outcome.outcome = Outcome.COMMITTED
        notes = (f"held-back lines wait as proposal {sha[:8]}: `nanodream review` shows them, `nanodream review "
                 f"accept {sha[:8]}` lands them",)
    if changes:
        message = dream_message(outcome.summary, changes, facts, hooks.trailers)
        try:
            outcome.commit = ctx.door.change(ctx.run_id, message, changes, transaction.Progress(position))
        except transaction.CommitFailed as exc:  # the files are back as they were: the batch runs again
            return PassResult(failure=str(exc), blameless=True)
        outcome.outcome = Outcome.COMMITTED
    elif position is not None:
        transaction.advance(ctx.workspace, position)
    return PassResult(warnings=notes)


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8", "surrogateescape")


def _end_of(ctx: RunContext, batch: Batch | None) -> Position | None:
    """The history position just past the batch (None for a tidy pass, which consumes no history)."""
    if batch is None:
        return None
    return position_at(ctx.workspace.history_file, batch.end_offset, batch.last_line, batch.last_cursor)
