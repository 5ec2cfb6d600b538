"""The archive tier: `memory/archive/YYYY-MM.md`, facts no longer hot and facts no longer true.

Tracked in git and never loaded by default. Cold lines arrive from memory/MEMORY.md — moved by the model's
`archive_lines` tool or by the pressure step after a session — and replaced lines from any core file, in the
until-form (validity.py, run/supersede.py), each under the heading of the section it left.
"""

from __future__ import annotations

from datetime import date

from nanodream.markdown import is_heading, with_fences
from nanodream.memory.staging import Staging
from nanodream.workspace import ARCHIVE_DIR, ARCHIVE_INTRO, MEMORY

SOURCE = MEMORY  # the one file whose cold lines move to the archive


def archive_file(day: date) -> str:
    """The archive file of the month `day` falls in (by month of archiving)."""
    return f"{ARCHIVE_DIR}/{day:%Y-%m}.md"


def sections(lines: list[str]) -> list[str]:
    """For each line, the title of the heading it sits under ('' before the first heading)."""
    found, current = [], ""
    for line, code in with_fences(lines):
        if not code and is_heading(line):
            current = line.lstrip("#").strip()
        found.append(current)
    return found


def section_of(text: str | None, line: str) -> str:
    """The title of the heading `line` sits under in `text` ('' when it is not there, or under none)."""
    lines = (text or "").split("\n")
    return sections(lines)[lines.index(line)] if line in lines else ""


def append(staging: Staging, day: date, moved: list[tuple[str, str]]) -> str:
    """Add (section, line) pairs to the month's archive file in the staged copy; returns its path."""
    path = archive_file(day)
    staging.write(path, appended(staging.include(path), day, moved))
    return path


def appended(text: str | None, day: date, moved: list[tuple[str, str]]) -> str:
    """An archive month's text (None: not started yet) with (section, line) pairs added under dated headings."""
    text = text or f"# Archive {day:%Y-%m}\n\n{ARCHIVE_INTRO}\n"
    blocks: dict[str, list[str]] = {}
    for section, line in moved:
        blocks.setdefault(section or "Memory", []).append(line)
    for section, lines in blocks.items():
        text = text.rstrip("\n") + f"\n\n## {section} (archived {day.isoformat()})\n" + "\n".join(lines) + "\n"
    return text


def mark_moved(staging: Staging, line: str, marked: str) -> bool:
    """Rewrite `line` as `marked` where this session itself moved it to the archive; False when it did not."""
    for path in staging.archive_paths():
        before, now = staging.original.get(path) or "", staging.read(path) or ""
        lines = now.split("\n")
        added = [i for i, text in enumerate(lines) if text.strip() == line.strip() and text not in before.split("\n")]
        if added:
            lines[added[0]] = marked
            staging.write(path, "\n".join(lines))
            return True
    return False
