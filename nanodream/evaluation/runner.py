"""Run scenarios in throwaway workspaces and score them; the corpus itself is only ever read."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from nanodream import clock
from nanodream.backlog.history import entry_day, parse_line
from nanodream.config import IngestSource, Settings, load_settings, zone
from nanodream.engines import Engine, engine_for
from nanodream.evaluation.asks import DEFAULT_K, AskScores, history_turns, score_asks, transcript_turns
from nanodream.evaluation.checks import CheckResult, Memory, score_checks
from nanodream.evaluation.scenario import Scenario, ScenarioError
from nanodream.ingest.pipeline import IngestRequest, ingest
from nanodream.ingest.report import IngestReport
from nanodream.memory.door import writing
from nanodream.memory.transaction import ensure_repository
from nanodream.run.context import RunOptions
from nanodream.run.dream import run_dream
from nanodream.run.report import PhaseOutcome, RunReport
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
    temporal: bool = False  # a scenario of temporal questions: scored apart from the rest

    @property
    def score(self) -> float:
        """Passed checks over all checks; a scenario of asks alone scores its answer coverage."""
        if not self.checks:
            return self.metrics.get("ask_coverage", 1.0)
        return sum(c.passed for c in self.checks) / len(self.checks)


@dataclass
class EvalReport(Declared):
    json_shape = Shape(derived=("score", "cost", "ask_coverage", "baseline_coverage", "memory_coverage",
                                "memory_share", "temporal"),
                       rounded=(("score", 4), ("cost", 6)))

    model: str
    scenarios: list[ScenarioResult] = field(default_factory=list)
    stopped: str = ""  # why the run ended before the last scenario (the cost cap), '' when it did not

    top_k: int = DEFAULT_K

    @property
    def score(self) -> float:
        """Mean of the scenario scores: a scenario with many checks weighs no more than a small one. Temporal
        scenarios are scored apart (`temporal`), unless the corpus holds nothing else."""
        kept = [s for s in self.scenarios if not s.temporal] or self.scenarios
        return sum(s.score for s in kept) / len(kept) if kept else 0.0

    @property
    def temporal(self) -> dict[str, Any] | None:
        """The temporal scenarios apart from the rest: their mean score, and per kind of question the asks'
        mean coverage and the keep-everything baseline's; None when the corpus has none."""
        chosen = [s for s in self.scenarios if s.temporal]
        if not chosen:
            return None
        asks = [ask for s in chosen for ask in s.metrics.get("asks", []) if ask.get("kind")]
        kinds = {}
        for kind in dict.fromkeys(ask["kind"] for ask in asks):
            mine = [ask for ask in asks if ask["kind"] == kind]
            kinds[kind] = {"asks": len(mine), "coverage": _mean(a["coverage"] for a in mine),
                           "baseline": _mean(a["baseline"] for a in mine)}
        return {"scenarios": len(chosen), "score": _mean(s.score for s in chosen), "kinds": kinds}

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
    def memory_coverage(self) -> float | None:
        return self.asked("memory_coverage")

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
        run = _dream(scenario, ws, settings, config)
        seconds = time.monotonic() - clock
        after = Memory.read(ws.root)
        metrics = {"outcome": run.outcome, "reason": run.reason, "batches": run.batches,
                   "entries": run.entries, "tokens_in": run.tokens_in + ingested.tokens_in,
                   "tokens_out": run.tokens_out + ingested.tokens_out, "cached_tokens": run.cached_tokens,
                   "cost": _sum(run.cost, ingested.cost),
                   "seconds": round(seconds, 3), "bytes_grown": after.size - before.size}
        if scenario.transcripts:
            metrics["ingested"] = ingested.added
        if scenario.asks:
            metrics.update(_asks(scenario, ws, after.size - before.size, config.top_k, zone(settings.timezone)))
        return (ScenarioResult(scenario.name, score_checks(scenario, before, after), metrics, scenario.temporal),
                settings.model)


@dataclass
class Dreamed:
    """What the scenario's runs did together (one run, or one per history day)."""

    outcome: str = ""
    reason: str = ""
    batches: int = 0
    entries: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cached_tokens: int = 0
    cost: float | None = None

    def add(self, run: RunReport) -> None:
        phases = run.phases or PhaseOutcome()  # connect's spend is the run's too, apart in its record
        self.outcome, self.reason = run.outcome, run.reason
        self.batches += len(run.batches)
        self.entries += run.entries
        self.tokens_in += run.tokens_in + phases.tokens_in
        self.tokens_out += run.tokens_out + phases.tokens_out
        self.cached_tokens += run.cached_tokens + phases.cached_tokens
        self.cost = _sum(self.cost, run.cost, phases.cost)


def _dream(scenario: Scenario, ws: Workspace, settings: Settings, config: EvalConfig) -> Dreamed:
    """Dream the whole history in one run, or (`dream = "daily"`) one run per history day, each day's history
    appended first and its commits dated that evening: memory then has the dates a nightly host gives it."""
    done = Dreamed()
    days = _days(scenario.history) if scenario.daily else [("", b"")]
    if scenario.daily:
        ws.history_file.write_bytes(b"")
    for day, lines in days:
        if lines:
            with ws.history_file.open("ab") as history:
                history.write(lines)
        with committed_on(day):
            options = RunOptions(trigger="eval", allow_empty=scenario.allow_empty)
            done.add(run_dream(ws, settings, options, engine_factory=config.engine_factory))
    return done


def _days(history: Path) -> list[tuple[str, bytes]]:
    """The history's lines grouped by the day of their timestamp, in order (an unreadable line stays with the
    lines before it)."""
    days: list[tuple[str, bytes]] = []
    for line in history.read_bytes().splitlines(keepends=True):
        entry = parse_line(line)
        day = entry.timestamp[:10] if entry is not None and entry_day(entry.timestamp) else ""
        if days and (not day or day == days[-1][0]):
            days[-1] = (days[-1][0], days[-1][1] + line)
        else:
            days.append((day, line))
    return days


@contextmanager
def committed_on(day: str) -> Iterator[None]:
    """A replayed night: the clock stands at `day` 23:00 UTC and commits made inside are dated so (git honours
    these variables); nothing when `day` is ""."""
    names = ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE")
    saved = {name: os.environ.get(name) for name in names}
    moment = f"{day}T23:00:00+00:00"
    if day:
        os.environ.update(dict.fromkeys(names, moment))
    try:
        with clock.pinned(datetime.fromisoformat(moment)) if day else nullcontext():
            yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


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


def _asks(scenario: Scenario, ws: Workspace, memory_bytes: int, k: int, where: tzinfo) -> dict[str, Any]:
    turns = transcript_turns(scenario.transcripts) if scenario.transcripts else history_turns(scenario.history)
    scores = AskScores(score_asks(scenario.asks, ws, turns, k, where), memory_bytes,
                       sum(len(turn.text.encode("utf-8")) for turn in turns))
    return scores.metrics()


def _mean(values: Iterable[float]) -> float:
    found = list(values)
    return round(sum(found) / len(found), 4) if found else 0.0


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
