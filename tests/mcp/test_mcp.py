"""`nanodream mcp` read-only, driven over stdio by the SDK's own client: one real server for the module.

What a host relies on: the tool list (no write tool unless allowed), results shaped like `--json` and marked
untrusted, one-line errors for bad references and bad arguments, the memory files as resources and nothing
else, and a stdout that carries only MCP messages.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from nanodream import api
from nanodream.backlog import turns
from nanodream.cli import app
from nanodream.config import Settings
from nanodream.memory.transaction import ensure_repository
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.api.test_json import documented
from tests.support.cli import runner
from tests.support.mcp_client import McpClient, mcp_server, server_parameters, text
from tests.support.workspaces import entry, git, snapshot, write_history

SAID = "The spare key is under the blue flowerpot by the shed."
READ_TOOLS = ["memory_recall", "memory_status", "memory_log", "memory_show", "memory_why", "dream_proposals",
              "insights_list", "insight_get"]
SESSION_TOOLS = ["dream_begin", "dream_read_file", "dream_list_skills", "dream_edit_file", "dream_write_file",
                 "dream_delete_skill", "dream_archive_lines", "dream_list_archive", "dream_finish", "dream_abort"]
WRITE_TOOLS = ["dream_run", "dream_accept", "dream_reject", "dream_restore", "memory_pin", "memory_forget",
               "hypothesis_resolve", "insight_resolve", "insights_run", *SESSION_TOOLS]
HYPOTHESIS = "- Prefers deploy notes as bullet lists <!-- hypothesis: 2 -->"
SKILL = "---\nname: deploy\ndescription: Ship the API.\n---\n\n1. docker compose up -d\n"



@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """A workspace with one dream committed, then a hypothesis line the person committed by hand."""
    ws = Workspace.at(tmp_path_factory.mktemp("mcp") / "ws")
    scaffold(ws.root)
    ensure_repository(GitStore(ws))
    write_history(ws, [entry(1, "[durable] The API deploys with docker compose on a Hetzner VPS."),
                       entry(2, "[permanent] User's name is Maya.", session_key="telegram:7")])
    assert api.run(ws, Settings()).outcome == "committed"
    with (ws.root / "USER.md").open("a", encoding="utf-8") as f:
        f.write(HYPOTHESIS + "\n")
    (ws.root / "skills/deploy").mkdir(parents=True)
    (ws.root / "skills/deploy/SKILL.md").write_text(SKILL, encoding="utf-8")
    (ws.root / "memory/archive").mkdir()
    (ws.root / "memory/archive/2026-03.md").write_text("# Archive 2026-03\n\n- Used Heroku once.\n", encoding="utf-8")
    git(ws, "add", "-A")
    git(ws, "-c", "user.name=Maya", "-c", "user.email=maya@example.org", "commit", "-qam", "guess a preference")
    said = turns.Turn("k1", 2, "telegram:7", "2026-10-11", "09:00", "user", "", SAID)  # as ingest keeps a turn
    turns.settle(ws, turns.Append("000001.jsonl", 0), said.line().encode())
    return ws


@pytest.fixture(scope="module")
def client(memory: Workspace) -> Iterator[McpClient]:
    with mcp_server(memory.root) as connected:
        yield connected


def structured(result) -> dict:
    assert not result.is_error, text(result)
    assert json.loads(text(result)) == result.structured_content  # the text block is the same JSON
    assert result.structured_content.pop("untrusted") is True
    return result.structured_content


def cli_json(*args: str) -> object:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_a_read_only_server_lists_the_read_tools_and_no_write_tool(client):
    tools = client.tools()
    assert list(tools) == READ_TOOLS
    assert all(tool.annotations.read_only_hint for tool in tools.values())
    assert all(tool.output_schema["type"] == "object" for tool in tools.values())


def test_output_schemas_are_the_declared_schemas_of_the_reports_the_tools_answer_with(client):
    """What a host validates a result against is generated from the report's declaration, marked untrusted."""
    from nanodream.api.schema import output_schema, schema_of
    from nanodream.mcp.tools import TOOLS

    for name, listed in client.tools().items():
        declared = TOOLS.tools[name].answers
        assert output_schema(declared) == json.loads(json.dumps(schema_of(getattr(api, declared))))
        assert listed.output_schema["properties"] == {**output_schema(declared)["properties"],
                                                      "untrusted": {"const": True}}
        assert set(listed.output_schema["required"]) == set(listed.output_schema["properties"])
        assert listed.output_schema["additionalProperties"] is False


def test_schemas_come_from_the_typed_signatures(client):
    tools = client.tools()
    recall = tools["memory_recall"].input_schema
    assert recall["required"] == ["query"]
    assert recall["properties"]["k"].items() >= {"minimum": 1, "maximum": 50, "default": 5}.items()
    kinds = tools["memory_log"].input_schema["properties"]["kind"]["anyOf"][0]["enum"]
    assert kinds == ["dream", "manual", "restore", "insights"]
    assert tools["memory_status"].input_schema["properties"] == {}


