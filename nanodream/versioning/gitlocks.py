"""Lock files a killed git command leaves behind, and how nanodream tells a stale one from one in use.

Git takes a lock by creating `<file>.lock` (O_EXCL) and renames it over the file when it is done. A git child
killed in between — a `kill -9` aimed at the commit's `update-ref`, the OOM killer — leaves `.git/HEAD.lock`,
`.git/refs/heads/main.lock` or `.git/index.lock`, and every later command needing that file fails with
"File exists": the workspace would be wedged for good. The lock files carry no process id, so nanodream
decides from what it can see, under its own workspace lock (the door holds it, so no other nanodream is
working here):

- a lock file is **stale** when no live process on this machine can be holding it: no process named `git…`
  works in this workspace (its working directory is inside it), and no process nanodream may inspect has the
  lock file open (libgit2 tools, an editor's git integration). Such a lock is removed and said so.
- it **may be in use** when such a process exists, or when a `git…` process of another user cannot be
  inspected, or when the machine offers no `/proc` to look in: the command stops for a person (exit 78)
  naming the file and what to do.

Git's own commands working from another machine over a network file system are out of sight; the fleet's
Redis lock and the workspace lock keep nanodream's own off one workspace, and a person's git there is rare.
"""

from __future__ import annotations

import os
from pathlib import Path

from nanodream.versioning.gitstate import NeedsPerson
from nanodream.workspace import Workspace

_PROC = Path("/proc")


def lock_files(workspace: Workspace) -> list[Path]:
    """The lock files in the repository that nanodream's own git commands would trip on."""
    git_dir = workspace.root / ".git"
    if not git_dir.is_dir():
        return []
    found = [path for path in git_dir.glob("*.lock") if path.is_file()]
    refs = git_dir / "refs"
    if refs.is_dir():
        found += [path for path in refs.rglob("*.lock") if path.is_file()]
    return sorted(found)


def clear_stale_locks(workspace: Workspace) -> list[str]:
    """Remove the lock files no live process can be holding; the ones removed, workspace-relative.

    Raises NeedsPerson, naming the file and the way out, for one that a live process may hold. Call only under
    the workspace lock.
    """
    locks = lock_files(workspace)
    if not locks:
        return []
    holder = _possible_holder(workspace.root, locks)
    if holder:
        shown = ", ".join(path.relative_to(workspace.root).as_posix() for path in locks)
        raise NeedsPerson(f"git's {shown} is in use or left by a killed git command ({holder})",
                          "wait for that git command to finish; if no git command is running in this workspace, "
                          f"delete {shown} and run again")
    removed = []
    for path in locks:
        path.unlink(missing_ok=True)
        removed.append(path.relative_to(workspace.root).as_posix())
    return removed


def _possible_holder(root: Path, locks: list[Path]) -> str:
    """Who may hold one of `locks` (one line), or '' when no live process on this machine can."""
    if not _PROC.is_dir():
        return "this system does not show which processes use them"
    targets = {str(path) for path in locks}
    for entry in _PROC.iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            holder = _holds(entry, root, targets)
            if holder:
                return holder
    return ""


def _holds(process: Path, root: Path, targets: set[str]) -> str:
    """Why this process may hold a lock in the repository at `root` ('' when it cannot)."""
    try:
        name = (process / "comm").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""  # gone since the listing
    try:
        cwd = os.readlink(process / "cwd")
    except PermissionError:  # another user's: only a git among them matters, and it cannot be looked into
        return f"{name} (pid {process.name}) of another user" if name.startswith("git") else ""
    except OSError:
        return ""  # gone, or a kernel thread
    if name.startswith("git") and (cwd == str(root) or cwd.startswith(f"{root}{os.sep}")):
        return f"{name} (pid {process.name}) is working in this workspace"
    return f"{name} (pid {process.name}) has it open" if _has_open(process, targets) else ""


def _has_open(process: Path, targets: set[str]) -> bool:
    try:
        descriptors = list((process / "fd").iterdir())
    except OSError:
        return False
    for descriptor in descriptors:
        try:
            if os.readlink(descriptor) in targets:
                return True
        except OSError:
            continue
    return False
