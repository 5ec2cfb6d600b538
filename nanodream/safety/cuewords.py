"""Cue words as data: the lists under `nanodream/text/data/` that the rules read beyond English word order.

A file holds one or more cues a line, separated by commas; `#` starts a comment line; case does not matter. A `~`
after a word lets the text's word go on ("weiger~" finds "weigere"), one before it lets the word begin with more;
`...` between two words lets up to GAP words stand between them (a German verb and its particle: "schalte ...
ab"). A cue in a script written without spaces (Chinese, Japanese) is found anywhere in the text. Each file is
compiled once into one pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from nanodream.text.lists import phrases

GAP = 8  # words a cue's `...` spans
_WORD = re.compile(r"\w+")
_NO_SPACES = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff66-\uff9f]")


@dataclass(frozen=True)
class Cues:
    """One concept's cue words, compiled once into one pattern, and the first letters its words start with: a text
    holding no word that starts so (and no character of a script without spaces, when a cue is in one) is passed
    over without running the pattern, so a 64 KB line of anything else costs one split into words."""

    pattern: re.Pattern[str]
    heads: frozenset[str]  # the first one or two letters of each cue's first word
    unspaced: bool  # a cue is in a script without spaces: such a character anywhere calls for the pattern
    anywhere: bool = False  # a cue may begin inside a word (`~` before it): the pattern always runs

    def found(self, text: str) -> bool:
        return self.may_hold(text) and bool(self.pattern.search(text))

    def finditer(self, text: str) -> list[re.Match[str]]:
        return list(self.pattern.finditer(text)) if self.may_hold(text) else []

    def without(self, text: str) -> str:
        return self.pattern.sub(" ", text) if self.may_hold(text) else text

    def may_hold(self, text: str) -> bool:
        if self.anywhere or self.unspaced and _NO_SPACES.search(text):
            return True
        words = set(_WORD.findall(text.lower()))
        return any(word[:2] in self.heads or word[:1] in self.heads for word in words)


@cache
def cues(name: str) -> Cues:
    """The cues of `data/<name>.txt` (one or more a line, separated by commas; `~` lets a word go on)."""
    spelled = [cue.strip() for line in phrases(name) for cue in line.split(",") if cue.strip()]
    spaced = [cue for cue in spelled if not _NO_SPACES.search(cue)]
    heads = frozenset(_head(cue) for cue in spaced)
    return Cues(re.compile("|".join(_pattern(cue) for cue in sorted(spelled, key=len, reverse=True)), re.IGNORECASE),
                heads, len(spaced) < len(spelled), any(cue.startswith("~") for cue in spaced))


def _head(cue: str) -> str:
    """The first letters a text's word starts with when it holds the cue: two of them, or one for a shorter word."""
    first = _WORD.findall(cue.lower().lstrip("~"))
    return first[0][:2] if first else ""


def _pattern(cue: str) -> str:
    """A cue as a pattern: its words in a row (`...` between two: up to GAP words of the clause between them, as
    a German verb and its particle: "schalte ... ab"), a `~` letting a word go on."""
    if _NO_SPACES.search(cue):
        return re.escape(cue.replace("~", ""))
    words = [rf"(?:\s+\S+){{0,{GAP}}}?" if word == "..." else
             re.escape(word.strip("~")) + (r"\w*" if word.endswith("~") else "") for word in cue.lower().split()]
    before = r"\w*" if cue.startswith("~") else r"(?<!\w)"
    after = "" if cue.endswith(("~", "'")) else r"(?!\w)"
    return before + r"\s+".join(words).replace(r"\s+(?:\s+", r"(?:\s+") + after
