"""`nanodream status`: backlog, cursor, last commit and runs — fast, and without importing litellm."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from nanodream.commands.common import (
    JsonOption,
    WorkspaceOption,
    concluded,
    console,
    resolve_settings,
    resolve_workspace,
    say,
)
from nanodream.vocab import count, count_entries, entries_by_language, spoken_tokens

if TYPE_CHECKING:
    from nanodream.api import Status


# Dead letters and anomalies listed on a terminal; --json has them all.
SHOWN = 5


def status(workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Show the backlog waiting for a dream and how the last runs went.

    \b
    Examples:
      nanodream status -w ~/agent
      nanodream status --json       # for scripts and host agents
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    concluded(api.status(ws, resolve_settings(ws, as_json=as_json)), as_json,
              lambda report: render_status(report.status))


def render_status(info: Status) -> None:
    console.print(f"workspace  {info.workspace}", highlight=False)
    console.print(f"model      {info.model}", highlight=False)
    console.print(f"prompt     {info.prompt_source}", highlight=False)
    _render_backlog(info)
    commit = f"{info.last_commit[:8]} {info.last_commit_subject}" if info.last_commit else "(no commits yet)"
    console.print(f"commit     {commit}", markup=False, highlight=False)
    _render_last_dream(info)
    waiting = info.proposals
    if waiting["pending"] or waiting["conflicted"]:
        console.print(f"review     {count(waiting['pending'], 'proposal')} pending, {waiting['conflicted']} conflicted "
                      "(nanodream review)", highlight=False)
    _render_fill(info)
    _render_out_of_date(info)
    _render_insights(info)
    _render_ingest(info)
    _render_runs(info)
    _render_quarantine(info)
    _render_schedule(info)
    _render_left_alone(info)
    if info.interrupted_run:
        console.print("[yellow]an interrupted run will be recovered by the next run[/yellow]")


def _render_left_alone(info: Status) -> None:
    if info.git_ignored:
        keys = ", ".join(f"{item['key']} ({item['origin']})" for item in info.git_ignored)
        console.print(f"[yellow]git[/yellow]        ignores {escape(keys)}: nanodream never runs what a repository "
                      "configures (SECURITY.md); a fleet does not dream this workspace", highlight=False)
    for path in info.linked_skills:
        console.print(f"[yellow]linked[/yellow]     {escape(path)} is a symbolic link: left alone (not read, written, "
                      "indexed or committed)", highlight=False)


def _render_backlog(info: Status) -> None:
    position = info.position
    held = " (held before the first entry waiting for a model)" if info.cursor < position["cursor"] else ""
    console.print(f"cursor     {info.cursor}{held} · read up to line {position['line']} · backlog "
                  f"{count_entries(info.pending_entries)} to read (history ends at cursor {info.last_history_cursor})",
                  highlight=False)
    if info.notice:
        console.print(f"           {info.notice}", markup=False, highlight=False)
    _render_waiting(info)
    for letter in info.dead_letters[:SHOWN]:
        console.print(f"[yellow]malformed[/yellow]  history.jsonl line {letter['line']}: {escape(letter['reason'])}",
                      highlight=False)
    if info.dead_letters:
        console.print("           see them: nanodream history · once seen: nanodream history ack LINE... (or --all)",
                      highlight=False)
    for anomaly in info.anomalies[:SHOWN]:
        console.print(f"[yellow]anomaly[/yellow]    {escape(anomaly)}", highlight=False)
    hidden = max(len(info.dead_letters) - SHOWN, 0) + max(len(info.anomalies) - SHOWN, 0)
    if hidden:
        console.print(f"           and {hidden} more (nanodream status --json)", highlight=False)


def _render_waiting(info: Status) -> None:
    if info.waiting_error:
        console.print(f"[red]waiting[/red]    {escape(info.waiting_error)}", highlight=False)
    if not info.waiting_for_model:
        return
    languages = entries_by_language(info.waiting_languages, info.waiting_for_model)
    waiting = count_entries(info.waiting_for_model)
    them = "it" if info.waiting_for_model == 1 else "them"
    console.print(f"[yellow]waiting[/yellow]    {waiting} for a model ({escape(languages)}): the built-in rules cannot "
                  f"read {them} whole; the next run with a model takes {them} first", highlight=False)


def _render_last_dream(info: Status) -> None:
    dream = info.last_dream
    if dream is None:
        console.print("dream      (none yet)", highlight=False)
        return
    files = ", ".join(f"{f['path']} +{f['added']} -{f['removed']}" for f in dream["files"]) or "no file changes"
    console.print(f"dream      {dream['short']} {dream['time'][:16].replace('T', ' ')} {dream['subject']}",
                  markup=False, highlight=False)
    console.print(f"           {files}", markup=False, highlight=False)


def _render_fill(info: Status) -> None:
    core = [f"{path} {size['chars'] * 100 // size['cap']}%" for path, size in info.fill.items()
            if not path.startswith("skills/")]
    archive = info.archive
    moved = f" · archive {count(archive['files'], 'file')}, {archive['chars']:,} bytes" if archive["files"] else ""
    console.print(f"fill       {' · '.join(core)} of their caps{moved}", highlight=False)


def _render_out_of_date(info: Status) -> None:
    """Lines still naming the old value of a fact that changed: a person revises, removes or pins each."""
    for item in info.out_of_date[:SHOWN]:
        console.print(f"[yellow]doubtful[/yellow]   {escape(item['message'])}", highlight=False)
        console.print(f"           {escape(item['text'])}", highlight=False)
    if len(info.out_of_date) > SHOWN:
        console.print(f"           and {len(info.out_of_date) - SHOWN} more (nanodream status --json)", highlight=False)


def _render_ingest(info: Status) -> None:
    """Each configured transcript source by its path, with its watermark (docs/ingest.md)."""
    ingest = info.ingest
    if ingest.get("error"):
        console.print(f"[red]ingest[/red]     {escape(ingest['error'])}", highlight=False)
    for source in ingest.get("sources", []):
        kind = f" ({source['format']})" if source["format"] else ""
        if source["error"]:
            console.print(f"[red]ingest[/red]     {escape(source['path'])}{kind}: {escape(source['error'])}",
                          highlight=False)
            continue
        waiting = f", {source['pending_files']} with news" if source["pending_files"] else ", up to date"
        say(f"ingest     {source['path']}{kind}: read {source['read_files']} of {source['files_now']} files, "
            f"{source['bytes_read']:,} bytes, {source['messages']} messages{waiting}")
    last = ingest.get("last_pass")
    if last and ingest.get("sources"):
        added = count_entries(last.get("added") or 0)
        say(f"           last pass {last.get('end')} {last.get('outcome')}: {added} added")
    if ingest.get("interrupted"):
        console.print("[yellow]an interrupted ingest will be finished or undone by the next ingest or run[/yellow]")


def _render_runs(info: Status) -> None:
    if info.last_success:
        ok = info.last_success
        spent = (f", {spoken_tokens(ok['tokens_in'], ok.get('tokens_out', 0), ok.get('cached_tokens'))}"
                 if ok.get("tokens_in") else "")
        sessions = ok.get("sessions") or []
        if len(sessions) > 1:  # the tokens are every session's: say so
            spent += f", {len(sessions)} sessions ({', '.join(str(s.get('mode')) for s in sessions)})"
        console.print(f"last ok    {ok.get('end')} {ok.get('outcome')} ({ok.get('trigger')}, "
                      f"{count_entries(ok.get('entries', 0))}{spent})", highlight=False)
        for note in ok.get("misfiled") or []:
            console.print(f"[yellow]misfiled[/yellow]   {escape(note)}", highlight=False)
        phases = ok.get("phases") or {}
        if phases.get("tokens_in") or phases.get("tokens_out"):
            cost = "unknown" if phases.get("cost") is None else f"${phases['cost']:.4f}"
            tokens = spoken_tokens(phases["tokens_in"], phases["tokens_out"], phases.get("cached_tokens"))
            say(f"           connect: {tokens} · cost {cost} (apart from the consolidation's)")
    if info.last_failure:
        bad = info.last_failure
        console.print(f"last fail  {bad.get('end')} ({bad.get('trigger')}): {escape(str(bad.get('reason')))}",
                      highlight=False)
        if bad.get("requests"):
            say(f"           it spent {_spent(bad)}")
    for failed in info.failed_sessions:
        cause = "session token budget" if failed.get("cause") == "tokens" else "tool-call cap"
        say(f"too big    lines {failed.get('first_line')}-{failed.get('last_line')} "
            f"({count_entries(failed.get('entries', 0))}) hit the {cause} on {failed.get('at')}, spending "
            f"{_spent(failed)}; the next run takes at most {max(1, failed.get('entries', 2) // 2)} at a time")


def _spent(record: dict) -> str:
    """'13 requests · tokens in 162000 · out 780 · 747 KB sent': what a failed session cost."""
    tokens = spoken_tokens(record.get("tokens_in", 0), record.get("tokens_out", 0))
    return (f"{count(record.get('requests', 0), 'request')} · {tokens} · "
            f"{record.get('request_bytes', 0) / 1000:,.0f} KB sent")


def _render_insights(info: Status) -> None:
    waiting = {status: number for status, number in info.insights.items() if number and status != "rejected"}
    if waiting:
        said = " · ".join(f"{number} {status}" for status, number in waiting.items())
        say(f"insights   {said} (see: nanodream insights)")


def _render_quarantine(info: Status) -> None:
    if info.quarantine:
        shown = ", ".join(_held(q) for q in info.quarantine)
        console.print(f"[yellow]quarantine[/yellow] {len(info.quarantine)} set aside: {shown} "
                      "(see: nanodream quarantine)", highlight=False)
        latest = info.quarantine[-1]
        console.print(f"           {_held(latest)}: {escape(latest['reason'])}", highlight=False)
    if info.quarantine_error:
        console.print(f"[red]quarantine[/red] {escape(info.quarantine_error)}", highlight=False)


def _held(entry: dict) -> str:
    return f"line {entry['line']}" if entry.get("line") else f"cursor {entry['cursor']}"


def _render_schedule(info: Status) -> None:
    plan = info.schedule
    if not plan:
        return
    if plan.get("error"):
        console.print(f"[red]schedule[/red]   {escape(plan['error'])}", highlight=False)
        return
    catch_up = f", catching up the slot of {plan['catch_up']}" if plan.get("catch_up") else ""
    console.print(f"schedule   {escape(plan['schedule'])}", highlight=False)
    console.print(f"next run   {plan['next_run']}{catch_up} · {plan['source']}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(status)
