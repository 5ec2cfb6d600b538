"""Git processes per batch: every `git` a whole `nanodream run` process starts, divided by the batches it commits.

Target: ≤ 8 git processes per batch (issue #38). nanodream runs the `git` found on PATH and its git children keep
PATH, so a counting wrapper placed first on PATH sees every call: start-up, recovery, the hand-edit commit, the
session, guards, apply, commit and anything a phase runs. The run is a real `nanodream run` process against the
scripted OpenAI-compatible server (three zero-latency turns per batch that commit one bullet each), on the same
workspaces as bench/run_overhead.py: 1 and 10 batches, 10 and 1,000 committed skills. A second run of the same
workspace with 10 more batches pending is counted too (the state files exist then: the steady case).

Corrections: a workspace whose MEMORY.md holds five facts an earlier dream wrote, then one batch that adds five new
facts, against one batch of five `[correction]`s whose model edits each old line in place — each replaced line is
archived with the day its fact was taught (run/supersede.py asks git which dream wrote it). Target (issue 49):
replacing five facts starts at most two git processes more than adding five.
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
from tests.support.scripted_server import ScriptedServer, tool_calls  # noqa: E402

BENCH = "git"
TARGET_PER_BATCH = 8
TARGET_REPLACING = 2  # git processes a batch replacing five facts may start beyond one adding five
SMOKE = {"cases": ((2, 5),), "facts": 0}  # tests/test_bench_smoke.py (no corrections: four more processes)
CASES = ((1, 10), (10, 10), (1, 1000), (10, 1000))


def counting_git(folder: Path, log: Path) -> None:
    """A `git` in `folder` that appends its arguments to `log` and runs the real git (the log's path is written
    into the script: a git child's environment keeps PATH and little else)."""
    real = shutil.which("git")
    if real is None:
        raise RuntimeError("git is not on PATH")
    script = folder / "git"
    # one line per call, whatever its arguments hold (a log format with newlines in it)
    script.write_text(f'#!/bin/sh\nprintf "%s" "$*" | tr "\\n" " " >> "{log}"\necho >> "{log}"\nexec "{real}" "$@"\n',
                      encoding="utf-8")
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
    return [line for line in log.read_text(encoding="utf-8").split("\n") if line]  # not splitlines: \x1e is no break


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


def _facts(count: int, host: str) -> list[str]:
    return [f"The ledger shard s{n} is served from host {host}{n}." for n in range(count)]


def _correction(n: int) -> str:
    return f"The ledger shard s{n} is now served from host birch{n}, not oak{n}."


def _edits(pairs: list[tuple[str, str]], summary: str) -> dict:
    """One response: every edit and the summary (the prompt's way)."""
    return tool_calls(*(("edit_file", {"path": "memory/MEMORY.md", "old_text": old, "new_text": new})
                        for old, new in pairs), ("finish", {"summary": summary}))


def _history(ws: Path, contents: list[str], first: int, day: int) -> None:
    with (ws / "memory" / "history.jsonl").open("a", encoding="utf-8") as handle:
        handle.writelines(json.dumps({"cursor": first + n, "timestamp": f"2026-10-{day:02d} 10:{n:02d}",
                                      "content": text, "session_key": "cli:direct"}) + "\n"
                          for n, text in enumerate(contents))


def _counted(ws: Path, script: list, bin_dir: Path, log: Path) -> list[str]:
    """The git commands of one `nanodream run` process over one batch that must commit."""
    log.write_text("", encoding="utf-8")
    with ScriptedServer(script) as server:
        env = {**child_env(), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
               "NANODREAM_MODEL": "openai/bench-model", "NANODREAM_API_BASE": server.url,
               "NANODREAM_API_KEY": "bench", "NANODREAM_MAX_RETRIES": "0"}
        done = subprocess.run([sys.executable, "-m", "nanodream", "run", "-w", str(ws), "--json"], env=env,
                              capture_output=True, text=True)
    report = json.loads(done.stdout) if done.stdout.strip() else {}
    if len(report.get("commits", [])) != 1:
        raise RuntimeError(f"run did not commit its batch ({done.returncode}): {report.get('reason')} "
                           f"{done.stderr.strip()[-300:]}")
    return [line for line in log.read_text(encoding="utf-8").split("\n") if line]  # not splitlines: \x1e is no break


def corrections_rows(root: Path, facts: int, bin_dir: Path, log: Path) -> list[Row]:
    """Git processes of a batch adding `facts` facts, and of one replacing as many facts an earlier dream wrote."""
    counted: dict[str, list[str]] = {}
    for kind in ("adds", "replaces"):
        ws = make_workspace(root / f"corrections-{kind}", 0, 10).root
        (ws / "memory" / "history.jsonl").write_text("", encoding="utf-8")
        taught = _facts(facts, "oak")
        _history(ws, [f"[durable] {fact}" for fact in taught], 1, 1)
        _counted(ws, [_edits([("## Project\n", "## Project\n" + "".join(f"- {f}\n" for f in taught))],
                             f"Filed {facts} facts")], bin_dir, log)
        if kind == "adds":
            said = _facts(facts, "elm")
            _history(ws, [f"[durable] {fact}" for fact in said], facts + 1, 9)
            script = [_edits([("## Project\n", "## Project\n" + "".join(f"- {f}\n" for f in said))], "Added")]
        else:
            _history(ws, [f"[correction] {_correction(n)}" for n in range(facts)], facts + 1, 9)
            script = [_edits([(f"- {old}\n", f"- {new}\n") for old, new in zip(taught, _facts(facts, "birch"),
                                                                             strict=True)], "Corrected")]
        counted[kind] = _counted(ws, script, bin_dir, log)
        if kind == "replaces":
            archived = "".join(path.read_text(encoding="utf-8") for path in (ws / "memory" / "archive").glob("*.md"))
            if archived.count("(from 2026-10-01 until 2026-10-09;") != facts:
                raise RuntimeError(f"the replaced facts were not archived with their dates:\n{archived}")
    extra = len(counted["replaces"]) - len(counted["adds"])
    rows = [row(BENCH, f"a batch adding {facts} facts: git processes", len(counted["adds"]), "calls"),
            row(BENCH, f"a batch replacing {facts} facts: git processes", len(counted["replaces"]), "calls"),
            row(BENCH, f"replacing {facts} facts costs beyond adding them", extra, "calls",
                f"≤ +{TARGET_REPLACING}", extra <= TARGET_REPLACING)]
    common = collections.Counter(subcommand(line) for line in counted["replaces"]).most_common(8)
    rows.append(row(BENCH, "  replacing, by subcommand", ", ".join(f"{word} {count}" for word, count in common)))
    return rows


def main(quick: bool = False, cases: tuple[tuple[int, int], ...] | None = None, facts: int = 5) -> list[Row]:
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
        if facts:
            rows += corrections_rows(Path(tmp), facts, bin_dir, log)
    return rows


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
