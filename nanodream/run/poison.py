"""Poisoned batches: find the entry that makes a batch fail every time, without ever dropping one silently.

A batch that has failed `split_after` times in a row (counted from the run records) is split in halves,
and halves that fail are split again, until a single entry fails on its own. That entry only becomes a
*suspect*: a provider outage also makes every single entry fail. It is quarantined only once a later
entry dreams successfully in the same run — proof that the model works and the entry is the problem.
Until then the cursor stays before it and the run reports why.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from nanodream import clock
from nanodream.backlog.history import Batch, HistoryEntry
from nanodream.backlog.quarantine import QuarantinedEntry, add_to_quarantine, preview
from nanodream.vocab import CAPACITY, Outcome, RunRecord
from nanodream.workspace import Workspace

# Single entries failing in a row with no success in between look like an outage, not poison: stop there.
MAX_SUSPECTS = 3


def failure_streak(records: Iterable[RunRecord], first_line: int) -> int:
    """How many of the latest runs failed on a batch starting at history line `first_line`.

    Attempts turned away as busy and retries of quarantined entries say nothing about the queue: skipped.
    """
    streak = 0
    for record in reversed(list(records)):
        if record.outcome == Outcome.BUSY or record.trigger == "retry":
            continue
        if record.reason.startswith(CAPACITY):  # a full file says nothing about the entries
            break
        failed_at = record.failed_at
        if record.outcome == Outcome.FAILED and isinstance(failed_at, list) and failed_at[:1] == [first_line]:
            streak += 1
            continue
        break
    return streak


@dataclass
class Suspect:
    entry: HistoryEntry
    reason: str
    outcome: Any  # the BatchOutcome of its failed attempt, relabelled "quarantined" once confirmed


@dataclass
class Isolation:
    """The state of one run's search for a poisoned entry: halves still to try, entries that failed alone."""

    queue: list[Batch] = field(default_factory=list)
    suspects: list[Suspect] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return bool(self.queue or self.suspects)

    def excluded(self) -> frozenset[int]:
        return frozenset(s.entry.offset for s in self.suspects)

    def split(self, batch: Batch) -> None:
        """Try the two halves of `batch` next, oldest first, ahead of anything else queued."""
        middle = len(batch.entries) // 2
        entries = batch.entries
        self.queue[:0] = [replace(batch, entries=entries[:middle]), replace(batch, entries=entries[middle:])]

    def suspect(self, entry: HistoryEntry, reason: str, outcome: Any) -> None:
        self.suspects.append(Suspect(entry, reason, outcome))

    def confirm(self, workspace: Workspace, run_id: str) -> list[HistoryEntry]:
        """A later entry just succeeded: quarantine the suspects (before the cursor moves past them)."""
        now = clock.now().isoformat(timespec="seconds")
        add_to_quarantine(workspace, [
            QuarantinedEntry(cursor=s.entry.cursor, timestamp=s.entry.timestamp, preview=preview(s.entry.content),
                             reason=s.reason, quarantined_at=now, run_id=run_id, line=s.entry.line,
                             offset=s.entry.offset)
            for s in self.suspects
        ])
        for suspect in self.suspects:
            suspect.outcome.outcome = Outcome.QUARANTINED
        held = [s.entry for s in self.suspects]
        self.suspects.clear()
        return held

    def unresolved(self) -> str:
        """Why the run ends with suspects it could not confirm."""
        shown = ", ".join(s.entry.describe() for s in self.suspects)
        last = self.suspects[-1].reason
        if len(self.suspects) >= MAX_SUSPECTS:
            return (f"the entries on {shown} each fail on their own and nothing after them succeeded; this looks "
                    f"like a provider or configuration problem, so nothing was quarantined (last error: {last})")
        return (f"the entry on {shown} fails on its own ({last}); it will be quarantined once a later entry dreams "
                "successfully")
