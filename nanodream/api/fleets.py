"""The fleet: enqueueing due workspaces, a worker, the queue's status (the `fleet` extra, Redis)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from nanodream.api.acting import action
from nanodream.api.reports import (
    FleetFailure,
    FleetStatus,
    FleetSweep,
)
from nanodream.vocab import ExitCode, Refused, Report

if TYPE_CHECKING:
    from redis import Redis

    from nanodream.fleet.config import FleetConfig


@action()
def fleet_enqueue(roots: list[Path], *, redis_url: str, queue: str, config: Path | None = None) -> FleetSweep:
    """Enqueue one job per due workspace under `roots` (never a second while one waits or runs)."""
    _fleet_extra()
    from rq import Queue

    from nanodream import clock
    from nanodream.fleet.sweep import sweep

    missing = [str(root) for root in roots if not root.is_dir()]
    if missing:
        raise Refused(f"not a directory: {', '.join(missing)}", exit_code=ExitCode.USAGE)
    settings = _fleet_config(config)
    with _redis(redis_url) as connection:
        return FleetSweep(sweep=sweep(roots, settings, Queue(queue, connection=connection), clock.now()))


@action()
def fleet_worker(*, redis_url: str, queue: str, config: Path | None = None, burst: bool = False) -> Report:
    """An RQ worker: each job dreams one workspace in a fork; until stopped, or (`burst`) the queue is empty. A
    Redis that goes away, then or later, is refused with exit 69."""
    _fleet_extra()
    from nanodream.fleet.jobs import run_worker

    settings = _fleet_config(config)
    with _redis(redis_url) as connection:
        run_worker(connection, queue, settings, burst=burst)
    return Report()


@action()
def fleet_status(*, redis_url: str, queue: str) -> FleetStatus:
    """The queue's job counts and, per failing workspace, its latest failure."""
    _fleet_extra()
    from rq import Queue

    from nanodream.fleet.status import fleet_status as counted

    with _redis(redis_url) as connection:
        data = counted(Queue(queue, connection=connection))
    return FleetStatus(**{**data, "failures": [FleetFailure(**failure) for failure in data["failures"]]})


def _fleet_extra() -> None:
    try:
        import redis  # noqa: F401
        import rq  # noqa: F401
    except ImportError:
        raise Refused("the fleet commands need rq and redis: pip install 'nanodream[fleet]'",
                      exit_code=ExitCode.USAGE) from None


@contextmanager
def _redis(url: str) -> Iterator[Redis]:
    """A checked connection; any Redis failure in the block is refused with exit 69 (EX_UNAVAILABLE)."""
    from redis.exceptions import RedisError

    from nanodream.fleet.connection import RedisUnavailable, connect, unavailable

    try:
        yield connect(url)
    except RedisUnavailable as exc:
        raise Refused(str(exc), exit_code=ExitCode.UNAVAILABLE) from None
    except RedisError as exc:
        raise Refused(str(unavailable(url, exc)), exit_code=ExitCode.UNAVAILABLE) from None


def _fleet_config(path: Path | None) -> FleetConfig:
    from nanodream.config import ConfigError
    from nanodream.fleet.config import load_fleet_config

    try:
        return load_fleet_config(path)
    except ConfigError as exc:
        raise Refused(f"fleet config: {exc}", exit_code=ExitCode.USAGE) from None