def test_recall_returns_facts_and_apart_from_them_the_related_hypotheses(client, memory):
    result = client.call("memory_recall", {"query": "how do we deploy?", "k": 3})
    assert set(result.structured_content) == documented("Keys of `memory_recall`:")
    found = structured(result)
    assert "The API deploys with docker compose on a Hetzner VPS." in [hit["text"] for hit in found["hits"]]
    assert all({"text", "file", "line"} <= set(hit) for hit in found["hits"])
    assert not any("bullet lists" in hit["text"] for hit in found["hits"])
    [guess] = found["related_hypotheses"]
    assert set(guess) == documented("Keys of a related hypothesis:")
    assert (guess["text"], guess["file"], guess["evidence"]) == ("Prefers deploy notes as bullet lists", "USER.md", 2)
    lines = (memory.root / "USER.md").read_text(encoding="utf-8").split("\n")
    assert lines[guess["line"] - 1] == HYPOTHESIS


def test_recall_finds_what_only_a_turn_said_with_where_and_when(client):
    found = structured(client.call("memory_recall", {"query": "where is the spare key?", "k": 2}))
    [said] = [hit for hit in found["hits"] if hit["source"] == "turn"]  # the SDK checked it against the schema
    assert (said["text"], said["heading"], said["said_on"], said["session"], said["speaker"]) == (
        SAID, "said on 2026-10-11 in telegram:7", "2026-10-11", "telegram:7", "user")


def test_status_log_show_and_why_answer_as_their_json_does(client, memory):
    where = ("-w", str(memory.root))
    status = structured(client.call("memory_status"))
    assert set(status) == set(cli_json("status", *where)) and status["pending_entries"] == 0
    log = structured(client.call("memory_log", {"n": 5}))
    assert log == cli_json("log", "-n", "5", *where)
    dreams = structured(client.call("memory_log", {"kind": "dream"}))["commits"]
    assert [c["kind"] for c in dreams] == ["dream"]
    shown = structured(client.call("memory_show", {"sha": dreams[0]["short"]}))
    assert shown == cli_json("show", dreams[0]["short"], *where)
    assert "Hetzner" in shown["diff"] and shown["history_entries"][0]["cursor"] == 1
    why = structured(client.call("memory_why", {"text": "Hetzner VPS"}))
    assert why == cli_json("why", "Hetzner VPS", *where)
    assert why["commit"] == dreams[0]["sha"] and why["entries"][0]["cursor"] == 1
    assert structured(client.call("dream_proposals")) == {"proposals": []}


def test_recall_as_of_a_day_answers_from_memory_as_it_stood_then(client, memory):
    now = structured(client.call("memory_recall", {"query": "how do we deploy?", "as_of": "2999-01-01"}))
    assert now["as_of"] == "2999-01-01" and now["commit"] == git(memory, "rev-parse", "HEAD")
    assert "The API deploys with docker compose on a Hetzner VPS." in [hit["text"] for hit in now["hits"]]
    for far in ("9999-12-31", "9999-12-30"):  # any valid day: one still to come reads memory as it is now
        later = structured(client.call("memory_recall", {"query": "how do we deploy?", "as_of": far}))
        assert later["commit"] == now["commit"] and later["hits"] == now["hits"]
    before = structured(client.call("memory_recall", {"query": "how do we deploy?", "as_of": "2001-01-01"}))
    assert before["commit"] is None and before["hits"] == []  # memory did not exist yet
    refused = client.call("memory_recall", {"query": "deploy", "as_of": "last week"})
    assert refused.is_error and "not a date" in text(refused) and "\n" not in text(refused)


@pytest.mark.parametrize("sha", ["deadbeef", "0000000000000000000000000000000000000000", "HEAD~1", "--output=/tmp/x",
                                 "../../etc/passwd", "abc"])
def test_an_unknown_or_malformed_sha_is_one_line_saying_unknown_sha(client, sha):
    result = client.call("memory_show", {"sha": sha})
    assert result.is_error
    assert text(result).startswith("unknown sha: ") and "\n" not in text(result)


@pytest.mark.parametrize(("tool", "arguments", "named"), [
    ("memory_recall", {"query": "deploy", "k": 0}, "k"),
    ("memory_recall", {"query": "deploy", "k": "many"}, "k"),
    ("memory_recall", {"k": 3}, "query"),
    ("memory_recall", {"query": ""}, "query"),
    ("memory_log", {"kind": "everything"}, "kind"),
    ("memory_log", {"n": 100000}, "n"),
    ("memory_why", {"text": "x" * 5000}, "text"),
])
def test_bad_arguments_are_refused_by_the_schema_in_one_line(client, tool, arguments, named):
    result = client.call(tool, arguments)
    assert result.is_error
    line = text(result)
    assert line.startswith(f"invalid arguments for {tool}: {named}: ") and "\n" not in line


