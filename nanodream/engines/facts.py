"""The batch's tagged facts, and the tests that say whether a memory line holds one or is corrected by one.

Every engine and the accounting after a session share these, so "kept" means one thing: a line holds a fact
when it says the fact's words (order, case, punctuation and the file's own subject aside — "Prefers dark mode"
in USER.md holds "User prefers dark mode"), or restates it closely while keeping every name and number. A
`[correction]` is held by a line that says its new part: "Project kiwi now deploys with Kubernetes, not Nomad"
is held by "Project kiwi deploys with Kubernetes on host atlas", and corrects the line still saying Nomad.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nanodream.backlog.history import Batch, tagged_lines
from nanodream.engines.routing import parse_procedure, parse_task, parse_untitled_procedure
from nanodream.engines.slots import same_slot
from nanodream.text.stems import singular
from nanodream.text.words import STOPWORDS, content_words, covers, fact_key, similarity, words
from nanodream.validity import is_replaced

FACT_TAGS = ("permanent", "durable", "correction")
# How alike a line and a correction must be (text.words.similarity) for the line to say what the correction
# changed, when neither a slot nor a named old value decides it.
CORRECTION_THRESHOLD = 0.5
# Words a file implies about its lines: "User prefers X" is kept in USER.md as "Prefers X".
_SUBJECT_WORDS = frozenset({"user", "users", "agent", "assistant", "project", "should", "must", "always"})
# Words that date a statement or mark it as new without changing what it says.
_TIME_WORDS = frozenset({"now", "currently", "still", "also", "today", "anymore", "instead"})
# "…, not Nomad", "no longer X", "instead of X", "rather than X", "(was X)", "Don't X — instead Y": the value a
# correction replaces.
_REPLACED = re.compile(r"(?:,?\s*\b(?:not|no\s+longer|instead\s+of|rather\s+than|replacing|was|formerly)\b)\s+"
                       r"(?P<old>[^,;.()]+)|\((?:was|not|formerly)\s+(?P<old2>[^)]+)\)"
                       r"|^\s*(?:don['’]?t|do\s+not|stop)\s+(?P<old3>[^—–;]+?)\s*[—–;-]+\s*(?:instead\b\s*,?\s*)?",
                       re.IGNORECASE)
# A closely restated fact shares this share of its meaningful words with the line.
RESTATED = 0.6
# An archived line marked as replaced (`until …`, "replaced by …") no longer holds its fact.
_REPLACED_MARK = re.compile(r"<!--[^>]*\b(?:until|replaced\s+by)\b|\(\s*until\s+\d{4}-\d{2}-\d{2}|\breplaced by\b",
                            re.IGNORECASE)
_TAG_PREFIX = re.compile(r"^\s*\[[a-z]+\]\s*", re.IGNORECASE)


@dataclass(frozen=True)
class BatchFact:
    """One tagged fact of a batch: its number in the batch (from 1), tag, text (tags stripped) and entry."""

    number: int
    tag: str
    text: str
    entry: int  # index of its entry in the batch

    @property
    def is_correction(self) -> bool:
        return self.tag == "correction"


def batch_facts(batch: Batch, tags: tuple[str, ...] = FACT_TAGS) -> list[BatchFact]:
    """The batch's lines tagged with one of `tags`, in history order, each text once (its first entry)."""
    found: list[BatchFact] = []
    seen: set[str] = set()
    for index, entry in enumerate(batch.entries):
        for tag, raw in tagged_lines(entry.content):
            text = strip_tag_prefix(raw)
            if tag not in tags or not text or text in seen or parse_task(text) is not None:
                continue  # "Task: …" and "Task done: …" are task state, whatever their tag
            seen.add(text)
            found.append(BatchFact(len(found) + 1, tag, text, index))
    return found


def strip_tag_prefix(text: str) -> str:
    """The text without any further leading tags ("[permanent] [durable] x")."""
    while match := _TAG_PREFIX.match(text):
        text = text[match.end():]
    return text.strip()


def marked_replaced(line: str) -> bool:
    """An archived line that says it stopped being true: the archive's until-form (validity.py, `from` day
    included), or a mark a model wrote in its own words (`until` a date, "replaced by" its successor)."""
    return is_replaced(line) or bool(_REPLACED_MARK.search(line))


def new_part(text: str) -> tuple[str, frozenset[str]]:
    """A fact without the value it replaces, and that value's words: ("Project kiwi now deploys with Kubernetes",
    {"nomad"}) for "Project kiwi now deploys with Kubernetes, not Nomad"."""
    old: set[str] = set()
    for match in _REPLACED.finditer(text):
        old |= set(words(match.group("old") or match.group("old2") or match.group("old3") or ""))
    said = _REPLACED.sub("", text).strip()
    return said, frozenset(old - STOPWORDS - set(words(said)))


def _core(text: str) -> frozenset[str]:
    """The words that carry a statement, singular: "invoice" and "invoices" say the same thing."""
    return frozenset(singular(w) for w in words(text) if w not in STOPWORDS and w not in _SUBJECT_WORDS
                     and w not in _TIME_WORDS)


def _names(text: str) -> frozenset[str]:
    """The words a restatement must keep: numbers, and names (capitalised past the first word, or in code)."""
    tokens = re.findall(r"`[^`]+`|[\w./:@+-]+", text)
    found = set()
    for position, token in enumerate(tokens):
        bare = token.strip("`.,:;")
        if any(ch.isdigit() for ch in bare) or token.startswith("`") or (position and bare[:1].isupper()):
            found |= set(words(bare))
    return frozenset(found - STOPWORDS - _SUBJECT_WORDS)


def holds(line: str, fact: str, *, correction: bool = False) -> bool:
    """The memory line `line` says the fact `fact` (a correction: its new part, without the value it replaces)."""
    if fact_key(line) == fact_key(fact) or covers(line, fact):
        return True
    said = new_part(fact)[0] if correction else fact
    want, have = _core(said), _core(line)
    if not want:
        return False
    if want <= have and (len(want) >= 2 or len(have) <= 2):
        return True
    overlap = len(want & have) / len(want)
    return overlap >= RESTATED and _names(said) <= set(words(line)) and similarity(said, line) >= CORRECTION_THRESHOLD


def corrects(correction: str, line: str) -> bool:
    """The correction replaces what `line` says: the same single-valued slot, or the line states the value the
    correction says is no longer true, about the same thing."""
    said, old = new_part(correction)
    if holds(line, correction, correction=True):
        return False
    bare = line.lstrip("-*+ ").strip()
    if same_slot(said, bare) or same_slot(said, f"User {bare[:1].lower()}{bare[1:]}"):
        return True  # a line of USER.md says "Lives in Berlin" for "User lives in Berlin"
    if old:
        subject = _core(said)
        return old <= set(words(line)) and len(subject & _core(line)) >= min(2, len(subject) - 1)
    return similarity(said, line) >= CORRECTION_THRESHOLD


def procedure_held(text: str, skills: dict[str, str], lines: list[str]) -> bool:
    """A procedure fact ("Procedure x: 1) … 2) …", "To x: 1) …") that memory holds: most of its steps are lines
    (a skill's steps, in any numbering), or the skill it names says most of its words."""
    found = parse_procedure(text) or parse_untitled_procedure(text)
    if found is None:
        return False
    said = [content_words(line) for line in lines]
    kept = sum(1 for step in found.steps if any(content_words(step) <= line for line in said if line))
    if kept * 2 >= len(found.steps):
        return True
    skill = skills.get(found.name)
    wanted = content_words(" ".join(found.steps))
    return skill is not None and len(wanted & content_words(skill)) * 2 >= len(wanted)
