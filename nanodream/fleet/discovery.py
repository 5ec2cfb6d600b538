"""Finding workspaces under the fleet's roots, and the stable id each one carries in its own state.

A workspace is a directory holding `memory/history.jsonl`; its subdirectories are not searched (a
workspace does not hold other workspaces, and its `.git` can be large). Symlinked directories are not
followed, so a link loop cannot trap a sweep, and a tenant's link to another tenant's folder is not that
tenant's workspace: it is named as skipped, never dreamed, and the folder it points to is only dreamed as itself.

The id is random, made on first contact and kept in `.nanodream/workspace-id` (unversioned state). The
fleet keys its Redis lock and queue marker by it rather than by path, because the same workspace on shared
storage is mounted at different paths on different machines.
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

from nanodream.atomic import open_plain, read_bytes
from nanodream.workspace import Workspace

ID_FILE = "workspace-id"
_ID = re.compile(r"^[0-9a-f]{32}$")


def find_workspaces(roots: Iterable[Path]) -> Iterator[Path]:
    """Every workspace under the roots (a root may be one itself), each once, in a stable order."""
    return (path for path, linked in find_tenants(roots) if not linked)


def find_tenants(roots: Iterable[Path]) -> Iterator[tuple[Path, str]]:
    """(folder, "") for every workspace under the roots, and (path, why) for a symbolic link under them that
    leads to one: passed over, never followed, and said so."""
    seen: set[str] = set()
    for root in roots:
        for found, linked in _walk(os.path.abspath(root)):
            if found not in seen:
                seen.add(found)
                yield Path(found), linked


def _walk(top: str) -> Iterator[tuple[str, str]]:
    stack = [top]
    while stack:
        directory = stack.pop()
        if _holds_history(directory):
            yield directory, ""
            continue
        try:
            with os.scandir(directory) as found:
                entries = sorted(found, key=lambda e: e.name)
        except (PermissionError, FileNotFoundError, NotADirectoryError):
            continue  # unreadable or gone since its parent was listed: nothing to find there
        for entry in entries:
            if entry.is_symlink() and _holds_history(entry.path):
                yield entry.path, (f"{entry.path} is a symbolic link to another folder; a fleet never follows one "
                                   "(it could be another tenant's workspace)")
        stack.extend(e.path for e in reversed(entries) if e.is_dir(follow_symlinks=False))  # popped in name order


def _holds_history(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "memory", "history.jsonl"))


def read_workspace_id(workspace: Workspace) -> str | None:
    """The workspace's id, or None before first contact (or when the file holds no valid id). Read without
    following a link anywhere on its path: a linked `.nanodream` holds another tenant's id."""
    try:
        text = read_bytes(workspace.state_dir / ID_FILE, 64).decode("ascii").strip()
    except (FileNotFoundError, NotADirectoryError, UnicodeDecodeError):
        return None
    return text if _ID.match(text) else None


def workspace_id(workspace: Workspace, proposed: str | None = None) -> str:
    """The workspace's id, made now (random, or `proposed`) if it has none.

    Written to a temporary file and hard-linked into place: the link fails if another machine made an id
    first (atomically, on NFS too), and then that id wins, so every machine agrees. Every step works inside
    the state folder opened without following a link (OSError when one was swapped in after the check), so
    another tenant's id is never read, made or replaced.
    """
    existing = read_workspace_id(workspace)
    if existing:
        return existing
    made = proposed or uuid.uuid4().hex
    folder = _state_folder(workspace)
    temporary = f".{ID_FILE}.{made}"
    try:
        written = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=folder)
        with os.fdopen(written, "w", encoding="ascii") as handle:
            handle.write(made + "\n")
        try:
            os.link(temporary, ID_FILE, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
        except FileExistsError:
            if read_workspace_id(workspace) is None:  # an invalid file: replace it rather than stay id-less
                os.replace(temporary, ID_FILE, src_dir_fd=folder, dst_dir_fd=folder)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary, dir_fd=folder)
    finally:
        os.close(folder)
    return read_workspace_id(workspace) or made


def _state_folder(workspace: Workspace) -> int:
    """A descriptor of `.nanodream/` (made if missing), reached without following any link."""
    root = open_plain(workspace.root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(workspace.state_dir.name, dir_fd=root)
        return os.open(workspace.state_dir.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=root)
    finally:
        os.close(root)
