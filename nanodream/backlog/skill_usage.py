"""Which skills the agent used, when, together, and in which troubled sessions — from what hosts already write.

Two sources, both the host's files, both read by position and never rewritten:

- `memory/history.jsonl`: a session used a skill when one of its entries names it — `skills/<name>`, "the
  <name> skill", or the name's words in a row ("rotate api keys" for `rotate-api-keys`);
- `memory/skill-usage.jsonl`: a host may append `{"skill", "session_key", "timestamp", "outcome"}` lines
  (`outcome`: ok | corrected | failed) when it runs a skill.

A session is one `session_key` on one day (hosts keep a key such as `cli:direct` for weeks: a day of it is one
sitting); it is troubled when it holds a `[correction]` line or an outcome other than ok, and the skills it
used are at risk. What has been read is kept in `.nanodream/skill-usage.json` (offsets and fingerprints of both files,
the skill names it was read for, and per session its skills and trouble), so a run reads only what was
appended since; a rewritten file or a changed set of skills is read again from the start.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from itertools import combinations
from pathlib import Path

from nanodream import boundedjson
from nanodream.atomic import atomic_write, open_binary
from nanodream.backlog.history import (
    HistoryEntry,
    drop_skip_lines,
    entry_day,
    raw_lines,
    read_from,
    tagged_lines,
)
from nanodream.backlog.position import fingerprint
from nanodream.workspace import Workspace

USAGE_FILE = "memory/skill-usage.jsonl"
OUTCOMES = ("ok", "corrected", "failed")
STATE_VERSION = 2
CO_USED_SHOWN = 10


def usage_file(workspace: Workspace) -> Path:
    return workspace.root / USAGE_FILE


def state_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "skill-usage.json"


# naming a skill -----------------------------------------------------------------------------------------------

_CHUNK = re.compile(r"[\w-]+")


@dataclass(frozen=True)
class _Token:
    word: str
    first: bool  # starts its chunk (a run of letters, digits, `_` and `-`)
    last: bool  # ends its chunk
    spaced: bool  # its chunk follows the previous one after whitespace only


class SkillNames:
    """Finds the skills a text names: `skills/<name>`, "the <name> skill", or the name's words in a row (spaces,
    `-` or `_` between them), case aside. Whole words only: `redeploy` and `deploy-prod` do not name `deploy`;
    the longest name wins, so `mcp-email-send` is not read as `mcp-email`. A word lookup, no regular expression,
    so a thousand skills cost what ten do."""

    def __init__(self, names: Iterable[str]) -> None:
        self._by_words = {tuple(name.split("-")): name for name in names}
        self._longest = max((len(words) for words in self._by_words), default=0)

    def found(self, text: str, *, plainly: bool = False) -> set[str]:
        """The skills `text` names. `plainly`: a one-word name counts only as `skills/<name>` or "<name> skill"
        (a word such as `release` is in many lines that are not about the skill)."""
        tokens = _tokens(text)
        named: set[str] = set()
        index = 0
        while index < len(tokens):
            name, length = self._at(tokens, index)
            if name is not None and (not plainly or "-" in name or _called_a_skill(tokens, index, length)):
                named.add(name)
            index += length
        return named

    def _at(self, tokens: list[_Token], index: int) -> tuple[str | None, int]:
        if not tokens[index].first:
            return None, 1
        for length in range(min(self._longest, len(tokens) - index), 0, -1):
            span = tokens[index:index + length]
            if span[-1].last and all(t.spaced for t in span[1:] if t.first):
                name = self._by_words.get(tuple(t.word for t in span))
                if name is not None:
                    return name, length
        return None, 1


def _called_a_skill(tokens: list[_Token], index: int, length: int) -> bool:
    before = tokens[index - 1].word if index > 0 else ""
    after = tokens[index + length].word if index + length < len(tokens) else ""
    return before == "skills" or after == "skill"


def _tokens(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    end = None
    for match in _CHUNK.finditer(text.lower()):
        words = [word for word in re.split(r"[-_]+", match.group(0)) if word]
        spaced = end is not None and text[end:match.start()].isspace()
        tokens += [_Token(word, n == 0, n == len(words) - 1, spaced) for n, word in enumerate(words)]
        end = match.end()
    return tokens


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

    def note(self, session: str, skills: Iterable[str], day: str, *, trouble: bool = False) -> None:
        used = set(skills)
        if not used and not trouble and session not in self.sessions:
            return
        found = self.sessions.setdefault(session, SessionUse())
        for skill in used:
            found.skills[skill] = max(found.skills.get(skill, ""), day)
        found.trouble = found.trouble or trouble

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

    def to_json(self) -> dict[str, object]:
        return {key: {"skills": use.skills, "trouble": use.trouble} for key, use in sorted(self.sessions.items())}

    @classmethod
    def from_json(cls, data: dict[str, dict]) -> SkillUsage:
        return cls({key: SessionUse(dict(item["skills"]), bool(item["trouble"])) for key, item in data.items()})


def entry_use(entry: HistoryEntry, names: SkillNames) -> tuple[set[str], bool]:
    """The skills one history entry names and whether it holds a [correction] ([skip] lines do not count)."""
    content, _ = drop_skip_lines(entry.content)
    corrected = any(tag == "correction" for tag, _ in tagged_lines(content))
    return names.found(content), corrected


# reading, incrementally -------------------------------------------------------------------------------------


@dataclass
class _Source:
    offset: int = 0
    line: int = 0
    fingerprint: str = ""


def skill_usage(workspace: Workspace, names: Iterable[str]) -> SkillUsage:
    """Usage of the skills `names` from both files, reading only what was appended since the last call.

    The kept state is a cache: unreadable, or written for other skill names, it is rebuilt from the start;
    a workspace nanodream may not write to is read whole each time.
    """
    names = sorted(set(names))
    history, usage_path = workspace.history_file, usage_file(workspace)
    usage, sources, kept = _load(workspace, names, history, usage_path)
    start = (sources["history"].offset, sources["usage"].offset)
    finder = SkillNames(names)
    known = set(names)
    for item in read_from(history, sources["history"].offset, sources["history"].line):
        if isinstance(item, HistoryEntry):  # a dead letter teaches nothing; reading it again costs nothing
            skills, corrected = entry_use(item, finder)
            usage.note(entry_session(item), skills, _day(item.timestamp), trouble=corrected)
            sources["history"].offset, sources["history"].line = item.end, item.line
    for record, end in read_usage(usage_path, sources["usage"].offset):
        if record is not None and record.skill in known:
            usage.note(record.session, [record.skill], record.day, trouble=record.outcome != "ok")
        sources["usage"].offset = end
    if not kept or (sources["history"].offset, sources["usage"].offset) != start:  # else nothing new was read
        _save(workspace, names, usage, sources, history, usage_path)
    return usage


def _load(workspace: Workspace, names: list[str], history: Path,
          usage_path: Path) -> tuple[SkillUsage, dict[str, _Source], bool]:
    """The kept state, and True; or a fresh start and False when there is none usable."""
    fresh = SkillUsage(), {"history": _Source(), "usage": _Source()}, False
    try:
        data = boundedjson.load_file(state_file(workspace))
        if data.get("version") != STATE_VERSION or data.get("names") != names:
            return fresh
        sources = {key: _Source(**data["sources"][key]) for key in ("history", "usage")}
        for source, path in ((sources["history"], history), (sources["usage"], usage_path)):
            size = path.stat().st_size if path.is_file() else 0
            if size < source.offset or fingerprint(path, source.offset) != source.fingerprint:
                return fresh
        return SkillUsage.from_json(data["sessions"]), sources, True
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return fresh


def _save(workspace: Workspace, names: list[str], usage: SkillUsage, sources: dict[str, _Source],
          history: Path, usage_path: Path) -> None:
    for source, path in ((sources["history"], history), (sources["usage"], usage_path)):
        source.fingerprint = fingerprint(path, source.offset) if source.offset else ""
    data = {"version": STATE_VERSION, "names": names,
            "sources": {key: vars(source) for key, source in sources.items()}, "sessions": usage.to_json()}
    with contextlib.suppress(OSError):  # a read-only workspace: the next call reads the files whole again
        atomic_write(state_file(workspace), json.dumps(data, sort_keys=True) + "\n")
