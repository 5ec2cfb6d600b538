"""What an ingest pass tells its caller (`nanodream ingest`, `run`, the API) and leaves in its log."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nanodream.atomic import append_bytes
from nanodream.ingest.watermarks import state_dir
from nanodream.vocab import Report, utc_stamp
from nanodream.workspace import Workspace

# Entries a report lists with their content (a first pass over years of transcripts adds thousands).
ENTRIES_SHOWN = 200


@dataclass
class SourceReport:
    """One source of the pass: a configured [[ingest]] table or a path named on the command line."""

    path: str
    format: str = ""  # the source's format when it names one; '' when detected per file
    files: int = 0  # files it holds (after include/exclude)
    changed: int = 0  # files with something new this pass
    messages: int = 0  # new messages taken in from it
    entries: int = 0  # history entries made of them
    skipped: list[str] = field(default_factory=list)  # files passed over, one line each, and why
    error: str = ""  # why the source could not be read at all


@dataclass
class IngestReport(Report):
    """`ingest`: ingested | nothing-to-do | dry-run | failed | refused | busy | blocked (docs/json.md)."""

    dry_run: bool = False
    extractor: str = ""  # "builtin" or the model
    sources: list[SourceReport] = field(default_factory=list)
    added: int = 0  # entries appended to history (a dry run: that would be)
    cursors: list[int] | None = None  # [first, last] cursor of the entries appended
    entries: list[dict[str, Any]] = field(default_factory=list)  # the first ENTRIES_SHOWN of them
    messages: int = 0  # new messages taken in
    duplicates: int = 0  # messages read again and recognised as already ingested
    left_out: int = 0  # messages of roles the source does not take, and nanodream's own exchanges
    for_model: dict[str, int] = field(default_factory=dict)  # the person's messages rules leave whole, by language
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    recovered: str = ""  # an interrupted pass finished or undone on the way in
    notices: list[str] = field(default_factory=list)
    started: str = field(default_factory=utc_stamp)

    def spend(self, tokens_in: int, tokens_out: int, cost: float | None) -> None:
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost


def log_file(workspace: Workspace) -> Path:
    return state_dir(workspace) / "passes.jsonl"


def record_pass(workspace: Workspace, report: IngestReport, trigger: str) -> None:
    """One line per pass that wrote or failed, for `status`: when, how it ended, what it added and spent."""
    line = {"start": report.started, "end": utc_stamp(), "trigger": trigger, "outcome": report.outcome,
            "reason": report.reason, "added": report.added, "messages": report.messages, "cursors": report.cursors,
            "extractor": report.extractor, "tokens_in": report.tokens_in, "tokens_out": report.tokens_out,
            "cost": report.cost}
    path = log_file(workspace)
    path.parent.mkdir(parents=True, exist_ok=True)
    append_bytes(path, (json.dumps(line) + "\n").encode("utf-8"))  # never through a link swapped in
