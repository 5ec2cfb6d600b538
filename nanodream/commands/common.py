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
from nanodream.vocab import ExitCode, Outcome

# The door (or the action) turned the request away: nothing was written.
REFUSALS = (Outcome.BUSY, Outcome.BLOCKED, Outcome.REFUSED)

if TYPE_CHECKING:
    from nanodream.config import Settings
    from nanodream.vocab import Report
    from nanodream.workspace import Workspace

class VisibleConsole(Console):
    """A console that shows the control characters of what it prints instead of sending them to the terminal.

    Every string printed — our words around history, memory, a model's summary or a commit subject — passes
    `render_str`, so one place keeps an escape sequence in any of them from retitling or clearing the
    person's terminal. (rich's own colours are added after this, and stay.)
    """

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(visible(text), **kwargs)


# soft_wrap: a long line stays one line (cron mail, pipes, logs); a terminal still wraps it visually.
console = VisibleConsole(soft_wrap=True)
err_console = VisibleConsole(stderr=True, soft_wrap=True)

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


def concluded(report: Report, as_json: bool, render: Callable[[Any], None], *, json_report: bool = False) -> NoReturn:
    """Print a report and exit with its code: refusals the one shared way, the rest with `render`.

    `json_report`: the command's documented `--json` is the report itself even when it refused (run, restore,
    review, forget); otherwise a refusal prints docs/json.md's `{"error", "exit_code"}`.
    """
    turned_away = report.outcome in REFUSALS
    if as_json:
        if turned_away and not json_report:
            emit_json({"error": report.reason, "exit_code": int(report.exit_code)})
        else:
            emit_json(report.to_json())
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


def write_result(path: Path, data: Any) -> None:
    """`-o FILE`: the same object `--json` prints, as JSON, or YAML when FILE ends in .yaml/.yml; atomically."""
    from nanodream.atomic import atomic_write

    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        from nanodream.boundedjson import plain

        text = yaml.safe_dump(plain(data), sort_keys=False, allow_unicode=True)
    else:
        text = json.dumps(data, indent=2, sort_keys=True, default=str) + "\n"
    atomic_write(path, text)


def resolve_workspace(option: Path | None, *, must_exist: bool = True, as_json: bool = False) -> Workspace:
    from nanodream.workspace import Workspace

    raw = option or os.environ.get("NANODREAM_WORKSPACE") or "."
    workspace = Workspace.at(raw)
    problem = workspace.problem() if must_exist else None
    if problem:
        hint = f"; create one with: nanodream init {raw}" if workspace.missing else ""
        fail(f"{problem}{hint}", as_json=as_json)
    if must_exist:
        from nanodream.layout import Linked, check_plain

        try:
            check_plain(workspace)
        except Linked as exc:
            fail(str(exc), ExitCode.NEEDS_PERSON, as_json=as_json)
    return workspace


def resolve_settings(workspace: Workspace, overrides: dict[str, Any] | None = None, *,
                     as_json: bool = False) -> Settings:
    from nanodream.config import ConfigError, load_settings

    try:
        return load_settings(workspace, overrides)
    except ConfigError as exc:
        fail(f"configuration: {exc}", as_json=as_json)
