"""`nanodream eval [CORPUS...]`: score a model and prompt against scenarios with ground truth."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from nanodream.commands.common import (
    JsonOption,
    ModelOption,
    console,
    emit_json,
    err_console,
    fail,
    write_result,
)
from nanodream.vocab import ExitCode

PathsArgument = Annotated[list[Path] | None, typer.Argument(
    help="Scenario directories, or directories of them (default: the shipped corpus).", show_default=False)]
PromptOption = Annotated[Path | None, typer.Option(
    "--prompt", help="Dream prompt file to evaluate instead of the built-in one.", show_default=False)]


def eval_command(
    corpus: PathsArgument = None,
    transcripts: Annotated[bool, typer.Option(
        "--transcripts", help="Score the shipped transcript corpus: ingest, dream, then the asks.")] = False,
    top_k: Annotated[int, typer.Option(
        "--top-k", min=1, help="Lines recall returns per ask (coverage@k).")] = 5,
    model: ModelOption = None,
    prompt: PromptOption = None,
    against_model: Annotated[str | None, typer.Option(
        "--against-model", help="Also run this model and print the difference.", show_default=False)] = None,
    against_prompt: Annotated[Path | None, typer.Option(
        "--against-prompt", help="Also run this prompt file and print the difference.", show_default=False)] = None,
    min_score: Annotated[float | None, typer.Option(
        "--min-score", help="Exit 1 when the overall score is below this (0 to 1).", show_default=False)] = None,
    max_cost: Annotated[float | None, typer.Option(
        "--max-cost", help="Stop starting scenarios once this many USD are spent.", show_default=False)] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Also write the JSON result to FILE (YAML for .yaml/.yml).", show_default=False)] = None,
    as_json: JsonOption = False,
) -> None:
    """Score how well a model and prompt consolidate: each scenario runs in a throwaway workspace.

    A scenario is history.jsonl (or a transcript, ingested first) plus expect.toml, the ground truth as
    checks and asks (docs/eval.md). Its score is the share of checks passed (a scenario of asks alone: their
    coverage); the overall score is the mean over scenarios. Public conversations: nanodream eval import-locomo.

    \b
    Examples:
      nanodream eval
      nanodream eval eval/correction-no-shared-words --json
      nanodream eval -m openai/gpt-4o-mini --against-model builtin --max-cost 0.50
      nanodream eval --prompt my-dream.md --min-score 0.9
      nanodream eval --transcripts          # retention against keeping every turn
    """
    from nanodream.config import ConfigError
    from nanodream.evaluation.report import compare
    from nanodream.evaluation.runner import EvalConfig, run_corpus
    from nanodream.evaluation.scenario import ScenarioError, discover, shipped_corpus, shipped_transcripts

    for path in (prompt, against_prompt):
        if path is not None and not path.is_file():
            fail(f"prompt file not found: {path}", as_json=as_json)
    default = shipped_transcripts() if transcripts else shipped_corpus()
    try:
        scenarios = discover(list(corpus or [default]))
        base = run_corpus(scenarios, EvalConfig(_overrides(model), prompt, max_cost, top_k=top_k), _progress)
        other = None
        if against_model is not None or against_prompt is not None:
            spent = None if max_cost is None else max(max_cost - base.cost, 0.0)
            other = run_corpus(scenarios, EvalConfig(_overrides(against_model or model), against_prompt or prompt,
                                                     spent, top_k=top_k), _progress)
    except (ScenarioError, ConfigError) as exc:
        fail(str(exc), as_json=as_json)
    diff = compare(base, other) if other is not None else None
    against = None if diff is None else {key: diff[key] for key in ("other", "delta", "scenarios")}
    data = {**base.to_dict(), "against": against}
    if output is not None:
        write_result(output, data)
    if as_json:
        emit_json(data)
    else:
        _print(base, diff)
    if min_score is not None and base.score < min_score:
        if not as_json:
            console.print(f"score {base.score:.3f} is below --min-score {min_score}", highlight=False)
        raise typer.Exit(ExitCode.FAILED)


def _progress(result: Any) -> None:
    """A paid run takes minutes: on a terminal, say each scenario's score as it finishes (stderr, not the result)."""
    if err_console.is_terminal:
        err_console.print(f"{result.score:.2f}  {result.name}", markup=False, highlight=False)


def _overrides(model: str | None) -> dict[str, Any]:
    return {"model": model} if model else {}


def _print(base: Any, diff: dict[str, Any] | None) -> None:
    from nanodream.evaluation.report import asks_line, difference_table, failures, score_table, temporal_line

    console.print(score_table(base))
    for line in failures(base):
        console.print(line, markup=False, highlight=False)
    for line in (asks_line(base), temporal_line(base)):
        if line:
            console.print(line, markup=False, highlight=False)
    if base.stopped:
        console.print(f"stopped: {base.stopped}", highlight=False, markup=False)
    if diff is not None:
        console.print(difference_table(diff))


def import_locomo(
    source: Annotated[Path, typer.Argument(help="LoCoMo's JSON (e.g. locomo10.json), downloaded by you.",
                                           metavar="FILE", show_default=False)],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="DIR", show_default=False,
                                         help="Folder to write the scenarios into (one per conversation).")],
    as_json: JsonOption = False,
) -> None:
    """Turn LoCoMo's public conversations into eval scenarios: a transcript and its questions as asks each.

    LoCoMo is licensed for non-commercial use only: nanodream never ships or downloads it. Adversarial
    questions (no answer, only adversarial_answer) are skipped.

    \b
    Examples:
      nanodream eval import-locomo locomo10.json -o /tmp/locomo
      nanodream eval /tmp/locomo --json     # coverage against the keep-everything baseline
    """
    from nanodream.evaluation.locomo import import_locomo as convert
    from nanodream.evaluation.scenario import ScenarioError, load_scenario

    try:
        written = convert(source, output)
    except ScenarioError as exc:
        fail(str(exc), as_json=as_json)
    asks = {str(path): len(load_scenario(path).asks) for path in written}
    if as_json:
        emit_json({"scenarios": [{"path": path, "asks": count} for path, count in asks.items()]})
        return
    for path, count in asks.items():
        console.print(f"{path}: {count} asks", markup=False, highlight=False)


class _ScoresByDefault(TyperGroup):
    """`nanodream eval [CORPUS...]` scores (its options and --help too); `eval import-locomo` converts."""

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        if not args or args[0] not in self.commands:
            args = ["score", *args]
        return super().parse_args(ctx, args)


def register(root: typer.Typer) -> None:
    group = typer.Typer(cls=_ScoresByDefault, add_completion=False, pretty_exceptions_enable=False)
    group.command(name="score")(eval_command)
    group.command(name="import-locomo")(import_locomo)
    root.add_typer(group, name="eval")
