"""History entries that fail even on their own: set aside in .nanodream/quarantine.json, never silently dropped.

The cursor moves past a quarantined entry so the queue keeps flowing; the entry itself stays untouched in
history.jsonl, is listed by `status` and `nanodream quarantine`, and can be retried at any time.
Writers hold the workspace lock; readers may look at any time (the file is replaced atomically).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from nanodream import boundedjson
from nanodream.atomic import atomic_write
from nanodream.backlog.history import HistoryEntry, read_from
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
    line: int = 0  # its line in history.jsonl, the entry's identity with `offset` (0/-1: quarantined by cursor,
    offset: int = -1  # before nanodream tracked positions)

    def describe(self) -> str:
        return f"line {self.line} (cursor {self.cursor})" if self.line else f"cursor {self.cursor}"


def quarantine_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "quarantine.json"


def preview(content: str) -> str:
    """The start of an entry, to recognise it by: credentials redacted first, so none reaches quarantine.json."""
    from nanodream.safety import secret_scan  # only when quarantining: `status` reads this module too

    text = " ".join(secret_scan.redacted(content).split())
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


def load_quarantine(workspace: Workspace) -> list[QuarantinedEntry]:
    """Quarantined entries, oldest cursor first; a missing file means none."""
    path = quarantine_file(workspace)
    try:
        data = boundedjson.load_file(path)
    except FileNotFoundError:
        return []
    except (ValueError, UnicodeDecodeError):
        raise QuarantineUnreadable(f"{path} is unreadable; fix or move it away to continue") from None
    known = {f.name for f in fields(QuarantinedEntry)}
    try:
        entries = [QuarantinedEntry(**{k: v for k, v in item.items() if k in known}) for item in data["entries"]]
    except (KeyError, TypeError):
        raise QuarantineUnreadable(f"{path} does not hold a list of quarantined entries") from None
    return sorted(entries, key=_order)


def _order(entry: QuarantinedEntry) -> tuple[int, int]:
    return entry.offset, entry.cursor


def save_quarantine(workspace: Workspace, entries: list[QuarantinedEntry]) -> None:
    payload = {"entries": [asdict(e) for e in sorted(entries, key=_order)]}
    atomic_write(quarantine_file(workspace), json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


def add_to_quarantine(workspace: Workspace, new: list[QuarantinedEntry]) -> None:
    """Add entries (replacing any earlier record of the same line)."""
    offsets = {e.offset for e in new}
    save_quarantine(workspace, [e for e in load_quarantine(workspace) if e.offset not in offsets] + new)


def held_offsets(workspace: Workspace) -> frozenset[int]:
    """Every entry a run must pass over: quarantined ones and those a person asked to forget."""
    from nanodream.backlog.forgotten import ForgottenUnreadable, forgotten_offsets

    try:
        return quarantined_offsets(workspace) | forgotten_offsets(workspace)
    except ForgottenUnreadable as exc:
        raise QuarantineUnreadable(str(exc)) from None


def quarantined_offsets(workspace: Workspace) -> frozenset[int]:
    """Where the held entries start in history.jsonl; one held by cursor only is found by its cursor."""
    entries = load_quarantine(workspace)
    offsets = {e.offset for e in entries if e.offset >= 0}
    legacy = {e.cursor for e in entries if e.offset < 0}
    if legacy:
        offsets |= {entry.offset for entry in read_from(workspace.history_file)
                    if isinstance(entry, HistoryEntry) and entry.cursor in legacy}
    return frozenset(offsets)


class QuarantineUnreadable(RuntimeError):
    pass
