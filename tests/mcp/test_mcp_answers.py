"""The MCP server answers every request — a result or a JSON-RPC error, never silence — reads a memory file only
without a link anywhere on its path (one swapped in after the check included), and docs/mcp.md installs and
lists exactly what the server serves."""

from __future__ import annotations

import json
import re
import select
import subprocess
import tomllib

import pytest

from nanodream import api
from nanodream.layout import read_memory_file
from nanodream.mcp.tools import TOOLS
from nanodream.memory.transaction import ensure_repository
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.support.mcp_client import server_parameters
from tests.support.paths import REPO

REPO = REPO
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}


@pytest.fixture(scope="module")
def memory(tmp_path_factory) -> Workspace:
    ws = Workspace.at(tmp_path_factory.mktemp("answers") / "ws")
    scaffold(ws.root)
    ensure_repository(GitStore(ws))
    return ws


def call_line(request_id: int, query: str) -> bytes:
    line = ('{"jsonrpc": "2.0", "id": ' + str(request_id) + ', "method": "tools/call", "params": {"name": '
            '"memory_recall", "arguments": {"query": "' + query + '"}}}\n')
    return line.encode("utf-8", "surrogatepass")


# Ids MCP does not allow (a string or an integer only): the SDK reads such a request as a notification and never
# answers it, so the line is answered as an invalid request, with a null id as JSON-RPC 2.0 says.
BAD_IDS = (b'{"n": 1}', b"[1, 2]", b"[]", b"true", b"false", b"1.5", b"-0.5", b"1e400", b"NaN", b"Infinity",
           b"-Infinity", b"null", b"1.0")
# (what is sent, the id of the answer, "result" or the JSON-RPC error code)
STRANGE = [
    (call_line(10, "\\ud800 deploy"), 10, "result"),  # a lone surrogate, escaped
    (call_line(11, "\udc00 and \ud83d"), 11, "result"),  # lone surrogates as raw bytes
    (b'{"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": "memory_recall", "arguments": '
     b'{"query": "x", "k": ' + b"[" * 1500 + b"]" * 1500 + b"}}}\n", 12, -32700),  # nested past the parser
    (b'{"jsonrpc": "2.0", "id": 13, "method": "tools/ca\n', 13, -32700),  # cut short
    (b'{"jsonrpc": "2.0", "id": 14, "method": "tools/list", "params": {"x": "\xff\xfe"}}\n', 14, -32700),
    (b'{"jsonrpc": "2.0", "id": 15, "nothing": "here"}\n', 15, -32600),  # JSON, but not JSON-RPC
    (b'["not", "an", "object"]\n', None, -32600),
    (b'{"jsonrpc": "2.0", "id": 16, "method": "tools/call", "params": {"name": "memory_recall", '
     b'"arguments": {"query": 5}}}\n', 16, "result"),  # refused by the schema: a tool error, still an answer
    (b'{"jsonrpc": "2.0", "id": 17, "method": "tools/call", "params": {"name": "memory_recall", '
     b'"arguments": {"query": "deploy", "k": NaN}}}\n', 17, "result"),  # NaN where a number goes: still answered
    *((b'{"jsonrpc": "2.0", "id": ' + bad + b', "method": "tools/list"}\n', None, -32600) for bad in BAD_IDS),
    *((b'{"id": ' + bad + b', "method": "tools/call", "jsonrpc": "2.0", "params": {"name": "memory_recall", '
       b'"arguments": {"query": "x"}}}\n', None, -32600) for bad in (b"1.5", b"NaN", b"[1]")),  # id first
    (b'{"jsonrpc": "2.0", "id": 2.5, "result": {}}\n', None, -32600),  # a response with a bad id
]


def _reply(server: subprocess.Popen, timeout: float = 60) -> dict:
    ready, _, _ = select.select([server.stdout], [], [], timeout)
    assert ready, "no answer"
    return json.loads(server.stdout.readline())


