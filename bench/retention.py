"""Retention against compression: answer coverage@5 after ingest + the builtin dream, beside keeping every turn.

Targets (issue #27's goal for the builtin extractor): coverage ≥ 0.75× the keep-everything baseline's, at a
memory of ≤ 0.5× the transcript's text. Method: `nanodream eval` (in-process) on the shipped transcript corpus
(eval/ingest: three scenarios, 41 asks, and one held-out scenario of 11) and, when NANODREAM_LOCOMO names
LoCoMo's JSON (downloaded by you; never shipped), on its conversations converted by `eval import-locomo`.
Coverage of an ask is the share of its answer's content words (recall's tokenizer: stemmed, stop words out)
in the top-5 lines recall returns from memory; the baseline ranks the transcript's own turns with the same
BM25. Sizes: bytes the dream added to memory (archive included) over the bytes of the turns' text (user and
assistant messages, tool traffic out).
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
COVERAGE_TARGET = 0.75  # × the baseline's coverage
SIZE_TARGET = 0.5  # × the transcript's text
HELD_OUT = "heldout-"  # the name of a scenario the rules were not tuned on starts with this
SMOKE = {"scenarios": 1, "locomo": ""}  # tests/test_bench_smoke.py


def figures(label: str, report: EvalReport) -> list[Row]:
    coverage, baseline, share = (report.asked(k) for k in ("ask_coverage", "baseline_coverage", "memory_share"))
    ratio = coverage / baseline if baseline else 0.0
    asks = sum(len(s.metrics.get("asks", [])) for s in report.scenarios)
    return [
        row(BENCH, f"{label}: coverage@{report.top_k} after ingest + builtin dream ({asks} asks)", coverage),
        row(BENCH, f"{label}: coverage@{report.top_k} keeping every turn", baseline),
        row(BENCH, f"{label}: coverage ÷ baseline", round(ratio, 3), "×", f"≥ {COVERAGE_TARGET}",
            ratio >= COVERAGE_TARGET),
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
    if not source:
        return [*rows, row(BENCH, "LoCoMo: not run (NANODREAM_LOCOMO=/path/to/locomo10.json)", "-")]
    with tempfile.TemporaryDirectory(prefix="nanodream-bench-locomo-") as tmp:
        written = import_locomo(Path(source), Path(tmp))
        conversations = discover([Path(tmp)])[: 2 if quick else None]
        return [*rows, *figures(f"LoCoMo ({len(conversations)} of {len(written)} conversations)",
                                run_corpus(conversations, EvalConfig()))]


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
