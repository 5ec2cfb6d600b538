"""nanodream's own three-way merge of memory: three versions of a file in, one out, and what the merge decided.

git's text merge knows lines, not facts: it leaves conflict markers in MEMORY.md, or (`merge=union`) keeps the
same fact twice. nanodream never asks git to merge: `nanodream sync` and a change landing on a hand edit
(memory/transaction.py) read the three versions — base (what both started from), ours, theirs — and merge them
here, one rule per kind of file (docs/sync.md):

- **Fact files and settings** (SOUL.md, USER.md, memory/MEMORY.md; nanodream.toml, prompts/): by line. A line
  added on either side is kept once — the same fact added on both sides appears once, wherever each side put it;
  a line removed on one side and untouched on the other is removed; a line changed on one side only takes the
  change (a change wins over a removal). A line changed differently on both sides: the newer change, by the
  date of the commit that made it (`Clock`), stays active; in a fact file the older value goes to the archive as
  replaced (`Replaced`), in settings it waits as a proposal; when nanodream cannot tell which is newer, ours
  stays active and theirs waits as a proposal (`Undecided`). A nanodream.toml the lines no longer make valid
  TOML is taken whole from the newer side, the other waiting as a proposal. Then `uncrossed`: a correction one
  side learned of a line the other side learned meanwhile replaces that line when the correction's commit is the
  newer (the caller says what a correction replaces), the line archived as replaced, as above.
- **Records** (a skill's SKILL.md, an insight): whole. Changed on one side: that side. Changed on both: the newer
  stays; for a skill the other becomes a proposal.
- **Sets** (archive months, memory/rejected.md, .gitignore): lines as a set, each under the heading it sat under.

Every line that arrives from theirs passes `guard` (what may land; the caller says why not): a line refused is
left out of the result, reported in `held`.

Pure: texts in, texts out; the caller reads the versions and the dates, and writes the result.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Literal, Protocol

from nanodream.markdown import is_heading, with_fences
from nanodream.validity import fact_of
from nanodream.workspace import ARCHIVE_DIR, CORE_FILES, INSIGHTS_DIR, REJECTED_FILE

Side = Literal["ours", "theirs"]
Origin = Literal["base", "ours", "theirs"]
# Two lines are one line changed (not one removed and another added) when they are at least this alike.
CHANGED_RATIO = 0.5
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Conflict:
    """A line changed differently on both sides: its base text, each side's, and where each side has it."""

    path: str
    base: str
    ours: str
    theirs: str
    ours_line: int  # 0-based, in ours' text
    theirs_line: int  # 0-based, in theirs' text


class Clock(Protocol):
    """Which side's change is newer (None: nanodream cannot tell), and the day a side's change was made."""

    def line(self, conflict: Conflict) -> Side | None: ...

    def file(self, path: str) -> Side | None: ...

    def day(self, conflict: Conflict, side: Side) -> date: ...


@dataclass(frozen=True)
class Replaced:
    """The older value of a fact line changed on both sides: it goes to the archive, true until the day the newer
    change was made, replaced by the newer."""

    path: str
    old: str
    new: str
    winner: Side
    until: date


@dataclass(frozen=True)
class Undecided:
    """A value that waits for a person: `kept` stays in the file, `other` is proposed in its place."""

    path: str
    kept: str
    other: str
    decided: bool  # True: `kept` is the newer (a setting, a skill), False: nanodream could not tell


@dataclass(frozen=True)
class Held:
    """A line that arrived from theirs and may not land: why, and whether it waits for a person or is left out."""

    path: str
    line: str
    reason: str
    waits: bool  # True: proposed for review; False: left out with a warning


# What may land of a line arriving from theirs: None, or (why not, whether it waits for review).
Guard = Callable[[str, str], tuple[str, bool] | None]
# Which of some lines of a file a line stating a correction replaces: (correction, lines, path) -> index or None.
Corrects = Callable[[str, list[str], str], int | None]


def _no_guard(path: str, line: str) -> None:
    return None


@dataclass
class Merged:
    """One file's merge: its text (None: the file is gone), and what the merge decided on the way."""

    path: str
    text: str | None
    arrived: int = 0  # lines of theirs the result holds that ours did not
    replaced: list[Replaced] = field(default_factory=list)
    undecided: list[Undecided] = field(default_factory=list)
    held: list[Held] = field(default_factory=list)
    proposal: str | None = None  # a whole other version waiting for a person (a skill, a settings file)
    notes: list[str] = field(default_factory=list)


