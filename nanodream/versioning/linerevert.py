"""Take one commit's own line changes out of today's file, line by line.

git's three-way merge refuses whenever a later change sits next to the undone lines, and dreams append to
the same section, so it refused almost every restore but the latest. Here each changed line is traced from
the commit's version to today's file instead: an added line still there verbatim is removed, a removed line
comes back after its old neighbour (or before the next one, or at the end of its heading's section), a
replaced line is swapped back only where the replacement is still there. Only a line a later change edited
in place is a conflict, and it is named.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher

_HEADING = b"#"


@dataclass
class LineRevert:
    """The file after the undo (None when it conflicts), the lines in the way, and the lines taken out."""

    result: bytes | None
    conflicts: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # lines the commit added that the undo takes out


@dataclass
class _Edits:
    """Today's file as lines, plus the edits the undo makes to it, keyed by today's line index."""

    ours: list[bytes]
    drop: set[int] = field(default_factory=set)
    insert: dict[int, list[bytes]] = field(default_factory=dict)  # before index (len(ours): at the end)
    conflicts: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def render(self) -> bytes:
        out: list[bytes] = []
        for index in range(len(self.ours) + 1):
            out.extend(self.insert.get(index, []))
            if index < len(self.ours) and index not in self.drop:
                out.append(self.ours[index])
        return b"".join(_terminated(out))


def revert_lines(ours: bytes, base: bytes, theirs: bytes) -> LineRevert:
    """Undo the change theirs→base (the commit's parent → the commit) in `ours` (today's file)."""
    before, after = theirs.splitlines(keepends=True), base.splitlines(keepends=True)
    edits = _Edits(ours.splitlines(keepends=True))
    where = _trace(after, edits.ours)
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "insert":
            _undo_insert(edits, after, where, j1, j2)
        elif tag == "delete":
            _undo_delete(edits, after, where, j1, before[i1:i2])
        elif tag == "replace":
            _undo_replace(edits, after, where, (j1, j2), before[i1:i2])
    if edits.conflicts:
        return LineRevert(None, edits.conflicts)
    return LineRevert(edits.render(), removed=edits.removed)


def _trace(after: list[bytes], ours: list[bytes]) -> list[int | str]:
    """For every line of the commit's version: its index today, or "gone" (deleted since) or "edited"."""
    where: list[int | str] = ["gone"] * len(after)
    for tag, j1, j2, k1, _k2 in SequenceMatcher(None, after, ours, autojunk=False).get_opcodes():
        for offset, j in enumerate(range(j1, j2)):
            if tag == "equal":
                where[j] = k1 + offset
            elif tag == "replace":
                where[j] = "edited"
    return where


def _undo_insert(edits: _Edits, after: list[bytes], where: list[int | str], j1: int, j2: int) -> None:
    for j in range(j1, j2):
        spot = where[j]
        if isinstance(spot, int):
            edits.drop.add(spot)
            edits.removed.append(_shown(after[j]))
        elif spot == "edited":
            edits.conflicts.append(f"{_shown(after[j])!r} was edited since")


def _undo_delete(edits: _Edits, after: list[bytes], where: list[int | str], j1: int, lines: list[bytes]) -> None:
    if _already_back(edits.ours, lines):
        return
    anchor = _anchor(edits.ours, after, where, j1)
    if anchor is None:
        edits.conflicts.append(f"{_shown(lines[0])!r} has no neighbour or heading left to go back under")
        return
    edits.insert.setdefault(anchor, []).extend(lines)


def _undo_replace(edits: _Edits, after: list[bytes], where: list[int | str], span: tuple[int, int],
                  lines: list[bytes]) -> None:
    now = [where[j] for j in range(*span)]
    kept = [spot for spot in now if isinstance(spot, int)]
    if len(kept) == len(now):
        edits.drop.update(kept)
        edits.removed.extend(_shown(after[j]) for j in range(*span))
        edits.insert.setdefault(kept[0], []).extend(lines)
    elif not kept and "edited" not in now and _already_back(edits.ours, lines):
        return  # undone before: the replacement is gone and the old lines are back
    else:
        changed = [repr(_shown(after[j])) for j in range(*span) if not isinstance(where[j], int)]
        edits.conflicts.append(", ".join(changed) + " was edited since")


def _anchor(ours: list[bytes], after: list[bytes], where: list[int | str], j1: int) -> int | None:
    """Today's index to insert removed lines before: after the old previous line, else before the old next one."""
    if j1 == 0:
        return 0
    previous = where[j1 - 1]
    if isinstance(previous, int):
        return previous + 1
    if j1 < len(after) and isinstance(where[j1], int):
        return where[j1]  # type: ignore[return-value]
    if j1 == len(after):
        return len(ours)
    return _section_end(ours, after, where, j1)


def _section_end(ours: list[bytes], after: list[bytes], where: list[int | str], j1: int) -> int | None:
    """The end of the section whose heading stood above the removed lines, when that heading is still there."""
    for j in range(j1 - 1, -1, -1):
        if after[j].startswith(_HEADING):
            start = where[j]
            if not isinstance(start, int):
                return None
            following = [k for k in range(start + 1, len(ours)) if ours[k].startswith(_HEADING)]
            return following[0] if following else len(ours)
    return None


def _already_back(ours: list[bytes], lines: list[bytes]) -> bool:
    """The old lines are in today's file already (a second undo of the same commit)."""
    wanted = [line.strip() for line in lines if line.strip()]
    present = {line.strip() for line in ours}
    return bool(wanted) and all(line in present for line in wanted)


def _terminated(lines: list[bytes]) -> list[bytes]:
    """Lines joined without gluing: a line that lost its place at the end gets its newline back."""
    return [line if index == len(lines) - 1 or line.endswith((b"\n", b"\r")) else line + b"\n"
            for index, line in enumerate(lines)]


def _shown(line: bytes) -> str:
    return line.decode("utf-8", "replace").rstrip("\r\n")
