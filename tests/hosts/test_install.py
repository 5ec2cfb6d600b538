"""`hosts install` merges nanodream into each host's own files: other servers, keys, comments and layout kept; a
second install changes nothing; a dry run writes nothing; a file it cannot parse is left alone, nothing written."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

from nanodream import api
from nanodream.hosts.command import DREAM_COMMAND
from nanodream.vocab import ExitCode, Outcome
from nanodream.workspace import Workspace, scaffold

CODEX_CONFIG = """\
# my Codex settings
model = "o3"  # the fast one

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-server"]

[profiles.work]
approval_policy = "on-request"
"""
CLAUDE_CONFIG = {"mcpServers": {"github": {"command": "gh-mcp", "env": {"TOKEN_VAR": "GH"}}}, "other": [1, 2]}


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    workspace = Workspace.at(tmp_path / "agent")
    scaffold(workspace.root)
    return workspace


def files_under(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*"))
            if path.is_file()}


def expected_args(ws: Workspace) -> list[str]:
    return ["-m", "nanodream", "mcp", "--allow-write", "-w", str(ws.root)]


def test_claude_code_gets_its_server_merged_into_mcp_json_and_the_dream_command(ws, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / ".mcp.json").write_text(json.dumps(CLAUDE_CONFIG), encoding="utf-8")
    report = api.hosts_install(ws, "claude-code", project=project)
    assert report.outcome == Outcome.CREATED and report.exit_code == ExitCode.OK
    assert [(Path(item.path).name, item.change) for item in report.files] == [(".mcp.json", "updated"),
                                                                               ("dream.md", "created")]
    config = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    assert config["mcpServers"]["github"] == CLAUDE_CONFIG["mcpServers"]["github"] and config["other"] == [1, 2]
    assert config["mcpServers"]["nanodream"] == {"command": sys.executable, "args": expected_args(ws)}
    command = (project / ".claude" / "commands" / "dream.md").read_text(encoding="utf-8")
    assert command.startswith("---\ndescription: ") and DREAM_COMMAND in command and "`dream_begin`" in command


def test_a_second_install_changes_nothing(ws, tmp_path):
    codex = tmp_path / "codex"
    for host in ("claude-code", "codex", "cursor"):
        api.hosts_install(ws, host, project=tmp_path, codex_home=codex)
    before = files_under(tmp_path)
    for host in ("claude-code", "codex", "cursor"):
        again = api.hosts_install(ws, host, project=tmp_path, codex_home=codex)
        assert again.outcome == Outcome.NOTHING_TO_DO and {item.change for item in again.files} == {"unchanged"}
    assert files_under(tmp_path) == before


def test_codex_keeps_its_comments_and_tables_and_gains_one_table(ws, tmp_path):
    codex = tmp_path / "codex"
    codex.mkdir()
    (codex / "config.toml").write_text(CODEX_CONFIG, encoding="utf-8")
    api.hosts_install(ws, "codex", codex_home=codex)
    text = (codex / "config.toml").read_text(encoding="utf-8")
    table = f'[mcp_servers.nanodream]\ncommand = "{sys.executable}"\nargs = {json.dumps(expected_args(ws))}\n\n'
    assert table in text
    assert text.replace(table, "", 1) == CODEX_CONFIG  # every byte of the person's file is still there
    data = tomllib.loads(text)
    assert data["mcp_servers"]["docs"] == {"command": "npx", "args": ["-y", "docs-server"]}
    assert data["mcp_servers"]["nanodream"] == {"command": sys.executable, "args": expected_args(ws)}
    assert data["profiles"]["work"]["approval_policy"] == "on-request"
    assert (codex / "prompts" / "dream.md").read_text(encoding="utf-8").endswith(DREAM_COMMAND)


def test_codex_home_comes_from_the_environment_and_a_new_config_is_plain_toml(ws, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "home"))
    api.hosts_install(ws, "codex")
    data = tomllib.loads((tmp_path / "home" / "config.toml").read_text(encoding="utf-8"))
    assert data == {"mcp_servers": {"nanodream": {"command": sys.executable, "args": expected_args(ws)}}}


def test_an_entry_for_another_workspace_is_repointed_and_keeps_its_own_keys(ws, tmp_path):
    codex = tmp_path / "codex"
    codex.mkdir()
    (codex / "config.toml").write_text('[mcp_servers.nanodream]\ncommand = "nanodream"\nargs = ["mcp"]\n'
                                       "tool_timeout_sec = 600  # dreams take minutes\n", encoding="utf-8")
    report = api.hosts_install(ws, "codex", codex_home=codex)
    assert report.files[0].change == "updated"
    text = (codex / "config.toml").read_text(encoding="utf-8")
    assert "# dreams take minutes" in text
    assert tomllib.loads(text)["mcp_servers"]["nanodream"] == {"command": sys.executable, "args": expected_args(ws),
                                                               "tool_timeout_sec": 600}


def test_cursor_gets_its_project_mcp_json(ws, tmp_path):
    report = api.hosts_install(ws, "cursor", project=tmp_path)
    assert [item.change for item in report.files] == ["created"]
    config = json.loads((tmp_path / ".cursor" / "mcp.json").read_text(encoding="utf-8"))
    assert config == {"mcpServers": {"nanodream": {"command": sys.executable, "args": expected_args(ws)}}}


def test_a_dry_run_writes_nothing_and_shows_what_it_would(ws, tmp_path):
    (tmp_path / ".mcp.json").write_text(json.dumps(CLAUDE_CONFIG), encoding="utf-8")
    before = files_under(tmp_path)
    report = api.hosts_install(ws, "claude-code", project=tmp_path, dry_run=True)
    assert report.outcome == Outcome.DRY_RUN and report.dry_run
    assert files_under(tmp_path) == before
    assert '"nanodream"' in report.files[0].text and '"github"' in report.files[0].text


@pytest.mark.parametrize(("host", "name", "text", "said"), [
    ("claude-code", ".mcp.json", '{"mcpServers": {', "not valid JSON"),
    ("claude-code", ".mcp.json", '["a list"]', "not a JSON object"),
    ("cursor", ".cursor/mcp.json", '{"mcpServers": ["x"]}', "mcpServers is not an object"),
    ("codex", "codex/config.toml", "[mcp_servers\nx = 1\n", "not valid TOML"),
    ("codex", "codex/config.toml", 'mcp_servers = "none"\n', "mcp_servers is not a table"),
    ("codex", "codex/config.toml", "mcp_servers.nanodream = 3\n", "mcp_servers.nanodream is not a table"),
])
def test_a_file_that_does_not_parse_is_left_alone_and_nothing_is_written(ws, tmp_path, host, name, text, said):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    before = files_under(tmp_path)
    report = api.hosts_install(ws, host, project=tmp_path, codex_home=tmp_path / "codex")
    assert report.exit_code == ExitCode.USAGE and report.outcome == Outcome.REFUSED
    assert said in report.reason and str(path) in report.reason and "\n" not in report.reason
    assert files_under(tmp_path) == before  # the command file was not written either


def test_a_dream_command_of_the_persons_own_is_kept(ws, tmp_path):
    mine = tmp_path / ".claude" / "commands" / "dream.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("my own dream command\n", encoding="utf-8")
    report = api.hosts_install(ws, "claude-code", project=tmp_path)
    assert report.files[1].change == "kept" and mine.read_text(encoding="utf-8") == "my own dream command\n"
    assert (tmp_path / ".mcp.json").is_file()


def test_a_linked_config_is_written_at_its_target_and_stays_a_link(ws, tmp_path):
    dotfiles = tmp_path / "dotfiles" / "codex.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_text(CODEX_CONFIG, encoding="utf-8")
    codex = tmp_path / "codex"
    codex.mkdir()
    (codex / "config.toml").symlink_to(dotfiles)
    api.hosts_install(ws, "codex", codex_home=codex)
    assert (codex / "config.toml").is_symlink()
    assert "nanodream" in tomllib.loads(dotfiles.read_text(encoding="utf-8"))["mcp_servers"]


def test_an_unknown_host_a_missing_project_or_a_missing_workspace_is_refused(ws, tmp_path):
    assert api.hosts_install(ws, "vim", project=tmp_path).exit_code == ExitCode.USAGE
    assert api.hosts_install(ws, "cursor", project=tmp_path / "nope").exit_code == ExitCode.USAGE
    assert api.hosts_install(tmp_path / "nowhere", "cursor", project=tmp_path).exit_code == ExitCode.USAGE
    assert list(tmp_path.glob(".*")) == []


def test_hosts_list_says_which_host_serves_which_workspace(ws, tmp_path):
    codex = tmp_path / "codex"
    api.hosts_install(ws, "claude-code", project=tmp_path)
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "mcp.json").write_text("{oops", encoding="utf-8")
    states = {state.host: state for state in api.hosts_list(ws, project=tmp_path, codex_home=codex).hosts}
    claude, codex_state, cursor = states["claude-code"], states["codex"], states["cursor"]
    assert claude.installed and claude.this_workspace and claude.workspace == str(ws.root) and claude.command
    assert not codex_state.installed and codex_state.command_file and not codex_state.command
    assert not cursor.installed and "not valid JSON" in cursor.problem and cursor.command_file is None
