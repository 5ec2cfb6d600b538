"""Backlog scaling: find and read the next batch with the position near the end of 1k, 100k and 1M-line histories.

Target: 1M within 2× of 1k for time, and peak memory independent of the history's size. Each size is
measured in its own process so peak memory (tracemalloc, and the process's max RSS) belongs to that size
alone. Histories are generated from the example workspace's entries and cached between runs.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import REPO, Row, cache_dir, child_env, cli, median_seconds, row  # noqa: E402

BENCH = "backlog"
TAIL = 500  # entries after the cursor: "near the end", more than one default batch
BATCH_TOKENS = 8000  # the default Settings.batch_tokens
SMOKE = {"sizes": (200, 400), "repeats": 1}  # tests/test_bench_smoke.py
EXAMPLE_HISTORY = REPO / "workspace-example" / "memory" / "history.jsonl"


def history_file(lines: int) -> Path:
    """A history of `lines` entries cycling through the example's contents; generated once and cached."""
    path = cache_dir() / f"history-v1-{lines}.jsonl"
    if path.exists():
        return path
    samples = []
    for raw in EXAMPLE_HISTORY.read_text(encoding="utf-8").splitlines():
        try:
            data = json.loads(raw)
        except ValueError:
            continue
        samples.append((json.dumps(data["content"]), json.dumps(data.get("session_key", "cli:direct"))))
    partial = path.with_suffix(f".{os.getpid()}.partial")  # concurrent runs never share a half-written file
    with partial.open("w", encoding="utf-8") as out:
        chunk = []
        for cursor in range(1, lines + 1):
            content, session = samples[cursor % len(samples)]
            day, hour, minute = cursor // 1440, cursor // 60 % 24, cursor % 60  # one entry a minute
            stamp = f"2026-{day // 28 % 12 + 1:02d}-{day % 28 + 1:02d} {hour:02d}:{minute:02d}"
            chunk.append(f'{{"cursor": {cursor}, "timestamp": "{stamp}", "content": {content}, '
                         f'"session_key": {session}}}\n')
            if len(chunk) == 10_000:
                out.write("".join(chunk))
                chunk.clear()
        out.write("".join(chunk))
    partial.replace(path)
    return path


def measure_in_child(path: Path, cursor: int, repeats: int, full_scan: bool) -> dict:
    """Run `child()` in a fresh interpreter and return its figures."""
    argv = [sys.executable, "-c", "from bench.backlog import child; child()", str(path), str(cursor), str(repeats),
            "1" if full_scan else "0"]
    done = subprocess.run(argv, env=child_env(), capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def child() -> None:
    """In a fresh process: time and peak memory of reading the next batch and surveying the backlog."""
    from nanodream.backlog.history import next_batch, survey
    from nanodream.backlog.position import Position, fingerprint, from_cursor

    path, cursor, repeats, full_scan = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
    result: dict[str, float | int] = {}
    start = time.perf_counter()
    position = from_cursor(path, cursor)  # once per workspace: the upgrade from .dream_cursor
    result["upgrade_s"] = time.perf_counter() - start

    def resume_and_read() -> object:  # what a run does: check the saved position's fingerprint, read a batch
        fingerprint(path, position.offset)
        return next_batch(path, position, BATCH_TOKENS)

    for name, call in (("next_batch", resume_and_read),
                       ("scan_backlog", lambda: survey(path, position, 1000))):
        result[f"{name}_s"] = median_seconds(call, repeats)
        tracemalloc.start()
        call()
        result[f"{name}_peak_bytes"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    batch = next_batch(path, position, BATCH_TOKENS)
    result["batch_entries"] = len(batch.entries) if batch else 0
    result["max_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if full_scan:
        start = time.perf_counter()
        result["scan_from_zero_pending"] = survey(path, Position(), 1000).pending
        result["scan_from_zero_s"] = time.perf_counter() - start
    print(json.dumps(result))


def main(quick: bool = False, sizes: tuple[int, ...] | None = None, repeats: int | None = None) -> list[Row]:
    sizes = sizes or ((1_000, 100_000) if quick else (1_000, 100_000, 1_000_000))
    repeats = repeats or (20 if quick else 50)
    figures = {}
    for lines in sizes:
        path = history_file(lines)
        figures[lines] = measure_in_child(path, max(lines - TAIL, 0), repeats, full_scan=True)
        figures[lines]["file_bytes"] = path.stat().st_size
    small, large = figures[sizes[0]], figures[sizes[-1]]
    rows: list[Row] = []
    for lines in sizes:
        f = figures[lines]
        label = f"{lines:,} lines ({f['file_bytes'] / 1e6:.1f} MB)"
        last = lines == sizes[-1] and len(sizes) > 1
        ratio = f["next_batch_s"] / small["next_batch_s"]
        rows.append(row(BENCH, f"resume + next_batch near the end, {label}", f["next_batch_s"] * 1000, "ms",
                        f"≤ 2× of {sizes[0]:,}" if last else "", ratio <= 2 if last else None))
        mem_ok = f["next_batch_peak_bytes"] <= 1.25 * small["next_batch_peak_bytes"]
        rows.append(row(BENCH, f"next_batch peak memory, {label}", f["next_batch_peak_bytes"] / 1024, "KiB",
                        "independent of size" if last else "", mem_ok if last else None))
        rows.append(row(BENCH, f"survey (status) near the end, {label}", f["scan_backlog_s"] * 1000, "ms"))
        rows.append(row(BENCH, f"survey peak memory, {label}", f["scan_backlog_peak_bytes"] / 1024, "KiB"))
        rows.append(row(BENCH, f"one-time upgrade from .dream_cursor, {label}", f["upgrade_s"] * 1000, "ms"))
        rows.append(row(BENCH, f"process max RSS, {label}", f["max_rss_bytes"] / 2**20, "MiB"))
    rows.append(row(BENCH, f"batch size (entries, {BATCH_TOKENS} token budget)", large["batch_entries"]))
    for lines in sizes:
        rows.append(row(BENCH, f"status with nothing consumed (full scan), {lines:,} lines",
                        figures[lines]["scan_from_zero_s"] * 1000, "ms"))
    return rows


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
