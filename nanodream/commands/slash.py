"""`nanodream slash "<text>"`: answer a host agent's slash command with markdown on stdout."""

from __future__ import annotations

from typing import Annotated

import typer

from nanodream.commands.common import JsonOption, ModelOption, WorkspaceOption, emit_json, resolve_workspace


def slash(
    text: Annotated[str, typer.Argument(help='The command as typed, e.g. "/dream-log" or "/dream-restore abc1234".',
                                        show_default=False)],
    workspace: WorkspaceOption = None,
    model: ModelOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer /dream, /dream-log, /dream-restore or /dream-prompt with markdown (for host agents).

    \b
    Examples:
      nanodream slash "/dream-log"
      nanodream slash "/dream-restore 3f2a9c1e" -w ~/agent
      nanodream slash "/dream" --json                 # the markdown plus the run's result
    """
    from nanodream.slash import respond

    ws = resolve_workspace(workspace, must_exist=False)  # a missing workspace is answered in markdown too
    reply = respond(ws.root, text, **({"model": model} if model else {}))
    if as_json:
        emit_json(reply.to_json())
    else:
        typer.echo(reply.markdown)
    raise typer.Exit(reply.exit_code)


def register(app: typer.Typer) -> None:
    app.command()(slash)
