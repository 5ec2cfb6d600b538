"""The typer application: every subcommand lives in nanodream/commands/ and registers itself here."""

from __future__ import annotations

import typer

from nanodream import __version__
from nanodream.commands import history, init, log, prompt, quarantine, restore, run, schedule, show, slash, status

app = typer.Typer(
    name="nanodream",
    help="Give an AI agent a sleep: consolidate its history backlog into versioned markdown memory.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (init, run, status, log, show, restore, prompt, slash, schedule, quarantine, history):
    module.register(app)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"nanodream {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    """Give an AI agent a sleep: consolidate its history backlog into versioned markdown memory."""


def main() -> None:
    app()
