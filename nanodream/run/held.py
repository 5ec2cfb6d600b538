"""What memory holds, indexed by the words of its lines: the lines a fact may be kept by, found without a scan.

The accounting asks, for every fact of a batch, which active or archived line keeps it. Comparing each fact with
every line made a batch's cost grow with memory times the batch (a 5,000-line archive added half a second a
batch); instead each line is filed under its meaningful words and values once, and a fact is compared only with
the lines that share one with it (a line that keeps a fact always shares one: a value, a word, or a form of one).
The archive's index is kept between batches while its months are unchanged, so a run reads it once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from nanodream.engines.facts import context_of, marked_replaced, read
from nanodream.memory import archive
from nanodream.memory.staging import Staging
from nanodream.rejected import fact_text
from nanodream.workspace import ARCHIVE_DIR, CORE_FILES

_PREFIX = 5  # words of five letters or more are also found by their first five ("deployment" for "deploy")


@dataclass(frozen=True)
class Line:
    """A memory line that may keep a fact: its file, its fact text, what it says without writing it."""

    path: str
    text: str
    context: str


class LineIndex:
    """Lines filed under their words and values."""

    def __init__(self, lines: Iterable[Line]) -> None:
        self.lines = list(lines)
        self._by_word: dict[str, list[int]] = defaultdict(list)
        for number, line in enumerate(self.lines):
            for key in _keys(f"{line.text} {line.context}"):
                self._by_word[key].append(number)

    def near(self, text: str) -> list[Line]:
        """The lines sharing a word, a value or a form of one with `text`, in file order (every line for a text
        of function words only, which only its own words can keep)."""
        keys = _keys(text)
        if not keys:
            return list(self.lines)
        found = {number for key in keys for number in self._by_word.get(key, ())}
        return [self.lines[number] for number in sorted(found)]


def _keys(text: str) -> set[str]:
    reading = read(text)
    words = reading.stems | reading.values
    return words | {word[:_PREFIX] + "…" for word in words if len(word) >= _PREFIX}


def file_lines(path: str, text: str | None, *, replaced: bool = True) -> list[Line]:
    """The fact lines of one file, each with its file's subject and its section's heading as context;
    `replaced=False` leaves out lines marked as replaced (`until`, "replaced by")."""
    raw = (text or "").split("\n")
    headings = archive.sections(raw)
    return [Line(path, fact, context_of(path, heading)) for line, heading in zip(raw, headings, strict=True)
            if (fact := fact_text(line)) and (replaced or not marked_replaced(line))]


def active_index(staging: Staging) -> LineIndex:
    """The core files and the skills as staged now."""
    return LineIndex(line for path in [*CORE_FILES, *staging.skill_paths()]
                     for line in file_lines(path, staging.read(path)))


def archive_index(staging: Staging) -> LineIndex:
    """The archive's lines that still hold their fact (not marked as replaced), as staged now."""
    months = tuple((path, staging.include(path) or "") for path in staging.archive_paths())
    return _archived(months)


@lru_cache(maxsize=4)  # a run's batches ask again with the same months until one of them changes
def _archived(months: tuple[tuple[str, str], ...]) -> LineIndex:
    return LineIndex(line for path, text in months for line in file_lines(path, text, replaced=False))


def added_lines(staging: Staging) -> list[str]:
    """The lines the session added to memory (not to the archive): what a claim of an edit can point at."""
    return [line for change in staging.changes() if not change.path.startswith(f"{ARCHIVE_DIR}/")
            for line in set(_facts(change.after)) - set(_facts(change.before))]


def _facts(text: str | None) -> list[str]:
    return [fact for raw in (text or "").splitlines() if (fact := fact_text(raw))]
