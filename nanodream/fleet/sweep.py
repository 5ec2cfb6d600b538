"""`nanodream fleet enqueue`: one pass over the roots that enqueues one RQ job per due workspace.

A workspace gets no second job while one waits for it (its queue marker) or runs (its lock, kept fresh by
the job's heartbeat); see locks.py. A marker whose job is no longer waiting or running — lost between
being dequeued and taking the lock, or removed from RQ by hand — is taken over, so nothing stays stuck.
Judging is per workspace (files only); the Redis work for CHUNK due workspaces goes out as a few pipelines.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from nanodream.fleet import tenancy
from nanodream.fleet.config import FleetConfig
from nanodream.fleet.discovery import ID_FILE, find_tenants, workspace_id
from nanodream.fleet.due import judge
from nanodream.fleet.locks import Reservation, reserve
from nanodream.vocab import Declared, count
from nanodream.workspace import Workspace

if TYPE_CHECKING:
    from rq import Queue

JOB_FUNCTION = "nanodream.fleet.jobs.dream_workspace"  # by name: the enqueuer never imports the run machinery
LIVE = frozenset({"queued", "started", "deferred", "scheduled"})
# Workspaces judged before their Redis work goes out as a few pipelines: a managed Redis a millisecond away
# then costs a few round trips per CHUNK workspaces, not several per workspace.
CHUNK = 500
# A marker's job may not be in RQ yet while the sweep that set it is still judging its chunk; one missing
# for longer than this was lost.
GRACE = 60


@dataclass
class SweepReport(Declared):
    """What one sweep found and did; `enqueued` and `over_quota` name workspaces, the rest are counts."""

    found: int = 0
    enqueued: list[str] = field(default_factory=list)
    queued: int = 0  # a job was already waiting
    running: int = 0  # a job holds the workspace's lock
    not_due: int = 0
    over_quota: list[dict[str, str]] = field(default_factory=list)  # {workspace, reason}
    skipped: list[dict[str, str]] = field(default_factory=list)  # {workspace, reason}: links, programs git would run

    def describe(self) -> str:
        counts = (f"{count(self.found, 'workspace')}: {len(self.enqueued)} enqueued, "
                  f"{self.queued} already queued, {self.running} running, {self.not_due} not due, "
                  f"{len(self.over_quota)} over quota, {len(self.skipped)} skipped")
        return "\n".join([counts, *(f"skipped {item['reason']}" for item in self.skipped)])


def sweep(roots: Iterable[Path], config: FleetConfig, queue: Queue, now: datetime) -> SweepReport:
    """Enqueue every due workspace under `roots` that has no job yet; name those the fleet must not touch."""
    report = SweepReport()
    due: list[tuple[Workspace, str]] = []
    for root, linked_root in find_tenants(roots):
        report.found += 1
        found = _judged(Workspace(root), linked_root, config, now, report)
        if found is not None:
            due.append(found)
        if len(due) == CHUNK:
            enqueue_due(queue, due, config, report)
            due = []
    enqueue_due(queue, due, config, report)
    return report


def _judged(workspace: Workspace, linked_root: str, config: FleetConfig, now: datetime,
            report: SweepReport) -> tuple[Workspace, str] | None:
    """The workspace and its id when it is due, else None with the report told why not.

    A tenant whose files cannot be read as nanodream keeps them (a folder where its state file should be, a
    file where its state folder should be) is skipped with the reason: one tenant never stops the sweep."""
    try:
        return _judge_tenant(workspace, linked_root, config, now, report)
    except OSError as exc:
        shown = os.path.relpath(exc.filename, workspace.root) if exc.filename else "a file"
        reason = f"{workspace.root}: {shown} cannot be read ({exc.strerror or exc})"
        report.skipped.append({"workspace": str(workspace.root), "reason": reason})
        return None


def _judge_tenant(workspace: Workspace, linked_root: str, config: FleetConfig, now: datetime,
                  report: SweepReport) -> tuple[Workspace, str] | None:
    refused = linked_root or tenancy.linked(workspace)  # before anything of it is read
    verdict = judge(workspace, config, now) if not refused else None
    if verdict is not None and verdict.due:
        refused = tenancy.runs_programs(workspace, quick=True) or _id_or_reason(workspace)
    if refused:
        report.skipped.append({"workspace": str(workspace.root), "reason": refused})
    elif verdict.quota:
        report.over_quota.append({"workspace": str(workspace.root), "reason": verdict.reason})
    elif not verdict.due:
        report.not_due += 1
    else:
        return workspace, workspace_id(workspace)
    return None


def _id_or_reason(workspace: Workspace) -> str:
    """'' once the workspace has its id; the reason when making it met a link swapped in since the check."""
    try:
        workspace_id(workspace)
    except OSError as exc:
        return f"{workspace.root}: its id cannot be kept in .nanodream/{ID_FILE} ({exc.strerror or exc})"
    return ""


def enqueue_due(queue: Queue, found: list[tuple[Workspace, str]], config: FleetConfig, report: SweepReport) -> None:
    """Mark and enqueue the due workspaces that have no job yet, in a few pipelines for all of them."""
    if not found:
        return
    workspaces = [workspace for workspace, _ in found]
    ids = [identity for _, identity in found]
    job_ids = [f"dream-{identity}-{uuid.uuid4().hex[:8]}" for identity in ids]
    states = reserve(queue.connection, [(identity, job_id, "") for identity, job_id in zip(ids, job_ids, strict=True)])
    stale = _stale_markers(queue, states)
    retaken = reserve(queue.connection, [(ids[k], job_ids[k], states[k].value) for k in stale])
    for k, state in zip(stale, retaken, strict=True):
        states[k] = state
    chosen = [k for k, state in enumerate(states) if state.state == "reserved"]
    jobs = [queue.prepare_data(JOB_FUNCTION, (str(workspaces[k].root), ids[k]), job_id=job_ids[k],
                               timeout=config.job_timeout, result_ttl=config.keep_finished,
                               failure_ttl=config.keep_failed, description=f"dream {workspaces[k].root}",
                               meta={"workspace": str(workspaces[k].root), "workspace_id": ids[k]}) for k in chosen]
    # Should this fail, the markers name jobs RQ never heard of: a sweep takes them over after GRACE.
    with queue.connection.pipeline() as pipe:
        queue.enqueue_many(jobs, pipeline=pipe)
        pipe.execute()
    for workspace, state in zip(workspaces, states, strict=True):
        if state.state == "reserved":
            report.enqueued.append(str(workspace.root))
        else:
            setattr(report, state.state, getattr(report, state.state) + 1)


def _stale_markers(queue: Queue, states: list[Reservation]) -> list[int]:
    """Indexes of markers whose job is over, or missing for longer than another sweep takes to enqueue it
    (lost between dequeue and lock, or deleted by hand)."""
    from rq.job import Job

    marked = [k for k, state in enumerate(states) if state.state == "queued"]
    jobs = Job.fetch_many([states[k].value for k in marked], connection=queue.connection)
    return [k for k, job in zip(marked, jobs, strict=True)
            if (states[k].age >= GRACE if job is None else job.get_status(refresh=False) not in LIVE)]
