"""Host session overhead: what nanodream's side of a host's dream session costs, beyond the host's own calls.

A host (Claude Code, Codex, Cursor) is the model of the session; nanodream's work is `dream_begin` (the lock,
recovery, the batch a run cuts, the staged copy, the prompt and its signals), each `dream_` tool call on the staged
copy, and `dream_finish` (the accounting, the guards, supersede, holds, pressure, apply, the commit, the cursor, the
record, the insight phases). Timed in-process as a Python host drives it through `nanodream.api`, with no host
thinking between the calls, so every second measured is nanodream's: wall time per call and in all, and the CPU
time of the whole process (every thread: the run's own thread does most of the work) and of its git processes
from `dream_begin` to `dream_finish`'s answer. The insight phases are off on both sides (bench/insights.py
measures them). Each session files three new tagged facts with one read and two edits. Beside it: the same
kind of batch dreamed by a `nanodream run` with the built-in engine (no model at all), and the same session over
MCP stdio through the SDK's client, timed by the client (JSON-RPC and the result schemas added).
"""

from __future__ import annotations

import json
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BENCH = "host session"
SMOKE = {"kinds": ("starter",), "repeats": 1, "over_mcp": False}  # tests/test_bench_smoke.py
FACTS = ("[permanent] User's favourite editor is Helix (session {n}).",
         "[durable] The invoice exporter {n} writes CSV files to the shared drive.",
         "[permanent] User reads replies on a phone during session {n}.")


@dataclass
class Timing:
    """One session's nanodream-side times, in seconds."""

    begin: float = 0.0
    calls: list[float] = field(default_factory=list)
    finish: float = 0.0
    cpu: float = 0.0

    @property
    def wall(self) -> float:
        return self.begin + sum(self.calls) + self.finish


def new_workspace(root: Path, kind: str) -> Any:
    from bench.session_cost import workspace

    return workspace(root, kind, 0, config="phases = []\n")  # phases are a run's too: apart


def add_batch(ws: Any, number: int) -> None:
    """Three new tagged facts, after the entries already there."""
    cursor = len(ws.history_file.read_text(encoding="utf-8").splitlines())
    with ws.history_file.open("a", encoding="utf-8") as history:
        for offset, fact in enumerate(FACTS, start=1):
            history.write(json.dumps({"cursor": cursor + offset, "timestamp": f"2026-10-01 10:{offset:02d}",
                                      "content": fact.format(n=number)}) + "\n")


def edits(memory: dict[str, str], number: int) -> list[tuple[str, dict[str, str]]]:
    """One read and two edits filing the batch's facts under each file's first section."""
    def under_first_section(path: str, lines: list[str]) -> dict[str, str]:
        heading = next(line for line in memory[path].splitlines() if line.startswith("## ")) + "\n"
        return {"path": path, "old_text": heading, "new_text": heading + "".join(f"- {line}\n" for line in lines)}

    user = [f"Favourite editor: Helix (session {number})", f"Reads replies on a phone during session {number}"]
    work = [f"The invoice exporter {number} writes CSV files to the shared drive."]
    return [("read_file", {"path": "USER.md"}), ("edit_file", under_first_section("USER.md", user)),
            ("edit_file", under_first_section("memory/MEMORY.md", work))]


