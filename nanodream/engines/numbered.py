"""Reasons a model gives by fact number ("2: the user said it as a joke"), read out of its answer.

A tools session may say why it keeps a tagged fact out of memory in its first answer — in `finish`'s `reasons`,
or as lines of its final text — as structured mode does in its items, so a model that leaves a fact out on purpose
needs no second request. The corrective question asks for the same form. What is read here is only what was said;
run/reasons.py judges whether it is a reason.
"""

from __future__ import annotations

import re

from nanodream.engines.claims import edit_claim

# `N: reason` as asked, and the ways models number a list anyway: "1. …", "1) …", "#1 - …", "Fact 1: …", "**1** — …".
_REASON_LINE = re.compile(r"^\s*(?:[-*•]\s+)?\**\s*(?P<label>fact\s+|#\s*)?(?P<number>\d+)\s*\**\s*"
                          r"(?P<mark>:|\.|\)|\s-|—|–)\**\s*(?P<why>.*\w.*)$", re.IGNORECASE)


def reasons_in(answer: str, count_asked: int | None = None) -> dict[int, str]:
    """The reason line of `answer` for each number (1..count_asked when given), first line per number: `N: why` as
    asked, or another numbering when what follows the number does not state an edit as done."""
    return {number: why for number, why, _ in _read(answer, count_asked)}


def without_reasons(answer: str) -> str:
    """The answer without its reason lines: what is left is a summary."""
    taken = {line for _, _, line in _read(answer, None)}
    return "\n".join(line for line in answer.splitlines() if line not in taken).strip()


def _read(answer: str, count_asked: int | None) -> list[tuple[int, str, str]]:
    found: list[tuple[int, str, str]] = []
    seen: set[int] = set()
    for line in answer.splitlines():
        match = _REASON_LINE.match(line)
        if match is None:
            continue
        number = int(match.group("number"))
        if (count_asked is not None and not 1 <= number <= count_asked) or number in seen:
            continue
        why = match.group("why").strip()
        as_asked = match.group("mark") == ":" and not match.group("label")
        if as_asked or not edit_claim(why):  # "1. **Updated USER.md**" is a list of claims, not of reasons
            seen.add(number)
            found.append((number, why, line))
    return found
