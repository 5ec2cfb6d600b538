"""`nanodream fleet enqueue`: one pass over the roots that enqueues one RQ job per due workspace.

A workspace gets no second job while one waits for it (its queue marker) or runs (its lock, kept fresh by
the job's heartbeat); see locks.py. A marker whose job is no longer waiting or running — lost between
being dequeued and taking the lock, or removed from RQ by hand — is taken over, so nothing stays stuck.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nanodream.fleet.config import FleetConfig
from nanodream.fleet.discovery import find_workspaces, workspace_id
from nanodream.fleet.due import judge
from nanodream.fleet.locks import reserve
from nanodream.workspace import Workspace

if TYPE_CHECKING:
    from rq import Queue

JOB_FUNCTION = "nanodream.fleet.jobs.dream_workspace"  # by name: the enqueuer never imports the run machinery
LIVE = frozenset({"queued", "started", "deferred", "scheduled"})


@dataclass
class SweepReport:
    """What one sweep found and did; `enqueued` and `over_quota` name workspaces, the rest are counts."""

    found: int = 0
    enqueued: list[str] = field(default_factory=list)
    queued: int = 0  # a job was already waiting
    running: int = 0  # a job holds the workspace's lock
    not_due: int = 0
    over_quota: list[dict[str, str]] = field(default_factory=list)  # {workspace, reason}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        return (f"{self.found} workspace{'s' if self.found != 1 else ''}: {len(self.enqueued)} enqueued, "
                f"{self.queued} already queued, {self.running} running, {self.not_due} not due, "
                f"{len(self.over_quota)} over quota")


def sweep(roots: Iterable[Path], config: FleetConfig, queue: Queue, now: datetime) -> SweepReport:
    """Enqueue every due workspace under `roots` that has no job yet."""
    report = SweepReport()
    for root in find_workspaces(roots):
        report.found += 1
        workspace = Workspace(root)
        verdict = judge(workspace, config, now)
        if verdict.quota:
            report.over_quota.append({"workspace": str(root), "reason": verdict.reason})
        elif not verdict.due:
            report.not_due += 1
        else:
            state = enqueue_workspace(queue, workspace, config)
            if state == "enqueued":
                report.enqueued.append(str(root))
            else:
                setattr(report, state, getattr(report, state) + 1)
    return report


def enqueue_workspace(queue: Queue, workspace: Workspace, config: FleetConfig) -> str:
    """'enqueued', or 'queued' / 'running' when the workspace already has a job."""
    identity = workspace_id(workspace)
    job_id = f"dream-{identity}-{uuid.uuid4().hex[:8]}"
    state, holder = reserve(queue.connection, identity, job_id)
    if state == "queued" and not _waiting_or_running(queue, holder):
        state, holder = reserve(queue.connection, identity, job_id, replacing=holder)
    if state != "reserved":
        return state
    # Should this fail, the marker names a job RQ never heard of, and the next sweep takes it over.
    queue.enqueue(JOB_FUNCTION, str(workspace.root), identity, job_id=job_id, description=f"dream {workspace.root}",
                  job_timeout=config.job_timeout, result_ttl=config.keep_finished, failure_ttl=config.keep_failed,
                  meta={"workspace": str(workspace.root), "workspace_id": identity})
    return "enqueued"


def _waiting_or_running(queue: Queue, job_id: str) -> bool:
    from rq.exceptions import NoSuchJobError
    from rq.job import Job

    try:
        return Job.fetch(job_id, connection=queue.connection).get_status(refresh=False) in LIVE
    except NoSuchJobError:
        return False
