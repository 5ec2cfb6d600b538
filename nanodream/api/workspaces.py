"""The workspace itself: creating one, reading one of its memory files."""

from __future__ import annotations

from pathlib import Path

from nanodream.api.acting import WorkspaceLike, action, workspace_at
from nanodream.api.reports import (
    InitReport,
    MemoryFile,
)
from nanodream.vocab import ExitCode, Outcome, Refused
from nanodream.workspace import Workspace


@action(lambda where, **_: {"outcome": Outcome.CREATED, "workspace": str(Workspace.at(where).root)})
def init(where: str | Path, *, example: bool = False, from_remote: str | None = None) -> InitReport:
    """Scaffold a workspace (or complete one) and its memory repository, committing what init created; with
    `from_remote` (a git URL or path), a new workspace whose memory comes from that memory remote (docs/sync.md)."""
    from nanodream.memory.door import writing
    from nanodream.workspace import scaffold

    workspace = Workspace.at(where)
    if from_remote is not None:
        return _init_from(workspace, from_remote, example)
    report = InitReport(outcome=Outcome.CREATED, workspace=str(workspace.root))
    try:
        report.created = scaffold(workspace.root, example=example)
    except NotADirectoryError as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    existed = (workspace.root / ".git").exists()
    with writing(workspace) as door:
        door.settle("init: add memory files created by nanodream init\n\nDream-Kind: manual")
    report.git_repository_created = not existed
    return report


def _init_from(workspace: Workspace, remote: str, example: bool) -> InitReport:
    from nanodream.config import Settings
    from nanodream.sync.clone import init_from

    if example:
        raise Refused("--example and --from both say where the memory comes from; give one",
                      exit_code=ExitCode.USAGE)
    created, synced = init_from(workspace, remote, Settings())
    return InitReport(outcome=Outcome.CREATED, workspace=str(workspace.root), created=created,
                      git_repository_created=True, remote=synced.remote, fetched=synced.fetched, held=synced.held,
                      left_out=synced.left_out)


@action()
def memory_file(where: WorkspaceLike, path: str) -> MemoryFile:
    """The text of one memory file (core files, skills, archive months); a path the dream could not read is
    refused (exit 2), one that is not there is `missing`, and one reached through a link — swapped in after the
    check included: the open refuses it too — needs a person (exit 78)."""
    from nanodream.layout import read_memory_file
    from nanodream.workspace import PathRefused

    workspace = workspace_at(where)
    try:
        return MemoryFile(path=path, text=read_memory_file(workspace, path))
    except PathRefused as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    except FileNotFoundError:
        return MemoryFile(path=path, missing=True, reason=f"{path} does not exist in this workspace")
    except OSError as exc:
        raise Refused(f"{path} cannot be read without following a link ({exc.strerror})",
                      exit_code=ExitCode.NEEDS_PERSON) from None
