"""What `status` says about ingest: each configured source by its path, with its watermark; cheap reads only.

Never imports the readers or the extractors: status stays instant however many transcripts there are.
"""

from __future__ import annotations

import os
from typing import Any

from nanodream import boundedjson
from nanodream.atomic import open_binary
from nanodream.config import ConfigError, IngestSource, ingest_sources
from nanodream.ingest.journal import journal_file
from nanodream.ingest.report import log_file
from nanodream.ingest.watermarks import Watermark, WatermarksUnreadable, load
from nanodream.workspace import Workspace

FILES_SHOWN = 100  # per source in --json, the most recently read first


def ingest_overview(workspace: Workspace) -> dict[str, Any]:
    """{"sources": [...], "last_pass": {...} | None, "interrupted": bool, "error": str}."""
    overview: dict[str, Any] = {"sources": [], "last_pass": _last_pass(workspace),
                                "interrupted": journal_file(workspace).exists(), "error": ""}
    try:
        sources = ingest_sources(workspace)
        marks = load(workspace)
    except (ConfigError, WatermarksUnreadable) as exc:
        overview["error"] = str(exc)
        return overview
    overview["sources"] = [_source(source, marks) for source in sources]
    return overview


def _source(source: IngestSource, marks: dict[str, Watermark]) -> dict[str, Any]:
    from nanodream.ingest.sources import SourceMissing, list_files  # it imports the formats: only with a source

    inside = [mark for path, mark in marks.items() if path == str(source.path)
              or path.startswith(str(source.path).rstrip(os.sep) + os.sep)]
    state: dict[str, Any] = {
        "path": str(source.path), "format": source.format or "", "read_files": len(inside),
        "bytes_read": sum(mark.offset for mark in inside), "messages": sum(mark.messages for mark in inside),
        "last_read": max((mark.read_at for mark in inside), default="") or None, "error": "",
        "files": [_file(mark) for mark in sorted(inside, key=lambda m: m.read_at, reverse=True)[:FILES_SHOWN]],
    }
    try:
        listing = list_files(source)
    except SourceMissing as exc:
        state.update(error=str(exc), files_now=0, pending_files=0)
        return state
    known = {mark.path: mark for mark in inside}
    state["files_now"] = len(listing.files)
    state["pending_files"] = sum(1 for path in listing.files if _pending(path, known.get(str(path))))
    return state


def _file(mark: Watermark) -> dict[str, Any]:
    return {"path": mark.path, "format": mark.format, "offset": mark.offset, "size": mark.size, "line": mark.line,
            "messages": mark.messages, "read_at": mark.read_at or None}


def _pending(path: Any, mark: Watermark | None) -> bool:
    """New data since the watermark, judged by size alone (status reads no file)."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return False
    return mark is None or size != mark.size


def _last_pass(workspace: Workspace) -> dict[str, Any] | None:
    try:
        with open_binary(log_file(workspace)) as handle:
            handle.seek(max(handle.seek(0, os.SEEK_END) - 8192, 0))
            lines = handle.read().splitlines()
        return boundedjson.loads(lines[-1], max_bytes=boundedjson.LINE_BYTES) if lines else None
    except (OSError, ValueError, IndexError):
        return None
