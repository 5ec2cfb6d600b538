"""Helpers shared by the benchmark scripts: where the checkout is, timing, machine facts, the result table.

Every benchmark returns rows (plain dicts) so `bench/run_all` can merge them into one table:
``{"bench": str, "measure": str, "value": float | int | str, "unit": str, "target": str, "ok": bool | None}``.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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


def bytecode_env(cache: Path) -> dict[str, str]:
    """child_env with bytecode written to and read from `cache`, as a pip-installed nanodream runs.

    Without it, a shell with PYTHONDONTWRITEBYTECODE=1 recompiles every nanodream module in every process
    (+10–60 ms here); a warm-up round fills the cache.
    """
    env = child_env()
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache)
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


@dataclass(frozen=True)
class ProcessTiming:
    """Medians for one command: wall time (what a person waits) and CPU time of the whole process tree.

    On a loaded machine wall time grows with everyone else's work; CPU time (user + sys, git children
    included) stays close to what the command itself costs.
    """

    wall: float
    cpu: float


def process_medians(commands: dict[str, Sequence[str]], repeats: int, cwd: Path | None = None,
                    env: dict[str, str] | None = None) -> dict[str, ProcessTiming]:
    """Median wall and CPU time of each whole process (start-up included) over `repeats` runs.

    Runs are interleaved round by round (after one warm-up round), so a burst of load from elsewhere on
    the machine falls on every command alike instead of on whichever happened to be running.
    """
    env = env or child_env()

    def once(argv: Sequence[str]) -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(list(argv), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()[-400:]}")
        return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for round_number in range(repeats + (1 if repeats > 1 else 0)):
        for name, argv in commands.items():
            measured = once(argv)
            if round_number or repeats == 1:
                runs[name].append(measured)
    return {name: ProcessTiming(statistics.median(w for w, _ in values), statistics.median(c for _, c in values))
            for name, values in runs.items()}


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
    load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    return {"nproc": str(cores), "cpu": model, "python": platform.python_version(),
            "os": f"{platform.system()} {platform.release()}", "load": load}


def describe(facts: dict[str, str]) -> str:
    """One line of machine facts to print above a table (the load average says how noisy it was)."""
    return (f"{facts['nproc']} cores · {facts['cpu']} · Python {facts['python']} · {facts['os']} · "
            f"load average {facts['load']}")


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
    print(f"# {describe(facts)}", flush=True)
    rows = main(quick=args.quick)
    print(format_table(rows))
    sys.exit(1 if any(r.get("ok") is False for r in rows) else 0)
