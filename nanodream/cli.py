"""The typer application: every subcommand lives in nanodream/commands/ and registers itself here."""

from __future__ import annotations

import os
import sys
from importlib import import_module
from typing import Any

import typer

from nanodream import __version__, commands
from nanodream.controls import visible
from nanodream.process import become_program
from nanodream.vocab import ExitCode

# Every command, in the order `--help` lists them; each is nanodream/commands/<name>.py, which registers it.
COMMANDS = ("init", "ingest", "run", "status", "log", "show", "restore", "review", "why", "forget", "pin",
            "hypotheses", "insights", "reflect", "skills", "recall", "prompt", "slash", "schedule", "quarantine",
            "history", "sync", "model", "fleet", "serve", "mcp", "hosts", "eval", "simulate")


def build(names: tuple[str, ...] = COMMANDS) -> typer.Typer:
    """The typer application with the commands `names` (all by default).

    Building a command costs typer its whole signature (~1 ms each, and the command's module): a process that
    runs one command builds only that one (`main`); `--help` and a host's `nanodream.cli.app` get them all.
    """
    application = typer.Typer(name="nanodream", no_args_is_help=True, add_completion=False,
                              pretty_exceptions_enable=False)
    for name in names:
        import_module(f"{commands.__name__}.{name}").register(application)
    application.callback()(_root)
    return application


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole application, built on first use
        globals()["app"] = build()
        return globals()["app"]
    raise AttributeError(f"module 'nanodream.cli' has no attribute {name!r}")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"nanodream {__version__}")
        raise typer.Exit()


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
        build(_invoked(sys.argv[1:]))()
    except OSError as exc:  # the workspace or the disk, not nanodream: say which file and what
        where = f" ({exc.filename})" if exc.filename else ""
        _die(f"{exc.strerror or exc}{where}", ExitCode.FAILED)
    except Exception as exc:  # a bug: one line for cron's mail, the traceback on request
        if os.environ.get("NANODREAM_DEBUG"):
            raise
        _die(f"internal error: {type(exc).__name__}: {exc} (set NANODREAM_DEBUG=1 for the traceback)",
             ExitCode.FAILED)


def _invoked(argv: list[str]) -> tuple[str, ...]:
    """The one command `argv` runs, when it names one first; else every command (`--help`, a typo, nothing)."""
    first = argv[0] if argv else ""
    return (first,) if first in COMMANDS else COMMANDS


def _die(message: str, code: int) -> None:
    sys.stderr.write(f"error: {visible(' '.join(message.split()))}\n")
    raise SystemExit(code)
