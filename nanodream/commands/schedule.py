"""`nanodream schedule`: dream when due, in the foreground, until SIGINT/SIGTERM; or print a cron/systemd snippet."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import (
    ModelOption,
    WorkspaceOption,
    concluded,
    err_console,
    fail,
    resolve_settings,
    resolve_workspace,
)
from nanodream.controls import visible
from nanodream.vocab import ExitCode

if TYPE_CHECKING:
    from nanodream.api import Decision


def schedule(
    workspace: WorkspaceOption = None,
    cron: Annotated[str | None, typer.Option("--cron", help='Cron expression, e.g. "0 */4 * * *".')] = None,
    every: Annotated[str | None, typer.Option("--every", help="Fixed interval, e.g. 4h, 90m, 1h30m.")] = None,
    initial_delay: Annotated[str | None, typer.Option(
        "--initial-delay", help="Never run sooner than this after start-up, e.g. 5m.")] = None,
    timezone: Annotated[str | None, typer.Option(
        "--timezone", help="IANA time zone for cron times (default: the timezone setting, UTC).",
        show_default=False)] = None,
    model: ModelOption = None,
    max_batches: Annotated[int | None, typer.Option("--max-batches", min=1, help="Stop each run after N batches.")]
    = None,
    print_crontab: Annotated[bool, typer.Option("--print-crontab", help="Print a crontab line and exit.")] = False,
    print_systemd: Annotated[bool, typer.Option("--print-systemd", help="Print systemd units and exit.")] = False,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Log one JSON object per line (with --print-*: one object holding the snippet).")] = False,
) -> None:
    """Run dreams on a schedule (default: `schedule` in nanodream.toml) until stopped with Ctrl-C or SIGTERM.

    \b
    Examples:
      nanodream schedule --every 4h                           # in the foreground
      nanodream schedule --cron "0 3 * * *" --print-crontab   # a line for crontab -e
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    settings = resolve_settings(ws, {"model": model, "timezone": timezone}, as_json=as_json)
    if cron and every:
        fail("pass --cron or --every, not both", as_json=as_json)
    if print_crontab and print_systemd:
        fail("pass --print-crontab or --print-systemd, not both", as_json=as_json)
    plan = api.schedule_plan(ws, settings, cron=cron, every=every, initial_delay=initial_delay)
    if plan.timetable is None:
        concluded(plan, as_json, lambda report: None)
    if print_crontab or print_systemd:
        extra = (["--model", model] if model else []) + (["--max-batches", str(max_batches)] if max_batches else [])
        snippet = api.schedule_snippet(ws, plan, "crontab" if print_crontab else "systemd", extra)
        concluded(snippet, as_json, lambda report: typer.echo(report.text, nl=False))

    def log(decision: Decision) -> None:
        if as_json:
            typer.echo(json.dumps(decision.to_json(), default=str))
        else:
            typer.echo(f"{decision.at.astimezone(plan.timetable.tz).isoformat(timespec='seconds')} "
                       f"{visible(decision.message)}")

    with api.GracefulStop(on_first=_announce_stop) as stop:
        try:
            api.schedule(ws, plan, settings, max_batches=max_batches, stop=stop, log=log)
        except KeyboardInterrupt:
            fail("abandoned: the batch in progress was discarded (or finished from its journal); "
                 "the workspace is consistent", ExitCode.INTERRUPTED, as_json=as_json)


def _announce_stop(name: str) -> None:
    err_console.print(f"[yellow]{name}:[/yellow] stopping after the current batch; send it again to abandon the batch",
                      highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(schedule)
