"""`nanodream ingest [SOURCE...]`: turn agent transcripts into history entries for the next dream."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import (
    JsonOption,
    ModelOption,
    WorkspaceOption,
    concluded,
    console,
    resolve_settings,
    resolve_workspace,
    say,
)
from nanodream.vocab import INGEST_FORMATS, Outcome, by_language, count_entries

if TYPE_CHECKING:
    from nanodream.api import IngestReport, SourceReport

# Entries and skipped files listed on a terminal; --json has them all (entries up to the report's limit).
SHOWN = 5


def ingest(
    sources: Annotated[list[Path] | None, typer.Argument(
        help="Transcript files or folders (default: the ingest sources nanodream.toml lists).",
        metavar="SOURCE...", show_default=False)] = None,
    fmt: Annotated[str | None, typer.Option(
        "--format", "-f", help=f"Read every file as this format: {', '.join(INGEST_FORMATS)} (default: detected "
                               "per file).", show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Show the entries that would be added; write nothing.")] = False,
    model: ModelOption = None,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Append transcripts to memory/history.jsonl as tagged entries, each message exactly once.

    Formats: nanobot sessions, OpenAI-style chat, Claude Code, Codex CLI, OpenClaw (detected per file).
    Tool traffic, reasoning and system prompts are left out; secrets are redacted (docs/ingest.md).

    \b
    Examples:
      nanodream ingest ~/.claude/projects/-home-me-app --dry-run
      nanodream ingest ~/.codex/sessions -w ~/agent
      nanodream ingest chat.jsonl --format openai --json
      nanodream ingest             # the configured sources
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    settings = resolve_settings(ws, {"model": model}, as_json=as_json)
    report = api.ingest(ws, list(sources or []), fmt=fmt, dry_run=dry_run, settings=settings)
    concluded(report, as_json, render_ingest, json_report=True)


def render_ingest(report: IngestReport) -> None:
    if report.recovered:
        console.print(f"[yellow]recovered:[/yellow] {report.recovered}", markup=True, highlight=False)
    for source in report.sources:
        _render_source(source)
    for entry in report.entries[:SHOWN]:
        cursor = f"#{entry['cursor']}" if entry["cursor"] is not None else "#new"
        first = entry["content"].splitlines()[0] if entry["content"] else ""
        say(f"    {cursor} {entry['timestamp']} {entry['session_key']}: {first}")
    if report.added > SHOWN:
        say(f"    and {report.added - SHOWN} more (nanodream ingest --json lists them)")
    if report.for_model:
        say("left for a model, whole (more than the built-in rules read in that language): "
            f"{by_language(report.for_model)}")
    for notice in report.notices:
        say(f"notice: {notice}")
    if report.tokens_in or report.tokens_out:
        cost = "unknown" if report.cost is None else f"${report.cost:.4f}"
        say(f"tokens in {report.tokens_in} · out {report.tokens_out} · cost {cost}")
    say(_ending(report))


def _render_source(source: SourceReport) -> None:
    kind = f" ({source.format})" if source.format else ""
    if source.error:
        say(f"✗ {source.path}{kind}: {source.error}")
        return
    say(f"  {source.path}{kind}: files {source.files}, with news {source.changed}, "
        f"new messages {source.messages} → {count_entries(source.entries)}")
    for line in source.skipped[:SHOWN]:
        say(f"    skipped {line}")
    if len(source.skipped) > SHOWN:
        say(f"    and {len(source.skipped) - SHOWN} more skipped")


def _ending(report: IngestReport) -> str:
    counts = f"new messages {report.messages}, read again {report.duplicates}, left out {report.left_out}"
    if report.outcome == Outcome.DRY_RUN:
        return f"dry run: would add {count_entries(report.added)} ({counts}); nothing was written"
    if report.outcome == Outcome.FAILED:
        return f"✗ {report.reason} ({counts})"
    if report.outcome == Outcome.INGESTED:
        first, last = report.cursors or (0, 0)
        return f"✓ added {count_entries(report.added)} (cursors {first}..{last}) from {counts}"
    return f"nothing new to ingest ({report.reason or counts})"


def register(app: typer.Typer) -> None:
    app.command()(ingest)
