"""`nanodream prompt`: which dream prompt is active, what the next session would send, and overrides.

A sub-app: `show` (also what a bare `nanodream prompt` runs; `--rendered` previews the next request),
`init` and `reset`. Options given before the subcommand (`nanodream prompt -w WS init`) apply to it as
well. Never calls a model and never imports litellm: a preview must be instant and free.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import (
    JsonOption,
    WorkspaceOption,
    concluded,
    console,
    emit_json,
    fail,
    inherited,
    resolve_settings,
    resolve_workspace,
    say,
)
from nanodream.controls import visible
from nanodream.vocab import Outcome, count_entries

if TYPE_CHECKING:
    from nanodream.api import PromptInfo, PromptInitReport, RenderedRequest, Workspace


prompt_app = typer.Typer(no_args_is_help=False)


@prompt_app.callback(invoke_without_command=True)
def prompt(ctx: typer.Context, workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Show, customise or reset the dream prompt: which is active and where it comes from (`show`).

    \b
    Examples:
      nanodream prompt
      nanodream prompt show --rendered   # exactly what the next session would send
    """
    if ctx.invoked_subcommand is None:
        show(ctx, workspace=workspace, rendered=False, tidy=False, as_json=as_json)


@prompt_app.command()
def show(
    ctx: typer.Context,
    workspace: WorkspaceOption = None,
    rendered: Annotated[bool, typer.Option(
        "--rendered", help="Print the full request of the next batch (system + user message) and its size.",
    )] = False,
    tidy: Annotated[bool, typer.Option("--tidy", help="With --rendered: preview a tidy pass instead.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Show the active prompt, where it comes from, and its text (or, --rendered, the next request).

    \b
    Examples:
      nanodream prompt show --rendered --json
    """
    from nanodream import api

    ws_option, as_json = inherited(ctx, workspace, as_json)
    ws = resolve_workspace(ws_option, as_json=as_json)
    if tidy and not rendered:
        fail("--tidy only applies with --rendered", as_json=as_json)
    if rendered:
        _show_rendered(ws, tidy=tidy, as_json=as_json)
        return
    concluded(api.prompt(ws), as_json, lambda report: render_info(report.info))


def render_info(info: PromptInfo) -> None:
    for text in describe(info):
        say(text)
    console.rule(style="dim")
    say(info.text.rstrip("\n"))


@prompt_app.command()
def init(ctx: typer.Context, workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Copy the built-in prompt to prompts/dream.md to customise it (never overwrites text already there).

    \b
    Examples:
      nanodream prompt init -w ~/agent   # then edit prompts/dream.md
    """
    from nanodream import api

    ws_option, as_json = inherited(ctx, workspace, as_json)
    ws = resolve_workspace(ws_option, as_json=as_json)

    def render(report: PromptInitReport) -> None:
        say(f"created {report.created} from the built-in prompt; edit it and the next dream uses it")
        say("(the next dream run commits it to the memory history with your edits)")

    concluded(api.prompt_init(ws), as_json, render)


@prompt_app.command()
def reset(
    ctx: typer.Context,
    workspace: WorkspaceOption = None,
    force: Annotated[bool, typer.Option("--force", help="Delete it even if its edits are not committed.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Remove prompts/dream.md so the built-in prompt is used again.

    \b
    Examples:
      nanodream prompt reset -w ~/agent
    """
    from nanodream import api
    from nanodream.api import OVERRIDE

    ws_option, as_json = inherited(ctx, workspace, as_json)
    ws = resolve_workspace(ws_option, as_json=as_json)
    concluded(api.prompt_reset(ws, force=force), as_json, lambda report: say(
        f"removed {OVERRIDE}; the built-in prompt is active" if report.removed
        else f"no {OVERRIDE} here; the built-in prompt is already active"))


def _show_rendered(ws: Workspace, *, tidy: bool, as_json: bool) -> None:
    from nanodream import api

    report = api.rendered_prompt(ws, resolve_settings(ws, as_json=as_json), tidy=tidy)
    if report.request is None and report.outcome == Outcome.NOTHING_TO_DO:
        if as_json:
            emit_json({"nothing_to_send": report.reason})
        else:
            say(f"nothing to send: {report.reason}")
        return
    concluded(report, as_json, lambda done: render_request(done.request))


def render_request(request: RenderedRequest) -> None:
    """The two messages verbatim between rule lines, then what they cost."""
    batch = request.batch
    what = "tidy pass" if batch is None else (
        f"entries {batch.first_cursor}..{batch.last_cursor} ({count_entries(len(batch.entries))})")
    console.rule(f"system · {request.prompt_source} prompt", style="dim")
    typer.echo(visible(request.system.rstrip("\n")))
    console.rule(f"user · {what}", style="dim")
    typer.echo(visible(request.user.rstrip("\n")))
    console.rule(style="dim")
    parts = request.token_breakdown
    fixed = parts["system"] + parts["memory"] + parts["skills"]
    payload = "tidy notice" if batch is None else "history"
    say(f"~{request.estimated_tokens} tokens (chars/4): fixed {fixed} = system {parts['system']} + memory "
         f"{parts['memory']} + skills {parts['skills']} · signals {parts['signals']} · {payload} {parts['history']}")
    for note in request.notes:
        say(f"note: {note}")


def describe(info: PromptInfo) -> list[str]:
    """Where the active prompt comes from, and why an override is or is not in use."""
    from nanodream.api import OVERRIDE

    lines = [f"active prompt: {info.source}" + (" (workspace override)" if info.source != "built-in" else ""),
             f"file:          {info.path} ({info.chars} chars, {info.lines} lines)"]
    notes = {
        "absent": f"customise it with `nanodream prompt init` (copies it to {OVERRIDE})",
        "empty": f"{OVERRIDE} exists but is empty, so the built-in prompt is used",
        "symlink": f"{OVERRIDE} is a symlink and is ignored; the built-in prompt is used",
        "not-a-file": f"{OVERRIDE} is not a file and is ignored; the built-in prompt is used",
        "active": ("it is identical to the built-in prompt" if info.override_identical_to_builtin
                   else "it differs from the built-in prompt; `nanodream prompt reset` goes back to the built-in one"),
    }
    lines.append(notes[info.override_state])
    return lines


def register(app: typer.Typer) -> None:
    app.add_typer(prompt_app, name="prompt")
