"""stdio for the MCP server, where every request gets a result or a JSON-RPC error.

The SDK's own stdio transport hands a line it cannot validate to the session as an exception, which only logs
it: a request holding a lone surrogate (`"\\ud800"`), nested past the parser's depth, cut short, or not a
JSON-RPC message at all was never answered, and the host waited for its own timeout. Here each line is read
bounded in size, parsed by the bounded reader, its lone surrogates made U+FFFD, and checked as JSON-RPC
before the SDK sees it; a line that fails any of that is answered at once with a JSON-RPC error (-32700
parse error, -32600 invalid request), carrying the request's id whenever one can be read.

An `id` that is neither a string nor an integer (an object, an array, a boolean, 1.5, NaN, ±Infinity, null) makes
the line an invalid request too: the SDK's validator would read it as a notification, which is never answered,
and the host would wait for its timeout. MCP allows only strings and integers; the error carries a null id, as
JSON-RPC 2.0 says an answer must when the request's id cannot be used.

As in the SDK, stdout carries only MCP messages: while serving, fd 1 points at stderr (a library's stray
print cannot corrupt the wire) and fd 0 at the null device, and the wire is served from private duplicates.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, BinaryIO

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from pydantic import ValidationError

from nanodream.api import MESSAGE_BYTES, JSONRefused
from nanodream.api import bounded_loads as loads

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
_ID = re.compile(r'^\s*\{(?:[^{}\[\]]*?,\s*)?"id"\s*:\s*(?:(-?\d{1,18})\b|"([^"\\]{0,200})")')
_LONE = range(0xD800, 0xE000)


@asynccontextmanager
async def answering_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio streams over checked stdin and stdout (see the module's docstring)."""
    wire_in, wire_out = _claim()
    try:
        writer = _Writer(os.fdopen(wire_out, "wb", closefd=False))
        reader = _Reader(os.fdopen(wire_in, "rb", closefd=False), writer)
        async with stdio_server(stdin=reader, stdout=writer) as streams:
            yield streams
    finally:
        _release(wire_in, wire_out)


def _claim() -> tuple[int, int]:
    """Private duplicates of stdin and stdout; fd 0 reads the null device and fd 1 writes to stderr meanwhile."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out


def _release(wire_in: int, wire_out: int) -> None:
    os.dup2(wire_in, 0)
    os.dup2(wire_out, 1)
    os.close(wire_in)
    os.close(wire_out)


class _Writer:
    """stdout: one whole line per write, under a lock, so an error answered here never splits the SDK's line."""

    def __init__(self, wire: BinaryIO) -> None:
        self.wire = wire
        self.lock = anyio.Lock()

    async def write(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        async with self.lock:
            await anyio.to_thread.run_sync(self._put, data)

    def _put(self, data: bytes) -> None:
        self.wire.write(data)
        self.wire.flush()

    async def flush(self) -> None:
        return None  # every write flushed already

    async def error(self, request_id: Any, code: int, message: str) -> None:
        await self.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})
                         + "\n")


class _Reader:
    """stdin as the SDK iterates it: only lines that are valid JSON-RPC; the rest answered with an error."""

    def __init__(self, wire: BinaryIO, writer: _Writer) -> None:
        self.wire = wire
        self.writer = writer

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while raw := await anyio.to_thread.run_sync(self.wire.readline, MESSAGE_BYTES + 1):
            if len(raw) > MESSAGE_BYTES and not raw.endswith(b"\n"):
                await anyio.to_thread.run_sync(self._skip_rest)
                await self.writer.error(None, INVALID_REQUEST, f"request longer than {MESSAGE_BYTES} bytes; not read")
                continue
            if raw.strip():
                line = await self._checked(raw)
                if line is not None:
                    yield line

    def _skip_rest(self) -> None:
        while (chunk := self.wire.readline(65536)) and not chunk.endswith(b"\n"):
            continue

    async def _checked(self, raw: bytes) -> str | None:
        """The line as the SDK may read it, or None once it was answered with an error."""
        try:
            message = _repaired(loads(raw, max_bytes=MESSAGE_BYTES))
        except JSONRefused as exc:
            await self.writer.error(_id_in_text(raw), PARSE_ERROR, f"parse error: {exc}")
            return None
        if isinstance(message, dict) and "id" in message and _id_of(message) is None:
            await self.writer.error(None, INVALID_REQUEST, "invalid request: an id must be a string or an integer")
            return None
        try:
            types.jsonrpc_message_adapter.validate_python(message, by_name=False)
        except ValidationError:
            await self.writer.error(_id_of(message), INVALID_REQUEST, "invalid request: not a JSON-RPC 2.0 message")
            return None
        return json.dumps(message)


def _repaired(value: Any) -> Any:
    """Every string with its lone surrogates made U+FFFD (they cannot be encoded, so no answer could carry them)."""
    if isinstance(value, str):
        return "".join("\ufffd" if ord(char) in _LONE else char for char in value) if _has_lone(value) else value
    if isinstance(value, list):
        return [_repaired(item) for item in value]
    if isinstance(value, dict):
        return {_repaired(key): _repaired(item) for key, item in value.items()}
    return value


def _has_lone(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _id_in_text(raw: bytes) -> Any:
    """The id of a request that could not be parsed, when its text states one plainly (else None): a host waits
    for an answer to its id, and one it can match ends the wait."""
    found = _ID.search(raw[:4096].decode("utf-8", "replace"))
    if found is None:
        return None
    return int(found.group(1)) if found.group(1) is not None else found.group(2)


def _id_of(message: Any) -> Any:
    """The request's id when it has a usable one (a string or an integer), else None."""
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None
