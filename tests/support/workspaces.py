"""Helpers every test module shares: history lines, a workspace's snapshot, a test's own git, model settings."""

from __future__ import annotations

import hashlib
import json
import subprocess

from nanodream.config import Settings
from nanodream.workspace import Workspace
from tests.support.scripted_server import ScriptedServer


def write_history(ws: Workspace, entries: list[dict | str]) -> None:
    """Write history lines; a str is written verbatim (for malformed lines)."""
    lines = [e if isinstance(e, str) else json.dumps(e) for e in entries]
    ws.history_file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def entry(cursor: int, content: str, session_key: str | None = "cli:direct", day: int = 1) -> dict:
    data = {"cursor": cursor, "timestamp": f"2026-10-{day:02d} 10:{cursor % 60:02d}", "content": content}
    if session_key is not None:
        data["session_key"] = session_key
    return data


def snapshot(ws: Workspace) -> dict[str, str]:
    """Hash of every file in the workspace outside .git and the run-record folder, plus HEAD."""
    files = {}
    for path in sorted(ws.root.rglob("*")):
        rel = path.relative_to(ws.root).as_posix()
        if rel.startswith((".git/", ".nanodream/")) or not path.is_file():
            continue
        files[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    files["HEAD"] = git(ws, "rev-parse", "HEAD")
    return files


# What a dream may refresh on its way in and still change nothing: caches of what it read, and its lock file.
READ_CACHES = ("dream.lock", "survey.json", "skill-usage.json", "history-index.json", "recall/")


def whole_state(ws: Workspace) -> dict[str, str]:
    """Everything a dream that applies nothing must leave as it was: every file outside .git, nanodream's own state
    included (runs, transcripts, position, journal; not the caches of what it read), every ref and every object."""
    files = {}
    for path in sorted(ws.root.rglob("*")):
        rel = path.relative_to(ws.root).as_posix()
        if rel.startswith(".git/") or not path.is_file() or rel.removeprefix(".nanodream/").startswith(READ_CACHES):
            continue
        files[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    files["refs"] = git(ws, "for-each-ref", "--format=%(refname) %(objectname)")
    files["HEAD"] = git(ws, "rev-parse", "HEAD")
    files["objects"] = git(ws, "cat-file", "--batch-all-objects", "--batch-check")
    return files


# A test's own git never runs what a workspace configures either (tests plant hooks and drivers on purpose).
SAFE_GIT = ("git", "--no-pager", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")


def git(ws: Workspace, *args: str) -> str:
    return subprocess.run([*SAFE_GIT, *args], cwd=ws.root, check=True, capture_output=True, text=True).stdout.strip()


def llm_settings(server: ScriptedServer, **overrides) -> Settings:
    """A model on the scripted server. Its script answers the consolidation: connect's own conversation after it
    is left out unless a test asks for it (phases=...), as tests/insights/test_insight_connect.py does."""
    values = dict(model="openai/scripted-model", api_base=server.url, api_key="test-key", max_retries=2,
                  retry_backoff=0.0, timeout=5.0, phases=("reflect", "re-evaluate"))
    values.update(overrides)
    return Settings(**values)


def lock_is_free(ws: Workspace) -> bool:
    """Whether another writer could take `ws`'s lock now (no run, session or command holds it)."""
    from nanodream.memory.lock import WorkspaceBusy, workspace_lock

    try:
        with workspace_lock(ws):
            return True
    except WorkspaceBusy:
        return False