def merge_file(path: str, base: str | None, ours: str | None, theirs: str | None, clock: Clock,
               guard: Guard = _no_guard) -> Merged:
    """Merge one memory file's three versions by the rule of its kind (see the module docstring)."""
    if ours == theirs:
        return Merged(path, ours)
    if theirs == base:
        return Merged(path, ours)
    kind = kind_of(path)
    if kind == "set":
        return _merge_set(path, base, ours, theirs, guard)
    if kind in ("facts", "settings"):
        return _merge_text(path, base, ours, theirs, clock, guard)
    return _merge_record(path, base, ours, theirs, clock, guard)


def uncrossed(merged: Merged, base: str | None, ours: str | None, theirs: str | None, clock: Clock,
              corrects: Corrects) -> Merged:
    """Corrections that crossed: a line new on one side (since `base`) that corrects a line new on the other
    replaces it when its commit is the newer — the old value was learned before the correction was made. When
    nanodream cannot tell which is newer, both stay."""
    if kind_of(merged.path) != "facts" or merged.text is None:
        return merged
    old, mine, yours = set(_lines(base)), _lines(ours), _lines(theirs)
    in_mine, in_yours = set(mine), set(yours)
    lines = _lines(merged.text)
    fresh = [line for line in lines if line.strip() and not is_heading(line) and line not in old]
    new = {"ours": [line for line in fresh if line in in_mine],
           "theirs": [line for line in fresh if line in in_yours and line not in in_mine]}
    gone: set[str] = set()
    for side, other in (("ours", "theirs"), ("theirs", "ours")):
        for correction in new[side]:
            left = [line for line in new[other] if line not in gone]
            found = corrects(correction, left, merged.path) if left and correction not in gone else None
            if found is None:
                continue
            line = left[found]
            at_ours, at_theirs = (correction, line) if side == "ours" else (line, correction)
            conflict = Conflict(merged.path, "", at_ours, at_theirs, mine.index(at_ours), yours.index(at_theirs))
            if clock.line(conflict) == side:
                gone.add(line)
                merged.replaced.append(Replaced(merged.path, line, correction, side, clock.day(conflict, side)))
    if gone:
        merged.arrived -= len(gone & set(new["theirs"]))
        merged.text = _joined([line for line in lines if line not in gone], merged.text)
    return merged


def kind_of(path: str) -> str:
    """facts | settings | set | skill | insight | record: which rule merges `path`."""
    if path in CORE_FILES:
        return "facts"
    if path == "nanodream.toml" or path.startswith("prompts/"):
        return "settings"
    if path.startswith(f"{ARCHIVE_DIR}/") or path in (REJECTED_FILE, ".gitignore"):
        return "set"
    if path.startswith("skills/") and path.endswith("/SKILL.md"):
        return "skill"
    return "insight" if path.startswith(f"{INSIGHTS_DIR}/") else "record"


def fact_key(line: str) -> str:
    """What makes two lines the same line for a merge: the fact, whatever its bullet, case, spacing or full stop."""
    return _SPACES.sub(" ", fact_of(line)).strip().casefold()


# records: a whole file ------------------------------------------------------------------------------------


def _merge_record(path: str, base: str | None, ours: str | None, theirs: str | None, clock: Clock,
                  guard: Guard) -> Merged:
    if ours == base:
        return _arriving(path, ours, theirs, guard)
    newer = clock.file(path)
    proposes = kind_of(path) != "insight"  # an insight keeps its own decisions (docs/insights.md)
    if newer == "theirs":
        merged = _arriving(path, ours, theirs, guard)
        merged.notes.append(f"{path}: changed on both sides; the newer version (from the remote) stays")
    else:
        told = "the newer (this machine's) stays" if newer == "ours" else "which is newer cannot be told; this " \
                                                                           "machine's stays"
        merged = Merged(path, ours, notes=[f"{path}: changed on both sides; {told}"])
    if proposes:
        merged.proposal = ours if newer == "theirs" else theirs
        merged.notes[-1] += ", the other waits as a proposal"
    return merged


def _arriving(path: str, ours: str | None, theirs: str | None, guard: Guard) -> Merged:
    """Theirs' whole file lands, but for the lines of it the guard refuses."""
    if theirs is None:
        return Merged(path, None)
    had = set((ours or "").splitlines())
    kept, held = [], []
    for line in theirs.splitlines(keepends=True):
        problem = guard(path, line.rstrip("\r\n")) if line.rstrip("\r\n") not in had and line.strip() else None
        if problem is None:
            kept.append(line)
        else:
            held.append(Held(path, line.rstrip("\r\n"), *problem))
    text = "".join(kept)
    arrived = sum(1 for line in text.splitlines() if line not in had)
    return Merged(path, text, arrived=arrived, held=held)


