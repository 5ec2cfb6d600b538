"""After the session, no active file stays over its cap: a full file is consolidated, never a failed batch.

A session may leave a file over its cap (a write over twice the cap is still refused as a runaway). Then,
before the guards: repeated bullets are merged, and memory/MEMORY.md's coldest bullets — least recently
written or confirmed, by the date git blames them on — move to `memory/archive/YYYY-MM.md` until the file
is back under `pressure_ratio` of its cap. The archive is tracked in git and never loaded by default, so
those facts stay findable without costing every prompt. SOUL.md, USER.md and skills (rules and
preferences) are never archived automatically, and a line holding `<!-- keep -->` never leaves. Only when
nothing may move does the batch fail, once, as a capacity problem (it is never split or quarantined).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import date

from nanodream.config import Settings
from nanodream.markdown import with_fences
from nanodream.run import archive
from nanodream.run.staging import Staging
from nanodream.run.tools import ToolLimits
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import CAPACITY
from nanodream.workspace import CORE_FILES

MEMORY = "memory/MEMORY.md"
PIN = "<!-- keep -->"


@dataclass
class Relief:
    """Files the pressure step could not bring under their cap (what it moved shows in the staged archive)."""

    problems: list[str] = field(default_factory=list)

    @property
    def failure(self) -> str:
        return f"{CAPACITY}: " + "; ".join(self.problems) if self.problems else ""


def relieve(staging: Staging, store: GitStore, settings: Settings, today: date | None = None) -> Relief:
    """Bring every active file under its cap (see the module docstring); report what could not be."""
    relief = Relief()
    limits = ToolLimits.from_settings(settings)
    for path in [p for p in staging.existing_paths() if p in CORE_FILES or p.startswith("skills/")]:
        text, cap = staging.read(path) or "", limits.cap_for(path)
        if len(text) <= cap:
            continue
        text = _without_repeats(text)
        if path == MEMORY and len(text) > cap:
            when = today or archive.today()
            text = _archive_coldest(staging, store, text, int(settings.pressure_ratio * cap), when)
        if text != staging.read(path):
            staging.write(path, text)
        if len(text) > cap:
            why = ("every line left is pinned" if path == MEMORY else
                   "rules, preferences and skills are never archived automatically")
            relief.problems.append(f"{path} is {len(text)} chars, over its cap of {cap}, and {why}; merge and "
                                   "prune it, or raise its cap")
    return relief


def _without_repeats(text: str) -> str:
    """The text with every repeated bullet (same words, case and spacing aside) kept once, first place wins."""
    seen: set[str] = set()
    kept = []
    for line, code in with_fences(text.split("\n")):
        key = " ".join(line.lower().split())
        if not code and line.startswith("- ") and PIN not in line:
            if key in seen:
                continue
            seen.add(key)
        kept.append(line)
    return "\n".join(kept)


def _archive_coldest(staging: Staging, store: GitStore, text: str, target: int, today: date) -> str:
    lines = text.split("\n")
    ages = _line_times(staging, store, MEMORY)
    titles = archive.sections(lines)
    candidates = [index for index, (line, code) in enumerate(with_fences(lines))
                  if not code and line.startswith("- ") and PIN not in line]
    candidates.sort(key=lambda index: (ages.get(lines[index], time.time()), index))
    size, moving = len(text), set()
    for index in candidates:
        if size <= target:
            break
        moving.add(index)
        size -= len(lines[index]) + 1
    if not moving:
        return text
    archive.append(staging, today, [(titles[i], lines[i]) for i in sorted(moving)])
    return "\n".join(line for index, line in enumerate(lines) if index not in moving)


def _line_times(staging: Staging, store: GitStore, path: str) -> dict[str, float]:
    """When each line on disk was last written or confirmed (git blame); a line only staged is 'now'."""
    on_disk = staging.original.get(path) or ""
    times = store.line_times(path) or []
    found: dict[str, float] = {}
    for line, when in zip(on_disk.split("\n"), times, strict=False):
        if when is not None:
            found.setdefault(line, when)
    return found
