"""Scaffolding, nanobot compatibility, configuration precedence and git isolation."""

from __future__ import annotations

import subprocess

import pytest

from nanodream.backlog.history import read_cursor
from nanodream.config import ConfigError, load_settings
from nanodream.memory.transaction import ensure_repository
from nanodream.run.dream import run_dream
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.support.scripted_server import call, final
from tests.support.workspaces import entry, git, llm_settings, write_history


def test_scaffold_never_overwrites_and_versions_only_memory_files(tmp_path):
    ws = Workspace.at(tmp_path / "ws")
    ws.root.mkdir()
    (ws.root / "USER.md").write_text("# Mine\n")
    created = scaffold(ws.root)
    assert "USER.md" not in created and (ws.root / "USER.md").read_text() == "# Mine\n"
    ensure_repository(GitStore(ws))
    (ws.root / "memory" / ".dream_cursor").write_text("3\n")
    (ws.root / ".nanodream").mkdir()
    (ws.root / "notes.txt").write_text("x")
    assert git(ws, "ls-files").splitlines() == [".gitignore", "SOUL.md", "USER.md", "memory/MEMORY.md"]
    assert git(ws, "status", "--porcelain") == ""  # history, cursor, state and strays are ignored


def test_nanobot_workspace_runs_without_migration(tmp_path, serve):
    """No nanodream.toml, no .git, a cursor file and session_key lines, exactly as nanobot leaves them."""
    root = tmp_path / "nanobot"
    (root / "memory").mkdir(parents=True)
    (root / "SOUL.md").write_text("# Soul\n\nI am nanobot.\n")
    (root / "USER.md").write_text("# User\n\n## Preferences\n")
    (root / "memory" / "MEMORY.md").write_text("# Memory\n")
    (root / "memory" / ".dream_cursor").write_text("2")
    ws = Workspace.at(root)
    write_history(ws, [entry(1, "old", "telegram:1"), entry(2, "old", "telegram:1"),
                       entry(3, "[permanent] User prefers metric units.", "telegram:1")])
    server = serve([call("edit_file", path="USER.md", old_text="## Preferences\n",
                         new_text="## Preferences\n- Prefers metric units.\n"), final("Noted metric units")])
    report = run_dream(ws, llm_settings(server))
    assert report.outcome == "committed"
    assert [b.first_cursor for b in report.batches] == [3]
    assert read_cursor(ws.cursor_file) == 3 and ws.cursor_file.read_text().strip() == "3"
    sent = server.requests[0]["messages"][1]["content"]
    assert "[#3 " in sent and "[#1 " not in sent
    assert not (root / "nanodream.toml").exists()


def test_git_environment_of_a_calling_repository_does_not_leak(workspace, serve, tmp_path, monkeypatch):
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    write_history(workspace, [entry(1, "[permanent] User likes tea.")])
    server = serve([call("edit_file", path="USER.md", old_text="## Preferences\n",
                         new_text="## Preferences\n- Likes tea.\n"), final("Noted that the user likes tea")])
    assert run_dream(workspace, llm_settings(server)).outcome == "committed"
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_WORK_TREE")
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert git(workspace, "log", "-1", "--format=%s") == "dream: Noted that the user likes tea"
    assert subprocess.run(["git", "-C", str(other), "rev-parse", "-q", "--verify", "HEAD"],
                          capture_output=True).returncode != 0  # nothing was committed over there


def test_settings_precedence_toml_then_environment_then_flags(workspace):
    workspace.config_file.write_text('model = "openai/from-toml"\nbatch_tokens = 1000\ntimeout = 9\n')
    env = {"NANODREAM_MODEL": "openai/from-env", "NANODREAM_BATCH_TOKENS": "2000"}
    settings = load_settings(workspace, {"model": "openai/from-flag"}, environ=env)
    assert (settings.model, settings.batch_tokens, settings.timeout) == ("openai/from-flag", 2000, 9.0)
    assert load_settings(workspace, environ={}).model == "openai/from-toml"


@pytest.mark.parametrize("toml,message", [
    ("modle = 'x'\n", "unknown key modle"),
    ("batch_tokens = 'many'\n", "batch_tokens must be a whole number"),
    ("batch_tokens = 0\n", "batch_tokens must be a whole number greater than 0"),
    ("model = [\n", "not valid TOML"),
    ("timeout = nan\n", "timeout must be a number, got nan"),
    ("max_cost = -1\n", "max_cost must be a number from 0 to 1000000000, got -1.0"),
    ("timezone = 'Mars/Olympus'\n", "timezone: unknown time zone 'Mars/Olympus'; use an IANA name like UTC"),
    ("api_key = 'sk-123'\n", "api_key is not allowed here"),
    ("api_key_env = 'not a name'\n", "api_key_env must be the name of an environment variable"),
    ("mcp_write = 'sometimes'\n", "mcp_write must be bool, got 'sometimes'"),
    ("mcp_write = 1\n", "mcp_write must be bool, got 1"),
])
def test_bad_configuration_is_a_clear_error(workspace, toml, message):
    workspace.config_file.write_text(toml)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_settings(workspace, environ={})


def test_bad_environment_value_names_the_variable(workspace):
    with pytest.raises(ConfigError, match="NANODREAM_TIMEOUT"):
        load_settings(workspace, environ={"NANODREAM_TIMEOUT": "soon"})


def test_a_yes_or_no_setting_reads_toml_booleans_and_the_usual_words_in_the_environment(workspace):
    assert load_settings(workspace, environ={}).mcp_write is False
    workspace.config_file.write_text("mcp_write = true\n")
    assert load_settings(workspace, environ={}).mcp_write is True
    for word, meaning in [("false", False), ("0", False), ("No", False), ("off", False), ("yes", True), ("1", True)]:
        assert load_settings(workspace, environ={"NANODREAM_MCP_WRITE": word}).mcp_write is meaning
    with pytest.raises(ConfigError, match="NANODREAM_MCP_WRITE: mcp_write must be bool, got 'perhaps'"):
        load_settings(workspace, environ={"NANODREAM_MCP_WRITE": "perhaps"})


def test_the_provider_key_comes_from_the_variable_api_key_env_names(workspace, monkeypatch):
    workspace.config_file.write_text('model = "openai/x"\napi_key_env = "MY_PROVIDER_KEY"\n')
    monkeypatch.setenv("MY_PROVIDER_KEY", "sk-from-the-environment")
    settings = load_settings(workspace, environ={})
    assert settings.api_key is None and settings.provider_key() == "sk-from-the-environment"
    from_env = load_settings(workspace, environ={"NANODREAM_API_KEY": "sk-direct"})
    assert from_env.provider_key() == "sk-direct"  # NANODREAM_API_KEY keeps working and wins
