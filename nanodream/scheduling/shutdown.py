"""Clean shutdown on SIGINT/SIGTERM: the first signal asks for a stop at the next safe point, the second abandons.

A dream batch is finished or abandoned, never left half-applied: the first signal lets the current batch end
and stops before the next one; a second signal raises KeyboardInterrupt, which `run_dream` turns into an
abandoned batch (nothing applied, or a journalled apply finished before the lock is released).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
POLL_SECONDS = 0.5


class GracefulStop:
    """Install the two-step handlers for the duration of a `with` block (main thread only)."""

    def __init__(self, on_first: Callable[[str], None] = lambda name: None) -> None:
        self.on_first = on_first
        self.signal_name = ""
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> GracefulStop:
        if threading.current_thread() is threading.main_thread():
            for number in STOP_SIGNALS:
                self._previous[number] = signal.signal(number, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous.clear()

    def _handle(self, number: int, frame: FrameType | None) -> None:
        if self.signal_name:
            raise KeyboardInterrupt
        self.signal_name = signal.Signals(number).name
        self.on_first(self.signal_name)

    def request(self, name: str = "request") -> None:
        """Ask for a stop without a signal (a supervisor thread, or a test)."""
        self.signal_name = self.signal_name or name

    @property
    def requested(self) -> bool:
        return bool(self.signal_name)

    def reason(self) -> str:
        """For run_dream's `should_stop`: why to stop, or '' to go on."""
        return f"stopped by {self.signal_name}; the rest of the backlog waits for the next run" if self.requested \
            else ""

    def sleep(self, seconds: float) -> None:
        """Sleep up to `seconds`, returning early (within POLL_SECONDS) once a stop is requested."""
        deadline = time.monotonic() + seconds
        while not self.requested:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(POLL_SECONDS, left))
