"""`nanodream pin TEXT`: keep a memory line in the active files for good (or `--remove` the pin)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import JsonOption, WorkspaceOption, concluded, console, resolve_workspace

if TYPE_CHECKING:
    from nanodream.api import PinReport


def pin(
    text: Annotated[str, typer.Argument(help="Some text of the line to pin (case and spacing aside).",
                                        show_default=False)],
    file: Annotated[str | None, typer.Option(
        "--file", "-f", help="Only look in this memory file (e.g. USER.md).", show_default=False)] = None,
    remove: Annotated[bool, typer.Option("--remove", help="Take the pin away instead.")] = False,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Pin a memory line: it is never archived or dropped by a dream (a visible <!-- keep -->, one commit).

    \b
    Examples:
      nanodream pin "deploys go through staging first"
      nanodream pin "concise" --file USER.md
      nanodream pin "staging first" --remove
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    report = api.pin(ws, text, path=file, remove=remove)
    if not as_json:
        for match in report.matches[:10]:
            console.print(f"  {match.path}:{match.line}: {match.text.strip()}", markup=False, highlight=False,
                          soft_wrap=True)
    concluded(report, as_json, render_pin)


def render_pin(report: PinReport) -> None:
    if report.manual_commit:
        console.print(f"committed your hand edits first as {report.manual_commit[:8]}", highlight=False)
    where = f"{report.path}:{report.line}"
    if not report.changed:  # the reason says which: "is already pinned" or "is not pinned"
        console.print(f"{where} {report.reason}: {report.text.strip()}", markup=False, highlight=False,
                      soft_wrap=True)
        return
    console.print(f"✓ {report.outcome} {where} → commit {(report.commit or '?')[:8]}", highlight=False)
    console.print(f"    {report.text.strip()}", markup=False, highlight=False, soft_wrap=True)


def register(root: typer.Typer) -> None:
    root.command()(pin)
