"""Which active line a new fact replaces, what value changed, and which other lines still name the old value.

A correction rarely repeats the line it corrects: "Project kiwi now deploys with Kubernetes, not Nomad."
replaces "Project kiwi deploys with Nomad on host atlas."; "User moved to Porto." replaces USER.md's "Lives in
Lisbon.". A line is found by its subject and the value that changed, by three rules, strongest first:

1. the same slot (slots.py): one subject and a single-valued relation, whatever the value;
2. the old value named outright — "not X", "instead of X", "rather than X", "no longer … X", "… X anymore",
   "from X to Y", "replaced X with Y", "left X", "stopped using X" — in a line that shares more of the sentence;
3. for a `[correction]` only, the same frame: more than half of its meaningful words (two at least) are in the
   line, and each says something the other does not (a changed value, not a refinement).

A USER.md line is about the user whether or not it says so. Words are compared by stem ("deploys" = "deployed",
"invoices" = "invoice"), and words that only date a sentence ("now", "no longer") are not part of its frame.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from nanodream.engines.slots import USER_SUBJECT, Slot, slot_of, user_slot
from nanodream.pinning import PIN
from nanodream.text.lists import wordlist
from nanodream.text.stems import singular
from nanodream.text.verbs import base_verb
from nanodream.text.words import STOPWORDS, covers, fact_key, words
from nanodream.workspace import USER

# Words that date a statement or say it changed, without being part of what it states.
FILLER = wordlist("dating-words") | wordlist("change-markers")
# A phrase of words; "." and ":" only inside a word ("Fly.io", "9:30", "5.7"), where they end no sentence.
_WORD_CHARS = r"(?:[^,;!?()\s.:]|[.:](?=\w))+"
_PHRASE = rf"{_WORD_CHARS}(?:\s+{_WORD_CHARS})*?"
_PHRASE_END = r"(?=\s+(?:and|but|for|because|since|in\s+favou?r\s+of|anymore|any\s+more)\b|[,;!?()]|[.:](?!\w)|$)"
_OLD_VALUE = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
    rf"(?:,|—|–|\(|;)\s*(?:and\s+|but\s+)?not\s+(?P<old>{_PHRASE}){_PHRASE_END}",
    rf"\b(?:instead\s+of|rather\s+than)\s+(?P<old>{_PHRASE}){_PHRASE_END}",
    rf"\bno\s+longer\s+(?:\w+\s+)(?P<old>{_PHRASE}){_PHRASE_END}",
    rf"\b(?:does\s+not|doesn['’]t|do\s+not|don['’]t|is\s+not|isn['’]t|are\s+not|aren['’]t)\s+(?:\w+\s+)?"
    rf"(?P<old>{_PHRASE})\s+any\s*more\b",
    rf"\b(?:moved|switched|migrated|changed|went|upgraded|downgraded|transferred|converted|relocated|shifted)\b"
    rf"[^,.;:!?()]*?\bfrom\s+(?P<old>{_PHRASE})\s+(?:to|onto|into)\s+",
    rf"\breplaced\s+(?P<old>{_PHRASE})\s+(?:with|by)\s+",
    rf"(?<!the\s)(?<!on\s)(?<!to\s)\b(?:left|quit|stopped\s+using|dropped|retired|abandoned|gave\s+up(?:\s+on)?"
    rf"|moved\s+(?:away\s+from|off(?:\s+of)?)|switched\s+away\s+from|got\s+rid\s+of)\s+(?P<old>{_PHRASE})"
    rf"{_PHRASE_END}",
))
_LEADING = re.compile(r"^(?:(?:at|in|on|with|for|from|to|via|using|by|the|a|an)\s+)+", re.IGNORECASE)
_DISTINCT = re.compile(r"\d|[A-Z]|[/._:@-]\w")  # a name or an identifier: a capital, a digit, code punctuation
_CODE = re.compile(r"\d|[/._:@-]\w|\w[A-Z]")  # an identifier whatever its first letter: "GitHub", "k8s", "a.b"

SLOT, NAMED, FRAME = 3, 2, 1  # the rules, strongest first


@dataclass(frozen=True)
class Candidate:
    """An active line a new fact might replace: its file, its index there, its text (without the bullet)."""

    path: str
    index: int
    text: str


@dataclass(frozen=True)
class Change:
    """The value that stopped being true and the one that took its place, as the words that identify each."""

    old: tuple[str, ...]
    new: tuple[str, ...]


@dataclass(frozen=True)
class Match:
    """The line a fact replaces, by which rule, and the value that changed (what dependent lines name)."""

    candidate: Candidate
    rule: int
    change: Change


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    return singular(base_verb(word))


@lru_cache(maxsize=16384)  # every line is compared with every fact of a batch
def stems(text: str) -> frozenset[str]:
    """The meaningful words of `text` by stem, without the words that only date or negate a change."""
    return frozenset(stem(w) for w in words(text) if w not in STOPWORDS and w not in FILLER)


def explicit_old_value(text: str) -> str:
    """The old value a sentence names outright ("…, not Nomad" → "Nomad"); "" when it names none."""
    for pattern in _OLD_VALUE:
        match = pattern.search(text)
        if match is not None and stems(match.group("old")):
            return _LEADING.sub("", match.group("old").strip())
    return ""


def find_replaced(text: str, candidates: Sequence[Candidate], *, prefer: str = "", frames: bool = False,
                  where: str = "") -> Match | None:
    """The candidate `text` replaces, or None. `frames`: rule 3 too (for a `[correction]`); `where`: the file
    `text` is in, when it is a line of one (USER.md: about the user). A pinned line is never replaced; a line
    `text` says all of is refined, not replaced, and is left to the caller."""
    new = Candidate(where, -1, text)
    old = explicit_old_value(text)
    old_stems = stems(old)
    own = _about(new) - old_stems
    best: tuple[tuple[int, float, int, int], Match] | None = None
    for order, candidate in enumerate(candidates):
        theirs = _about(candidate)
        named = bool(old_stems) and old_stems <= theirs  # "X instead of Y" says all of "Y" yet replaces it
        if PIN in candidate.text or _same_words(text, candidate.text) or (covers(text, candidate.text) and not named):
            continue
        rule = _rule(new, candidate, old_stems, own, theirs, frames)
        if not rule:
            continue
        shared = len(own & theirs) / len(own | theirs) if own | theirs else 0.0
        rank = (rule, shared, int(candidate.path == prefer), -order)
        if best is None or rank > best[0]:
            best = (rank, Match(candidate, rule, value_change(candidate.text, text, about_user=_is_user(candidate))))
    return best[1] if best else None


def _rule(new: Candidate, candidate: Candidate, old: frozenset[str], own: frozenset[str], theirs: frozenset[str],
          frames: bool) -> int:
    left, right = _slot(new), _slot(candidate)
    if left is not None and right is not None and left.key == right.key:
        return SLOT
    if old and old <= theirs and own & theirs:
        return NAMED
    shared = own & theirs
    if frames and len(shared) >= 2 and 2 * len(shared) > len(own) and own - theirs and theirs - own - old:
        return FRAME
    return 0


def _slot(line: Candidate) -> Slot | None:
    return user_slot(line.text) if _is_user(line) else slot_of(line.text)


def _about(candidate: Candidate) -> frozenset[str]:
    """The candidate's stems; a USER.md line is about the user even when it does not name them."""
    found = stems(candidate.text)
    return found | USER_SUBJECT if _is_user(candidate) else found