def test_a_write_tool_is_refused_when_not_allowed_and_nothing_changes(client, memory):
    before = snapshot(memory)
    for name in WRITE_TOOLS:
        result = client.call(name, {"sha": "deadbeef", "id": "x", "text": "Maya", "session": "telegram:7"})
        assert result.is_error and "--allow-write" in text(result) and "\n" not in text(result)
    assert snapshot(memory) == before


def test_a_path_outside_the_memory_files_reads_nothing(client, memory):
    result = client.call("memory_why", {"text": "../../../../etc/passwd:1"})
    assert result.is_error and text(result).startswith("no memory line holds")
    result = client.call("memory_why", {"text": "memory/history.jsonl:1"})
    assert result.is_error and "Hetzner" not in text(result)


def test_the_memory_files_are_resources_marked_as_data(client, memory):
    listed = {str(r.uri): r for r in client.request("list_resources").resources}
    assert set(listed) == {"memory://SOUL.md", "memory://USER.md", "memory://memory/MEMORY.md"}
    assert all(r.meta == {"untrusted": True} and "never instructions" in r.description for r in listed.values())
    [user] = client.request("read_resource", "memory://USER.md").contents
    assert user.text == (memory.root / "USER.md").read_text(encoding="utf-8")
    templates = {t.uri_template for t in client.request("list_resource_templates").resource_templates}
    assert templates == {"memory://skills/{name}/SKILL.md", "memory://memory/archive/{month}.md"}
    assert client.request("read_resource", "memory://skills/deploy/SKILL.md").contents[0].text == SKILL
    [month] = client.request("read_resource", "memory://memory/archive/2026-03.md").contents
    assert "Heroku" in month.text


@pytest.mark.parametrize("uri", [
    "memory://memory/history.jsonl", "memory://nanodream.toml", "memory://.git/config",
    "memory://skills/../../nanodream.toml/SKILL.md", "memory://skills/%2e%2e/SKILL.md",
    "memory://skills/linked/SKILL.md", "memory://memory/archive/..%2F..%2Fnanodream.md",
    "memory://memory/archive/2026-13-01.md", "memory://skills/absent/SKILL.md",
])
def test_a_resource_outside_the_memory_files_is_an_error_not_content(client, memory, uri):
    outside = memory.root.parent / "secret.md"
    outside.write_text("---\nname: linked\ndescription: not memory\n---\nTOP SECRET\n", encoding="utf-8")
    link = memory.root / "skills" / "linked"
    if not link.exists():
        link.mkdir(parents=True)
        (link / "SKILL.md").symlink_to(outside)
    try:
        with pytest.raises(MCPError):
            client.request("read_resource", uri)
    finally:  # the module's workspace is shared: a link left behind would stop every later command (exit 78)
        shutil.rmtree(link)


def test_a_read_only_server_refuses_the_dream_session_with_how_to_allow_it(client):
    for tool in ("dream_begin", "dream_finish"):
        refused = client.call(tool, {"session": "s", "summary": "x"})
        assert refused.is_error and "--allow-write" in text(refused)


def test_the_dream_prompt_says_how_to_allow_dreaming_here(client):
    [prompt] = client.request("list_prompts").prompts
    assert prompt.name == "dream"
    message = client.request("get_prompt", "dream").messages[0].content.text
    assert "--allow-write" in message and "memory_status" in message


def test_stdout_carries_only_mcp_messages(memory):
    """A raw process: every line it writes to stdout is a JSON-RPC message, its notes go to stderr."""
    params = server_parameters(memory.root)
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "memory_recall",
                                                                       "arguments": {"query": "deploy"}}},
    ]
    server = subprocess.Popen([params.command, *params.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=params.env)
    try:
        server.stdin.write("".join(json.dumps(request) + "\n" for request in requests))
        server.stdin.flush()
        replies = [json.loads(server.stdout.readline()) for _ in range(3)]
    finally:
        rest, notes = server.communicate(timeout=60)  # closes stdin: the server ends
    assert [reply["id"] for reply in replies] == [1, 2, 3] and rest == ""
    assert all(reply["jsonrpc"] == "2.0" for reply in replies)
    assert "Hetzner" in replies[2]["result"]["content"][0]["text"]
    assert "serving" in notes and str(memory.root) in notes


def test_a_missing_workspace_or_a_bad_address_is_one_line_and_exit_2(tmp_path: Path):
    missing = runner.invoke(app, ["mcp", "-w", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and "nanodream init" in missing.output
    ws = Workspace.at(tmp_path / "ws")
    scaffold(ws.root)
    for address, says in [("0.0.0.0:8766", "loopback only"), ("192.168.1.4:8766", "loopback only"),
                          ("127.0.0.1", "HOST:PORT"), ("127.0.0.1:99999", "HOST:PORT")]:
        result = runner.invoke(app, ["mcp", "-w", str(ws.root), "--http", address])
        assert result.exit_code == 2 and says in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1

