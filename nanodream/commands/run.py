"""`nanodream run`: consolidate the backlog now."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from nanodream.commands.common import (
    REFUSALS,
    JsonOption,
    ModelOption,
    WorkspaceOption,
    concluded,
    console,
    err_console,
    fail,
    refused,
    resolve_settings,
    resolve_workspace,
)
from nanodream.controls import visible
from nanodream.vocab import FAILURES, ExitCode, Outcome, by_language, count, count_entries, nothing_to_do, spoken_tokens

if TYPE_CHECKING:
    from nanodream.api import BatchOutcome, HostBusy, PhaseOutcome, RunReport

TRIGGERS = ("manual", "cron", "slash")


def run(
    workspace: WorkspaceOption = None,
    model: ModelOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the diff of the next batch; change nothing.")
    ] = False,
    max_batches: Annotated[int | None, typer.Option("--max-batches", min=1, help="Stop after N batches.")] = None,
    tidy: Annotated[bool, typer.Option(
        "--tidy", help="Maintenance dream without new history: merge, prune and re-file the memory as it is.",
    )] = False,
    trigger: Annotated[str, typer.Option(
        "--trigger", help="What started this run, for the run records: manual, cron or slash. "
                          "slash (the host agent's own /dream) does not wait for the host's busy file.")] = "manual",
    host_wait: Annotated[float | None, typer.Option(
        "--host-wait", min=0, help="Seconds to wait while the host agent is busy before exiting 75 "
                                   "(default: the host_wait setting).", show_default=False)] = None,
    allow_empty: Annotated[bool, typer.Option(
        "--allow-empty", help="With an empty backlog, run the maintenance pass (--tidy) instead of nothing.")] = False,
    lookback: Annotated[int | None, typer.Option(
        "--lookback", min=1, max=36_500, metavar="DAYS", show_default=False,
        help="Show the session already-consumed history of the last DAYS as read-only context "
             "(within lookback_tokens; never consumed again).")] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", metavar="FILE", show_default=False, dir_okay=False,
        help="Also write the result (what --json prints) to FILE: JSON, or YAML for .yaml/.yml.")] = None,
    review: Annotated[bool, typer.Option(
        "--review", help="Propose the changes on refs/nanodream/pending for `nanodream review` instead of "
                         "writing the files (as the setting review = true).")] = False,
    tool_mode: Annotated[str | None, typer.Option(
        "--tool-mode", metavar="auto|native|text|structured", show_default=False,
        help="How the model files facts: auto (native tools, calls written as text understood, structured mode "
             "when the tools lose a batch), native, text (tools described in the prompt), or structured (JSON "
             "under a schema the server enforces). Default: the tool_mode setting.")] = None,
    phases: Annotated[str | None, typer.Option(
        "--phases", metavar="LIST", show_default=False,
        help="The insight phases after the consolidation, comma-separated, of reflect, re-evaluate, connect "
             "('' for none). Default: the phases setting (all three).")] = None,
    max_insights: Annotated[str | None, typer.Option(
        "--max-insights", metavar="N", show_default=False,
        help="New insights connect may propose in this run, 1-50. Default: the max_insights setting (3).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Run a dream: fold the history backlog into the memory files and commit the result.

    \b
    Examples:
      nanodream run -w ~/agent --dry-run     # the diff the next batch would make
      nanodream run -w ~/agent -m builtin    # offline, no API key
      nanodream run --tidy --json            # merge and prune memory as it is
      nanodream run --allow-empty -o r.yaml  # nightly: tidy when idle
      nanodream run --lookback 3             # last 3 days as context
      nanodream run --review                 # propose; accept with `nanodream review accept`
      nanodream run --phases reflect,connect # only these insight phases after it
    """
    from nanodream import api
    from nanodream.api import GracefulStop, HostWait, RunOptions
    from nanodream.commands.progress import run_progress

    ws = resolve_workspace(workspace, as_json=as_json)
    if trigger not in TRIGGERS:
        fail(f"--trigger must be one of {', '.join(TRIGGERS)}, got {trigger!r}", as_json=as_json)
    if lookback and tidy:
        fail("--lookback shows history next to a batch; a --tidy pass has none", as_json=as_json)
    overrides = {"model": model, "host_wait": host_wait, "tool_mode": tool_mode, "phases": phases,
                 "max_insights": max_insights}
    settings = resolve_settings(ws, overrides, as_json=as_json)  # checks them all
    with GracefulStop(on_first=_announce_stop) as stop, run_progress(err_console) as observer:
        try:
            options = RunOptions(dry_run=dry_run, max_batches=max_batches, trigger=trigger, tidy=tidy,
                                 allow_empty=allow_empty, lookback_days=lookback or 0, observer=observer,
                                 review=review)
            # The host's own /dream runs now; anything else waits while the host serves a user turn.
            waiting = None if trigger == "slash" else HostWait(wait=host_wait, sleep=stop.sleep, stop=stop.reason,
                                                                on_wait=_announce_wait)
            report = api.run(ws, settings, options, waiting=waiting, should_stop=stop.reason)
        except KeyboardInterrupt:
            fail("abandoned: the batch in progress was discarded (or finished from its journal); "
                 "the workspace is consistent and the rest waits for the next run", ExitCode.INTERRUPTED,
                 as_json=as_json)
    if output is not None:
        try:
            api.write_result(output, report.to_json())
        except OSError as exc:
            fail(f"could not write {output}: {exc.strerror or exc} (the run ended {report.outcome})",
                 ExitCode.FAILED, as_json=as_json)
    concluded(report, as_json, render_report, json_report=True)


