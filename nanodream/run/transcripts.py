"""Session transcripts kept for inspection under .nanodream/transcripts/, rotated to the newest N.

They live in the unversioned state folder, far from memory/history.jsonl: a transcript is never read back
by a dream, so the model's own words cannot leak into the history it consolidates.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from nanodream.atomic import atomic_write
from nanodream.workspace import Workspace


def transcripts_dir(workspace: Workspace) -> Path:
    return workspace.state_dir / "transcripts"


@dataclass(frozen=True)
class Transcript:
    """One session's messages and where they came from: a run, a history range (0..0 for a tidy pass)."""

    run_id: str
    first_cursor: int
    last_cursor: int
    model: str
    messages: list[dict[str, Any]]
    ended: str  # "finished" or "failed: <reason>"


def save_transcript(workspace: Workspace, transcript: Transcript, keep: int) -> Path | None:
    """Write `<run-id>-<first cursor>.json`, then delete all but the newest `keep` (0 keeps none)."""
    if keep <= 0 or not transcript.messages:
        return None
    path = transcripts_dir(workspace) / f"{transcript.run_id}-{transcript.first_cursor}.json"
    payload = {"run_id": transcript.run_id, "cursors": [transcript.first_cursor, transcript.last_cursor],
               "model": transcript.model, "ended": transcript.ended,
               "saved_at": datetime.now(UTC).isoformat(timespec="seconds"), "messages": transcript.messages}
    atomic_write(path, json.dumps(payload, indent=1, ensure_ascii=False, default=str) + "\n")
    rotate(workspace, keep)
    return path


def list_transcripts(workspace: Workspace) -> list[Path]:
    """Oldest first (by modification time, then name)."""
    folder = transcripts_dir(workspace)
    if not folder.is_dir():
        return []
    paths = [p for p in folder.glob("*.json") if p.is_file()]
    return sorted(paths, key=lambda p: (p.stat().st_mtime_ns, p.name))


def rotate(workspace: Workspace, keep: int) -> None:
    paths = list_transcripts(workspace)
    for old in paths[: max(len(paths) - keep, 0)]:
        with contextlib.suppress(FileNotFoundError):
            old.unlink()
