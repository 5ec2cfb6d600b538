"""Which skills the agent used, when, together, and in which troubled sessions — from what hosts already write.

Two sources, both the host's files, both read by position and never rewritten:

- `memory/history.jsonl`: a session used a skill when one of its entries names it — `skills/<name>`, "the
  <name> skill", or the name's words in a row ("rotate api keys" for `rotate-api-keys`);
- `memory/skill-usage.jsonl`: a host may append `{"skill", "session_key", "timestamp", "outcome"}` lines
  (`outcome`: ok | corrected | failed) when it runs a skill.

A session is one `session_key` on one day (hosts keep a key such as `cli:direct` for weeks: a day of it is one
sitting); it is troubled when it holds a `[correction]` line or an outcome other than ok, and the skills it
used are at risk. What has been read is kept in `.nanodream/skill-usage.json` (backlog/skill_ledger.py), so a run
reads only what was appended since, and a new skill's past, or a history never read, is read back newest first
within a budget per call — never the whole file at once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date
from itertools import combinations
from pathlib import Path

from nanodream import boundedjson
from nanodream.atomic import open_binary
from nanodream.backlog.history import (
    MAX_LINE_BYTES,
    HistoryEntry,
    classify_line,
    drop_skip_lines,
    entry_day,
    raw_lines,
    read_from,
    tagged_lines,
)
from nanodream.backlog.past import Prefilter, whole_lines_before
from nanodream.backlog.skill_ledger import HISTORY, USAGE, Debt, Ledger, adopted, load, merge_debts, save
from nanodream.workspace import Workspace

USAGE_FILE = "memory/skill-usage.jsonl"
OUTCOMES = ("ok", "corrected", "failed")
CO_USED_SHOWN = 10


def usage_file(workspace: Workspace) -> Path:
    return workspace.root / USAGE_FILE


def state_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "skill-usage.json"


# naming a skill -----------------------------------------------------------------------------------------------

_WORD_SPLIT = re.compile(r"([^\W_]+)")  # the words a chunk holds, between its `-` and `_`


class _Words:
    """The words of a lowercased text, and on demand where each sits in its chunk (a run of letters, digits, `_` and
    `-`): only `-` and `_` between two words keep them in one chunk. Read from the separators between words, and
    only for the few words that could start a skill's name."""

    def __init__(self, lowered: str) -> None:
        parts = _WORD_SPLIT.split(lowered)
        self.words = parts[1::2]
        self.between = parts[0::2]  # between[i] precedes words[i]; the last follows the last word

    def _joined(self, index: int) -> bool:
        """Word `index` and the next are one chunk."""
        if index + 1 >= len(self.words):
            return False
        between = self.between[index + 1]
        return bool(between) and not between.strip("-_")

    def first(self, index: int) -> bool:
        return index == 0 or not self._joined(index - 1)

    def last(self, index: int) -> bool:
        return not self._joined(index)

    def spaced(self, index: int) -> bool:
        """For the first word of a chunk: only whitespace lies between its chunk and the chunk before (which may be
        a bare `-`); never for the text's first chunk."""
        core = self.between[index].rstrip("-_")
        cut = max(core.rfind("-"), core.rfind("_"))  # the chunk before ends there, or at the word before
        return (cut >= 0 or index > 0) and core[cut + 1:].isspace()


class SkillNames:
    """Finds the skills a text names: `skills/<name>`, "the <name> skill", or the name's words in a row (spaces,
    `-` or `_` between them), case aside. Whole words only: `redeploy` and `deploy-prod` do not name `deploy`;
    the longest name wins, so `mcp-email-send` is not read as `mcp-email`. A word lookup, no regular expression
    per name, so a thousand skills cost what ten do; a text without every word of some name costs one scan."""

    def __init__(self, names: Iterable[str]) -> None:
        by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for name in names:
            words = tuple(name.split("-"))
            by_first.setdefault(words[0], []).append((words, name))
        for options in by_first.values():
            options.sort(key=lambda option: -len(option[0]))  # the longest name wins
        self._by_first = by_first

    def found(self, text: str, *, plainly: bool = False) -> set[str]:
        """The skills `text` names. `plainly`: a one-word name counts only as `skills/<name>` or "<name> skill"
        (a word such as `release` is in many lines that are not about the skill)."""
        words = _Words(text.lower())
        if not self._may_name(set(words.words)):
            return set()
        named: set[str] = set()
        free = 0  # a name found covers its words: the next one starts after them
        for index, word in enumerate(words.words):
            if index < free or word not in self._by_first:
                continue
            name, length = self._at(words, index)
            if name is not None:
                if not plainly or "-" in name or _called_a_skill(words.words, index, length):
                    named.add(name)
                free = index + length
        return named

    def _may_name(self, words: set[str]) -> bool:
        """Whether every word of some name is in the text: most texts name no skill, and this is one set lookup."""
        return any(words.issuperset(option) for first in words & self._by_first.keys()
                   for option, _ in self._by_first[first])

    def _at(self, words: _Words, index: int) -> tuple[str | None, int]:
        """The longest name whose words start a chunk at `index`, run in a row and end a chunk, with its length."""
        if not words.first(index):
            return None, 1
        for option, name in self._by_first[words.words[index]]:
            end = index + len(option)
            if (tuple(words.words[index:end]) == option and words.last(end - 1)
                    and all(words.spaced(i) for i in range(index + 1, end) if words.first(i))):
                return name, len(option)
        return None, 1


