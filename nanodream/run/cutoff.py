"""The cut-off: a commit holds only what the history it consumes taught.

When a fact of the batch is neither kept nor explained, the cursor stays before its entry, and that entry and the
ones after it wait for a later run. Whatever the session wrote for their facts waits with them: the lines that keep
only a waiting entry's fact are taken out of the staged files before anything is checked or applied (a changed
line goes back to what it was, a new skill goes away), so the commit for entries 2–6 never adds a fact of entry 7,
and `why` always finds the entry behind a line. This runs right after the session, so every later pass — the
archive of replaced lines, the holds, the guards — sees the narrowed batch and the files as they will land.
"""

from __future__ import annotations

from dataclasses import replace
from difflib import SequenceMatcher

from nanodream.backlog.history import Batch
from nanodream.engines.facts import BatchFact, holds
from nanodream.rejected import fact_text
from nanodream.run.accounting import Account, unaccounted_reason
from nanodream.run.passes import DONE, BatchWork, PassResult
from nanodream.run.report import BatchOutcome
from nanodream.vocab import Outcome, count_entries


def cut_off(work: BatchWork) -> PassResult:
    """Narrow the batch to the entries before the first with an unaccounted fact and take the later entries'
    lines back out; a batch whose first entry is open is failed later, by the accounting pass."""
    batch, account = work.batch, work.account
    first = account.first_open_entry()
    if batch is None or not first:
        return DONE
    waiting = [item.fact for item in account.facts if item.fact.entry >= first]
    consumed = [item.fact for item in account.facts if item.fact.entry < first]
    taken = _take_back(work, waiting, consumed)
    work.outcome.held_back = _held_back(work, replace(batch, entries=batch.entries[first:]), first)
    work.batch = replace(batch, entries=batch.entries[:first])  # what it passed over beyond the cut: never reached
    _narrow(work.outcome, work.batch)
    work.account = Account([item for item in account.facts if item.fact.entry < first], account.asked)
    note = f"{taken} lines for the facts of entries that wait were left for their own run" if taken else ""
    return PassResult(warnings=(note,) if note else ())


def _take_back(work: BatchWork, waiting: list[BatchFact], consumed: list[BatchFact]) -> int:
    """Take the lines that keep only a waiting fact out of every changed file; how many were taken."""
    staging, taken = work.staging, 0
    for change in staging.changes():
        before, after = (change.before or "").split("\n"), (change.after or "").split("\n")
        kept, count = _without(before, after, waiting, consumed)
        if count:
            taken += count
            staging.write(change.path, None if change.before is None and not _facts(kept) else "\n".join(kept))
    return taken


def _without(before: list[str], after: list[str], waiting: list[BatchFact],
             consumed: list[BatchFact]) -> tuple[list[str], int]:
    """`after` with the added lines that keep only waiting facts taken out; a change made only of such lines goes
    back to what `before` had there."""
    result, taken = [], 0
    for tag, start, end, new_start, new_end in SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        added = after[new_start:new_end]
        if tag == "equal":
            result += added
            continue
        waits = [line for line in added if _only_waiting(line, waiting, consumed)]
        if waits and len(waits) == len([line for line in added if fact_text(line)]):
            result += before[start:end]  # the whole change was for waiting facts: as it was
        else:
            result += [line for line in added if line not in waits]
        taken += len(waits)
    return result, taken


def _only_waiting(line: str, waiting: list[BatchFact], consumed: list[BatchFact]) -> bool:
    text = fact_text(line)
    if not text:
        return False

    def kept(fact: BatchFact) -> bool:
        return holds(text, fact.text, correction=fact.is_correction)

    return any(kept(fact) for fact in waiting) and not any(kept(fact) for fact in consumed)


def _facts(lines: list[str]) -> list[str]:
    return [text for line in lines if (text := fact_text(line)) and not text.startswith(("name:", "description:"))]


def _narrow(outcome: BatchOutcome, kept: Batch) -> None:
    outcome.first_cursor, outcome.last_cursor, outcome.entries = kept.first_cursor, kept.last_cursor, len(
        kept.entries)
    outcome.first_line, outcome.last_line = kept.first_line, kept.last_line


def _held_back(work: BatchWork, rest: Batch, first: int) -> BatchOutcome:
    held = BatchOutcome(Outcome.NO_CHANGE, rest.first_cursor, rest.last_cursor, len(rest.entries),
                        first_line=rest.first_line, last_line=rest.last_line)
    reason = unaccounted_reason(work.toolbox, work.account)
    held.fail(f"{reason}; {count_entries(first)} before it consumed", Outcome.MODEL_NO_OP)
    held.unaccounted = work.outcome.unaccounted
    return held
