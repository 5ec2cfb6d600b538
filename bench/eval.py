"""`nanodream eval`: the shipped corpus as a process, builtin vs a weak engine, and simulated seeds.

Targets: `nanodream eval` on the shipped corpus ≤ 60 s wall on 2 cores; the builtin engine ≥ 0.95 on the
corpus and on every simulated seed; a weak engine (one fact per session, tests/evaluation/test_eval.py) at least
0.3 below the builtin one, or the scores do not discriminate. Method: one process run of the CLI (what a
user waits for), then in-process runs for the scores; seeds are written with `nanodream simulate` defaults.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import REPO, Row, child_env, cli, row  # noqa: E402
from nanodream.evaluation.runner import EvalConfig, run_corpus  # noqa: E402
from nanodream.evaluation.scenario import discover, shipped_corpus  # noqa: E402
from nanodream.evaluation.simulate import write_scenario  # noqa: E402
from tests.evaluation.test_eval import OneFactPerSession  # noqa: E402

BENCH = "eval"
WALL_TARGET = 60.0
SCORE_TARGET = 0.95
GAP_TARGET = 0.3
SMOKE = {"scenarios": 2, "seeds": 1, "process": False}  # tests/test_bench_smoke.py


def main(quick: bool = False, scenarios: int | None = None, seeds: int = 5, process: bool = True) -> list[Row]:
    corpus = discover([shipped_corpus()])[:scenarios]
    rows: list[Row] = [row(BENCH, "shipped scenarios", len(corpus))]
    if process:
        clock = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "nanodream", "eval", "--json"], cwd=REPO, env=child_env(),
                              capture_output=True, text=True, check=True)
        wall = time.monotonic() - clock
        rows.append(row(BENCH, "nanodream eval, shipped corpus (process)", round(wall, 2), "s",
                        f"≤ {WALL_TARGET:.0f} s", wall <= WALL_TARGET))
        rows.append(row(BENCH, "checks in the shipped corpus",
                        sum(len(s["checks"]) for s in json.loads(done.stdout)["scenarios"])))
    builtin = run_corpus(corpus, EvalConfig()).score
    weak = run_corpus(corpus, EvalConfig(engine_factory=OneFactPerSession)).score
    rows.append(row(BENCH, "builtin score, shipped corpus", round(builtin, 3), "", f"≥ {SCORE_TARGET}",
                    builtin >= SCORE_TARGET))
    rows.append(row(BENCH, "weak engine score, shipped corpus", round(weak, 3), "", f"≤ builtin − {GAP_TARGET}",
                    weak <= builtin - GAP_TARGET))
    with tempfile.TemporaryDirectory(prefix="nanodream-bench-eval-") as tmp:
        for seed in range(1, seeds + 1):
            folder = Path(tmp) / f"seed-{seed}"
            entries = write_scenario(folder, seed)
            result = run_corpus(discover([folder]), EvalConfig())
            weak_seed = run_corpus(discover([folder]), EvalConfig(engine_factory=OneFactPerSession)).score
            rows.append(row(BENCH, f"builtin score, simulated seed {seed} ({entries} entries, weak "
                                   f"{weak_seed:.3f})", round(result.score, 3), "", f"≥ {SCORE_TARGET}",
                            result.score >= SCORE_TARGET))
    return rows


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
