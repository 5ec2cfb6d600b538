"""Pinned lines: a person's `<!-- keep -->` marker keeps a line in the active files, whatever fills up.

The marker is visible in the file, so a person can pin by hand as well as with `nanodream pin TEXT`
(edits/pin.py); the pressure step never moves a pinned line, the tools refuse to drop or archive one, and
the guards refuse a result that lost one. This module only reads markers and finds lines; it writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from nanodream.atomic import read_text
from nanodream.markdown import with_fences
from nanodream.workspace import CORE_FILES, Workspace

PIN = "<!-- keep -->"


def is_pinned(line: str) -> bool:
    return PIN in line


def pinned_lines(text: str | None) -> list[str]:
    """The pinned lines of `text`, stripped (how the checks compare them)."""
    return [line.strip() for line in (text or "").splitlines() if is_pinned(line)]


def lost_pins(before: str | None, after: str | None) -> list[str]:
    """Pinned lines of `before` that `after` no longer holds verbatim."""
    kept = {line.strip() for line in (after or "").splitlines()}
    return [line for line in pinned_lines(before) if line not in kept]


@dataclass
class Match:
    path: str
    line: int  # 1-based
    text: str


def find_lines(workspace: Workspace, text: str, path: str | None = None) -> list[Match]:
    """Lines of the active memory files (or of `path`) holding `text`, case aside; headings and code excluded."""
    needle = " ".join(text.split()).lower()
    paths = [path] if path else [*CORE_FILES, *sorted(_skill_paths(workspace))]
    found = []
    for rel in paths:
        file = workspace.root / rel
        if not file.is_file() or file.is_symlink():
            continue
        lines = file_lines(read_text(file))
        body = _front_matter_end(lines)
        for number, (line, code) in enumerate(with_fences(lines), start=1):
            if number > body and not code and line.strip() and not line.lstrip().startswith("#") and \
                    needle in " ".join(line.split()).lower():
                found.append(Match(rel, number, line))
    return found


def file_lines(text: str) -> list[str]:
    """A file's lines as git and the dream count them: split on "\n" only, a CRLF's "\r" set aside (kept in the
    file: the edits that use these numbers put it back), bytes that are not UTF-8 kept as they are read."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return lines[:-1] if lines and lines[-1] == "" else lines


def _front_matter_end(lines: list[str]) -> int:
    """How many leading lines are a skill's front matter (YAML, where a marker would change a value)."""
    if not lines or lines[0].strip() != "---":
        return 0
    return next((number for number, line in enumerate(lines[1:], start=2) if line.strip() == "---"), 0)


def _skill_paths(workspace: Workspace) -> list[str]:
    return [path for path in workspace.memory_paths() if path.startswith("skills/")]  # never a linked skill


def unpinned(line: str) -> str:
    return line.replace(f" {PIN}", "").replace(PIN, "").rstrip()
