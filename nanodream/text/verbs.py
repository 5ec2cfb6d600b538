"""English verb forms by table and suffix: "live" → "lives" after "she", "using" or "sent" → "use", "send".

The tables are data (`data/irregular-verbs.tsv`, `third-person.tsv`, `auxiliaries.txt`, `e-verbs.txt`); the
suffix rules cover every regular verb. A word neither knows comes back as it was.
"""

from __future__ import annotations

from nanodream.text.lists import table, wordlist
from nanodream.text.words import STOPWORDS

_IRREGULAR_ROWS = table("irregular-verbs")
# Past forms that do not end in -ed, and the base form each comes from ("sent" → "send", "written" → "write").
IRREGULAR_PAST = {form: base for base, past, participle in _IRREGULAR_ROWS for form in (past, participle)
                  if form != base}
# Every irregular past tense and participle, those the same as their base form too ("put", "read").
PAST_FORMS = frozenset(form for _, past, participle in _IRREGULAR_ROWS for form in (past, participle))
# Base forms whose past tense is the same word ("read", "put"): "I read the readme" may be either.
SAME_IN_PAST = frozenset(base for base, past, _ in _IRREGULAR_ROWS if past == base)
# Forms that read the same after "I" and after "she": auxiliaries and irregular past tenses.
UNCHANGED = wordlist("auxiliaries") | {past for _, past, _ in _IRREGULAR_ROWS}
THIRD_PERSON = {first: third for first, third in table("third-person")}
_E_VERBS = wordlist("e-verbs")
_IRREGULAR_BASES = frozenset(base for base, _, _ in _IRREGULAR_ROWS)


def conjugate(verb: str) -> str:
    """The verb's form after a singular third person: "live" → "lives", "have" → "has", "went" → "went"."""
    lower = verb.lower().replace("’", "'")
    if lower in THIRD_PERSON:
        return THIRD_PERSON[lower]
    if lower in UNCHANGED or lower.endswith(("ed", "n't")) or not lower.isalpha():
        return verb
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(lower) > 1 and lower.endswith("y") and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def base_verb(word: str) -> str:
    """`using` → `use`, `running` → `run`, `used` → `use`, `sent` → `send`; other words come back as they are."""
    low = word.lower()
    if low in IRREGULAR_PAST:
        return IRREGULAR_PAST[low]
    for suffix in ("ing", "ed"):
        if not low.endswith(suffix) or len(low) <= len(suffix) + 1:
            continue
        stem = low[: -len(suffix)]
        if stem + "e" in _E_VERBS:
            return stem + "e"
        if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
            return stem[:-1]  # running → run, stopped → stop
        if suffix == "ed" and stem.endswith("i"):
            return stem[:-1] + "y"
        return stem
    return low


_COMMAND_VERBS = wordlist("imperatives")


def known_verb(word: str) -> bool:
    """A base form the tables know as an English verb ("remove", "ask", "send"): a word no other language spells."""
    low = word.lower()
    return low in _COMMAND_VERBS or low in _E_VERBS or low in _IRREGULAR_BASES


def opens_a_command(words: list[str]) -> bool:
    """Whether a clause of these words, after a setting that says when ("Every time you touch the Dockerfile, pin
    the base image"), is a command: it opens with a verb of instruction, or with a word in its base form that no
    statement opens with, before a function word ("pin the …"). Not "it crashes", "nothing happens", "disk usage
    spikes", "tests failed"."""
    first, after = (words[0].lower() if words else ""), (words[1].lower() if len(words) > 1 else "")
    if first in _COMMAND_VERBS:
        return True
    return not (first in STOPWORDS or first.endswith(("s", "ed", "ing", "'"))) and after in STOPWORDS
