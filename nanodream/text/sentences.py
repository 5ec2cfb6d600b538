"""The prose sentences of a message: what the rules read, with code blocks, quotes and code-like lines left out.

A message is cut at sentence ends (not after an initial or a title: "Ursula K. Le Guin", "Dr. Okafor"), list
markers are dropped, and a sentence holding two statements of the person's ("… and I live in Rotterdam") is
cut in two.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“(]?[A-Z0-9])")
# Where one sentence holds two statements of the person's: "… and I live in Rotterdam", "Quick note: my …".
_CLAUSE = re.compile(r"(?::\s+|;\s+|,?\s+(?:and|but|so|because)\s+)(?=(?:I|I['’](?:m|ve|d|ll)|[Mm]y|[Ww]e)\b)")
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+")
_CODE_CHARS = frozenset("{}[]();=<>/\\`$|")


def sentences(text: str) -> Iterator[str]:
    """The prose sentences of a message: code blocks, quoted and code-like lines left out."""
    for raw in _FENCE.sub("\n", text).splitlines():
        if raw.startswith(("    ", "\t", ">")) or _looks_like_code(raw):
            continue
        line = _BULLET.sub("", raw.strip())
        for sentence in _joined_abbreviations(_SENTENCE_END.split(line)):
            yield from (part.strip() for part in _CLAUSE.split(sentence) if part.strip())


# A full stop that ends an initial or a title, not a sentence: "Ursula K. Le Guin", "Dr. Okafor".
_ABBREVIATION = re.compile(r"(?:\b[A-Z]|\b(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|vs|etc|e\.g|i\.e|approx|No))\.$")


def _joined_abbreviations(parts: list[str]) -> list[str]:
    joined: list[str] = []
    for part in parts:
        if joined and _ABBREVIATION.search(joined[-1]):
            joined[-1] = f"{joined[-1]} {part}"
        else:
            joined.append(part)
    return joined


def _looks_like_code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and sum(char in _CODE_CHARS for char in stripped) > 0.12 * len(stripped)
