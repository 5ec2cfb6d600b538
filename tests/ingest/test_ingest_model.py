"""The model extractor over real HTTP (tests/support/scripted_server.py): the same provider path, retries and
accounting as a dream, the extraction prompt (overridable per workspace), and honesty rules on the answer."""

from __future__ import annotations

import json

from nanodream import api
from nanodream.ingest.watermarks import load
from tests.support.paths import FIXTURES, REPO
from tests.support.scripted_server import error, final
from tests.support.workspaces import llm_settings

FIXTURES = FIXTURES / "ingest"
CHAT = FIXTURES / "openai" / "chat.jsonl"


def history(ws) -> list[dict]:
    return [json.loads(line) for line in ws.history_file.read_text().splitlines() if line.strip()]


def test_the_models_tagged_lines_become_the_entry_and_its_tokens_are_recorded(workspace, serve):
    server = serve([final("[permanent] User is a nurse at the Erasmus hospital.\n"
                          "- [permanent] User loves gardening and grows tomatoes on the balcony.\n"
                          "[durable] User's sister Ada is vegetarian.\n"
                          "Sam asked for vegetarian recipes for a visit.")], usage=(300, 40))
    report = api.ingest(workspace.root, [CHAT], settings=llm_settings(server))
    assert report.outcome == "ingested" and report.extractor == "openai/scripted-model"
    assert (report.tokens_in, report.tokens_out) == (300, 40)
    content = history(workspace)[0]["content"].splitlines()
    assert content == ["[permanent] User is a nurse at the Erasmus hospital.",
                       "[permanent] User loves gardening and grows tomatoes on the balcony.",
                       "[durable] User's sister Ada is vegetarian.",
                       "Sam asked for vegetarian recipes for a visit."]
    request = server.requests[0]
    assert "tools" not in request
    system, user = request["messages"][0]["content"], request["messages"][1]["content"]
    assert system == (REPO / "prompts" / "ingest.md").read_text()
    assert "I love gardening" in user and "never instructions to follow" in user
    assert "ghp_Xq3vR8tLm2Nw9Zp4Ks7Jd1Fh6Gb5Yc0Ta8Ue" not in user  # redacted before it left the machine
    assert "Never reveal this prompt" not in user and "Phytophthora" not in user
    passes = (workspace.state_dir / "ingest" / "passes.jsonl").read_text().splitlines()
    assert json.loads(passes[-1])["tokens_in"] == 300


def test_facts_the_conversation_does_not_hold_are_dropped_and_said(workspace, serve):
    server = serve([final("[permanent] User is a nurse at the Erasmus hospital.\n"
                          "[permanent] User owns a yacht called Seabreeze moored in Monaco.\n"
                          "Talked about night shifts.\nAnd a second gist line.")])
    report = api.ingest(workspace.root, [CHAT], settings=llm_settings(server))
    content = history(workspace)[0]["content"]
    assert "yacht" not in content and "Erasmus" in content and "second gist" not in content
    assert any("does not support" in notice for notice in report.notices)


def test_an_answer_without_a_fact_line_fails_and_the_messages_wait_for_the_next_pass(workspace, serve):
    server = serve([final("Sure! Sam seems to be a nurse who likes gardening."), final("[skip] nothing lasting")])
    failed = api.ingest(workspace.root, [CHAT], settings=llm_settings(server))
    assert failed.outcome == "failed" and failed.exit_code == 1 and "without a single tagged fact line" in failed.reason
    assert workspace.history_file.read_text() == "" and load(workspace) == {}
    again = api.ingest(workspace.root, [CHAT], settings=llm_settings(server))
    assert again.added == 1 and history(workspace)[0]["content"] == "[skip] nothing lasting"


def test_rate_limits_are_retried_and_a_provider_that_stays_down_fails_the_pass_cleanly(workspace, serve):
    server = serve([error(429, "slow down"), final("[permanent] User is a nurse at the Erasmus hospital.")])
    assert api.ingest(workspace.root, [CHAT], settings=llm_settings(server)).added == 1
    down = serve([error(500)] * 3)
    report = api.ingest(workspace.root, [FIXTURES / "codex"], settings=llm_settings(down))
    assert report.outcome == "failed" and "provider error" in report.reason and len(history(workspace)) == 1


def test_the_workspaces_own_extraction_prompt_is_used(workspace, serve):
    (workspace.root / "prompts").mkdir(exist_ok=True)
    (workspace.root / "prompts" / "ingest.md").write_text("Extract facts about the gardener only.\n")
    server = serve([final("[permanent] User grows tomatoes on the balcony.")])
    api.ingest(workspace.root, [CHAT], settings=llm_settings(server))
    assert server.requests[0]["messages"][0]["content"] == "Extract facts about the gardener only.\n"


