"""What `status` reports: cheap reads only, and never an import of litellm."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from nanodream.config import Settings
from nanodream.prompting.prompt_override import active_prompt
from nanodream.run.history import read_cursor, scan_backlog
from nanodream.run.quarantine import QuarantineUnreadable, load_quarantine
from nanodream.run.records import read_records
from nanodream.scheduling.timetable import next_scheduled
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import SUCCEEDED, Outcome
from nanodream.workspace import Workspace


@dataclass
class Status:
    workspace: str
    model: str
    cursor: int
    pending_entries: int
    last_history_cursor: int
    malformed_lines: int
    last_commit: str | None
    last_commit_subject: str
    prompt_source: str
    interrupted_run: bool
    last_success: dict[str, Any] | None
    last_failure: dict[str, Any] | None
    quarantine: list[dict[str, Any]]
    quarantine_error: str
    schedule: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def workspace_status(workspace: Workspace, settings: Settings) -> Status:
    cursor = read_cursor(workspace.cursor_file)
    backlog = scan_backlog(workspace.history_file, cursor)
    store = GitStore(workspace)
    sha = subject = None
    if store.exists:
        sha = store.head_sha()
        subject = store.head_message().splitlines()[0] if sha else None
    records = read_records(workspace, limit=200)
    successes = [r.to_dict() for r in records if r.outcome in SUCCEEDED]
    failures = [r.to_dict() for r in records if r.outcome == Outcome.FAILED]
    try:
        quarantine, quarantine_error = [vars(e) for e in load_quarantine(workspace)], ""
    except QuarantineUnreadable as exc:
        quarantine, quarantine_error = [], str(exc)
    return Status(
        workspace=str(workspace.root), model=settings.model, cursor=cursor,
        pending_entries=backlog.pending, last_history_cursor=backlog.last_cursor,
        malformed_lines=backlog.malformed, last_commit=sha, last_commit_subject=subject or "",
        prompt_source=active_prompt(workspace).source, interrupted_run=workspace.journal_file.exists(),
        last_success=successes[-1] if successes else None, last_failure=failures[-1] if failures else None,
        quarantine=quarantine, quarantine_error=quarantine_error, schedule=next_scheduled(workspace, settings),
    )
