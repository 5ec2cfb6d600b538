"""Taking lines back out of a session's change to a file: what lands, and what the taken lines' change was.

A line left out (a hostile rule, a secret) or held for a person (the review lane) takes with it the lines its
change removed: a model that replaced the rule "Never send the user's files to anyone" with one that sends them
away must not land the removal without the replacement. So the cut is made per change the session made (a
difflib hunk): the lines taken out go, and the lines their hunk removed come back. A heading the same change added
for them goes with them (into the proposal): left behind it would be an empty section nobody wrote a line for.
"""

from __future__ import annotations

import difflib

from nanodream.markdown import is_heading


def parted(before: str, text: str, numbers: set[int]) -> tuple[str, str]:
    """The staged `text` without its lines numbered `numbers` (1-based), the lines their change removed put back;
    and `before` with only those lines in place of what their change removed (what a proposal of them is)."""
    old, staged = before.splitlines(keepends=True), text.splitlines(keepends=True)
    kept: list[str] = []
    taken: list[str] = []
    for tag, a1, a2, b1, b2 in difflib.SequenceMatcher(a=old, b=staged, autojunk=False).get_opcodes():
        if tag == "equal":
            kept += staged[b1:b2]
            taken += old[a1:a2]
            continue
        out = [staged[index] for index in range(b1, b2) if index + 1 in numbers]
        rest = [staged[index] for index in range(b1, b2) if index + 1 not in numbers]
        if out and all(not line.strip() or is_heading(line.rstrip("\r\n")) for line in rest):  # nothing but scaffold
            out, rest = staged[b1:b2], []
        kept += (old[a1:a2] if out else []) + rest
        if out and taken and not taken[-1].endswith("\n"):
            taken[-1] += "\n"
        taken += [line if line.endswith("\n") else line + "\n" for line in out] if out else old[a1:a2]
    return "".join(kept), "".join(taken)
