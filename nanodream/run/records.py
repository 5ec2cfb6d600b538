"""Run records: one JSON line per attempt in .nanodream/runs.jsonl, for `status` and `log`."""

from __future__ import annotations

import json
import os
from collections import deque

from nanodream.vocab import RunRecord
from nanodream.workspace import Workspace


def append_record(workspace: Workspace, record: RunRecord) -> None:
    """Append one record with a single O_APPEND write, so concurrent writers never interleave lines."""
    workspace.state_dir.mkdir(parents=True, exist_ok=True)
    line = (json.dumps(record.to_dict(), sort_keys=True, default=str) + "\n").encode("utf-8")
    fd = os.open(workspace.runs_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def read_records(workspace: Workspace, limit: int = 50) -> list[RunRecord]:
    """The newest `limit` records, oldest first; unreadable or foreign lines are skipped."""
    try:
        with workspace.runs_file.open("r", encoding="utf-8", errors="replace") as handle:
            tail = deque(handle, maxlen=limit)
    except FileNotFoundError:
        return []
    records = []
    for line in tail:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        record = RunRecord.from_dict(value) if isinstance(value, dict) else None
        if record is not None:
            records.append(record)
    return records
