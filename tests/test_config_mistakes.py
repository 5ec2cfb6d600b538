"""A configuration mistake is exit 2, said at once in one line, on every path: `ingest -m`, `[[ingest]]` during
`run`, `run` itself and MCP `dream_run` — a missing key names its variable; a model litellm cannot route is
never sent, retried, split or quarantined; an unknown key suggests the nearest known one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nanodream.backlog.quarantine import load_quarantine
from nanodream.cli import app
from nanodream.config import ConfigError, build_settings, ingest_sources, read_settings_file
from nanodream.fleet.config import load_fleet_config
from nanodream.workspace import Workspace
from tests.support.cli import runner
from tests.support.mcp_client import mcp_server
from tests.support.workspaces import entry, git, snapshot, write_history

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "NANODREAM_API_KEY")


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch):
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"role": "user", "content": "I live in Lyon.", "timestamp": "2026-10-01T10:00:00Z"})
                    + "\n")
    return path


def commit_config(ws: Workspace) -> None:
    """The person's configuration, committed as theirs (a run would do that first, before anything else)."""
    git(ws, "add", "nanodream.toml")
    git(ws, "-c", "user.name=p", "-c", "user.email=p@p", "commit", "-qm", "config", "--no-verify")


def one_line_error(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    assert "Traceback" not in output and "internal error" not in output
    return lines[0]


@pytest.mark.parametrize("model, named", [("openai/gpt-4o-mini", "OPENAI_API_KEY"),
                                          ("anthropic/claude-3-5-haiku-latest", "ANTHROPIC_API_KEY")])
def test_ingest_with_a_model_whose_key_is_missing_is_exit_2_naming_it(workspace, tmp_path, model, named):
    before = snapshot(workspace)
    done = runner.invoke(app, ["ingest", str(transcript(tmp_path)), "-m", model, "-w", str(workspace.root)])
    assert done.exit_code == 2, done.output
    assert named in one_line_error(done.output)
    assert snapshot(workspace) == before


def test_a_run_whose_ingest_sources_need_a_missing_key_is_exit_2(workspace, tmp_path):
    (workspace.root / "nanodream.toml").write_text(
        f'model = "openai/gpt-4o-mini"\n\n[[ingest]]\npath = "{transcript(tmp_path)}"\n')
    commit_config(workspace)
    before = snapshot(workspace)
    done = runner.invoke(app, ["run", "--json", "-w", str(workspace.root)])
    assert done.exit_code == 2, done.output
    report = json.loads(done.output)
    assert report["exit_code"] == 2 and "OPENAI_API_KEY" in report["reason"]
    assert snapshot(workspace) == before


@pytest.mark.parametrize("command", [["ingest", "TRANSCRIPT"], ["run"], ["run", "--json"]])
def test_a_model_litellm_cannot_route_is_exit_2_with_no_request_retry_or_split(workspace, tmp_path, serve, command):
    server = serve([])
    (workspace.root / "nanodream.toml").write_text(f'api_base = "{server.url}"\n')  # where it would be sent
    write_history(workspace, [entry(n, f"[durable] Fact number {n} about the project.") for n in range(1, 9)])
    args = [str(transcript(tmp_path)) if part == "TRANSCRIPT" else part for part in command]
    for _ in range(3):  # again and again: never split into failing batches, never quarantined
        done = runner.invoke(app, [*args, "-m", "gtp-4o-mini", "-w", str(workspace.root)])
        assert done.exit_code == 2, done.output
        said = done.output if "--json" not in command else json.loads(done.output)["reason"]
        assert "LLM Provider NOT provided" in said and "did you mean openai/gpt-4o-mini?" in said
    assert server.requests == []
    assert load_quarantine(workspace) == []
    assert "Fact number" not in (workspace.root / "memory" / "MEMORY.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("model, said", [("openai/gpt-4o-mini", "OPENAI_API_KEY"),
                                         ("gtp-4o-mini", "LLM Provider NOT provided")])
