"""Every path nanodream reads or writes inside a workspace, and the first one that is not a plain file or folder.

A link inside a workspace can point into another one: a linked `memory/history.jsonl` would dream another
tenant's history into this memory, a linked `.git` would commit into their repository, a linked
`.nanodream` would move their position. So before anything is read — by a writer at the door, by a reader
at the API — the paths nanodream uses are looked at with `lstat` (a link is never followed to find out),
and any link, anywhere on the way, stops the command for a person (exit 78) naming the path.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from nanodream.atomic import read_bytes
from nanodream.workspace import CORE_FILES, Workspace

# The files and folders nanodream itself reads or writes; folders marked with a trailing slash have their
# entries checked too (one level: nanodream keeps nothing deeper, except skills/<name>/SKILL.md).
_PATHS = (".git", ".gitignore", "nanodream.toml", "memory", *CORE_FILES, "memory/history.jsonl",
          "memory/.dream_cursor", "memory/rejected.md", "memory/skill-usage.jsonl", "memory/archive/",
          "memory/insights/", "skills/", "prompts/", "prompts/dream.md", ".nanodream/", ".nanodream/transcripts/",
          ".nanodream/recall/", ".nanodream/turns/")


class Linked(Exception):
    """A path inside the workspace that nanodream must not follow; the message names it and the way out."""


def check_plain(workspace: Workspace) -> None:
    """Raise Linked for the first path nanodream uses that is a link (or a `.git` that is not a folder).

    A linked skill (`Workspace.linked_skills`) is not one of them: it is left alone, and named where it is met.
    """
    linked_skills = set(workspace.linked_skills())
    for rel, info in _entries(workspace.root):
        if rel in linked_skills:
            continue
        if stat.S_ISLNK(info.st_mode):
            raise Linked(f"{rel} is a symbolic link; nanodream only reads and writes plain files and folders "
                         "inside the workspace (a link can reach another workspace): replace it with the real "
                         "file or folder")
        if rel == ".git" and not stat.S_ISDIR(info.st_mode):
            raise Linked(".git is not a folder (a gitdir file points into another repository); nanodream keeps "
                         "memory in the workspace's own repository: move it away, `nanodream init` makes one")


def read_memory_file(workspace: Workspace, path: str) -> str:
    """The text of one memory file as the dream's tools spell it (an archive month too): PathRefused for any other
    path, FileNotFoundError when it is absent, OSError when a link is met anywhere on the way — the check and
    the open both refuse one, so a link swapped in between is refused too."""
    workspace.check_memory_path(path, archive=True)
    return read_bytes(workspace.root / path).decode("utf-8", errors="replace")


def _entries(root: Path) -> Iterator[tuple[str, os.stat_result]]:
    """(path, lstat) of every path nanodream uses that exists, folders before what they hold."""
    for spec in _PATHS:
        rel = spec.rstrip("/")
        info = _lstat(root / rel)
        if info is None:
            continue
        yield rel, info
        if spec.endswith("/") and stat.S_ISDIR(info.st_mode):
            yield from _children(root, rel, deeper=rel == "skills")


def _children(root: Path, rel: str, *, deeper: bool) -> Iterator[tuple[str, os.stat_result]]:
    with os.scandir(root / rel) as found:
        for entry in sorted(found, key=lambda e: e.name):
            info = entry.stat(follow_symlinks=False)
            yield f"{rel}/{entry.name}", info
            if deeper and stat.S_ISDIR(info.st_mode):  # skills/<name>/SKILL.md
                skill = _lstat(root / rel / entry.name / "SKILL.md")
                if skill is not None:
                    yield f"{rel}/{entry.name}/SKILL.md", skill


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return None
