"""`nanodream init`: scaffold a workspace and its memory repository; never overwrite anything."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from nanodream.commands.common import JsonOption, console, emit_json, fail


def init(
    directory: Annotated[Path, typer.Argument(help="Workspace directory to create or complete.")] = Path("."),
    example: Annotated[bool, typer.Option("--example", help="Fill it with the example agent workspace.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Create a workspace (nanobot-compatible layout) with its own git repository.

    \b
    Examples:
      nanodream init ~/agent               # scaffold, or add git to an existing nanobot workspace
      nanodream init /tmp/demo --example   # a workspace with example memory and history
    """
    from nanodream.versioning.gitstore import GitStore
    from nanodream.workspace import Workspace, scaffold

    workspace = Workspace.at(directory)
    try:
        created = scaffold(workspace.root, example=example)
    except NotADirectoryError as exc:
        fail(str(exc), as_json=as_json)
    store = GitStore(workspace)
    new_repo = store.ensure_repo()
    if not new_repo and store.dirty_paths():
        store.commit("init: add memory files created by nanodream init\n\nDream-Kind: manual",
                     store.user_identity())
    if as_json:
        emit_json({"workspace": str(workspace.root), "created": created, "git_repository_created": new_repo})
        return
    console.print(f"Workspace ready at [bold]{escape(str(workspace.root))}[/bold]", highlight=False)
    for rel in created:
        console.print(f"  created {rel}", markup=False, highlight=False)
    if not created:
        console.print("  (everything was already there; nothing overwritten)")
    console.print(f"Next: nanodream run -w {directory}", markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(init)
