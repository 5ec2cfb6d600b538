"""`nanodream run`: consolidate the backlog now."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.syntax import Syntax

from nanodream.commands.common import (
    JsonOption,
    ModelOption,
    WorkspaceOption,
    console,
    emit_json,
    err_console,
    resolve_settings,
    resolve_workspace,
)
from nanodream.dream import RunReport, run_dream


def run(
    workspace: WorkspaceOption = None,
    model: ModelOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the diff of the next batch; change nothing.")
    ] = False,
    max_batches: Annotated[int | None, typer.Option("--max-batches", min=1, help="Stop after N batches.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Run a dream: fold the history backlog into the memory files and commit the result."""
    ws = resolve_workspace(workspace, as_json=as_json)
    settings = resolve_settings(ws, {"model": model}, as_json=as_json)
    report = run_dream(ws, settings, dry_run=dry_run, max_batches=max_batches)
    if as_json:
        emit_json(report.to_dict())
    else:
        render_report(report)
    raise typer.Exit(report.exit_code)


def render_report(report: RunReport) -> None:
    if report.recovered:
        console.print(f"[yellow]recovered:[/yellow] {report.recovered}", highlight=False)
    if report.manual_commit:
        console.print(f"committed your hand edits first as {report.manual_commit[:8]}", highlight=False)
    for batch in report.batches:
        span = f"#{batch.first_cursor}..#{batch.last_cursor} ({batch.entries} entries)"
        if batch.outcome == "committed":
            console.print(f"[green]✓[/green] {span} → commit {batch.commit[:8] if batch.commit else '?'}",
                          highlight=False)
        elif batch.outcome == "no-change":
            console.print(f"[green]✓[/green] {span} → nothing worth keeping; cursor advanced", highlight=False)
        elif batch.outcome == "dry-run":
            console.print(f"[cyan]dry run[/cyan] {span}: nothing was changed", highlight=False)
        for line in batch.changes:
            console.print(f"    {line}", highlight=False)
        for warning in batch.warnings:
            console.print(f"    [yellow]warning:[/yellow] {warning}", highlight=False)
        if batch.summary and batch.outcome != "failed":
            console.print(f"    [dim]{batch.summary.splitlines()[0]}[/dim]", highlight=False)
        if batch.diff:
            console.print(Syntax(batch.diff, "diff", theme="ansi_dark"))
    if report.malformed_lines:
        console.print(f"skipped {report.malformed_lines} malformed history line(s)", highlight=False)
    cost = "unknown" if report.cost is None else f"${report.cost:.4f}"
    if report.tokens_in or report.tokens_out:
        console.print(f"tokens in {report.tokens_in} · out {report.tokens_out} · cost {cost}", highlight=False)
    if report.outcome == "failed":
        err_console.print(f"[red]✗ dream failed:[/red] {report.reason} (workspace unchanged for this batch)",
                          highlight=False)
    elif report.outcome == "busy":
        err_console.print(f"[yellow]busy:[/yellow] {report.reason}", highlight=False)
    elif report.outcome == "nothing-to-do":
        console.print("nothing to do: the backlog is empty")
    elif report.reason:
        console.print(report.reason, highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(run)
