"""The two Redis keys that keep one workspace to one job: its queue marker and its lock.

- `nanodream:fleet:queued:<id>` holds the id of the job waiting for the workspace. A sweep sets it (only when
  neither key exists) before it enqueues; the job removes it when it starts.
- `nanodream:fleet:lock:<id>` is held while a job dreams the workspace, with a short TTL that a heartbeat
  thread keeps refreshing. A machine that dies stops refreshing, and the lock is gone within the TTL.

Taking the lock and removing the marker are one Lua script, and so are the sweep's look at both keys and
setting the marker: there is no moment in which a sweep sees neither key for a workspace that has a job.
The lock sits beside the workspace's own flock, which cannot be trusted across machines on every shared
filesystem (docs/fleet.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from nanodream import boundedjson
from nanodream.vocab import utc_stamp

if TYPE_CHECKING:
    from redis import Redis

PREFIX = "nanodream:fleet"
QUEUED_TTL = 7 * 86_400  # a marker whose job vanished without trace cannot hold a workspace for longer

_RESERVE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return {'running', redis.call('GET', KEYS[1]), 0} end
local current = redis.call('GET', KEYS[2])
if current and current ~= ARGV[3] then return {'queued', current, ARGV[2] - redis.call('TTL', KEYS[2])} end
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[2])
return {'reserved', ARGV[1], 0}
"""
_CLAIM = """
local got = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
if redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
if got then return 1 end
return 0
"""
_REFRESH = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_DELETE_OWN = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def lock_key(workspace_id: str) -> str:
    return f"{PREFIX}:lock:{workspace_id}"


def queued_key(workspace_id: str) -> str:
    return f"{PREFIX}:queued:{workspace_id}"


@dataclass(frozen=True)
class Reservation:
    """What `reserve` found: 'reserved' (marked for the new job), 'running' (`value`: the lock's holder) or
    'queued' (`value`: the waiting job's id; `age`: seconds since that marker was set)."""

    state: str
    value: str
    age: int = 0


def reserve(connection: Redis, requests: list[tuple[str, str, str]]) -> list[Reservation]:
    """For each (workspace id, new job id, stale marker or ''), in one pipeline: mark the workspace for the new
    job if it has neither a marker nor a lock. A marker equal to the stale one given is taken over."""
    with connection.pipeline(transaction=False) as pipe:
        for workspace_id, job_id, replacing in requests:
            pipe.eval(_RESERVE, 2, lock_key(workspace_id), queued_key(workspace_id), job_id, QUEUED_TTL, replacing)
        return [Reservation(_text(state), _text(value), int(age)) for state, value, age in pipe.execute()]


def holder(connection: Redis, workspace_id: str) -> dict[str, Any] | None:
    """Who holds the workspace's lock (host, pid, job, since), or None."""
    raw = connection.get(lock_key(workspace_id))
    return _parse_holder(raw) if raw else None


def _parse_holder(raw: bytes | str) -> dict[str, Any]:
    try:
        value = boundedjson.loads(_text(raw), max_bytes=boundedjson.LINE_BYTES)
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {"token": _text(raw)}


def describe_holder(data: dict[str, Any] | None) -> str:
    if not data:
        return "another job"
    return f"job {data.get('job', '?')} on {data.get('host', '?')} (pid {data.get('pid', '?')})"


def _text(value: bytes | str | None) -> str:
    return value.decode() if isinstance(value, bytes) else (value or "")


class WorkspaceLock:
    """The Redis lock on one workspace for one job, kept fresh by a heartbeat thread while held.

    `lost` becomes a reason once a heartbeat finds the lock gone or someone else's (the process stalled
    past the TTL): the dream is asked to stop after its current batch.
    """

    def __init__(self, connection: Redis, workspace_id: str, *, ttl: float, heartbeat: float) -> None:
        self.connection, self.workspace_id = connection, workspace_id
        self.ttl_ms, self.heartbeat = int(ttl * 1000), heartbeat
        self.held = False
        self.lost = ""
        self._token = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def claim(self, job_id: str) -> bool:
        """Take the lock (and drop this job's queue marker either way); True when it is ours."""
        self._token = json.dumps({"job": job_id, "host": socket.gethostname(), "pid": os.getpid(),
                                  "since": utc_stamp(), "nonce": uuid.uuid4().hex})
        self.held = bool(self.connection.eval(_CLAIM, 2, lock_key(self.workspace_id), queued_key(self.workspace_id),
                                              self._token, self.ttl_ms, job_id))
        if self.held:
            self._thread = threading.Thread(target=self._beat, name="nanodream-fleet-heartbeat", daemon=True)
            self._thread.start()
        return self.held

    def stop_reason(self) -> str:
        return self.lost

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat):
            try:
                kept = self.connection.eval(_REFRESH, 1, lock_key(self.workspace_id), self._token, self.ttl_ms)
            except RedisError:
                continue  # Redis away for a moment: the next beat tries again; the TTL decides
            if not kept:
                self.lost = ("the workspace's fleet lock expired while this job held it (stalled longer than "
                             "lock_ttl?); stopping after the current batch")
                return

    def release(self) -> None:
        """Stop the heartbeat and delete the lock if it is still ours."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.held:
            with contextlib.suppress(RedisError):  # it expires within the TTL anyway
                self.connection.eval(_DELETE_OWN, 1, lock_key(self.workspace_id), self._token)
            self.held = False
