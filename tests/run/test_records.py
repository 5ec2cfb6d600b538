"""Run records are read from the end of runs.jsonl: the same records as a full read, whatever the block size."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from nanodream.backlog import history
from nanodream.run.records import append_record, read_records, records_since
from nanodream.vocab import RunRecord, utc_stamp

START = datetime(2026, 10, 1, tzinfo=UTC)


def _write(workspace, count: int) -> list[RunRecord]:
    written = []
    for i in range(count):
        record = RunRecord(id=f"run-{i}", start=utc_stamp(START + timedelta(hours=i)), trigger="manual",
                           outcome="committed", reason="x" * (i * 7 % 90))
        append_record(workspace, record)
        written.append(record)
    return written


@pytest.mark.parametrize("block", [5, 64, 1 << 16])
def test_the_newest_records_come_back_oldest_first_across_block_edges(workspace, monkeypatch, block):
    monkeypatch.setattr(history, "_BACK_BLOCK", block)
    written = _write(workspace, 30)
    with workspace.runs_file.open("ab") as handle:
        handle.write(b"not json\n\n{\"foreign\": 1}\n")
    assert read_records(workspace, limit=10) == written[-10:]
    assert read_records(workspace, limit=100) == written


def test_a_torn_last_line_is_skipped(workspace):
    written = _write(workspace, 3)
    with workspace.runs_file.open("ab") as handle:
        handle.write(b'{"id": "half", "sta')
    assert read_records(workspace) == written


@pytest.mark.parametrize("block", [5, 1 << 16])
def test_records_since_stops_at_the_first_older_record(workspace, monkeypatch, block):
    monkeypatch.setattr(history, "_BACK_BLOCK", block)
    written = _write(workspace, 48)
    assert records_since(workspace, START + timedelta(hours=24)) == written[24:]
    assert records_since(workspace, START + timedelta(days=9)) == []
    assert records_since(workspace, START - timedelta(days=1)) == written


def test_no_file_no_records(workspace):
    assert read_records(workspace) == [] and records_since(workspace, START) == []
