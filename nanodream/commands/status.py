"""`nanodream status`: backlog, cursor, last commit and runs — fast, and without importing litellm."""

from __future__ import annotations

import typer
from rich.markup import escape

from nanodream.commands.common import (
    JsonOption,
    WorkspaceOption,
    console,
    emit_json,
    resolve_settings,
    resolve_workspace,
)


def status(workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Show the backlog waiting for a dream and how the last runs went."""
    from nanodream.status import workspace_status

    ws = resolve_workspace(workspace, as_json=as_json)
    info = workspace_status(ws, resolve_settings(ws, as_json=as_json))
    if as_json:
        emit_json(info.to_dict())
        return
    console.print(f"workspace  {info.workspace}", highlight=False)
    console.print(f"model      {info.model}", highlight=False)
    console.print(f"prompt     {info.prompt_source}", highlight=False)
    console.print(f"cursor     {info.cursor} · backlog {info.pending_entries} entries "
                  f"(up to #{info.last_history_cursor})", highlight=False)
    if info.malformed_lines:
        console.print(f"           {info.malformed_lines} malformed history line(s) will be skipped", highlight=False)
    commit = f"{info.last_commit[:8]} {info.last_commit_subject}" if info.last_commit else "(no commits yet)"
    console.print(f"commit     {commit}", highlight=False)
    if info.last_success:
        ok = info.last_success
        console.print(f"last ok    {ok.get('end')} {ok.get('outcome')} ({ok.get('trigger')}, "
                      f"{ok.get('entries', 0)} entries)", highlight=False)
    if info.last_failure:
        bad = info.last_failure
        console.print(f"last fail  {bad.get('end')} ({bad.get('trigger')}): {escape(str(bad.get('reason')))}",
                      highlight=False)
    if info.quarantine:
        shown = ", ".join(f"#{q['cursor']}" for q in info.quarantine)
        console.print(f"[yellow]quarantine[/yellow] {len(info.quarantine)} set aside: {shown} "
                      "(see: nanodream quarantine)", highlight=False)
        latest = info.quarantine[-1]
        console.print(f"           #{latest['cursor']}: {escape(latest['reason'])}", highlight=False)
    if info.quarantine_error:
        console.print(f"[red]quarantine[/red] {escape(info.quarantine_error)}", highlight=False)
    if info.schedule:
        plan = info.schedule
        if plan.get("error"):
            console.print(f"[red]schedule[/red]   {escape(plan['error'])}", highlight=False)
        else:
            catch_up = f", catching up the slot of {plan['catch_up']}" if plan.get("catch_up") else ""
            console.print(f"schedule   {escape(plan['schedule'])}", highlight=False)
            console.print(f"next run   {plan['next_run']}{catch_up} · {plan['source']}", highlight=False)
    if info.interrupted_run:
        console.print("[yellow]an interrupted run will be recovered by the next run[/yellow]")


def register(app: typer.Typer) -> None:
    app.command()(status)
