"""`nanodream fleet enqueue|worker|status`: many workspaces dreamed by RQ workers through Redis (docs/fleet.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from nanodream.commands.common import JsonOption, concluded, console
from nanodream.controls import visible

if TYPE_CHECKING:
    from nanodream.api import FleetStatus

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
    from nanodream import api

    report = api.fleet_enqueue(roots, redis_url=redis_url, queue=queue, config=config)
    concluded(report, as_json, lambda done: console.print(visible(done.sweep.describe()), highlight=False,
                                                           markup=False))  # a skipped tenant's reason: its paths


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
    from nanodream import api

    # a Redis that goes away later ends the worker the same way: exit 69
    concluded(api.fleet_worker(redis_url=redis_url, queue=queue, config=config, burst=burst), False,
              lambda done: None)


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
    from nanodream import api

    concluded(api.fleet_status(redis_url=redis_url, queue=queue), as_json, _render_status)


def _render_status(report: FleetStatus) -> None:
    console.print(f"queue {report.queue}: {report.queued} queued · {report.started} started · "
                  f"{report.finished} finished · {report.failed} failed", highlight=False)
    if report.failures:
        console.print("failing workspaces, newest first:", highlight=False)
    for failure in report.failures:
        console.print(f"  {failure.at}  {escape(failure.workspace)}: {escape(failure.reason)}", highlight=False)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="fleet")
