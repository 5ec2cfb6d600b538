"""After the session, no active file stays over its cap: a full file is consolidated, never a failed batch.

A session may leave a file over its cap (a write over twice the cap is still refused as a runaway). Then,
before the guards, any active file past `pressure_ratio` of its cap is consolidated (repeated bullets, and
bullets another bullet of their section says all of, go), and memory/MEMORY.md's coldest bullets — least
recently written (the date git blames them on) or confirmed (restated in history: see confirmations.py) —
move to `memory/archive/YYYY-MM.md` until the file is back under `pressure_ratio` of its cap. Lines
untouched for `archive_after_days` move there even without pressure, and so do hypothesis lines of any core
file marked stale for longer than that (hypotheses.py), and any line in the until-form (validity.py) whose
day has passed: a fact no longer true is not kept where hosts load it. The archive is tracked in git and
never loaded by default, so those facts stay findable without costing every prompt. SOUL.md, USER.md and
skills (rules and preferences) are never archived automatically, and a line holding `<!-- keep -->` never
leaves. Only when nothing may move does the batch fail, once, as a capacity problem: it is never split or
quarantined, and the run stops for a person (blocked, exit 78) — retrying cannot shrink a file of rules,
preferences or pinned lines; trimming it or raising its cap can.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from nanodream import clock
from nanodream.config import Settings
from nanodream.hypotheses import parse
from nanodream.markdown import with_fences
from nanodream.memory import archive
from nanodream.memory.staging import Staging
from nanodream.pinning import PIN
from nanodream.run import confirmations
from nanodream.text.words import content_words, covers
from nanodream.toolbox.limits import ToolLimits
from nanodream.validity import is_replaced, parse_validity
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import CAPACITY
from nanodream.workspace import CORE_FILES, MEMORY, SOUL


@dataclass
class Relief:
    """Files the pressure step could not bring under their cap (what it moved shows in the staged archive)."""

    problems: list[str] = field(default_factory=list)
    confirmed: list[str] = field(default_factory=list)  # lines of memory/MEMORY.md the batch restated

    @property
    def failure(self) -> str:
        return f"{CAPACITY}: " + "; ".join(self.problems) if self.problems else ""


def relieve(staging: Staging, store: GitStore, settings: Settings, limits: ToolLimits, *,
            today: date, mentioned: Sequence[str] = ()) -> Relief:
    """Bring every active file under its cap (see the module docstring); report what could not be.

    `mentioned` is the batch's history text: a line it restates was just confirmed, so it is hot however
    old its git blame date.
    """
    relief = Relief()
    for path in [p for p in staging.existing_paths() if p in CORE_FILES or p.startswith("skills/")]:
        before = staging.read(path) or ""
        cap = limits.cap_for(path)
        target = int(settings.pressure_ratio * cap)
        text = _merged(before) if len(before) > target else before
        if path in CORE_FILES and _may_retire(staging, path, settings):
            text = _retire(staging, text, today, settings.archive_after_days)
        if path == MEMORY:
            relief.confirmed = _restated(text.split("\n"), mentioned)
            plan = Plan(target, today, settings.archive_after_days, relief.confirmed)
            text = _archive_cold(staging, store, text, plan)
        if text != before:
            staging.write(path, text)
        if len(text) > cap:
            relief.problems.append(_over_cap(path, len(text), cap))
    return relief


def _over_cap(path: str, size: int, cap: int) -> str:
    """Why `path` cannot be brought under its cap, and what a person can do (the run stops for them)."""
    setting = "max_skill_chars" if path.startswith("skills/") else "max_file_chars"
    if path == MEMORY:
        why, trim = "every line left is pinned", "unpin lines (nanodream pin --remove TEXT)"
    else:
        why, trim = "rules, preferences and skills are never archived automatically", "trim it by hand"
    return (f"{path} is {size} chars, over its cap of {cap}, and {why}; {trim} or raise {setting} in "
            "nanodream.toml, then run again")


@dataclass(frozen=True)
class Plan:
    """What may leave memory/MEMORY.md: down to `target` chars, and lines untouched for `stale_days`."""

    target: int
    today: date
    stale_days: int  # 0: never archive by age alone
    confirmed: list[str]  # restated by this batch: hot whatever their age

    @property
    def stale_before(self) -> float:
        return _epoch(self.today - timedelta(days=self.stale_days)) if self.stale_days else float("-inf")


def _merged(text: str) -> str:
    """The text with repeated bullets kept once and each bullet that another of its section says all of dropped.

    "- Uses Go." goes when "- Uses Go 1.23 for the API." is in the same section; of two bullets with the same
    words the first stays. Pinned bullets are never dropped (they may cover others).
    """
    lines = text.split("\n")
    titles = archive.sections(lines)
    bullets = [index for index, (line, code) in enumerate(with_fences(lines)) if not code and line.startswith("- ")]
    drop: set[int] = set()
    seen: set[str] = set()
    for index in bullets:
        key = " ".join(lines[index].lower().split())
        if key in seen and PIN not in lines[index]:
            drop.add(index)
        seen.add(key)
    holders = _by_word(lines, bullets, titles)
    for index in bullets:
        if index in drop or PIN in lines[index]:
            continue
        words = content_words(lines[index][2:])
        # a bullet that says all of this one holds every one of its words: look only among the holders of its
        # rarest word, in its own section (a pairwise scan made the step quadratic in a file's size)
        rarest = min((holders[(titles[index], word)] for word in words), key=len, default=[])
        if any(_says_all(lines[other], lines[index], earlier=other < index) for other in rarest
               if other != index and other not in drop):
            drop.add(index)
    return "\n".join(line for index, line in enumerate(lines) if index not in drop)


def _by_word(lines: list[str], bullets: list[int], titles: list[str]) -> dict[tuple[str, str], list[int]]:
    """(section, word) → the bullets of that section holding the word."""
    holders: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index in bullets:
        for word in content_words(lines[index][2:].replace(PIN, "")):
            holders[(titles[index], word)].append(index)
    return holders


def _says_all(broad: str, narrow: str, *, earlier: bool) -> bool:
    broad, narrow = broad[2:].replace(PIN, ""), narrow[2:]
    if not content_words(narrow) or is_replaced(broad):  # a replaced line names its successor: it holds no fact
        return False
    if content_words(broad) == content_words(narrow):
        return earlier  # the same fact in other words: the first one stays
    return covers(broad, narrow)


def _archive_cold(staging: Staging, store: GitStore, text: str, plan: Plan) -> str:
    """Move stale lines, then the coldest ones while the file is over the plan's target, to the archive."""
    lines = text.split("\n")
    now = clock.now().timestamp()
    ages = _line_times(staging, store, MEMORY)
    hot = {confirmations.line_key(line) for line in plan.confirmed}
    restated = {key: _epoch(day) for key, day in confirmations.load(staging.workspace).items()}
    candidates = [index for index, (line, code) in enumerate(with_fences(lines))
                  if not code and line.startswith("- ") and PIN not in line]
    age = {}
    for index in candidates:
        key = confirmations.line_key(lines[index])
        age[index] = now if key in hot else max(ages.get(lines[index], now), restated.get(key, 0.0))
    candidates.sort(key=lambda index: (age[index], index))
    size, moving = len(text), set()
    for index in candidates:
        if size <= plan.target and age[index] >= plan.stale_before:
            break
        moving.add(index)
        size -= len(lines[index]) + 1
    if not moving:
        return text
    titles = archive.sections(lines)
    archive.append(staging, plan.today, [(titles[i], lines[i]) for i in sorted(moving)])
    return "\n".join(line for index, line in enumerate(lines) if index not in moving)


