"""`nanodream eval` and `nanodream simulate`: scenario format, scoring, the corpus left untouched, and scores
that discriminate (a deliberately weak engine scores clearly below the builtin one)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from nanodream.backlog.history import session_of, tagged_lines
from nanodream.cli import app
from nanodream.commands.eval import failures
from nanodream.config import Settings
from nanodream.engines.base import SessionRequest, SessionResult
from nanodream.evaluation.checks import Memory, evaluate
from nanodream.evaluation.report import compare
from nanodream.evaluation.runner import EvalConfig, run_corpus
from nanodream.evaluation.scenario import Check, ScenarioError, discover, load_scenario, shipped_corpus
from nanodream.evaluation.simulate import simulate, write_scenario
from nanodream.toolbox.tools import ToolBox
from tests.support.cli import runner
from tests.support.scripted_server import call, final


class OneFactPerSession:
    """A deliberately weak consolidator: the first tagged line of each session, appended to MEMORY.md as is."""

    name = "weak"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def run(self, request: SessionRequest, toolbox: ToolBox) -> SessionResult:
        firsts: dict[str, str] = {}
        for entry in request.batch.entries:
            lines = [text for tag, text in tagged_lines(entry.content) if tag]
            if lines:
                firsts.setdefault(session_of(entry), lines[0])
        memory = toolbox.invoke("read_file", path="memory/MEMORY.md").value
        added = "".join(f"- {text}\n" for text in firsts.values())
        toolbox.invoke("write_file", path="memory/MEMORY.md", content=memory.rstrip("\n") + "\n" + added)
        return SessionResult(summary=f"weak: {len(firsts)} facts", cost=0.0)


def scenario_dir(root: Path, name: str, history: list[str], expect: str, files: dict[str, str] | None = None) -> Path:
    path = root / name
    path.mkdir(parents=True)
    lines = [json.dumps({"cursor": n, "timestamp": f"2026-10-{n:02d} 10:00", "session_key": f"s{n}", "content": c})
             for n, c in enumerate(history, start=1)]
    (path / "history.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (path / "expect.toml").write_text(expect, encoding="utf-8")
    for rel, text in (files or {}).items():
        (path / "files" / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / "files" / rel).write_text(text, encoding="utf-8")
    return path


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(path.relative_to(root).as_posix().encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    scenario_dir(root, "tz", ["[permanent] The user's timezone is Europe/Berlin.",
                              "[correction] The user's time zone is America/Chicago now."],
                 '[[present]]\ntext = "America/Chicago"\nfile = "USER.md"\n[[absent]]\ntext = "Europe/Berlin"\n')
    scenario_dir(root, "merge", ["[durable] Procedure deploy: 1) run the tests 2) run migrations 3) ship it"],
                 'max_growth_bytes = 10\n[[skill]]\nname = "deploy"\ndescription_contains = "deploy"\n'
                 '[[once]]\ntext = "run the tests"\n',
                 files={"skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy the app.\n---\n\n"
                                                  "# Deploy\n\n1. Run the tests.\n2. Ship it.\n"})
    return root


# format ------------------------------------------------------------------------------------------


def test_a_scenario_loads_its_checks_in_order_and_a_bad_one_is_refused_by_name(corpus, tmp_path):
    scenario = load_scenario(corpus / "merge")
    assert [c.kind for c in scenario.checks] == ["once", "skill"] and scenario.max_growth_bytes == 10
    assert [s.name for s in discover([corpus])] == ["merge", "tz"]
    bad = scenario_dir(tmp_path, "bad", ["[durable] x"], '[[present]]\nfile = "USER.md"\n')
    with pytest.raises(ScenarioError, match="bad/expect.toml.*non-empty `text`"):
        load_scenario(bad)
    typo = scenario_dir(tmp_path, "typo", ["[durable] x"], '[[presnt]]\ntext = "x"\n')
    with pytest.raises(ScenarioError, match="unknown key"):
        load_scenario(typo)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ScenarioError, match="holds no scenario"):
        discover([tmp_path / "empty"])


def test_checks_fold_case_and_spacing_and_count_the_archive_only_for_presence():
    memory = Memory(active={"USER.md": "- Lives in  ROTTERDAM.\n", "memory/MEMORY.md": "- rotterdam office\n"},
                    archive={"memory/archive/2026-01.md": "- Lives in Lyon.\n"})
    assert evaluate(Check("present", text="lives in rotterdam", file="USER.md"), memory).passed
    assert evaluate(Check("present", text="Lyon"), memory).passed  # anywhere in memory, the archive too
    assert not evaluate(Check("present", text="Lyon", file="USER.md"), memory).passed
    assert not evaluate(Check("absent", text="lyon"), memory).passed
    assert not evaluate(Check("once", text="rotterdam"), memory).passed  # twice among the active files
    assert evaluate(Check("once", text="rotterdam", file="USER.md"), memory).passed
    assert evaluate(Check("once", text="lyon"), memory).detail == "appears 0 times"
    assert not evaluate(Check("skill", name="deploy"), memory).passed


def test_a_replaced_line_is_history_present_and_absent_look_past_and_replaced_looks_at():
    memory = Memory(active={"USER.md": "- Lives in Rotterdam.\n"},
                    archive={"memory/archive/2026-10.md": "- Lives in Lyon (until 2026-10-15; replaced by: Lives in "
                                                          "Rotterdam)\n- Cycles to work.\n"})
    assert evaluate(Check("absent", text="Lyon"), memory).passed  # replaced: not what memory holds now
    assert not evaluate(Check("present", text="Lyon"), memory).passed
    assert evaluate(Check("present", text="cycles to work"), memory).passed  # a cold line is still a fact
    assert evaluate(Check("replaced", text="lives in lyon"), memory).passed
    assert not evaluate(Check("replaced", text="cycles"), memory).passed


# running -----------------------------------------------------------------------------------------


def test_eval_scores_each_scenario_and_never_touches_the_corpus(corpus):
    before = tree_hash(corpus)
    report = run_corpus(discover([corpus]), EvalConfig())
    assert tree_hash(corpus) == before
    by_name = {s.name: s for s in report.scenarios}
    assert by_name["tz"].score == 1.0
    merge = by_name["merge"]
    assert [c.passed for c in merge.checks] == [True, True, False]  # the new step grew memory past 10 bytes
    assert merge.metrics["bytes_grown"] > 10 and merge.metrics["outcome"] == "committed"
    assert report.score == pytest.approx((1.0 + 2 / 3) / 2)
    assert failures(report) == [f"✗ merge: max_growth_bytes 10 (grew {merge.metrics['bytes_grown']} bytes)"]


def test_the_cli_prints_json_writes_the_file_and_exits_1_under_min_score(corpus, tmp_path):
    out = tmp_path / "result.json"
    result = runner.invoke(app, ["eval", str(corpus), "--json", "-o", str(out), "--min-score", "0.9"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data == json.loads(out.read_text()) and data["against"] is None
    assert {s["name"] for s in data["scenarios"]} == {"tz", "merge"} and data["score"] < 0.9
    ok = runner.invoke(app, ["eval", str(corpus / "tz"), "--min-score", "1"], terminal_width=120)
    assert ok.exit_code == 0 and "score 1.000" in ok.output
    missing = runner.invoke(app, ["eval", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and "not a scenario directory" in missing.output


def test_against_prints_the_difference_per_scenario_and_check(corpus):
    scenarios = discover([corpus])
    base = run_corpus(scenarios, EvalConfig())
    weak = run_corpus(scenarios, EvalConfig(engine_factory=OneFactPerSession))
    diff = compare(base, weak)
    assert diff["delta"] < 0
    tz = next(row for row in diff["scenarios"] if row["name"] == "tz")
    assert {"check": "absent 'Europe/Berlin'", "base": True, "other": False} in tz["changed"]
    result = runner.invoke(app, ["eval", str(corpus), "--against-model", "builtin", "--json"])
    assert json.loads(result.stdout)["against"]["delta"] == 0
    text = runner.invoke(app, ["eval", str(corpus), "--against-model", "builtin"], terminal_width=160).output
    assert "builtin 0.833 → builtin 0.833 (Δ +0.000)" in text and text.count("merge") == 3  # table, failure, diff


def test_max_cost_stops_before_the_next_scenario(corpus):
    report = run_corpus(discover([corpus]), EvalConfig(max_cost=0.0))
    assert report.scenarios == [] and "--max-cost" in report.stopped


def test_the_shipped_corpus_discriminates_builtin_from_a_weak_engine():
    scenarios = discover([shipped_corpus()])
    assert len(scenarios) >= 25
    builtin = run_corpus(scenarios, EvalConfig())
    weak = run_corpus(scenarios, EvalConfig(engine_factory=OneFactPerSession))
    assert builtin.score >= 0.95, failures(builtin)
    assert weak.score <= builtin.score - 0.3, (weak.score, builtin.score)


# simulate ----------------------------------------------------------------------------------------


def test_simulate_is_deterministic_long_and_seed_dependent(tmp_path):
    assert write_scenario(tmp_path / "a", 3) >= 200
    write_scenario(tmp_path / "b", 3)
    write_scenario(tmp_path / "c", 4)
    assert tree_hash(tmp_path / "a") == tree_hash(tmp_path / "b") != tree_hash(tmp_path / "c")
    entries, expect = simulate(3, days=10, user_facts=1)
    assert len(entries) < 200 and "works at" not in json.dumps(entries)
    assert load_scenario(tmp_path / "a").checks


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_builtin_scores_at_least_095_on_simulated_seeds(tmp_path, seed):
    result = runner.invoke(app, ["simulate", "--seed", str(seed), "-o", str(tmp_path / "sim"), "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["entries"] >= 200
    report = run_corpus(discover([tmp_path / "sim"]), EvalConfig())
    weak = run_corpus(discover([tmp_path / "sim"]), EvalConfig(engine_factory=OneFactPerSession))
    assert report.score >= 0.95, failures(report)
    assert weak.score < report.score - 0.2


def test_a_model_is_evaluated_through_the_same_tools_and_its_tokens_and_prompt_are_used(corpus, serve, tmp_path):
    """The model path end to end against the local scripted server (never a real provider)."""
    user = ("# User\n\nWho the user is: identity, preferences and communication style.\n\n## Preferences\n\n"
            "## Identity\n\n- The user's time zone is America/Chicago.\n")
    server = serve([call("write_file", path="USER.md", content=user), final("moved the time zone")], cached=60)
    prompt = tmp_path / "mine.md"
    prompt.write_text("You are the dream. Keep memory tidy. {{memory}}\n", encoding="utf-8")
    env = {"NANODREAM_API_BASE": server.url, "NANODREAM_API_KEY": "k", "NANODREAM_MAX_RETRIES": "0"}
    result = runner.invoke(app, ["eval", str(corpus / "tz"), "-m", "openai/scripted", "--prompt", str(prompt),
                                 "--json"], env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["model"] == "openai/scripted" and data["score"] == 1.0
    assert data["scenarios"][0]["metrics"]["tokens_in"] == 200  # two scripted turns of 100 prompt tokens
    assert data["scenarios"][0]["metrics"]["cached_tokens"] == 120  # 60 of each read from the provider's cache
    assert "Keep memory tidy" in json.dumps(server.requests[0])
