"""`nanodream recall QUERY`: the memory lines, skills and turns said that best match a question, for a host or a
person."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import JsonOption, WorkspaceOption, concluded, console, resolve_workspace

if TYPE_CHECKING:
    from collections.abc import Sequence

    from nanodream.api import Hit, RecallReport


def recall(
    query: Annotated[str, typer.Argument(help="The question, in your own words.", show_default=False)],
    k: Annotated[int, typer.Option("-k", min=1, help="How many hits at most.")] = 5,
    as_of: Annotated[str | None, typer.Option(
        "--as-of", metavar="YYYY-MM-DD", show_default=False,
        help="Answer from memory as it stood on that day: the last commit by then, replaced facts true then, and the "
             "turns said by then."
    )] = None,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search memory lines, skills, the archive and the turns ingest kept for a question (BM25, stemmed:
    "deploying" finds "deploys"), ranked by one score; memory wins a tie.

    A fact a later one replaced is found too, marked with the day it stopped being true (`until`); a turn is
    shown with where and when it was said ("said on 2026-10-11 in openai:web-42").

    \b
    Examples:
      nanodream recall "how do we deploy?"
      nanodream recall "user's time zone" -k 3 --json
      nanodream recall "which database does billing use?" --as-of 2026-03-14
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    report = api.recall(ws, query, k, as_of=as_of)
    concluded(report, as_json, render_hits, listed=report.hits)


def render_hits(report: RecallReport) -> None:
    if report.as_of is not None:
        read = f"commit {report.commit[:8]}" if report.commit else "no commit yet; the archive's replaced facts"
        console.print(f"as of {report.as_of} ({read})", markup=False, highlight=False)
    if not report.hits:
        console.print("no memory matches", highlight=False)
    _render(report.hits)
    if report.related_hypotheses:  # inferred, never stated: shown apart so nobody reads them as facts
        console.print("related hypotheses (inferred by a dream, not stated by the user):", highlight=False)
        _render(report.related_hypotheses)
    if report.related_insights:  # connections a run proposed: never facts either
        console.print("related insights (connections to look at, not memory; nanodream insights show NAME):",
                      highlight=False)
        for found in report.related_insights:
            console.print(f"{found.score:5.2f}  {found.name} ({found.status}): {found.summary}", markup=False,
                          highlight=False)


# A turn can be a pasted page; a terminal shows its opening, `--json` all of it.
SHOWN_TURN_CHARS = 500


def _render(hits: Sequence[Hit]) -> None:
    for hit in hits:
        text = hit.text
        if hit.source == "turn":  # where it lives is the store's business; where and when it was said is not
            where = f"{hit.heading} · {hit.speaker}"
            if len(text) > SHOWN_TURN_CHARS:
                text = f"{text[:SHOWN_TURN_CHARS].rstrip()} … ({len(text) - SHOWN_TURN_CHARS} more characters: --json)"
        else:
            where = " · ".join(part for part in (f"{hit.file}:{hit.line}", hit.heading) if part)
        console.print(f"{hit.score:5.2f}  {where}", markup=False, highlight=False)
        console.print(f"       {text}", markup=False, highlight=False)


def register(root: typer.Typer) -> None:
    root.command()(recall)
