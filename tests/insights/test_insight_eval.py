"""Eval scenarios can check insights: [[insight]] (cites, name, status, count), [[unchanged]] and allow_empty;
the shipped insight scenarios pass with the built-in engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanodream.evaluation.runner import EvalConfig, run_scenario
from nanodream.evaluation.scenario import ScenarioError, load_scenario, shipped_corpus

INSIGHT_SCENARIOS = sorted(p.name for p in shipped_corpus().iterdir() if p.name.startswith("insight-"))


def test_five_insight_scenarios_ship():
    assert INSIGHT_SCENARIOS == ["insight-archived-decision-meets-session", "insight-exploration-old-material",
                                 "insight-promoted-through-dream", "insight-rejected-never-reproposed",
                                 "insight-source-forgotten-stale"]


@pytest.mark.parametrize("name", INSIGHT_SCENARIOS)
def test_the_shipped_insight_scenarios_pass_with_the_builtin_engine(name):
    result, model = run_scenario(load_scenario(shipped_corpus() / name), EvalConfig())
    assert model == "builtin"
    assert [(c.label, c.detail) for c in result.checks if not c.passed] == []


def _scenario(tmp_path: Path, expect: str) -> Path:
    root = tmp_path / "s"
    root.mkdir()
    (root / "history.jsonl").write_text("")
    (root / "expect.toml").write_text(expect)
    return root


def test_an_insight_check_reads_its_fields_and_allow_empty(tmp_path):
    scenario = load_scenario(_scenario(tmp_path, 'allow_empty = true\n[[insight]]\ncites = ["skill:ops"]\n'
                                                 'status = "stale"\ncount = 0\n[[unchanged]]\nfile = "USER.md"\n'))
    assert scenario.allow_empty
    insight, unchanged = scenario.checks
    assert (insight.cites, insight.status, insight.count) == (("skill:ops",), "stale", 0)
    assert insight.label == "insight citing 'skill:ops' stale x0" and unchanged.label == "unchanged USER.md"


@pytest.mark.parametrize("expect", ['[[insight]]\nstatus = "stale"\n', '[[insight]]\ncites = "skill:ops"\n',
                                    '[[insight]]\nname = "x"\ncount = -1\n', '[[insight]]\nname = "x"\nmood = 1\n',
                                    '[[unchanged]]\ntext = "x"\n', 'allow_empty = "yes"\n[[unchanged]]\nfile = "a"\n'])
def test_a_malformed_insight_check_is_refused_by_name(tmp_path, expect):
    with pytest.raises(ScenarioError):
        load_scenario(_scenario(tmp_path, expect))
