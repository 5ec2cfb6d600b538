"""Dreaming and feeding the backlog: a run, a quarantined entry retried, transcripts ingested."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nanodream.api.acting import WorkspaceLike, action, settings_for, workspace_at
from nanodream.vocab import ExitCode, Refused, new_run_id
from nanodream.workspace import Workspace

if TYPE_CHECKING:
    from nanodream.config import Settings
    from nanodream.engines import Engine
    from nanodream.ingest.report import IngestReport
    from nanodream.run.context import RunOptions
    from nanodream.run.report import RunReport
    from nanodream.scheduling.hostbusy import HostWait


def run_blank(settings: Settings | None = None, options: RunOptions | None = None, **_: Any) -> dict[str, Any]:
    return {"run_id": new_run_id(), "model": settings.model if settings else "",
            "trigger": options.trigger if options else "manual"}


@action(run_blank)
def run(where: WorkspaceLike, settings: Settings | None = None, options: RunOptions | None = None, *,
        waiting: HostWait | None = None, engine_factory: Callable[[Settings], Engine] | None = None,
        should_stop: Callable[[], str] | None = None) -> RunReport:
    """Dream now. With `waiting`, first wait while the host agent serves a user turn (cron and the CLI do)."""
    from nanodream.run.context import RunOptions
    from nanodream.run.dream import run_dream

    options = options or RunOptions()
    workspace = workspace_at(where)
    settings = settings or settings_for(workspace)
    extra: dict[str, Any] = {"engine_factory": engine_factory} if engine_factory else {}
    if waiting is None:
        return run_dream(workspace, settings, options, should_stop=should_stop or (lambda: ""), **extra)
    from nanodream.scheduling.scheduler import run_when_idle

    return run_when_idle(workspace, settings, options, waiting, **extra)


@action(lambda **_: {"run_id": new_run_id(), "model": "", "trigger": "retry"})
def retry_quarantined(where: WorkspaceLike, line: int, settings: Settings | None = None, *,
                      engine_factory: Callable[[Settings], Engine] | None = None) -> RunReport:
    """Dream one quarantined entry alone; on success it leaves the quarantine."""
    from nanodream.run.dream import retry_quarantined as retry

    workspace = workspace_at(where)
    settings = settings or settings_for(workspace)
    return retry(workspace, settings, line, **({"engine_factory": engine_factory} if engine_factory else {}))


@action(lambda dry_run=False, **_: {"dry_run": dry_run})
def ingest(where: WorkspaceLike, paths: list[str | Path] | None = None, *, fmt: str | None = None,
           dry_run: bool = False, settings: Settings | None = None, trigger: str = "manual") -> IngestReport:
    """Turn transcripts into history entries: the files and folders in `paths`, else the workspace's [[ingest]]
    sources. A named path that is missing or not a transcript is refused (exit 2) and nothing is appended."""
    from nanodream.ingest.pipeline import IngestRequest
    from nanodream.ingest.pipeline import ingest as ingest_pass
    from nanodream.ingest.report import IngestReport
    from nanodream.memory.door import writing

    workspace = workspace_at(where)
    settings = settings or settings_for(workspace)
    sources = _ingest_sources(workspace, paths, fmt)
    if not sources:
        return IngestReport(dry_run=dry_run, reason="no sources: name transcript files or folders, or add "
                                                    "[[ingest]] tables to nanodream.toml")
    with writing(workspace, preview=dry_run) as door:
        return ingest_pass(door, settings, IngestRequest(sources, bool(paths), dry_run, trigger))


def _ingest_sources(workspace: Workspace, paths: list[str | Path] | None, fmt: str | None) -> tuple:
    from dataclasses import replace

    from nanodream.config import ConfigError, IngestSource, ingest_sources
    from nanodream.vocab import INGEST_FORMATS

    if fmt is not None and fmt not in INGEST_FORMATS:
        raise Refused(f"--format must be one of {', '.join(INGEST_FORMATS)}; got {fmt!r}", exit_code=ExitCode.USAGE)
    if paths:
        return tuple(IngestSource(Path(os.path.abspath(Path(p).expanduser())), fmt) for p in paths)
    try:
        configured = ingest_sources(workspace)
    except ConfigError as exc:
        raise Refused(f"configuration: {exc}", exit_code=ExitCode.USAGE) from None
    return tuple(replace(source, format=fmt) if fmt else source for source in configured)
