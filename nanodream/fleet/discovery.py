"""Finding workspaces under the fleet's roots, and the stable id each one carries in its own state.

A workspace is a directory holding `memory/history.jsonl`; its subdirectories are not searched (a
workspace does not hold other workspaces, and its `.git` can be large). Symlinked directories are not
followed, so a link loop cannot trap a sweep.

The id is random, made on first contact and kept in `.nanodream/workspace-id` (unversioned state). The
fleet keys its Redis lock and queue marker by it rather than by path, because the same workspace on shared
storage is mounted at different paths on different machines.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

from nanodream.workspace import Workspace

ID_FILE = "workspace-id"
_ID = re.compile(r"^[0-9a-f]{32}$")


def find_workspaces(roots: Iterable[Path]) -> Iterator[Path]:
    """Every workspace under the roots (a root may be one itself), each once, in a stable order."""
    seen: set[str] = set()
    for root in roots:
        for found in _walk(os.path.abspath(root)):
            if found not in seen:
                seen.add(found)
                yield Path(found)


def _walk(top: str) -> Iterator[str]:
    stack = [top]
    while stack:
        directory = stack.pop()
        if os.path.isfile(os.path.join(directory, "memory", "history.jsonl")):
            yield directory
            continue
        try:
            with os.scandir(directory) as entries:
                children = [e.path for e in entries if e.is_dir(follow_symlinks=False)]
        except (PermissionError, FileNotFoundError, NotADirectoryError):
            continue  # unreadable or gone since its parent was listed: nothing to find there
        stack.extend(sorted(children, reverse=True))  # popped in name order


def read_workspace_id(workspace: Workspace) -> str | None:
    """The workspace's id, or None before first contact (or when the file holds no valid id)."""
    try:
        text = (workspace.state_dir / ID_FILE).read_text(encoding="ascii").strip()
    except (FileNotFoundError, NotADirectoryError, UnicodeDecodeError):
        return None
    return text if _ID.match(text) else None


def workspace_id(workspace: Workspace, proposed: str | None = None) -> str:
    """The workspace's id, made now (random, or `proposed`) if it has none.

    Written to a temporary file and hard-linked into place: the link fails if another machine made an id
    first (atomically, on NFS too), and then that id wins, so every machine agrees.
    """
    existing = read_workspace_id(workspace)
    if existing:
        return existing
    made = proposed or uuid.uuid4().hex
    target = workspace.state_dir / ID_FILE
    workspace.state_dir.mkdir(parents=True, exist_ok=True)
    temporary = workspace.state_dir / f".{ID_FILE}.{made}"
    temporary.write_text(made + "\n", encoding="ascii")
    try:
        os.link(temporary, target)
    except FileExistsError:
        if read_workspace_id(workspace) is None:  # an invalid file: replace it rather than stay id-less
            os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    return read_workspace_id(workspace) or made
