"""`nanodream restore`: undo a memory commit as a new commit; history is never rewritten."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import (
    JsonOption,
    WorkspaceOption,
    concluded,
    resolve_workspace,
    say,
)
from nanodream.vocab import Outcome, count

if TYPE_CHECKING:
    from nanodream.api import RestoreReport


def restore(
    sha: Annotated[str, typer.Argument(help="The commit to undo (see `nanodream log`).", show_default=False)],
    before: Annotated[bool, typer.Option(
        "--before", help="Set every memory file back to its state just before SHA (undoes later changes too).",
    )] = False,
    replay: Annotated[bool, typer.Option(
        "--replay", help="Also set the history cursor back, so the next dream consumes that batch again.",
    )] = False,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Undo what a dream changed, as a new commit. The next dream does not re-read that history unless --replay.

    \b
    Examples:
      nanodream restore 3f2a9c1e            # undo that dream's changes
      nanodream restore 3f2a9c1e --replay   # undo it and dream that history again
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    report = api.restore(ws, sha, before=before, replay=replay)
    if report.recovered and not as_json:
        say(f"recovered: {report.recovered}")
    concluded(report, as_json, render_restore, json_report=True)


def render_restore(report: RestoreReport) -> None:
    if report.outcome == Outcome.NOTHING_TO_DO:
        say(f"nothing to restore: {report.reason}")
        return
    if report.manual_commit:
        say(f"committed your hand edits first as {report.manual_commit[:8]}")
    what = "set memory back to before" if report.mode == "before" else "undid"
    commit = report.commit[:8] if report.commit else "?"
    say(f"✓ {what} {report.target_kind} {report.target[:8]} ({report.target_subject}) → commit {commit}")
    for change in report.changes:
        say(f"    {change}")
    if report.rejected:
        say(f"recorded {count(len(report.rejected), 'fact')} as rejected in memory/rejected.md; no later dream adds "
            "them again (delete a line there to allow it)")
    if report.replay:
        say(f"cursor set back from {report.cursor_before} to {report.cursor_after}: the next dream consumes "
            "that history again")
    else:
        say(f"cursor left at {report.cursor_after}: the next dream will not re-read that history "
            "(use --replay to consume it again)")


def register(app: typer.Typer) -> None:
    app.command()(restore)