def test_mcp_dream_run_with_a_configuration_mistake_is_a_tool_error_carrying_exit_code_2(workspace, model, said):
    (workspace.root / "nanodream.toml").write_text(f'model = "{model}"\n')
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    with mcp_server(workspace.root, "--allow-write") as client:
        result = client.call("dream_run", {})
    assert result.is_error
    assert result.structured_content["exit_code"] == 2
    assert said in result.content[0].text
    assert load_quarantine(workspace) == []


def test_a_run_whose_ingest_sources_name_a_model_litellm_cannot_route_is_exit_2(workspace, tmp_path, serve):
    server = serve([])
    (workspace.root / "nanodream.toml").write_text(
        f'model = "gtp-4o-mini"\napi_base = "{server.url}"\n\n[[ingest]]\npath = "{transcript(tmp_path)}"\n')
    commit_config(workspace)
    before = snapshot(workspace)
    done = runner.invoke(app, ["run", "-w", str(workspace.root)])
    assert done.exit_code == 2, done.output
    assert "LLM Provider NOT provided" in one_line_error(done.output)
    assert server.requests == [] and snapshot(workspace) == before


# unknown keys --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, said", [
    ("modle = 'x'\n", "unknown key modle (did you mean model?)"),
    ("max_batchs = 3\n", "unknown key max_batchs (did you mean max_batches?)"),
    ("secret_polcy = 'redact'\n", "(did you mean secret_policy?)"),
])
def test_an_unknown_setting_suggests_the_nearest_known_one(tmp_path, text, said):
    path = tmp_path / "nanodream.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        read_settings_file(path)
    assert said in str(caught.value) and "known:" not in str(caught.value)


def test_the_mcp_table_holds_the_host_session_timeout_and_nothing_else(tmp_path):
    path = tmp_path / "nanodream.toml"
    path.write_text("[mcp]\nhost_session_timeout = 30\n")
    assert read_settings_file(path) == {"host_session_timeout": 30.0}
    for text, said in (("[mcp]\nhost_sesion_timeout = 30\n", "nanodream.toml [mcp]: unknown key host_sesion_timeout "
                                                             "(did you mean host_session_timeout?)"),
                       ("mcp = 3\n", "mcp must be a table ([mcp])"),
                       ("[mcp]\nhost_session_timeout = 0\n", "host_session_timeout must be")):
        path.write_text(text)
        with pytest.raises(ConfigError) as caught:
            build_settings(read_settings_file(path))
        assert said in str(caught.value)


def test_a_name_near_nothing_lists_what_is_known(tmp_path):
    path = tmp_path / "nanodream.toml"
    path.write_text("zzzz = 1\n")
    with pytest.raises(ConfigError, match="unknown key zzzz; known: model, "):
        read_settings_file(path)


def test_unknown_keys_of_a_source_and_of_the_fleet_suggest_too(tmp_path):
    ws = Workspace(tmp_path)
    (tmp_path / "nanodream.toml").write_text('[[ingest]]\npath = "x"\nformt = "codex"\n')
    with pytest.raises(ConfigError, match=r"unknown key formt \(did you mean format\?\)"):
        ingest_sources(ws)
    fleet = tmp_path / "fleet.toml"
    fleet.write_text("[fleet]\nlock_tll = 60\n")
    with pytest.raises(ConfigError, match=r"lock_tll \(did you mean lock_ttl\?\)"):
        load_fleet_config(fleet)
    fleet.write_text("[setings]\nmodel = 'builtin'\n")
    with pytest.raises(ConfigError, match=r"setings \(did you mean settings\?\)"):
        load_fleet_config(fleet)


def test_a_configuration_nested_too_deeply_is_a_configuration_error(tmp_path, workspace):
    (workspace.root / "nanodream.toml").write_text("x = " + "[" * 3000 + "]" * 3000 + "\n")
    done = runner.invoke(app, ["run", "-w", str(workspace.root)])
    assert done.exit_code == 2 and "nested too deeply" in done.output, done.output