def cpu_seconds() -> float:
    """CPU time so far of this process (every thread) and of its finished children (git)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed(fn: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def one_session(ws: Any, number: int) -> Timing:
    """A session through nanodream.api: begin, one read and two edits, finish; every call timed."""
    from nanodream import api

    add_batch(ws, number)
    timing, cpu = Timing(), cpu_seconds()
    began, timing.begin = timed(lambda: api.dream_begin(ws, client="bench"))
    for tool, arguments in edits(began.memory, number):
        called, seconds = timed(lambda tool=tool, arguments=arguments: api.dream_tool(ws, began.session, tool,
                                                                                         arguments))
        assert called.ok, called.text
        timing.calls.append(seconds)
    done, timing.finish = timed(lambda: api.dream_finish(ws, began.session, f"Filed session {number}'s facts"))
    timing.cpu = cpu_seconds() - cpu
    assert done.committed and not done.open, done.to_json()
    return timing


def builtin_run(ws: Any, number: int) -> tuple[float, float]:
    """The same kind of batch dreamed by `nanodream run` with the built-in engine: wall and CPU seconds."""
    from nanodream import api

    add_batch(ws, number)
    cpu = cpu_seconds()
    report, wall = timed(lambda: api.run(ws))
    assert report.outcome in ("committed", "no-change"), report.to_json()
    return wall, cpu_seconds() - cpu


def sessions_over_mcp(ws: Any, sessions: int) -> list[float]:
    """Whole sessions over MCP stdio through the SDK's client: client-side seconds from begin to finish's answer."""
    from tests.support.mcp_client import mcp_server

    times = []
    with mcp_server(ws.root, "--allow-write", client="bench") as client:
        for number in range(1000, 1000 + sessions + 1):  # the first one warms the server up, untimed
            add_batch(ws, number)
            start = time.perf_counter()
            began = client.call("dream_begin", {}).structured_content
            for tool, arguments in edits(began["memory"], number):
                assert not client.call(f"dream_{tool}", {"session": began["session"], **arguments}).is_error
            done = client.call("dream_finish", {"session": began["session"], "summary": f"Filed {number}"})
            assert done.structured_content["committed"], done.structured_content
            times.append(time.perf_counter() - start)
    return times[1:]


def main(quick: bool = False, kinds: tuple[str, ...] = ("starter", "mature"), repeats: int | None = None,
         over_mcp: bool = True) -> list[dict]:
    repeats = repeats or (3 if quick else 7)
    rows = []
    for kind in kinds:
        with tempfile.TemporaryDirectory() as tmp:
            ws = new_workspace(Path(tmp) / "host", kind)
            one_session(ws, 0)  # warm-up: imports, the first git processes
            sessions = [one_session(ws, number) for number in range(1, repeats + 1)]
            reference = new_workspace(Path(tmp) / "run", kind)
            builtin_run(reference, 0)
            runs = [builtin_run(reference, number) for number in range(1, repeats + 1)]
            mcp = sessions_over_mcp(new_workspace(Path(tmp) / "mcp", kind), repeats) if over_mcp else []
        rows += _rows(kind, sessions, runs, mcp)
    return rows


def _rows(kind: str, sessions: list[Timing], runs: list[tuple[float, float]], mcp: list[float]) -> list[dict]:
    from bench._common import row

    median = statistics.median
    rows = [row(BENCH, f"{kind}: dream_begin", round(median(t.begin for t in sessions), 3), "s"),
            row(BENCH, f"{kind}: one dream_ tool call", round(median(c for t in sessions for c in t.calls), 4), "s"),
            row(BENCH, f"{kind}: dream_finish (commit, cursor, record)", round(median(t.finish for t in sessions), 3),
                "s"),
            row(BENCH, f"{kind}: session, nanodream's wall time", round(median(t.wall for t in sessions), 3), "s"),
            row(BENCH, f"{kind}: session, CPU (threads and git)", round(median(t.cpu for t in sessions), 3), "s"),
            row(BENCH, f"{kind}: builtin run of a like batch, wall", round(median(w for w, _ in runs), 3), "s"),
            row(BENCH, f"{kind}: builtin run of a like batch, CPU", round(median(c for _, c in runs), 3), "s")]
    if mcp:
        rows.append(row(BENCH, f"{kind}: session over MCP stdio (client side)", round(median(mcp), 3), "s"))
    return rows


def _cli() -> None:
    from bench._common import cli

    cli(main, (__doc__ or "").splitlines()[0])


if __name__ == "__main__":
    _cli()
