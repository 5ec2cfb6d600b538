"""A run's progress on stderr: a live display on a terminal, one plain line per batch anywhere else.

stdout carries only the result (or its JSON), so a pipe or cron mail gets the outcome and, on stderr, a
line per batch with no animation; a person at a terminal sees the batch, the entries consumed of the
backlog, tokens and cost so far, the elapsed time and what the session is doing, so a slow model or a
huge entry never looks like a hang.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console

from nanodream.api import RunObserver, Tally
from nanodream.vocab import FAILURES, count_entries

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from nanodream.api import Batch, BatchOutcome


class BatchLines(Tally):
    """Outside a terminal: one plain line per batch, written when it ends."""

    def __init__(self, stream: Console) -> None:
        super().__init__()
        self.out = stream

    def batch_finished(self, outcome: BatchOutcome) -> None:
        super().batch_finished(outcome)
        span = (f"#{outcome.first_cursor}..#{outcome.last_cursor} ({count_entries(outcome.entries)})"
                if outcome.entries else "tidy pass")
        landed = f"{outcome.outcome} {outcome.commit[:8]}" if outcome.commit else str(outcome.outcome)
        if not outcome.commit and outcome.proposal:  # all it changed waits for a person: nothing was committed
            landed = f"proposed {outcome.proposal[:8]} for review"
        # a failed batch ends the run, whose last line gives the reason: said once, not twice
        reason = f": {outcome.reason}" if outcome.reason and outcome.outcome not in FAILURES else ""
        self.out.print(f"{self.batch_label()}: {span} {landed}{reason} · {self.spend()} · "
                       f"{time.monotonic() - self.started:.1f}s", markup=False, highlight=False, soft_wrap=True)


class LiveProgress(Tally):
    """On a terminal: a bar over the backlog's entries, refreshed while the session works."""

    def __init__(self, progress: Progress) -> None:
        super().__init__()
        self.progress = progress
        self.task: TaskID = progress.add_task("starting", total=None, detail="")

    def backlog(self, entries: int, tokens: int, batch_tokens: int) -> None:
        super().backlog(entries, tokens, batch_tokens)
        self.progress.update(self.task, total=entries or None, description="dreaming")

    def batch_started(self, batch: Batch | None) -> None:
        super().batch_started(batch)
        what = f"{count_entries(len(batch.entries))}" if batch is not None else "tidy pass"
        self.progress.update(self.task, description=f"{self.batch_label()} ({what})", detail=self.spend(),
                             refresh=True)

    def activity(self, text: str) -> None:
        self.progress.update(self.task, detail=f"{self.spend()} · {text}")

    def batch_finished(self, outcome: BatchOutcome) -> None:
        super().batch_finished(outcome)
        self.progress.update(self.task, advance=outcome.entries, detail=f"{self.spend()} · {outcome.outcome}",
                             refresh=True)


@contextmanager
def run_progress(console: Console) -> Iterator[RunObserver]:
    """The observer that fits `console` (stderr): live on a terminal, batch lines elsewhere."""
    if not console.is_terminal:
        yield BatchLines(console)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(bar_width=24), MofNCompleteColumn(),
               TextColumn("entries"), TimeElapsedColumn(), TextColumn("{task.fields[detail]}", markup=False))
    with Progress(*columns, console=console, transient=True) as progress:
        yield LiveProgress(progress)
