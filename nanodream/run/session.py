"""The session pass: one engine over the batch and a staged copy of memory, then the account of its facts.

Its transcript is kept under .nanodream/transcripts under a name of its own (never fed back into history); its
tokens, cost and requests are added to the batch outcome's, which lists it among `sessions` (a batch `auto` dreams
again in structured mode has two), and its summary becomes the outcome's. A failure fails the batch and nothing it
staged is applied.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from nanodream.atomic import writable
from nanodream.backlog.history import Batch, HistoryEntry
from nanodream.backlog.lookback import recent_before
from nanodream.backlog.quarantine import QuarantineUnreadable, held_offsets
from nanodream.config import zone
from nanodream.engines import SessionError, SessionRequest, SessionResult, describe_error
from nanodream.memory.staging import Staging
from nanodream.prompting.prompt import UserMessage, session_texts
from nanodream.prompting.prompt_override import ActivePrompt
from nanodream.rejected import read_ledger, rejected_keys
from nanodream.run import accounting, revisit
from nanodream.run.context import RunContext
from nanodream.run.passes import DONE, BatchWork, PassResult
from nanodream.run.report import SessionSpend
from nanodream.run.transcripts import Transcript, save_transcript
from nanodream.safety import secret_scan
from nanodream.versioning import pending
from nanodream.vocab import FAILURES, Outcome


def session(work: BatchWork) -> PassResult:
    """Run the engine over the staged copy (a batch whose every line was `[skip]` has none to run)."""
    ctx, batch, outcome = work.ctx, work.batch, work.outcome
    if work.engine is None or (batch is not None and not batch.has_content):
        return DONE
    context = _lookback(ctx, batch)
    prompt, message, signals = session_texts(work.toolbox, ctx.store, ctx.settings, batch, context)
    in_git = _in_git(work.staging, prompt, message)
    request = SessionRequest(prompt.text, message.text, batch or Batch([]), ctx.options.observer.activity,
                             rejected=ledger_keys(ctx), skills=signals.health, user_blocks=message.blocks())
    started = time.monotonic()
    try:
        result = work.engine.run(request, work.toolbox)
        ledgers = accounting.Ledgers(proposed=lambda: _proposed_lines(ctx),
                                     strict_corrections=not ctx.settings.offline)
        result, work.account = accounting.hold_to_account(work.engine, request, result, work.toolbox,
                                                          ledgers=ledgers,
                                                          text_calls=ctx.settings.tool_mode != "native")
        result = revisit.revisit(work.engine, request, result, work.toolbox, today=ctx.day)
    except SessionError as exc:
        _failed(work, exc, Ended(in_git, time.monotonic() - started))
    except Exception as exc:  # a bug in an engine must not escape as a traceback; nothing was applied
        outcome.fail(f"engine error: {describe_error(exc)}")
    else:
        _finished(work, result, Ended(in_git, time.monotonic() - started))
    return PassResult(failure=outcome.reason, failed_as=outcome.outcome) if outcome.outcome in FAILURES else DONE


_MODE_CHARS = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Ended:
    """How long a session took, and what it started with that is already in git (its transcript need not be
    scanned for that again)."""

    in_git: tuple[str, ...]
    seconds: float


def _finished(work: BatchWork, result: SessionResult, ended: Ended) -> None:
    """The session's summary and per-fact account become the batch outcome's; its spend is added to the batch's."""
    outcome, batch, account = work.outcome, work.batch, work.account
    # They become the commit message, log and record: no credential, nothing git cannot hold.
    outcome.summary = said(result.summary)
    outcome.warnings += [said(warning) for warning in result.warnings]  # they can quote the history
    outcome.unkept = [said(fact) for fact in account.unkept]
    outcome.reasons = [{key: said(text) for key, text in r.to_dict().items()} for r in account.reasons]
    outcome.unaccounted = [{"fact": item.fact.text, "entry_line": batch.entries[item.fact.entry].line if batch
                            else 0, "problem": said(item.note)} for item in account.unaccounted]
    _count(work, result, outcome.reason or "finished", ended)


