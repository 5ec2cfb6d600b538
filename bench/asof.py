"""How fast recall answers as of a date on a workspace with 1,000 memory commits.

Builds the workspace with ONE `git fast-import` stream: 1,000 dream commits a day apart (committer dates
from 2024-01-01), each rewriting memory/MEMORY.md (a rolling window of 40 facts, one of them the API's
host, which changes every 10 commits) and, every 10th, adding the replaced host line to the month's archive
file in the until-form. Then times `nanodream recall QUERY --as-of DAY --json` on a day in the middle of the
history as a fresh process (what a person or a host pays: imports, finding the commit, reading its files,
building the index) beside plain `recall` on the same workspace, interleaved, the median of several runs:
wall time, and CPU time of the process tree (user + sys, git included), which a loaded machine inflates far
less. It checks the answer is the host of that day.

    python bench/asof.py [--quick]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import Row, bytecode_env, cli, process_medians, row  # noqa: E402
from bench.log_1000 import dream_message, import_commits  # noqa: E402

BENCH = "asof"
COMMITS = 1000
START = date(2024, 1, 1)
TARGET = 1.0
SMOKE = {"commits": 40}  # tests/test_bench_smoke.py
QUERY = "which host runs the API?"


def stream(commits: int) -> bytes:
    """The fast-import stream: `commits` dream commits a day apart on top of main."""
    out = bytearray()

    def data(payload: bytes) -> None:
        out.extend(b"data %d\n" % len(payload) + payload + b"\n")

    archive: dict[str, str] = {}
    for i in range(1, commits + 1):
        day = START + timedelta(days=i)
        host = i // 10
        facts = "".join(f"- fact {n}: the project keeps decision {n}\n" for n in range(max(1, i - 39), i + 1))
        memory = f"# Memory\n\n## Project\n- The API runs on host h{host}.\n{facts}".encode()
        when = int((day - date(1970, 1, 1)).total_seconds()) + 22 * 3600
        out.extend(b"commit refs/heads/main\n")
        out.extend(b"committer nanodream <nanodream@localhost> %d +0000\n" % when)
        data(dream_message(i).encode())
        if i == 1:
            out.extend(b"from refs/heads/main^0\n")
        out.extend(b"M 100644 inline memory/MEMORY.md\n")
        data(memory)
        if i % 10 == 0 and host > 0:
            month = f"memory/archive/{day:%Y-%m}.md"
            since = (START + timedelta(days=i - 10)).isoformat()
            archive[month] = archive.get(month, f"# Archive {day:%Y-%m}\n\n## Project\n") + (
                f"- The API runs on host h{host - 1} (from {since} until {day.isoformat()}; replaced by: "
                f"The API runs on host h{host})\n")
            out.extend(f"M 100644 inline {month}\n".encode())
            data(archive[month].encode())
    return bytes(out)


def main(quick: bool = False, commits: int = COMMITS) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="nanodream-asof-") as tmp:
        ws = import_commits(Path(tmp) / "ws", stream(commits))
        asked = START + timedelta(days=commits // 2 + 5)
        env = bytecode_env(Path(tmp) / "pycache")
        plain = [sys.executable, "-m", "nanodream", "recall", QUERY, "-w", str(ws.root), "--json"]
        as_of = [*plain, "--as-of", asked.isoformat()]
        hits = json.loads(subprocess.run(as_of, env=env, capture_output=True, text=True, check=True).stdout)
        answer = hits[0]["text"] if hits else ""
        timed = process_medians({"as-of": as_of, "plain": plain}, 2 if quick else 7, env=env)
        expected = f"The API runs on host h{(commits // 2 + 5) // 10}."  # the line as it stood (no bullet)
        return [row(BENCH, "memory commits", commits),
                row(BENCH, "recall --as-of, fresh process: wall", round(timed["as-of"].wall, 3), "s",
                    f"≤ {TARGET}", timed["as-of"].wall <= TARGET),
                row(BENCH, "recall --as-of, fresh process: CPU", round(timed["as-of"].cpu, 3), "s"),
                row(BENCH, "plain recall, same workspace: wall", round(timed["plain"].wall, 3), "s"),
                row(BENCH, "plain recall, same workspace: CPU", round(timed["plain"].cpu, 3), "s"),
                row(BENCH, "answer is that day's host", answer, "", expected, answer == expected)]


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
