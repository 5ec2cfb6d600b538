"""The words that say what a text is about: what connect searches by and what two items must share to meet.

Function words and the words nearly every history line holds (the text layer's topic stopwords) say nothing
about a subject; plural and singular count as one term. Rarity is what makes a shared term worth a
connection: a term's weight is its inverse document frequency over the items it is counted in.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from nanodream.text.stems import TOPIC_STOPWORDS, singular
from nanodream.text.words import words

MIN_LENGTH = 3
MAX_LENGTH = 32  # longer "words" are identifiers, hashes or tokens: nothing two facts share by meaning


@lru_cache(maxsize=65536)
def _term(word: str) -> str:
    """The term a lowercase word counts as ('' for none): stopwords, numbers and fragments say nothing."""
    if not MIN_LENGTH <= len(word) <= MAX_LENGTH or word in TOPIC_STOPWORDS or word.isdigit():
        return ""
    return singular(word)


@lru_cache(maxsize=32768)
def terms(text: str) -> frozenset[str]:
    """The subject terms of `text`: its words less stopwords, numbers and fragments, in their singular form."""
    found = frozenset(_term(word) for word in words(text))
    return found - {""}


_SENTENCE = re.compile(r"(?<=[.!?:;])\s+|\n")
_EDGE = "\"'`*_()[]{}<>,.;:!?"


@lru_cache(maxsize=65536)
def _named_token(token: str, inside: bool) -> frozenset[str]:
    """The terms of one whitespace-separated token when it is written as a name (see `named`)."""
    word = token.strip(_EDGE)
    if not word or word.isdigit():
        return frozenset()
    inner = any(char.isupper() for char in word[1:])
    mixed = any(char.isdigit() for char in word) and any(char.isalpha() for char in word)
    return terms(word) if inner or mixed or (inside and word[0].isupper()) else frozenset()


@lru_cache(maxsize=32768)
def named(text: str) -> frozenset[str]:
    """The terms of `text` that name a thing: capitalised inside a sentence (Hetzner, Falkenstein), with an inner
    capital (PostgreSQL) or letters and digits together (k8s, S3). Two items naming the same thing meet."""
    found: set[str] = set()
    for sentence in _SENTENCE.split(text):
        for position, token in enumerate(sentence.split()):
            found |= _named_token(token, position > 0)
    return frozenset(found)


class Rarity:
    """Inverse document frequency of each term over a collection of term sets (rarer: heavier)."""

    def __init__(self, collection: Iterable[frozenset[str]]) -> None:
        self.counts: Counter[str] = Counter()
        self.size = 0
        for found in collection:
            self.counts.update(found)
            self.size += 1

    def weight(self, term: str) -> float:
        return math.log(1 + (self.size + 1) / (self.counts.get(term, 0) + 1))

    def score(self, query: frozenset[str], found: frozenset[str]) -> float:
        """How well `found` answers `query`: the summed weight of what they share, a long item damped."""
        shared = query & found
        if not shared:
            return 0.0
        return sum(self.weight(term) for term in shared) / math.sqrt(1 + len(found) / 16)