def render_report(report: RunReport) -> None:
    """A run for a person: what happened before, each batch, what the history held, the spend, the ending."""
    _render_preamble(report)
    for batch in report.batches:
        _render_batch(batch, report.tidy)
    _render_history_findings(report)
    if report.tokens_in or report.tokens_out:
        cost = "unknown" if report.cost is None else f"${report.cost:.4f}"
        console.print(f"{spoken_tokens(report.tokens_in, report.tokens_out, report.cached_tokens)} · cost {cost}",
                      highlight=False)
    if report.phases is not None:
        _render_phases(report.phases)
    _render_ending(report)


def _render_phases(phases: PhaseOutcome) -> None:
    """The insight phases: a line each, what they spent (apart), and a dry run's diff."""
    from rich.syntax import Syntax

    for note in phases.notes:
        console.print(f"  {visible(note)}", markup=False, highlight=False, style="dim")
    if phases.tokens_in or phases.tokens_out:
        cost = "unknown" if phases.cost is None else f"${phases.cost:.4f}"
        console.print(f"  connect: {spoken_tokens(phases.tokens_in, phases.tokens_out, phases.cached_tokens)} · "
                      f"cost {cost}", highlight=False)
    if phases.insights:
        console.print("  see them: nanodream insights", highlight=False)
    if phases.diff:
        console.print(Syntax(visible(phases.diff), "diff", theme="ansi_dark"))


def _render_preamble(report: RunReport) -> None:
    if report.recovered:
        console.print(f"[yellow]recovered:[/yellow] {escape(report.recovered)}", highlight=False)
    for notice in report.notices:
        console.print(f"[yellow]notice:[/yellow] {escape(notice)}", highlight=False)
    if report.manual_commit:
        console.print(f"committed your hand edits first as {report.manual_commit[:8]}", highlight=False)
    if report.ingest is not None:
        _render_ingested(report.ingest)


def _render_ingested(ingest: dict) -> None:
    """One line for the transcripts ingested first, and one per source that could not be read."""
    if ingest["recovered"]:
        console.print(f"[yellow]recovered:[/yellow] {escape(ingest['recovered'])}", highlight=False)
    cursors = f" (cursors {ingest['cursors'][0]}..{ingest['cursors'][1]})" if ingest["cursors"] else ""
    console.print(f"ingested {count_entries(ingest['added'])}{cursors} · new messages {ingest['messages']} · "
                  f"sources {len(ingest['sources'])}", highlight=False)
    if ingest.get("for_model"):
        console.print("left for a model, whole (more than the built-in rules read in that language): "
                      f"{by_language(ingest['for_model'])}",
                      highlight=False)
    for source in ingest["sources"]:
        if source["error"]:
            console.print(f"    [yellow]warning:[/yellow] {escape(source['path'])}: {escape(source['error'])}",
                          highlight=False)
    if ingest["outcome"] == Outcome.FAILED:
        console.print(f"    [yellow]warning:[/yellow] ingest {escape(ingest['reason'])}", highlight=False)