# sets: lines under their headings ------------------------------------------------------------------------------


def _merge_set(path: str, base: str | None, ours: str | None, theirs: str | None, guard: Guard) -> Merged:
    """Ours' lines but those theirs removed, then theirs' new lines under the heading they sit under there."""
    base_lines, their_lines = set(_lines(base)), set(_lines(theirs))
    removed_there = {line for line in base_lines - their_lines if line.strip()}
    ours_lines = _lines(ours)
    removed_here = base_lines - set(ours_lines)
    out = [line for line in ours_lines if line not in removed_there]
    merged = Merged(path, None)
    present = set(out)
    heading = ""
    for line in _lines(theirs):
        if _is_heading(line):
            heading = line
        if not line.strip() or line in present or line in removed_here or _is_heading(line):
            continue
        problem = guard(path, line)
        if problem is not None:
            merged.held.append(Held(path, line, *problem))
            continue
        _insert_under(out, heading, line)
        present.add(line)
        merged.arrived += 1
    merged.text = _joined(out, ours if ours is not None else theirs)
    return merged


def _insert_under(lines: list, heading: str, line: object) -> None:
    """Put `line` last in the section `heading` opens (a new section at the end when there is none). `lines` holds
    texts, or (text, origin) pairs; `line` is of the same kind."""
    texts = [item if isinstance(item, str) else item[0] for item in lines]
    if heading and heading in texts:
        at = texts.index(heading) + 1
        while at < len(texts) and not _is_heading(texts[at]):
            at += 1
        while at > 0 and not texts[at - 1].strip():
            at -= 1
        lines.insert(at, line)
        return
    if heading:
        while lines and not texts[len(lines) - 1].strip():
            lines.pop()
        lines += ["", heading] if lines else [heading]
    lines.append(line)


def _is_heading(line: str) -> bool:
    return line.lstrip().startswith("#")


# facts and settings: line by line ---------------------------------------------------------------------------


@dataclass
class _Side:
    """How one side changed base: each base line's fate, and its lines in order (base lines and new ones)."""

    fate: dict[int, tuple[str, int]]  # base index -> ("kept" | "changed", index in side) ; absent: removed
    events: list[tuple[str, int]]  # ("base", base index) | ("new", index in side), in the side's order
    added_after: dict[int, list[int]]  # base index (-1: before the first) -> new lines that follow it


@dataclass
class _Text:
    path: str
    base: list[str]
    ours: list[str]
    theirs: list[str]
    clock: Clock
    guard: Guard
    merged: Merged
    facts: bool
    out: list[tuple[str, Origin]] = field(default_factory=list)


def _merge_text(path: str, base: str | None, ours: str | None, theirs: str | None, clock: Clock,
                guard: Guard) -> Merged:
    if ours is None or theirs is None:  # a file removed on one side and changed on the other: a whole record
        return _merge_record(path, base, ours, theirs, clock, guard)
    work = _Text(path, _lines(base), _lines(ours), _lines(theirs), clock, guard, Merged(path, None),
                 facts=kind_of(path) == "facts")
    _walk(work)
    lines = _homed(_deduplicated(work.out), work.theirs)
    work.merged.arrived = sum(1 for text, origin in lines if origin == "theirs" and text not in set(work.ours))
    work.merged.text = _joined([text for text, _ in lines], ours)
    if path == "nanodream.toml" and not _valid_toml(work.merged.text):
        return _whole_newer(path, ours, theirs, clock, guard)
    return work.merged


def _walk(work: _Text) -> None:
    """diff3: the base lines both sides kept are fixed points; what lies between them is merged chunk by chunk."""
    ours_kept = _matched(work.base, work.ours)
    theirs_kept = _matched(work.base, work.theirs)
    previous = (-1, -1, -1)
    for index in [*(i for i in range(len(work.base)) if i in ours_kept and i in theirs_kept), len(work.base)]:
        at_ours = ours_kept.get(index, len(work.ours))
        at_theirs = theirs_kept.get(index, len(work.theirs))
        _chunk(work, (previous[0] + 1, index), (previous[1] + 1, at_ours), (previous[2] + 1, at_theirs))
        if index < len(work.base):
            work.out.append((work.base[index], "base"))
        previous = (index, at_ours, at_theirs)


