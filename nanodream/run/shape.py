"""A memory file's shape after a session: what the prompt framed it with stays out, its structure stays whole.

Small models paste back what they were shown: a whole file wrapped in the `<file>…</file>` tags the user
message frames it with, a fenced ```markdown copy, the `## USER.md (88/24000 chars)` header. Others flatten a
file into one line of prose ("#3: superseded by fact 2"). Either way the file stops being what a host loads
and a person reads, so the result is refused with the reason, whatever the batch holds.
"""

from __future__ import annotations

import re

from nanodream.changes import FileChange
from nanodream.markdown import is_heading, is_list_item, with_fences

# Lines of the prompt's own framing (prompting/prompt.py): never a line of a memory file.
_FRAMING = re.compile(r"^\s*(?:</?(?:file|history|memory|tool_call|tool_result)\b[^>]*>"
                      r"|#{1,6}\s+(?:SOUL\.md|USER\.md|memory/MEMORY\.md|skills/\S+)\s+\(\d+/\d+ chars)")
_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")


def problems(change: FileChange) -> list[str]:
    """What the session broke in this file's shape, one phrase each ([] when nothing)."""
    if change.after is None or not change.before:
        return []
    before, after = change.before.splitlines(), change.after.splitlines()
    found = _framing(before, after)
    found += _headings(before, after)
    found += _prose_among_bullets(before, after)
    return found


def _framing(before: list[str], after: list[str]) -> list[str]:
    added = [line for line in after if line not in set(before)]
    framing = [line.strip() for line in added if _FRAMING.match(line)]
    content = [line for line in after if line.strip()]
    fenced = (len(content) >= 2 and content[0].lstrip().startswith(("```", "~~~"))
              and content[-1].strip() in ("```", "~~~") and not before[0].lstrip().startswith(("```", "~~~")))
    found = [f"it carries the prompt's framing ({framing[0][:40]!r}), not memory"] if framing else []
    return found + (["the whole file is wrapped in a code fence"] if fenced else [])


def _headings(before: list[str], after: list[str]) -> list[str]:
    old = [line for line, code in with_fences(before) if not code and is_heading(line)]
    new = [line for line, code in with_fences(after) if not code and is_heading(line)]
    if old and not new:
        return [f"all {len(old)} headings are gone"]
    title = next((line for line in before if line.strip()), "")
    first = next((line for line in after if line.strip()), "")
    if title.startswith("# ") and not is_heading(first):
        return [f"its title {title.strip()!r} is no longer its first line"]
    return []


def _prose_among_bullets(before: list[str], after: list[str]) -> list[str]:
    """A line of plain prose added under a section whose lines were all bullets."""
    bulleted = {title for title, lines in _sections(before).items() if lines and all(map(_item_like, lines))}
    old = set(before)
    for title, lines in _sections(after).items():
        if title not in bulleted:
            continue
        stray = next((line for line in lines if line not in old and not _item_like(line)), None)
        if stray is not None:
            return [f"section {title!r} holds bullets, and the line {stray.strip()[:60]!r} is not one"]
    return []


def _sections(lines: list[str]) -> dict[str, list[str]]:
    """The content lines under each `#` heading (fences, blank lines and comments left out)."""
    found: dict[str, list[str]] = {}
    current = ""
    for line, code in with_fences(lines):
        if code or not line.strip() or _COMMENT.match(line):
            continue
        if is_heading(line):
            current = line.strip()
            found.setdefault(current, [])
        elif current:
            found[current].append(line)
    return found


def _item_like(line: str) -> bool:
    """A bullet or step, a line indented under one, or the mark a redacted credential left in place."""
    return is_list_item(line) or line[:1] in (" ", "\t") or line.startswith("(redacted ")
