"""Question checks: eval scores retention on transcripts, beside the keep-everything baseline, and LoCoMo's
public layout converts into such scenarios without shipping or downloading any of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nanodream.cli import app
from nanodream.evaluation.scenario import ScenarioError, discover, load_scenario, shipped_transcripts
from tests.support.cli import runner
from tests.support.paths import FIXTURES

LOCOMO = FIXTURES / "locomo-mini.json"


def transcript_scenario(root: Path, expect: str) -> Path:
    folder = root / "chat"
    folder.mkdir(parents=True)
    said = ["I live in Ghent and I work as a landscape architect.", "I prefer trains over planes.",
            "What should I cook tonight?", "Thanks!"]
    (folder / "transcript.jsonl").write_text("".join(
        json.dumps({"role": "user", "content": text, "timestamp": f"2026-10-01T10:0{n}:00Z"}) + "\n"
        for n, text in enumerate(said)))
    (folder / "expect.toml").write_text(expect)
    return folder


def test_a_transcript_scenario_is_ingested_dreamed_and_its_asks_scored_against_keeping_everything(tmp_path):
    transcript_scenario(tmp_path, '[[ask]]\nquestion = "Where does the user live?"\nanswer = "Ghent"\n\n'
                                  '[[ask]]\nquestion = "What does the user cook?"\nanswer = "lasagne"\n\n'
                                  '[[present]]\ntext = "landscape architect"\n')
    result = runner.invoke(app, ["eval", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    metrics = data["scenarios"][0]["metrics"]
    assert metrics["ingested"] == 1 and data["scenarios"][0]["score"] == 1.0  # scored by its check
    assert [a["coverage"] for a in metrics["asks"]] == [1.0, 0.0]
    assert [a["baseline"] for a in metrics["asks"]] == [1.0, 0.0]
    assert data["ask_coverage"] == data["baseline_coverage"] == 0.5 and data["top_k"] == 5
    assert 0 < metrics["memory_share"] == pytest.approx(metrics["memory_bytes"] / metrics["transcript_bytes"], 1e-3)
    text = runner.invoke(app, ["eval", str(tmp_path)], terminal_width=160).output
    assert "asks: coverage@5 0.500 (memory alone 0.500) · keeping every turn 0.500" in text


def test_a_scenario_of_asks_alone_scores_its_coverage(tmp_path):
    transcript_scenario(tmp_path, '[[ask]]\nquestion = "Which transport does the user prefer?"\n'
                                  'answer = "trains"\n')
    data = json.loads(runner.invoke(app, ["eval", str(tmp_path), "--json", "--top-k", "1"]).stdout)
    assert data["score"] == data["ask_coverage"] == 1.0 and data["top_k"] == 1


@pytest.mark.parametrize(("expect", "problem"), [
    ('[[ask]]\nquestion = "Where?"\n', "needs a non-empty `question` and `answer`"),
    ('[[ask]]\nquestion = "Where?"\nanswer = "Ghent"\nhint = "x"\n', "nothing else"),
    ('[[ask]]\nquestion = ""\nanswer = "Ghent"\n', "needs a non-empty"),
    ('[[ask]]\nquestion = "Where?"\nanswer = "Ghent"\nas_of = "last spring"\n', "as_of must be a date"),
    ('[[ask]]\nquestion = "Where?"\nanswer = "Ghent"\nas_of = 2026-03-01T10:00:00\n', "as_of must be a date"),
    ('[[ask]]\nquestion = "Where?"\nanswer = "Ghent"\nkind = "yesterday"\n', "kind must be one of"),
])
def test_a_malformed_ask_is_an_error_naming_the_file(tmp_path, expect, problem):
    folder = transcript_scenario(tmp_path, expect)
    with pytest.raises(ScenarioError, match=problem):
        load_scenario(folder)


def test_a_scenario_needs_a_history_or_a_transcript(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "expect.toml").write_text('[[ask]]\nquestion = "q"\nanswer = "a"\n')
    with pytest.raises(ScenarioError, match="or a transcript"):
        load_scenario(tmp_path / "empty")


def test_a_transcript_that_is_not_one_is_one_line_naming_the_scenario_and_exit_2(tmp_path):
    folder = transcript_scenario(tmp_path, '[[ask]]\nquestion = "Where does the user live?"\nanswer = "Ghent"\n')
    (folder / "transcript.jsonl").write_text("not a transcript\n")
    result = runner.invoke(app, ["eval", str(folder)])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "chat:" in result.output and "transcript.jsonl" in result.output and "internal error" not in result.output


def test_import_locomo_writes_a_transcript_and_asks_per_conversation_skipping_adversarial_items(tmp_path):
    result = runner.invoke(app, ["eval", "import-locomo", str(LOCOMO), "-o", str(tmp_path / "out"), "--json"])
    assert result.exit_code == 0, result.output
    [written] = json.loads(result.stdout)["scenarios"]
    scenario = load_scenario(Path(written["path"]))
    assert written["asks"] == len(scenario.asks) == 5  # the category-5 item has no answer, only adversarial_answer
    assert all(ask.question and ask.answer for ask in scenario.asks)
    assert ("In which year did Pieter launch the boat?", "2023") in [(a.question, a.answer) for a in scenario.asks]
    turns = [json.loads(line) for line in (scenario.root / "transcript.jsonl").read_text().splitlines()]
    assert turns[0] == {"role": "user", "name": "Noor", "content": turns[0]["content"],
                        "session": "locomo-conv-mini-session-1", "id": "D1:1", "timestamp": "2023-03-14T19:10:00"}
    assert "(shares a photo: a photo of a wooden sailing boat on a trailer)" in turns[3]["content"]
    report = json.loads(runner.invoke(app, ["eval", str(tmp_path / "out"), "--json"]).stdout)
    assert report["ask_coverage"] is not None and report["baseline_coverage"] is not None
    asks = {a["question"]: a for a in report["scenarios"][0]["metrics"]["asks"]}
    assert asks["When did Noor start her pottery class?"]["coverage"] == 1.0  # "yesterday" became 13 March 2023


def test_locomo_through_ingest_run_and_recall_is_never_below_the_raw_transcript(tmp_path):
    runner.invoke(app, ["eval", "import-locomo", str(LOCOMO), "-o", str(tmp_path / "out")])
    report = json.loads(runner.invoke(app, ["eval", str(tmp_path / "out"), "--json"]).stdout)
    asks = report["scenarios"][0]["metrics"]["asks"]
    assert all(ask["coverage"] >= ask["baseline"] for ask in asks), asks
    assert all(ask["coverage"] >= ask["memory"] for ask in asks), asks  # the turns only ever add
    assert report["ask_coverage"] >= report["baseline_coverage"] > 0
    assert report["memory_coverage"] == pytest.approx(sum(ask["memory"] for ask in asks) / len(asks), abs=1e-4)


def test_import_locomo_refuses_a_file_that_is_not_locomo_with_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"messages": []}')
    result = runner.invoke(app, ["eval", "import-locomo", str(bad), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2 and "not LoCoMo's layout" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_shipped_transcript_corpus_runs_with_asks_in_every_scenario():
    scenarios = discover([shipped_transcripts()])
    assert len(scenarios) >= 3 and all(s.asks and s.transcripts for s in scenarios)
    result = runner.invoke(app, ["eval", "--transcripts", "--json"])
    data = json.loads(result.stdout)
    assert result.exit_code == 0 and data["ask_coverage"] > 0 and data["memory_share"] > 0
    for scenario in data["scenarios"]:  # recall over memory and the turns kept is never below keeping every turn
        assert scenario["metrics"]["ask_coverage"] >= scenario["metrics"]["baseline_coverage"], scenario["name"]
