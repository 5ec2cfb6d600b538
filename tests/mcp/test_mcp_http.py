"""`nanodream mcp --http`: streamable HTTP on loopback, reachable only with this server's Host and the token.

A real server process per transport setting; the SDK's own client over HTTP, and raw requests for what a
hostile page or another local process would send.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from nanodream.memory.transaction import ensure_repository
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.mcp.test_mcp import READ_TOOLS
from tests.support.mcp_client import connected, http_streams, server_parameters, text

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}


@dataclass
class HttpServer:
    port: int
    token: str
    notes: str  # what it printed at start (on stderr)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def post(self, headers: dict[str, str]) -> tuple[int, str]:
        """A raw initialize request with exactly these headers (Host included)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
        for name, value in {"Content-Type": "application/json",
                            "Accept": "application/json, text/event-stream", **headers}.items():
            connection.putheader(name, value)
        body = json.dumps(INITIALIZE).encode()
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, response.read().decode()


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def workspace_root(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    ws = Workspace.at(tmp_path_factory.mktemp("mcp-http") / "ws")
    scaffold(ws.root)
    ensure_repository(GitStore(ws))
    with (ws.root / "memory/MEMORY.md").open("a", encoding="utf-8") as f:
        f.write("- Caddy terminates TLS in front of the API.\n")
    return ws


@contextmanager
def started(ws: Workspace, env: dict[str, str] | None = None) -> Iterator[HttpServer]:
    port = free_port()
    params = server_parameters(ws.root, "--http", f"127.0.0.1:{port}", env=env)
    process = subprocess.Popen([params.command, *params.args], env=params.env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        notes = process.stderr.readline()
        token = re.search(r"Bearer (\S+)", notes).group(1)  # "$NANODREAM_MCP_TOKEN" when it came from there
        deadline = time.monotonic() + 30
        while not listening(port):
            assert time.monotonic() < deadline and process.poll() is None, notes
            time.sleep(0.05)
        yield HttpServer(port, token, notes)
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def server(workspace_root) -> Iterator[HttpServer]:
    with started(workspace_root) as running:
        yield running


def test_the_sdk_client_with_the_printed_token_recalls(server):
    assert "read-only tools" in server.notes and len(server.token) >= 24
    with connected(http_streams(server.url, server.token)) as client:
        assert client.tool_names() == READ_TOOLS
        found = json.loads(text(client.call("memory_recall", {"query": "who terminates TLS?"})))
        assert found["hits"][0]["text"] == "Caddy terminates TLS in front of the API." and found["untrusted"]


@pytest.mark.parametrize("authorization", [None, "Bearer wrong-token", "Basic dXNlcjpwYXNz", "Bearer"])
def test_a_request_without_the_token_is_refused(server, authorization):
    headers = {"Host": f"127.0.0.1:{server.port}"}
    if authorization is not None:
        headers["Authorization"] = authorization
    status, body = server.post(headers)
    assert status == 401 and "token" in body


@pytest.mark.parametrize("host", ["evil.example:80", "attacker.test", "127.0.0.1:1", ""])
def test_a_foreign_host_is_refused_even_with_the_token(server, host):
    """DNS rebinding: a page whose name resolves to 127.0.0.1 still sends its own name as Host."""
    status, body = server.post({"Host": host, "Authorization": f"Bearer {server.token}"})
    assert status == 400 and "Host" in body


def test_a_foreign_origin_is_refused_even_with_the_token(server):
    headers = {"Host": f"127.0.0.1:{server.port}", "Authorization": f"Bearer {server.token}"}
    status, _ = server.post({**headers, "Origin": "https://evil.example"})
    assert status == 403
    status, _ = server.post({**headers, "Origin": f"http://localhost:{server.port}"})
    assert status == 200


def test_a_token_from_the_environment_is_used_and_not_printed(workspace_root):
    with started(workspace_root, {"NANODREAM_MCP_TOKEN": "a-long-fixed-token-from-the-host-config"}) as fixed:
        assert "a-long-fixed-token" not in fixed.notes and "$NANODREAM_MCP_TOKEN" in fixed.notes
        status, _ = fixed.post({"Host": f"localhost:{fixed.port}",
                                "Authorization": "Bearer a-long-fixed-token-from-the-host-config"})
        assert status == 200
