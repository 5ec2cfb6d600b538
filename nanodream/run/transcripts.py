"""Session transcripts kept for inspection under .nanodream/transcripts/, rotated to the newest N.

They live in the unversioned state folder, far from memory/history.jsonl: a transcript is never read back
by a dream, so the model's own words cannot leak into the history it consolidates. Every string in them
passes through the secret scanner first: a credential the guard refused is stored nowhere in the workspace.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from nanodream.atomic import atomic_write
from nanodream.boundedjson import plain
from nanodream.safety import secret_scan
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
    messages = _redacted(plain(transcript.messages))
    payload = {"run_id": transcript.run_id, "cursors": [transcript.first_cursor, transcript.last_cursor],
               "model": transcript.model, "ended": _redacted(transcript.ended),
               "saved_at": datetime.now(UTC).isoformat(timespec="seconds"), "messages": messages}
    atomic_write(path, json.dumps(payload, indent=1, ensure_ascii=False, default=str) + "\n")
    rotate(workspace, keep)
    return path


# A transcript keeps this much of any one string: enough to inspect a session, not a 10 MB runaway write.
STRING_LIMIT = 64 * 1024


def _redacted(value: Any) -> Any:
    """`value` (plain JSON data) with every credential in every string replaced by a marker naming its rule."""
    if isinstance(value, str):
        if len(value) > STRING_LIMIT:
            value = value[:STRING_LIMIT] + f" … [{len(value) - STRING_LIMIT} more characters not kept]"
        return secret_scan.redacted(value)
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    if isinstance(value, dict):
        return {key: _redacted(item) for key, item in value.items()}
    return value


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
