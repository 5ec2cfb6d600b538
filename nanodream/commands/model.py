"""`nanodream model check`: does this model keep what a dream gives it, in the tool_mode it will run with?"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import JsonOption, ModelOption, WorkspaceOption, concluded, console

if TYPE_CHECKING:
    from nanodream.api import ModelVerdict

app = typer.Typer(no_args_is_help=True)


@app.callback()
def model() -> None:
    """The model nanodream dreams with: check that it keeps a dream's facts before relying on it.

    \b
    Examples:
      nanodream model check -m openai/qwen2.5-coder --api-base http://127.0.0.1:8080/v1
    """


@app.command()
def check(
    workspace: WorkspaceOption = None,
    model: ModelOption = None,
    api_base: Annotated[str | None, typer.Option(
        "--api-base", help="Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1.",
        show_default=False)] = None,
    tool_mode: Annotated[str | None, typer.Option(
        "--tool-mode", metavar="auto|native|text|structured", show_default=False,
        help="The tool_mode to check. Default: the tool_mode setting (nanodream.toml, NANODREAM_TOOL_MODE).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Dream a tiny batch (two facts and a correction) on a scratch copy and say whether the model kept it.

    The batch goes through the same run path cron uses — tool_mode, prompt, guards, the per-fact accounting
    and the structured fallback — in a temporary workspace that is thrown away; your memory is never read or
    written. Usable only when memory afterwards holds both facts and the correction in place of the line it
    corrects. Settings come from nanodream.toml, NANODREAM_* and the flags, as for `run` (a CPU model takes
    minutes: each request is bounded by max_tokens and timeout). Exit 0 when usable, 1 when not, 2 on a
    configuration error.

    \b
    Examples:
      nanodream model check -m openai/qwen2.5-coder --api-base http://127.0.0.1:8080/v1
      nanodream model check -m openai/qwen --api-base http://127.0.0.1:8011/v1 --tool-mode structured --json
    """
    from nanodream import api

    concluded(api.check_model(workspace or Path.cwd(), model=model, api_base=api_base, tool_mode=tool_mode),
              as_json, lambda report: render_check(report.verdict))


def render_check(report: ModelVerdict) -> None:
    from rich.table import Table

    table = Table(show_header=False, box=None, pad_edge=False)
    rows = [("model", report.model), ("api_base", report.api_base or "(provider default)"),
            ("tool_mode checked", report.tool_mode + (" (fell back to structured)" if report.structured_used else "")),
            ("dream", f"{report.outcome}, {report.requests} requests, {report.seconds:.0f}s"),
            ("tool calls", f"{report.native_tool_calls} native, {report.text_tool_calls} written as text"),
            ("token usage reported", "yes" if report.usage_reported else "no"),
            ("price known to litellm", "yes" if report.price_known else "no")]
    rows += [(f"fact: {f.fact}", f.status + (f" in {f.file}" if f.file else "")) for f in report.facts]
    rows += [("corrected line replaced", "yes" if report.replaced else "no"), ("usable", "yes" if report.usable
                                                                                else "no")]
    for name, value in rows:
        table.add_row(name, value)
    console.print(table, markup=False, highlight=False)
    for problem in report.problems:
        console.print(f"problem: {problem}", markup=False, highlight=False)
    console.print(report.advice, markup=False, highlight=False)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="model")
