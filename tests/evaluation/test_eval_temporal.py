"""Eval gains time: asks as of a date, temporal kinds reported apart, nightly dreams, and the cascade check."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from nanodream import clock
from nanodream.cli import app
from nanodream.evaluation.checks import Memory, evaluate
from nanodream.evaluation.runner import EvalConfig, run_corpus, run_scenario
from nanodream.evaluation.scenario import Check, ScenarioError, discover, load_scenario
from tests.evaluation.test_eval import scenario_dir
from tests.support.cli import runner

MOVES = ["[durable] The user lives in Ghent.", "[correction] User moved to Utrecht.",
         "[correction] The user relocated to Leiden."]
TEMPORAL = '''
dream = "daily"
[[present]]
text = "Leiden"
file = "USER.md"
[[ask]]
kind = "current"
question = "Where does the user live now?"
answer = "Leiden"
[[ask]]
question = "Where did the user live?"
answer = "Utrecht"
as_of = 2026-10-02
[[ask]]
question = "Where did the user live?"
answer = "Ghent"
as_of = "2026-10-01"
'''
PLAIN = '[[present]]\ntext = "tea"\nfile = "USER.md"\n'


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    scenario_dir(root, "moves", MOVES, TEMPORAL)
    scenario_dir(root, "tea", ["[permanent] The user prefers tea."], PLAIN)
    return root


def test_asks_as_of_a_date_are_answered_from_memory_as_it_stood_and_reported_apart(corpus):
    report = run_corpus(discover([corpus]), EvalConfig())
    moves = next(s for s in report.scenarios if s.name == "moves")
    assert moves.temporal and [ask["coverage"] for ask in moves.metrics["asks"]] == [1.0, 1.0, 1.0]
    assert [(ask["kind"], ask["as_of"]) for ask in moves.metrics["asks"]] == [
        ("current", None), ("as-of", "2026-10-02"), ("as-of", "2026-10-01")]
    assert report.score == 1.0 and report.temporal["kinds"]["as-of"] == {"asks": 2, "coverage": 1.0,
                                                                           "baseline": 1.0}
    text = runner.invoke(app, ["eval", str(corpus)], terminal_width=200).output
    assert "(temporal)" in text and "temporal, apart from the score: 1 scenarios" in text


def test_a_temporal_scenario_does_not_move_the_score_of_the_rest(corpus):
    (corpus / "moves" / "expect.toml").write_text(TEMPORAL + '[[present]]\ntext = "Atlantis"\n')
    data = json.loads(runner.invoke(app, ["eval", str(corpus), "--json", "--min-score", "1"]).stdout)
    assert data["score"] == 1.0 and data["temporal"]["score"] == pytest.approx(0.5)


def test_a_daily_scenario_dreams_each_day_with_that_day_on_its_commits(corpus, monkeypatch):
    days: list[str] = []
    real = subprocess.run

    def spy(args, *rest, **kwargs):
        if args[0] == "git" and "commit-tree" in args:
            days.append(kwargs["env"]["GIT_COMMITTER_DATE"][:10])
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "run", spy)
    result, _ = run_scenario(load_scenario(corpus / "moves"), EvalConfig())
    # the scenario's first commit, dated by the one clock, then a dream a day dated that day
    assert days == [clock.today().isoformat(), "2026-10-01", "2026-10-02", "2026-10-03"]
    assert result.metrics["entries"] == 3


def test_the_cascade_check_tells_revised_flagged_and_left_silently_apart():
    check = Check("cascade", text="backup copies", now="birch9")
    archive = {"memory/archive/2026-10.md": "- Payments run on alder7 (until 2026-10-02; replaced by: Payments run "
                                            "on birch9)\n"}
    revised = Memory({"memory/MEMORY.md": "- The backup copies from birch9.\n"}, archive)
    flagged = Memory({"memory/MEMORY.md": "- The backup copies from alder7.\n"}, archive,
                     ("The backup copies from alder7.",))
    silent = Memory({"memory/MEMORY.md": "- The backup copies from alder7.\n"}, archive)
    assert [evaluate(check, m).detail for m in (revised, flagged, silent)] == [
        "revised", "listed as maybe out of date", "left as it was, unflagged"]
    assert [evaluate(check, m).passed for m in (revised, flagged, silent)] == [True, True, False]


@pytest.mark.parametrize(("expect", "problem"), [
    ('dream = "hourly"\n' + PLAIN, "dream must be one of once, daily"),
    ('[[cascade]]\ntext = "backup"\n', "needs a non-empty `now`"),
    ('[[replaced]]\ntext = "Ghent"\nfile = "USER.md"\n', "needs a non-empty `text` and only"),
])
def test_a_malformed_temporal_scenario_is_an_error_naming_the_file(tmp_path, expect, problem):
    folder = scenario_dir(tmp_path, "broken", MOVES, expect)
    with pytest.raises(ScenarioError, match=problem):
        load_scenario(folder)
