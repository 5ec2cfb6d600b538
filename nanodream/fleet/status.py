"""`nanodream fleet status`: how many jobs wait, run, finished and failed, and why workspaces failed.

The counts are RQ's own queue and registries. Failures are read from the newest failed jobs, one line per
workspace (its latest failure): a workspace that stays broken fails again on every sweep, and a list of
the same reason 300 times a day would hide the others.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rq import Queue
    from rq.job import Job

NEWEST_FAILED = 500  # failed jobs looked at for the failures list


def fleet_status(queue: Queue) -> dict[str, Any]:
    """{queued, started, finished, failed, failures: [{workspace, reason, at}]}, newest failure first."""
    from rq.job import Job
    from rq.registry import FailedJobRegistry, FinishedJobRegistry, StartedJobRegistry

    failed = FailedJobRegistry(queue=queue)
    newest = failed.get_job_ids(0, NEWEST_FAILED - 1, desc=True)
    failures: dict[str, dict[str, str]] = {}
    for job in Job.fetch_many(newest, connection=queue.connection):
        if job is None:
            continue
        failure = _failure(job)
        known = failures.get(failure["workspace"])
        if known is None or failure["at"] > known["at"]:
            failures[failure["workspace"]] = failure
    return {
        "queue": queue.name,
        "queued": queue.count,
        "started": StartedJobRegistry(queue=queue).count,
        "finished": FinishedJobRegistry(queue=queue).count,
        "failed": failed.count,
        "failures": sorted(failures.values(), key=lambda f: f["at"], reverse=True),
    }


def _failure(job: Job) -> dict[str, str]:
    meta = job.meta or {}
    reason = meta.get("reason") or _last_line(job.exc_info) or "failed (no reason recorded)"
    ended = job.ended_at
    if ended is not None and ended.tzinfo is None:
        ended = ended.replace(tzinfo=UTC)
    at = (ended or datetime.fromtimestamp(0, UTC)).isoformat(timespec="seconds")
    return {"workspace": str(meta.get("workspace") or job.description or job.id), "reason": reason, "at": at}


def _last_line(text: str | None) -> str:
    """The last non-empty line of a traceback: the exception itself (a killed work horse says so there)."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""
