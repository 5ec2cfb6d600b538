"""Reflect: memory's health, read without a model — what `nanodream reflect` prints and what connect reads next.

- lines of memory/MEMORY.md near their archive date (neither written nor restated for nearly
  `archive_after_days`; pinned lines never leave, so they are not listed);
- two active lines that disagree about the same subject (one says not what the other says, they give the
  same thing two different numbers, one attribute two values, or one named tool two versions);
- hypotheses and insights waiting for a person's decision;
- dead letters: history lines that are not entries, waiting for `nanodream history ack`;
- active lines that may be out of date since a fact they name changed (run/cascade.py; `nanodream reflect`
  reads them in, as `status` does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from itertools import combinations

from nanodream import clock
from nanodream.atomic import read_text
from nanodream.backlog.deadletters import pending_letters
from nanodream.engines.replacing import slots_in, stems
from nanodream.hypotheses import parse as hypothesis
from nanodream.insights.knowledge import canonical
from nanodream.insights.refs import line_ref
from nanodream.insights.shelf import Shelf
from nanodream.markdown import with_fences
from nanodream.pinning import PIN
from nanodream.text.lists import wordlist
from nanodream.text.stems import singular
from nanodream.text.versions import only_version, versions_in
from nanodream.text.words import NEGATIONS, content_words, jaccard
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import Shape
from nanodream.workspace import CORE_FILES, MEMORY, USER, Workspace

NEAR_DAYS = 14  # "near its archive date": this many days or fewer left
LISTED = 20  # findings a person's listing shows per kind (--json has them all)
SAME_SUBJECT = 0.5  # share of words two lines must have in common to be about the same thing


@dataclass(frozen=True)
class NearArchive:
    ref: str
    days_left: int


@dataclass(frozen=True)
class Disagreement:
    first: str
    second: str
    why: str  # "negation" | "number" | "two values" (one attribute, two values) | "two versions" (of one tool)


@dataclass
class Reflection:
    """What reflect found (`nanodream reflect --json`, and a run's `phases.reflection`)."""

    json_shape = Shape(hidden=("read",))

    near_archive: list[NearArchive] = field(default_factory=list)
    disagreements: list[Disagreement] = field(default_factory=list)
    hypotheses: list[str] = field(default_factory=list)  # refs of hypothesis lines waiting for evidence or a person
    insights: list[str] = field(default_factory=list)  # names of insights waiting for a decision
    dead_letters: list[str] = field(default_factory=list)
    out_of_date: list[str] = field(default_factory=list)  # 'FILE:LINE: may be out of date since "…" changed on …'
    read: int = 0  # active lines read: none means there was nothing to reflect on

    @property
    def empty(self) -> bool:
        return not (self.near_archive or self.disagreements or self.hypotheses or self.insights or self.dead_letters
                    or self.out_of_date)

    def lines(self) -> list[str]:
        """The reflection as a person reads it, one finding a line."""
        found = [f"near its archive date ({item.days_left} days left): {item.ref}"
                 for item in self.near_archive[:LISTED]]
        found += [f"disagree ({item.why}): {item.first} | {item.second}" for item in self.disagreements[:LISTED]]
        found += [f"hypothesis waiting: {ref}" for ref in self.hypotheses[:LISTED]]
        found += [f"insight waiting for a decision: {name}" for name in self.insights[:LISTED]]
        found += [f"dead letter: {letter}" for letter in self.dead_letters[:LISTED]]
        found += self.out_of_date[:LISTED]
        return found


def reflect(workspace: Workspace, shelf: Shelf, archive_after_days: int,
            restated: Callable[[str], date | None] = lambda line: None, today: date | None = None) -> Reflection:
    """Memory's health as it stands (see the module docstring). `restated` is when history last restated a line."""
    lines = _active_lines(workspace)
    day = today or clock.today()
    return Reflection(
        near_archive=_near_archive(workspace, lines.get(MEMORY, []), archive_after_days, restated, day),
        disagreements=_once([*_disagreements([(file, text) for file, found in lines.items() for _, text in found]),
                             *_two_values(lines), *_two_versions(lines)]),
        hypotheses=[line_ref(file, canonical(text)) for file, found in lines.items() for _, text in found
                    if hypothesis(text) is not None],
        insights=[insight.name for insight in shelf.insights if insight.status == "proposed"],
        dead_letters=[f"history.jsonl line {letter.line}: {letter.reason}" for letter in pending_letters(workspace)],
        read=sum(len(found) for found in lines.values()),
    )


def _active_lines(workspace: Workspace) -> dict[str, list[tuple[int, str]]]:
    """file → (index, bullet text) of every bullet outside code in the core files."""
    found: dict[str, list[tuple[int, str]]] = {}
    for file in CORE_FILES:
        path = workspace.root / file
        try:
            lines = read_text(path).split("\n")
        except OSError:  # missing, or a link: never followed
            continue
        found[file] = [(index, line.strip()[2:].strip()) for index, (line, code) in enumerate(with_fences(lines))
                       if not code and line.strip().startswith(("- ", "* "))]
    return found


def _near_archive(workspace: Workspace, bullets: list[tuple[int, str]], days: int,
                  restated: Callable[[str], date | None], today: date) -> list[NearArchive]:
    if not days or not bullets:
        return []
    times = GitStore(workspace).line_times(MEMORY) or []
    near = []
    for index, text in bullets:
        written = times[index] if index < len(times) else None
        if PIN in text or written is None:
            continue
        last = max(datetime.fromtimestamp(written, UTC).date(), restated(f"- {text}") or date.min)
        left = (last + timedelta(days=days) - today).days
        if left <= NEAR_DAYS:
            near.append(NearArchive(line_ref(MEMORY, canonical(text)), max(left, 0)))
    return sorted(near, key=lambda item: item.days_left)


def _disagreements(lines: list[tuple[str, str]]) -> list[Disagreement]:
    """Pairs of lines about the same subject where one negates the other or they differ only in a number."""
    words = [normal(content_words(text)) for _, text in lines]
    found = []
    for i, j in sorted(_sharing(words)):
        if jaccard(words[i] - NEGATIONS, words[j] - NEGATIONS) < SAME_SUBJECT:
            continue
        why = conflict(words[i], words[j])
        if why:
            found.append(Disagreement(line_ref(lines[i][0], canonical(lines[i][1])),
                                      line_ref(lines[j][0], canonical(lines[j][1])), why))
    return found


def _once(found: list[Disagreement]) -> list[Disagreement]:
    """Each pair of lines once, with the first reason found for it."""
    seen: set[frozenset[str]] = set()
    kept = []
    for item in found:
        pair = frozenset((item.first, item.second))
        if pair not in seen:
            seen.add(pair)
            kept.append(item)
    return kept


def _two_values(lines: dict[str, list[tuple[int, str]]]) -> list[Disagreement]:
    """Two active lines that give one single-valued attribute two values ("Timezone: UTC+1 (Berlin)" and "User
    moved to New York; timezone is UTC-5."): one of them is out of date."""
    first: dict[tuple, tuple[str, str, str]] = {}
    found = []
    for file, bullets in lines.items():
        for _, text in bullets:
            for slot in slots_in(text, about_user=file == USER):
                value = " ".join(stems(slot.value))
                earlier = first.setdefault(slot.key, (file, text, value))
                if earlier[2] != value and earlier[1] != text:
                    found.append(Disagreement(line_ref(earlier[0], canonical(earlier[1])),
                                              line_ref(file, canonical(text)), "two values"))
    return found


def _two_versions(lines: dict[str, list[tuple[int, str]]]) -> list[Disagreement]:
    """Two active lines that give one named thing two versions ("Our backend runs on Python 3.11." and "We bumped
    Python to 3.12."). A correction replaces neither when two lines give the thing a version (the backend's and
    the scripts' Python may differ), so the person is the one to say whether both still hold. A line giving the
    thing more than one version ("tested on Python 3.11 and 3.12") says no one version of it."""
    first: dict[str, tuple[str, str, str]] = {}
    found = []
    for file, bullets in lines.items():
        for _, text in bullets:
            for name, version in versions_in(text).items():
                if not only_version(text, version):
                    continue
                earlier = first.setdefault(name, (file, text, version.version))
                if earlier[2] != version.version:
                    found.append(Disagreement(line_ref(earlier[0], canonical(earlier[1])),
                                              line_ref(file, canonical(text)), "two versions"))
    return found


def _sharing(words: list[frozenset[str]], common: int = 50) -> set[tuple[int, int]]:
    """Pairs of lines sharing a word that fewer than `common` lines hold: the only pairs worth comparing."""
    holders: dict[str, list[int]] = {}
    for index, found in enumerate(words):
        for word in found:
            holders.setdefault(word, []).append(index)
    return {pair for members in holders.values() if len(members) < common for pair in combinations(members, 2)}


_AUXILIARIES = wordlist("do-forms")  # "Does not prefer" says what "Prefers" says, negated


def normal(words: frozenset[str]) -> frozenset[str]:
    """Words as conflicts compare them: singular, without the auxiliaries a negation brings."""
    return frozenset(singular(word) for word in words - _AUXILIARIES)


def conflict(left: frozenset[str], right: frozenset[str]) -> str:
    """How two normal word sets about the same subject disagree: "negation", "number", or "" when they do not."""
    apart = left ^ right
    if apart & NEGATIONS and len(apart - NEGATIONS) <= 1:
        return "negation"
    only_left, only_right = left - right, right - left
    if len(only_left) == len(only_right) == 1 and all(any(c.isdigit() for c in w) for w in apart):
        return "number"
    return ""
