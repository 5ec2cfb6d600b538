"""`nanodream quarantine [list|retry CURSOR]`: entries set aside because they failed even on their own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from nanodream.commands.common import (
    JsonOption,
    ModelOption,
    WorkspaceOption,
    concluded,
    console,
    resolve_settings,
    resolve_workspace,
)

if TYPE_CHECKING:
    from nanodream.api import QuarantineReport

app = typer.Typer()


@app.callback(invoke_without_command=True)
def quarantine(ctx: typer.Context, workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """History entries set aside because they fail even on their own: list them (`quarantine list`), retry.

    \b
    Examples:
      nanodream quarantine
      nanodream quarantine retry 812   # dream history line 812 on its own
    """
    if ctx.invoked_subcommand is None:
        list_entries(workspace, as_json)


@app.command("list")
def list_entries(workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """List quarantined entries: history line and cursor, when, why, and the start of their text.

    \b
    Examples:
      nanodream quarantine list --json
    """
    from nanodream import api

    report = api.quarantine(resolve_workspace(workspace, as_json=as_json))
    concluded(report, as_json, render_quarantine, listed=report.entries)


def render_quarantine(report: QuarantineReport) -> None:
    entries = report.entries
    if not entries:
        console.print("quarantine is empty")
        return
    for e in entries:
        retried = f" · retried {e.retries}x" if e.retries else ""
        console.print(f"{e.describe()}  {e.timestamp}  quarantined {e.quarantined_at}{retried}", highlight=False)
        console.print(f"    {escape(e.preview)}", highlight=False)
        console.print(f"    [dim]{escape(e.reason)}[/dim]", highlight=False)
    console.print(f"retry one with: nanodream quarantine retry {entries[0].line or entries[0].cursor}",
                  highlight=False)


@app.command("retry")
def retry(
    line: Annotated[int, typer.Argument(help="Line of history.jsonl holding the quarantined entry.")],
    workspace: WorkspaceOption = None,
    model: ModelOption = None,
    as_json: JsonOption = False,
) -> None:
    """Dream one quarantined entry on its own; it leaves the quarantine only if that succeeds.

    \b
    Examples:
      nanodream quarantine retry 812
    """
    from nanodream import api
    from nanodream.commands.run import render_report

    ws = resolve_workspace(workspace, as_json=as_json)
    settings = resolve_settings(ws, {"model": model}, as_json=as_json)
    concluded(api.retry_quarantined(ws, line, settings), as_json, render_report, json_report=True)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="quarantine")
