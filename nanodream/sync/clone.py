"""`nanodream init DIR --from REMOTE`: a workspace whose memory comes from an existing memory remote.

The folder gets its own repository on the remote's branch with `origin` set to the remote, then one sync brings
the remote's memory in — through the same guards as every sync (a hostile rule in the remote's SOUL.md is held,
not written), never through git's checkout. What the remote lacks of a workspace (history.jsonl, a core file) is
scaffolded and committed as `init` does. If the remote cannot be reached, nothing is left behind.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from nanodream.atomic import atomic_write
from nanodream.config import Settings
from nanodream.memory.door import writing
from nanodream.sync.travel import SyncReport, sync
from nanodream.versioning.gitstore import TRAVELLED, GitStore
from nanodream.versioning.remote import RemoteFailed, add_remote, default_branch
from nanodream.vocab import FAILURES, ExitCode, Refused
from nanodream.workspace import CORE_FILES, Workspace, scaffold

INIT_MESSAGE = "init: add memory files created by nanodream init\n\nDream-Kind: manual"


def init_from(workspace: Workspace, remote: str, settings: Settings) -> tuple[list[str], SyncReport]:
    """Make the workspace from `remote` (a git URL or a path); the files scaffolded, and the sync that filled it.

    Refused (exit 2) for a folder that already holds memory: `git remote add` and `sync` merge those instead.
    """
    root = workspace.root
    _check_empty(workspace)
    url = _url(remote)
    existed = _entries(root) if root.exists() else None
    root.mkdir(parents=True, exist_ok=True)
    try:
        store = GitStore(workspace)
        store.init(default_branch(root, url))
        add_remote(store, "origin", url)
        atomic_write(workspace.state_dir / TRAVELLED, f"memory from {remote}\n")
        report = sync(workspace, settings)
        if report.outcome in FAILURES:
            raise RemoteFailed(report.reason)
        created = scaffold(root)
        with writing(workspace) as door:
            door.settle(INIT_MESSAGE)
    except (RemoteFailed, Refused) as exc:
        _undo(root, existed)
        if isinstance(exc, Refused):
            raise
        raise Refused(str(exc), "nothing was created; check the remote's URL and that it can be reached",
                      ExitCode.FAILED) from None
    return created, report


def _check_empty(workspace: Workspace) -> None:
    root = workspace.root
    if root.exists() and not root.is_dir():
        raise Refused(f"{root} is a file, not a workspace directory", exit_code=ExitCode.USAGE)
    held = [path for path in (*CORE_FILES, "skills", ".git") if (root / path).exists()]
    if held:
        raise Refused(f"{root} already holds a workspace ({', '.join(held)}); init --from makes a new one",
                      f"to share this one's memory: git -C {root} remote add origin URL, then nanodream sync "
                      "(it merges both)", ExitCode.USAGE)


def _url(remote: str) -> str:
    """A path on this machine is made absolute (git runs in the new workspace, not where the person typed it)."""
    local = Path(remote).expanduser()
    return str(local.resolve()) if "://" not in remote and local.exists() else remote


def _entries(root: Path) -> set[Path]:
    """What the folder holds at its top and in memory/ (where init writes)."""
    memory = root / "memory"
    inside = set(memory.iterdir()) if memory.is_dir() and not memory.is_symlink() else set()
    return set(root.iterdir()) | inside


def _undo(root: Path, existed: set[Path] | None) -> None:
    """Leave the folder as it was: what it holds now and did not hold before, init made."""
    if existed is None:
        shutil.rmtree(root, ignore_errors=True)
        return
    for path in sorted(_entries(root) - existed, reverse=True):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
