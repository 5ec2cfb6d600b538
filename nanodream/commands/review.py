"""`nanodream review`: the pending proposals of review runs; `accept` and `reject` them.

A sub-app: a bare `nanodream review` lists the proposals with their diffs; `accept ID|--all [--file PATH]`
lands them on the branch as commits, `reject ID|--all [--file PATH] [--reason TEXT]` drops them and
records their facts as rejected. Options given before the subcommand apply to it as well.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import (
    JsonOption,
    WorkspaceOption,
    concluded,
    inherited,
    resolve_workspace,
    say,
)
from nanodream.vocab import count

if TYPE_CHECKING:
    from nanodream.api import ReviewQueue, ReviewReport

review_app = typer.Typer(no_args_is_help=False)

IdArgument = Annotated[str | None, typer.Argument(help="A proposal's id (short sha) or run id.", show_default=False)]
AllOption = Annotated[bool, typer.Option("--all", help="Every pending proposal, oldest first.")]
FileOption = Annotated[str | None, typer.Option(
    "--file", "-f", help="Only this file of the proposals, e.g. USER.md.", show_default=False)]


@review_app.callback(invoke_without_command=True)
def review(ctx: typer.Context, workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """List the proposals that review runs (`run --review`, `review = true`) left pending, with their diffs.

    \b
    Examples:
      nanodream review
      nanodream review accept 3f2a9c1e
      nanodream review reject --all --reason "not about me"
    """
    if ctx.invoked_subcommand is not None:
        return
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    if as_json:
        report = api.proposals(ws)
        concluded(report, as_json, render_proposals, listed=report.proposals)
    concluded(api.review_queue(ws), as_json, render_proposals)


def render_proposals(report: ReviewQueue) -> None:
    if not report.proposals:
        say("no proposals are pending")
        return
    for item in report.proposals:
        proposal = item.proposal
        state = f"CONFLICTED ({proposal.reason})" if proposal.state == "conflicted" else "pending"
        say(f"{proposal.id}  {proposal.time[:16].replace('T', ' ')}  {state}  {proposal.summary}")
        for stat in proposal.files:
            say(f"    {stat['path']} +{stat['added']} -{stat['removed']}")
        say(item.diff.rstrip("\n"))
    say("accept: nanodream review accept ID|--all [--file PATH] · reject: nanodream review reject ID|--all")


@review_app.command()
def accept(ctx: typer.Context, proposal: IdArgument = None, everything: AllOption = False, file: FileOption = None,
           workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Apply pending proposals to the branch as commits (hand edits made meanwhile are kept).

    \b
    Examples:
      nanodream review accept 3f2a9c1e
      nanodream review accept --all
      nanodream review accept 3f2a9c1e --file USER.md
    """
    from nanodream import api

    ws_option, as_json = inherited(ctx, workspace, as_json)
    ws = resolve_workspace(ws_option, as_json=as_json)
    concluded(api.accept(ws, api.Selection(proposal, everything, file)), as_json, render_decision, json_report=True)


@review_app.command()
def reject(ctx: typer.Context, proposal: IdArgument = None, everything: AllOption = False, file: FileOption = None,
           reason: Annotated[str, typer.Option("--reason", help="Why, kept in memory/rejected.md.")] = "",
           workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Drop pending proposals and record their facts as rejected, so no later run proposes them again.

    \b
    Examples:
      nanodream review reject 3f2a9c1e --reason "a joke, not a fact"
      nanodream review reject --all --file SOUL.md
    """
    from nanodream import api

    ws_option, as_json = inherited(ctx, workspace, as_json)
    ws = resolve_workspace(ws_option, as_json=as_json)
    concluded(api.reject(ws, api.Selection(proposal, everything, file), reason), as_json, render_decision,
              json_report=True)


def render_decision(report: ReviewReport) -> None:
    if report.manual_commit:
        say(f"committed your hand edits first as {report.manual_commit[:8]}")
    if report.ids:
        commits = ", ".join(c[:8] for c in report.commits) or "no commit"
        say(f"✓ {report.outcome} {', '.join(report.ids)} → {commits}")
    else:
        say(report.reason)
    if report.rejected:
        say("recorded as rejected in memory/rejected.md: " + "; ".join(report.rejected))
    say(f"{count(len(report.pending), 'proposal')} still pending"
         + (f", {sum(p['state'] == 'conflicted' for p in report.pending)} conflicted" if report.pending else ""))


def register(app: typer.Typer) -> None:
    app.add_typer(review_app, name="review")
