"""`nanodream why TEXT|FILE:LINE`: which commit wrote a memory line, and the history entries behind it."""

from __future__ import annotations

from typing import Annotated

import typer

from nanodream.commands.common import JsonOption, WorkspaceOption, console, emit_json, fail, resolve_workspace, say
from nanodream.vocab import ExitCode


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
    from nanodream.versioning.provenance import NotFound
    from nanodream.versioning.provenance import why as explain

    ws = resolve_workspace(workspace, as_json=as_json)
    try:
        report = explain(ws, target)
    except NotFound as exc:
        if as_json:
            fail(str(exc), ExitCode.FAILED, as_json=True)
        console.print(str(exc), markup=False, highlight=False, soft_wrap=True)  # calm: not an error, an answer
        raise typer.Exit(ExitCode.FAILED) from None
    if as_json:
        emit_json(report.to_dict())
        return

    say(f"{report.file}:{report.line}: {report.text.strip()}")
    if report.commit is None:
        say("not committed yet: a hand edit the next run or restore commits as yours")
        return
    say(f"written by {report.kind} {report.commit[:8]} on {(report.time or '')[:16].replace('T', ' ')}: "
        f"{report.subject}")
    if report.kind != "dream":
        return
    if not report.entries:
        say("no entry of the history it consumed mentions this line (or history.jsonl no longer holds them)")
    for item in report.entries:
        say(f"  line {item['line']} · cursor {item['cursor']} · {item['session_key'] or '(no session)'} · "
            f"{item['timestamp']}: {item['text']}")


def register(root: typer.Typer) -> None:
    root.command()(why)
