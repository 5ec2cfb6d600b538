"""Shared fixtures: real workspaces on disk with real git repositories, and the scripted model server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from nanodream.memory.transaction import ensure_repository
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.support.scripted_server import ScriptedServer

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No NANODREAM_* or GIT_* leaks from the developer's shell into a test."""
    for name in list(os.environ):
        if name.startswith(("NANODREAM_", "GIT_")):
            monkeypatch.delenv(name)


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    ws = Workspace.at(tmp_path / "ws")
    scaffold(ws.root)
    ensure_repository(GitStore(ws))
    return ws


@pytest.fixture
def serve() -> Iterator:
    """Start scripted servers for a test and stop them afterwards."""
    started: list[ScriptedServer] = []

    def start(script, **kwargs) -> ScriptedServer:
        server = ScriptedServer(list(script), **kwargs).__enter__()
        started.append(server)
        return server

    yield start
    for server in started:
        server.__exit__(None, None, None)
