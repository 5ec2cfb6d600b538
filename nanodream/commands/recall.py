"""`nanodream recall QUERY`: the memory lines and skills that best match a question, for a host or a person."""

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
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search memory lines, skills and the archive for a question (BM25, stemmed: "deploying" finds "deploys").

    \b
    Examples:
      nanodream recall "how do we deploy?"
      nanodream recall "user's time zone" -k 3 --json
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    report = api.recall(ws, query, k)
    concluded(report, as_json, render_hits, listed=report.hits)


def render_hits(report: RecallReport) -> None:
    if not report.hits:
        console.print("no memory matches", highlight=False)
    _render(report.hits)
    if report.related_hypotheses:  # inferred, never stated: shown apart so nobody reads them as facts
        console.print("related hypotheses (inferred by a dream, not stated by the user):", highlight=False)
        _render(report.related_hypotheses)


def _render(hits: Sequence[Hit]) -> None:
    for hit in hits:
        where = " · ".join(part for part in (f"{hit.file}:{hit.line}", hit.heading) if part)
        console.print(f"{hit.score:5.2f}  {where}", markup=False, highlight=False)
        console.print(f"       {hit.text}", markup=False, highlight=False)


def register(root: typer.Typer) -> None:
    root.command()(recall)
