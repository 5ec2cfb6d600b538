"""Git processes per batch: every `git` a whole `nanodream run` process starts, divided by the batches it commits.

Target: ≤ 8 git processes per batch (issue #38). nanodream runs the `git` found on PATH and its git children keep
PATH, so a counting wrapper placed first on PATH sees every call: start-up, recovery, the hand-edit commit, the
session, guards, apply, commit and anything a phase runs. The run is a real `nanodream run` process against the
scripted OpenAI-compatible server (three zero-latency turns per batch that commit one bullet each), on the same
workspaces as bench/run_overhead.py: 1 and 10 batches, 10 and 1,000 committed skills. A second run of the same
workspace with 10 more batches pending is counted too (the state files exist then: the steady case).
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, child_env, cli, row  # noqa: E402
from bench.run_overhead import BATCH_TOKENS, make_workspace, session_script  # noqa: E402
from tests.support.scripted_server import ScriptedServer  # noqa: E402

BENCH = "git"
TARGET_PER_BATCH = 8
SMOKE = {"cases": ((2, 5),)}  # tests/test_bench_smoke.py
CASES = ((1, 10), (10, 10), (1, 1000), (10, 1000))


def counting_git(folder: Path, log: Path) -> None:
    """A `git` in `folder` that appends its arguments to `log` and runs the real git (the log's path is written
    into the script: a git child's environment keeps PATH and little else)."""
    real = shutil.which("git")
    if real is None:
        raise RuntimeError("git is not on PATH")
    script = folder / "git"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def counted_run(ws: Path, batches: int, first_note: int, bin_dir: Path, log: Path) -> list[str]:
    """The git commands of one `nanodream run` process over `batches` batches (each must commit one new note)."""
    log.write_text("", encoding="utf-8")
    script = session_script(first_note + batches)[3 * first_note:]
    with ScriptedServer(script) as server:
        env = {**child_env(), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
               "NANODREAM_MODEL": "openai/bench-model", "NANODREAM_API_BASE": server.url,
               "NANODREAM_API_KEY": "bench", "NANODREAM_MAX_RETRIES": "0",
               "NANODREAM_BATCH_TOKENS": str(BATCH_TOKENS)}
        done = subprocess.run([sys.executable, "-m", "nanodream", "run", "-w", str(ws), "--max-batches",
                               str(batches), "--json"], env=env, capture_output=True, text=True)
    report = json.loads(done.stdout) if done.returncode == 0 else {}
    if len(report.get("commits", [])) != batches:
        raise RuntimeError(f"run did not commit {batches} batches ({done.returncode}): {done.stderr.strip()[-500:]}")
    return log.read_text(encoding="utf-8").splitlines()


def subcommand(line: str) -> str:
    """The git subcommand of a logged call (options before it skipped)."""
    words = line.split()
    return next((word for word in words if not word.startswith("-")), "?")


def more_history(ws: Path, lines: int) -> None:
    """Append the history's first `lines` entries again, numbered on."""
    history = ws / "memory" / "history.jsonl"
    old = history.read_text(encoding="utf-8").splitlines()
    extra = [entry.replace(f'"cursor": {i + 1},', f'"cursor": {len(old) + i + 1},', 1)
             for i, entry in enumerate(old[:lines])]
    with history.open("a", encoding="utf-8") as handle:
        handle.write("\n".join(extra) + "\n")


def main(quick: bool = False, cases: tuple[tuple[int, int], ...] | None = None) -> list[Row]:
    cases = cases or (CASES[:2] if quick else CASES)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="nanodream-git-") as tmp:
        bin_dir, log = Path(tmp) / "bin", Path(tmp) / "git.log"
        bin_dir.mkdir()
        counting_git(bin_dir, log)
        for batches, skills in cases:
            ws = make_workspace(Path(tmp) / f"ws-{batches}-{skills}", batches, skills).root
            first = counted_run(ws, batches, 0, bin_dir, log)
            more_history(ws, len(ws.joinpath("memory", "history.jsonl").read_text(encoding="utf-8").splitlines()))
            again = counted_run(ws, batches, batches, bin_dir, log)
            label = f"{batches} batch{'es' if batches > 1 else ''}, {skills:,} skills"
            for name, calls in ((f"first run, {label}", first), (f"next run, {label}", again)):
                per_batch = len(calls) / batches
                common = collections.Counter(subcommand(line) for line in calls).most_common(6)
                rows.append(row(BENCH, f"git processes per batch, {name}", round(per_batch, 1), "calls",
                                f"≤ {TARGET_PER_BATCH}", per_batch <= TARGET_PER_BATCH))
                rows.append(row(BENCH, f"  by subcommand ({len(calls)} in all)",
                                ", ".join(f"{word} {count}" for word, count in common)))
    return rows


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
