"""Retention against compression: answer coverage@5 after ingest + the builtin dream, beside keeping every turn.

Targets: recall (memory and the turns ingest kept, by one score) never below keeping every turn (≥ 1.0× the
baseline: issue #45); memory alone, what consolidation kept, ≥ 0.75× the baseline (issue #27's goal for the
builtin extractor), at a memory of ≤ 0.5× the transcript's text. Method: `nanodream eval` (in-process) on the
shipped transcript corpus (eval/ingest: three scenarios, 41 asks, and one held-out scenario of 11) and on
LoCoMo's conversations converted by `eval import-locomo`: the file NANODREAM_LOCOMO names (LoCoMo's JSON,
downloaded by you; never shipped), else the repository's mini fixture (tests/fixtures/locomo-mini.json: one
made-up conversation in LoCoMo's layout, 5 asks — a smoke figure, not LoCoMo's).
Coverage of an ask is the share of its answer's content words (recall's tokenizer: stemmed, stop words out)
in the top-5 hits recall returns; the baseline ranks the transcript's own turns with the same BM25. Sizes:
bytes the dream added to memory (archive included) over the bytes of the turns' text (user and assistant
messages, tool traffic out).
A scenario named `heldout-…` was written before the rules it measures were last changed and never tuned
against: it is reported on its own line, so the corpus the rules were written next to does not hide it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, cli, row  # noqa: E402
from nanodream.evaluation.locomo import import_locomo  # noqa: E402
from nanodream.evaluation.runner import EvalConfig, EvalReport, run_corpus  # noqa: E402
from nanodream.evaluation.scenario import discover, shipped_transcripts  # noqa: E402

BENCH = "retention"
RECALL_TARGET = 1.0  # recall ÷ the baseline: never below keeping every turn
COVERAGE_TARGET = 0.75  # memory alone ÷ the baseline
SIZE_TARGET = 0.5  # × the transcript's text
HELD_OUT = "heldout-"  # the name of a scenario the rules were not tuned on starts with this
MINI = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "locomo-mini.json"
SMOKE = {"scenarios": 1, "locomo": ""}  # tests/test_bench_smoke.py


def figures(label: str, report: EvalReport) -> list[Row]:
    coverage, baseline, alone, share = (report.asked(k) for k in ("ask_coverage", "baseline_coverage",
                                                                  "memory_coverage", "memory_share"))
    ratio = coverage / baseline if baseline else 0.0
    kept = (alone or 0.0) / baseline if baseline else 0.0
    asks = sum(len(s.metrics.get("asks", [])) for s in report.scenarios)
    return [
        row(BENCH, f"{label}: coverage@{report.top_k} recall, memory + turns ({asks} asks)", coverage),
        row(BENCH, f"{label}: coverage@{report.top_k} keeping every turn", baseline),
        row(BENCH, f"{label}: recall ÷ keeping every turn", round(ratio, 3), "×", f"≥ {RECALL_TARGET}",
            ratio >= RECALL_TARGET),
        row(BENCH, f"{label}: coverage@{report.top_k} memory alone", alone if alone is not None else "-"),
        row(BENCH, f"{label}: memory alone ÷ keeping every turn", round(kept, 3), "×", f"≥ {COVERAGE_TARGET}",
            kept >= COVERAGE_TARGET),
        row(BENCH, f"{label}: memory ÷ transcript text", share, "×", f"≤ {SIZE_TARGET}",
            share is not None and share <= SIZE_TARGET),
    ]


def main(quick: bool = False, scenarios: int | None = None, locomo: str | None = None) -> list[Row]:
    shipped = discover([shipped_transcripts()])
    corpus = [s for s in shipped if not s.name.startswith(HELD_OUT)][:scenarios]
    held_out = [s for s in shipped if s.name.startswith(HELD_OUT)][:scenarios]
    rows = figures(f"shipped corpus ({len(corpus)} scenarios)", run_corpus(corpus, EvalConfig()))
    if held_out:
        rows += figures(f"held out ({len(held_out)} scenario)", run_corpus(held_out, EvalConfig()))
    source = os.environ.get("NANODREAM_LOCOMO", "") if locomo is None else locomo
    named = Path(source) if source else MINI
    with tempfile.TemporaryDirectory(prefix="nanodream-bench-locomo-") as tmp:
        written = import_locomo(named, Path(tmp))
        conversations = discover([Path(tmp)])[: 2 if quick and source else None]
        label = (f"LoCoMo ({len(conversations)} of {len(written)} conversations)" if source
                 else "LoCoMo mini fixture (made up, not LoCoMo's data)")
        return [*rows, *figures(label, run_corpus(conversations, EvalConfig()))]

if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
