"""Polarity and modality: what makes two statements with the same words say different things.

"User is not allergic to penicillin" shares every meaningful word with "User is allergic to penicillin"; "must
never ask" with "must always ask"; "A negative" with "A positive"; "Agent may push to main" with "Agent must push
to main". A statement is read here as its words with the negation taken out (`plain_words`), whether it is
negated (`is_positive`: the parity of its negations, so a negated negative — "never refuse to send" — is a
positive), and the kind of modal it uses (`modality`: an obligation or a permission). The word lists are data:
`negations.txt`, `antonyms.tsv` (a word that says its partner negated), `modal-words.tsv`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from nanodream.text.lists import table, wordlist
from nanodream.text.words import words

# "don't" → "do not", "can't"/"cannot" → "can not", "won't" → "will not": a negation is one word, "not".
_CONTRACTION = re.compile(r"\b(can)not\b|\b(ca|wo|sha)n['’]t\b|n['’]t\b", re.IGNORECASE)
_FULL = {"ca": "can", "wo": "will", "sha": "shall"}
# Tokens a contraction leaves behind when it is not expanded first ("don't" read as "don" + "t").
_ARTEFACTS = frozenset({"t", "don", "doesn", "didn", "dont", "doesnt", "didnt"})
NEGATORS = wordlist("negations") - _ARTEFACTS
# "not only X but Y" says X.
_NOT_ONLY = re.compile(r"\bnot\s+(?:only|just|merely)\b", re.IGNORECASE)
# A word that says its partner, negated ("disabled" → "enabled"), and the partner.
NEGATED_FORMS = {negative: positive for positive, negative in table("antonyms")}
MODALS = {word: kind for word, kind in table("modal-words")}


def expanded(text: str) -> str:
    """The text with contractions of "not" written out: "don't" → "do not", "can't" → "can not"."""
    def full(match: re.Match[str]) -> str:
        if match.group(1):
            return f"{match.group(1)} not"
        if match.group(2):
            return f"{_FULL[match.group(2).lower()]} not"
        return " not"
    return _CONTRACTION.sub(full, text)


@lru_cache(maxsize=16384)
def _reading(text: str) -> tuple[tuple[str, ...], bool]:
    """The words without negations (negated forms as their partners), and whether the statement is positive."""
    plain, negations = [], 0
    for word in words(_NOT_ONLY.sub(" ", expanded(text))):
        if word in NEGATORS:
            negations += 1
        elif word in NEGATED_FORMS:
            negations += 1
            plain.append(NEGATED_FORMS[word])
        elif word not in _ARTEFACTS:
            plain.append(word)
    return tuple(plain), negations % 2 == 0


def plain_words(text: str) -> tuple[str, ...]:
    """The statement's words with its negations taken out: "is not allergic" → ("is", "allergic")."""
    return _reading(text)[0]


def is_positive(text: str) -> bool:
    """Whether the statement holds what its plain words say (an even number of negations)."""
    return _reading(text)[1]


def modality(text: str) -> str:
    """"must" for an obligation, "may" for a permission, "" when the statement uses no modal word."""
    kinds = {MODALS[word] for word in plain_words(text) if word in MODALS}
    return kinds.pop() if len(kinds) == 1 else ""


def same_polarity(a: str, b: str) -> bool:
    """Both statements are negated alike and, when both use a modal, the same kind of modal."""
    left, right = modality(a), modality(b)
    return is_positive(a) == is_positive(b) and (not left or not right or left == right)
