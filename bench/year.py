"""A year of a busy agent through the builtin engine: time, active and archive sizes, prompt bytes per run.

Method: tests/support/year.py's seeded year (4,015 entries, 11 a day: facts about 1,200 services and 8 teams that
change, [permanent] preferences, tasks opened and resolved, [skip] chatter, untagged lines) is dreamed
every 30 days in one fresh workspace, each run on its simulated date (git commit dates and the archive's
month follow it), default settings (24,000-char caps, pressure_ratio 0.9, archive_after_days 90). Before
each run the request a model session would get for its first batch is rendered (`nanodream prompt
--rendered`'s code path): its bytes, and the memory part of it, should stay flat once the caps are reached.
Then the same year as one backlog dreamed by a single run (a workspace that never dreamed). Targets: no
failed batch, MEMORY.md under its cap at every step.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, cli, row  # noqa: E402
from nanodream.config import Settings  # noqa: E402
from nanodream.prompting.prompt import NothingToSend, render_next_request  # noqa: E402
from nanodream.run.dream import run_dream  # noqa: E402
from nanodream.workspace import Workspace, scaffold  # noqa: E402
from tests.support.year import live_through, simulate_year  # noqa: E402

BENCH = "year"
CAP = 24_000
SMOKE = {"days": 60}  # tests/test_bench_smoke.py


def main(quick: bool = False, days: int = 365) -> list[Row]:
    year = simulate_year(seed=1, days=days)
    settings = Settings(max_batches=1000)
    rows: list[Row] = [row(BENCH, "history entries", len(year.entries))]
    with tempfile.TemporaryDirectory(prefix="nanodream-year-") as tmp:
        ws = Workspace.at(Path(tmp))
        scaffold(ws.root)
        started, failed, dreaming = time.perf_counter(), 0, 0.0
        months = live_through(ws, year, settings)
        while True:
            clock = time.perf_counter()
            try:
                day, report = next(months)
            except StopIteration:
                break
            dreaming += time.perf_counter() - clock
            failed += sum(batch.outcome == "failed" for batch in report.batches)
            memory = len((ws.root / "memory/MEMORY.md").read_text(encoding="utf-8"))
            archive = sum(len(p.read_text(encoding="utf-8")) for p in (ws.root / "memory/archive").glob("*.md"))
            request = _next_request(ws, settings, year, day)
            rows += [
                row(BENCH, f"{day} MEMORY.md", memory, "chars", f"≤ {CAP:,}", memory <= CAP),
                row(BENCH, f"{day} USER.md", len((ws.root / "USER.md").read_text(encoding="utf-8")), "chars"),
                row(BENCH, f"{day} archive", archive, "chars"),
            ]
            if request is not None:
                rows += [row(BENCH, f"{day} next request, memory part", request[0], "bytes"),
                         row(BENCH, f"{day} next request, whole", request[1], "bytes")]
        rows += [row(BENCH, "failed batches", failed, "", "0", failed == 0),
                 row(BENCH, "dream time (all runs)", round(dreaming, 2), "s"),
                 row(BENCH, "wall time incl. rendering", round(time.perf_counter() - started, 2), "s")]
    return rows + _backlog_at_once(year, settings)


def _backlog_at_once(year, settings: Settings) -> list[Row]:
    """The same year as one backlog, dreamed by one run (a workspace that never dreamed before)."""
    with tempfile.TemporaryDirectory(prefix="nanodream-year-") as tmp:
        ws = Workspace.at(Path(tmp))
        scaffold(ws.root)
        year.write(ws.history_file)
        clock = time.perf_counter()
        report = run_dream(ws, settings)
        seconds = time.perf_counter() - clock
        memory = len((ws.root / "memory/MEMORY.md").read_text(encoding="utf-8"))
    return [row(BENCH, "one run over the whole year: outcome", str(report.outcome), "", "committed",
                report.outcome == "committed"),
            row(BENCH, "one run over the whole year: time", round(seconds, 2), "s"),
            row(BENCH, "one run over the whole year: batches", len(report.batches)),
            row(BENCH, "one run over the whole year: MEMORY.md", memory, "chars", f"≤ {CAP:,}", memory <= CAP)]


def _next_request(ws: Workspace, settings: Settings, year, day) -> tuple[int, int] | None:
    """Bytes of the memory part and of the whole first request of the next month, had a model dreamed it."""
    upto = next((i for i, e in enumerate(year.entries) if e["timestamp"][:10] >= day.isoformat()), None)
    if upto is None:
        return None
    before = ws.history_file.read_bytes()
    year.write(ws.history_file, since=upto, until=upto + 400)
    try:
        request = render_next_request(ws, settings)
    except NothingToSend:
        return None
    finally:
        ws.history_file.write_bytes(before)
    memory = request.message.parts()["memory"]
    return len(memory.encode()), len((request.system + request.user).encode())


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
