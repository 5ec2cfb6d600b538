"""A missing provider key is a configuration error: exit 2 at once, naming the variable, on every run."""

from __future__ import annotations

import json
import time

import pytest

from nanodream.backlog.quarantine import load_quarantine
from nanodream.cli import app
from nanodream.evaluation.model_check import OLD_LINE
from nanodream.run.records import read_records
from tests.support.cli import runner
from tests.support.scripted_server import tool_calls
from tests.support.workspaces import entry, snapshot, write_history


@pytest.fixture
def backlog(workspace, monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MY_PROVIDER_KEY"):
        monkeypatch.delenv(name, raising=False)
    write_history(workspace, [entry(1, "[durable] The API uses OAuth2."), entry(2, "[permanent] Likes tea.")])
    return workspace


@pytest.mark.parametrize(("model", "variable"), [
    ("openai/gpt-4o-mini", "OPENAI_API_KEY"),
    ("gpt-4o-mini", "OPENAI_API_KEY"),
    ("anthropic/claude-3-5-haiku-latest", "ANTHROPIC_API_KEY"),
])
def test_a_missing_key_exits_2_at_once_naming_the_variable_on_every_run(backlog, model, variable):
    before = snapshot(backlog)
    for _ in range(3):  # not only the first run: nothing is counted against the batch
        started = time.monotonic()
        result = runner.invoke(app, ["run", "-w", str(backlog.root), "-m", model])
        assert result.exit_code == 2, result.output
        assert time.monotonic() - started < 10  # no retries with backoff
        [line] = [line for line in result.stderr.splitlines() if line.strip()]
        assert line.startswith("error: configuration:") and variable in line
        assert "quarantin" not in result.output and "fails on its own" not in result.output
    assert snapshot(backlog) == before and load_quarantine(backlog) == []
    assert [r.outcome for r in read_records(backlog)] == ["misconfigured"] * 3
    assert all(r.failed_at is None for r in read_records(backlog))


def test_json_carries_the_misconfigured_outcome_and_exit_code(backlog):
    result = runner.invoke(app, ["run", "-w", str(backlog.root), "-m", "openai/gpt-4o-mini", "--json"])
    data = json.loads(result.stdout)
    assert result.exit_code == 2 and data["outcome"] == "misconfigured" and data["exit_code"] == 2
    assert "OPENAI_API_KEY" in data["reason"] and data["batches"] == []


def test_api_key_env_naming_an_unset_variable_is_named(backlog):
    backlog.config_file.write_text('api_key_env = "MY_PROVIDER_KEY"\n')
    result = runner.invoke(app, ["run", "-w", str(backlog.root), "-m", "openai/gpt-4o-mini"])
    assert result.exit_code == 2 and "MY_PROVIDER_KEY is not set" in result.stderr


def test_the_slash_command_reports_it_as_a_configuration_problem_too(backlog):
    result = runner.invoke(app, ["slash", "/dream", "-w", str(backlog.root), "--json"],
                           env={"NANODREAM_MODEL": "openai/gpt-4o-mini"})
    data = json.loads(result.stdout)
    assert data["exit_code"] == 2 and data["markdown"].startswith("**Configuration problem:**")
    assert "OPENAI_API_KEY" in data["markdown"]


def test_a_local_server_needs_no_key(backlog, serve):
    # a model that files the check's three facts and replaces the line it corrects, in one answer: usable
    keeps_all = tool_calls(
        ("edit_file", {"path": "USER.md", "old_text": "## Preferences\n",
                       "new_text": "## Preferences\n- Prefers answers in British English.\n"}),
        ("edit_file", {"path": "memory/MEMORY.md", "old_text": OLD_LINE + "\n",
                       "new_text": "- Project kiwi deploys with Kubernetes on host atlas.\n"
                                   "- The nightly backup runs at 02:00 on host birch.\n"}))
    keeps_all["message"]["content"] = "Filed three facts"  # the summary beside the calls: one request
    server = serve([keeps_all])
    result = runner.invoke(app, ["model", "check", "-m", "openai/local", "--api-base", server.url])
    assert result.exit_code == 0 and "OPENAI_API_KEY" not in result.output
    assert server.authorizations == ["Bearer no-key"]