def _called_a_skill(words: list[str], index: int, length: int) -> bool:
    before = words[index - 1] if index > 0 else ""
    after = words[index + length] if index + length < len(words) else ""
    return before == "skills" or after == "skill"


# the usage file ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UsageRecord:
    skill: str
    session: str
    day: str  # YYYY-MM-DD, "" when the timestamp has no date
    outcome: str


def parse_usage(raw: bytes) -> UsageRecord | None:
    """One skill-usage.jsonl line, or None when it is not a record this format describes."""
    try:
        data = boundedjson.loads(raw, max_bytes=boundedjson.LINE_BYTES + 2)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("skill"), str) or not data["skill"].strip():
        return None
    timestamp = data.get("timestamp") if isinstance(data.get("timestamp"), str) else ""
    day = _day(timestamp)
    key = data.get("session_key") if isinstance(data.get("session_key"), str) else None
    outcome = data.get("outcome") if data.get("outcome") in OUTCOMES else "ok"
    return UsageRecord(data["skill"].strip().lower(), usage_session(key, day), day, outcome)


def read_usage(path: Path, offset: int = 0) -> Iterator[tuple[UsageRecord | None, int]]:
    """Each complete line from `offset` on, as a record (None when malformed) and the offset just past it."""
    try:
        handle = open_binary(path)
    except FileNotFoundError:
        return
    with handle:
        for raw in raw_lines(handle, offset):  # bounded memory, whatever a host writes on one line
            if not raw.terminated:
                return  # a line being written: read it next time
            if raw.oversized:
                yield None, raw.end  # no record is that long: malformed
            elif raw.data.strip():
                yield parse_usage(raw.data), raw.end


def usage_session(session_key: str | None, day: str) -> str:
    """What counts as one session for skill use: a session key on one day."""
    return f"{session_key or ''}@{day}"


def entry_session(entry: HistoryEntry) -> str:
    return usage_session(entry.session_key, _day(entry.timestamp))


def _day(timestamp: str) -> str:
    day = entry_day(timestamp)
    return day.isoformat() if day else ""


# what was used ----------------------------------------------------------------------------------------------


@dataclass
class SessionUse:
    skills: dict[str, str] = field(default_factory=dict)  # skill → the last day it was used in this session
    trouble: bool = False  # a [correction] or an outcome other than ok


@dataclass
class SkillUsage:
    """Per session, the skills it used and whether it was troubled; the numbers every report needs."""

    sessions: dict[str, SessionUse] = field(default_factory=dict)

    def skills_in(self, session: str) -> set[str]:
        found = self.sessions.get(session)
        return set(found.skills) if found is not None else set()

    def uses_since(self, skill: str, since: date) -> int:
        """Sessions that used `skill` on `since` or later."""
        first = since.isoformat()
        return sum(1 for use in self.sessions.values() if use.skills.get(skill, "") >= first)

    def last_used(self, skill: str) -> date | None:
        days = [use.skills[skill] for use in self.sessions.values() if use.skills.get(skill)]
        return date.fromisoformat(max(days)) if days else None

    def at_risk(self, since: date | None = None) -> set[str]:
        """Skills used in a troubled session (on `since` or later, when given)."""
        first = since.isoformat() if since else ""
        return {skill for use in self.sessions.values() if use.trouble
                for skill, day in use.skills.items() if day >= first}

    def co_used(self, limit: int | None = CO_USED_SHOWN) -> list[tuple[str, str, int]]:
        """Pairs of skills used in the same session, most sessions first: (a, b, sessions)."""
        pairs: Counter[tuple[str, str]] = Counter()
        for use in self.sessions.values():
            pairs.update(combinations(sorted(use.skills), 2))
        ranked = sorted(pairs.items(), key=lambda item: (-item[1], item[0]))
        return [(a, b, count) for (a, b), count in ranked[:limit]]


def entry_use(entry: HistoryEntry, names: SkillNames) -> tuple[set[str], bool]:
    """The skills one history entry names and whether it holds a [correction] ([skip] lines do not count)."""
    content, _ = drop_skip_lines(entry.content)
    corrected = any(tag == "correction" for tag, _ in tagged_lines(content))
    return names.found(content), corrected


# reading, incrementally -------------------------------------------------------------------------------------

CORRECTION_ANCHOR = "[correction]"


@dataclass
class LearnBudget:
    """How much of what new skills owe one call reads (backlog/skill_ledger.py), newest first: about 35,000 history
    entries scanned for their names, of which at most `lines` are decoded (those that may name one, or hold a
    correction when those are owed too). A few tenths of a second, whatever the history's length."""

    bytes: int = 8 * 1024 * 1024
    lines: int = 4000

    @property
    def spent(self) -> bool:
        return self.bytes <= 0 or self.lines <= 0


