"""How every action of the host API is declared: `@action`, the one refusal path, and what all actions share.

The command line, the slash commands, the page and the MCP server only parse their input, call these and
render what comes back, so every front end refuses, succeeds and fails the same way. Nothing here raises
for a person's mistake or the workspace's state: an action raises `Refused` anywhere inside, and `@action`
turns it into the action's own report (`exit_code` what a command line should end with, `to_json()` the shape
`--json` prints, docs/json.md). Heavy modules (the run machinery, litellm, bm25s) are imported inside the
action that needs them.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from nanodream.api import reports
from nanodream.layout import Linked, check_plain
from nanodream.vocab import ExitCode, Refused, Report
from nanodream.workspace import Workspace

if TYPE_CHECKING:
    from nanodream.config import Settings

WorkspaceLike = Workspace | str | Path
Act = TypeVar("Act", bound=Callable[..., Report])
ACTIONS: list[str] = []  # every action's name, in the order declared
# The fields a refused report starts from: fixed values, or a function of the call's arguments (by name).
Blank = dict[str, Any] | Callable[..., dict[str, Any]]


def action(blank: Blank | None = None) -> Callable[[Act], Act]:
    """The refusal path, written once: `Refused` raised anywhere in the action — the workspace's, the settings',
    the door's or the action's own — becomes the report its return annotation names, made from `blank` and
    refused (outcome, reason, hint, exit code)."""

    def declare(act: Act) -> Act:
        ACTIONS.append(act.__name__)

        @functools.wraps(act)
        def answer(*args: Any, **kwargs: Any) -> Report:
            try:
                return act(*args, **kwargs)
            except Refused as refused:
                report = _blank_report(act, blank, args, kwargs)
                report.refuse(refused)
                return report

        return cast(Act, answer)

    return declare


def _blank_report(act: Callable[..., Report], blank: Blank | None, args: tuple, kwargs: dict) -> Report:
    values = blank or {}
    if callable(values):
        call = inspect.signature(act).bind(*args, **kwargs)
        call.apply_defaults()
        values = values(**call.arguments)
    return getattr(reports, act.__annotations__["return"])(**values)


def workspace_at(where: WorkspaceLike) -> Workspace:
    """The workspace at `where`; Refused (exit 2) when it is not one, naming why."""
    workspace = where if isinstance(where, Workspace) else Workspace.at(where)
    problem = workspace.problem()
    if problem:
        raise Refused(problem, f"create one with: nanodream init {workspace.root}" if workspace.missing else "",
                      ExitCode.USAGE)
    try:
        check_plain(workspace)  # readers too: a linked history or state folder belongs to someone else
    except Linked as exc:
        raise Refused(str(exc), exit_code=ExitCode.NEEDS_PERSON) from None
    return workspace


def settings_for(workspace: Workspace, overrides: dict[str, Any] | None = None) -> Settings:
    """The workspace's settings with `overrides`; Refused (exit 2) naming the key when they are wrong."""
    from nanodream.config import ConfigError, load_settings

    try:
        return load_settings(workspace, overrides)
    except ConfigError as exc:
        raise Refused(f"configuration: {exc}", exit_code=ExitCode.USAGE) from None


def write_result(path: Path, data: Any) -> None:
    """A report's JSON written to `path` atomically: JSON, or YAML when it ends in .yaml/.yml (`-o FILE`)."""
    import json

    from nanodream.atomic import atomic_write

    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        from nanodream.boundedjson import plain

        text = yaml.safe_dump(plain(data), sort_keys=False, allow_unicode=True)
    else:
        text = json.dumps(data, indent=2, sort_keys=True, default=str) + "\n"
    atomic_write(path, text)
