"""Scale: the CPU of a whole one-batch `nanodream run` as the history, the memory files and the skills grow.

Target (issues #38, #49): the first run on an adopted history — nothing consumed yet, or `.dream_cursor` near the
end — and a run after a new skill appears cost at most 2x the CPU of the same run on a 1k-line history when the
history has 200k lines; 1M lines are reported too, and a run's peak memory there stays under 100 MB. Memory file
sizes and 10 -> 1,000 skills are reported beside them.

Each figure is the CPU (user + system) of a real `nanodream run --max-batches 1 --json` process and every git
process it starts (they are its children; `wait4` gives that process's own figures, and its peak memory), against
the scripted OpenAI-compatible server (three zero-latency turns that add one bullet to MEMORY.md, so every run
commits one batch); the server runs in this process and is not counted. Every run gets a fresh copy of its
workspace; one run each (`repeats` for a median).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, cache_dir, child_env, cli, row  # noqa: E402
from bench.run_overhead import BATCH_TOKENS, CONTENT, make_workspace, session_script  # noqa: E402
from tests.support.scripted_server import ScriptedServer  # noqa: E402

BENCH = "scale"
TARGET_RATIO = 2.0
TARGET_PEAK_MB = 100  # peak resident memory of a run at 1M lines (issue 49)
TAIL = 50  # entries after `.dream_cursor` in the "near the end" case: one batch
SMOKE = {"sizes": (400,), "skill_counts": (3,), "memory_bullets": (20,), "repeats": 1}  # > 1 batch: the skill case
Prepare = Callable[[Path], None]


def history_lines(lines: int) -> Path:
    """A history of `lines` copies of run_overhead's batch content, one entry a minute; generated once, cached."""
    path = cache_dir() / f"scale-history-v1-{lines}.jsonl"
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.partial")  # two workers never share a half-written file
        content = json.dumps(CONTENT)
        with partial.open("w", encoding="utf-8") as out:
            for start in range(1, lines + 1, 10_000):
                out.write("".join(
                    f'{{"cursor": {c}, "timestamp": "2026-{c // 40320 % 12 + 1:02d}-{c // 1440 % 28 + 1:02d} '
                    f'{c // 60 % 24:02d}:{c % 60:02d}", "content": {content}, "session_key": "cli:direct"}}\n'
                    for c in range(start, min(start + 10_000, lines + 1))))
        partial.replace(path)
    return path


def template(root: Path, lines: int, skills: int, bullets: int) -> Path:
    """A committed workspace with `skills` skills, `bullets` extra MEMORY.md lines and a `lines`-line history."""
    ws = make_workspace(root, 1, skills).root
    if bullets:
        memory = ws / "memory" / "MEMORY.md"
        extra = "".join(f"- Fact {i}: the ledgerline service {i} answers on port {8000 + i}.\n" for i in range(bullets))
        memory.write_text(memory.read_text(encoding="utf-8") + "\n## Facts\n" + extra, encoding="utf-8")
        git = ["git", "-C", str(ws), "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
        subprocess.run([*git, "commit", "-qam", "bench: large memory"], check=True, env=child_env())
    shutil.copyfile(history_lines(lines), ws / "memory" / "history.jsonl")
    return ws


PEAK: dict[str, float] = {}  # the peak resident memory (MB) of the last run_cpu, read by history_rows


def run_cpu(ws: Path, note: int, model: str = "openai/bench-model") -> float:
    """CPU seconds of one `nanodream run --max-batches 1` process over `ws` (its git children included); its peak
    resident memory goes to PEAK["last"]."""
    with ScriptedServer(session_script(note + 1)[3 * note:]) as server:
        env = {**child_env(), "NANODREAM_MODEL": model, "NANODREAM_API_BASE": server.url,
               "NANODREAM_API_KEY": "bench", "NANODREAM_MAX_RETRIES": "0",
               "NANODREAM_BATCH_TOKENS": str(BATCH_TOKENS)}
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            child = subprocess.Popen([sys.executable, "-m", "nanodream", "run", "-w", str(ws), "--max-batches", "1",
                                      "--json"], env=env, stdout=out, stderr=err)
            _, status, usage = os.wait4(child.pid, 0)  # this process's own figures, its git children's in them
            child.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read().decode(), err.read().decode()
    report = json.loads(stdout) if child.returncode == 0 else {}
    if len(report.get("commits", [])) != 1:
        raise RuntimeError(f"run did not commit its batch ({child.returncode}): {stderr.strip()[-500:]}")
    PEAK["last"] = usage.ru_maxrss / 1024
    return usage.ru_utime + usage.ru_stime


def near_the_end(ws: Path) -> None:
    """An adopted history nanobot's own Dream had consumed up to its last TAIL entries."""
    lines = sum(1 for _ in (ws / "memory" / "history.jsonl").open("rb"))
    (ws / "memory" / ".dream_cursor").write_text(f"{max(lines - TAIL, 0)}\n", encoding="utf-8")


def after_a_new_skill(ws: Path) -> None:
    """One run already done (the history's first batch consumed), then a person adds a skill."""
    run_cpu(ws, 0)
    folder = ws / "skills" / "deploy-check"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: deploy-check\ndescription: Check a ledgerline deploy\n---\n\n"
                                     "1. Run `make check`\n", encoding="utf-8")


