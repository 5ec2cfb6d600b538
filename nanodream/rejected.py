"""The rejected-facts ledger (memory/rejected.md): lines a person undid, which no later dream may add again.

A restore takes a dream's lines out, but the same fact often recurs elsewhere in the history; without a
record the next dream would file it again. The ledger is a tracked markdown file a person can read and
edit (deleting a line allows the fact again). Matching is by word set, so case, punctuation, a bullet
marker or word order do not let a rejected fact back in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from nanodream.atomic import read_text
from nanodream.workspace import REJECTED_FILE, Workspace

HEADER = ("# Rejected facts\n\nLines a person undid or rejected. Dreams do not add them again; delete a line here "
          "to allow it.\n\n")
_NOTE = re.compile(r"\s*<!--(.*?)-->\s*$")
_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_WORD = re.compile(r"[a-z0-9]+")
EXCERPT_FACTS = 8  # the prompt shows at most this many, so its size does not grow with the ledger
EXCERPT_CHARS = 800


@dataclass(frozen=True)
class RejectedFact:
    text: str
    note: str = ""  # where it came from: the file and the commit that rejected it


def fact_text(line: str) -> str:
    """The fact a memory line states: no bullet marker, no trailing note; "" for headings and blank lines."""
    stripped = line.strip()
    if not stripped or stripped.startswith(("#", "---", "<!--")):
        return ""
    return _NOTE.sub("", _MARKER.sub("", stripped)).strip()


def fact_key(text: str) -> frozenset[str]:
    """Same key ⇔ same fact up to case, punctuation, bullet marker and word order."""
    return frozenset(_WORD.findall(fact_text(text).lower()))


def read_ledger(workspace: Workspace) -> list[RejectedFact]:
    """Every rejected fact, oldest first; an absent or unreadable ledger holds none."""
    path = workspace.root / REJECTED_FILE
    if not path.is_file() or path.is_symlink():
        return []
    return parse(read_text(path))


def parse(text: str) -> list[RejectedFact]:
    facts = []
    for line in text.splitlines():
        if not _MARKER.match(line):
            continue
        note = _NOTE.search(line)
        fact = fact_text(line)
        if fact:
            facts.append(RejectedFact(fact, note.group(1).strip() if note else ""))
    return facts


def rejected_keys(facts: Iterable[RejectedFact]) -> frozenset[frozenset[str]]:
    return frozenset(key for fact in facts if (key := fact_key(fact.text)))


def with_rejected(current: str | None, lines: Iterable[tuple[str, str]], note: str) -> tuple[str | None, list[str]]:
    """The ledger text with `lines` ((path, line) pairs) recorded, and the facts new to it.

    The text is None when every fact is recorded already.
    """
    text = current if current else HEADER
    known = rejected_keys(parse(text))
    added = []
    for path, line in lines:
        fact, key = fact_text(line), fact_key(line)
        if fact and key and key not in known:
            known |= {key}
            added.append((fact, f"- {fact} <!-- {path} · {note} -->\n"))
    if not added:
        return None, []
    return text + ("" if text.endswith("\n") else "\n") + "".join(row for _, row in added), [f for f, _ in added]


def relevant(facts: list[RejectedFact], texts: Iterable[str]) -> list[RejectedFact]:
    """The rejected facts that share the most words with `texts` (a batch), bounded in count and size."""
    batch_words = set(_WORD.findall(" ".join(texts).lower()))
    scored = []
    for order, fact in enumerate(facts):
        key = fact_key(fact.text)
        shared = len({w for w in key if len(w) > 2} & batch_words)
        if shared:
            scored.append((-shared / max(len(key), 1), -order, fact))
    picked, size = [], 0
    for _score, _order, fact in sorted(scored, key=lambda item: item[:2]):
        size += len(fact.text) + 3
        if len(picked) == EXCERPT_FACTS or size > EXCERPT_CHARS:
            break
        picked.append(fact)
    return picked


def render_excerpt(facts: list[RejectedFact]) -> str:
    """The "do not re-add" part of the user message; "" when nothing in the ledger is relevant."""
    if not facts:
        return ""
    lines = [f"- {fact.text}" for fact in facts]
    return "\n".join(["# Rejected facts relevant to this batch (a person removed them: do not add them again, "
                      "even when the history repeats them)", *lines])
