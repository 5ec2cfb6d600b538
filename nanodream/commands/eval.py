"""`nanodream eval [CORPUS...]`: score a model and prompt against scenarios with ground truth."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.table import Table
from typer.core import TyperGroup

from nanodream.commands.common import (
    REFUSALS,
    JsonOption,
    ModelOption,
    concluded,
    console,
    emit_json,
    err_console,
)
from nanodream.vocab import ExitCode

if TYPE_CHECKING:
    from nanodream.api import EvalAnswer, EvalReport, LocomoReport

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
    from nanodream import api

    request = api.EvalRequest(tuple(corpus or ()), transcripts, top_k, model, prompt, against_model, against_prompt,
                              max_cost)
    answer = api.evaluate(request, _progress)
    if answer.outcome in REFUSALS:
        concluded(answer, as_json, lambda report: None)
    data = answer.to_json()
    if output is not None:
        api.write_result(output, data)
    if as_json:
        emit_json(data)
    else:
        _print(answer)
    if min_score is not None and answer.evaluation.score < min_score:
        if not as_json:
            console.print(f"score {answer.evaluation.score:.3f} is below --min-score {min_score}", highlight=False)
        raise typer.Exit(ExitCode.FAILED)


def _progress(result: Any) -> None:
    """A paid run takes minutes: on a terminal, say each scenario's score as it finishes (stderr, not the result)."""
    if err_console.is_terminal:
        err_console.print(f"{result.score:.2f}  {result.name}", markup=False, highlight=False)


def _print(answer: EvalAnswer) -> None:
    base = answer.evaluation
    console.print(score_table(base))
    for line in failures(base):
        console.print(line, markup=False, highlight=False)
    for line in (asks_line(base), temporal_line(base)):
        if line:
            console.print(line, markup=False, highlight=False)
    if base.stopped:
        console.print(f"stopped: {base.stopped}", highlight=False, markup=False)
    if answer.against is not None:
        console.print(difference_table({"base": base.to_json(), **answer.against}))


def score_table(report: EvalReport) -> Table:
    """One row per scenario: score, passed/total and the metrics; failed checks are listed by `failures`."""
    table = Table(title=f"nanodream eval · {report.model} · score {report.score:.3f}", title_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("scenario", overflow="fold")
    asked = report.asked("ask_coverage") is not None
    for column in ("score", "checks", "tokens", "cost", "s", "+bytes", *(("asks/all",) if asked else ())):
        table.add_column(column, justify="right", no_wrap=True, min_width=len(column) + 1)
    for result in report.scenarios:
        metrics = result.metrics
        cost = "" if metrics["cost"] is None else f"{metrics['cost']:.4f}"
        passed = f"{sum(c.passed for c in result.checks)}/{len(result.checks)}"
        extra = [_asked(metrics)] if asked else []
        tokens = str(metrics["tokens_in"] + metrics["tokens_out"])
        if metrics.get("cached_tokens"):
            tokens += f" ({metrics['cached_tokens']} cached)"
        name = f"{result.name} (temporal)" if result.temporal else result.name
        table.add_row(name, f"{result.score:.2f}", passed, tokens, cost, f"{metrics['seconds']:.2f}",
                      str(metrics["bytes_grown"]), *extra)
    return table


def _asked(metrics: dict[str, Any]) -> str:
    """Memory's answer coverage over the keep-everything baseline's, for a scenario with asks."""
    if metrics.get("ask_coverage") is None:
        return ""
    return f"{metrics['ask_coverage']:.2f}/{metrics['baseline_coverage']:.2f}"


def asks_line(report: EvalReport) -> str:
    """Retention beside compression, when the corpus has asks: coverage@k, the keep-everything figure, sizes."""
    coverage, baseline, share = (report.asked(key) for key in ("ask_coverage", "baseline_coverage", "memory_share"))
    if coverage is None:
        return ""
    alone = report.asked("memory_coverage")
    ratio = f" ({coverage / baseline:.2f}× of it)" if baseline else ""
    size = f" · memory is {share:.2f}× the transcript's text" if share is not None else ""
    return (f"asks: coverage@{report.top_k} {coverage:.3f} (memory alone {alone or 0:.3f}) · keeping every turn "
            f"{baseline:.3f}{ratio}{size}")


def temporal_line(report: EvalReport) -> str:
    """The temporal scenarios, reported apart from the score: their checks, and coverage per kind of question."""
    found = report.temporal
    if found is None:
        return ""
    kinds = " · ".join(f"{kind} {item['coverage']:.2f} ({item['asks']} asked, keeping everything "
                       f"{item['baseline']:.2f})" for kind, item in found["kinds"].items())
    return (f"temporal, apart from the score: {found['scenarios']} scenarios, checks {found['score']:.3f}"
            + (f" · coverage@{report.top_k}: {kinds}" if kinds else ""))


def failures(report: EvalReport) -> list[str]:
    """One line per failed check, with what was found instead: what a person reads to improve a prompt."""
    return [f"✗ {result.name}: {check.label} ({check.detail})"
            for result in report.scenarios for check in result.checks if not check.passed]


def difference_table(diff: dict[str, Any]) -> Table:
    """Every scenario with both scores and their difference, and the checks that flipped (✓ now passes)."""
    base, other = diff["base"], diff["other"]
    table = Table(title=f"{base['model']} {base['score']:.3f} → {other['model']} {other['score']:.3f} "
                        f"(Δ {diff['delta']:+.3f})", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("scenario", overflow="fold")
    for column in ("base", "other", "Δ"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("checks that flipped", overflow="fold")
    for row in diff["scenarios"]:
        flips = "; ".join(f"{'✓' if c['other'] else '✗'} {c['check']}" for c in row["changed"])
        table.add_row(row["name"], f"{row['base']:.2f}", f"{row['other']:.2f}", f"{row['delta']:+.2f}", flips)
    return table


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
    from nanodream import api

    concluded(api.import_locomo(source, output), as_json, _print_imported)


def _print_imported(report: LocomoReport) -> None:
    for scenario in report.scenarios:
        console.print(f"{scenario.path}: {scenario.asks} asks", markup=False, highlight=False)


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
