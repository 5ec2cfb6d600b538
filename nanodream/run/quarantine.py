"""History entries that fail even on their own: set aside in .nanodream/quarantine.json, never silently dropped.

The cursor moves past a quarantined entry so the queue keeps flowing; the entry itself stays untouched in
history.jsonl, is listed by `status` and `nanodream quarantine`, and can be retried at any time.
Writers hold the workspace lock; readers may look at any time (the file is replaced atomically).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from nanodream.atomic import atomic_write
from nanodream.workspace import Workspace

PREVIEW_CHARS = 80


@dataclass
class QuarantinedEntry:
    cursor: int
    timestamp: str  # the history entry's own timestamp
    preview: str  # the first characters of its content, so a person can recognise it
    reason: str  # why its last attempt failed
    quarantined_at: str
    run_id: str
    retries: int = 0


def quarantine_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "quarantine.json"


def preview(content: str) -> str:
    text = " ".join(content.split())
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


def load_quarantine(workspace: Workspace) -> list[QuarantinedEntry]:
    """Quarantined entries, oldest cursor first; a missing file means none."""
    path = quarantine_file(workspace)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (ValueError, UnicodeDecodeError):
        raise QuarantineUnreadable(f"{path} is unreadable; fix or move it away to continue") from None
    known = {f.name for f in fields(QuarantinedEntry)}
    try:
        entries = [QuarantinedEntry(**{k: v for k, v in item.items() if k in known}) for item in data["entries"]]
    except (KeyError, TypeError):
        raise QuarantineUnreadable(f"{path} does not hold a list of quarantined entries") from None
    return sorted(entries, key=lambda e: e.cursor)


def save_quarantine(workspace: Workspace, entries: list[QuarantinedEntry]) -> None:
    payload = {"entries": [asdict(e) for e in sorted(entries, key=lambda e: e.cursor)]}
    atomic_write(quarantine_file(workspace), json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


def add_to_quarantine(workspace: Workspace, new: list[QuarantinedEntry]) -> None:
    """Add entries (replacing any earlier record of the same cursor)."""
    cursors = {e.cursor for e in new}
    save_quarantine(workspace, [e for e in load_quarantine(workspace) if e.cursor not in cursors] + new)


def quarantined_cursors(workspace: Workspace) -> set[int]:
    return {e.cursor for e in load_quarantine(workspace)}


class QuarantineUnreadable(RuntimeError):
    pass
