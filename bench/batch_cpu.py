"""CPU per added batch: what one more batch of a built-in run costs on a mature workspace, against an older checkout.

A run of 1 batch and a run of N batches over the same workspace (memory files of a few hundred lines, an archive of
5,000, a backlog of tagged facts and corrections of lines memory holds), each in a fresh copy and a fresh process;
CPU time (user + sys of the process tree), medians of interleaved runs. Per added batch = (CPU(N) - CPU(1)) / (N-1):
start-up and the run's fixed work cancel out, what is left is the per-batch path — the session, the accounting of
every fact against memory and the archive, supersede, pressure, guards, the commit.

    python bench/batch_cpu.py                       # this checkout
    python bench/batch_cpu.py --against /path/tree  # and another checkout of nanodream, interleaved (A/B)
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, child_env, cli, process_medians, row  # noqa: E402

SMOKE = {"batches": 2, "repeats": 1, "archive_lines": 50, "memory_lines": 20}
ENTRIES_PER_BATCH = 12
# The child: copy the template, dream N batches with the built-in engine, fail loudly unless all committed.
CHILD = """
import shutil, sys, tempfile
from pathlib import Path
from nanodream.config import Settings
from nanodream.run.dream import run_dream
from nanodream.workspace import Workspace
template, batches, tokens, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp) / "ws"
    shutil.copytree(template, root, symlinks=True)
    report = run_dream(Workspace.at(root), Settings(model="builtin", max_batches=batches, batch_tokens=tokens,
                                                    phases=()))
    if any(b.outcome not in ("committed", "no-change") for b in report.batches):
        sys.exit(f"a batch failed: {[str(b.outcome) for b in report.batches]} {report.reason}")
    count.write_text(str(len(report.batches)))
"""


def service_fact(n: int) -> str:
    return f"The service svc-{n:04d} runs on host h{n % 97:02d} in rack r{n % 13}."


def make_template(root: Path, batches: int, memory_lines: int, archive_lines: int) -> int:
    """A committed mature workspace and its backlog; returns the batch token budget that cuts it in `batches`."""
    from nanodream.memory.transaction import ensure_repository
    from nanodream.versioning.gitstore import GitStore
    from nanodream.workspace import Workspace, scaffold

    scaffold(root)
    memory = "".join(f"- {service_fact(n)}\n" for n in range(memory_lines))
    (root / "memory" / "MEMORY.md").write_text(f"# Memory\n\n## Infrastructure\n{memory}", encoding="utf-8")
    user = "".join(f"- Prefers tool number {n} for task kind {n}.\n" for n in range(30))
    (root / "USER.md").write_text(f"# User\n\n## Preferences\n{user}", encoding="utf-8")
    (root / "memory" / "archive").mkdir(exist_ok=True)
    archived = "".join(f"- The legacy job j{n:05d} exported reports nightly.\n" for n in range(archive_lines))
    (root / "memory" / "archive" / "2026-01.md").write_text(f"# Archive 2026-01\n\n## Project\n{archived}",
                                                               encoding="utf-8")
    ensure_repository(GitStore(Workspace.at(root)))
    lines = []
    for cursor in range(1, batches * ENTRIES_PER_BATCH + 1):
        n = memory_lines + cursor
        fact = (f"[correction] The service svc-{cursor % memory_lines:04d} now runs on host h{(cursor + 5) % 97:02d}."
                if cursor % 4 == 0 else f"[durable] {service_fact(n)}")
        lines.append(json.dumps({"cursor": cursor, "timestamp": f"2026-10-{1 + cursor % 28:02d} 10:00",
                                 "session_key": f"cli:{cursor // ENTRIES_PER_BATCH}", "content": fact}))
    (root / "memory" / "history.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 40 * ENTRIES_PER_BATCH  # each entry estimates at ~30 tokens: a batch holds ENTRIES_PER_BATCH of them


def main(quick: bool = False, batches: int = 10, repeats: int = 5, memory_lines: int = 300,
         archive_lines: int = 5000, against: str | None = None) -> list[Row]:
    repeats = 2 if quick else repeats
    checkouts = {"this": None, **({"against": against} if against else {})}
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="nanodream-batch-cpu-") as tmp:
        template = Path(tmp) / "template"
        tokens = make_template(template, batches, memory_lines, archive_lines)
        paths = {name: str(Path(tree).resolve()) if tree else child_env()["PYTHONPATH"]
                 for name, tree in checkouts.items()}
        counts = {f"{name} {n}": Path(tmp) / f"{name}-{n}.count" for name in checkouts for n in (1, batches)}
        commands = {key: ["env", f"PYTHONPATH={paths[key.split()[0]]}", sys.executable, "-c", CHILD, str(template),
                          key.split()[1], str(tokens), str(counts[key])] for key in counts}
        timings = process_medians(commands, repeats)  # interleaved: each checkout's children import that checkout
        dreamed = {key: int(path.read_text()) for key, path in counts.items()}
        shutil.rmtree(template, ignore_errors=True)
    per_batch = {}
    for name in checkouts:
        one, many = timings[f"{name} 1"].cpu, timings[f"{name} {batches}"].cpu
        added = max(dreamed[f"{name} {batches}"] - dreamed[f"{name} 1"], 1)
        per_batch[name] = (many - one) / added
        rows.append(row("batch_cpu", f"{name}: CPU of 1 batch / {dreamed[f'{name} {batches}']} batches",
                        f"{one:.2f} / {many:.2f}", "s"))
        rows.append(row("batch_cpu", f"{name}: CPU per added batch", round(per_batch[name], 3), "s"))
    if against:
        ratio = per_batch["this"] / per_batch["against"] if per_batch["against"] else float("inf")
        rows.append(row("batch_cpu", "this ÷ against, per added batch", round(ratio, 2), "×", "≤ 1.15",
                        ratio <= 1.15))
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", help="another checkout of nanodream to measure beside this one")
    known, rest = parser.parse_known_args()
    sys.argv = [sys.argv[0], *rest]
    cli(lambda quick=False: main(quick, against=known.against), __doc__.splitlines()[0])
