"""How an evaluation reads: a table per run, and the difference between two runs on the same corpus."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Table

from nanodream.evaluation.runner import EvalReport


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
    ratio = f" ({coverage / baseline:.2f}× of it)" if baseline else ""
    size = f" · memory is {share:.2f}× the transcript's text" if share is not None else ""
    return (f"asks: coverage@{report.top_k} {coverage:.3f} · keeping every turn {baseline:.3f}{ratio}{size}")


def temporal_line(report: EvalReport) -> str:
    """The temporal scenarios, reported apart from the score: their checks, and coverage per kind of question."""
    found = report.temporal()
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


def compare(base: EvalReport, other: EvalReport) -> dict[str, Any]:
    """Per scenario, the score difference (other − base) and each check whose verdict differs."""
    theirs = {s.name: s for s in other.scenarios}
    scenarios = []
    for mine in base.scenarios:
        counterpart = theirs.get(mine.name)
        if counterpart is None:
            continue
        verdicts = {c.label: c.passed for c in counterpart.checks}
        changed = [{"check": c.label, "base": c.passed, "other": verdicts[c.label]}
                   for c in mine.checks if c.label in verdicts and verdicts[c.label] != c.passed]
        scenarios.append({"name": mine.name, "base": round(mine.score, 4), "other": round(counterpart.score, 4),
                          "delta": round(counterpart.score - mine.score, 4), "changed": changed})
    return {"base": base.to_dict(), "other": other.to_dict(), "delta": round(other.score - base.score, 4),
            "scenarios": scenarios}


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
