"""The host agent's "busy" file: while it serves a user turn, scheduled dreams wait instead of competing.

Protocol (docs/locking.md): the host writes `.nanodream/host.busy` atomically (temp file + rename) with
`{"pid": <int>, "host": <hostname>, "since": <ISO-8601>, "expires": <ISO-8601>}` when a turn starts,
refreshes `expires` during long turns, and deletes the file when the turn ends. The file is stale — ignored,
as if absent — once `expires` has passed, or when `host` is this machine (or absent) and `pid` is not a live
process, so a crashed host never blocks dreams for longer than its expiry. A file that cannot be parsed
counts as busy until it is MAX_AGE old: it may be a host that writes without a rename, caught mid-write.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from nanodream import boundedjson, clock
from nanodream.atomic import atomic_write, read_bytes
from nanodream.workspace import Workspace

DEFAULT_TTL = timedelta(minutes=10)
MAX_BYTES = 64 * 1024  # a claim is a few dozen bytes
MAX_AGE = timedelta(minutes=10)


@dataclass(frozen=True)
class HostBusy:
    """A live claim by the host agent."""

    pid: int | None
    since: datetime | None
    expires: datetime | None

    def describe(self) -> str:
        who = f"pid {self.pid}" if self.pid else "unknown process"
        until = f", claim expires {self.expires.isoformat(timespec='seconds')}" if self.expires else ""
        return f"the host agent is serving a user turn ({who}{until})"


def busy_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "host.busy"


def read_host_busy(workspace: Workspace, now: datetime | None = None) -> HostBusy | None:
    """The host's live claim, or None when there is none or it is stale."""
    now = now or clock.now()
    path = busy_file(workspace)
    try:
        raw = read_bytes(path, MAX_BYTES + 1)
        modified = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except FileNotFoundError:
        return None
    except OSError:
        raw, modified = b"", now
    try:
        data = boundedjson.loads(raw, max_bytes=MAX_BYTES)
        pid, since, expires = data["pid"], _parse_time(data.get("since")), _parse_time(data["expires"])
        if not isinstance(pid, int) or isinstance(pid, bool) or expires is None:
            raise ValueError
    except (ValueError, KeyError, TypeError):
        return None if now - modified > MAX_AGE else HostBusy(None, None, None)
    if expires <= now or not _alive(pid, data.get("host")):
        return None
    return HostBusy(pid, since, expires)


def _parse_time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _alive(pid: int, host: object) -> bool:
    """Whether `pid` runs here; a claim written on another machine (shared folder) is trusted to its expiry."""
    if isinstance(host, str) and host and host != socket.gethostname():
        return True
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, owned by someone else
    return True


def _no_stop() -> str:
    return ""


@dataclass(frozen=True)
class HostWait:
    """How a run gives way to the host agent: how long to wait, and the clock, sleep and stop it waits with."""

    wait: float | None = None  # seconds; None: the host_wait setting
    clock: Callable[[], datetime] = clock.now
    sleep: Callable[[float], object] = time.sleep
    stop: Callable[[], str] = _no_stop  # a reason to give up now, or ''
    on_wait: Callable[[HostBusy], None] = lambda claim: None


def wait_until_idle(workspace: Workspace, waiting: HostWait, *, limit: float, poll: float) -> HostBusy | None:
    """Poll every `poll` seconds for up to `limit` seconds; None once the host is idle, else its last claim."""
    deadline = waiting.clock() + timedelta(seconds=limit)
    busy = read_host_busy(workspace, waiting.clock())
    if busy is not None:
        waiting.on_wait(busy)
    while busy is not None:
        left = (deadline - waiting.clock()).total_seconds()
        if left <= 0 or waiting.stop():
            return busy
        waiting.sleep(min(poll, left))
        busy = read_host_busy(workspace, waiting.clock())
    return None


@contextlib.contextmanager
def host_turn(workspace: Workspace, ttl: timedelta = DEFAULT_TTL) -> Iterator[Callable[[], None]]:
    """Hold the busy file for a user turn (for Python hosts); yields a function that extends the claim."""
    def claim() -> None:
        now = clock.now()
        atomic_write(busy_file(workspace), json.dumps({
            "pid": os.getpid(), "host": socket.gethostname(), "since": started.isoformat(timespec="seconds"),
            "expires": (now + ttl).isoformat(timespec="seconds"),
        }) + "\n")

    started = clock.now()
    claim()
    try:
        yield claim
    finally:
        with contextlib.suppress(FileNotFoundError):
            busy_file(workspace).unlink()
