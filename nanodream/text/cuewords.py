"""Cue words as data: the lists under `nanodream/text/data/` that the guards (safety/) and text/grammar.py read
beyond English word order.

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
    """One concept's cue words, compiled into one pattern per first letters of a cue: only the patterns of the
    letters a text's words start with run (and the one for scripts without spaces, when such a character is there),
    so a long line, or a line holding none of the cues, costs one split into words."""

    by_head: dict[str, re.Pattern[str]]  # the first one or two letters of a cue's first word → its cues
    unspaced: re.Pattern[str] | None  # cues in a script without spaces, found anywhere
    anywhere: re.Pattern[str] | None  # cues that may begin inside a word (`~` before them): always run

    def found(self, text: str) -> bool:
        return any(pattern.search(text) for pattern in self._patterns(text))

    def finditer(self, text: str) -> list[re.Match[str]]:
        return sorted((match for pattern in self._patterns(text) for match in pattern.finditer(text)),
                      key=lambda match: match.start())

    def without(self, text: str) -> str:
        for pattern in self._patterns(text):
            text = pattern.sub(" ", text)
        return text

    def _patterns(self, text: str) -> list[re.Pattern[str]]:
        found = [self.anywhere] if self.anywhere else []
        if self.unspaced and _NO_SPACES.search(text):
            found.append(self.unspaced)
        heads = {head for word in set(_WORD.findall(text.lower())) for head in (word[:2], word[:1])}
        return found + [self.by_head[head] for head in sorted(heads & self.by_head.keys())]


@cache
def cues(name: str, more: tuple[str, ...] = ()) -> Cues:
    """The cues of `data/<name>.txt` (one or more a line, separated by commas; `~` lets a word go on), and `more`
    spelled the same way (text/grammar.py adds the English negations it builds from its own tables)."""
    spelled = [cue.strip() for line in phrases(name) for cue in line.split(",") if cue.strip()] + list(more)
    groups: dict[str, list[str]] = {}
    for cue in spelled:
        key = "\0" if _NO_SPACES.search(cue) else "~" if cue.startswith("~") else _head(cue)
        groups.setdefault(key, []).append(cue)
    compiled = {key: _compiled(group) for key, group in groups.items()}
    return Cues({key: pattern for key, pattern in compiled.items() if key not in ("\0", "~")},
                compiled.get("\0"), compiled.get("~"))


def _compiled(group: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(_pattern(cue) for cue in sorted(group, key=len, reverse=True)), re.IGNORECASE)


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
