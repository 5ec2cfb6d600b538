"""`nanodream mcp --allow-write` over stdio: a host dreams, reviews and undoes with the CLI's guarantees.

One real server for the module, on a workspace with a history backlog; its twin is dreamed by `nanodream run`
so the two can be compared byte for byte. The tests run in order: the dream first, then what a host does
with it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from nanodream.cli import app
from nanodream.memory.lock import workspace_lock
from nanodream.memory.transaction import ensure_repository
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.mcp.test_mcp import READ_TOOLS, WRITE_TOOLS, structured
from tests.support.cli import runner
from tests.support.mcp_client import McpClient, Progress, mcp_server, text
from tests.support.workspaces import entry, git, snapshot, write_history

HISTORY = [
    entry(1, "[permanent] User's name is Maya Lindqvist."),
    entry(2, "[durable] The API is written in Go and deployed with docker compose."),
    entry(3, "[durable] Deploys go through the staging cluster before production."),
    entry(4, "[permanent] User prefers concise answers.", session_key="telegram:9"),
    entry(5, "[durable] Backups run nightly to an S3 bucket in eu-west-1."),
    entry(6, "[durable] The team decided to store invoices in PostgreSQL 15."),
]
# Small batches, so one dream is several batches (and several progress notifications).
CONFIG = "batch_tokens = 40\n"



def new_workspace(root: Path, config: str = CONFIG) -> Workspace:
    ws = Workspace.at(root)
    scaffold(ws.root)
    (ws.root / "nanodream.toml").write_text(config, encoding="utf-8")
    ensure_repository(GitStore(ws))
    write_history(ws, HISTORY)
    return ws


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, Workspace]:
    """Two identical workspaces: one for the MCP server, one for `nanodream run`."""
    base = tmp_path_factory.mktemp("mcp-write")
    served = new_workspace(base / "served")
    twin = Workspace.at(base / "twin")
    shutil.copytree(served.root, twin.root, symlinks=True)
    return served, twin


@pytest.fixture(scope="module")
def client(twins: tuple[Workspace, Workspace]) -> Iterator[McpClient]:
    with mcp_server(twins[0].root, "--allow-write") as connected:
        yield connected


def memory_files(ws: Workspace) -> dict[str, bytes]:
    return {path: (ws.root / path).read_bytes() for path in ws.memory_paths()}


def commits(ws: Workspace) -> list[str]:
    """Subject and changed files of each commit, newest first: what a dream leaves in git, minus times and ids."""
    return git(ws, "log", "--format=%x00%s", "--name-status").split("\x00")[1:]


def test_write_tools_are_listed_with_allow_write(client):
    tools = client.tools()
    assert list(tools) == READ_TOOLS + WRITE_TOOLS
    assert not any(tools[name].annotations.read_only_hint for name in WRITE_TOOLS)
    assert tools["dream_restore"].annotations.destructive_hint and tools["memory_forget"].annotations.destructive_hint
    assert tools["dream_run"].input_schema["properties"]["max_batches"]["anyOf"][0]["minimum"] == 1


def test_a_dream_through_mcp_commits_exactly_like_run(client, twins):
    served, twin = twins
    by_cli = runner.invoke(app, ["run", "-w", str(twin.root), "--json"])
    assert by_cli.exit_code == 0, by_cli.output
    progress = Progress()
    report = structured(client.call("dream_run", {}, progress))
    expected = json.loads(by_cli.stdout)
    assert report["outcome"] == expected["outcome"] == "committed" and report["trigger"] == "mcp"
    assert len(report["batches"]) == len(expected["batches"]) >= 2
    assert [b["changes"] for b in report["batches"]] == [b["changes"] for b in expected["batches"]]
    assert memory_files(served) == memory_files(twin)
    assert commits(served) == commits(twin)
    assert served.cursor_file.read_text() == twin.cursor_file.read_text() == "6\n"
    done = [seen for seen in progress.seen if seen[0] == int(seen[0])]  # whole steps: a batch finished
    assert [int(step) for step, _, _ in done] == list(range(1, len(report["batches"]) + 1))
    assert [step for step, _, _ in progress.seen] == sorted({step for step, _, _ in progress.seen})  # always rises
    assert all(message.startswith("batch ") for _, _, message in progress.seen)


def test_a_held_lock_is_a_busy_error_and_nothing_changes(client, twins):
    served = twins[0]
    before = snapshot(served)
    with workspace_lock(served):
        for name, arguments in [("dream_run", {}), ("memory_pin", {"text": "Maya"}),
                                ("dream_restore", {"sha": git(served, "rev-parse", "HEAD")})]:
            result = client.call(name, arguments)
            assert result.is_error and text(result).startswith("busy, retry later: "), text(result)
            assert "\n" not in text(result)
    assert snapshot(served) == before


def test_a_merge_in_progress_is_an_error_with_the_way_out(client, twins):
    served = twins[0]
    marker = served.root / ".git" / "MERGE_HEAD"
    marker.write_text(git(served, "rev-parse", "HEAD") + "\n")
    try:
        before = snapshot(served)
        for name, arguments in [("dream_run", {}), ("memory_forget", {"session": "telegram:9"})]:
            result = client.call(name, arguments)
            assert result.is_error and text(result).startswith("needs a person: a merge is in progress")
            assert "git merge --abort" in text(result) and "\n" not in text(result)
        assert snapshot(served) == before
    finally:
        marker.unlink()


def test_restore_undoes_a_dream_as_a_new_commit(client, twins):
    served = twins[0]
    dreams = structured(client.call("memory_log", {"kind": "dream"}))["commits"]
    newest = dreams[0]
    undone = structured(client.call("dream_restore", {"sha": newest["short"]}))
    assert undone["outcome"] == "restored" and undone["target"] == newest["sha"] and undone["commit"]
    assert git(served, "rev-parse", "HEAD") == undone["commit"]
    assert git(served, "show", f"{newest['sha']}^:memory/MEMORY.md") == (
        served.root / "memory/MEMORY.md").read_text(encoding="utf-8").rstrip("\n")
    unknown = client.call("dream_restore", {"sha": "0123abcd"})
    assert unknown.is_error and text(unknown).startswith("unknown sha: ")
    first = git(served, "rev-list", "--max-parents=0", "HEAD")
    refused = client.call("dream_restore", {"sha": first})
    assert refused.is_error and "nothing before it" in text(refused) and "unknown sha" not in text(refused)


def test_a_review_dream_waits_until_the_host_accepts_it(client, twins):
    served = twins[0]
    with served.history_file.open("a", encoding="utf-8") as f:
        f.write(json.dumps(entry(7, "[durable] The staging cluster runs Kubernetes 1.31.")) + "\n")
    head = git(served, "rev-parse", "HEAD")
    proposed = structured(client.call("dream_run", {"review": True}))
    assert proposed["batches"][0]["proposal"] and proposed["commits"] == []
    assert git(served, "rev-parse", "HEAD") == head  # nothing landed yet
    [waiting] = structured(client.call("dream_proposals"))["proposals"]
    assert "Kubernetes 1.31" in waiting["diff"] and waiting["state"] == "pending"
    unknown = client.call("dream_reject", {"id": "nope", "reason": "not mine"})
    assert unknown.is_error and text(unknown).startswith("unknown id: ")
    accepted = structured(client.call("dream_accept", {"id": waiting["id"]}))
    assert accepted["outcome"] == "accepted" and accepted["ids"] == [waiting["id"]] and accepted["pending"] == []
    assert "Kubernetes 1.31" in (served.root / "memory/MEMORY.md").read_text(encoding="utf-8")


def test_pin_and_forget_commit_as_the_cli_does(client, twins):
    served = twins[0]
    pinned = structured(client.call("memory_pin", {"text": "Kubernetes 1.31"}))
    assert pinned["outcome"] == "pinned" and pinned["commit"] and "<!-- keep -->" in pinned["text"]
    outside = client.call("memory_pin", {"text": "Kubernetes", "path": "../nanodream.toml"})
    assert outside.is_error and "not a plain workspace path" in text(outside)
    forgotten = structured(client.call("memory_forget", {"session": "telegram:9"}))
    assert forgotten["outcome"] == "forgotten" and forgotten["entries"] == [4]
    assert "concise answers" not in (served.root / "USER.md").read_text(encoding="utf-8")
    nobody = client.call("memory_forget", {"session": "nobody"})
    assert nobody.is_error and "no history entry belongs to session 'nobody'" in text(nobody)


def test_the_dream_prompt_asks_the_host_to_dream_through_the_session_tools(client):
    message = client.request("get_prompt", "dream").messages[0].content.text
    assert "`dream_begin`" in message and "`dream_finish`" in message and "--allow-write" not in message


def test_the_mcp_write_setting_allows_writes_without_the_flag(tmp_path):
    allowed = new_workspace(tmp_path / "allowed", "mcp_write = true\n")
    with mcp_server(allowed.root) as connected:
        assert connected.tool_names() == READ_TOOLS + WRITE_TOOLS


def test_a_host_resolves_a_hypothesis_as_the_cli_does(client, twins):
    served = twins[0]
    user = served.root / "USER.md"
    user.write_text(user.read_text(encoding="utf-8") + "- Prefers short replies <!-- hypothesis: 1 of 3, mild -->\n",
                    encoding="utf-8")
    number = user.read_text(encoding="utf-8").splitlines().index(
        "- Prefers short replies <!-- hypothesis: 1 of 3, mild -->") + 1
    promoted = structured(client.call("hypothesis_resolve", {"line": f"USER.md:{number}", "decision": "promote"}))
    assert promoted["outcome"] == "promoted" and promoted["commit"]
    assert "- Prefers short replies\n" in user.read_text(encoding="utf-8")  # a plain line now, no marker
    assert git(served, "log", "-1", "--format=%s").startswith("hypothesis")
    unknown = client.call("hypothesis_resolve", {"line": "USER.md:999", "decision": "reject"})
    assert unknown.is_error and text(unknown).startswith("unknown line:")
    wrong = client.call("hypothesis_resolve", {"line": f"USER.md:{number}", "decision": "obey"})
    assert wrong.is_error and "decision" in text(wrong)
