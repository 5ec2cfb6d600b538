"""The one clock: pinned once, it moves on from there; nothing else in nanodream reads the wall clock for a date."""

from __future__ import annotations

import ast
from datetime import UTC, date, datetime, timedelta, timezone

from nanodream import clock
from tests.support.paths import REPO

NOON = datetime(2031, 2, 28, 12, tzinfo=UTC)


def test_a_pinned_clock_starts_at_its_moment_moves_forward_and_is_restored_after():
    before = clock.now()
    with clock.pinned(NOON):
        first = clock.now()
        second = clock.now()
        assert timedelta(0) <= first - NOON < timedelta(minutes=1)
        assert second >= first
        assert clock.today() == date(2031, 2, 28)
        assert clock.today(timezone(timedelta(hours=13))) == date(2031, 3, 1)  # the day in another zone
    assert clock.now() >= before and clock.now().year != 2031


def test_pins_nest_and_a_naive_moment_is_utc():
    with clock.pinned(datetime(2030, 1, 1, 12)), clock.pinned(NOON):
        assert clock.today() == date(2031, 2, 28)
    with clock.pinned(datetime(2030, 1, 1, 12)):
        assert clock.now().tzinfo is not None and clock.today() == date(2030, 1, 1)


WALL_CLOCK = {("datetime", "now"), ("datetime", "today"), ("datetime", "utcnow"), ("date", "today")}


def test_no_module_but_the_clock_reads_the_wall_clock_for_a_date():
    readers = []
    for path in (REPO / "nanodream").rglob("*.py"):
        if path.name == "clock.py" and path.parent.name == "nanodream":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and (node.func.value.id, node.func.attr) in WALL_CLOCK):
                readers.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert readers == []
