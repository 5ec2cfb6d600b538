"""`nanodream prompt show`: the active dream prompt, or exactly what the next session would send.

Never calls a model and never imports litellm: a preview must be instant and free.
"""

from __future__ import annotations

from typing import Annotated

import typer

from nanodream.commands.common import (
    EXIT_USAGE,
    JsonOption,
    WorkspaceOption,
    console,
    emit_json,
    err_console,
    fail,
    resolve_settings,
    resolve_workspace,
)
from nanodream.prompt import NothingToSend, RenderedRequest, active_prompt, render_next_request

prompt_app = typer.Typer(help="Inspect the dream prompt.", no_args_is_help=False)


@prompt_app.callback(invoke_without_command=True)
def _default(ctx: typer.Context) -> None:
    """Inspect the dream prompt (default: show)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(show)


@prompt_app.command()
def show(
    workspace: WorkspaceOption = None,
    rendered: Annotated[bool, typer.Option(
        "--rendered", help="Print the full request of the next batch (system + user message) and its size.",
    )] = False,
    tidy: Annotated[bool, typer.Option("--tidy", help="With --rendered: preview a tidy pass instead.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Show the active dream prompt and where it comes from."""
    ws = resolve_workspace(workspace, as_json=as_json)
    if tidy and not rendered:
        fail("--tidy only applies with --rendered", EXIT_USAGE, as_json=as_json)
    if not rendered:
        prompt = active_prompt(ws)
        if as_json:
            emit_json({"source": prompt.source, "text": prompt.text})
            return
        err_console.print(f"[dim]dream prompt: {prompt.source}[/dim]", highlight=False)
        typer.echo(prompt.text, nl=False)
        return
    settings = resolve_settings(ws, as_json=as_json)
    try:
        request = render_next_request(ws, settings, tidy=tidy)
    except NothingToSend as exc:
        if as_json:
            emit_json({"nothing_to_send": str(exc)})
        else:
            console.print(f"nothing to send: {exc}", highlight=False)
        return
    if as_json:
        emit_json(request.to_dict())
        return
    render_request(request)


def render_request(request: RenderedRequest) -> None:
    """The two messages verbatim between rule lines, then what they cost."""
    batch = request.batch
    what = "tidy pass" if batch is None else (
        f"entries {batch.first_cursor}..{batch.last_cursor} ({len(batch.entries)} entries)")
    console.rule(f"system · {request.prompt_source} prompt", style="dim")
    typer.echo(request.system.rstrip("\n"))
    console.rule(f"user · {what}", style="dim")
    typer.echo(request.user.rstrip("\n"))
    console.rule(style="dim")
    parts = request.token_breakdown()
    fixed = parts["system"] + parts["memory"] + parts["skills"]
    payload = "tidy notice" if batch is None else "history"
    console.print(
        f"~{request.estimated_tokens} tokens (chars/4): fixed {fixed} = system {parts['system']} + memory "
        f"{parts['memory']} + skills {parts['skills']} · signals {parts['signals']} · {payload} {parts['history']}",
        highlight=False, soft_wrap=True,
    )
    for note in request.notes:
        console.print(f"[yellow]note:[/yellow] {note}", highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(prompt_app, name="prompt")
