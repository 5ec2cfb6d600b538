"""A dream's batches as MCP progress notifications, so a host shows a long dream moving instead of hanging.

The run happens on a worker thread; each notification is handed to the server's event loop and sent only
when the client asked for progress (the SDK drops it otherwise). A notification that cannot be sent — the
client went away — never stops the dream: its commits matter more than the news of them.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import anyio.from_thread

from nanodream.api import Tally
from nanodream.vocab import count_entries

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

    from nanodream.api import Batch, BatchOutcome


class BatchProgress(Tally):
    """Half a step when a batch starts, a whole one when it ends: progress always rises, as MCP requires."""

    def __init__(self, context: Context) -> None:
        super().__init__()
        self.context = context

    def batch_started(self, batch: Batch | None) -> None:
        super().batch_started(batch)
        what = count_entries(len(batch.entries)) if batch is not None else "tidy pass"
        self._send(self.number - 0.5, f"{self.batch_label()} started ({what})")

    def batch_finished(self, outcome: BatchOutcome) -> None:
        super().batch_finished(outcome)
        commit = f" {outcome.commit[:8]}" if outcome.commit else ""
        self._send(self.number, f"{self.batch_label()}: {outcome.outcome}{commit} · {self.spend()}")

    def _send(self, progress: float, message: str) -> None:
        total = max(self.batches_expected, self.number)
        with contextlib.suppress(Exception):  # a lost notification must not fail the dream it reports on
            anyio.from_thread.run(self.context.report_progress, progress, total, message)
