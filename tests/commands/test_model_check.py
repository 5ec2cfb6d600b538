"""`nanodream model check`: a tiny real dream on a scratch copy, judged by the run's own accounting."""

from __future__ import annotations

import json

import pytest

from nanodream.cli import app
from nanodream.evaluation.model_check import OLD_LINE
from tests.support.cli import runner
from tests.support.scripted_server import error, final, tool_calls
from tests.support.workspaces import snapshot

CORRECTED = "- Project kiwi deploys with Kubernetes on host atlas."
KEEPS_ALL = tool_calls(
    ("edit_file", {"path": "USER.md", "old_text": "## Preferences\n",
                   "new_text": "## Preferences\n- Prefers answers in British English.\n"}),
    ("edit_file", {"path": "memory/MEMORY.md", "old_text": OLD_LINE + "\n",
                   "new_text": CORRECTED + "\n- The nightly backup runs at 02:00 on host birch.\n"}))
BESIDE = tool_calls(
    ("edit_file", {"path": "USER.md", "old_text": "## Preferences\n",
                   "new_text": "## Preferences\n- Prefers answers in British English.\n"}),
    ("edit_file", {"path": "memory/MEMORY.md", "old_text": OLD_LINE + "\n",
                   "new_text": OLD_LINE + "\n" + CORRECTED + "\n- The nightly backup runs at 02:00 on host birch.\n"}))
STRUCTURED = json.dumps({"facts": [
    {"number": 1, "file": "USER.md", "line": "Prefers answers in British English", "replaces": "", "reason": ""},
    {"number": 2, "file": "memory/MEMORY.md", "line": "The nightly backup runs at 02:00 on host birch",
     "replaces": "", "reason": ""},
    {"number": 3, "file": "memory/MEMORY.md", "line": "Project kiwi deploys with Kubernetes on host atlas",
     "replaces": OLD_LINE[2:], "reason": ""}], "summary": "Filed three facts"})


def check(server, *args: str, env: dict | None = None):
    return runner.invoke(app, ["model", "check", "-m", "openai/local-model", "--api-base", server.url, *args],
                         env={"NANODREAM_RETRY_BACKOFF": "0", **(env or {})})


def test_a_model_that_keeps_both_facts_and_replaces_the_corrected_line_is_usable(serve, workspace):
    before = snapshot(workspace)
    server = serve([KEEPS_ALL, final("Filed three facts")])
    result = check(server, "-w", str(workspace.root), "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 0, data["problems"]
    assert data["usable"] is True and data["replaced"] is True and data["problems"] == []
    assert [(f["status"], f["file"]) for f in data["facts"]] == [
        ("kept", "USER.md"), ("kept", "memory/MEMORY.md"), ("kept", "memory/MEMORY.md")]
    assert data["native_tool_calls"] == 2 and data["requests"] == 2 and data["usage_reported"] is True
    assert "tools" in server.requests[0] and all("max_tokens" in body for body in server.requests)
    assert snapshot(workspace) == before  # the person's memory is never read or written


def test_a_correction_beside_the_old_line_is_not_usable_and_says_so(serve):
    server = serve([BESIDE, final("Filed three facts"), final("All filed."), *[final("All filed.")] * 2])
    result = check(server, "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 1 and data["usable"] is False and data["replaced"] is False
    problems = " ".join(data["problems"])
    assert "landed beside the line it corrects" in problems or "still there" in problems
    # the entry before the correction is kept; the correction's entry waits, its beside line taken back out
    assert "landed beside the line it corrects" in data["reason"] and "1 entry before it consumed" in data["reason"]


def test_a_model_that_answers_in_prose_is_not_usable_and_each_fact_says_why(serve):
    result = check(serve([final("### Summary\nUpdated USER.md and MEMORY.md.")] * 4))
    assert result.exit_code == 1
    out = " ".join(result.stdout.split())
    assert "usable no" in out and "unaccounted" in out and "do not schedule this model" in out
    assert "British English" in out and "corrected line replaced no" in out


def test_structured_mode_is_checked_when_asked_and_files_through_the_same_guards(serve):
    server = serve([final(STRUCTURED)])
    result = check(server, "--tool-mode", "structured", "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 0, data["problems"]
    assert data["tool_mode"] == "structured" and data["requests"] == 1
    [body] = server.requests
    assert "tools" not in body and body["response_format"]["type"] == "json_schema"


def test_auto_that_falls_back_to_structured_mode_is_usable_and_says_how(serve):
    server = serve([final("I will file them."), final("Done."), final(STRUCTURED)])
    data = json.loads(check(server, "--json").stdout)
    assert data["usable"] is True and data["structured_used"] is True
    assert 'tool_mode = "structured"' in data["advice"]


@pytest.mark.parametrize("how", ["env", "setting"])
def test_the_tool_mode_setting_and_variable_are_honoured(serve, workspace, how):
    server = serve([final("Nothing to do."), final("Nothing."), *[final("Nothing.")] * 2])
    env = {"NANODREAM_TOOL_MODE": "text"} if how == "env" else {}
    if how == "setting":
        workspace.config_file.write_text('tool_mode = "text"\n')
    data = json.loads(check(server, "-w", str(workspace.root), "--json", env=env).stdout)
    assert data["tool_mode"] == "text" and data["usable"] is False
    assert "tools" not in server.requests[0] and "<tool_call>" in server.requests[0]["messages"][0]["content"]


def test_a_server_that_keeps_failing_is_not_usable_and_names_the_error(serve):
    result = check(serve([error(500, "out of memory")] * 4), "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 1 and data["usable"] is False and "out of memory" in data["problems"][0]


def test_configuration_errors_exit_2(serve, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    missing = runner.invoke(app, ["model", "check", "-m", "openai/gpt-4o-mini"])
    assert missing.exit_code == 2 and "OPENAI_API_KEY" in missing.stderr
    assert runner.invoke(app, ["model", "check", "-m", "builtin"]).exit_code == 2
    bad = runner.invoke(app, ["model", "check", "-m", "openai/x", "--api-base", "http://127.0.0.1:9/v1"],
                        env={"NANODREAM_TOOL_MODE": "sometimes"})
    assert bad.exit_code == 2 and "tool_mode" in bad.stderr
    flag = runner.invoke(app, ["model", "check", "-m", "openai/x", "--api-base", "http://127.0.0.1:9/v1",
                               "--tool-mode", "sometimes"])
    assert flag.exit_code == 2 and "tool_mode" in flag.stderr


def test_a_model_that_files_a_fact_in_the_wrong_file_is_not_usable_and_the_table_says_where(serve):
    misfiled = tool_calls(
        ("edit_file", {"path": "USER.md", "old_text": "## Preferences\n",
                       "new_text": "## Preferences\n- Prefers answers in British English.\n"}),
        ("edit_file", {"path": "memory/MEMORY.md", "old_text": OLD_LINE + "\n", "new_text": CORRECTED + "\n"}),
        ("edit_file", {"path": "SOUL.md", "old_text": "# Soul\n",
                       "new_text": "# Soul\n\n- The nightly backup runs at 02:00 on host birch.\n"}))
    server = serve([misfiled, final("Filed three facts"), final("1: it is fine where it is")])
    data = json.loads(check(server, "--json").stdout)
    assert data["usable"] is False
    backup = next(f for f in data["facts"] if "backup" in f["fact"])
    assert (backup["status"], backup["file"]) == ("misfiled", "SOUL.md") and "belongs in memory/MEMORY.md" in \
        backup["note"]
