"""`nanodream why TEXT|FILE:LINE`: which commit wrote a memory line, and the history entries behind it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import JsonOption, WorkspaceOption, concluded, resolve_workspace, say

if TYPE_CHECKING:
    from nanodream.api import WhyReport


def why(
    target: Annotated[str, typer.Argument(help="Some text of a memory line, or FILE:LINE (e.g. USER.md:7).",
                                          show_default=False)],
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Explain a memory line: the commit that wrote it (through moves), its kind, and for a dream the
    history entries it consumed that mention the line, exact matches first.

    \b
    Examples:
      nanodream why "deploys on fridays"
      nanodream why USER.md:7
      nanodream why "prefers tea" --json
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    answer = api.why(ws, target)
    if answer.answer is None and not as_json:
        say(answer.reason)  # calm: nothing matching is an answer, not an error
        raise typer.Exit(answer.exit_code)
    concluded(answer, as_json, lambda found: render_why(found.answer))


def render_why(report: WhyReport) -> None:
    say(f"{report.file}:{report.line}: {report.text.strip()}")
    _render_life(report)
    _render_citing(report)
    if report.commit is None:
        say("not committed yet: a hand edit the next run or restore commits as yours")
        return
    verb = "archived as replaced by" if report.until is not None else "written by"
    machine = f" (machine {report.machine})" if report.machine else ""
    say(f"{verb} {report.kind} {report.commit[:8]} on {(report.time or '')[:16].replace('T', ' ')}{machine}: "
        f"{report.subject}")
    if report.kind != "dream":
        return
    if not report.entries:
        say("no entry of the history it consumed mentions this line (or history.jsonl no longer holds them, or it "
            "was dreamed on another machine, whose history stays there)")
    for item in report.entries:
        say(f"  line {item['line']} · cursor {item['cursor']} · {item['session_key'] or '(no session)'} · "
            f"{item['timestamp']}: {item['text']}")


def _render_life(report: WhyReport) -> None:
    """When the line became true, until when and what replaced it, and what it replaced (history's clock)."""
    if report.until is not None:
        since = f"from {report.became_true} " if report.became_true else ""
        instead = f"; replaced by: {report.replaced_by}" if report.replaced_by else ""
        say(f"true {since}until {report.until}{instead}")
        if report.first_written:
            say(f"first written by {report.first_written['commit'][:8]} on "
                f"{report.first_written['time'][:16].replace('T', ' ')}")
        return
    if report.became_true:
        say(f"true since {report.became_true} (the history entry that taught it)")
    for old in report.replaced:
        since = f"from {old['since']} " if old["since"] else ""
        say(f"it replaced: {old['text']} (true {since}until {old['until']}; {old['file']}:{old['line']})")


def _render_citing(report: WhyReport) -> None:
    """The insights citing the line (connections kept apart from memory: nanodream insights show NAME)."""
    for edge in report.insights:
        say(f"cited by insight {edge['insight']} ({edge['status']}, {edge['relation']}, weight {edge['weight']}): "
            f"{edge['reason']}")


def register(root: typer.Typer) -> None:
    root.command()(why)