def _is_user(candidate: Candidate) -> bool:
    return candidate.path == USER


def _same_words(a: str, b: str) -> bool:
    """The same fact in other order, case or markers ("no longer" included: that is a change)."""
    return fact_key(a) == fact_key(b)


def value_change(old: str, new: str, *, about_user: bool = False) -> Change:
    """What changed from line `old` to line `new`."""
    return Change(_changed(old, new, about_user), _changed(new, old, about_user))


def _changed(old: str, new: str, about_user: bool) -> tuple[str, ...]:
    """The words of `old`'s value that `new` changed: the value `new` names as the old one, else the slot's old
    value, else the words of `old` that `new` dropped; the distinctive ones (names, identifiers) when it has any."""
    named = explicit_old_value(new)
    if named and stems(named) <= stems(old):
        return _distinct(named.split())
    slot = user_slot(old) if about_user else slot_of(old)
    if slot is not None and slot_of(new) is not None:
        return _distinct(slot.value.split(",")[0].split())
    dropped = stems(old) - stems(new) - USER_SUBJECT  # the user is who a fact is about, never its value
    tokens = re.findall(r"[\w./:@-]+", old)
    kept = [(w, index == 0) for index, w in enumerate(tokens) if stems(w) and stems(w) <= dropped]
    return _distinct([w for w, _ in kept], opening=bool(kept) and kept[0][1])


def _distinct(tokens: list[str], *, opening: bool = False) -> tuple[str, ...]:
    """The words of a value that identify it: names and identifiers when it has some, else its longer words.
    `opening`: the first token opens a sentence, so its capital says nothing."""
    tokens = [w.strip(".,;:") for w in tokens]
    found = [(w, index == 0 and opening) for index, w in enumerate(tokens) if w and stems(w) - USER_SUBJECT]
    named = [w for w, first in found if (_CODE if first else _DISTINCT).search(w)]
    return tuple(dict.fromkeys(named or [w for w, _ in found if len(w) >= 4]))


def names_old_value(line: str, change: Change) -> bool:
    """Whether `line` names the value that stopped being true (one of its words) and none of what replaced it:
    a line written in terms of the old value, not yet revised."""
    held = stems(line)
    return _names(held, change.old) and not _names(held, change.new)


def _names(held: frozenset[str], value: Sequence[str]) -> bool:
    return any(stems(word) and stems(word) <= held for word in value)


def restates(old: Candidate, line: Candidate, change: Change) -> bool:
    """Whether `line` only repeats part of the replaced line `old`, in terms of its old value: untrue with it."""
    return names_old_value(line.text, change) and _about(line) <= _about(old)
