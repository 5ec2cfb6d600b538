"""Facts nanodream computes for a dream session, so the prompt's rules can be acted on, not just read.

A rule such as "prune task state after 14 days" or "create a skill only when a procedure recurs in two
sessions" is decoration unless the model can see ages and session counts. These are computed here,
deterministically and without a model: line ages from git, sizes against caps, a skills index with thin
skills marked, and topics that recur across distinct sessions of the batch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo

from nanodream import clock
from nanodream.backlog.history import Batch, HistoryEntry, session_of, tagged_lines
from nanodream.backlog.skill_usage import skill_usage
from nanodream.config import Settings, zone
from nanodream.markdown import is_heading, is_list_item, with_fences
from nanodream.memory.staging import Staging
from nanodream.prompting.skill_signals import SkillHealth, SkillText, skill_health
from nanodream.skills import is_guide, parse_skill
from nanodream.text.stems import TOPIC_STOPWORDS, singular
from nanodream.toolbox.limits import NEAR_CAP_SHARE, ToolLimits
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import CORE_FILES

THIN_MIN_STEPS = 3  # a procedure with fewer steps than this is a stub
THIN_MIN_CHARS = 200  # or a body shorter than this
MAX_SUBJECTS = 12
MAX_WORDS = 10



@dataclass(frozen=True)
class AgeRun:
    """Consecutive lines of one section that last changed on the same day (1-based, inclusive)."""

    first_line: int
    last_line: int
    changed: date


@dataclass(frozen=True)
class SectionAges:
    heading: str  # "" for lines before the first heading
    runs: tuple[AgeRun, ...]


@dataclass(frozen=True)
class FileSize:
    path: str
    chars: int
    cap: int

    @property
    def near_cap(self) -> bool:
        return self.chars >= NEAR_CAP_SHARE * self.cap


@dataclass(frozen=True)
class SkillSignal:
    name: str
    description: str | None  # None when the front matter does not parse
    size: FileSize
    steps: int
    body_chars: int
    changed: date | None  # the newest line's day; None for an empty file
    see_also: tuple[str, ...] = ()

    @property
    def thin(self) -> bool:
        """A stub worth expanding; a family guide is short by design (one line per member)."""
        short = self.steps < THIN_MIN_STEPS or self.body_chars < THIN_MIN_CHARS
        return self.description is not None and short and not is_guide(self.name)


@dataclass(frozen=True)
class Topic:
    terms: tuple[str, ...]  # words and two-word phrases that occur in exactly these entries
    sessions: tuple[str, ...]
    cursors: tuple[int, ...]

    @property
    def subject(self) -> bool:
        """Several terms or a phrase: something specific, unlike one frequent word."""
        return len(self.terms) > 1 or " " in self.terms[0]


@dataclass(frozen=True)
class Signals:
    today: date
    stale_after_days: int
    sizes: tuple[FileSize, ...]
    ages: dict[str, tuple[SectionAges, ...]]  # per core memory file
    skills: tuple[SkillSignal, ...]
    topics: tuple[Topic, ...]
    health: SkillHealth = field(default_factory=SkillHealth)

    def age_days(self, day: date) -> int:
        return max((self.today - day).days, 0)


def compute_signals(staging: Staging, batch: Batch | None, store: GitStore, settings: Settings, *,
                    limits: ToolLimits, today: date | None = None) -> Signals:
    """Every signal for the staged files and the batch, no model: one `git blame` per core file and one
    `git log` for all skills (a blame per skill made 1,000 skills cost 5 s a batch).

    Lines git does not know (no repository yet, or not committed) count as changed today: the run
    commits them before its session, and an unknown age must never look old enough to prune.
    """
    tz = zone(settings.timezone)
    stale_after_days = settings.ephemeral_max_age_days
    today = today or clock.today(tz)
    contents = {path: staging.read(path) or "" for path in staging.existing_paths()}
    core = [p for p in CORE_FILES if p in contents]
    line_days = {path: _line_days(store, path, contents[path], tz, today) for path in core}
    sizes = tuple(FileSize(p, len(contents[p]), limits.cap_for(p)) for p in core)
    ages = {p: section_ages(contents[p], line_days[p]) for p in core}
    skills, health = skill_overview(staging, store, settings, limits, batch, today)
    topics = recurring_topics(batch.entries) if batch is not None else ()
    return Signals(today, stale_after_days, sizes, ages, skills, tuple(topics), health)


def skill_overview(staging: Staging, store: GitStore, settings: Settings, limits: ToolLimits, batch: Batch | None,
                   today: date) -> tuple[tuple[SkillSignal, ...], SkillHealth]:
    """Each skill's size, steps and last change, and what the host's files say about its use: one `git log` for all
    skills and one incremental read of history.jsonl and skill-usage.jsonl."""
    paths = staging.skill_paths()
    changed = _skill_change_days(store, paths, zone(settings.timezone), today)
    skills = tuple(skill_signal(p, staging.read(p) or "", limits.cap_for(p), changed[p]) for p in paths)
    texts = {s.name: SkillText(staging.read(s.size.path) or "", s.description, s.thin, s.see_also, s.changed)
             for s in skills}
    return skills, skill_health(skill_usage(staging.workspace, list(texts)), texts, batch, today)


def _line_days(store: GitStore, path: str, text: str, tz: tzinfo, today: date) -> list[date]:
    """The day each line last changed, as far as git knows."""
    lines = git_lines(text)
    times = store.line_times(path)
    if times is None or len(times) != len(lines):
        return [today] * len(lines)
    return [today if when is None else datetime.fromtimestamp(when, tz).date() for when in times]


def _skill_change_days(store: GitStore, paths: list[str], tz: tzinfo, today: date) -> dict[str, date]:
    """The day each skill last changed: its newest commit, or today when git does not have it as it is."""
    if not paths:
        return {}
    times = store.last_change_times("skills/")
    unsettled = set(store.dirty_paths()) if store.exists else set(paths)
    return {p: today if p in unsettled or p not in times else datetime.fromtimestamp(times[p], tz).date()
            for p in paths}


# line ages ----------------------------------------------------------------------------------------------


def git_lines(text: str) -> list[str]:
    """Lines as git counts them (split at \\n only), so they pair up with `git blame` output."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def section_ages(text: str, days: list[date]) -> tuple[SectionAges, ...]:
    """Group lines by markdown section, then into runs of the same day; blank lines never split a run."""
    sections: list[tuple[str, list[AgeRun]]] = []
    lines = with_fences(git_lines(text))
    for number, ((line, code), day) in enumerate(zip(lines, days, strict=True), start=1):
        if not code and is_heading(line):
            sections.append((line.strip(), []))
        elif not sections:
            sections.append(("", []))
        if not line.strip():
            continue
        runs = sections[-1][1]
        if runs and runs[-1].changed == day:
            runs[-1] = AgeRun(runs[-1].first_line, number, day)
        else:
            runs.append(AgeRun(number, number, day))
    return tuple(SectionAges(heading, tuple(runs)) for heading, runs in sections if runs)


