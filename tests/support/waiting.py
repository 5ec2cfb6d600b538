"""Waiting in tests for what a process does, never for how fast it does it.

A verdict comes from an event — a line printed, a process exited, a key gone — and the one clock is HANG, long
enough that no machine, however loaded, is that slow: it only ends a test that would otherwise wait forever on
a stuck process (a worker's 60 s timeout used to fail on a busy CI machine).
"""

from __future__ import annotations

import time
from collections.abc import Callable

HANG = 15 * 60  # seconds: a stuck process, not a slow one


def until(condition: Callable[[], object], alive: Callable[[], bool] = lambda: True, what: str = "") -> None:
    """Wait until `condition()` holds; fail at once when `alive()` says the process it depends on is gone."""
    start = time.monotonic()
    while not condition():
        assert alive(), f"{what}: the process it waited on has ended"
        assert time.monotonic() - start < HANG, f"{what}: nothing happened in {HANG} s (stuck?)"
        time.sleep(0.05)