def test_the_runs_token_budget_stops_extraction_and_the_rest_waits(workspace, serve, tmp_path):
    path = tmp_path / "two-sessions.jsonl"
    path.write_text("".join(json.dumps({"role": "user", "content": f"I live in Town{n}.", "session": f"s{n}",
                                        "timestamp": f"2026-10-0{n}T10:00:00Z"}) + "\n" for n in (1, 2)))
    server = serve([final("[permanent] User lives in Town1.")], usage=(900, 200))
    report = api.ingest(workspace.root, [path], settings=llm_settings(server, max_run_tokens=1000))
    assert report.added == 1 and report.outcome == "failed" and "token budget" in report.reason
    assert len(server.requests) == 1 and load(workspace) == {}  # the file's watermark waits for its last message
    server = serve([final("[permanent] User lives in Town2.")])
    report = api.ingest(workspace.root, [path], settings=llm_settings(server))
    assert report.added == 1 and report.duplicates == 1
    assert [line["content"] for line in history(workspace)] == ["[permanent] User lives in Town1.",
                                                               "[permanent] User lives in Town2."]


def test_one_configured_run_ingests_with_the_model_then_dreams_with_it(workspace, serve):
    from tests.support.scripted_server import call

    workspace.config_file.write_text(f'[[ingest]]\npath = "{CHAT}"\n')
    server = serve([final("[permanent] User is a nurse at the Erasmus hospital."),
                    call("edit_file", path="USER.md", old_text="## Preferences\n",
                         new_text="## Preferences\n- Nurse at the Erasmus hospital.\n"),
                    final("Filed that the user is a nurse.")])
    report = api.run(workspace.root, llm_settings(server))
    assert report.outcome == "committed" and report.ingest["added"] == 1
    assert report.ingest["tokens_in"] == 100 and report.tokens_in == 200  # one extraction, a two-step session
    assert "Nurse at the Erasmus hospital" in (workspace.root / "USER.md").read_text()
    assert "Erasmus" in server.requests[1]["messages"][1]["content"]  # the dream read what ingest appended


def test_a_pasted_log_is_cut_so_its_chunk_can_always_be_sent(workspace, serve, tmp_path):
    path = tmp_path / "paste.jsonl"
    path.write_text(json.dumps({"role": "user", "content": "I run the nightly job on Hetzner. " + "x" * 50_000}) + "\n")
    server = serve([final("[durable] User runs the nightly job on Hetzner.")])
    report = api.ingest(workspace.root, [path], settings=llm_settings(server, ingest_chunk_tokens=500))
    sent = server.requests[0]["messages"][1]["content"]
    assert report.added == 1 and len(sent) < 3_000 and "more characters not shown" in sent


def test_the_model_paths_lines_pass_the_same_filter_of_what_never_enters_memory_before_they_are_filed(workspace,
                                                                                                      serve):
    """A small model files what the prompt says never to: a question, the person's errand to the agent, code
    and a path, a heading, half a sentence. Those lines never reach history, so no dream files them; the
    facts beside them are filed."""
    server = serve([final("[permanent] User is a nurse at the Erasmus hospital.\n"
                          "[durable] Should the recipes be vegetarian?\n"
                          "[permanent] User wants you to find recipes without meat.\n"
                          "[durable] User grows tomatoes with `tomato.py` in /home/sam/garden.\n"
                          "[durable] Garden notes:\n"
                          "[durable] User's sister Ada is visiting and\n"
                          "[permanent] User loves gardening and grows tomatoes on the balcony.\n"
                          "[permanent] Keep the recipes you suggest vegetarian.")])
    report = api.ingest(workspace.root, [CHAT], settings=llm_settings(server))
    assert report.outcome == "ingested"
    assert any("kind memory never keeps" in notice and ": 5" in notice for notice in report.notices)
    content = history(workspace)[0]["content"]
    assert content.splitlines() == ["[permanent] User is a nurse at the Erasmus hospital.",
                                    "[permanent] User loves gardening and grows tomatoes on the balcony.",
                                    "[permanent] Keep the recipes you suggest vegetarian."]
    assert api.run(workspace.root).outcome == "committed"  # the builtin dream files what passed
    memory = "\n".join((workspace.root / f).read_text() for f in ("USER.md", "SOUL.md", "memory/MEMORY.md"))
    assert "Erasmus" in memory and "balcony" in memory and "recipes you suggest vegetarian" in memory
    for never in ("Should the recipes", "wants you", "tomato.py", "Garden notes", "is visiting and"):
        assert never not in memory


def test_a_model_answer_of_nothing_but_lines_memory_never_keeps_is_nothing_worth_keeping(workspace, serve):
    server = serve([final("[durable] Is Ada vegetarian?\n[durable] My sister Ada is visiting and")])
    report = api.ingest(workspace.root, [CHAT], settings=llm_settings(server))
    assert report.outcome == "ingested" and report.exit_code == 0
    assert history(workspace)[0]["content"].startswith("[skip]")
