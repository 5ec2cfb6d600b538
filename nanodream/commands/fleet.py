"""`nanodream fleet enqueue|worker|status`: many workspaces dreamed by RQ workers through Redis (docs/fleet.md)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from nanodream.commands.common import JsonOption, console, emit_json, fail
from nanodream.controls import visible
from nanodream.vocab import ExitCode

if TYPE_CHECKING:
    from redis import Redis

    from nanodream.fleet.config import FleetConfig

DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
DEFAULT_QUEUE = "nanodream"

app = typer.Typer(
    help="Dream many workspaces on a queue: RQ workers through Redis (needs the fleet extra: rq, redis).\n\n"
         "\b\nExamples:\n"
         "  nanodream fleet enqueue /srv/agents          # from cron, every few minutes\n"
         "  nanodream fleet worker                       # on each worker machine\n"
         "  nanodream fleet status --json",
    no_args_is_help=True)

RedisOption = Annotated[str, typer.Option(
    "--redis", envvar="NANODREAM_REDIS_URL", show_envvar=True,
    help="Redis URL; prefer the environment variable when it holds a password (process lists show flags).")]
QueueOption = Annotated[str, typer.Option("--queue", help="The RQ queue.")]
ConfigOption = Annotated[Path | None, typer.Option(
    "--config", envvar="NANODREAM_FLEET_CONFIG", show_envvar=True,
    help="Fleet config (TOML): model, api_base, api_key_env, quotas, and which workspace keys apply.")]


def _need_the_extra(as_json: bool = False) -> None:
    try:
        import redis  # noqa: F401
        import rq  # noqa: F401
    except ImportError:
        fail("the fleet commands need rq and redis: pip install 'nanodream[fleet]'", as_json=as_json)


@contextmanager
def _redis(url: str, as_json: bool = False) -> Iterator[Redis]:
    """A checked connection; any Redis failure in the block ends the command with one line and exit 69."""
    from redis.exceptions import RedisError

    from nanodream.fleet.connection import RedisUnavailable, connect, unavailable

    try:
        yield connect(url)
    except RedisUnavailable as exc:
        fail(str(exc), ExitCode.UNAVAILABLE, as_json=as_json)
    except RedisError as exc:
        fail(str(unavailable(url, exc)), ExitCode.UNAVAILABLE, as_json=as_json)


def _config(path: Path | None, as_json: bool = False) -> FleetConfig:
    from nanodream.config import ConfigError
    from nanodream.fleet.config import load_fleet_config

    try:
        return load_fleet_config(path)
    except ConfigError as exc:
        fail(f"fleet config: {exc}", as_json=as_json)


@app.command()
def enqueue(
    roots: Annotated[list[Path], typer.Argument(help="Directories to search for workspaces.", show_default=False)],
    redis_url: RedisOption = DEFAULT_REDIS,
    queue: QueueOption = DEFAULT_QUEUE,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """Enqueue one job per due workspace under ROOTS (never a second while one waits or runs). For cron.

    \b
    Examples:
      nanodream fleet enqueue /srv/agents --queue nightly
      NANODREAM_REDIS_URL=redis://:secret@redis:6379/0 nanodream fleet enqueue /srv/agents
    """
    _need_the_extra(as_json)
    from rq import Queue

    from nanodream.fleet.sweep import sweep
    from nanodream.scheduling.hostbusy import utc_now

    missing = [str(root) for root in roots if not root.is_dir()]
    if missing:
        fail(f"not a directory: {', '.join(missing)}", as_json=as_json)
    settings = _config(config, as_json)
    with _redis(redis_url, as_json) as connection:
        report = sweep(roots, settings, Queue(queue, connection=connection), utc_now())
    if as_json:
        emit_json(report.to_dict())
    else:
        console.print(visible(report.describe()), highlight=False, markup=False)


@app.command()
def worker(
    redis_url: RedisOption = DEFAULT_REDIS,
    queue: QueueOption = DEFAULT_QUEUE,
    config: ConfigOption = None,
    burst: Annotated[bool, typer.Option("--burst", help="Exit once the queue is empty.")] = False,
) -> None:
    """Run an RQ worker: each job dreams one workspace, in a fork, under its Redis lock and workspace lock.

    \b
    Examples:
      nanodream fleet worker --config /etc/nanodream/fleet.toml
      nanodream fleet worker --burst      # exit once the queue is empty
    """
    _need_the_extra()
    from nanodream.fleet.jobs import run_worker

    settings = _config(config)
    with _redis(redis_url) as connection:  # a Redis that goes away later ends the worker the same way: exit 69
        run_worker(connection, queue, settings, burst=burst)


@app.command()
def status(
    redis_url: RedisOption = DEFAULT_REDIS,
    queue: QueueOption = DEFAULT_QUEUE,
    as_json: JsonOption = False,
) -> None:
    """Jobs queued, started, finished and failed, and each failing workspace's latest reason.

    \b
    Examples:
      nanodream fleet status
      nanodream fleet status --json
    """
    _need_the_extra(as_json)
    from rq import Queue

    from nanodream.fleet.status import fleet_status

    with _redis(redis_url, as_json) as connection:
        data = fleet_status(Queue(queue, connection=connection))
    if as_json:
        emit_json(data)
    else:
        _render_status(data)


def _render_status(data: dict[str, Any]) -> None:
    console.print(f"queue {data['queue']}: {data['queued']} queued · {data['started']} started · "
                  f"{data['finished']} finished · {data['failed']} failed", highlight=False)
    if data["failures"]:
        console.print("failing workspaces, newest first:", highlight=False)
    for failure in data["failures"]:
        console.print(f"  {failure['at']}  {escape(failure['workspace'])}: {escape(failure['reason'])}",
                      highlight=False)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="fleet")
