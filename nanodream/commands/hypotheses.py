"""`nanodream hypotheses`: the inferred lines still marked, and a person's decision on each."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import JsonOption, WorkspaceOption, concluded, console, inherited, resolve_workspace, say

if TYPE_CHECKING:
    from nanodream.api import DecisionReport, HypothesesReport

app = typer.Typer()
LineArgument = Annotated[str, typer.Argument(metavar="LINE", show_default=False, help=(
    "The line as `hypotheses` lists it: PATH:LINE (e.g. USER.md:7), or its number when one file alone has a "
    "hypothesis there."))]


@app.callback(invoke_without_command=True)
def hypotheses(ctx: typer.Context, workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Inferred preferences still marked as hypotheses: list them (same as `hypotheses list`), or decide one.

    \b
    Examples:
      nanodream hypotheses
      nanodream hypotheses promote USER.md:7     # it is true: a plain preference now
      nanodream hypotheses reject USER.md:9      # it is wrong: gone, and never added again
    """
    if ctx.invoked_subcommand is None:
        list_hypotheses(ctx, workspace, as_json)


@app.command("list")
def list_hypotheses(ctx: typer.Context, workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Each hypothesis: where it is, its sightings against what its tone needs, and whether it is stale.

    \b
    Examples:
      nanodream hypotheses list --json
    """
    from nanodream import api

    workspace, as_json = inherited(ctx, workspace, as_json)
    concluded(api.hypotheses(resolve_workspace(workspace, as_json=as_json)), as_json, render_list)


@app.command("reinforce")
def reinforce(ctx: typer.Context, line: LineArgument, workspace: WorkspaceOption = None,
              as_json: JsonOption = False) -> None:
    """Count one more sighting: promoted to a plain line once its tone's threshold is reached.

    \b
    Examples:
      nanodream hypotheses reinforce USER.md:7
    """
    _decide(ctx, line, "reinforce", workspace, as_json)


@app.command("stale")
def stale(ctx: typer.Context, line: LineArgument, workspace: WorkspaceOption = None,
          as_json: JsonOption = False) -> None:
    """Mark its evidence stale: it stays visible, and leaves active memory after archive_after_days.

    \b
    Examples:
      nanodream hypotheses stale USER.md:7
    """
    _decide(ctx, line, "stale", workspace, as_json)


@app.command("reject")
def reject(ctx: typer.Context, line: LineArgument, workspace: WorkspaceOption = None,
           as_json: JsonOption = False) -> None:
    """Remove it and record it in memory/rejected.md, so no dream adds it again.

    \b
    Examples:
      nanodream hypotheses reject USER.md:7
    """
    _decide(ctx, line, "reject", workspace, as_json)


@app.command("promote")
def promote(ctx: typer.Context, line: LineArgument, workspace: WorkspaceOption = None,
            as_json: JsonOption = False) -> None:
    """Confirm it: the marker goes and it is a plain preference (an ask-first mark stays).

    \b
    Examples:
      nanodream hypotheses promote USER.md:7
    """
    _decide(ctx, line, "promote", workspace, as_json)


def _decide(ctx: typer.Context, line: str, decision: str, workspace: Path | None, as_json: bool) -> None:
    from nanodream import api

    workspace, as_json = inherited(ctx, workspace, as_json)
    ws = resolve_workspace(workspace, as_json=as_json)
    concluded(api.resolve_hypothesis(ws, line, decision), as_json, render_decision)


def render_list(report: HypothesesReport) -> None:
    if not report.hypotheses:
        console.print("no hypotheses: every inferred preference has been confirmed, rejected or not seen yet")
        return
    for item in report.hypotheses:
        state = f"stale since {item.stale_since}" if item.stale_since else f"{item.count} of {item.needed}"
        extra = " · ask-first" if item.ask_first else ""
        say(f"{item.ref}  {item.text}  [{state}, {item.tone}{extra}]")
    say("decide one: nanodream hypotheses reinforce|stale|reject|promote PATH:LINE")


def render_decision(report: DecisionReport) -> None:
    if report.manual_commit:
        console.print(f"committed your hand edits first as {report.manual_commit[:8]}", highlight=False)
    where = f"{report.path}:{report.line}"
    if report.commit is None:
        say(f"{where}: {report.reason}")
        return
    say(f"✓ {report.outcome} {where} → commit {report.commit[:8]}")
    say(f"    {(report.after if report.after is not None else report.before).strip()}")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="hypotheses")
