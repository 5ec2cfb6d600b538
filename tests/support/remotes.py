"""Memory remotes for the sync tests: real bare repositories, workspaces that name their machine, and what a
repository holds (every ref, every object) to prove that nothing changed or nothing leaked."""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from nanodream import clock
from nanodream.config import Settings
from nanodream.memory.transaction import ensure_repository
from nanodream.run.dream import run_dream
from nanodream.run.report import RunReport
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.support.workspaces import SAFE_GIT, entry, write_history

BUILTIN = Settings(phases=())  # the offline engine, without the insight phases: each dream is one commit


def bare_remote(path: Path) -> Path:
    subprocess.run([*SAFE_GIT, "init", "-q", "--bare", "--initial-branch=main", str(path)], check=True)
    return path


def machine_workspace(root: Path, machine: str, remote: Path | None = None) -> Workspace:
    """A workspace whose commits say `Machine: machine` (nanodream.local.toml), with `origin` at `remote`."""
    ws = Workspace.at(root)
    scaffold(ws.root)
    (ws.root / "nanodream.local.toml").write_text(f'[sync]\nmachine = "{machine}"\n', encoding="utf-8")
    ensure_repository(GitStore(ws))
    if remote is not None:
        run(ws.root, "remote", "add", "origin", str(remote))
    return ws


def name_machine(ws: Workspace, machine: str) -> None:
    (ws.root / "nanodream.local.toml").write_text(f'[sync]\nmachine = "{machine}"\n', encoding="utf-8")


def dream_facts(ws: Workspace, facts: list[str], day: int = 1) -> RunReport:
    """Append tagged facts to the workspace's own history and dream them with the built-in engine."""
    lines = ws.history_file.read_text(encoding="utf-8").splitlines() if ws.history_file.exists() else []
    cursor = len(lines) + 1
    entries = [*lines, *(entry(cursor + i, fact, day=day) for i, fact in enumerate(facts))]
    write_history(ws, entries)
    report = run_dream(ws, BUILTIN)
    assert report.exit_code == 0, report.reason
    return report


def run(root: Path, *args: str) -> str:
    return subprocess.run([*SAFE_GIT, *args], cwd=root, check=True, capture_output=True, text=True).stdout.strip()


def refs(root: Path) -> dict[str, str]:
    """Every ref of a repository (a workspace's or a bare one), HEAD included."""
    listed = run(root, "for-each-ref", "--format=%(refname) %(objectname)")
    found = {line.split(" ")[0]: line.split(" ")[1] for line in listed.splitlines()} if listed else {}
    head = subprocess.run([*SAFE_GIT, "rev-parse", "-q", "--verify", "HEAD"], cwd=root, capture_output=True,
                          text=True).stdout.strip()
    return {**found, "HEAD": head}


def every_object(root: Path) -> bytes:
    """The content of every object a repository holds, reachable or not."""
    return subprocess.run([*SAFE_GIT, "cat-file", "--batch-all-objects", "--batch"], cwd=root, check=True,
                          capture_output=True).stdout


def tree_of(path: Path) -> dict[str, str]:
    """Every file under `path` (a .git folder, a whole workspace) by its hash: anything written shows."""
    return {str(item.relative_to(path)): hashlib.sha256(item.read_bytes()).hexdigest()
            for item in sorted(path.rglob("*")) if item.is_file()}


@contextmanager
def at(moment: str) -> Iterator[None]:
    """nanodream's clock (and so its commits' dates) pinned to `moment` (ISO 8601)."""
    with clock.pinned(datetime.fromisoformat(moment)):
        yield
