"""What nanodream keeps of skill use between runs, so no run reads the host's files from their first line again.

`.nanodream/skill-usage.json` holds, per session (a session key on one day), the day each skill was last used in
it, whether it held a `[correction]`, and which skills the host reported going wrong in it; and how far each file
(history.jsonl, skill-usage.jsonl) has been read.

The set of skills changes — one is created, renamed, merged, deleted — and the kept state follows it instead of
being thrown away:

- a deleted skill's uses are forgotten; every other skill keeps what was read;
- a new skill's past is a *debt*: the part of each file read before it existed, still to be read for its name.
  Debts are paid newest first, a bounded number of bytes per call (backlog/past.py), with only the lines that can
  name the skill decoded, so a new skill costs a run what its budget allows, whatever the history's length. Its
  uses of the last days are known first; older ones follow over the next runs;
- a skill whose name lies inside a name that came or went (`mcp-email` in `mcp-email-send`) is read again the same
  way, since the longest name wins where both could be read;
- a history nanodream has never read (a workspace adopted with a long history, or a state that is missing or no
  longer describes the files) is all debt, corrections included: the first run pays one budget, not the history.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from nanodream import boundedjson
from nanodream.atomic import atomic_write
from nanodream.backlog.past import whole_lines_end
from nanodream.backlog.position import fingerprint

STATE_VERSION = 3
HISTORY, USAGE = "history", "usage"


@dataclass
class Sitting:
    """One session as kept: the last day each skill was used in it, and what went wrong in it."""

    skills: dict[str, str] = field(default_factory=dict)
    corrected: bool = False  # it holds a [correction] line
    failed: list[str] = field(default_factory=list)  # skills the host reported with an outcome other than ok

    def use(self, skill: str, day: str) -> None:
        self.skills[skill] = max(self.skills.get(skill, ""), day)

    def fail(self, skill: str) -> None:
        if skill not in self.failed:
            self.failed.append(skill)

    def forget(self, names: set[str]) -> None:
        for name in names & self.skills.keys():
            del self.skills[name]
        self.failed = [name for name in self.failed if name not in names]

    @property
    def empty(self) -> bool:
        return not (self.skills or self.corrected or self.failed)


@dataclass
class Read:
    """How far a file has been read from its start: `offset` bytes (`line` lines), with the prefix's fingerprint."""

    offset: int = 0
    line: int = 0
    fingerprint: str = ""


@dataclass
class Debt:
    """`names` not yet read for in the first `below` bytes of one file (and, with `corrections`, its corrections)."""

    source: str  # HISTORY | USAGE
    names: list[str]
    below: int
    corrections: bool = False


@dataclass
class Ledger:
    names: list[str]
    sources: dict[str, Read]
    debts: list[Debt] = field(default_factory=list)
    sittings: dict[str, Sitting] = field(default_factory=dict)

    def sitting(self, session: str) -> Sitting:
        return self.sittings.setdefault(session, Sitting())

    def note(self, session: str, skills: set[str], day: str, corrected: bool = False) -> None:
        if not skills and not corrected:
            return
        found = self.sitting(session)
        for skill in skills:
            found.use(skill, day)
        found.corrected = found.corrected or corrected

    def rename(self, names: list[str]) -> None:
        """Follow a changed set of skills: forget the gone, owe the new (and the overshadowed) their past."""
        old, new = set(self.names), set(names)
        changed = (old - new) | (new - old)
        again = {name for name in old & new if any(_inside(name, other) for other in changed)}
        self._forget((old - new) | again)
        owed = sorted((new - old) | again)
        if owed:
            self.debts += [Debt(source, owed, read.offset) for source, read in self.sources.items() if read.offset > 0]
        self.names = sorted(new)

    def _forget(self, names: set[str]) -> None:
        if not names:
            return
        for session in list(self.sittings):
            kept = self.sittings[session]
            kept.forget(names)
            if kept.empty:
                del self.sittings[session]
        for debt in self.debts:
            debt.names = [name for name in debt.names if name not in names]
        self.debts = [debt for debt in self.debts if debt.names or debt.corrections]


def _inside(name: str, other: str) -> bool:
    """`name`'s words appear in a row within `other`'s (so where `other` is read, `name` is not)."""
    words, within = name.split("-"), other.split("-")
    return len(words) < len(within) and any(within[i:i + len(words)] == words
                                            for i in range(len(within) - len(words) + 1))


def adopted(names: list[str], files: dict[str, Path]) -> Ledger:
    """A ledger for files never read: each is read on from its last whole line, and all before it is a debt."""
    sources = {source: Read(offset=whole_lines_end(path)) for source, path in files.items()}
    ledger = Ledger(sorted(names), sources)
    for source, read in sources.items():
        corrections = source == HISTORY
        if read.offset > 0 and (ledger.names or corrections):
            ledger.debts.append(Debt(source, list(ledger.names), read.offset, corrections))
    return ledger


# kept on disk -------------------------------------------------------------------------------------------------


def load(state: Path, files: dict[str, Path]) -> Ledger | None:
    """The kept ledger, or None when there is none, it is unreadable, or a file's read part is not what was read."""
    try:
        data = boundedjson.load_file(state)
        if data.get("version") != STATE_VERSION:
            return None
        sources = {key: Read(**data["sources"][key]) for key in files}
        for key, path in files.items():
            size = path.stat().st_size if path.is_file() else 0
            if size < sources[key].offset or fingerprint(path, sources[key].offset) != sources[key].fingerprint:
                return None
        debts = [Debt(**item) for item in data["debts"]]
        sittings = {key: Sitting(**item) for key, item in data["sittings"].items()}
        return Ledger(list(data["names"]), sources, debts, sittings)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def save(state: Path, ledger: Ledger, files: dict[str, Path]) -> None:
    """Keep the ledger; a workspace nanodream may not write to is read again (within the budget) by the next call."""
    for key, path in files.items():
        read = ledger.sources[key]
        read.fingerprint = fingerprint(path, read.offset) if read.offset else ""
    data = {"version": STATE_VERSION, "names": ledger.names,
            "sources": {key: asdict(read) for key, read in ledger.sources.items()},
            "debts": [asdict(debt) for debt in ledger.debts],
            "sittings": {key: asdict(kept) for key, kept in sorted(ledger.sittings.items())}}
    with contextlib.suppress(OSError):
        atomic_write(state, json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")


def merge_debts(ledger: Ledger) -> None:
    """Debts that reached the same place in the same file are paid together from there."""
    merged: dict[tuple[str, int], Debt] = {}
    for debt in ledger.debts:
        same = merged.get((debt.source, debt.below))
        if same is None:
            merged[(debt.source, debt.below)] = debt
        else:
            same.names = sorted(set(same.names) | set(debt.names))
            same.corrections = same.corrections or debt.corrections
    ledger.debts = list(merged.values())