# batch outcome → (marker, what became of it); {commit} and {reason} are filled in
_BATCH_LINES = {
    Outcome.SPLIT: ("[yellow]![/yellow]", "split into halves after: {reason}"),
    Outcome.QUARANTINED: ("[yellow]![/yellow]", "quarantined after: {reason}"),
    Outcome.COMMITTED: ("[green]✓[/green]", "commit {commit}"),
    Outcome.NO_CHANGE: ("[green]✓[/green]", "nothing worth keeping; cursor advanced"),
    Outcome.DRY_RUN: ("[cyan]dry run[/cyan]", "nothing was changed"),
}


def _render_batch(batch: BatchOutcome, tidy: bool) -> None:
    from rich.syntax import Syntax

    span = "tidy pass" if tidy else (f"#{batch.first_cursor}..#{batch.last_cursor} ({count_entries(batch.entries)}, "
                                     f"lines {batch.first_line}-{batch.last_line})")
    if batch.outcome in _BATCH_LINES:
        marker, result = _BATCH_LINES[batch.outcome]
        if tidy and batch.outcome == Outcome.NO_CHANGE:
            result = "nothing to tidy"
        shown = result.format(commit=(batch.commit or "?")[:8], reason=escape(batch.reason))
        if batch.proposal:
            waits = f"proposal {batch.proposal[:8]} waits for `nanodream review`"
            shown = f"{shown}; {waits}" if batch.commit else waits
        console.print(f"{marker} {span} → {shown}", highlight=False)
    for line in batch.changes:
        console.print(f"    {line}", markup=False, highlight=False)
    for warning in batch.warnings:
        console.print(f"    [yellow]warning:[/yellow] {escape(warning)}", highlight=False)
    for reason in batch.reasons:
        console.print(f"    not kept: {reason['fact']} — {reason['reason']}", markup=False, highlight=False)
    for note in batch.unconfirmed:
        console.print(f"    [yellow]not shown by the diff:[/yellow] {escape(note)}", highlight=False)
    if batch.summary and batch.outcome not in FAILURES:
        console.print(f"    {batch.summary.splitlines()[0]}", markup=False, highlight=False, style="dim")
    if batch.diff:
        console.print(Syntax(visible(batch.diff), "diff", theme="ansi_dark"))


def _render_history_findings(report: RunReport) -> None:
    for line in report.dead_letters:
        console.print(f"[yellow]malformed:[/yellow] {escape(line)} (kept; nanodream history ack)", highlight=False)
    if report.malformed_lines > len(report.dead_letters):
        console.print(f"and {count(report.malformed_lines - len(report.dead_letters), 'more malformed history line')}",
                      highlight=False)
    for line in report.anomalies:
        console.print(f"[yellow]anomaly:[/yellow] {escape(line)}", highlight=False)


def _render_ending(report: RunReport) -> None:
    reason = escape(report.reason)
    if report.outcome == Outcome.MISCONFIGURED:
        err_console.print(f"[red]error:[/red] {reason}", highlight=False)
    elif report.outcome in FAILURES:
        err_console.print(f"[red]✗ dream failed:[/red] {reason} ({_what_landed(report)})", highlight=False)
    elif report.outcome in REFUSALS:
        refused(report)
    elif report.outcome == Outcome.NOTHING_TO_DO:  # the reason says how many entries wait for a model, if any
        console.print(nothing_to_do(report.reason), markup=False, highlight=False)
    elif report.reason:
        console.print(report.reason, markup=False, highlight=False)


def _what_landed(report: RunReport) -> str:
    """What a failed run leaves: never "unchanged" once one of its commits landed."""
    landed = [*report.commits, *([report.phases.commit] if report.phases and report.phases.commit else [])]
    if not landed:
        return "workspace unchanged for this batch"
    return f"committed before it failed: {', '.join(sha[:8] for sha in landed)}; nothing after that was applied"


def _announce_stop(name: str) -> None:
    err_console.print(f"[yellow]{name}:[/yellow] finishing the current batch, then stopping; "
                      "send it again to abandon the batch", highlight=False)


def _announce_wait(claim: HostBusy) -> None:
    err_console.print(f"waiting: {claim.describe()}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(run)
