"""The difference between two evaluations of the same corpus, scenario by scenario."""

from __future__ import annotations

from typing import Any

from nanodream.evaluation.runner import EvalReport


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
    return {"base": base.to_json(), "other": other.to_json(), "delta": round(other.score - base.score, 4),
            "scenarios": scenarios}
