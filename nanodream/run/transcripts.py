"""Session transcripts kept for inspection under .nanodream/transcripts/, rotated to the newest N.

They live in the unversioned state folder, far from memory/history.jsonl: a transcript is never read back
by a dream, so the model's own words cannot leak into the history it consolidates. Every string in them
passes through the secret scanner first — what the model wrote, what the tools answered, the batch — so a
credential the guard refused is stored nowhere in the workspace. Only text already in git is not scanned again:
the built-in prompt, and the memory files and skills index that open the first user message when every file
they show is as last committed (memory/snapshot.py).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nanodream import clock
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
    part: str = ""  # a conversation after the batches (connect): named by it instead of a cursor
    settled: tuple[str, ...] = ()  # texts already in git: a string that is one, or starts with one, keeps it unscanned
    mode: str = ""  # how the session worked: tools | structured | builtin ("" for a conversation after the batches)


def save_transcript(workspace: Workspace, transcript: Transcript, keep: int) -> Path | None:
    """Write `<run-id>-<first cursor>-<mode>.json` (or `<run-id>-<part>.json`), then delete all but the newest
    `keep` (0 keeps none). A transcript never replaces another: a second session of the same name in the same run
    (a batch retried smaller, split halves starting at one entry) is kept as `…-2.json`, `…-3.json`."""
    if keep <= 0 or not transcript.messages:
        return None
    path = _free_path(transcripts_dir(workspace), _stem(transcript))
    messages = _redacted(plain(transcript.messages), transcript.settled)
    payload = {"run_id": transcript.run_id, "cursors": [transcript.first_cursor, transcript.last_cursor],
               "model": transcript.model, "mode": transcript.mode, "ended": _redacted(transcript.ended),
               "saved_at": clock.now().isoformat(timespec="seconds"), "messages": messages}
    atomic_write(path, json.dumps(payload, indent=1, ensure_ascii=False, default=str) + "\n")
    rotate(workspace, keep)
    return path


def _stem(transcript: Transcript) -> str:
    if transcript.part:
        return f"{transcript.run_id}-{transcript.part}"
    mode = f"-{transcript.mode}" if transcript.mode else ""
    return f"{transcript.run_id}-{transcript.first_cursor}{mode}"


def _free_path(folder: Path, stem: str) -> Path:
    """`folder/stem.json`, or the first `folder/stem-N.json` no transcript holds yet."""
    path, number = folder / f"{stem}.json", 1
    while path.exists():
        number += 1
        path = folder / f"{stem}-{number}.json"
    return path


# A transcript keeps this much of any one string: enough to inspect a session, not a 10 MB runaway write.
STRING_LIMIT = 64 * 1024


def _redacted(value: Any, settled: tuple[str, ...] = ()) -> Any:
    """`value` (plain JSON data) with every credential in every string replaced by a marker naming its rule; the
    part of a string that is one of the `settled` texts (at its start) is kept as it is."""
    if isinstance(value, str):
        return _redacted_text(value, settled)
    if isinstance(value, list):
        return [_redacted(item, settled) for item in value]
    if isinstance(value, dict):
        return {key: _redacted(item, settled) for key, item in value.items()}
    return value


def _redacted_text(value: str, settled: tuple[str, ...]) -> str:
    note = ""
    if len(value) > STRING_LIMIT:
        note = f" … [{len(value) - STRING_LIMIT} more characters not kept]"
    kept = max((len(text) for text in settled if text and value.startswith(text)), default=0)
    value = value[:STRING_LIMIT]
    kept = min(kept, len(value))
    return value[:kept] + secret_scan.redacted(value[kept:]) + note


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
