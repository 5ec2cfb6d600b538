"""What a session's summary claims that its diff does not show.

A model's summary is its own words: small models report edits they never made ("Updated the deployment
details…") and name files they never touched. The diff is the evidence; where the words go further, the
commit message and the run record say so, plainly and without guessing at intent.
"""

from __future__ import annotations

import re

from nanodream.text.grammar import CONTRACTED_NOT, NEGATION
from nanodream.workspace import ARCHIVE_DIR

_PATH = re.compile(r"(?<![\w/.-])(SOUL\.md|USER\.md|(?:memory/)?MEMORY\.md|skills/[a-z0-9-]+(?:/SKILL\.md)?"
                   rf"|{ARCHIVE_DIR}/\d{{4}}-\d{{2}}\.md)(?![\w/-])")
_EDIT = re.compile(r"\b(updated|added|removed|deleted|edited|rewrote|wrote|created|moved|merged|corrected|replaced"
                   r"|filed|archived|appended|inserted|changed)\b", re.IGNORECASE)
_NEGATED = re.compile(rf"\b(?:{NEGATION}|0)\b|{CONTRACTED_NOT}\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[.;:!?\n]")


def unconfirmed(summary: str, changed: list[str]) -> list[str]:
    """One line per claim of `summary` that the changed paths do not bear out."""
    notes = [f"the session's summary mentions {path}; {path} did not change"
             for path in _mentioned(summary) if path not in changed]
    if not changed:
        claim = edit_claim(summary)
        if claim:
            notes.append(f'the session\'s summary speaks of edits ("{claim}"); no memory file changed')
    return notes


def _mentioned(summary: str) -> list[str]:
    """The memory files a summary names, as workspace paths, in order of first mention."""
    paths = []
    for match in _PATH.finditer(summary):
        path = match.group(1)
        if path == "MEMORY.md":
            path = "memory/MEMORY.md"
        elif path.startswith("skills/") and not path.endswith("/SKILL.md"):
            path += "/SKILL.md"
        if path not in paths:
            paths.append(path)
    return paths


def edit_claim(summary: str) -> str:
    """The first edit verb the summary states as done (not negated in its clause: "nothing was added", "added
    nothing new")."""
    for match in _EDIT.finditer(summary):
        start = max((m.end() for m in _CLAUSE_END.finditer(summary, 0, match.start())), default=0)
        after = _CLAUSE_END.search(summary, match.end())
        if not _NEGATED.search(summary, start, after.start() if after else len(summary)):
            return match.group(0)
    return ""
