"""Run scenarios in throwaway workspaces and score them; the corpus itself is only ever read."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nanodream.config import IngestSource, Settings, load_settings
from nanodream.engines import Engine, engine_for
from nanodream.evaluation.asks import DEFAULT_K, AskScores, score_asks, transcript_turns
from nanodream.evaluation.checks import CheckResult, Memory, score_checks
from nanodream.evaluation.scenario import Scenario, ScenarioError
from nanodream.ingest.pipeline import IngestRequest, ingest
from nanodream.ingest.report import IngestReport
from nanodream.memory.door import writing
from nanodream.memory.transaction import ensure_repository
from nanodream.run.context import RunOptions
from nanodream.run.dream import run_dream
from nanodream.run.report import PhaseOutcome
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import Declared, Refused, Shape, count
from nanodream.workspace import Workspace, scaffold

# A scenario's backlog is drained in one run however long it is: the per-run batch limit is a production brake.
EVAL_MAX_BATCHES = 100_000


@dataclass(frozen=True)
class EvalConfig:
    """What to evaluate with: settings overrides (model, …), an optional prompt file, a spending cap."""

    overrides: dict[str, Any] = field(default_factory=dict)
    prompt: Path | None = None
    max_cost: float | None = None
    engine_factory: Callable[[Settings], Engine] = engine_for
    top_k: int = DEFAULT_K  # lines recall returns per [[ask]]


@dataclass
class ScenarioResult(Declared):
    json_shape = Shape(derived=("score",), rounded=(("score", 4),))

    name: str
    checks: list[CheckResult]
    metrics: dict[str, Any]

    @property
    def score(self) -> float:
        """Passed checks over all checks; a scenario of asks alone scores its answer coverage."""
        if not self.checks:
            return self.metrics.get("ask_coverage", 1.0)
        return sum(c.passed for c in self.checks) / len(self.checks)


@dataclass
class EvalReport(Declared):
    json_shape = Shape(derived=("score", "cost", "ask_coverage", "baseline_coverage", "memory_share"),
                       rounded=(("score", 4), ("cost", 6)))

    model: str
    scenarios: list[ScenarioResult] = field(default_factory=list)
    stopped: str = ""  # why the run ended before the last scenario (the cost cap), '' when it did not

    @property
    def score(self) -> float:
        """Mean of the scenario scores: a scenario with many checks weighs no more than a small one."""
        return sum(s.score for s in self.scenarios) / len(self.scenarios) if self.scenarios else 0.0

    top_k: int = DEFAULT_K

    @property
    def cost(self) -> float:
        return sum(s.metrics.get("cost") or 0.0 for s in self.scenarios)

    def asked(self, key: str) -> float | None:
        """The mean of an ask figure over the scenarios that have asks (None when none has)."""
        values = [s.metrics[key] for s in self.scenarios if s.metrics.get(key) is not None]
        return round(sum(values) / len(values), 4) if values else None

    @property
    def ask_coverage(self) -> float | None:
        return self.asked("ask_coverage")

    @property
    def baseline_coverage(self) -> float | None:
        return self.asked("baseline_coverage")

    @property
    def memory_share(self) -> float | None:
        return self.asked("memory_share")


def run_corpus(scenarios: list[Scenario], config: EvalConfig,
               on_result: Callable[[ScenarioResult], None] = lambda result: None) -> EvalReport:
    """Every scenario in order; with `max_cost`, stop before the next scenario once the spend reaches it."""
    report = EvalReport(model=str(config.overrides.get("model") or "configured"), top_k=config.top_k)
    for scenario in scenarios:
        if config.max_cost is not None and report.cost >= config.max_cost:
            report.stopped = f"--max-cost {config.max_cost} reached after {count(len(report.scenarios), 'scenario')}"
            break
        remaining = None if config.max_cost is None else config.max_cost - report.cost
        result, model = run_scenario(scenario, config, remaining)
        report.model = model
        report.scenarios.append(result)
        on_result(result)
    return report


def run_scenario(scenario: Scenario, config: EvalConfig, max_cost: float | None = None) -> tuple[ScenarioResult, str]:
    """Copy the scenario into a temporary workspace, dream its whole history, score what memory says."""
    with tempfile.TemporaryDirectory(prefix=f"nanodream-eval-{scenario.name[:40]}-") as tmp:
        ws = Workspace.at(Path(tmp) / "ws")
        prepare_workspace(scenario, ws, config.prompt)
        overrides = {**scenario.settings, **config.overrides, "max_batches": EVAL_MAX_BATCHES}
        if max_cost is not None:
            overrides["max_cost"] = max_cost
        settings = load_settings(ws, overrides)
        before = Memory.read(ws.root)
        clock = time.monotonic()
        ingested = ingest_transcripts(scenario, ws, settings)
        run = run_dream(ws, settings, RunOptions(trigger="eval", allow_empty=scenario.allow_empty),
                        engine_factory=config.engine_factory)
        seconds = time.monotonic() - clock
        after = Memory.read(ws.root)
        phases = run.phases or PhaseOutcome()  # connect's spend is the run's too, apart in its record
        metrics = {"outcome": run.outcome, "reason": run.reason, "batches": len(run.batches),
                   "entries": run.entries, "tokens_in": run.tokens_in + ingested.tokens_in + phases.tokens_in,
                   "tokens_out": run.tokens_out + ingested.tokens_out + phases.tokens_out,
                   "cached_tokens": run.cached_tokens + phases.cached_tokens,
                   "cost": _sum(run.cost, ingested.cost, phases.cost),
                   "seconds": round(seconds, 3), "bytes_grown": after.size - before.size}
        if scenario.transcripts:
            metrics["ingested"] = ingested.added
        if scenario.asks:
            metrics.update(_asks(scenario, ws, after.size - before.size, config.top_k))
        return ScenarioResult(scenario.name, score_checks(scenario, before, after), metrics), settings.model


def ingest_transcripts(scenario: Scenario, ws: Workspace, settings: Settings) -> IngestReport:
    """The scenario's transcript becomes history first, as `run` ingests a configured source (read in place)."""
    if not scenario.transcripts:
        return IngestReport()
    sources = tuple(IngestSource(path) for path in scenario.transcripts)
    try:
        with writing(ws) as door:
            return ingest(door, settings, IngestRequest(sources, named=True, trigger="eval"))
    except Refused as exc:  # a transcript that is missing or not one: the scenario is broken, not the run
        raise ScenarioError(f"{scenario.name}: {exc}") from None


def _asks(scenario: Scenario, ws: Workspace, memory_bytes: int, k: int) -> dict[str, Any]:
    turns = transcript_turns(scenario.transcripts)
    scores = AskScores(score_asks(scenario.asks, ws, turns, k), memory_bytes,
                       sum(len(turn.text.encode("utf-8")) for turn in turns))
    return scores.metrics()


def _sum(*costs: float | None) -> float | None:
    known = [cost for cost in costs if cost is not None]
    return sum(known) if known else None


def prepare_workspace(scenario: Scenario, ws: Workspace, prompt: Path | None) -> None:
    """The scenario's files over a fresh scaffold, its history, the prompt under test, and the first commit."""
    if scenario.files.is_dir():
        shutil.copytree(scenario.files, ws.root, symlinks=False)
    scaffold(ws.root)  # fills in only what the scenario did not provide
    if scenario.history.is_file():
        shutil.copyfile(scenario.history, ws.history_file)
    if prompt is not None:
        ws.prompt_override.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(prompt, ws.prompt_override)
    ensure_repository(GitStore(ws))
