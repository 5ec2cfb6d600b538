"""The typer application: every subcommand lives in nanodream/commands/ and registers itself here."""

from __future__ import annotations

import os
import sys

import typer

from nanodream import __version__
from nanodream.commands import eval as evaluate
from nanodream.commands import (
    fleet,
    forget,
    history,
    hypotheses,
    ingest,
    init,
    insights,
    log,
    mcp,
    model,
    pin,
    prompt,
    quarantine,
    recall,
    reflect,
    restore,
    review,
    run,
    schedule,
    serve,
    show,
    simulate,
    skills,
    slash,
    status,
    why,
)
from nanodream.controls import visible
from nanodream.process import become_program
from nanodream.vocab import ExitCode

app = typer.Typer(
    name="nanodream",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (init, ingest, run, status, log, show, restore, review, why, forget, pin, hypotheses, insights, reflect,
               skills, recall, prompt, slash, schedule, quarantine, history, model, fleet, serve, mcp, evaluate,
               simulate):
    module.register(app)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"nanodream {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    """Give an AI agent a sleep: consolidate its history backlog into versioned markdown memory.

    \b
    Examples:
      nanodream init /tmp/demo --example && nanodream run -w /tmp/demo
      nanodream status -w ~/agent
      nanodream COMMAND --help
    """


def main() -> None:
    """The console entry point: whatever goes wrong ends in one line on stderr and a documented exit code."""
    become_program()
    try:
        app()
    except OSError as exc:  # the workspace or the disk, not nanodream: say which file and what
        where = f" ({exc.filename})" if exc.filename else ""
        _die(f"{exc.strerror or exc}{where}", ExitCode.FAILED)
    except Exception as exc:  # a bug: one line for cron's mail, the traceback on request
        if os.environ.get("NANODREAM_DEBUG"):
            raise
        _die(f"internal error: {type(exc).__name__}: {exc} (set NANODREAM_DEBUG=1 for the traceback)",
             ExitCode.FAILED)


def _die(message: str, code: int) -> None:
    sys.stderr.write(f"error: {visible(' '.join(message.split()))}\n")
    raise SystemExit(code)
