"""The one place that knows markdown structure: headings, bullets, numbered steps, code fences, sections.

Memory files are edited line by line so every untouched byte stays as it was; a line-based model (rather
than a parsed tree that is rendered back) is what keeps those edits exact.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^[-*+]\s+(.*\S)\s*$")
_NUMBERED = re.compile(r"^(\d+)[.)]\s+(.*\S)\s*$")
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_LIST_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s+\S")  # a bullet or a numbered step, at any indentation
_ITEM_START = re.compile(r"^(?:[-*+]\s|#{1,6}\s)")  # a new top-level bullet or a heading


def with_fences(lines: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """Each line with whether it is code: a fence line itself, or anything between two fence lines."""
    in_fence = False
    for line in lines:
        if _FENCE.match(line):
            in_fence = not in_fence
            yield line, True
        else:
            yield line, in_fence


def is_heading(line: str) -> bool:
    """`#` to `######`, a space, then some title."""
    match = _HEADING.match(line)
    return bool(match and match.group(2))


def is_list_item(line: str) -> bool:
    return bool(_LIST_ITEM.match(line))


def starts_item(line: str) -> bool:
    """A line that begins a new top-level bullet or a heading (so it belongs to nothing above it)."""
    return bool(_ITEM_START.match(line))


@dataclass(frozen=True)
class Bullet:
    index: int
    text: str
    section: str | None


class MarkdownDoc:
    """Lines of one file; edits go through methods that keep bullets inside their sections."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.changed = False
        self._bullets: dict[str | None, list[Bullet]] = {}  # parsed outlines until the next edit

    def bullets(self, section: str | None = None) -> list[Bullet]:
        """Top-level bullets outside code fences, each with the `##` section it sits in.

        Parsed once per edit: an engine asks for them once per fact it files, over files of hundreds of lines.
        """
        if section not in self._bullets:
            self._bullets[section] = self._parse_bullets(section)
        return list(self._bullets[section])

    def _parse_bullets(self, section: str | None) -> list[Bullet]:
        found: list[Bullet] = []
        current: str | None = None
        for index, line, heading in self._outline():
            if heading is not None:
                level, title = heading
                if level <= 2:
                    current = title if level == 2 else None
                continue
            match = _BULLET.match(line)
            if match and (section is None or _same_title(current, section)):
                found.append(Bullet(index, match.group(1), current))
        return found

    def add_bullet(self, section: str, text: str, *, new_section_before: str | None = None) -> None:
        """Append `- text` at the end of `## section`; create the section (before another, if given)."""
        span = self._section_span(section)
        if span is None:
            anchor = self._section_span(new_section_before) if new_section_before else None
            at = anchor[0] if anchor else len(self.lines)
            self.lines[at:at] = ["", f"## {section}", f"- {text}", ""]
        else:
            start, end = span
            last = max((i for i in range(start, end) if self.lines[i].strip()), default=start)
            self.lines.insert(last + 1, f"- {text}")
        self._edited()

    def replace_bullet(self, index: int, text: str) -> None:
        """Rewrite one bullet's text in place, keeping its marker and position."""
        self.lines[index] = self.lines[index][:2] + text
        self._edited()

    def remove_line(self, index: int) -> None:
        del self.lines[index]
        self._edited()

    def _edited(self) -> None:
        self.changed = True
        self._bullets.clear()

    def render(self) -> str:
        """The file as tidy markdown: one blank line between blocks, a blank line before each heading."""
        out: list[str] = []
        in_fence = False
        for line in self.lines:
            blank = not line.strip()
            if not in_fence and blank:
                if out and out[-1]:
                    out.append("")
                continue
            if not in_fence and _HEADING.match(line) and out and out[-1]:
                out.append("")
            if _FENCE.match(line):
                in_fence = not in_fence
            out.append("" if blank else line)
        while out and not out[-1]:
            out.pop()
        return "\n".join(out) + "\n" if out else ""

    def _outline(self):
        """(index, line, (level, title) or None) for every line outside code fences."""
        for index, (line, code) in enumerate(with_fences(self.lines)):
            if code:
                continue
            match = _HEADING.match(line)
            yield index, line, ((len(match.group(1)), match.group(2)) if match else None)

    def _section_span(self, section: str) -> tuple[int, int] | None:
        """Line range (heading, end) of `## section`, ending at the next heading of level 1 or 2."""
        start: int | None = None
        for index, _line, heading in self._outline():
            if heading is None or heading[0] > 2:
                continue
            if start is not None:
                return start, index
            if heading[0] == 2 and _same_title(heading[1], section):
                start = index
        return (start, len(self.lines)) if start is not None else None


def _same_title(a: str | None, b: str) -> bool:
    return a is not None and a.strip().lower() == b.strip().lower()


def numbered_steps(text: str) -> list[tuple[int, str]]:
    """(line index, step text) of every numbered-list line outside code fences."""
    steps: list[tuple[int, str]] = []
    in_fence = False
    for index, line in enumerate(text.splitlines()):
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (match := _NUMBERED.match(line)):
            steps.append((index, match.group(2)))
    return steps


def append_steps(text: str, steps: list[str]) -> str:
    """Continue the file's last numbered list with `steps`, or start a `## Steps` list when it has none."""
    lines = text.splitlines()
    existing = numbered_steps(text)
    if existing:
        last_index = existing[-1][0]
        number = int(_NUMBERED.match(lines[last_index]).group(1))
        new = [f"{number + offset}. {step}" for offset, step in enumerate(steps, start=1)]
        lines[last_index + 1:last_index + 1] = new
    else:
        lines += ["", "## Steps", "", *[f"{n}. {step}" for n, step in enumerate(steps, start=1)]]
    return MarkdownDoc("\n".join(lines)).render()