def _may_retire(staging: Staging, path: str, settings: Settings) -> bool:
    """SOUL.md changes need tagged history under the default policy: a retirement rides along only with a change
    the session made anyway, so it can never be what gets a batch refused."""
    return path != SOUL or settings.soul_policy == "open" or staging.read(SOUL) != staging.original.get(SOUL)


def _retire(staging: Staging, text: str, today: date, days: int) -> str:
    """Lines no longer current leave the active file for the archive (a pinned one stays): hypotheses stale for
    more than `days`, and lines in the until-form whose day has passed (a model or a person wrote one there)."""
    lines = text.split("\n")
    leaving = [index for index, (line, code) in enumerate(with_fences(lines)) if not code and PIN not in line
               and (_stale(line, today, days) or _ended(line, today))]
    if not leaving:
        return text
    titles = archive.sections(lines)
    archive.append(staging, today, [(titles[i], lines[i]) for i in leaving])
    return "\n".join(line for index, line in enumerate(lines) if index not in set(leaving))


def _stale(line: str, today: date, days: int) -> bool:
    found = parse(line) if days else None
    return found is not None and found.stale_since is not None and (today - found.stale_since).days > days


def _ended(line: str, today: date) -> bool:
    validity = parse_validity(line) if line.lstrip().startswith(("- ", "* ", "+ ")) else None
    return validity is not None and validity.until <= today


def _epoch(day: date) -> float:
    return datetime.combine(day, datetime.min.time(), UTC).timestamp()


def _restated(lines: list[str], mentioned: Sequence[str]) -> list[str]:
    """Bullets whose every meaningful word appears in one history entry of the batch."""
    if not mentioned:
        return []
    entries = [content_words(text) for text in mentioned]
    by_word: dict[str, list[int]] = {}
    for number, words in enumerate(entries):
        for word in words:
            by_word.setdefault(word, []).append(number)
    found = []
    for line in lines:
        words = content_words(line[2:]) if line.startswith("- ") else frozenset()
        rarest = min((by_word.get(word, []) for word in words), key=len, default=[])
        if any(words <= entries[number] for number in rarest):
            found.append(line)
    return found


def _line_times(staging: Staging, store: GitStore, path: str) -> dict[str, float]:
    """When each line on disk was last written (git blame); a line only staged is 'now'."""
    on_disk = staging.original.get(path) or ""
    times = store.line_times(path) or []
    found: dict[str, float] = {}
    for line, when in zip(on_disk.split("\n"), times, strict=False):
        if when is not None:
            found.setdefault(line, when)
    return found