def _chunk(work: _Text, b: tuple[int, int], o: tuple[int, int], t: tuple[int, int]) -> None:
    base, ours, theirs = work.base[b[0]:b[1]], work.ours[o[0]:o[1]], work.theirs[t[0]:t[1]]
    if theirs == base or ours == theirs:
        work.out += [(line, "ours") for line in ours]
    elif ours == base:
        work.out += _guarded(work, theirs)
    else:
        _conflicting(work, b, o, t)


def _conflicting(work: _Text, b: tuple[int, int], o: tuple[int, int], t: tuple[int, int]) -> None:
    """Both sides changed this stretch: base line by base line in ours' order, and theirs' new lines after the base
    line they follow there (after ours' own new lines at the same place)."""
    base = work.base[b[0]:b[1]]
    mine = _side(base, work.ours[o[0]:o[1]])
    yours = _side(base, work.theirs[t[0]:t[1]])
    waiting = _guarded(work, [work.theirs[t[0] + j] for j in yours.added_after.get(-1, [])])
    for kind, index in mine.events:
        if kind == "new":
            work.out.append((work.ours[o[0] + index], "ours"))
            continue
        work.out += waiting
        work.out += _fate(work, b[0] + index, _located(mine.fate.get(index), o[0]),
                          _located(yours.fate.get(index), t[0]))
        waiting = _guarded(work, [work.theirs[t[0] + j] for j in yours.added_after.get(index, [])])
    work.out += waiting


def _located(fate: tuple[str, int] | None, offset: int) -> tuple[str, int] | None:
    return None if fate is None else (fate[0], fate[1] + offset)


def _fate(work: _Text, index: int, ours: tuple[str, int] | None,
          theirs: tuple[str, int] | None) -> list[tuple[str, Origin]]:
    """What one base line becomes, from what each side did to it (None: removed)."""
    if ours is not None and ours[0] == "changed":
        if theirs is None or theirs[0] == "kept":
            return [(work.ours[ours[1]], "ours")]
        return [_both_changed(work, index, ours[1], theirs[1])]
    if theirs is not None and theirs[0] == "changed":
        return _guarded(work, [work.theirs[theirs[1]]])
    if ours is None or theirs is None:
        return []  # removed on one side and untouched (or removed) on the other
    return [(work.base[index], "base")]


def _both_changed(work: _Text, index: int, at_ours: int, at_theirs: int) -> tuple[str, Origin]:
    """One line changed differently on both sides: the newer value stays; the other goes to the archive (a fact)
    or waits as a proposal (a setting, or when nanodream cannot tell which is newer). Theirs' value passes the
    guard first: one it refuses is held, and ours stays."""
    mine, yours = work.ours[at_ours], work.theirs[at_theirs]
    if fact_key(mine) == fact_key(yours):
        return (mine, "ours")
    if not _guarded(work, [yours]):
        return (mine, "ours")
    conflict = Conflict(work.path, work.base[index], mine, yours, at_ours, at_theirs)
    newer = work.clock.line(conflict)
    winner, loser = (yours, mine) if newer == "theirs" else (mine, yours)
    if newer is not None and work.facts:
        work.merged.replaced.append(Replaced(work.path, loser, winner, newer, work.clock.day(conflict, newer)))
    else:
        work.merged.undecided.append(Undecided(work.path, winner, loser, decided=newer is not None))
    return (winner, "theirs" if newer == "theirs" else "ours")


def _guarded(work: _Text, lines: list[str]) -> list[tuple[str, Origin]]:
    """Theirs' lines that may land (the others held, reported once each)."""
    kept: list[tuple[str, Origin]] = []
    for line in lines:
        problem = work.guard(work.path, line) if line.strip() and line not in work.ours else None
        if problem is None:
            kept.append((line, "theirs"))
        elif all(held.line != line for held in work.merged.held):
            work.merged.held.append(Held(work.path, line, *problem))
    return kept


def _side(base: list[str], side: list[str]) -> _Side:
    """How `side` changed `base`: lines kept, lines changed (paired with the base line they replace, when alike
    enough), lines removed, and new lines with the base line they follow."""
    result = _Side({}, [], {})
    last = -1

    def new(j: int) -> None:
        result.events.append(("new", j))
        result.added_after.setdefault(last, []).append(j)

    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, base, side, autojunk=False).get_opcodes():
        pairs = {k: k for k in range(i2 - i1)} if tag == "equal" else _paired(base[i1:i2], side[j1:j2])
        paired, placed = set(pairs.values()), 0
        for offset in range(i2 - i1):
            target = pairs.get(offset)
            if target is not None:
                for j in range(placed, target):
                    if j not in paired:
                        new(j1 + j)
                placed = target + 1
                result.fate[i1 + offset] = ("kept" if tag == "equal" else "changed", j1 + target)
            result.events.append(("base", i1 + offset))
            last = i1 + offset
        for j in range(placed, j2 - j1):
            if j not in paired:
                new(j1 + j)
    return result


