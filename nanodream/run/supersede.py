"""Superseded, not erased: a fact a dream replaced moves to the archive, marked with when it stopped being true.

After the session, the batch's history is replayed against the files the session began from: each fact line
of the batch, in order, replaces the line it changes (engines/replacing.py: the same slot, the old value named
outright, or for a `[correction]` the same frame with a changed value) among the lines memory held and the
batch's earlier facts. Every replaced line that is gone from the staged files, and whose successor memory now
holds (or that was replaced again later in the batch), is appended to `memory/archive/YYYY-MM.md` in the
until-form (validity.py): until the day of the entry that replaced it, from the day of the entry that taught
it, replaced by the new line. So a value that came and went inside one batch is kept too. A line the session
removed that no history line accounts for is paired with a new line of the files by the same rules, and a
line that went with a replaced one (it said nothing more, in terms of the old value) is archived with it.

Derived from the history and the diff, not asked of the model: the builtin engine and a model are held to one
rule, a model that edits the old line in place (as the prompt asks) gets it right without learning a format,
and the dates are the history's, which a model could misread. What is not a replacement stays as it was: a
line the new one says all of was refined, a marker or pin changing is the same fact, open tasks follow their
own rules, and a line removed with nothing in its place was deleted. If the session archived the old line
itself, that copy takes the form instead of a second one being added.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from nanodream.backlog.history import Batch, entry_day, tagged_lines
from nanodream.engines.builtin import strip_tags
from nanodream.engines.replacing import SLOT, Candidate, find_replaced, restates, stems
from nanodream.engines.routing import OPEN_TASKS, parse_task, route_fact
from nanodream.markdown import MarkdownDoc
from nanodream.memory import archive
from nanodream.memory.staging import Staging
from nanodream.rejected import fact_key as rejected_key
from nanodream.text.words import covers, fact_key, jaccard, tidy_sentence
from nanodream.validity import replaced_line
from nanodream.versioning.gitstore import GitStore
from nanodream.versioning.provenance import taught_days
from nanodream.workspace import CORE_FILES

FACT_TAGS = ("permanent", "durable", "correction")
# A history line states a memory line when they share at least this share of their meaningful words.
SOURCE_SHARE = 0.5


@dataclass(frozen=True)
class Said:
    """One fact line of the batch's history: its tag, its text, the day of its entry."""

    tag: str
    text: str
    day: date | None


@dataclass(frozen=True)
class Replaced:
    """A fact a later one replaced: the old line, what replaced it, the day it stopped being true, and the day
    it became true when the batch said so (a line from the files is traced through `why` instead)."""

    old: Candidate
    new: str
    until: date
    since: date | None = None
    section: str = ""

    @property
    def from_files(self) -> bool:
        return self.old.index >= 0  # a line of the files the session began from; the batch's own are negative


def keep_replaced(staging: Staging, store: GitStore, batch: Batch | None, *, today: date,
                  held_back: Iterable[str] = (), rejected: frozenset[frozenset[str]] = frozenset()) -> list[Replaced]:
    """Archive every fact the session's batch replaced (see the module docstring); `held_back` files wait for a
    person (the review lane), so their lines are left where they are. A fact a person rejected (`rejected`:
    the ledger's keys) is never written back, not even as a replaced one."""
    found = [item for item in replacements(staging, batch, today=today,
                                           paths=[p for p in CORE_FILES if p not in set(held_back)])
             if rejected_key(item.old.text) not in rejected]
    moved = []
    taught = taught_days(store, [(i.old.path, i.old.index + 1, i.old.text) for i in found if i.from_files])
    for item in found:
        since = taught[(item.old.path, item.old.index + 1)] if item.from_files else item.since
        line = replaced_line(item.old.text, item.until, item.new, since)
        if not (item.from_files and archive.mark_moved(staging, f"- {item.old.text}", line)):
            moved.append((item.section, line))
    if moved:
        archive.append(staging, today, moved)
    return found


def replacements(staging: Staging, batch: Batch | None, *, today: date,
                 paths: Sequence[str] = CORE_FILES) -> list[Replaced]:
    """The facts the session replaced in `paths` (or its batch replaced before memory held them), in order."""
    removed, added = _diff(staging, paths)
    said = [s for s in _said(batch) if route_fact(s.text).path in paths]
    fallback = max((s.day for s in said if s.day is not None), default=today)
    memory = _Memory(staging, paths)
    sources = _Sources(said)
    found = _replayed(removed, sources, memory, added, fallback)
    gone = [line for line in removed if line not in {item.old for item in found}]
    for new in added:
        source = sources.of(new.text)
        corrected = source is not None and source.tag == "correction"
        match = find_replaced(new.text, gone, prefer=new.path, frames=corrected, where=new.path)
        if match is not None:
            gone.remove(match.candidate)
            found.append(Replaced(match.candidate, new.text, (source.day if source else None) or fallback))
    found += _gone_with(found, gone)
    return [_placed(item, staging) for item in found]


