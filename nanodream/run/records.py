"""Run records: one JSON line per attempt in .nanodream/runs.jsonl, for `status` and `log`."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from nanodream import boundedjson
from nanodream.atomic import append_bytes, open_binary
from nanodream.backlog.history import lines_backwards
from nanodream.vocab import RunRecord
from nanodream.workspace import Workspace


def append_record(workspace: Workspace, record: RunRecord) -> None:
    """Append one record with a single O_APPEND write, so concurrent writers never interleave lines."""
    workspace.state_dir.mkdir(parents=True, exist_ok=True)
    line = (json.dumps(record.to_json(), sort_keys=True, default=str) + "\n").encode("utf-8")
    append_bytes(workspace.runs_file, line)


def read_records(workspace: Workspace, limit: int = 50) -> list[RunRecord]:
    """The newest `limit` records, oldest first; unreadable or foreign lines are skipped."""
    records = []
    for line in _lines_from_end(workspace.runs_file):
        if len(records) >= limit:
            break
        record = _parse(line)
        if record is not None:
            records.append(record)
    return records[::-1]


def records_since(workspace: Workspace, moment: datetime) -> list[RunRecord]:
    """Every record that started at or after `moment` (timezone-aware), oldest first.

    Reads from the end of the file and stops at the first older record: the fleet asks this of every
    workspace on every sweep, and a years-old runs.jsonl must cost what today's lines cost.
    """
    records = []
    for line in _lines_from_end(workspace.runs_file):
        record = _parse(line)
        if record is None:
            continue
        started = _started(record)
        if started is None:
            continue
        if started < moment:
            break
        records.append(record)
    return records[::-1]


def _started(record: RunRecord) -> datetime | None:
    try:
        moment = datetime.fromisoformat(str(record.start))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _parse(line: bytes) -> RunRecord | None:
    try:
        value = boundedjson.loads(line.decode("utf-8", errors="replace"), max_bytes=boundedjson.LINE_BYTES)
    except ValueError:
        return None
    return RunRecord.from_dict(value) if isinstance(value, dict) else None


def _lines_from_end(path: Path) -> Iterator[bytes]:
    """The file's non-empty lines, newest first, read backwards in blocks (a torn last line included); one
    longer than a record can be is passed over, never gathered."""
    try:
        handle = open_binary(path)
    except FileNotFoundError:
        return
    with handle:
        lines = lines_backwards(handle, handle.seek(0, os.SEEK_END), max_line=boundedjson.LINE_BYTES)
        yield from (line for line in lines if line is not None and line.strip())
