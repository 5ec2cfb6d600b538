"""A quarantine for git objects: what a sync fetches and builds stays out of the repository until the sync succeeds.

git reads a repository's objects from `.git/objects` and, with GIT_OBJECT_DIRECTORY and
GIT_ALTERNATE_OBJECT_DIRECTORIES (gitstore.quarantined), writes new ones elsewhere while still reading those. A
sync fetches into such a folder, builds its merge there and pushes from there; only once the push succeeded are
the objects moved into the repository — loose objects one by one, a pack's index after its pack, as git moves
its own quarantine — so a sync that fails, or only looks (`--dry-run`), leaves no object behind. A folder left by
a killed sync is deleted on the next one, or moved in by the recovery that needs what it holds.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from nanodream.workspace import Workspace

PREFIX = "nanodream-sync-"
# A pack's files, moved in this order: git finds a pack by its index, so the index goes last.
_PACK_ORDER = (".pack", ".rev", ".bitmap", ".idx")


def quarantine_root(workspace: Workspace) -> Path:
    return workspace.root / ".git" / "nanodream"


def open_quarantine(workspace: Workspace, *, inside: bool = True) -> Path:
    """A new, empty object folder for one sync: inside .git, so moving its objects in is a rename, or (`inside`
    False: a dry run, whose objects never move in) in the system's temporary folder, leaving .git as it was."""
    root = quarantine_root(workspace) if inside else None
    if root is not None:
        root.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=root))
    (folder / "pack").mkdir()
    (folder / "info").mkdir()
    return folder


def discard(folder: Path | None) -> None:
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def discard_stale(workspace: Workspace, keep: str | None = None) -> None:
    """Folders earlier syncs left (killed before they finished), but the one a journal still needs."""
    root = quarantine_root(workspace)
    if not root.is_dir():
        return
    for folder in root.iterdir():
        if folder.name.startswith(PREFIX) and folder.is_dir() and not folder.is_symlink() and str(folder) != keep:
            shutil.rmtree(folder, ignore_errors=True)


def migrate(workspace: Workspace, folder: Path) -> None:
    """Move every object of `folder` into the repository (an object it already has stays as it is), then drop
    the folder. Safe to repeat after a crash half way: what was moved is there, what was not is still here."""
    if not folder.is_dir():
        return
    objects = workspace.root / ".git" / "objects"
    for fan in sorted(folder.iterdir()):
        if len(fan.name) == 2 and fan.is_dir():
            (objects / fan.name).mkdir(exist_ok=True)
            for loose in sorted(fan.iterdir()):
                _move(loose, objects / fan.name / loose.name)
    packs = folder / "pack"
    if packs.is_dir():
        for suffix in _PACK_ORDER:
            for item in sorted(packs.glob(f"*{suffix}")):
                _move(item, objects / "pack" / item.name)
    discard(folder)


def _move(source: Path, target: Path) -> None:
    if target.exists():
        source.unlink()
        return
    os.replace(source, target)