# skills -------------------------------------------------------------------------------------------------


def skill_signal(path: str, text: str, cap: int, changed: date | None) -> SkillSignal:
    """Size, step count and last change of one skill; a broken front matter is reported, never raised."""
    try:
        info = parse_skill(path, text)
    except ValueError:
        name, description, body, see_also = path.split("/")[1], None, "", ()
    else:
        name, description, body, see_also = info.name, info.description, info.body, info.see_also
    steps = sum(1 for line, code in with_fences(body.splitlines()) if not code and is_list_item(line))
    return SkillSignal(name, description, FileSize(path, len(text), cap), steps, len(body.strip()), changed,
                       see_also)


# recurring topics ---------------------------------------------------------------------------------------

_CHUNK_BREAK = re.compile(r"[,;:!?()\[\]{}\"“”]|[.](?=\s|$)|\s[-–—]\s")
_TRIM = "'`*_.-/"


def _phrases(text: str) -> Iterable[list[str]]:
    """Runs of consecutive content words, split at punctuation and at stopwords."""
    for chunk in _CHUNK_BREAK.split(text.lower()):
        run: list[str] = []
        for raw in chunk.split():
            word = raw.strip(_TRIM)
            if len(word) < 2 or word in TOPIC_STOPWORDS or not any(c.isalpha() for c in word):
                if run:
                    yield run
                run = []
            else:
                run.append(word)
        if run:
            yield run


def entry_terms(content: str) -> dict[str, str]:
    """Candidate topics of one entry (single words and adjacent pairs), keyed by their normalised form."""
    terms: dict[str, str] = {}
    for _, line in tagged_lines(content):
        for run in _phrases(line):
            keys = [singular(word) for word in run]
            for index, key in enumerate(keys):
                terms.setdefault(key, run[index])
                if index + 1 < len(keys):
                    terms.setdefault(f"{key} {keys[index + 1]}", f"{run[index]} {run[index + 1]}")
    return terms


def recurring_topics(entries: Iterable[HistoryEntry], *, max_subjects: int = MAX_SUBJECTS,
                     max_words: int = MAX_WORDS) -> list[Topic]:
    """What recurs across at least two distinct sessions of the batch.

    Terms that occur in exactly the same entries are one subject (a procedure retold, a preference
    repeated): those come first, most sessions and most shared wording first. Single words follow only
    when they span three sessions or more; in two sessions a lone word is mostly coincidence.
    """
    sessions: dict[str, set[str]] = {}
    cursors: dict[str, set[int]] = {}
    shown: dict[str, str] = {}
    for entry in entries:
        for key, surface in entry_terms(entry.content).items():
            sessions.setdefault(key, set()).add(session_of(entry))
            cursors.setdefault(key, set()).add(entry.cursor)
            shown.setdefault(key, surface)  # dicts keep first-seen order: the tie-breaker below
    groups: dict[frozenset[int], list[str]] = {}
    for key in shown:
        if len(sessions[key]) >= 2:
            groups.setdefault(frozenset(cursors[key]), []).append(key)
    subjects: list[Topic] = []
    words: list[Topic] = []
    for members in groups.values():
        pairs = [key for key in members if " " in key]
        keys = pairs + [key for key in members if " " not in key and not any(key in p.split(" ") for p in pairs)]
        topic = Topic(tuple(shown[k] for k in keys), tuple(sorted(sessions[keys[0]])), tuple(sorted(cursors[keys[0]])))
        if topic.subject:
            subjects.append(topic)
        elif len(topic.sessions) >= 3:
            words.append(topic)
    subjects.sort(key=lambda t: (-len(t.sessions), -len(t.terms)))
    words.sort(key=lambda t: (-len(t.sessions), -len(t.cursors)))
    return subjects[:max_subjects] + words[:max_words]
