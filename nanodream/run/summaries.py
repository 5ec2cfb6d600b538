"""A model's summary checked like its lines: words, naming only values memory holds.

The summary becomes a commit's subject and body, which people read as what the dream did. A small model's
summary can be raw JSON (an answer cut off at max_tokens, a call it wrote as text) or name a value no line holds
("corrects the retraining time to Monday" while the line it wrote says Thursday). Such a summary is dropped: the
commit's subject is then the change summary computed from the diff, and its body says why.

A value is a day or month name, anything with a digit in it (a time, a count of members, a host name like CX32),
or a capitalised word inside a sentence (a name, a city, a tool). It is held when memory after the batch, or a line
the batch removed (the diff shows it), says it. Counts of the summary's own work ("3 facts", "entry 2") and the
memory files' names are not values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from nanodream.changes import FileChange
from nanodream.text.dates import MONTHS, WEEKDAYS
from nanodream.text.kinds import REDACTION
from nanodream.text.words import STOPWORDS
from nanodream.versioning.commitmsg import worded_summary

# A token: letters and digits, joined by the punctuation that stays inside a value ("02:00", "e-Boekhouden", "v1.2").
_TOKEN = re.compile(r"[^\W_](?:[\w.:/'’-]*[^\W_])?")
_DIGITS = re.compile(r"\d+")
# A terminal's escape sequences (CSI `ESC [ 2 J`, OSC `ESC ] 0 ; title BEL`) and other controls: shown, never values.
_ESCAPE = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|"
                     r"\x1b.?|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What the secret scanner put in place of a credential ("(redacted Password)") names a rule, not a value.
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)
# The summary counting or pointing at its own work, not naming a value: "3 facts", "entry 2", "#4", "1 of 3".
_WORK = ("facts?|lines?|entries|entry|items?|bullets?|changes?|edits?|files?|skills?|rules?|notes?|steps?|tasks?|"
         "sessions?|corrections?|preferences?|sections?|calls?|requests?|tokens?")
_COUNTED = re.compile(rf"^\s+(?:(?:new|more|other|tagged|of\s+\d+)\s+)*(?:{_WORK})\b", re.IGNORECASE)
_POINTED = re.compile(rf"(?:\b(?:{_WORK})|#|\bL)\s*(?:\d+\s*(?:,|and|\.\.|-|–)\s*)*$", re.IGNORECASE)
_JSON_KEY = re.compile(r"""["'][\w ]+["']\s*:""")
_SENTENCE_END = (".", "!", "?", ":", ";", "\n", "(")
_LEADING = " \t*-•#>\"'`_[("
# Capitalised words that name nanodream's own things, not a value of memory.
_OWN_WORDS = frozenset({"i", "user", "users", "agent", "memory", "soul", "skill", "skills", "summary", "history",
                        "json", "permanent", "durable", "ephemeral", "correction", "skip", "none", "nothing", "ok"})
_NAMED_DAYS = frozenset(WEEKDAYS) | frozenset(MONTHS)
SHOWN_VALUES = 3  # values a note names at most


def unfounded(summary: str, changes: Iterable[FileChange], memory: Iterable[str]) -> str:
    """Why `summary` may not stand for the batch ("" when it may): not words, or values nothing holds.

    `memory`: the text of every memory file after the batch; `changes`: the batch's, whose removed lines count
    as held too (the diff shows them)."""
    if not summary.strip():
        return ""
    if _markup(summary):
        return "the session's summary is not words (JSON, code or a call written as text)"
    changes = list(changes)
    held = Held([*memory, *(change.before or "" for change in changes)])
    missing = list(dict.fromkeys(value for value in values(summary) if not held.holds(value)))
    if not missing:
        return ""
    shown = ", ".join(missing[:SHOWN_VALUES]) + (f" and {len(missing) - SHOWN_VALUES} more"
                                                  if len(missing) > SHOWN_VALUES else "")
    return f"the session's summary names {shown}, which memory does not hold"


def _markup(summary: str) -> bool:
    """A summary with no line of words whose text is JSON, code or markup (a short "Done." is not markup)."""
    text = summary.strip()
    return not worded_summary(summary) and (text.startswith(("{", "[", "<", "```", '"')) or
                                            bool(_JSON_KEY.search(text)))


def values(summary: str) -> list[str]:
    """The days, numbers and names `summary` states, in order (possessive "'s" dropped)."""
    found = []
    summary = REDACTION.sub(lambda match: " " * len(match.group(0)), _ESCAPE.sub(" ", summary))
    for match in _TOKEN.finditer(summary):
        token = _POSSESSIVE.sub("", match.group(0)).rstrip(".:")
        if _is_value(token, summary[:match.start()], summary[match.end():]):
            found.append(token)
    return found


def _is_value(token: str, before: str, after: str) -> bool:
    lower = token.lower()
    if ".md" in lower or "/" in token:  # a memory file's name or path: the diff's claims check those
        return False
    if any(ch.isdigit() for ch in token):
        marker = token.isdigit() and after.startswith((".", ")")) and _starts_sentence(before)  # "1. Added …"
        return not (marker or _COUNTED.match(after) or _POINTED.search(before))
    if lower in _NAMED_DAYS:
        return True
    return token[0].isupper() and lower not in STOPWORDS and lower not in _OWN_WORDS and not _starts_sentence(before)


def _starts_sentence(before: str) -> bool:
    """Whether a word preceded by `before` opens a sentence, line or list item (capitalised for that alone)."""
    text = before.rstrip(_LEADING)
    if not text or text.endswith(_SENTENCE_END):
        return True
    return bool(re.search(r"(?:^|\n)\s*(?:\d+[.)]|[-*•])?\s*$", text))


class Held:
    """What memory says, for asking whether it holds a value: its words, and the numbers in it."""

    def __init__(self, texts: list[str]) -> None:
        self.text = "\n".join(texts).lower()
        self.numbers = {_number(run) for run in _DIGITS.findall(self.text)}

    def holds(self, value: str) -> bool:
        lower = value.lower()
        if lower in self.text:
            return True
        runs = _DIGITS.findall(lower)
        return bool(runs) and all(_number(run) in self.numbers for run in runs)


def _number(run: str) -> str:
    return run.lstrip("0") or "0"
