"""Run overhead: a full dream run against a zero-latency scripted server, with the model calls' time subtracted.

Target: ≤ 0.5 s per batch beyond the model calls (stage, guards, apply, commit, cursor, record), for 1 and
10 batches, and again with 1,000 skills in the workspace. Every batch is a realistic small session —
read_file, edit_file, final answer — so every batch commits. Time spent inside `litellm.completion`
(HTTP, the server, litellm's own work) is measured by wrapping it and subtracted; time inside git
subprocesses is measured the same way and shown as part of the overhead.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench._common import Row, cli, row  # noqa: E402
from nanodream.backlog.history import HistoryEntry, entry_tokens  # noqa: E402
from nanodream.config import Settings  # noqa: E402
from nanodream.memory.transaction import ensure_repository  # noqa: E402
from nanodream.run.dream import run_dream  # noqa: E402
from nanodream.versioning.gitstore import GitStore  # noqa: E402
from nanodream.workspace import Workspace, scaffold  # noqa: E402
from tests.support.scripted_server import ScriptedServer, call, final  # noqa: E402

BENCH = "run"
TARGET_PER_BATCH = 0.5
BATCH_TOKENS = 8000
SMOKE = {"batch_counts": (2,), "skill_counts": (5,), "repeats": 1}  # tests/test_bench_smoke.py
CONTENT = ("[durable] Project ledgerline deploys to a Hetzner box with docker compose; backups run nightly.\n"
           "[skip] User said thanks.\n[ephemeral] Task: migrating invoices table (in progress).")


class Stopwatch:
    """Accumulated time spent inside wrapped callables (model calls, git subprocesses).

    A name the owner does not have is left alone, so the benchmark keeps running when an internal moves.
    """

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0

    @contextlib.contextmanager
    def wrapping(self, owner: object, name: str) -> Iterator[None]:
        original: Callable | None = getattr(owner, name, None)
        if original is None:
            yield
            return

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
                self.calls += 1

        setattr(owner, name, timed)
        try:
            yield
        finally:
            setattr(owner, name, original)


def make_workspace(root: Path, batches: int, skills: int) -> Workspace:
    """Starter memory files, `skills` skills, all committed, and a history of exactly `batches` batches."""
    ws = Workspace.at(root)
    scaffold(ws.root)
    for i in range(skills):
        name = f"skill-{i:04d}"
        folder = ws.root / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Procedure number {i} for the ledgerline project\n---\n\n"
            f"1. Run `make step-{i}`\n2. Check the output\n", encoding="utf-8")
    ensure_repository(GitStore(ws))
    per_batch = BATCH_TOKENS // entry_tokens(HistoryEntry(1, "", CONTENT.replace("[skip] User said thanks.\n", "")))
    lines = [json.dumps({"cursor": c, "timestamp": "2026-10-05 10:00", "content": CONTENT, "session_key": "cli:direct"})
             for c in range(1, per_batch * batches + 1)]
    ws.history_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ws


def session_script(batches: int) -> list:
    """Three model turns per batch: read MEMORY.md, add one bullet under ## Project, answer."""
    script = []
    for i in range(batches):
        script += [
            call("read_file", path="memory/MEMORY.md"),
            call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
                 new_text=f"## Project\n- Deploy note {i}: Project ledgerline deploys to a Hetzner box with "
                          "docker compose; backups run nightly.\n"),
            final(f"Recorded deploy note {i}\n- memory/MEMORY.md: one bullet"),
        ]
    return script


def timed_run(batches: int, skills: int) -> dict[str, float]:
    """One full run in a fresh workspace; wall time, model-call time and git time in seconds."""
    import litellm

    from nanodream.versioning import gitstore

    with tempfile.TemporaryDirectory(prefix="nanodream-run-") as tmp:
        ws = make_workspace(Path(tmp) / "ws", batches, skills)
        with ScriptedServer(session_script(batches)) as server:
            settings = Settings(model="openai/bench-model", api_base=server.url, api_key="bench", max_retries=0,
                                timeout=30.0, batch_tokens=BATCH_TOKENS, max_batches=batches)
            model, gits = Stopwatch(), Stopwatch()
            with model.wrapping(litellm, "completion"), gits.wrapping(gitstore, "run_git"):
                start = time.perf_counter()
                report = run_dream(ws, settings)
                wall = time.perf_counter() - start
        commits = len(report.commits)
        if report.outcome != "committed" or commits != batches:
            raise RuntimeError(f"run did not commit {batches} batches: {report.outcome} {report.reason}")
    return {"wall": wall, "model": model.seconds, "model_calls": model.calls, "git": gits.seconds,
            "git_calls": gits.calls}


def main(quick: bool = False, batch_counts: tuple[int, ...] = (1, 10), skill_counts: tuple[int, ...] = (0, 1000),
         repeats: int | None = None) -> list[Row]:
    repeats = repeats or (1 if quick else 3)
    start = time.perf_counter()
    import litellm  # noqa: F401 - paid once per `nanodream run` process; reported, not counted per batch

    rows = [row(BENCH, "import litellm (once per run process)", time.perf_counter() - start, "s")]
    timed_run(1, 0)  # warm-up: litellm's first-call lazy loading, git and page caches
    for skills in skill_counts:
        for batches in batch_counts:
            runs = [timed_run(batches, skills) for _ in range(repeats)]
            overhead = statistics.median((r["wall"] - r["model"]) / batches for r in runs)
            label = f"{batches} batch{'es' if batches > 1 else ''}, {skills:,} skills"
            rows.append(row(BENCH, f"overhead per batch, {label}", overhead, "s", f"≤ {TARGET_PER_BATCH} s",
                            overhead <= TARGET_PER_BATCH))
            git_share = statistics.median(r["git"] / batches for r in runs)
            git_calls = statistics.median(r["git_calls"] / batches for r in runs)
            rows.append(row(BENCH, f"  of which git ({git_calls:.0f} calls/batch), {label}", git_share, "s"))
            per_call = statistics.median(r["model"] / r["model_calls"] for r in runs)
            rows.append(row(BENCH, f"  model call via litellm (not counted), {label}", per_call, "s/call"))
    return rows


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
