"""History entries a person asked to forget (`nanodream forget`): never consumed again, even by a replay.

Kept in nanodream's own state (.nanodream/forgotten.json), by byte offset like the quarantine, because
history.jsonl is the host's file and is never touched.
"""

from __future__ import annotations

import json
from pathlib import Path

from nanodream import boundedjson
from nanodream.atomic import atomic_write
from nanodream.backlog.history import HistoryEntry
from nanodream.workspace import Workspace


class ForgottenUnreadable(RuntimeError):
    """The record is damaged: reading on could consume an entry the person asked to forget."""


def forgotten_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "forgotten.json"


def forgotten_offsets(workspace: Workspace) -> frozenset[int]:
    """Where the forgotten entries start in history.jsonl."""
    path = forgotten_file(workspace)
    if not path.is_file():
        return frozenset()
    try:
        return frozenset(int(item["offset"]) for item in boundedjson.load_file(path))
    except (ValueError, KeyError, TypeError) as exc:
        raise ForgottenUnreadable(f"{path} is damaged ({exc}); fix or delete it, then run again") from None


def mark_forgotten(workspace: Workspace, entries: list[HistoryEntry]) -> None:
    path = forgotten_file(workspace)
    known = boundedjson.load_file(path) if path.is_file() else []
    seen = {item["offset"] for item in known}
    known += [{"offset": e.offset, "line": e.line, "session_key": e.session_key} for e in entries
              if e.offset not in seen]
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(known, indent=1) + "\n")
