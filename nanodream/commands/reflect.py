"""`nanodream reflect`: memory's health, read without a model — what a run's reflect phase hands connect."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from nanodream.commands.common import JsonOption, WorkspaceOption, concluded, resolve_workspace, say

if TYPE_CHECKING:
    from nanodream.api import ReflectReport


def reflect(workspace: WorkspaceOption = None, as_json: JsonOption = False) -> None:
    """Lines near their archive date, lines that disagree about the same subject, hypotheses and insights
    waiting for a decision, dead letters, lines that may be out of date since a fact they name changed.
    Changes nothing.

    \b
    Examples:
      nanodream reflect
      nanodream reflect --json
    """
    from nanodream import api

    ws = resolve_workspace(workspace, as_json=as_json)
    concluded(api.reflect(ws), as_json, render)


def render(report: ReflectReport) -> None:
    found = report.reflection
    lines = found.lines() if found is not None else []
    for line in lines:
        say(line)
    if not lines:
        say("memory looks healthy: nothing near its archive date, nothing that disagrees, no hypothesis or insight "
            "waiting for a decision")


def register(root: typer.Typer) -> None:
    root.command()(reflect)
