"""When a fact stopped being true, written on its own line: the archive's form for a replaced fact.

A fact a later one replaced is not erased: it moves to `memory/archive/` as one readable line that says until
which day it was true (the date of the history entry that replaced it) and what replaced it:

    - Lives in Lisbon (until 2026-11-02; replaced by: Lives in Porto)
    - Lives in Lisbon (from 2026-03-14 until 2026-11-02; replaced by: Lives in Porto)
    - Uses Nomad for deploys (until 2026-11-02)

`from` is the day it became true when a history entry says so. The active files never carry this form: a
line in it is not a current fact, so nothing counts it as holding a fact (`is_replaced`), and a fact that
becomes true again is filed again.

An active line may open with the day it was stated, "(2026-05-01) The launch deadline is June 1."
(`split_dated`): the day is no part of the fact, so a correction compares with what follows it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

_COMMENT = re.compile(r"\s*<!--.*?-->\s*")
_DATED = re.compile(r"^\((\d{4}-\d{2}-\d{2})\)\s*(.*)$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_FORM = re.compile(
    r"^(?P<text>.*?\S)\s*\((?:from\s+(?P<since>\d{4}-\d{2}-\d{2})\s+)?until\s+(?P<until>\d{4}-\d{2}-\d{2})"
    r"(?:;\s*replaced\s+by:\s*(?P<successor>.*?))?\)\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Validity:
    """A replaced fact: its text as it was, the day it stopped being true, what replaced it, when it began."""

    text: str
    until: date
    successor: str = ""  # "" when nothing took its place ("no longer …" with no new value)
    since: date | None = None  # None when no history entry said when it became true

    def covers(self, day: date) -> bool:
        """Whether the fact was true on `day`: from its start (or always, when unknown) to the day before `until`."""
        return (self.since is None or self.since <= day) and day < self.until


def split_dated(text: str) -> tuple[date | None, str]:
    """"(YYYY-MM-DD) body" → (day, body); an undated or misdated line has no day (and is never pruned)."""
    match = _DATED.match(text)
    if match is None:
        return None, text
    try:
        return date.fromisoformat(match.group(1)), match.group(2)
    except ValueError:
        return None, text


def fact_of(line: str) -> str:
    """A memory line's fact as the until-form quotes it: no bullet, no marker comment, no closing full stop (nor
    the ideographic one: "我住在上海。")."""
    text = _COMMENT.sub(" ", _BULLET.sub("", line)).strip()
    return text[:-1].rstrip() if text.endswith((".", "。")) and not text.endswith("..") else text


def replaced_line(old: str, until: date, successor: str = "", since: date | None = None) -> str:
    """The archive line for `old`, true until `until` and then replaced by `successor`."""
    start = f"from {since.isoformat()} " if since is not None and since < until else ""
    follows = f"; replaced by: {fact_of(successor)}" if fact_of(successor) else ""
    return f"- {fact_of(old)} ({start}until {until.isoformat()}{follows})"


def parse_validity(line: str) -> Validity | None:
    """The validity a line states in the until-form, or None for any other line (or an impossible date)."""
    match = _FORM.match(_COMMENT.sub(" ", _BULLET.sub("", line)).strip())
    if match is None:
        return None
    try:
        until = date.fromisoformat(match.group("until"))
        since = date.fromisoformat(match.group("since")) if match.group("since") else None
    except ValueError:
        return None
    return Validity(match.group("text").strip(), until, (match.group("successor") or "").strip(), since)


def is_replaced(line: str) -> bool:
    """True for a line in the until-form: a fact that was replaced, which holds no current fact."""
    return parse_validity(line) is not None
