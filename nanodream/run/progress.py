"""What a run is doing while it does it, for whoever watches (the CLI's live display or its batch lines).

The run calls these hooks at the moments a person waiting would want to know about: how big the backlog is,
a batch starting, the session waiting for the model or applying a tool, a batch ending. The base class
ignores them all, so a run nobody watches pays nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nanodream.backlog.history import Batch
    from nanodream.run.report import BatchOutcome


class RunObserver:
    """Silent by default; override what you show."""

    def backlog(self, entries: int, tokens: int, batch_tokens: int) -> None:
        """The backlog this run starts from: entries waiting and their estimated tokens."""

    def batch_started(self, batch: Batch | None) -> None:
        """A session is about to start over `batch` (None: a tidy pass)."""

    def activity(self, text: str) -> None:
        """What the session is doing now, e.g. "waiting for the model (request 2)"."""

    def batch_finished(self, outcome: BatchOutcome) -> None:
        """A batch ended (committed, no change, failed, …)."""


SILENT = RunObserver()
