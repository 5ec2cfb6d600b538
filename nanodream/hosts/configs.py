"""A host's MCP configuration with nanodream's server in it: merged into the file's own text, never replacing it.

JSON (Claude Code's `.mcp.json`, Cursor's `.cursor/mcp.json`): `mcpServers.nanodream` gets `command` and `args`,
every other key of the file and of that entry stays, in its order; the file is rewritten only when the entry
changes. TOML (Codex's `config.toml`): the `[mcp_servers.nanodream]` table, edited through tomlkit, which keeps the
file's comments, order and layout. A text that is not what its format says raises Unreadable with the reason.
"""

from __future__ import annotations

import json
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nanodream.boundedjson import MESSAGE_BYTES, loads

SERVER = "nanodream"  # the server's name in every host's configuration


class Unreadable(ValueError):
    """A host's file that cannot be merged into (not its format, not text, unreadable): it is left alone."""


@dataclass(frozen=True)
class Server:
    """How a host starts nanodream's MCP server for one workspace, with the write tools (the dream session) on."""

    command: str
    args: tuple[str, ...]

    @classmethod
    def for_workspace(cls, root: Path) -> Server:
        """This interpreter, so the host starts the nanodream installed here whatever its own PATH holds."""
        return cls(sys.executable, ("-m", "nanodream", "mcp", "--allow-write", "-w", str(root)))

    def same_as(self, entry: Any) -> bool:
        return (isinstance(entry, dict) and entry.get("command") == self.command
                and list(entry.get("args") or ()) == list(self.args))


def merged_json(text: str | None, server: Server) -> str:
    """`text` (None: no file yet) with `mcpServers.nanodream` starting `server`; `text` itself when it already does."""
    data = _json_object(text) if text is not None and text.strip() else {}
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise Unreadable("its mcpServers is not an object")
    entry = servers.get(SERVER, {})
    if not isinstance(entry, dict):
        raise Unreadable(f"its mcpServers.{SERVER} is not an object")
    if text is not None and server.same_as(entry):
        return text
    servers[SERVER] = {**entry, "command": server.command, "args": list(server.args)}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _json_object(text: str) -> dict[str, Any]:
    try:
        data = loads(text, max_bytes=MESSAGE_BYTES)
    except ValueError as exc:  # the one JSON reader's refusal already says "not valid JSON (…)", or too deep
        raise Unreadable(str(exc)) from None
    if not isinstance(data, dict):
        raise Unreadable("not a JSON object")
    return data


def json_entry(text: str) -> dict[str, Any] | None:
    """The nanodream entry of a JSON configuration, or None."""
    servers = _json_object(text).get("mcpServers")
    entry = servers.get(SERVER) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


def merged_toml(text: str | None, server: Server) -> str:
    """`text` (None: no file yet) with a `[mcp_servers.nanodream]` table starting `server`, its comments and layout
    kept; `text` itself when it already does."""
    import tomlkit  # only `hosts` edits TOML

    entry = toml_entry(text or "")
    if text is not None and server.same_as(entry):
        return text
    document = tomlkit.parse(text or "")
    servers = document.get("mcp_servers")
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        document["mcp_servers"] = servers
    table = servers.get(SERVER)
    fresh = table is None
    if fresh:
        table = tomlkit.table()
    table["command"] = server.command
    table["args"] = list(server.args)
    if fresh:
        table.add(tomlkit.nl())  # a blank line after it, as between the file's other tables
        servers[SERVER] = table
    merged = tomlkit.dumps(document)
    return merged if (text or "").endswith("\n\n") else merged.rstrip("\n") + "\n"


def toml_entry(text: str) -> dict[str, Any] | None:
    """The nanodream table of a Codex configuration, or None; Unreadable when the text is not TOML, or its
    `mcp_servers` (or its entry) is not a table."""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise Unreadable(f"not valid TOML ({exc})") from None
    servers = data.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise Unreadable("its mcp_servers is not a table")
    entry = servers.get(SERVER)
    if entry is not None and not isinstance(entry, dict):
        raise Unreadable(f"its mcp_servers.{SERVER} is not a table")
    return entry


def workspace_of(entry: dict[str, Any] | None) -> str | None:
    """The workspace a nanodream entry serves: the argument after `-w` (or `--workspace`)."""
    args = entry.get("args") if entry else None
    if not isinstance(args, list):
        return None
    for flag, value in zip(args, args[1:], strict=False):
        if flag in ("-w", "--workspace") and isinstance(value, str):
            return value
    return None
