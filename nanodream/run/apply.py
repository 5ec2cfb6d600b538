"""The last passes of a batch: what changed and what the summary claims, then the one transaction that lands it.

A review run's changes wait on refs/nanodream/pending instead of reaching the files; everything else is one
commit through the door (memory/transaction.py), after which the history position moves.
"""

from __future__ import annotations

from dataclasses import replace

from nanodream.backlog.history import Batch, HistoryEntry
from nanodream.backlog.position import Position, position_at, resume
from nanodream.backlog.waiting import as_waiting, entry_key
from nanodream.changes import FileChange
from nanodream.engines.claims import unconfirmed
from nanodream.memory import transaction
from nanodream.memory.staging import Staging
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
    held = work.held.changes if work.held is not None else []  # what the summary claims may wait for a person
    outcome.unconfirmed = unconfirmed(outcome.summary, [change.path for change in [*changes, *held]])
    outcome.misfiled = [f"{item.fact.text} — {item.note}" for item in work.account.misfiled]
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
    # A file someone edited since the session began is merged at commit time (memory/transaction.py): their edit
    # becomes their own commit first, and this batch's lines land on top.
    if hooks.before_apply is not None:
        hooks.before_apply()
    position = hooks.position or _end_of(ctx, batch)
    trailers = hooks.trailers + _waiting_trailers(batch, position)
    facts = DreamFacts(run_id=ctx.run_id, model=ctx.settings.model, batch=batch, tokens_in=outcome.tokens_in,
                       tokens_out=outcome.tokens_out, cost=outcome.cost, cached_tokens=outcome.cached_tokens,
                       position=position.offset if position is not None else None, unconfirmed=outcome.unconfirmed,
                       misfiled=outcome.misfiled, sessions=outcome.sessions,
                       history=position.fingerprint if position is not None else "")
    if waiting:  # first, so a crash before the position moves re-dreams a batch whose proposal is already seen
        files = {c.path: None if c.after is None else c.after.encode("utf-8", "surrogateescape") for c in waiting}
        outcome.proposal = pending.propose(ctx.store, files, dream_message(outcome.summary, waiting, facts,
                                                                            trailers))
        outcome.outcome = Outcome.COMMITTED
    notes: tuple[str, ...] = ()
    if work.held is not None:  # on top of the review lane's proposal, before the position moves like it
        held = work.held
        message = dream_message(held.summary(), held.changes, facts, (*trailers, (Trailer.HELD, held.trailer())))
        sha = pending.propose_change(ctx.store, {c.path: (_bytes(c.before), _bytes(c.after)) for c in held.changes},
                                     message) or pending.tip(ctx.store) or ""
        outcome.proposal = outcome.proposal or sha
        outcome.outcome = Outcome.COMMITTED
        notes = (f"held-back lines wait as proposal {sha[:8]}: `nanodream review` shows them, `nanodream review "
                 f"accept {sha[:8]}` lands them",)
        # where and why, never the line itself: what waits for a person stays off the branch, messages included
        facts = replace(facts, held=[f"{line.path} line {line.line}: {'; '.join(line.reasons)} (proposal {sha[:8]})"
                                     for line in held.lines])
    progress = _progress(batch, position, reads_everything=not ctx.settings.offline)
    if changes:
        message = dream_message(outcome.summary, changes, facts, trailers)
        try:
            outcome.commit = ctx.door.change(ctx.run_id, message, changes, progress)
        except transaction.CommitFailed as exc:  # the files are back as they were: the batch runs again
            return PassResult(failure=str(exc), blameless=True)
        outcome.outcome = Outcome.COMMITTED
        notes += tuple(ctx.door.take_notes())
    else:
        transaction.advance(ctx.workspace, position, progress)
    return PassResult(warnings=notes)


def pass_unread(ctx: RunContext, rest: list[tuple[HistoryEntry, str]]) -> Position:
    """Move the position past entries the built-in rules cannot read, recording each as waiting for a model first
    (backlog/waiting.py): a built-in run found nothing else after them."""
    last = rest[-1][0]
    position = position_at(ctx.workspace.history_file, last.end, last.line, last.cursor)
    waiting = tuple(as_waiting(entry, language) for entry, language in rest)
    transaction.advance(ctx.workspace, position, transaction.Progress(position, waiting=waiting))
    return position


def _progress(batch: Batch | None, position: Position | None, *, reads_everything: bool) -> transaction.Progress:
    """Where the position goes, the entries it passes that wait for a model (recorded first), and what an engine
    that reads everything has now read of them (released): a batch of waiting entries, or, after a replaying
    restore moved the position back, waiting entries met again in their place."""
    if batch is None:
        return transaction.Progress(position)
    end = position.offset if position is not None else -1
    passed = tuple(as_waiting(entry, language) for entry, language in batch.passed if entry.offset < end)
    released = tuple(entry_key(entry) for entry in batch.entries) if batch.waiting or reads_everything else ()
    return transaction.Progress(position, waiting=passed, released=released)


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8", "surrogateescape")


def _end_of(ctx: RunContext, batch: Batch | None) -> Position | None:
    """The history position just past the batch (None for a tidy pass, which consumes no history); for a batch of
    entries that waited for a model, which lie behind it, the position as it stands: it does not move."""
    if batch is None:
        return None
    if batch.waiting:
        return resume(ctx.workspace).position
    return position_at(ctx.workspace.history_file, batch.end_offset, batch.last_line, batch.last_cursor)


def _waiting_trailers(batch: Batch | None, position: Position | None) -> tuple[tuple[Trailer, object], ...]:
    """A commit of entries that waited for a model names them, and leaves progress (and nanobot's cursor) where
    it is, as a quarantine retry's does."""
    if batch is None or not batch.waiting or position is None:
        return ()
    return ((Trailer.WAITING, ",".join(str(entry.line) for entry in batch.entries)),
            (Trailer.CURSOR_RESET, position.cursor))
