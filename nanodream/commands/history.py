"""`nanodream history`: the lines of history.jsonl that are not entries, and acknowledging them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import (
    JsonOption,
    WorkspaceOption,
    concluded,
    console,
    fail,
    resolve_workspace,
)
from nanodream.vocab import numbered

if TYPE_CHECKING:
    from nanodream.api import AckReport, DeadLettersReport

app = typer.Typer()


@app.callback(invoke_without_command=True)
def history(ctx: typer.Context, workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Malformed history lines (dead letters): list them (same as `history list`), acknowledge them once seen.

    \b
    Examples:
      nanodream history
      nanodream history ack 17 18   # seen; stop listing them
    """
    if ctx.invoked_subcommand is None:
        list_letters(workspace, as_json)


@app.command("list")
def list_letters(workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """List unacknowledged malformed lines: line number, why, and the start of the line as stored.

    \b
    Examples:
      nanodream history list --json
    """
    from nanodream import api

    report = api.dead_letters(resolve_workspace(workspace, as_json=as_json))
    concluded(report, as_json, render_letters, listed=report.letters)


def render_letters(report: DeadLettersReport) -> None:
    letters = report.letters
    if not letters:
        console.print("no malformed history lines waiting")
        return
    for letter in letters:
        console.print(f"history.jsonl line {letter.line}: {letter.reason}", markup=False, highlight=False)
        console.print(f"    {letter.raw[:120]}", markup=False, highlight=False)
    console.print("once fixed or seen: nanodream history ack LINE... (or --all)", markup=False, highlight=False)


@app.command("ack")
def ack(
    lines: Annotated[list[int] | None, typer.Argument(help="Line numbers to acknowledge.", show_default=False)] = None,
    all_lines: Annotated[bool, typer.Option("--all", help="Acknowledge every malformed line.")] = False,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Acknowledge malformed lines: `status` stops listing them (they stay in nanodream's dead-letter list).

    \b
    Examples:
      nanodream history ack 17 18
      nanodream history ack --all
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    if not lines and not all_lines:
        fail("name the line numbers to acknowledge, or --all", as_json=as_json)
    concluded(api.acknowledge(ws, None if all_lines else list(lines or ())), as_json, render_ack)


def render_ack(report: AckReport) -> None:
    done, missing = report.acknowledged, report.not_found
    if done:
        console.print(f"acknowledged {numbered('line', done)}", highlight=False)
    if missing:
        console.print(f"nothing acknowledged for {numbered('line', missing)}: history.jsonl holds no malformed line "
                      "nanodream knows of there (nanodream history lists them)", highlight=False)
    if not done and not missing:
        console.print("no malformed history lines to acknowledge", highlight=False)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="history")
