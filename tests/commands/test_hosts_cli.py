"""`nanodream hosts install|list` on the command line: what it says, what it writes, and its exit codes."""

from __future__ import annotations

import json

from nanodream.workspace import Workspace, scaffold
from tests.support.cli import cli


def test_install_writes_says_where_and_a_second_run_changes_nothing(tmp_path):
    ws = Workspace.at(tmp_path / "agent")
    scaffold(ws.root)
    first = cli("hosts", "install", "claude-code", "--project", str(tmp_path), ws=ws)
    assert first.exit_code == 0, first.output
    assert f"created  {tmp_path / '.mcp.json'}" in first.output and "/dream" in first.output
    second = cli("hosts", "install", "claude-code", "--project", str(tmp_path), ws=ws)
    assert second.exit_code == 0 and "unchanged" in second.output and "already installed" in second.output
    listed = cli("hosts", "list", "--project", str(tmp_path), ws=ws, env={"CODEX_HOME": str(tmp_path / "cx")})
    assert "claude-code  serves this workspace · /dream installed" in listed.output


def test_a_dry_run_prints_the_files_and_writes_none(tmp_path):
    ws = Workspace.at(tmp_path / "agent")
    scaffold(ws.root)
    result = cli("hosts", "install", "codex", "--dry-run", ws=ws, env={"CODEX_HOME": str(tmp_path / "cx")})
    assert result.exit_code == 0 and "would create" in result.output and "[mcp_servers.nanodream]" in result.output
    assert not (tmp_path / "cx").exists()


def test_a_config_that_does_not_parse_is_one_line_and_exit_2(tmp_path):
    ws = Workspace.at(tmp_path / "agent")
    scaffold(ws.root)
    (tmp_path / ".mcp.json").write_text("{not json", encoding="utf-8")
    result = cli("hosts", "install", "claude-code", "--project", str(tmp_path), ws=ws)
    assert result.exit_code == 2 and result.output.startswith("error: ")
    assert "not valid JSON" in result.output and "left alone" in result.output
    assert (tmp_path / ".mcp.json").read_text(encoding="utf-8") == "{not json"
    as_json = json.loads(cli("hosts", "install", "claude-code", "--project", str(tmp_path), "--json", ws=ws).stdout)
    assert as_json["exit_code"] == 2 and "not valid JSON" in as_json["error"]


def test_a_folder_that_is_no_workspace_is_refused(tmp_path):
    result = cli("hosts", "install", "cursor", "-w", str(tmp_path / "nowhere"), "--project", str(tmp_path))
    assert result.exit_code == 2 and not (tmp_path / ".cursor").exists()
