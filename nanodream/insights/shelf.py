"""Every insight of a workspace as it stands: the records that parse, and apart, the files that do not.

A file a person broke by hand is never dropped silently and never rewritten by a phase: it is listed with
what is wrong, and its name and refs still count as taken, so nothing is proposed over it. A file is read only up
to a record's size (a longer one is broken, unread), its front matter through the bounded YAML reader: an alias
bomb or a gigabyte in `memory/insights/` is one broken record, never a hung command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from nanodream.atomic import read_bytes
from nanodream.insights.records import NAME, RECORD_BYTES, STATUSES, Insight, InsightInvalid, parse, path_of
from nanodream.workspace import INSIGHTS_DIR, Workspace


@dataclass(frozen=True)
class Broken:
    path: str
    problem: str


@dataclass
class Shelf:
    insights: list[Insight] = field(default_factory=list)  # by name
    broken: list[Broken] = field(default_factory=list)

    def get(self, name: str) -> Insight | None:
        return next((insight for insight in self.insights if insight.name == name), None)

    def names(self) -> set[str]:
        return {insight.name for insight in self.insights} | {b.path.rsplit("/", 1)[-1][:-3] for b in self.broken}

    def shown(self, status: str | None = None) -> list[Insight]:
        """What a list shows: one status, or (by default) every insight but the rejected, which left view."""
        if status is not None:
            return [insight for insight in self.insights if insight.status == status]
        return [insight for insight in self.insights if insight.status != "rejected"]


def paths(workspace: Workspace) -> list[str]:
    """The record files on disk, by name: plain files only (a link is never read)."""
    folder = workspace.root / INSIGHTS_DIR
    if not folder.is_dir() or folder.is_symlink():
        return []
    return sorted(f"{INSIGHTS_DIR}/{p.name}" for p in folder.glob("*.md") if p.is_file() and not p.is_symlink())


_STATUS = re.compile(r"^status:\s*['\"]?([a-z]+)", re.MULTILINE)
_STATUS_BYTES = 2000  # the status line is near the top of a record


def tally(workspace: Workspace) -> dict[str, int]:
    """How many insights have each status (`broken`: no status line to read), read off their `status:` lines
    alone: cheap enough for `status`."""
    counts = dict.fromkeys((*STATUSES, "broken"), 0)
    for path in paths(workspace):
        found = _STATUS.search(read_bytes(workspace.root / path, _STATUS_BYTES).decode("utf-8", "replace"))
        counts[found.group(1) if found and found.group(1) in STATUSES else "broken"] += 1
    return counts


def _read(workspace: Workspace, path: str) -> str | None:
    """The record's text, cut one character past a record's size (so a longer file is broken, never read whole);
    None when the file is gone since it was listed."""
    try:
        return read_bytes(workspace.root / path, RECORD_BYTES + 1).decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        return None


def read_shelf(workspace: Workspace, texts: dict[str, str | None] | None = None) -> Shelf:
    """The workspace's insights; `texts` (path → text, None for deleted) overrides the files, e.g. a staged copy."""
    found = dict.fromkeys(paths(workspace))
    found.update(dict.fromkeys(texts or {}))
    shelf = Shelf()
    for path in sorted(found):
        text = (texts or {}).get(path) if path in (texts or {}) else _read(workspace, path)
        if text is None:
            continue
        name = path.rsplit("/", 1)[-1][:-3]
        if not NAME.match(name) or path != path_of(name):
            shelf.broken.append(Broken(path, "the file name is not a kebab-case insight name"))
            continue
        try:
            shelf.insights.append(parse(name, text))
        except InsightInvalid as exc:
            shelf.broken.append(Broken(path, str(exc)))
    return shelf
