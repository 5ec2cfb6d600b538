"""`nanodream init`: scaffold a workspace and its memory repository; never overwrite anything."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from nanodream.commands.common import JsonOption, concluded, console


def init(
    directory: Annotated[Path, typer.Argument(help="Workspace directory to create or complete.")] = Path("."),
    example: Annotated[bool, typer.Option("--example", help="Fill it with the example agent workspace.")] = False,
    from_remote: Annotated[str | None, typer.Option(
        "--from", help="A memory remote (git URL or path): the new workspace's memory comes from it, origin set to "
                       "it (docs/sync.md).", show_default=False)] = None,
    as_json: JsonOption = False,
) -> None:
    """Create a workspace (nanobot-compatible layout) with its own git repository.

    \b
    Examples:
      nanodream init ~/agent               # scaffold, or add git to an existing nanobot workspace
      nanodream init /tmp/demo --example   # a workspace with example memory and history
      nanodream init ~/agent --from git@example.com:me/agent-memory.git   # memory another machine keeps
    """
    from nanodream import api

    def render(report: api.InitReport) -> None:
        console.print(f"Workspace ready at [bold]{escape(report.workspace)}[/bold]", highlight=False)
        if report.remote:
            fetched = f" at {report.fetched[:8]}" if report.fetched else " (empty: the first sync fills it)"
            console.print(f"  memory from {report.remote}{fetched}", markup=False, highlight=False)
        for line in report.held:
            console.print(f"  held for review: {line}", markup=False, highlight=False)
        for line in report.left_out:
            console.print(f"  left out: {line}", markup=False, highlight=False)
        for rel in report.created:
            console.print(f"  created {rel}", markup=False, highlight=False)
        if not report.created and not report.remote:
            console.print("  (everything was already there; nothing overwritten)")
        ingest = "" if example else f"nanodream ingest -w {directory} <transcripts>, then "  # a backlog to dream
        console.print(f"Next: {ingest}nanodream run -w {directory}", markup=False, highlight=False)

    concluded(api.init(directory, example=example, from_remote=from_remote), as_json, render)


def register(app: typer.Typer) -> None:
    app.command()(init)
