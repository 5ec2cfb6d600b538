"""`nanodream forget --session KEY | --entry LINE`: take out what those history entries taught, for good."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import JsonOption, WorkspaceOption, concluded, fail, resolve_workspace, say
from nanodream.vocab import Outcome, count

if TYPE_CHECKING:
    from nanodream.api import ForgetReport


def forget(
    session: Annotated[str | None, typer.Option("--session", help="Every history entry of this session key.",
                                                show_default=False)] = None,
    entry: Annotated[int | None, typer.Option("--entry", min=1, metavar="LINE", show_default=False,
                                              help="The history entry on this line of history.jsonl.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List what would go and what needs you; change nothing.")
                       ] = False,
    purge_transcripts: Annotated[bool, typer.Option(
        "--purge-transcripts", help="Also delete the session transcripts of the runs that consumed those entries.",
    )] = False,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Remove the memory lines only those entries taught (one commit, recorded as rejected) and never read
    the entries again. Lines that also draw on other entries are listed for you to edit.

    \b
    Examples:
      nanodream forget --session telegram:4242 --dry-run
      nanodream forget --entry 118
      nanodream forget --session cli:direct --purge-transcripts
    """
    from nanodream import api
    from nanodream.api import Target

    if (session is None) == (entry is None):
        fail("give exactly one of --session KEY or --entry LINE", as_json=as_json)
    ws = resolve_workspace(workspace, as_json=as_json)
    report = api.forget(ws, Target(session, entry), dry_run=dry_run, purge_transcripts=purge_transcripts)
    concluded(report, as_json, render_forget, json_report=True)


def render_forget(report: ForgetReport) -> None:
    dry_run = report.outcome == Outcome.DRY_RUN
    verb = "would remove" if dry_run else "removed"
    say(f"{'would forget' if dry_run else 'forgot'} {count(len(report.entries), 'history entry', 'history entries')}"
        ": never consumed again, even by --replay")
    say(f"{verb} {count(len(report.removed), 'line')} taught only by them"
        + (f" → commit {report.commit[:8]} (recorded in memory/rejected.md)" if report.commit else ""))
    for line in report.removed:
        say(f"    {line}")
    if report.review:
        say(f"{'would leave' if dry_run else 'left'} {count(len(report.review), 'line')} other entries taught too; "
            "edit them yourself:")
        for line in report.review:
            say(f"    {line}")
    if report.turns:
        say(f"{'would take' if dry_run else 'took'} {count(report.turns, 'turn')} said there out of the turn store "
            "(recall no longer finds them)")
    for path in report.transcripts:
        say(f"deleted transcript {path}")
    say("not erased: " + "; ".join(report.not_erased))


def register(root: typer.Typer) -> None:
    root.command()(forget)
