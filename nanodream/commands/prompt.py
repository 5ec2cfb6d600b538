"""`nanodream prompt`: which dream prompt is active, and starting or dropping a workspace override.

A sub-app: `show` (also what a bare `nanodream prompt` runs), `init` and `reset`. Options given before
the subcommand (`nanodream prompt -w WS init`) apply to it as well.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nanodream.commands.common import (
    JsonOption,
    WorkspaceOption,
    console,
    emit_json,
    fail,
    resolve_workspace,
)
from nanodream.prompt_override import OVERRIDE, PromptError, PromptInfo, init_override, prompt_info, reset_override

EXIT_REFUSED = 1

prompt_app = typer.Typer(help="Show, customise or reset the dream prompt.", no_args_is_help=False)


@prompt_app.callback(invoke_without_command=True)
def prompt(ctx: typer.Context, workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Show which dream prompt is active and where it comes from (`show`), or start/drop an override."""
    if ctx.invoked_subcommand is None:
        show(ctx, workspace=workspace, as_json=as_json)


@prompt_app.command()
def show(ctx: typer.Context, workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Show the active prompt, where it comes from, and its text."""
    ws_option, as_json = _inherited(ctx, workspace, as_json)
    info = prompt_info(resolve_workspace(ws_option, as_json=as_json))
    if as_json:
        emit_json(info.to_dict())
        return
    for text in describe(info):
        _say(text)
    console.rule(style="dim")
    _say(info.text.rstrip("\n"))


@prompt_app.command()
def init(ctx: typer.Context, workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Copy the built-in prompt to prompts/dream.md to customise it (never overwrites text already there)."""
    ws_option, as_json = _inherited(ctx, workspace, as_json)
    ws = resolve_workspace(ws_option, as_json=as_json)
    try:
        path = init_override(ws)
    except PromptError as exc:
        fail(str(exc), EXIT_REFUSED, as_json=as_json)
    if as_json:
        emit_json({"created": path, "source": OVERRIDE})
        return
    _say(f"created {path} from the built-in prompt; edit it and the next dream uses it")
    _say("(the next dream run commits it to the memory history with your edits)")


@prompt_app.command()
def reset(
    ctx: typer.Context,
    workspace: WorkspaceOption = None,
    force: Annotated[bool, typer.Option("--force", help="Delete it even if its edits are not committed.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Remove prompts/dream.md so the built-in prompt is used again."""
    ws_option, as_json = _inherited(ctx, workspace, as_json)
    ws = resolve_workspace(ws_option, as_json=as_json)
    try:
        removed = reset_override(ws, force=force)
    except PromptError as exc:
        fail(str(exc), EXIT_REFUSED, as_json=as_json)
    if as_json:
        emit_json({"removed": removed, "source": "built-in"})
        return
    _say(f"removed {OVERRIDE}; the built-in prompt is active" if removed
         else f"no {OVERRIDE} here; the built-in prompt is already active")


def describe(info: PromptInfo) -> list[str]:
    """Where the active prompt comes from, and why an override is or is not in use."""
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


def _inherited(ctx: typer.Context, workspace: Path | None, as_json: bool) -> tuple[Path | None, bool]:
    """Options given to `nanodream prompt` itself count for its subcommand too."""
    parent = ctx.parent.params if ctx.parent is not None and ctx.parent.command.name == "prompt" else {}
    return workspace or parent.get("workspace"), as_json or bool(parent.get("as_json"))


def _say(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.add_typer(prompt_app, name="prompt")