def _replayed(removed: list[Candidate], sources: _Sources, memory: _Memory, added: list[Candidate],
              undated: date) -> list[Replaced]:
    """The batch's facts in order, each replacing what it changes among the lines memory held and the batch's
    earlier facts; kept when the old line is gone and what replaced it is held (or was replaced in turn)."""
    live = list(removed)
    told: dict[int, Said] = {}
    pairs: list[tuple[Candidate, Candidate, Said]] = []
    for order, line in enumerate(sources.said):
        new = Candidate(route_fact(line.text).path, -1 - order, tidy_sentence(line.text))
        match = find_replaced(line.text, live, prefer=new.path, frames=line.tag == "correction", where=new.path)
        if match is not None:
            live.remove(match.candidate)
            pairs.append((match.candidate, new, line))
        if not any(fact_key(other.text) == fact_key(new.text) for other in live):
            live.append(new)
            told[new.index] = line
    kept: set[int] = set()
    for old, new, line in reversed(pairs):
        held = memory.holds(new.text) or _holder(line, added, sources) is not None
        if (held or new.index in kept) and not memory.holds(old.text):
            kept.add(old.index)
    return [Replaced(old, _holder(line, added, sources) or new.text, line.day or undated,
                     told[old.index].day if old.index in told else None)
            for old, new, line in pairs if old.index in kept]


def _holder(line: Said, added: list[Candidate], sources: _Sources) -> str | None:
    """The new memory line that states the history line: the same words, all of it, or the line the session
    wrote from it in its own words (an anti-pattern made of a correction, a fact reworded)."""
    text = tidy_sentence(line.text)
    return next((new.text for new in added if fact_key(new.text) == fact_key(text) or covers(new.text, text)
                 or sources.of(new.text) is line), None)


class _Memory:
    """The staged fact lines of the core files: does memory hold a fact (the same words, or a line saying all)?"""

    def __init__(self, staging: Staging, paths: Sequence[str]) -> None:
        self.lines = [line.text for path in paths for line in _facts(path, staging.read(path))]
        self.keys = {fact_key(line) for line in self.lines}

    def holds(self, text: str) -> bool:
        return fact_key(text) in self.keys or any(covers(line, text) for line in self.lines)


def _gone_with(found: list[Replaced], gone: list[Candidate]) -> list[Replaced]:
    """Removed lines that were untrue with a replaced one: the same slot, or only its old value restated."""
    extra = []
    for line in gone:
        for item in found:
            same = find_replaced(item.new, [line], where=item.old.path)
            match = find_replaced(item.new, [item.old], frames=True, where=item.old.path)
            if (same is not None and same.rule == SLOT) or (match is not None and
                                                           restates(item.old, line, match.change)):
                extra.append(Replaced(line, item.new, item.until))
                break
    return extra


def _diff(staging: Staging, paths: Sequence[str]) -> tuple[list[Candidate], list[Candidate]]:
    """Fact lines gone from the files and fact lines new in them (same words with another marker: neither)."""
    removed: list[Candidate] = []
    added: list[Candidate] = []
    for path in paths:
        before, after = _facts(path, staging.original.get(path)), _facts(path, staging.read(path))
        kept = Counter(line.text for line in after)
        had = Counter(line.text for line in before)
        removed += [line for line in before if _take(kept, line.text)]
        added += [line for line in after if _take(had, line.text)]
    same = {fact_key(line.text) for line in removed} & {fact_key(line.text) for line in added}
    return ([line for line in removed if fact_key(line.text) not in same],
            [line for line in added if fact_key(line.text) not in same])


def _take(counts: Counter[str], text: str) -> bool:
    """True when `text` is not (or no longer) among `counts`; otherwise use one occurrence up."""
    if counts[text] > 0:
        counts[text] -= 1
        return False
    return True


def _facts(path: str, text: str | None) -> list[Candidate]:
    return [Candidate(path, b.index, b.text) for b in MarkdownDoc(text or "").bullets()
            if (b.section or "").lower() != OPEN_TASKS.lower()]


def _said(batch: Batch | None) -> list[Said]:
    """The batch's fact lines (tasks aside), in history order."""
    if batch is None:
        return []
    found = []
    for entry in batch.entries:
        for tag, text in tagged_lines(entry.content):
            text = strip_tags(text)
            if tag in FACT_TAGS and text and parse_task(text) is None:
                found.append(Said(tag, text, entry_day(entry.timestamp)))
    return found


class _Sources:
    """Which history line of the batch states a memory line: the one sharing most of its words (the latest of
    equals), at least SOURCE_SHARE of them. Each history line's words are taken once and each answer kept, as a
    batch asks about every new line and every replacement."""

    def __init__(self, said: list[Said]) -> None:
        self.said = said
        self._words = [stems(s.text) for s in said]
        self._known: dict[str, Said | None] = {}

    def of(self, line: str) -> Said | None:
        if line not in self._known:
            words = stems(line)
            scored = [(jaccard(words, theirs), order) for order, theirs in enumerate(self._words)]
            share, order = max(scored, default=(0.0, -1))
            self._known[line] = self.said[order] if scored and share >= SOURCE_SHARE else None
        return self._known[line]


def _placed(item: Replaced, staging: Staging) -> Replaced:
    """The replaced line with the `##` section it sat under (for the batch's own facts: where it was routed)."""
    if not item.from_files:
        return Replaced(item.old, item.new, item.until, item.since, route_fact(item.old.text).section)
    titles = archive.sections((staging.original.get(item.old.path) or "").split("\n"))
    section = titles[item.old.index] if item.old.index < len(titles) else ""
    return Replaced(item.old, item.new, item.until, item.since, section)
