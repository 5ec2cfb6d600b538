"""Options and rendering shared by the subcommands."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from nanodream.controls import visible
from nanodream.vocab import ExitCode, Outcome, Refused
from nanodream.vocab import as_json as as_json_value

# The door (or the action) turned the request away: nothing was written.
REFUSALS = (Outcome.BUSY, Outcome.BLOCKED, Outcome.REFUSED)

if TYPE_CHECKING:
    from nanodream.api import Settings, Workspace
    from nanodream.vocab import Report

class VisibleConsole(Console):
    """A console that shows the control characters of what it prints instead of sending them to the terminal.

    Every string printed — our words around history, memory, a model's summary or a commit subject — passes
    `render_str`, so one place keeps an escape sequence in any of them from retitling or clearing the
    person's terminal. (rich's own colours are added after this, and stay.)
    """

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(visible(text), **kwargs)


# soft_wrap: a long line stays one line (cron mail, pipes, logs); a terminal still wraps it visually. emoji off:
# a session key and its colon ("openai:a: …") or a memory line's ":fire:" are shown as written, not as emoji.
console = VisibleConsole(soft_wrap=True, emoji=False)
err_console = VisibleConsole(stderr=True, soft_wrap=True, emoji=False)

WorkspaceOption = Annotated[
    Path | None,
    typer.Option("--workspace", "-w",
                 help="Workspace directory (default: $NANODREAM_WORKSPACE, else the current directory).",
                 show_default=False),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of text.")]
ModelOption = Annotated[
    str | None, typer.Option("--model", "-m", help="litellm model string, or 'builtin' for the offline engine.")
]


# How a line that says why nothing happened starts, by exit code: the same from every command.
LABELS = {ExitCode.BUSY: ("busy", "yellow"), ExitCode.NEEDS_PERSON: ("blocked", "red")}


def fail(message: str, code: int = ExitCode.USAGE, *, as_json: bool = False) -> NoReturn:
    """One clear line on stderr (or a JSON error object) and a meaningful exit code."""
    if as_json:
        emit_json({"error": message, "exit_code": code})
    else:
        _say_why(message, code)
    raise typer.Exit(code)


def _say_why(message: str, code: int) -> None:
    label, colour = LABELS.get(code, ("error", "red"))
    err_console.print(f"[{colour}]{label}:[/{colour}] {escape(message)}", highlight=False, soft_wrap=True)


def concluded(report: Report, as_json: bool, render: Callable[[Any], None], *, json_report: bool = False,
              listed: list[Any] | None = None) -> NoReturn:
    """Print a report and exit with its code: refusals the one shared way, the rest with `render`.

    `json_report`: the command's documented `--json` is the report itself even when it refused (run, restore,
    review, forget); otherwise a refusal prints docs/json.md's `{"error", "exit_code"}`. `listed`: the command's
    `--json` is this list of the report's (docs/json.md says which), not the report.
    """
    turned_away = report.outcome in REFUSALS
    if as_json:
        if turned_away and not json_report:
            emit_json({"error": report.reason, "exit_code": int(report.exit_code)})
        else:
            emit_json(report.to_json() if listed is None else as_json_value(listed))
    elif turned_away:
        refused(report)
    else:
        render(report)
    raise typer.Exit(report.exit_code)


def refused(report: Report) -> None:
    """A change that did not go ahead, said the same way by every command: `busy:`, `blocked:` (a person must act
    first) or `error:`, one line, then the hint if there is one."""
    _say_why(report.reason, report.exit_code)
    if report.hint:
        err_console.print(f"hint: {report.hint}", markup=False, highlight=False, soft_wrap=True)


def say(text: str) -> None:
    """One line of output printed as it is: memory, history and model words are never rich markup."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def inherited(ctx: typer.Context, workspace: Path | None, as_json: bool) -> tuple[Path | None, bool]:
    """Options given to a command group itself (`nanodream prompt -w WS init`) count for its subcommand too."""
    parent = ctx.parent.params if ctx.parent is not None else {}
    return workspace or parent.get("workspace"), as_json or bool(parent.get("as_json"))


def emit_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, sort_keys=True, default=str))


def resolve_workspace(option: Path | None, *, must_exist: bool = True, as_json: bool = False) -> Workspace:
    """The workspace `-w` (else $NANODREAM_WORKSPACE, else here) names; one that is none ends the command."""
    from nanodream import api

    raw = option or os.environ.get("NANODREAM_WORKSPACE") or "."
    if not must_exist:
        return api.Workspace.at(raw)
    try:
        return api.workspace_at(raw)
    except Refused as exc:  # said with the path as the person typed it
        hint = f"; create one with: nanodream init {raw}" if exc.hint else ""
        fail(f"{exc.reason}{hint}", exc.exit_code, as_json=as_json)


def resolve_settings(workspace: Workspace, overrides: dict[str, Any] | None = None, *,
                     as_json: bool = False) -> Settings:
    from nanodream import api

    try:
        return api.settings_for(workspace, overrides)
    except Refused as exc:
        fail(exc.reason, exc.exit_code, as_json=as_json)
