"""The versions a statement gives named things: "Our backend runs on Python 3.11" gives Python 3.11.

"We bumped the Python version to 3.12" shares no subject with "Our backend runs on Python 3.11", yet replaces
it: both give Python a version, and a thing runs one version at a time. A number after a name is a version only
when it looks like one, so that "Issue 41" or "Sprint 4" is none: a dotted number ("3.12", "1.22.4"), or a
number the sentence calls a version ("the Node version is now 22", "upgraded Node to 22").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nanodream.text.dates import MONTHS, WEEKDAYS
from nanodream.text.words import STOPWORDS

# A name, then its version: adjacent ("Python 3.11", "Node v18"), or said of it ("Python version is now 3.12",
# "Node to 22"). A time ("9:30"), a share ("3.5%"), a range ("18-20") or a path is no version.
_VERSIONED = re.compile(
    r"(?<![\w.])(?P<name>[A-Za-z][\w+#-]*(?:\.js)?)(?:(?P<called>\s+version)(?:\s+(?:is|was))?)?(?:\s+now)?"
    r"(?:\s+(?:at|to))?\s+v?(?P<version>\d+(?:\.\d+){0,2})(?![.:/-]?\w|%)")
_DOTTED = re.compile(r"\d\.\d")
# Words that say a number is a new version of the thing before it.
_CHANGED = re.compile(r"\b(?:upgraded|downgraded|bumped|updated)\b", re.IGNORECASE)
# Another number joined to a version: the statement gives a range or a choice ("3.11 and 3.12", "18/20").
_MORE = re.compile(r"\s*(?:,|/|-|–|\band\b|\bor\b|\bto\b)\s*v?\d")
_NOT_NAMES = STOPWORDS | frozenset(MONTHS) | frozenset(WEEKDAYS) | frozenset({"version", "v"})


@dataclass(frozen=True)
class Version:
    name: str  # as written: "Python"
    version: str  # "3.11"
    start: int  # where the version stands in the statement
    end: int


def versions_in(text: str) -> dict[str, Version]:
    """Each named thing the statement gives a version, by its name in lower case."""
    called = bool(_CHANGED.search(text))
    return {name: found for name, (found, said_so) in _numbered(text).items()
            if _DOTTED.search(found.version) or said_so or (called and found.name[:1].isupper())}


def version_of(text: str, name: str) -> Version | None:
    """The number a statement gives `name` (lower case), read as its version: once another statement gave that
    name a version, "We use Node 18 for the frontend" says which one it ran."""
    found = _numbered(text).get(name)
    return found[0] if found else None


def only_version(text: str, found: Version) -> bool:
    """Whether the statement gives the thing this one version: "tested on Python 3.11 and 3.12" gives none."""
    return _MORE.match(text, found.end) is None


def _numbered(text: str) -> dict[str, tuple[Version, bool]]:
    """Each name followed by a number, and whether the statement calls that number its version."""
    found: dict[str, tuple[Version, bool]] = {}
    for match in _VERSIONED.finditer(text):
        name = match.group("name")
        if name.lower() not in _NOT_NAMES:
            version = Version(name, match.group("version"), match.start("version"), match.end("version"))
            found.setdefault(name.lower(), (version, bool(match.group("called"))))
    return found