def skill_usage(workspace: Workspace, names: Iterable[str], *, budget: LearnBudget | None = None) -> SkillUsage:
    """Usage of the skills `names` from both files, reading only what was appended since the last call, and within
    `budget` what new skills still owe (backlog/skill_ledger.py).

    The kept state is a cache: unreadable, or no longer describing the files, it starts again as if the files had
    never been read (their past owed, newest first); a workspace nanodream may not write to starts so each time.
    """
    names = sorted(set(names))
    files = {HISTORY: workspace.history_file, USAGE: usage_file(workspace)}
    ledger = load(state_file(workspace), files)
    changed = ledger is None or ledger.names != names
    if ledger is None:
        ledger = adopted(names, files)
    elif ledger.names != names:
        ledger.rename(names)
    finder = SkillNames(names)
    changed |= _read_on(ledger, files, finder)
    changed |= _pay(ledger, files, finder, replace(budget or LearnBudget()))  # spent on this call alone
    if changed:
        save(state_file(workspace), ledger, files)
    return _view(ledger)


def _read_on(ledger: Ledger, files: dict[str, Path], finder: SkillNames) -> bool:
    """Read what was appended to both files since the last call; True when anything was."""
    history, usage = ledger.sources[HISTORY], ledger.sources[USAGE]
    start = (history.offset, usage.offset)
    for item in read_from(files[HISTORY], history.offset, history.line):
        if isinstance(item, HistoryEntry):  # a dead letter teaches nothing; reading it again costs nothing
            skills, corrected = entry_use(item, finder)
            ledger.note(entry_session(item), skills, _day(item.timestamp), corrected)
            history.offset, history.line = item.end, item.line
    known = set(ledger.names)
    for record, end in read_usage(files[USAGE], usage.offset):
        if record is not None and record.skill in known:
            _note_record(ledger, record)
        usage.offset = end
    return (history.offset, usage.offset) != start


def _note_record(ledger: Ledger, record: UsageRecord) -> None:
    ledger.note(record.session, {record.skill}, record.day)
    if record.outcome != "ok":
        ledger.sitting(record.session).fail(record.skill)


def _pay(ledger: Ledger, files: dict[str, Path], finder: SkillNames, budget: LearnBudget) -> bool:
    """Read back what new skills owe, newest first, within `budget`; True when anything was read."""
    paid = False
    while not budget.spent and ledger.debts:
        merge_debts(ledger)
        debt = max(ledger.debts, key=lambda d: d.below)
        before = debt.below
        _pay_one(ledger, debt, files[debt.source], finder, budget)
        paid = True
        if debt.below == 0 or debt.below == before:  # paid, or the file cannot be read: nothing more to learn there
            ledger.debts.remove(debt)
    return paid


def _pay_one(ledger: Ledger, debt: Debt, path: Path, finder: SkillNames, budget: LearnBudget) -> None:
    """Read back from `debt.below` in `path` until the debt is paid or `budget` spent; the frontier moves with it."""
    owed = set(debt.names)
    history = debt.source == HISTORY
    prefilter = Prefilter(owed, [CORRECTION_ANCHOR] if debt.corrections else []) if history else None
    for start, chunk in whole_lines_before(path, debt.below, max(budget.bytes, 1)):
        budget.bytes -= debt.below - start
        lines = prefilter.lines(chunk) if prefilter is not None else _every_line(chunk)
        for offset, line in reversed(lines):
            if not line.strip():
                continue
            if history:
                _learn_entry(ledger, debt, owed, line, finder)
            else:
                _learn_record(ledger, owed, line)
            budget.lines -= 1
            if budget.lines <= 0:
                debt.below = start + offset
                return
        debt.below = start
        if budget.spent:
            return


def _every_line(chunk: bytes) -> list[tuple[int, bytes]]:
    lines, at = [], 0
    for line in chunk.split(b"\n"):
        lines.append((at, line))
        at += len(line) + 1
    return lines


def _learn_entry(ledger: Ledger, debt: Debt, owed: set[str], line: bytes, finder: SkillNames) -> None:
    if len(line.rstrip(b"\r")) > MAX_LINE_BYTES:
        return  # a dead letter: never an entry, whoever reads it
    item = classify_line(line)
    if isinstance(item, HistoryEntry):
        skills, corrected = entry_use(item, finder)
        ledger.note(entry_session(item), skills & owed, _day(item.timestamp), corrected and debt.corrections)


def _learn_record(ledger: Ledger, owed: set[str], line: bytes) -> None:
    record = parse_usage(line) if len(line.rstrip(b"\r")) <= MAX_LINE_BYTES else None
    if record is not None and record.skill in owed:
        _note_record(ledger, record)


def _view(ledger: Ledger) -> SkillUsage:
    """The kept sittings as the current skills see them: uses of current skills, trouble from either source."""
    known = set(ledger.names)
    usage = SkillUsage()
    for session, kept in ledger.sittings.items():
        skills = {name: day for name, day in kept.skills.items() if name in known}
        trouble = kept.corrected or any(name in known for name in kept.failed)
        if skills or trouble:
            usage.sessions[session] = SessionUse(skills, trouble)
    return usage
