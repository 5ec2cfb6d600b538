"""`nanodream model check`: can this model and server use the dream's tools, and in which tool_mode?"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from nanodream.commands.common import JsonOption, ModelOption, WorkspaceOption, concluded, console

if TYPE_CHECKING:
    from nanodream.api import ProbeReport

app = typer.Typer(no_args_is_help=True)


@app.callback()
def model() -> None:
    """The model nanodream dreams with: check that it can use the dream's tools before relying on it.

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
    as_json: JsonOption = False,
) -> None:
    """Ask the model to call a tool (one or two tiny requests) and say which tool_mode works.

    Tells whether the model and its server return native tool calls, calls written as text, or neither;
    whether they report token usage; whether litellm knows the price. Settings come from nanodream.toml,
    NANODREAM_* and the flags, as for `run`; no memory is read or written. Exit 0 when the model is usable,
    1 when it is not, 2 on a configuration error.

    \b
    Examples:
      nanodream model check -m openai/qwen2.5-coder --api-base http://127.0.0.1:8080/v1
      nanodream model check -m ollama/llama3.2 --json
    """
    from nanodream import api

    concluded(api.check_model(workspace or Path.cwd(), model=model, api_base=api_base), as_json,
              lambda report: render_probe(report.probe))


def render_probe(report: ProbeReport) -> None:
    from rich.table import Table

    def yes(value: bool) -> str:
        return "yes" if value else "no"

    table = Table(show_header=False, box=None, pad_edge=False)
    rows = [("model", report.model), ("api_base", report.api_base or "(provider default)"),
            ("native tool calls", yes(report.native_tool_calls)),
            ("tool calls written as text", yes(report.text_tool_calls)),
            ("token usage reported", yes(report.usage_reported)), ("price known to litellm", yes(report.price_known)),
            ("requests", str(report.requests)), ("tool_mode to use", report.tool_mode or "none works"),
            ("usable", yes(report.usable))]
    for name, value in rows:
        table.add_row(name, value)
    console.print(table, markup=False, highlight=False)
    if report.error:
        console.print(f"error: {report.error}", markup=False, highlight=False)
    elif not report.usable:
        console.print("The model answered without calling the tool, natively or as text: every dream would end "
                      "as model-no-op. Try a larger or tool-tuned model.", markup=False, highlight=False)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="model")
