"""Models and evaluation: the model check, scenario evaluation, LoCoMo import, simulated histories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from nanodream.api.acting import WorkspaceLike, action, settings_for
from nanodream.api.reports import (
    EvalAnswer,
    EvalRequest,
    ImportedScenario,
    LocomoReport,
    ModelCheck,
    SimulateReport,
)
from nanodream.vocab import ExitCode, Outcome, Refused
from nanodream.workspace import Workspace

if TYPE_CHECKING:
    from nanodream.evaluation.runner import EvalReport, ScenarioResult


@action()
def check_model(where: WorkspaceLike, *, model: str | None = None, api_base: str | None = None,
                tool_mode: str | None = None) -> ModelCheck:
    """Dream a tiny batch (two tagged facts and a correction) with the model on a scratch workspace, judged by
    the run's own per-fact accounting.

    Settings come from the workspace's nanodream.toml and NANODREAM_*, with `model`, `api_base` and `tool_mode`
    over them; the workspace's memory is never read or written. Exit 1 unless the dream kept both facts and
    replaced the corrected line; the builtin engine and configuration mistakes are refused (exit 2).
    """
    from nanodream.engines import ProviderMisconfigured
    from nanodream.evaluation.model_check import check_model as tiny_dream

    settings = settings_for(Workspace.at(where), {"model": model, "api_base": api_base, "tool_mode": tool_mode})
    if settings.offline:
        raise Refused("the builtin engine needs no check (it calls the tools in-process); name a model with -m",
                      exit_code=ExitCode.USAGE)
    try:
        verdict = tiny_dream(settings)
    except ProviderMisconfigured as exc:
        raise Refused(f"configuration: {exc}", exit_code=ExitCode.USAGE) from None
    if verdict.usable:
        return ModelCheck(verdict=verdict)
    return ModelCheck(outcome=Outcome.FAILED, reason=verdict.problems[0] if verdict.problems else "not usable",
                      verdict=verdict)


@action()
def evaluate(request: EvalRequest, on_result: Callable[[ScenarioResult], None] = lambda result: None) -> EvalAnswer:
    """Score the request's corpus in throwaway workspaces (and, to compare, a second model or prompt);
    `on_result` hears of each scenario as it finishes. A bad scenario or setting is refused (exit 2)."""
    from nanodream.config import ConfigError
    from nanodream.evaluation.report import compare
    from nanodream.evaluation.scenario import ScenarioError

    for path in (request.prompt, request.against_prompt):
        if path is not None and not path.is_file():
            raise Refused(f"prompt file not found: {path}", exit_code=ExitCode.USAGE)
    try:
        base, other = _evaluations(request, on_result)
    except (ScenarioError, ConfigError) as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    diff = compare(base, other) if other is not None else None
    return EvalAnswer(evaluation=base,
                      against=None if diff is None else {key: diff[key] for key in ("other", "delta", "scenarios")})


def _evaluations(request: EvalRequest,
                 on_result: Callable[[ScenarioResult], None]) -> tuple[EvalReport, EvalReport | None]:
    from nanodream.evaluation.runner import EvalConfig, run_corpus
    from nanodream.evaluation.scenario import discover, shipped_corpus, shipped_transcripts

    default = shipped_transcripts() if request.transcripts else shipped_corpus()
    scenarios = discover(list(request.corpus or [default]))
    overrides = {"model": request.model} if request.model else {}
    base = run_corpus(scenarios, EvalConfig(overrides, request.prompt, request.max_cost, top_k=request.top_k),
                      on_result)
    if not request.compared:
        return base, None
    spent = None if request.max_cost is None else max(request.max_cost - base.cost, 0.0)
    model = request.against_model or request.model
    config = EvalConfig({"model": model} if model else {}, request.against_prompt or request.prompt, spent,
                        top_k=request.top_k)
    return base, run_corpus(scenarios, config, on_result)


@action()
def import_locomo(source: Path, output: Path) -> LocomoReport:
    """LoCoMo's public conversations as eval scenarios under `output`, one per conversation (its questions as
    asks); a file that is not LoCoMo's JSON is refused (exit 2)."""
    from nanodream.evaluation.locomo import import_locomo as convert
    from nanodream.evaluation.scenario import ScenarioError, load_scenario

    try:
        written = convert(source, output)
    except ScenarioError as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    return LocomoReport(scenarios=[ImportedScenario(str(path), len(load_scenario(path).asks)) for path in written])


@action()
def simulate(output: Path, seed: int, days: int = 60, user_facts: int = 5) -> SimulateReport:
    """Write a scenario of `days` of simulated history and its ground truth into `output` (same seed, same
    bytes); a folder holding anything but a scenario is refused (exit 2)."""
    from nanodream.evaluation.simulate import write_scenario

    if output.exists() and any(output.iterdir()) and not (output / "expect.toml").is_file():
        raise Refused(f"{output} is not empty and is not a scenario; choose an empty directory",
                      exit_code=ExitCode.USAGE)
    entries = write_scenario(output, seed, days, user_facts)
    return SimulateReport(path=str(output.resolve()), seed=seed, days=days, entries=entries)
