"""`nanodream show`: one memory commit in full — the words, the real changes, the history it consumed, the diff."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import JsonOption, WorkspaceOption, concluded, console, resolve_workspace
from nanodream.commands.log import commit_facts, file_stat
from nanodream.controls import visible
from nanodream.vocab import count, count_entries

if TYPE_CHECKING:
    from rich.console import Console

    from nanodream.api import CommitDetail, MemoryAsOf


def show(
    sha: Annotated[str | None, typer.Argument(
        metavar="[SHA | FILE]", show_default=False,
        help="Commit to show (default: the latest dream); with --as-of, a memory file (default: the three "
             "active files).")] = None,
    as_of: Annotated[str | None, typer.Option(
        "--as-of", metavar="YYYY-MM-DD", show_default=False,
        help="Print memory files as they stood on that day (the last commit by then) instead of a commit.")] = None,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show what one dream (or any memory commit) changed and why; with --as-of, memory as it stood on a day.

    \b
    Examples:
      nanodream show            # the latest dream
      nanodream show 3f2a9c1e
      nanodream show --as-of 2026-03-14 USER.md
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    if as_of is not None:
        concluded(api.memory_as_of(ws, as_of, [sha] if sha else None), as_json, render_as_of)
    concluded(api.show(ws, sha), as_json, lambda report: render_detail(console, report.detail))


def render_as_of(report: MemoryAsOf) -> None:
    """Each file as it stood, under a line saying which commit that was and what history's dates changed."""
    if report.commit is None and not report.learned_later:
        console.print(f"memory had no commit on or before {report.as_of}", markup=False, highlight=False)
        return
    source = f"commit {report.commit[:8]}, {report.time}" if report.commit else "no commit yet"
    notes = [f"{count(len(report.learned_later), 'line')} later dreams learned from history of that day or before"
             if report.learned_later else "",
             f"{count(len(report.ended), 'line')} no longer true by then" if report.ended else ""]
    source = "; ".join([source, *filter(None, notes)])
    for file in report.files:
        console.print(f"── {file.path} as of {report.as_of} ({source}) ──", markup=False, highlight=False)
        if file.missing:
            console.print("(it did not exist then)", markup=False, highlight=False)
        else:
            console.file.write(visible(file.text or ""))
            console.file.flush()


def render_detail(out: Console, detail: CommitDetail) -> None:
    """`git show` for people: the facts, the session's words, the real changes, the history, the diff."""

    def line(text: str = "") -> None:
        out.print(text, markup=False, highlight=False, soft_wrap=True)

    _render_head(out, detail, line)
    line()
    line("Changes (from the diff):")
    for stat in detail.files:
        line(f"  {file_stat(stat)}")
    if detail.history:
        line()
        _render_history(detail, line)
    line()
    render_diff(out, detail.diff)


def _render_head(out: Console, detail: CommitDetail, line: Callable[..., None]) -> None:
    out.print(f"[bold]commit {detail.sha}[/bold] ({detail.kind})", highlight=False)
    line(f"Date:   {detail.time}")
    line(f"Author: {detail.author}")
    facts = commit_facts(detail)
    if facts:
        line("        " + " · ".join(facts))
    if detail.run:
        line(f"Run:    {detail.run}")
    line()
    line(f"    {detail.subject}")
    summary = detail.summary.splitlines()
    if summary and detail.subject.endswith(summary[0].strip()):
        summary = summary[1:]  # the subject already says it
    if any(text.strip() for text in summary):
        line()
        for text in summary:
            line(f"    {text}".rstrip())


def _render_history(detail: CommitDetail, line: Callable[..., None]) -> None:
    first, last = detail.history["first"], detail.history["last"]
    if not detail.history_entries:
        line(f"History consumed: #{first}..#{last} (no longer in history.jsonl)")
        return
    line(f"History consumed (#{first}..#{last}, {count_entries(len(detail.history_entries))} still in history.jsonl):")
    for entry in detail.history_entries:
        session = f" {entry['session_key']}" if entry["session_key"] else ""
        where = f"line {entry['line']}, " if entry.get("line") else ""
        line(f"  [{where}#{entry['cursor']} {entry['timestamp']}{session}]")
        for text in entry["content"].splitlines():
            line(f"    {text}")


def render_diff(out: Console, diff: str) -> None:
    """Syntax-highlighted on a terminal; the plain patch when piped, so it can be grepped (control characters
    shown, never sent: `git show SHA` gives the exact bytes)."""
    diff = visible(diff)
    if out.is_terminal:
        from rich.syntax import Syntax

        out.print(Syntax(diff, "diff", theme="ansi_dark", word_wrap=False))
    else:
        out.file.write(diff)
        out.file.flush()


def register(app: typer.Typer) -> None:
    app.command()(show)
