"""Entries waiting for a model: what cutting a batch around them costs, and what `status` pays to count them.

No target is fixed by issue 45; reported: the time to cut one batch (8,000-token budget) from a history where
every tenth entry waits for a model — the plain cut of backlog/history.py, the built-in engine's cut (which asks
each entry's language: waiting.next_batch), and a model's cut (the waiting entries first, found again in the file
by their keys) — and `status` with the waiting entries recorded. Method: a generated history (the example
workspace's entries, one in ten replaced by an entry ingest left for a model in Spanish), the built-in run once
to record the waiting entries, then medians of in-process calls after a warm-up (the language model loaded);
`status` is timed again with the record moved away, to show what reading it adds.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import REPO, Row, cli, median_seconds, row  # noqa: E402
from nanodream.backlog import history, waiting  # noqa: E402
from nanodream.backlog.position import resume  # noqa: E402
from nanodream.config import Settings  # noqa: E402
from nanodream.memory.transaction import ensure_repository  # noqa: E402
from nanodream.run.dream import run_dream  # noqa: E402
from nanodream.status import workspace_status  # noqa: E402
from nanodream.versioning.gitstore import GitStore  # noqa: E402
from nanodream.workspace import Workspace, scaffold  # noqa: E402

BENCH = "waiting"
BATCH_TOKENS = 8000
SMOKE = {"entries": 60, "repeats": 1}  # tests/test_bench_smoke.py
EXAMPLE = REPO / "workspace-example" / "memory" / "history.jsonl"
SPANISH = (waiting.marker_line(["es"]) + "\n> ¿Puedes revisar por qué falla el despliegue en staging? Creo que es la "
           "migración de la base de datos.")


def contents() -> list[str]:
    found = []
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        entry = history.parse_line(line)
        if entry is not None and entry.content.strip():
            found.append(entry.content)
    return found


def workspace_with(root: Path, entries: int) -> Workspace:
    ws = Workspace.at(root)
    scaffold(ws.root)
    ensure_repository(GitStore(ws))
    source = contents()
    lines = [json.dumps({"cursor": n + 1, "timestamp": "2026-10-01 10:00", "session_key": f"s{n // 20}",
                         "content": SPANISH if n % 10 == 9 else source[n % len(source)]}, ensure_ascii=False)
             for n in range(entries)]
    ws.history_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ws


def _status_with_and_without(ws: Workspace, repeats: int) -> tuple[float, float]:
    """Median `status` with the waiting record and with it moved away, round by round (load falls on both)."""
    record = waiting.waiting_file(ws).read_bytes()
    with_record, without = [], []
    for _ in range(repeats):
        with_record.append(median_seconds(lambda: workspace_status(ws, Settings(model="builtin")), 1))
        waiting.waiting_file(ws).unlink()
        without.append(median_seconds(lambda: workspace_status(ws, Settings(model="builtin")), 1))
        waiting.waiting_file(ws).write_bytes(record)
    return statistics.median(with_record), statistics.median(without)


def main(quick: bool = False, entries: int | None = None, repeats: int | None = None) -> list[Row]:
    entries = entries or (1_000 if quick else 5_000)
    repeats = repeats or (10 if quick else 30)
    root = Path(tempfile.mkdtemp(prefix="nanodream-bench-waiting-"))
    try:
        ws = workspace_with(root / "ws", entries)
        start = history.Position()
        plain = median_seconds(lambda: history.next_batch(ws.history_file, start, BATCH_TOKENS), repeats)
        builtin = median_seconds(lambda: waiting.next_batch(ws, start, BATCH_TOKENS, reads_everything=False),
                                 repeats)
        run_dream(ws, Settings(model="builtin", max_batches=10_000, phases=()))
        after = resume(ws).position
        model = median_seconds(lambda: waiting.next_batch(ws, after, BATCH_TOKENS, reads_everything=True), repeats)
        recorded = len(waiting.load_waiting(ws))
        status, bare = _status_with_and_without(ws, repeats)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return [
        row(BENCH, f"cut a batch, plain (history.next_batch), {entries:,} entries", plain * 1000, "ms"),
        row(BENCH, "cut a batch, built-in (asks each entry's language)", builtin * 1000, "ms"),
        row(BENCH, f"cut a batch, model (the {recorded:,} waiting entries first)", model * 1000, "ms"),
        row(BENCH, f"status with {recorded:,} waiting entries recorded", status * 1000, "ms"),
        row(BENCH, "status of the same workspace without the record", bare * 1000, "ms"),
    ]


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