def median_cpu(source: Path, work: Path, repeats: int, prepare: Prepare | None = None) -> float:
    """Median CPU of the run over fresh copies of `source` (each prepared by `prepare` first, not timed); the
    largest peak memory of those runs in PEAK["median"]."""
    figures, peaks = [], []
    for i in range(repeats):
        ws = work / f"run-{i}"
        shutil.rmtree(ws, ignore_errors=True)
        shutil.copytree(source, ws, symlinks=True)
        note = 0
        if prepare is not None:
            prepare(ws)
            note = 1 if prepare is after_a_new_skill else 0
        figures.append(run_cpu(ws, note))
        peaks.append(PEAK["last"])
        shutil.rmtree(ws)
    PEAK["median"] = max(peaks)
    return statistics.median(figures)


CASES: dict[str, Prepare | None] = {"first run, nothing consumed": None, "first run, .dream_cursor near the end":
                                    near_the_end, "run after a new skill appears": after_a_new_skill}


def judged_size(sizes: tuple[int, ...]) -> int:
    """The history the 2x target is about: 200k lines (the largest size when a smaller set is run)."""
    return 200_000 if 200_000 in sizes else sizes[-1]


def history_rows(tmp: Path, sizes: tuple[int, ...], repeats: int) -> list[Row]:
    rows: list[Row] = []
    sources = {lines: template(tmp / f"ws-{lines}", lines, 10, 0) for lines in sizes}
    for name, prepare in CASES.items():
        base = None
        for lines in sizes:
            cpu = median_cpu(sources[lines], tmp / "work", repeats, prepare)
            base = base or cpu
            ratio = cpu / base
            judged = lines == judged_size(sizes) and lines != sizes[0]
            rows.append(row(BENCH, f"{name}, {lines:,} lines (x{ratio:.2f} of {sizes[0]:,})", cpu, "s CPU",
                            f"≤ {TARGET_RATIO:g}x" if judged else "", ratio <= TARGET_RATIO if judged else None))
            rows.append(row(BENCH, f"  peak memory (litellm's ~200 MB in it), {lines:,} lines",
                            round(PEAK["median"], 1), "MB"))
    return rows + peak_rows(sources, tmp)


def peak_rows(sources: dict[int, Path], tmp: Path) -> list[Row]:
    """Peak memory of the builtin engine's run near the end of each history (no litellm: what nanodream itself
    holds), after a first run has indexed and surveyed it. Target: under 100 MB at 1M lines."""
    rows: list[Row] = []
    for lines, source in sources.items():
        ws = tmp / "peak"
        shutil.rmtree(ws, ignore_errors=True)
        shutil.copytree(source, ws, symlinks=True)
        near_the_end(ws)
        run_cpu(ws, 0, model="builtin")
        largest = lines >= 1_000_000
        rows.append(row(BENCH, f"peak memory, builtin run near the end, {lines:,} lines", round(PEAK["last"], 1),
                        "MB", f"< {TARGET_PEAK_MB} MB" if largest else "",
                        PEAK["last"] < TARGET_PEAK_MB if largest else None))
        shutil.rmtree(ws)
    return rows


def workspace_rows(tmp: Path, skill_counts: tuple[int, ...], memory_bullets: tuple[int, ...],
                   repeats: int) -> list[Row]:
    rows: list[Row] = []
    for skills in skill_counts:
        cpu = median_cpu(template(tmp / f"skills-{skills}", 1_000, skills, 0), tmp / "work", repeats)
        rows.append(row(BENCH, f"first run, 1,000 lines, {skills:,} skills", cpu, "s CPU"))
    for bullets in memory_bullets:
        source = template(tmp / f"memory-{bullets}", 1_000, 10, bullets)
        size = (source / "memory" / "MEMORY.md").stat().st_size
        measure = f"first run, 1,000 lines, MEMORY.md {size / 1024:,.1f} KiB"
        try:
            rows.append(row(BENCH, measure, median_cpu(source, tmp / "work", repeats), "s CPU"))
        except RuntimeError as failed:  # a memory file past its cap: the run refuses the batch, said as a figure
            rows.append(row(BENCH, measure, f"no commit: {str(failed)[-80:]}", "", "", False))
    return rows


def main(quick: bool = False, sizes: tuple[int, ...] | None = None, skill_counts: tuple[int, ...] = (10, 1_000),
         memory_bullets: tuple[int, ...] = (0, 100), repeats: int | None = None) -> list[Row]:
    sizes = sizes or ((1_000, 20_000) if quick else (1_000, 100_000, 200_000, 1_000_000))
    repeats = repeats or 1
    with tempfile.TemporaryDirectory(prefix="nanodream-scale-") as tmp:
        rows = history_rows(Path(tmp), sizes, repeats)
        rows += workspace_rows(Path(tmp), skill_counts, memory_bullets, repeats)
    return rows


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
