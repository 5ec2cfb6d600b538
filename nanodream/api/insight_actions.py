"""Insights: listing, one in full, a person's decision on one, an insights run, and reflect."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nanodream.api.acting import WorkspaceLike, action, settings_for, workspace_at
from nanodream.api.dreaming import run, run_blank
from nanodream.api.reports import (
    InsightReport,
    InsightsReport,
    ReflectReport,
)
from nanodream.vocab import ExitCode, Refused

if TYPE_CHECKING:
    from nanodream.edits.insights import InsightDecisionReport
    from nanodream.run.context import RunOptions
    from nanodream.run.report import RunReport


@action()
def insights(where: WorkspaceLike, status: str | None = None, limit: int | None = None) -> InsightsReport:
    """The insights in view (every status but rejected), or those of `status`, by name; changes nothing.

    An unknown status is refused (exit 2); a file that does not parse is listed apart in `broken`.
    """
    from nanodream.insights.records import STATUSES
    from nanodream.insights.shelf import read_shelf

    if status is not None and status not in STATUSES:
        raise Refused(f"unknown status {status!r}; choose one of {', '.join(STATUSES)}", exit_code=ExitCode.USAGE)
    shelf = read_shelf(workspace_at(where))
    return InsightsReport(insights=shelf.shown(status)[:limit], broken=shelf.broken)


@action()
def insight(where: WorkspaceLike, name: str) -> InsightReport:
    """One insight by name; an unknown name is refused (exit 2) naming the insights there are."""
    from nanodream.insights.shelf import read_shelf

    shelf = read_shelf(workspace_at(where))
    found = shelf.get(name)
    if found is None:
        broken = next((b for b in shelf.broken if b.path.endswith(f"/{name}.md")), None)
        if broken is not None:
            raise Refused(f"{broken.path} cannot be read: {broken.problem}", exit_code=ExitCode.USAGE)
        known = ", ".join(item.name for item in shelf.insights[:10]) or "none yet"
        raise Refused(f"no insight named {name!r} (insights: {known})", "`nanodream insights list` lists them",
                      ExitCode.USAGE)
    return InsightReport(insight=found)


@action(lambda name, decision, **_: {"name": name, "decision": decision})
def decide_insight(where: WorkspaceLike, name: str, decision: str, note: str = "") -> InsightDecisionReport:
    """A decision on one insight — reinforce, stale, reject or promote — as one commit; `promote` appends one
    history entry (session_key `insight:<name>`) for the next dream to judge, and writes no fact."""
    from nanodream.edits.insights import decide

    workspace = workspace_at(where)
    return decide(workspace, settings_for(workspace), name, decision, note)


@action(run_blank)
def insights_run(where: WorkspaceLike, phases: list[str] | None = None, max_insights: int | None = None, *,
                 options: RunOptions | None = None) -> RunReport:
    """A run with these insight phases and `max_insights` (the settings' when None): the backlog first, as any
    run does, then the phases; with an empty backlog the tidy pass, then connect explores old material."""
    from nanodream.run.context import RunOptions

    workspace = workspace_at(where)
    overrides = {"phases": None if phases is None else ",".join(phases), "max_insights": max_insights}
    settings = settings_for(workspace, overrides)
    return run(workspace, settings, options or RunOptions(trigger="mcp", allow_empty=True))


@action()
def reflect(where: WorkspaceLike) -> ReflectReport:
    """Memory's health without a model: lines near their archive date, lines that disagree, decisions waiting,
    dead letters (what a run's reflect phase hands connect), lines that may be out of date since a fact they
    name changed; changes nothing."""
    from nanodream.insights.reflect import reflect as look
    from nanodream.insights.shelf import read_shelf
    from nanodream.run import confirmations
    from nanodream.run.cascade import out_of_date

    workspace = workspace_at(where)
    settings = settings_for(workspace)
    restated = confirmations.load(workspace)
    found = look(workspace, read_shelf(workspace), settings.archive_after_days,
                 lambda line: restated.get(confirmations.line_key(line)))
    found.out_of_date = [item.message for item in out_of_date(workspace)]
    return ReflectReport(reflection=found)
