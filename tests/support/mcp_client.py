"""A real `nanodream mcp` process driven by the SDK's own client (`ClientSession` over `stdio_client`).

The session lives in an event loop on a thread (anyio's blocking portal), so one server can serve a whole test
module through plain calls: `client.call("memory_recall", {"query": "deploy"})`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, ExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, Implementation


@dataclass
class Progress:
    """The progress notifications one call received, in order: (progress, total, message)."""

    seen: list[tuple[float, float | None, str | None]] = field(default_factory=list)

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((progress, total, message))


@dataclass
class McpClient:
    portal: BlockingPortal
    session: ClientSession

    def call(self, name: str, arguments: dict[str, Any] | None = None, progress: Progress | None = None,
             ) -> CallToolResult:
        return self.portal.call(lambda: self.session.call_tool(name, arguments or {}, progress_callback=progress))

    def tool_names(self) -> list[str]:
        return [tool.name for tool in self.portal.call(self.session.list_tools).tools]

    def tools(self) -> dict[str, Any]:
        return {tool.name: tool for tool in self.portal.call(self.session.list_tools).tools}

    def request(self, method: str, *args: Any) -> Any:
        """Any other session method: `request("read_resource", "memory://USER.md")`."""
        return self.portal.call(getattr(self.session, method), *args)


def server_parameters(workspace: Path, *flags: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    """`python -m nanodream mcp -w WORKSPACE FLAGS…` with this test run's environment (and `env` over it)."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(("NANODREAM_", "GIT_"))}
    return StdioServerParameters(command=sys.executable, args=["-m", "nanodream", "mcp", "-w", str(workspace), *flags],
                                 env={**inherited, **(env or {})})


@contextmanager
def mcp_server(workspace: Path, *flags: str, env: dict[str, str] | None = None,
               client: str | None = None) -> Iterator[McpClient]:
    """A started, initialised server for `workspace` over stdio; stopped on exit. `client` is the name the client
    gives in its `clientInfo` (the SDK's own by default)."""
    with connected(stdio_client(server_parameters(workspace, *flags, env=env)), client) as session:
        yield session


@asynccontextmanager
async def http_streams(url: str, token: str) -> AsyncIterator[Any]:
    """The SDK's streamable HTTP transport, sending `Authorization: Bearer TOKEN` with every request."""
    async with (httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
                streamable_http_client(url, http_client=http) as streams):
        yield streams


@contextmanager
def connected(streams: AbstractAsyncContextManager[Any], client: str | None = None) -> Iterator[McpClient]:
    """An initialised session over `streams`, in an event loop of its own."""
    info = Implementation(name=client, version="1.0") if client else None
    with ExitStack() as stack:
        portal = stack.enter_context(start_blocking_portal())
        read, write = stack.enter_context(portal.wrap_async_context_manager(streams))
        session = stack.enter_context(portal.wrap_async_context_manager(ClientSession(read, write,
                                                                                     client_info=info)))
        portal.call(session.initialize)
        yield McpClient(portal, session)


def text(result: CallToolResult) -> str:
    """The first text block: the JSON of a result, or the one line of an error."""
    return result.content[0].text
