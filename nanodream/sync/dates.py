"""Which side's change is newer: by the date of the commit that made it.

A line changed differently on both sides keeps the newer value active; git's blame of each side's version says
which commit last changed that line, and its committer date when. A skill changed on both sides keeps the one
whose last change is newer. The same second on both sides — or a line git cannot date — cannot be told apart:
then both wait for a person (versioning/merge.py).
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from nanodream import clock
from nanodream.versioning.gitstore import GitStore
from nanodream.versioning.merge import Conflict, Side
from nanodream.versioning.remote import last_change, line_times


class CommitDates:
    """The merge's clock for a sync: `ours` and `theirs` are the two tips, `base` what they share (None: nothing)."""

    def __init__(self, store: GitStore, base: str | None, ours: str | None, theirs: str) -> None:
        self.store, self.base, self.tips = store, base, {"ours": ours, "theirs": theirs}
        self._blamed: dict[tuple[str, str], list[int | None]] = {}

    def line(self, conflict: Conflict) -> Side | None:
        ours, theirs = self._when(conflict, "ours"), self._when(conflict, "theirs")
        return _newer(ours, theirs)

    def file(self, path: str) -> Side | None:
        ours, theirs = (last_change(self.store, self.base, tip, path) if tip else None
                        for tip in self.tips.values())
        return _newer(ours, theirs)

    def day(self, conflict: Conflict, side: Side) -> date:
        when = self._when(conflict, side)
        return clock.today() if when is None else datetime.fromtimestamp(when, UTC).date()

    def _when(self, conflict: Conflict, side: Side) -> int | None:
        tip = self.tips[side]
        if tip is None:
            return None
        key = (tip, conflict.path)
        if key not in self._blamed:
            self._blamed[key] = line_times(self.store, tip, conflict.path)
        times = self._blamed[key]
        index = conflict.ours_line if side == "ours" else conflict.theirs_line
        return times[index] if 0 <= index < len(times) else None


def _newer(ours: int | None, theirs: int | None) -> Side | None:
    if ours is None or theirs is None or ours == theirs:
        return None
    return "ours" if ours > theirs else "theirs"
