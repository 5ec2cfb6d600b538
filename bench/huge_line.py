"""A single history line of 50 MB and 200 MB: wall time and peak memory of `status` and of a run that passes it,
and of an ingest whose history ends in such a line and whose source folder holds a sparse 10 GB transcript.

Target: a line over MAX_LINE_BYTES (1 MiB) is a dead letter read past in bounded chunks, so time grows
linearly with the line (200 MB within 5× of 50 MB) and peak memory does not grow with it at all (the
200 MB run's max RSS within 16 MiB of the 50 MB run's). Ingest finds the history's last cursor behind the
line (read backwards a block at a time) and names the sparse transcript as skipped after reading at most
16 MiB of it. Each size is measured in its own fresh process, so its max RSS belongs to it alone. The files
(one entry, the huge line, one entry) are cached between runs.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, cache_dir, child_env, cli, row  # noqa: E402

BENCH = "huge_line"
MB = 1_000_000
SMOKE = {"sizes": (2 * MB, 4 * MB)}  # tests/test_bench_smoke.py: just over the limit, twice


def history_file(size: int) -> Path:
    """An entry, one line of `size` bytes of content, another entry; generated once in 1 MB pieces."""
    path = cache_dir() / f"huge-line-v1-{size}.jsonl"
    if path.exists():
        return path
    partial = path.with_suffix(f".{os.getpid()}.partial")
    piece = "x" * MB
    with partial.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"cursor": 1, "timestamp": "2026-10-01 10:00", "content": "[durable] Uses Go"}) + "\n")
        out.write('{"cursor": 2, "timestamp": "2026-10-01 10:01", "content": "[durable] ')
        for _ in range(size // MB):
            out.write(piece)
        out.write('"}\n')
        out.write(json.dumps({"cursor": 3, "timestamp": "2026-10-01 10:02", "content": "[durable] Uses Rust"}) + "\n")
    partial.replace(path)
    return path


def child() -> None:
    """In a fresh process: `status` over the file, then a builtin run that consumes around the huge line."""
    from nanodream.config import Settings
    from nanodream.memory.transaction import ensure_repository
    from nanodream.run.dream import run_dream
    from nanodream.status import workspace_status
    from nanodream.versioning.gitstore import GitStore
    from nanodream.workspace import Workspace, scaffold

    source = Path(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="nanodream-huge-") as tmp:
        ws = Workspace.at(Path(tmp) / "ws")
        scaffold(ws.root)
        ensure_repository(GitStore(ws))
        _place(source, ws.history_file)
        result: dict[str, float | int | str] = {}
        start = time.perf_counter()
        status = workspace_status(ws, Settings())
        result["status_s"] = time.perf_counter() - start
        start = time.perf_counter()
        report = run_dream(ws, Settings())
        result["run_s"] = time.perf_counter() - start
        result["outcome"], result["entries"] = str(report.outcome), report.entries
        result["dead_letters"] = len(status.dead_letters)
        result.update(_ingest_past_huge_things(Path(tmp), source.stat().st_size))
    result["max_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(result))


def _ingest_past_huge_things(tmp: Path, size: int) -> dict[str, float | int | str]:
    """`ingest` of a folder holding a sparse 10 GB transcript and a good one, into a history whose last line is
    `size` bytes (sparse too: the file is made in an instant, the reads are real)."""
    from nanodream import api
    from nanodream.memory.transaction import ensure_repository
    from nanodream.versioning.gitstore import GitStore
    from nanodream.workspace import Workspace, scaffold

    ws = Workspace.at(tmp / "ingest-ws")
    scaffold(ws.root)
    ensure_repository(GitStore(ws))
    with ws.history_file.open("wb") as handle:
        handle.write(json.dumps({"cursor": 41, "timestamp": "2026-10-01 10:00", "content": "[durable] Go"}).encode()
                     + b"\n")
        handle.seek(handle.tell() + size)
        handle.write(b"\n")
    folder = tmp / "sessions"
    folder.mkdir()
    with (folder / "sparse.jsonl").open("wb") as handle:
        handle.truncate(10 * 1000 * MB)
    (folder / "good.jsonl").write_text(json.dumps({"role": "user", "content": "I live in Lyon."}) + "\n")
    start = time.perf_counter()
    report = api.ingest(ws, [folder])
    skipped = " ".join(report.sources[0].skipped) if report.sources else ""
    with ws.history_file.open("rb") as handle:  # only the end: the bench must not read the huge line itself
        handle.seek(max(handle.seek(0, os.SEEK_END) - 4096, 0))
        cursors = [json.loads(line)["cursor"] for line in handle.read().split(b"\n") if line.startswith(b"{")]
    return {"ingest_s": time.perf_counter() - start, "ingest_added": report.added,
            "ingest_ok": str(report.added == 1 and "sparse.jsonl" in skipped and cursors == [42])}


def _place(source: Path, target: Path) -> None:
    """The cached file as the workspace's history: a hard link when it can be one (no 200 MB copy)."""
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def measure(size: int) -> dict:
    argv = [sys.executable, "-c", "from bench.huge_line import child; child()", str(history_file(size))]
    done = subprocess.run(argv, env=child_env(), capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main(quick: bool = False, sizes: tuple[int, ...] | None = None) -> list[Row]:
    sizes = sizes or ((10 * MB, 40 * MB) if quick else (50 * MB, 200 * MB))
    figures = {size: measure(size) for size in sizes}
    small, large = figures[sizes[0]], figures[sizes[-1]]
    growth = sizes[-1] / sizes[0]
    rows: list[Row] = []
    for size in sizes:
        f, last = figures[size], size == sizes[-1]
        label = f"one {size // MB} MB line"
        handled = f["outcome"] == "committed" and f["entries"] == 2 and f["dead_letters"] == 1
        rows.append(row(BENCH, f"status, {label}", f["status_s"], "s"))
        time_ok = f["run_s"] <= (growth + 1) * small["run_s"]
        rows.append(row(BENCH, f"run (2 entries consumed, the line a dead letter), {label}", f["run_s"], "s",
                        f"≤ {growth + 1:g}× of {sizes[0] // MB} MB" if last else "handled",
                        (time_ok and handled) if last else handled))
        rows.append(row(BENCH, f"ingest: history ending in {label}, a sparse 10 GB transcript beside a good one",
                        f["ingest_s"], "s", "cursor 42 appended, the 10 GB file skipped", f["ingest_ok"] == "True"))
        rss_ok = f["max_rss_bytes"] <= small["max_rss_bytes"] + 16 * 2**20
        rows.append(row(BENCH, f"process max RSS, {label}", f["max_rss_bytes"] / 2**20, "MiB",
                        f"≤ {sizes[0] // MB} MB's + 16 MiB" if last else "", rss_ok if last else None))
    rows.append(row(BENCH, "max RSS growth per MB of line", (large["max_rss_bytes"] - small["max_rss_bytes"])
                    / 2**20 / ((sizes[-1] - sizes[0]) / MB), "MiB/MB"))
    return rows


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
