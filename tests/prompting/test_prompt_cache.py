"""Cache what repeats: the stable parts of a request are byte-identical across batches and runs and come first,
and requests to Claude mark where they end (tested against the scripted server's Anthropic Messages endpoint)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from nanodream.backlog.history import Batch, HistoryEntry
from nanodream.cli import app
from nanodream.config import Settings
from nanodream.engines.caching import EPHEMERAL, marked, takes_breakpoints
from nanodream.memory.staging import Staging
from nanodream.memory.transaction import ensure_repository
from nanodream.prompting.prompt import compose_user_message
from nanodream.prompting.signals import compute_signals
from nanodream.run.dream import run_dream
from nanodream.run.records import read_records
from nanodream.toolbox.limits import ToolLimits
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.support.cli import runner
from tests.support.scripted_server import call, final, tool_calls
from tests.support.workspaces import entry, git, llm_settings, write_history

SKILL = "---\nname: release\ndescription: Cut a release\n---\n\n1. Run `make test`\n2. Tag it\n3. Push the tag\n"
CLAUDE = "anthropic/claude-haiku-4-5"


def with_skill(ws) -> None:
    (ws.root / "skills/release").mkdir(parents=True)
    (ws.root / "skills/release/SKILL.md").write_text(SKILL)
    git(ws, "add", "-A")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "skill")


def openings(server) -> list[dict]:
    """The first request of every session the server saw (system + user message only)."""
    return [body for body in server.requests if len(body["messages"]) == 2]


def file_the_batch(body: dict):
    """The batch's fact into MEMORY.md (so memory changes between batches), with the summary beside the call."""
    fact = body["messages"][1]["content"].split("[durable] ")[1].split("\n")[0]
    step = tool_calls(("edit_file", {"path": "memory/MEMORY.md", "old_text": "## Project\n",
                                     "new_text": f"## Project\n- {fact}\n"}))
    step["message"]["content"] = f"Filed: {fact}"
    return step


def test_two_batches_and_two_runs_send_byte_identical_system_prompt_and_tools(workspace, serve):
    with_skill(workspace)
    write_history(workspace, [entry(1, "[durable] Uses Go.", "a", day=1), entry(2, "[durable] Uses chi.", "b", day=2)])
    server = serve([file_the_batch] * 3)
    first = run_dream(workspace, llm_settings(server, batch_tokens=20))  # one entry per batch
    with workspace.history_file.open("a") as handle:
        handle.write(json.dumps(entry(3, "[durable] Uses sqlc.", "c", day=3)) + "\n")
    second = run_dream(workspace, llm_settings(server, batch_tokens=20))
    assert (first.outcome, second.outcome) == ("committed", "committed")

    sent = openings(server)
    assert len(sent) == 3 and len(server.requests) == 3  # three batches, one request each
    systems = {json.dumps(body["messages"][0]) for body in sent}
    tools = {json.dumps(body["tools"]) for body in sent}
    assert len(systems) == 1 and len(tools) == 1
    for body in sent:
        user = body["messages"][1]["content"]
        assert user.startswith("# Current memory files\n")  # the memory block leads
        assert user.index("</file>") < user.index("# Skills index") < user.index("# Signals") < user.index(
            "<history>")
        assert user.endswith("</history>\n")  # the batch comes last
        assert "cache_control" not in json.dumps(body)  # OpenAI-style: plain strings, the order alone does it


def test_memory_and_skills_index_do_not_change_with_the_day_or_the_batch(workspace):
    with_skill(workspace)
    staging, store, settings = Staging(workspace), GitStore(workspace), Settings()
    limits = ToolLimits.from_settings(settings)
    shown = set()
    for today, content in ((date(2026, 10, 15), "[durable] Uses Go."), (date(2027, 3, 1), "[permanent] Likes tea.")):
        batch = Batch([HistoryEntry(1, f"{today} 10:00", content, "cli:1")])
        signals = compute_signals(staging, batch, store, settings, limits=limits, today=today)
        blocks = compose_user_message(staging, batch, signals).blocks()
        assert "".join(blocks) == compose_user_message(staging, batch, signals).text
        shown.add(blocks[:2])
    assert len(shown) == 1


def claude_settings(server, **overrides) -> Settings:
    return llm_settings(server, model=CLAUDE, api_base=server.anthropic_url, **overrides)


def test_requests_to_claude_mark_the_end_of_the_system_prompt_memory_files_and_skills_index(workspace, serve):
    with_skill(workspace)
    write_history(workspace, [entry(1, "[durable] ledgerline deploys with docker compose.")])
    server = serve([call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
                         new_text="## Project\n- ledgerline deploys with docker compose.\n"),
                    final("Filed the deploy setup\n- memory/MEMORY.md: docker compose")])
    report = run_dream(workspace, claude_settings(server))
    assert report.outcome == "committed", report.reason

    first, second = server.requests
    assert first["system"][-1]["cache_control"] == EPHEMERAL
    memory, skills, batch = first["messages"][0]["content"]
    assert memory["cache_control"] == EPHEMERAL and memory["text"].startswith("# Current memory files")
    assert memory["text"].rstrip().endswith("</file>")  # the block that ends the memory files
    assert "## Project" in memory["text"] and "<history>" not in memory["text"]
    assert skills["cache_control"] == EPHEMERAL and skills["text"].startswith("# Skills index")
    assert "release — Cut a release" in skills["text"]
    assert "cache_control" not in batch and batch["text"].rstrip().endswith("</history>")
    assert json.dumps(first).count("cache_control") == 3
    # From the second request on, the conversation so far is marked too: the next turn reads it from the cache.
    [result] = second["messages"][-1]["content"]
    assert result["type"] == "tool_result" and result["content"][-1]["cache_control"] == EPHEMERAL
    assert json.dumps(second).count("cache_control") == 4  # Anthropic's limit


