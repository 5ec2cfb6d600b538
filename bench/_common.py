"""Helpers shared by the benchmark scripts: where the checkout is, timing, machine facts, the result table.

Every benchmark returns rows (plain dicts) so `bench/run_all` can merge them into one table:
``{"bench": str, "measure": str, "value": float | int | str, "unit": str, "target": str, "ok": bool | None}``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
Row = dict[str, Any]


def row(bench: str, measure: str, value: float | int | str, unit: str = "", target: str = "",
        ok: bool | None = None) -> Row:
    """One line of the result table; `ok` is None when the figure is reported without a target."""
    return {"bench": bench, "measure": measure, "value": value, "unit": unit, "target": target, "ok": ok}


def cache_dir() -> Path:
    """Where generated inputs (big histories) are kept between runs; override with NANODREAM_BENCH_CACHE."""
    path = Path(os.environ.get("NANODREAM_BENCH_CACHE") or Path(tempfile.gettempdir()) / "nanodream-bench")
    path.mkdir(parents=True, exist_ok=True)
    return path


def child_env() -> dict[str, str]:
    """Environment for child processes: this checkout first on the path, no NANODREAM_*/GIT_* leaks, no network."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NANODREAM_", "GIT_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return env


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of `fn()` over `repeats` calls, after one untimed warm-up call when repeating."""
    for _ in range(1 if repeats > 1 else 0):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def process_seconds(argv: Sequence[str], repeats: int, cwd: Path | None = None) -> float:
    """Median wall time of a whole process (start-up included) over `repeats` runs."""
    env = child_env()

    def once() -> None:
        done = subprocess.run(list(argv), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()[-400:]}")

    return median_seconds(once, repeats)


def machine() -> dict[str, str]:
    """The facts a figure needs next to it: cores, CPU model, Python and OS."""
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        model = platform.processor() or "unknown"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"nproc": str(cores), "cpu": model, "python": platform.python_version(),
            "os": f"{platform.system()} {platform.release()}"}


def format_value(value: float | int | str) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def format_table(rows: list[Row]) -> str:
    """A plain fixed-width table; the verdict column reads ok / MISSED / blank (reported only)."""
    header = ("bench", "measure", "value", "target", "")
    lines = [(r["bench"], r["measure"], f"{format_value(r['value'])} {r.get('unit', '')}".strip(),
              r.get("target", ""), {True: "ok", False: "MISSED", None: ""}[r.get("ok")]) for r in rows]
    widths = [max(len(str(cells[i])) for cells in [header, *lines]) for i in range(len(header))]
    out = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths, strict=True)).rstrip(),
           "  ".join("-" * w for w in widths).rstrip()]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip() for cells in lines]
    return "\n".join(out)


def cli(main: Callable[..., list[Row]], description: str) -> None:
    """`python bench/<name>.py [--quick]`: run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats (seconds, not minutes)")
    args = parser.parse_args()
    facts = machine()
    print(f"# {facts['nproc']} cores · {facts['cpu']} · Python {facts['python']} · {facts['os']}", flush=True)
    rows = main(quick=args.quick)
    print(format_table(rows))
    sys.exit(1 if any(r.get("ok") is False for r in rows) else 0)
