"""Insights for people and hosts: the `insights` and `reflect` commands, `why` and recall showing what cites a
line, and the MCP tools over real stdio — each one call of nanodream.api, shaped as docs/json.md says."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from nanodream import api
from nanodream.cli import app
from nanodream.memory.transaction import ensure_repository
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.api.test_json import documented, section_keys
from tests.insights.test_insight_connect import DECISION, _hosted
from tests.mcp.test_mcp import structured
from tests.support.cli import runner
from tests.support.mcp_client import McpClient, mcp_server, text
from tests.support.workspaces import git, snapshot


def hosted(root: Path) -> Workspace:
    """The archived decision and a new session naming Hetzner, in a workspace at `root` (module-scoped)."""
    ws = Workspace.at(root)
    scaffold(ws.root)
    ensure_repository(GitStore(ws))
    return _hosted(ws)


@pytest.fixture(scope="module")
def dreamed(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    ws = hosted(tmp_path_factory.mktemp("insight-hosts") / "ws")
    assert runner.invoke(app, ["run", "-w", str(ws.root)]).exit_code == 0
    return ws


def cli(ws: Workspace, *args: str):
    return runner.invoke(app, [*args, "-w", str(ws.root)])


def test_insights_list_prints_an_array_and_show_the_record(dreamed):
    listed = json.loads(cli(dreamed, "insights", "list", "--json").stdout)
    assert isinstance(listed, list) and len(listed) == 1
    assert set(listed[0]) == documented("Keys of an insight:") >= {"name", "status", "sources"}
    assert set(listed[0]["sources"][0]) == documented("Keys of an insight's source:")
    name = listed[0]["name"]
    assert json.loads(cli(dreamed, "insights", "--json").stdout) == listed  # `insights` alone lists
    shown = json.loads(cli(dreamed, "insights", "show", name, "--json").stdout)
    assert shown == listed[0] and set(shown) == section_keys("insights show NAME --json")
    human = cli(dreamed, "insights", "show", name).stdout
    assert "What if:" in human and "Sources:" in human and DECISION in human
    assert json.loads(cli(dreamed, "insights", "list", "--status", "stale", "--json").stdout) == []


@pytest.mark.parametrize("args", [("insights", "show", "no-such"), ("insights", "reject", "no-such"),
                                  ("insights", "list", "--status", "maybe")])
def test_an_unknown_name_or_status_exits_2_with_one_line(dreamed, args):
    before = snapshot(dreamed)
    result = cli(dreamed, *args)
    assert result.exit_code == 2 and result.output.startswith("error: ")
    as_json = json.loads(cli(dreamed, *args, "--json").stdout)
    assert as_json["exit_code"] == 2 and ("no insight named" in as_json["error"] or "unknown status" in
                                           as_json["error"])
    assert snapshot(dreamed) == before


def test_reflect_prints_memory_health(dreamed):
    found = json.loads(cli(dreamed, "reflect", "--json").stdout)
    assert set(found) == section_keys("reflect --json")
    assert found["insights"] == [json.loads(cli(dreamed, "insights", "--json").stdout)[0]["name"]]
    assert "insight waiting for a decision" in cli(dreamed, "reflect").stdout


def test_why_and_recall_say_which_insights_cite_a_line(tmp_path):
    ws = hosted(tmp_path / "ws")
    assert cli(ws, "run").exit_code == 0
    [insight] = json.loads(cli(ws, "insights", "--json").stdout)
    answer = json.loads(cli(ws, "why", "Falkenstein", "--json").stdout)
    assert answer["file"] == "memory/archive/2026-03.md"
    assert [edge["insight"] for edge in answer["insights"]] == [insight["name"]]
    assert f"cited by insight {insight['name']}" in cli(ws, "why", "Falkenstein").stdout
    recalled = api.recall(ws, "Hetzner billing costs")
    assert [found.name for found in recalled.related_insights] == [insight["name"]]
    assert all(insight["summary"] not in hit.text for hit in recalled.hits)  # beside the hits, never among them
    assert "related insights (connections to look at, not memory" in cli(ws, "recall", "Hetzner billing").stdout


def test_a_decision_through_the_command_is_one_commit(tmp_path):
    ws = hosted(tmp_path / "ws")
    assert cli(ws, "run").exit_code == 0
    [insight] = json.loads(cli(ws, "insights", "--json").stdout)
    decided = json.loads(cli(ws, "insights", "promote", insight["name"], "--note", "keep it", "--json").stdout)
    assert set(decided) == section_keys("insights reinforce|stale|reject|promote NAME --json")
    assert decided["outcome"] == "promoted" and decided["history_cursor"] == 2
    assert git(ws, "log", "-1", "--format=%s") == f"insights: promote {insight['name']}"
    last = json.loads(ws.history_file.read_text().splitlines()[-1])
    assert last["session_key"] == f"insight:{insight['name']}" and last["content"].startswith("[durable] ")


# MCP ----------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return hosted(tmp_path_factory.mktemp("insight-mcp") / "ws")


@pytest.fixture(scope="module")
def client(served: Workspace) -> Iterator[McpClient]:
    with mcp_server(served.root, "--allow-write") as connected:
        yield connected


def test_a_host_runs_lists_reads_and_decides_insights_over_mcp(client, served):
    ran = structured(client.call("insights_run", {"phases": ["reflect", "connect"], "max_insights": 1}))
    assert ran["outcome"] == "committed" and ran["trigger"] == "mcp"
    [made] = ran["insights"]
    assert ran["back_edges"] and all(edge["insight"] == made["name"] for edges in ran["back_edges"].values()
                                     for edge in edges)
    listed = structured(client.call("insights_list", {}))
    assert [item["name"] for item in listed["insights"]] == [made["name"]]
    got = structured(client.call("insight_get", {"name": made["name"]}))
    assert got["sources"] == made["sources"]
    recalled = structured(client.call("memory_recall", {"query": "Hetzner bill"}))
    assert [item["name"] for item in recalled["related_insights"]] == [made["name"]]
    assert set(recalled["related_insights"][0]) == documented("Keys of a related insight:")
    unknown = client.call("insight_get", {"name": "no-such"})
    assert unknown.is_error and "no insight named 'no-such'" in text(unknown)
    rejected = structured(client.call("insight_resolve", {"name": made["name"], "decision": "reject",
                                                          "note": "not useful"}))
    assert rejected["outcome"] == "rejected" and rejected["commit"]
    assert structured(client.call("insights_list", {}))["insights"] == []
    assert [i["name"] for i in structured(client.call("insights_list", {"status": "rejected"}))["insights"]] == [
        made["name"]]
    wrong = client.call("insight_resolve", {"name": made["name"], "decision": "obey"})
    assert wrong.is_error


def test_insights_run_with_nothing_new_explores_and_refuses_a_bad_setting(client, served):
    explored = structured(client.call("insights_run", {"phases": ["connect"]}))
    assert explored["tidy"] is True and explored["outcome"] in ("no-change", "committed")
    bad = client.call("insights_run", {"max_insights": 0})
    assert bad.is_error  # the schema refuses it before nanodream sees it


def test_slash_dream_names_the_insights_apart_from_what_it_filed(tmp_path):
    ws = hosted(tmp_path / "ws")
    said = cli(ws, "slash", "/dream").stdout
    [insight] = json.loads(cli(ws, "insights", "--json").stdout)
    assert f"_Insights (not memory; `nanodream insights` to decide):_ `{insight['name']}` (proposed)" in said
    assert said.index("/dream-restore") < said.index("_Insights")