def test_claude_sessions_in_one_response_are_one_request_too(workspace, serve):
    write_history(workspace, [entry(1, "[durable] ledgerline deploys with docker compose.")])
    server = serve([tool_calls(("edit_file", {"path": "memory/MEMORY.md", "old_text": "## Project\n",
                                              "new_text": "## Project\n- ledgerline deploys with docker compose.\n"}),
                               ("finish", {"summary": "Filed the deploy setup"}))])
    report = run_dream(workspace, claude_settings(server))
    assert report.outcome == "committed", report.reason
    assert len(server.requests) == 1


def test_a_no_op_question_to_claude_is_marked_as_the_conversation_so_far(workspace, serve):
    write_history(workspace, [entry(1, "[durable] ledgerline deploys with docker compose.")])
    server = serve([final("Nothing to keep."), final("1: already known")])
    run_dream(workspace, claude_settings(server))
    question = server.requests[1]["messages"][-1]
    assert question["role"] == "user" and question["content"][-1]["cache_control"] == EPHEMERAL
    # the follow-up is the per-fact accounting's question about the fact left out
    text = question["content"][-1]["text"]
    assert text.startswith("These facts of the history batch are not in memory and have no reason given")
    assert "ledgerline deploys with docker compose" in text
    assert json.dumps(server.requests[1]).count("cache_control") <= 4  # Anthropic's limit


# cached input tokens ----------------------------------------------------------------------------------


def one_turn(ws, serve, **server):
    write_history(ws, [entry(1, "[durable] ledgerline deploys with docker compose.")])
    return serve([call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
                       new_text="## Project\n- ledgerline deploys with docker compose.\n"),
                  final("Filed the deploy setup")], **server)


def test_cached_tokens_reach_the_record_the_trailer_status_and_log(workspace, serve):
    server = one_turn(workspace, serve, cached=60)
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    assert (report.tokens_in, report.cached_tokens) == (200, 120)  # two requests, 60 of 100 cached in each
    assert report.to_json()["cached_tokens"] == 120 and report.batches[0].cached_tokens == 120
    assert read_records(workspace)[-1].cached_tokens == 120
    assert "Dream-Tokens: in=200 out=40 cached=120" in git(workspace, "log", "-1", "--format=%B")
    where = ["-w", str(workspace.root)]
    status = json.loads(runner.invoke(app, ["status", *where, "--json"]).stdout)
    assert status["last_success"]["cached_tokens"] == 120
    assert "tokens in 200 (120 cached)" in runner.invoke(app, ["status", *where]).stdout
    [dream, *_] = json.loads(runner.invoke(app, ["log", *where, "--json"]).stdout)["commits"]
    assert dream["tokens"] == {"in": 200, "out": 40, "cached": 120}
    assert "tokens in 200 (120 cached) out 40" in runner.invoke(app, ["log", *where]).stdout


def test_claude_cache_reads_are_recorded_and_priced_as_cache_reads(tmp_path, serve):
    spent = {}
    for cached in (0, 80):
        ws = Workspace.at(tmp_path / f"ws-{cached}")
        scaffold(ws.root)
        ensure_repository(GitStore(ws))
        report = run_dream(ws, claude_settings(one_turn(ws, serve, cached=cached)))
        assert report.outcome == "committed", report.reason
        spent[cached] = report
    assert spent[80].cached_tokens == 160 and spent[0].cached_tokens == 0
    assert spent[80].tokens_in == spent[0].tokens_in == 200  # litellm counts cache reads as prompt tokens
    # claude-haiku-4-5 in litellm's price map: $1/M input, $0.10/M cache reads, $5/M output
    assert spent[0].cost == pytest.approx(200e-6 + 40 * 5e-6)
    assert spent[80].cost == pytest.approx(40e-6 + 160e-7 + 40 * 5e-6)


@pytest.mark.parametrize(("model", "provider", "marks"), [
    ("anthropic/claude-haiku-4-5", "anthropic", True),
    ("claude-sonnet-4-5", "anthropic", True),
    ("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock", True),
    ("vertex_ai/claude-sonnet-4-5", "vertex_ai", True),
    ("openrouter/anthropic/claude-sonnet-4.5", "openrouter", True),
    ("openrouter/openai/gpt-4o", "openrouter", False),
    ("openai/gpt-4o-mini", "openai", False),
    ("gemini/gemini-2.5-flash", "gemini", False),
    ("ollama_chat/qwen2.5:7b", "ollama_chat", False),
])
def test_only_claude_routes_take_breakpoints(model, provider, marks):
    assert takes_breakpoints(model, provider) is marks


def test_marking_copies_the_messages_and_leaves_the_transcript_plain():
    messages = [{"role": "system", "content": "rules"}, {"role": "user", "content": "memory\n\nskills\n\nbatch\n"}]
    sent = marked(messages, ("memory\n\n", "skills\n\n", "batch\n"))
    assert messages[1]["content"] == "memory\n\nskills\n\nbatch\n"  # the conversation itself is untouched
    assert [b.get("cache_control") for b in sent[1]["content"]] == [EPHEMERAL, EPHEMERAL, None]
    # A user message that is not the blocks joined (a follow-up, a rewritten prompt) is sent whole.
    assert marked(messages, ("other",))[1] == messages[1]
