"""`hosts install` and `hosts list`: where each host keeps its MCP servers and commands, and what an install writes.

| host | MCP server | `/dream` command |
|---|---|---|
| claude-code | `PROJECT/.mcp.json` (`mcpServers.nanodream`) | `PROJECT/.claude/commands/dream.md` |
| codex | `$CODEX_HOME/config.toml` (`[mcp_servers.nanodream]`; default `~/.codex`) | `$CODEX_HOME/prompts/dream.md` |
| cursor | `PROJECT/.cursor/mcp.json` (`mcpServers.nanodream`) | — |

An install is planned whole before anything is written: a file it cannot parse stops it with nothing written.
A file reached through a link is read and written at its target, so the link stays. A command file that already
holds other text (the person's own `/dream`) is kept as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nanodream.atomic import atomic_write, read_bytes
from nanodream.boundedjson import MESSAGE_BYTES
from nanodream.hosts.command import command_file
from nanodream.hosts.configs import (
    Server,
    Unreadable,
    json_entry,
    merged_json,
    merged_toml,
    toml_entry,
    workspace_of,
)
from nanodream.vocab import Declared

HOSTS = ("claude-code", "codex", "cursor")
CREATED, UPDATED, UNCHANGED, KEPT = "created", "updated", "unchanged", "kept"


@dataclass(frozen=True)
class Places:
    """Where the hosts' files are: a project folder (Claude Code, Cursor) and Codex's home."""

    project: Path
    codex_home: Path

    def config(self, host: str) -> Path:
        return {"claude-code": self.project / ".mcp.json", "codex": self.codex_home / "config.toml",
                "cursor": self.project / ".cursor" / "mcp.json"}[host]

    def command(self, host: str) -> Path | None:
        return {"claude-code": self.project / ".claude" / "commands" / "dream.md",
                "codex": self.codex_home / "prompts" / "dream.md"}.get(host)


@dataclass(frozen=True)
class Planned(Declared):
    """One file of an install: `change` is created | updated | unchanged | kept (a command file holding other text,
    left alone), `text` what the file holds once the install is done."""

    path: str
    change: str
    text: str


@dataclass(frozen=True)
class HostState(Declared):
    """One host as `hosts list` sees it: its configuration file, whether it starts nanodream's server (`installed`)
    and for which workspace, whether that is this one, its `/dream` command file (null: the host has none here),
    and a `problem` reading the configuration ("" when none)."""

    host: str
    config: str
    installed: bool
    workspace: str | None
    this_workspace: bool
    command_file: str | None
    command: bool
    problem: str = ""


def plan(host: str, places: Places, server: Server) -> list[Planned]:
    """What installing nanodream into `host` writes; Unreadable (naming the file) when a file cannot be merged."""
    config = places.config(host)
    current = current_text(config)
    merge = merged_toml if config.suffix == ".toml" else merged_json
    try:
        merged = merge(current, server)
    except Unreadable as exc:
        raise Unreadable(f"{config}: {exc}") from None
    planned = [Planned(str(config), _change(current, merged), merged)]
    command = places.command(host)
    if command is not None:
        existing, wanted = current_text(command), command_file()
        kept = existing is not None and existing != wanted
        planned.append(Planned(str(command), KEPT if kept else _change(existing, wanted),
                               existing if kept and existing is not None else wanted))
    return planned


def _change(current: str | None, text: str) -> str:
    if current is None:
        return CREATED
    return UNCHANGED if current == text else UPDATED


def write(planned: list[Planned]) -> None:
    """Write the files an install changes (each atomically, at a link's target)."""
    for item in planned:
        if item.change in (CREATED, UPDATED):
            atomic_write(Path(item.path).resolve(), item.text)


CONFIG_BYTES = MESSAGE_BYTES  # a host's configuration file past this is not one nanodream edits


def current_text(path: Path) -> str | None:
    """The file's text (None: there is none yet), read at a link's target; Unreadable when it is not UTF-8 text."""
    target = path.resolve()
    if not target.exists():
        return None
    try:
        data = read_bytes(target, CONFIG_BYTES + 1)
    except IsADirectoryError:
        raise Unreadable(f"{path}: a folder, not a file") from None
    except OSError as exc:
        raise Unreadable(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > CONFIG_BYTES:
        raise Unreadable(f"{path}: larger than {CONFIG_BYTES // (1024 * 1024)} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unreadable(f"{path}: not UTF-8 text") from None


def state(host: str, places: Places, root: Path) -> HostState:
    """Whether `host` starts nanodream's server, for which workspace, and whether it has the `/dream` command."""
    config, command = places.config(host), places.command(host)
    shown = str(command) if command is not None else None
    has_command = command is not None and command.resolve().is_file()
    try:
        entry = _entry(config)
    except Unreadable as exc:
        return HostState(host, str(config), False, None, False, shown, has_command, str(exc))
    served = workspace_of(entry)
    return HostState(host, str(config), entry is not None, served, served == str(root), shown, has_command)


def _entry(config: Path) -> dict | None:
    text = current_text(config)
    if text is None:
        return None
    try:
        return (toml_entry if config.suffix == ".toml" else json_entry)(text)
    except Unreadable as exc:
        raise Unreadable(f"{config}: {exc}") from None
