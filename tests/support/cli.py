"""The CLI, run in-process: one CliRunner for the suite and one way to call `nanodream ARGS`."""

from __future__ import annotations

from collections.abc import Mapping

from typer.testing import CliRunner, Result

from nanodream.cli import app
from nanodream.workspace import Workspace

runner = CliRunner()


def cli(*args: str, ws: Workspace | None = None, env: Mapping[str, str | None] | None = None,
        catch_exceptions: bool = True) -> Result:
    """`nanodream ARGS`, with `-w ROOT` appended when a workspace is given."""
    extra = ["-w", str(ws.root)] if ws is not None else []
    return runner.invoke(app, [*args, *extra], env=env, catch_exceptions=catch_exceptions)
