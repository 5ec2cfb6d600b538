"""Words of a sentence, and how much two sentences say alike: what duplicate tests and coverage compare.

Markers in HTML comments (`<!-- keep -->`, `<!-- hypothesis: 1 of 3, mild -->`) say how a line is held, not
what it says; a possessive "'s" is dropped so "User's" matches "User".
"""

from __future__ import annotations

import re
from functools import lru_cache

from nanodream.text.lists import language_codes, language_file, table, wordlist

# Words too common to say anything about a fact's meaning; ignored by similarity, kept by exact keys.
STOPWORDS = wordlist("function-words")
# Words that flip a statement (data/negations.tsv; text/grammar.py reads them): a fact never counts as covering
# another when they differ in one of these.
NEGATIONS = frozenset(word for word, _ in table("negations") if " " not in word)
# The words other languages say "no longer" with (each language file's `[negation] no_longer`: "kein … mehr",
# "ya no"): "Ich bin kein Vegetarier mehr" says nothing of "Ich bin Vegetarier" either.
_NO_LONGER = frozenset(word.lower() for code in language_codes()
                       for phrase in (language_file(code) or {}).get("negation", {}).get("no_longer", ())
                       for word in re.findall(r"[^\W_]+", phrase))

_POSSESSIVE = re.compile(r"['’]s\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def words(text: str) -> list[str]:
    """Lowercase words without punctuation, markers or a possessive "'s"."""
    return _WORD.findall(_POSSESSIVE.sub("", _COMMENT.sub(" ", text)).lower())


@lru_cache(maxsize=16384)  # the same bullets are compared with every fact of a batch
def fact_key(text: str) -> tuple[str, ...]:
    """Same key ⇔ same fact up to case, punctuation, whitespace and word order."""
    return tuple(sorted(set(words(text))))


@lru_cache(maxsize=16384)
def content_words(text: str) -> frozenset[str]:
    """The words that carry meaning, for similarity and coverage."""
    return frozenset(w for w in words(text) if w not in STOPWORDS)


def similarity(a: str, b: str) -> float:
    """Share of meaningful words the two texts have in common (Jaccard), 0.0 when either has none."""
    return jaccard(content_words(a), content_words(b))


def jaccard(left: set[str] | frozenset[str], right: set[str] | frozenset[str]) -> float:
    """Share of two word sets that both hold, 0.0 when either is empty."""
    return len(left & right) / len(left | right) if left and right else 0.0


def covers(broad: str, narrow: str) -> bool:
    """True when `broad` says everything `narrow` says (its meaningful words include all of narrow's).

    Needs at least two words in `narrow`, and no negation among the extra words, so "Run tests" is never
    taken as covered by "Never run tests"; nor someone of the person's life ("User's sister lives in Berlin"
    does not say where the user lives), nor a past that no longer holds ("User used to live in Berlin").
    """
    big, small = content_words(broad), content_words(narrow)
    extra = big - small
    return (len(small) >= 2 and small <= big and not extra & (NEGATIONS | _NO_LONGER) and not extra & RELATIONS
            and claims_alike(broad, narrow))


# The people and animals in someone's life, and those the person deals with (data/relations.txt), with plurals.
RELATIONS = wordlist("relations") | frozenset(f"{word}s" for word in wordlist("relations"))
# "used to live in Berlin": true once, not now ("is used to working late" is a habit: it still holds).
_PAST_HABIT = re.compile(r"(?<!\bis\s)(?<!\bam\s)(?<!\bare\s)(?<!\bwas\s)(?<!\bget\s)(?<!\bgot\s)\bused\s+to\b",
                         re.IGNORECASE)


def of_the_past(text: str) -> bool:
    """Whether the statement says what used to be so, which does not hold now."""
    return bool(_PAST_HABIT.search(text))


# Words and two-word phrases that qualify a claim (data/qualifiers.tsv), by kind.
_QUALIFIERS = {phrase: kind for phrase, kind in table("qualifiers")}
_PRESENT_COPULA, _PAST_COPULA = frozenset({"is", "are", "am"}), frozenset({"was", "were"})


@lru_cache(maxsize=16384)
def qualifiers(text: str) -> frozenset[str]:
    """The claims a statement makes besides its plain words: `doubt` ("might be"), `rarely`, `sometimes`,
    `almost`, `former`, `refusal` ("refused to"), `past` ("used to")."""
    said = words(text)
    found = {_QUALIFIERS[word] for word in said if word in _QUALIFIERS}
    found |= {_QUALIFIERS[pair] for pair in map(" ".join, zip(said, said[1:], strict=False)) if pair in _QUALIFIERS}
    return frozenset(found | ({"past"} if of_the_past(text) else set()))


def _copula_tense(text: str) -> str:
    """"present" or "past" when the statement's copulas are all of one tense ("is", "was"), else ""."""
    said = set(words(text))
    present, past = bool(said & _PRESENT_COPULA), bool(said & _PAST_COPULA)
    return "present" if present and not past else "past" if past and not present else ""


def claims_alike(a: str, b: str) -> bool:
    """Both statements make the same claims: the same qualifiers, and not one "is" where the other says "was"
    ("User was a teacher" does not say the user is one; "Born in Berlin" says what "User was born in Berlin"
    says)."""
    tenses = {_copula_tense(a), _copula_tense(b)}
    return qualifiers(a) == qualifiers(b) and not {"present", "past"} <= tenses


THAI = re.compile(r"[\u0e00-\u0e7f]")  # Thai, which ends a sentence with a space, not a stop
_HAN_OR_KANA = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WITHOUT_CAPITALS = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def tidy_sentence(text: str) -> str:
    """Capitalised, single-spaced, ending in punctuation: how a fact reads in a memory file (a Chinese or Japanese
    sentence ends in its own full stop, "。"). In a script without capitals a Latin word opening the sentence is a
    name as written ("varは使わないでください。"), and keeps its case."""
    text = " ".join(text.split()).rstrip(",;，； ")  # what a clause was cut from leaves no comma at its end
    if not text:
        return text
    if not _WITHOUT_CAPITALS.search(text):
        text = text[0].upper() + text[1:]
    if text[-1] in ".!?。！？…" or THAI.match(text[-1]):
        return text  # Thai ends a sentence with a space, not a stop
    return text + ("。" if _HAN_OR_KANA.match(text[-1]) else ".")