def _failed(work: BatchWork, exc: SessionError, ended: Ended) -> None:
    """A session that stopped: a provider error may come from an entry (split to find it); a cap met on more than
    one entry by a session that was editing says the batch was too big (dreamed again smaller: run/sizing.py); a
    cap on one entry or with nothing edited, a loop, or calls no tool can run say the model cannot do the job
    (held, never split)."""
    outcome = work.outcome
    outcome.fail(exc.reason)
    if exc.cap and work.batch is not None and len(work.batch.entries) > 1 and work.staging.changes():
        outcome.oversized = exc.cap  # it was doing the job and ran out of room: the batch was too big
    elif exc.misuse and not work.staging.changes():
        outcome.fail(accounting.misuse_reason(exc.reason), Outcome.MODEL_NO_OP)
    elif exc.model_fault:
        outcome.fail(f"{exc.reason}; the model could not finish the job — see `nanodream model check`",
                     Outcome.MODEL_NO_OP)
    _count(work, exc.spent, f"failed: {outcome.reason}", ended)  # a failed session's cost counts toward budgets too


def _count(work: BatchWork, spent: SessionResult, how: str, ended: Ended) -> None:
    """Keep the session's transcript under a name of its own and add its spend to the batch's."""
    mode = _MODE_CHARS.sub("-", str(getattr(work.engine, "mode", None) or work.engine.name).lower()).strip("-")
    mode = mode[:40] or "session"  # any engine's name: it names a file too
    kept = _keep_transcript(work, spent.transcript, how, ended.in_git, mode)
    work.outcome.count_session(SessionSpend(
        mode=mode, requests=spent.requests, tokens_in=spent.tokens_in, tokens_out=spent.tokens_out,
        cached_tokens=spent.cached_tokens, cost=spent.cost, seconds=round(ended.seconds, 3), ended=how[:300],
        transcript=kept.name if kept is not None else None, request_bytes=spent.request_bytes))


def _proposed_lines(ctx: RunContext) -> list[str]:
    """The lines of memory as the pending review proposals would leave it ([] without proposals)."""
    if pending.tip(ctx.store) is None:
        return []
    return [line for text in pending.pending_view(ctx.store).values() for line in (text or "").splitlines()]


def _in_git(staging: Staging, prompt: ActivePrompt, message: UserMessage) -> tuple[str, ...]:
    """What a session starts with that is already in git, so its transcript need not be scanned for it again: the
    built-in prompt, the files as last committed (as `read_file` shows them) and, when every staged file is, the
    memory files and skills index that open the user message. Taken before any tool has run."""
    files = tuple(staging.original[path] or "" for path in sorted(staging.as_committed))
    opening = "".join(message.blocks()[:2]) if staging.settled else ""
    return (prompt.text if prompt.source == "built-in" else "", opening, *files)


def said(text: str) -> str:
    """The model's words as they may be kept: credentials redacted, nothing git or a record cannot hold."""
    return writable(secret_scan.redacted(text))


def ledger_keys(ctx: RunContext) -> frozenset[frozenset[str]]:
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
    since = ctx.started.astimezone(zone(ctx.settings.timezone)) - timedelta(days=days)
    return recent_before(ctx.workspace.history_file, batch.entries[0], since, ctx.settings.lookback_tokens, held)


def _keep_transcript(work: BatchWork, messages: list[dict[str, Any]], ended: str, in_git: tuple[str, ...],
                     mode: str) -> Path | None:
    """Keep the session's transcript, named by its mode too (auto's tools and structured sessions of one batch are
    two files); `in_git`, what it opens with that is already in git, is not scanned again."""
    ctx, batch = work.ctx, work.batch
    if ctx.dry_run:
        return None
    first, last = (batch.first_cursor, batch.last_cursor) if batch else (0, 0)  # 0: a tidy pass
    transcript = Transcript(run_id=ctx.run_id, first_cursor=first, last_cursor=last, model=ctx.settings.model,
                            messages=messages, ended=ended, settled=in_git, mode=mode)
    return save_transcript(ctx.workspace, transcript, keep=ctx.settings.keep_transcripts)

