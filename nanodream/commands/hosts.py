"""`nanodream hosts install|list`: nanodream's MCP server and `/dream` command in Claude Code, Codex or Cursor."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import JsonOption, WorkspaceOption, concluded, console, resolve_workspace, say

if TYPE_CHECKING:
    from nanodream.api import HostsInstallReport, HostsReport

app = typer.Typer(
    help="Put nanodream into an agent host: its MCP server (write tools on, for this workspace) and a /dream "
         "command with which the host's own model dreams under nanodream's guards.\n\n"
         "\b\nExamples:\n"
         "  nanodream hosts install claude-code -w ~/agent    # .mcp.json and .claude/commands/dream.md here\n"
         "  nanodream hosts install codex --dry-run           # print what $CODEX_HOME would get\n"
         "  nanodream hosts list",
    no_args_is_help=True)

ProjectOption = Annotated[Path | None, typer.Option(
    "--project", metavar="DIR", show_default=False,
    help="The project folder whose .mcp.json / .claude/ / .cursor/ get the entries (default: the current one; "
         "Codex uses $CODEX_HOME, default ~/.codex).")]
NEXT = {"claude-code": "in Claude Code, in that project: /dream",
        "codex": "in Codex: /prompts:dream",
        "cursor": "in Cursor: ask the agent to dream with nanodream (its MCP prompt `dream` says how)"}


@app.command()
def install(
    host: Annotated[str, typer.Argument(help="claude-code, codex or cursor.", show_default=False)],
    project: ProjectOption = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would be written; write nothing.")] = False,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write nanodream's MCP server and /dream command into HOST's files, merged into what they hold.

    The server serves this command's workspace (-w, $NANODREAM_WORKSPACE, or here) with its write tools on.

    Other servers and keys are kept, and so is a /dream of your own; a second install changes nothing.

    A file that does not parse is left alone and nothing is written (exit 2).

    \b
    Examples:
      nanodream hosts install claude-code -w ~/agent --project ~/code/myapp
      CODEX_HOME=~/.codex nanodream hosts install codex -w ~/agent
      nanodream hosts install cursor --dry-run
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    concluded(api.hosts_install(ws, host, project=project, dry_run=dry_run), as_json, _render_install)


def _render_install(report: HostsInstallReport) -> None:
    verb = {"created": "would create", "updated": "would update"} if report.dry_run else {}
    for item in report.files:
        say(f"{verb.get(item.change, item.change):>12}  {item.path}")
        if report.dry_run and item.change in ("created", "updated"):
            say(item.text.rstrip("\n"))
    if any(item.change == "kept" for item in report.files):
        say("a /dream command file of yours was kept as it is; delete it and install again to get nanodream's")
    if report.reason:
        say(report.reason)
    if not report.dry_run:
        say(f"nanodream serves {report.workspace} to {report.host}; restart it or reload its MCP servers, then "
            f"{NEXT[report.host]}")


@app.command(name="list")
def list_hosts(
    project: ProjectOption = None,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Each host: whether it starts nanodream's server, for which workspace, and whether it has /dream.

    \b
    Examples:
      nanodream hosts list -w ~/agent --project ~/code/myapp
      nanodream hosts list --json
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    concluded(api.hosts_list(ws, project=project), as_json, _render_list)


def _render_list(report: HostsReport) -> None:
    for state in report.hosts:
        if state.problem:
            served = f"cannot read: {state.problem}"
        elif not state.installed:
            served = "nanodream not installed"
        else:
            served = "serves this workspace" if state.this_workspace else f"serves {state.workspace or '?'}"
        command = "" if state.command_file is None else (" · /dream installed" if state.command else " · no /dream")
        say(f"{state.host:<12} {served}{command}  ({state.config})")
    console.print(f"this workspace: {report.workspace}", markup=False, highlight=False)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="hosts")
