"""The job a fleet worker runs: the normal dream of one workspace, under its Redis lock and its workspace lock.

How a dream ends becomes how the RQ job ends: committed, nothing worth keeping, nothing to do, busy (another
run holds the workspace; a later sweep picks it up) or over quota → the job finishes, its return value says
which. Failed, or blocked until a person acts → the job fails with the run's one-line reason, kept in the
job's meta for `fleet status`; no RQ retry, the next sweep enqueues it again while it is due. A worker
killed mid-dream leaves a workspace the next run recovers from its journal, and a lock that expires within
`lock_ttl`.
"""

from __future__ import annotations

import importlib
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from nanodream import clock
from nanodream.config import ConfigError, build_settings
from nanodream.engines import engine_for
from nanodream.fleet import tenancy
from nanodream.fleet.config import FleetConfig, job_settings, load_fleet_config
from nanodream.fleet.discovery import read_workspace_id, workspace_id
from nanodream.fleet.locks import WorkspaceLock, describe_holder, holder
from nanodream.fleet.quotas import over_quota, usage_today, within_budget
from nanodream.run.context import RunOptions
from nanodream.safety.secret_scan import scan_added
from nanodream.scheduling.hostbusy import HostWait
from nanodream.scheduling.scheduler import run_when_idle
from nanodream.scheduling.timetable import Schedule, ScheduleError
from nanodream.vocab import FAILURES, FLEET_TRIGGER, Outcome
from nanodream.workspace import Workspace

if TYPE_CHECKING:
    from redis import Redis
    from rq.job import Job

OVER_QUOTA = "over-quota"
TRIGGER = FLEET_TRIGGER

# The worker's fleet config, set once by `run_worker` before RQ forks the first work horse (each job runs in
# a fork that inherits it). A job run by a plain `rq worker` reads NANODREAM_FLEET_CONFIG instead.
_worker_config: FleetConfig | None = None


class DreamFailed(Exception):
    """The dream failed or needs a person; the message is the one-line reason `fleet status` shows."""


def dream_workspace(path: str, identity: str) -> dict[str, Any]:
    """Dream the workspace enqueued as `path` with id `identity`; the RQ job function."""
    from rq import get_current_job

    job = get_current_job()
    config = _worker_config or load_fleet_config(_env_path("NANODREAM_FLEET_CONFIG"))
    workspace = Workspace(Path(config.local_path(path)))  # never resolved: a link there is refused, not followed
    lock = WorkspaceLock(job.connection, identity, ttl=config.lock_ttl, heartbeat=config.heartbeat)
    try:
        if not lock.claim(job.id):
            running = describe_holder(holder(job.connection, identity))
            return _result(str(workspace.root), Outcome.BUSY,
                           f"{running} is dreaming this workspace; a later sweep picks it up")
        return _dream(job, config, workspace, identity, lock)
    finally:
        lock.release()


def _dream(job: Job, config: FleetConfig, workspace: Workspace, identity: str, lock: WorkspaceLock) -> dict[str, Any]:
    path = str(workspace.root)
    problem = _not_this_workspace(workspace, identity)
    if problem:
        _fail(job, problem)
    try:
        settings, ignored = job_settings(workspace, config)
        if settings.schedule:
            Schedule.parse(settings.schedule, settings.timezone)
    except (ConfigError, ScheduleError) as exc:
        _fail(job, f"configuration: {exc}")
    usage = usage_today(workspace, clock.now())
    reason = over_quota(usage, config)
    if reason:
        return _result(path, OVER_QUOTA, reason, ignored=ignored)
    report = run_when_idle(workspace, within_budget(settings, usage, config), RunOptions(trigger=TRIGGER),
                           HostWait(wait=0, stop=lock.stop_reason), engine_factory=engine_for)
    if report.outcome in FAILURES or report.outcome in (Outcome.BLOCKED, Outcome.REFUSED):
        _fail(job, f"{report.outcome}: {report.reason}")
    return _result(path, report.outcome, report.reason, ignored=ignored, entries=report.entries,
                   commits=len(report.commits), cost=report.cost)


def _not_this_workspace(workspace: Workspace, identity: str) -> str:
    """Why the job cannot dream what it finds at its path, or ''."""
    if not workspace.root.exists():
        return (f"workspace {workspace.root} no longer exists (deleted, moved, or its storage is not mounted on "
                f"{socket.gethostname()})")
    problem = workspace.problem()
    if problem:
        return problem
    refused = tenancy.refusal(workspace)  # before its config, its records or its id are read
    if refused:
        return f"blocked: {refused}"
    found = read_workspace_id(workspace)
    if found is not None and found != identity:
        return (f"{workspace.root} now holds another workspace (id {found}; this job was for {identity}); "
                "the next sweep enqueues it afresh")
    workspace_id(workspace, proposed=identity)  # its state was wiped: it keeps the id it was enqueued with
    return ""


def _fail(job: Job, reason: str) -> NoReturn:
    """Fail the job with `reason`, made one line and kept in its meta for `fleet status`."""
    reason = " ".join(reason.split())
    job.meta["reason"] = reason
    job.save_meta()
    raise DreamFailed(reason)


def _result(path: str, outcome: str, reason: str, **details: Any) -> dict[str, Any]:
    return {"workspace": path, "outcome": str(outcome), "reason": reason, **details}


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


def run_worker(connection: Redis, queue_name: str, config: FleetConfig, *, burst: bool) -> bool:
    """RQ's Worker on one queue (a fork per job); True when it worked at least one job. Raises the RedisError
    that ended it when Redis went away (fleet/worker.py)."""
    from nanodream.fleet.worker import FleetWorker

    global _worker_config  # set before the first fork; see the comment at its definition
    _worker_config = config
    _preload(config)
    worker = FleetWorker([queue_name], connection=connection)
    return worker.work(burst=burst, with_scheduler=False)


def _preload(config: FleetConfig) -> None:
    """Load in the worker, once, what every dream loads on first use: each job runs in a fresh fork, and a
    load left to the job would be paid again by every job (litellm: seconds; the lock's filelock and the
    secret guard's detectors: about 0.12 s)."""
    settings = build_settings(dict(config.settings))
    importlib.import_module("nanodream.engines.builtin" if settings.offline else "nanodream.engines.llm")
    importlib.import_module("filelock")
    scan_added(None, "warm-up line")