def _paired(old: list[str], new: list[str]) -> dict[int, int]:
    """old index -> new index: each old line with the first unpaired new line after the last pair that is alike
    enough to be the same line changed."""
    pairs: dict[int, int] = {}
    start = 0
    for i, line in enumerate(old):
        for j in range(start, len(new)):
            if _alike(line, new[j]):
                pairs[i] = j
                start = j + 1
                break
    return pairs


def _alike(old: str, new: str) -> bool:
    a, b = fact_key(old), fact_key(new)
    if not a or not b or _is_heading(old) != _is_heading(new):
        return False
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= CHANGED_RATIO


def _matched(base: list[str], side: list[str]) -> dict[int, int]:
    """Base index -> side index for every base line the side kept where it was."""
    kept: dict[int, int] = {}
    for block in difflib.SequenceMatcher(None, base, side, autojunk=False).get_matching_blocks():
        kept.update({block.a + k: block.b + k for k in range(block.size)})
    return kept


def _deduplicated(lines: list[tuple[str, Origin]]) -> list[tuple[str, Origin]]:
    """Theirs' lines that say what the result already holds from ours or base are dropped (the same fact learned on
    both sides appears once, wherever each side put it), with the blank lines that only led up to them."""
    present = {fact_key(text) for text, origin in lines if origin != "theirs" and text.strip()}
    dropped = {i for i, (text, origin) in enumerate(lines)
               if origin == "theirs" and text.strip() and fact_key(text) in present}
    for i, (text, origin) in enumerate(lines):
        if origin == "theirs" and not text.strip():
            following = next((k for k in range(i + 1, len(lines)) if lines[k][0].strip()), None)
            if following is None or following in dropped:
                dropped.add(i)
    kept = [line for i, line in enumerate(lines) if i not in dropped]
    return [line for i, line in enumerate(kept)
            if line[0].strip() or line[1] != "theirs" or i == 0 or kept[i - 1][0].strip()]


def _homed(lines: list[tuple[str, Origin]], theirs: list[str]) -> list[tuple[str, Origin]]:
    """Markdown-aware: a line from theirs that the merge left under another heading than theirs put it under goes
    to the end of that section, when the result has it (two memories that grew apart merge section by section)."""
    home = {}
    for text, section in zip(theirs, _sections(theirs), strict=True):
        home.setdefault(text, section)
    placed = _sections([text for text, _ in lines])
    moving = [i for i, (text, origin) in enumerate(lines) if origin == "theirs" and text.strip()
              and not is_heading(text) and home.get(text, placed[i]) != placed[i]]
    headings = {text for text, _ in lines if is_heading(text)}
    moving = [i for i in moving if home[lines[i][0]] in headings]
    if not moving:
        return lines
    kept = [line for i, line in enumerate(lines) if i not in set(moving)]
    for i in moving:
        _insert_under(kept, home[lines[i][0]], lines[i])
    return kept


def _sections(lines: list[str]) -> list[str]:
    """For each line, the heading line it sits under ('' before the first; fenced code is not a heading)."""
    found, current = [], ""
    for line, code in with_fences(lines):
        if not code and is_heading(line):
            current = line
        found.append(current)
    return found


def _whole_newer(path: str, ours: str, theirs: str, clock: Clock, guard: Guard) -> Merged:
    """A settings file its lines cannot merge into valid TOML: the newer whole, the other waiting as a proposal."""
    newer = clock.file(path)
    if newer == "theirs":
        merged = _arriving(path, ours, theirs, guard)
        merged.proposal = ours
    else:
        merged = Merged(path, ours, proposal=theirs)
    merged.notes.append(f"{path}: merged line by line it is no longer valid TOML; the "
                        f"{'newer' if newer else 'local'} file stays whole, the other waits as a proposal")
    return merged


def _valid_toml(text: str | None) -> bool:
    try:
        tomllib.loads(text or "")
    except tomllib.TOMLDecodeError:
        return False
    return True


def _lines(text: str | None) -> list[str]:
    if not text:
        return []
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _joined(lines: list[str], like: str | None) -> str:
    """Lines back into a text, ending with a newline as `like` does (or as most files do)."""
    if not lines:
        return ""
    ends = like is None or like == "" or like.endswith("\n")
    return "\n".join(lines) + ("\n" if ends else "")
