"""`nanodream insights`: the connections runs proposed, one in full, and a person's decision on each."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import JsonOption, WorkspaceOption, concluded, console, inherited, resolve_workspace, say

if TYPE_CHECKING:
    from nanodream.api import Insight, InsightDecisionReport, InsightReport, InsightsReport

app = typer.Typer()
NameArgument = Annotated[str, typer.Argument(metavar="NAME", show_default=False,
                                             help="The insight's name, as `insights list` shows it.")]
NoteOption = Annotated[str, typer.Option("--note", metavar="TEXT", help="Why: kept under the insight's Decisions.")]


@app.callback(invoke_without_command=True)
def insights(ctx: typer.Context, workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Connections runs proposed between what they learned and what was known (never facts): list them (same as
    `insights list`), show one, or decide one.

    \b
    Examples:
      nanodream insights
      nanodream insights show hetzner-billing
      nanodream insights promote hetzner-billing --note "worth remembering"
      nanodream insights reject hetzner-billing     # out of view, never proposed again
    """
    if ctx.invoked_subcommand is None:
        list_insights(ctx, workspace, None, as_json)


@app.command("list")
def list_insights(ctx: typer.Context, workspace: WorkspaceOption = None,
                  status: Annotated[str | None, typer.Option(
                      "--status", metavar="S", show_default=False,
                      help="Only this status: proposed, reinforced, stale, rejected or promoted "
                           "(default: all but rejected).")] = None,
                  as_json: JsonOption = False) -> None:
    """Each insight: its name, status, likelihood and confidence, summary and sources.

    \b
    Examples:
      nanodream insights list --status stale --json
    """
    from nanodream import api

    workspace, as_json = inherited(ctx, workspace, as_json)
    report = api.insights(resolve_workspace(workspace, as_json=as_json), status)
    concluded(report, as_json, render_list, listed=report.insights)


@app.command("show")
def show(ctx: typer.Context, name: NameArgument, workspace: WorkspaceOption = None,
         as_json: JsonOption = False) -> None:
    """One insight in full: summary, what if, possible outcome, rationale, its sources and its decisions.

    \b
    Examples:
      nanodream insights show hetzner-billing --json
    """
    from nanodream import api

    workspace, as_json = inherited(ctx, workspace, as_json)
    concluded(api.insight(resolve_workspace(workspace, as_json=as_json), name), as_json, render_one)


_DECISIONS = {
    "reinforce": ("Count it as seen again: it holds.", "reinforce hetzner-billing"),
    "stale": ("Mark it stale: what it connects no longer holds.", 'stale hetzner-billing --note "we left Hetzner"'),
    "reject": ("Reject it: out of view, and no run proposes it (its name or its sources) again.",
               "reject hetzner-billing"),
    "promote": ("Promote it: its statement is appended to history, and the next dream decides whether it becomes "
                "memory.", 'promote hetzner-billing --note "worth remembering"'),
}


def _decision_command(decision: str, says: str, example: str) -> None:
    """One subcommand per decision (each with its own help), all through `_decide`."""

    def command(ctx: typer.Context, name: NameArgument, note: NoteOption = "", workspace: WorkspaceOption = None,
                as_json: JsonOption = False) -> None:
        _decide(ctx, name, decision, note, workspace, as_json)

    command.__doc__ = f"{says}\n\n\b\nExamples:\n  nanodream insights {example}\n"
    app.command(decision)(command)


for _decision, (_says, _example) in _DECISIONS.items():
    _decision_command(_decision, _says, _example)


def _decide(ctx: typer.Context, name: str, decision: str, note: str, workspace: Path | None, as_json: bool) -> None:
    from nanodream import api

    workspace, as_json = inherited(ctx, workspace, as_json)
    ws = resolve_workspace(workspace, as_json=as_json)
    concluded(api.decide_insight(ws, name, decision, note), as_json, render_decision)


def render_list(report: InsightsReport) -> None:
    for broken in report.broken:
        console.print(f"[yellow]cannot read[/yellow] {broken.path}: {broken.problem}", highlight=False)
    if not report.insights:
        say("no insights: runs propose them after consolidating (docs/insights.md)")
        return
    for insight in report.insights:
        say(f"{insight.name}  [{insight.status}] likelihood {insight.likelihood:.2f} · confidence "
            f"{insight.confidence:.2f} · {', '.join(insight.topics)}")
        say(f"    {insight.summary}")
        for source in insight.sources:
            say(f"    ← {source.ref}  ({source.relation}, {source.weight})")
    say("decide one: nanodream insights reinforce|stale|reject|promote NAME [--note TEXT]")


def render_one(report: InsightReport) -> None:
    insight: Insight | None = report.insight
    if insight is None:
        return
    say(f"{insight.name}  [{insight.status}]  created {insight.created} · updated {insight.updated}")
    say(f"likelihood {insight.likelihood:.2f} · confidence {insight.confidence:.2f} · topics: "
        f"{', '.join(insight.topics)}" + (f" · themes: {'; '.join(insight.themes)}" if insight.themes else ""))
    say("")
    say(insight.summary)
    for title, text in (("What if", insight.what_if), ("Possible outcome", insight.possible_outcome),
                        ("Rationale", insight.rationale)):
        say(f"\n{title}: {text}")
    say("\nSources:")
    for source in insight.sources:
        say(f"  {source.ref}\n    {source.relation}, weight {source.weight}: {source.reason}")
    if insight.decisions:
        say("\nDecisions:")
        for line in insight.decisions:
            say(f"  {line}")


def render_decision(report: InsightDecisionReport) -> None:
    if report.manual_commit:
        console.print(f"committed your hand edits first as {report.manual_commit[:8]}", highlight=False)
    if report.commit is None:
        say(f"{report.name}: {report.reason}")
        return
    say(f"✓ {report.name}: {report.before} → {report.status} (commit {report.commit[:8]})")
    if report.history_cursor is not None:
        say(f"    appended to history as cursor {report.history_cursor}; the next dream decides whether it becomes "
            "memory")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="insights")
