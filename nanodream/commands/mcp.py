"""`nanodream mcp`: serve the workspace to agent hosts over the Model Context Protocol (needs the mcp extra)."""

from __future__ import annotations

import os
import secrets
from typing import Annotated

import typer

from nanodream.commands.common import WorkspaceOption, err_console, fail, resolve_settings, resolve_workspace
from nanodream.vocab import ExitCode

TOKEN_VARIABLE = "NANODREAM_MCP_TOKEN"


def mcp(
    workspace: WorkspaceOption = None,
    allow_write: Annotated[bool, typer.Option(
        "--allow-write", help="List the write tools too: the dream session whose model is the host "
                              "(dream_begin … dream_finish), dream_run, accept, reject, restore, pin, forget, "
                              "hypothesis_resolve (as the setting mcp_write = true).")] = False,
    http: Annotated[str | None, typer.Option(
        "--http", metavar="HOST:PORT", show_default=False,
        help="Serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8766) instead of stdio; every "
             f"request needs the bearer token printed at start (or ${TOKEN_VARIABLE}).")] = None,
) -> None:
    """Serve memory to agent hosts over MCP: recall, log, show, why and proposals; dream and undo when allowed.

    stdout carries only MCP messages; everything else goes to stderr.

    \b
    Examples:
      nanodream mcp -w ~/agent                  # stdio, read-only
      nanodream mcp -w ~/agent --allow-write    # also dream_run, …
      nanodream mcp --http 127.0.0.1:8766       # HTTP at /mcp
    """
    try:
        from nanodream.mcp.http import parse_address, serve_http
        from nanodream.mcp.server import build_server
    except ImportError as exc:
        fail(f"mcp needs the mcp extra: pip install 'nanodream[mcp]' ({exc})", ExitCode.USAGE)
    ws = resolve_workspace(workspace)
    writes = allow_write or resolve_settings(ws).mcp_write
    try:
        address = parse_address(http) if http is not None else None
    except ValueError as exc:
        fail(str(exc))
    server = build_server(ws, writes=writes)
    _warnings_only()
    tools = "read and write tools" if writes else "read-only tools"
    if address is None:
        err_console.print(f"nanodream mcp: serving {ws.root} over stdio ({tools})", markup=False, highlight=False)
        server.run()
        return
    token = os.environ.get(TOKEN_VARIABLE) or secrets.token_urlsafe(24)
    shown = f"${TOKEN_VARIABLE}" if os.environ.get(TOKEN_VARIABLE) else token
    host, port = address
    err_console.print(f"nanodream mcp: serving {ws.root} at http://{host}:{port}/mcp ({tools}); send "
                      f"Authorization: Bearer {shown} (Ctrl-C stops)", markup=False, highlight=False)
    serve_http(server, host, port, token)


def _warnings_only() -> None:
    """stderr gets warnings and errors: the SDK logs to it from the root logger, where libraries' debug lines
    (bm25s logs every index build) would otherwise land."""
    import logging

    for handler in logging.getLogger().handlers:
        handler.setLevel(logging.WARNING)


def register(app: typer.Typer) -> None:
    app.command()(mcp)