def test_every_request_gets_a_result_or_a_json_rpc_error(memory):
    params = server_parameters(memory.root)
    server = subprocess.Popen([params.command, *params.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=params.env)
    try:
        server.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        server.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        server.stdin.flush()
        assert _reply(server)["id"] == 1
        for line, expected_id, expected in STRANGE:
            server.stdin.write(line)
            server.stdin.flush()
            reply = _reply(server)
            assert reply["jsonrpc"] == "2.0" and reply["id"] == expected_id, (line[:60], reply)
            if expected == "result":
                assert "result" in reply, reply
            else:
                assert reply["error"]["code"] == expected, reply
        server.stdin.write(b'{"jsonrpc": "2.0", "id": 99, "method": "tools/list"}\n')
        server.stdin.flush()
        assert _reply(server)["id"] == 99  # and the server still serves
    finally:
        server.kill()
        server.communicate(timeout=60)


# resources never read through a link -----------------------------------------------------------------------


def _through_the_api(workspace: Workspace, path: str) -> str:
    """api.memory_file as the MCP resources call it: a link met is a report needing a person, not text."""
    found = api.memory_file(workspace, path)
    if found.text is None:
        assert found.exit_code == 78 and "link" in found.reason, found.reason
        raise OSError(found.reason)
    return found.text


@pytest.mark.parametrize("reader", [read_memory_file, _through_the_api])
@pytest.mark.parametrize("swapped", ["skills/deploy", "skills"])
def test_a_link_swapped_in_after_the_check_is_refused_at_the_open(memory, tmp_path, monkeypatch, swapped, reader):
    skill = memory.root / "skills" / "deploy"
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text("---\nname: deploy\ndescription: d\n---\nRun it.\n")
    outside = tmp_path / "outside"
    (outside / "deploy").mkdir(parents=True)
    (outside / "deploy" / "SKILL.md").write_text("another tenant's secret\n")
    checked = Workspace.check_memory_path
    link = memory.root / swapped

    def check_then_swap(self, path, **kwargs):
        result = checked(self, path, **kwargs)
        link.rename(link.with_name(link.name + ".moved"))
        link.symlink_to(outside / "deploy" if swapped.endswith("deploy") else outside)
        return result

    monkeypatch.setattr(Workspace, "check_memory_path", check_then_swap)
    try:
        with pytest.raises(OSError):
            reader(memory, "skills/deploy/SKILL.md")
    finally:
        monkeypatch.undo()
        link.unlink()
        link.with_name(link.name + ".moved").rename(link)
    assert "Run it." in reader(memory, "skills/deploy/SKILL.md")


# the docs keep step with the server ----------------------------------------------------------------------------


def _documented_tools() -> list[str]:
    page = (REPO / "docs" / "mcp.md").read_text(encoding="utf-8")
    table = page.split("## Tools", 1)[1].split("**Write tools are off", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", table, re.MULTILINE)


def test_the_tools_table_lists_exactly_what_the_server_serves():
    assert sorted(_documented_tools()) == sorted(tool.name for tool in TOOLS.listed(writes=True))
    page = (REPO / "docs" / "mcp.md").read_text(encoding="utf-8")
    read_only = [tool.name for tool in TOOLS.listed(writes=False)]
    header = page.split("| **write tools**", 1)[0]
    assert all(f"| `{name}` |" in header for name in read_only)  # the read tools come before the write tools
    assert "No tool resolves a hypothesis" not in page


def test_recall_works_as_docs_mcp_installs_it():
    """The install line's extras bring what memory_recall imports (bm25s and PyStemmer)."""
    page = (REPO / "docs" / "mcp.md").read_text(encoding="utf-8")
    extras = re.search(r"pip install 'nanodream\[([a-z,]+)\]'", page).group(1).split(",")
    optional = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    installed = " ".join(requirement for extra in extras for requirement in optional[extra])
    for needed in optional["recall"]:
        assert re.split(r"[<>=\[]", needed)[0] in installed
