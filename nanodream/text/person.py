"""A sentence someone said about themselves, restated about them: "I live in Lyon" → "User lives in Lyon".

Memory is read by an agent about a person, so first-person statements are turned into third-person ones
about the speaker ("User", or a named speaker). Only the grammar that such statements need is handled: the
opening "I"/"my", the verb after it (agreement), and the later pronouns.
"""

from __future__ import annotations

import re

from nanodream.text.lists import wordlist
from nanodream.text.verbs import THIRD_PERSON, conjugate

ADVERBS = wordlist("adverbs")  # words that may stand between "I" and its verb
_LY_VERBS = wordlist("ly-verbs")


def is_adverb(word: str) -> bool:
    """A word that may stand between "I" and its verb: a listed one, or any "-ly" word of five letters or more that
    is no verb ("I desperately need …" is "User desperately needs …", never "User desperatelies need …")."""
    word = word.lower()
    return word in ADVERBS or len(word) >= 5 and word.endswith("ly") and word not in _LY_VERBS


_LEAD = re.compile(r"^(?:i(?P<short>['’](?:m|ve|d|ll))\b(?P<after>.*)|i\s+(?P<rest>.*)|my\s+(?P<owned>.*))$",
                   re.IGNORECASE | re.DOTALL)
_LATER = [  # pronouns after the opening, in the order they must be replaced ("I'm" before "I")
    (re.compile(pattern, 0 if pattern.startswith(r"\bI") else re.IGNORECASE), replacement) for pattern, replacement in (
        (r"\bI(?:'|’)m\b", "they're"), (r"\bI\s+am\b", "they are"), (r"\bI\s+was\b", "they were"),
        (r"\bI(?:'|’)ve\b", "they've"), (r"\bI(?:'|’)d\b", "they'd"), (r"\bI(?:'|’)ll\b", "they'll"),
        (r"\bI\b", "they"), (r"\bmyself\b", "themselves"), (r"\bmine\b", "theirs"), (r"\bmy\b", "their"),
        (r"\bme\b", "them"),
    )
]


def third_person(sentence: str, subject: str) -> str | None:
    """The sentence about `subject`, or None when it does not open with "I" or "my"."""
    sentence = sentence.strip()
    match = _LEAD.match(sentence)
    if match is None:
        return None
    if match.group("short"):
        head = f"{subject} {THIRD_PERSON[match.group('short').replace('’', chr(39)).lower()]}"
        return _later(head, match.group("after"))
    if match.group("owned") is not None:
        return _later(f"{subject}'s", " " + match.group("owned"))
    return _later(subject, " " + _agree(match.group("rest")))


def owned_by(sentence: str, owner: str) -> str | None:
    """A sentence that only mentions the person by "my", "mine" or "me", said of `owner` instead ("This repo manages
    my dotfiles" → "This repo manages the user's dotfiles"); None when it holds "I", whose verb would have to
    agree."""
    if _I.search(sentence):
        return None
    for pattern, replacement in _OWNED:
        sentence = pattern.sub(replacement.format(owner=owner), sentence)
    return sentence


_I = re.compile(r"\bi\b(?!\.\w)", re.IGNORECASE)  # "I", or "i" as a chat types it; not "i.e."
_OWNED = [(re.compile(pattern, re.IGNORECASE), replacement)
          for pattern, replacement in ((r"\b(?:my|mine)\b", "{owner}'s"), (r"\bme\b", "{owner}"))]


def _agree(rest: str) -> str:
    """The words after "I" with the first verb (past any adverbs) made to agree with a third person."""
    words = rest.split(" ")
    for index, word in enumerate(words):
        bare = word.lower().strip(",")
        if is_adverb(bare):
            continue
        core = word.rstrip(",:;")
        words[index] = conjugate(core) + word[len(core):]  # "I like: dark mode, …" → "likes:"
        break
    return " ".join(words)


def _later(head: str, rest: str) -> str:
    for pattern, replacement in _LATER:
        rest = pattern.sub(replacement, rest)
    return head + rest
