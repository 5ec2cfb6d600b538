"""`nanodream sync`: merge this workspace's memory with its remote's, and push it (docs/sync.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from nanodream.commands.common import JsonOption, WorkspaceOption, concluded, fail, resolve_workspace, say
from nanodream.vocab import Outcome, count

if TYPE_CHECKING:
    from nanodream.api import SyncReport


def sync(
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Say what would change, file by file, here and on the remote; change nothing anywhere.",
    )] = False,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Fetch the remote's memory, merge it with nanodream's own merge (never git's), commit the merge, push it.

    The remote is `\\[sync] remote` (default origin; nanodream.local.toml or NANODREAM_SYNC_REMOTE). Exit 0
    when both hold the same memory; 1 when it could not complete (nothing changed anywhere); 2 with no such remote.

    \b
    Examples:
      git -C ~/agent remote add origin git@example.com:me/agent-memory.git
      nanodream sync -w ~/agent --dry-run   # what would change here and there
      nanodream sync -w ~/agent             # merge, commit, push
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    report = api.sync(ws, dry_run=dry_run)
    if report.recovered and not as_json:
        say(f"recovered: {report.recovered}")
    if report.outcome == Outcome.FAILED and not as_json:
        fail(report.reason, report.exit_code)  # one line, and nothing changed
    concluded(report, as_json, render_sync, json_report=True)


def render_sync(report: SyncReport) -> None:
    if report.outcome == Outcome.NOTHING_TO_DO:
        say(f"in sync with {report.remote}: {report.reason}")
        return
    dry = report.outcome == Outcome.DRY_RUN
    say(f"{'dry run: would sync' if dry else '✓ synced'} {report.machine} with {report.remote} "
        f"(branch {report.branch})" + ("; nothing changed anywhere" if dry else ""))
    if report.hand_edits:
        say(f"  your hand edits to {', '.join(report.hand_edits)} {'would be' if dry else 'were'} committed as "
            "your own first")
    _files("here", report.local, dry)
    _files("remote", report.remote_files, dry)
    for line in report.archived:
        say(f"  archived {line}")
    for line in report.held:
        say(f"  held for review: {line}")
    for line in report.left_out:
        say(f"  left out: {line}")
    for note in report.notes:
        say(f"  {note}")
    if report.proposals:
        say(f"  {count(report.proposals, 'proposal')} {'would wait' if dry else 'wait'} for you: nanodream review")


def _files(where: str, files: list[dict[str, Any]], dry: bool) -> None:
    for change in files:
        say(f"  {where + ':':8}{change['path']} +{change['added']} -{change['removed']}")
    if not files:
        say(f"  {where + ':':8}{'no file would change' if dry else 'no file changed'}")


def register(app: typer.Typer) -> None:
    app.command()(sync)
