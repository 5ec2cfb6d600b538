"""One clock: the moment every date nanodream writes or compares comes from.

A run fixes its moment once (run/context.py) and its passes read the day from there; code outside a run asks
`now()` or `today()`. Nothing else reads the wall clock for a date, so a test, a replay or an evaluation pins
the whole program with one `pinned(moment)`. A pinned clock keeps moving at the wall clock's pace from the
moment it was pinned to, so what happens one after another stays in that order.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta, tzinfo

_pin: tuple[datetime, float] | None = None  # (the moment pinned to, time.monotonic() when it was pinned)


def now(tz: tzinfo = UTC) -> datetime:
    """The current moment in `tz` (UTC by default)."""
    if _pin is None:
        return datetime.now(tz)
    moment, since = _pin
    return (moment + timedelta(seconds=time.monotonic() - since)).astimezone(tz)


def today(tz: tzinfo = UTC) -> date:
    """The current day in `tz` (UTC by default: the archive's months and `until` dates are UTC days)."""
    return now(tz).date()


@contextmanager
def pinned(moment: datetime) -> Iterator[None]:
    """Every `now()` and `today()` inside starts from `moment` (timezone-aware; a naive one is taken as UTC)."""
    global _pin
    before = _pin
    _pin = (moment if moment.tzinfo else moment.replace(tzinfo=UTC), time.monotonic())
    try:
        yield
    finally:
        _pin = before
