"""Hypothesis lines: preferences the model inferred but the user never stated, kept apart until confirmed.

A hypothesis is an ordinary bullet with a visible marker and its evidence count, `- Prefers short answers
<!-- hypothesis: 2 -->`, so a person sees at a glance what was guessed. The prompt tells the model to raise
the count as more history points the same way and to drop the marker (promote it) once the user states it
or the count reaches PROMOTE_AT; the built-in engine promotes one when a tagged, stated fact matches it.
"""

from __future__ import annotations

import re

MARKER = re.compile(r"\s*<!--\s*hypothesis:\s*(\d+)\s*-->")
PROMOTE_AT = 3


def evidence(line: str) -> int | None:
    """The evidence count of a hypothesis line, None for a stated fact."""
    match = MARKER.search(line)
    return int(match.group(1)) if match else None


def without_marker(line: str) -> str:
    """The line as a stated fact: the marker (and the space before it) removed."""
    return MARKER.sub("", line).rstrip()


def marked(text: str, count: int) -> str:
    """`text` written as a hypothesis with `count` pieces of evidence."""
    return f"{without_marker(text)} <!-- hypothesis: {count} -->"
