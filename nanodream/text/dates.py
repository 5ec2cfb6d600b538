"""Relative times made absolute: "yesterday" said on 8 May 2023 is kept as "7 May 2023".

A memory is read long after it was said; "yesterday", "last week" or "next month" would then point at the
wrong day. Each is rewritten against the day the message was written, in the person's time zone.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3, "several": 3}
_PREPOSITION = r"(?:(?P<prep>since|until|till|from|before|after|by|of)\s+)?"
_AGO = re.compile(_PREPOSITION + r"\b(?P<n>\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few"
                  r"|several)\s+(?P<unit>day|week|month|year)s?\s+ago\b", re.IGNORECASE)
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_NAMED_MONTH = re.compile(r"\b(?P<which>last|next|this)\s+(?P<month>" + "|".join(MONTHS) + r")\b", re.IGNORECASE)
_LAST_WEEKDAY = re.compile(_PREPOSITION + r"\blast\s+(?P<day>" + "|".join(WEEKDAYS) + r")\b", re.IGNORECASE)


def day_text(day: date) -> str:
    """"7 May 2023": how memory writes a day (no leading zero, month by name)."""
    return f"{day.day} {day:%B} {day.year}"


def _month(day: date, step: int) -> str:
    index = day.year * 12 + day.month - 1 + step
    return f"{date(index // 12, index % 12 + 1, 1):%B} {index // 12}"


def _fixed(day: date) -> list[tuple[str, str]]:
    """(pattern, replacement) for the phrases that name one span relative to `day`."""
    before, after = day - timedelta(days=1), day + timedelta(days=1)
    return [
        (r"yesterday\s+(?P<part>morning|afternoon|evening|night)", f"on the \\g<part> of {day_text(before)}"),
        (r"yesterday", f"on {day_text(before)}"),
        (r"last\s+night", f"on the night of {day_text(before)}"),
        (r"today|this\s+morning|this\s+afternoon|this\s+evening|tonight", f"on {day_text(day)}"),
        (r"tomorrow", f"on {day_text(after)}"),
        (r"last\s+weekend", f"on the weekend before {day_text(day)}"),
        (r"(?:this|next)\s+weekend", f"on the weekend after {day_text(day)}"),
        (r"last\s+week", f"in the week before {day_text(day)}"),
        (r"this\s+week", f"in the week of {day_text(day)}"),
        (r"next\s+week", f"in the week after {day_text(day)}"),
        (r"last\s+month", f"in {_month(day, -1)}"),
        (r"this\s+month", f"in {_month(day, 0)}"),
        (r"next\s+month", f"in {_month(day, 1)}"),
        (r"last\s+year", f"in {day.year - 1}"),
        (r"this\s+year", f"in {day.year}"),
        (r"next\s+year", f"in {day.year + 1}"),
    ]


# The words every relative time holds: a sentence without one is left as it is, without trying each pattern.
_RELATIVE = re.compile(r"\b(?:yesterday|today|tonight|tomorrow|this|last|next|ago)\b", re.IGNORECASE)
_FIXED_PATTERNS = tuple(re.compile(_PREPOSITION + r"\b(?:" + pattern + r")\b", re.IGNORECASE)
                        for pattern, _ in _fixed(date(2000, 1, 1)))


def absolute(text: str, day: date | None) -> str:
    """`text` with its relative times replaced by dates counted from `day` (unchanged without a day)."""
    if day is None or not _RELATIVE.search(text):
        return text
    fixed: list[tuple[str, str]] = []
    for index, compiled in enumerate(_FIXED_PATTERNS):
        if compiled.search(text):  # the day's phrases are written out only for a sentence that needs them
            fixed = fixed or _fixed(day)
            text = compiled.sub(lambda m, r=fixed[index][1]: _joined(m, m.expand(r)), text)
    text = _AGO.sub(lambda m: _joined(m, _ago(m, day)), text)
    text = _NAMED_MONTH.sub(lambda m: f"in {_named_month(m, day)}", text)
    return _LAST_WEEKDAY.sub(lambda m: _joined(m, f"on {day_text(_previous(day, m.group('day').lower()))}"), text)


def _named_month(match: re.Match[str], day: date) -> str:
    """"next August" said in September 2026 is August 2027; "last May" said in May is the year before."""
    month = MONTHS.index(match.group("month").lower()) + 1
    which = match.group("which").lower()
    year = day.year
    if which == "next" and month <= day.month:
        year += 1
    elif which == "last" and month >= day.month:
        year -= 1
    return f"{match.group('month').capitalize()} {year}"


def _joined(match: re.Match[str], replacement: str) -> str:
    """Keep the sentence's own preposition ("since yesterday" → "since 7 May 2023") instead of adding one."""
    prep = match.group("prep")
    return f"{prep} {replacement.split(' ', 1)[1]}" if prep else replacement


def _ago(match: re.Match[str], day: date) -> str:
    raw = match.group("n").lower()
    count = int(raw) if raw.isdigit() else _NUMBERS[raw]
    unit = match.group("unit").lower()
    if unit == "day":
        vague = "on" if raw.isdigit() or raw in ("a", "an", "one") else "around"
        return f"{vague} {day_text(day - timedelta(days=count))}"
    if unit == "week":
        return f"around {day_text(day - timedelta(weeks=count))}"
    if unit == "month":
        return f"in {_month(day, -count)}"
    return f"in {day.year - count}"


def _previous(day: date, weekday: str) -> date:
    back = (day.weekday() - WEEKDAYS.index(weekday)) % 7 or 7
    return day - timedelta(days=back)
