"""The server over streamable HTTP, on loopback only, behind the page's Host/Origin defence and a bearer token.

A server that can dream and restore must not be drivable by a web page the person happens to open: every
request must name this server's own address as its Host (DNS rebinding), a browser's Origin must be this
server, and every request must carry the token printed at start (`Authorization: Bearer …`), so another
local user or process cannot call it either.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp.server import MCPServer
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from nanodream.serve.guard import LOCAL_HOSTS, Guard, same_secret

PATH = "/mcp"


def parse_address(text: str) -> tuple[str, int]:
    """(host, port) of `HOST:PORT`; ValueError saying what is accepted when it is not a loopback address."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"--http takes HOST:PORT, e.g. 127.0.0.1:8766; got {text!r}")
    if host not in LOCAL_HOSTS:
        raise ValueError(f"--http binds to loopback only ({' or '.join(LOCAL_HOSTS)}); got {host!r}")
    return host, int(port)


@dataclass
class Guarded:
    """The SDK's app, reached only by requests with this server's Host, no foreign Origin, and the token."""

    app: ASGIApp
    guard: Guard
    token: str

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused = self.refusal(Headers(scope=scope)) if scope["type"] == "http" else None
        if refused is not None:
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def refusal(self, headers: Headers) -> Response | None:
        if not self.guard.answers_to(headers.get("host", "")):
            return PlainTextResponse("unknown Host: this server answers only to its own address", 400)
        origin = headers.get("origin")
        if origin is not None and origin not in self.guard.origins:
            return PlainTextResponse("cross-site request refused", 403)
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not same_secret(self.token, given.strip()):
            return PlainTextResponse("a bearer token is needed (printed when the server started)", 401,
                                     headers={"WWW-Authenticate": "Bearer"})
        return None


def serve_http(server: MCPServer, host: str, port: int, token: str) -> None:
    """Serve until interrupted; uvicorn logs warnings to stderr only."""
    import uvicorn

    app = Guarded(server.streamable_http_app(streamable_http_path=PATH, host=host), Guard(host, port), token)
    uvicorn.run(app, host=host, port=port, log_level="warning")
