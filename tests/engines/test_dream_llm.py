"""End-to-end dreams over real HTTP: litellm → scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from nanodream.backlog.history import read_cursor
from nanodream.config import Settings
from nanodream.memory.lock import workspace_lock
from nanodream.run.context import RunOptions
from nanodream.run.dream import run_dream
from nanodream.vocab import ExitCode
from tests.support.paths import REPO
from tests.support.scripted_server import call, error, final, keeps_nothing, slow
from tests.support.workspaces import entry, git, llm_settings, snapshot, write_history

SKILL = "---\nname: release\ndescription: Cut a release of ledgerline\n---\n\n1. Run `make test`\n2. Tag it\n"


def three_entries(ws):
    write_history(ws, [
        entry(1, "[permanent] User prefers concise answers.\n[skip] User said thanks."),
        entry(2, "[durable] Procedure release: run make test, then tag."),
        entry(3, "[skip] Small talk about the weather."),
    ])


def test_facts_land_in_files_and_commit_carries_summary_diff_and_trailers(workspace, serve):
    three_entries(workspace)
    server = serve([
        call("read_file", path="USER.md"),
        call("edit_file", path="USER.md", old_text="## Preferences\n",
             new_text="## Preferences\n\n- Prefers concise answers.\n"),
        call("write_file", path="skills/release/SKILL.md", content=SKILL),
        final("Filed a preference and a release skill\n- USER.md: concise answers\n- skills/release: new"),
    ])  # the skill holds the procedure's steps: every fact is kept, no question follows
    report = run_dream(workspace, llm_settings(server))

    assert report.outcome == "committed", report.reason
    assert "- Prefers concise answers." in (workspace.root / "USER.md").read_text()
    assert (workspace.root / "skills/release/SKILL.md").read_text() == SKILL
    assert read_cursor(workspace.cursor_file) == 3
    message = git(workspace, "log", "-1", "--format=%B")
    assert message.startswith("dream: Filed a preference and a release skill\n")
    assert "- USER.md: modified (+2 -0)" in message
    assert "- skills/release/SKILL.md: added (+7 -0)" in message
    for trailer in ("Dream-Kind: dream", f"Dream-Run: {report.run_id}", "Dream-Model: openai/scripted-model",
                    "Dream-Cursor: 1..3", "Dream-Tokens: in=400 out=80", "Dream-Cost: unknown"):
        assert trailer in message
    assert git(workspace, "log", "-1", "--format=%an") == "nanodream"

    first = server.requests[0]
    assert first["messages"][0]["role"] == "system"
    user = first["messages"][1]["content"]
    assert "untrusted data" in user and "User prefers concise answers." in user
    assert "said thanks" not in user and "weather" not in user  # [skip] lines never reach the model
    assert {tool["function"]["name"] for tool in first["tools"]} == {
        "read_file", "list_skills", "edit_file", "write_file", "delete_skill", "archive_lines", "list_archive",
        "finish"}


def test_rate_limit_is_retried_then_succeeds(workspace, serve):
    three_entries(workspace)
    server = serve([error(429, "slow down"), *[keeps_nothing()] * 2])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "no-change"
    assert len(server.requests) == 3  # the 429, the batch, the accounting's question
    assert read_cursor(workspace.cursor_file) == 3


def test_persistent_server_error_leaves_workspace_byte_identical(workspace, serve):
    three_entries(workspace)
    before = snapshot(workspace)
    server = serve([error(500)] * 5)
    report = run_dream(workspace, llm_settings(server, max_retries=2))
    assert report.outcome == "failed" and report.exit_code == ExitCode.FAILED
    assert "after 3 attempts" in report.reason
    assert len(server.requests) == 3
    assert snapshot(workspace) == before
    assert read_cursor(workspace.cursor_file) == 0


def test_slow_response_past_timeout_fails_cleanly(workspace, serve):
    three_entries(workspace)
    before = snapshot(workspace)
    server = serve([slow(3, final("too late"))])
    report = run_dream(workspace, llm_settings(server, timeout=0.5, max_retries=0))
    assert report.outcome == "failed"
    assert "Timeout" in report.reason
    assert snapshot(workspace) == before


def test_edit_applied_mid_session_is_discarded_when_the_session_fails(workspace, serve):
    three_entries(workspace)
    before = snapshot(workspace)
    server = serve([call("write_file", path="USER.md", content="# User\n\n- wiped\n"), error(500), error(500)])
    report = run_dream(workspace, llm_settings(server, max_retries=1))
    assert report.outcome == "failed"
    assert snapshot(workspace) == before


def test_a_secret_line_is_left_out_and_named_by_file_and_rule(workspace, serve):
    three_entries(workspace)
    before = snapshot(workspace)
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    server = serve([call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
                         new_text=f"## Project\n\n- deploy key {key}\n"), final("added deploy key"),
                    keeps_nothing()])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "no-change", report.reason  # nothing else was written, not even its blank line
    assert report.batches[0].warnings == ["memory/MEMORY.md: left out line 7: AWS Access Key; secrets never go "
                                          "into memory"]
    assert key not in json.dumps(report.to_json())
    after = snapshot(workspace)
    assert {k: v for k, v in after.items() if k != "memory/.dream_cursor"} == {
        k: v for k, v in before.items() if k != "memory/.dream_cursor"}


def test_tool_call_cap_ends_a_looping_session(workspace, serve):
    three_entries(workspace)
    before = snapshot(workspace)
    server = serve([lambda body: call("list_skills")] * 50)
    report = run_dream(workspace, llm_settings(server, max_tool_calls=5, tool_mode="native"))
    assert report.outcome == "model-no-op" and "tool-call cap of 5" in report.reason  # the model, not an entry
    assert len(server.requests) == 6
    assert snapshot(workspace) == before


def test_session_token_budget_stops_the_session(workspace, serve):
    three_entries(workspace)
    server = serve([call("list_skills"), call("list_skills"), final("done")])
    report = run_dream(workspace, llm_settings(server, max_session_tokens=150, tool_mode="native"))
    assert report.outcome == "model-no-op" and "token budget" in report.reason
    assert report.tokens_in == 200  # the spend is still reported


def test_a_failed_sessions_cost_counts_toward_the_run(workspace, serve):
    three_entries(workspace)
    server = serve([call("list_skills"), call("list_skills"), final("done")])
    report = run_dream(workspace, llm_settings(server, model="openai/gpt-4o-mini", max_session_tokens=150))
    assert report.outcome == "model-no-op" and report.cost is not None and report.cost > 0


def test_no_change_batch_advances_cursor_without_commit(workspace, serve):
    three_entries(workspace)
    head = git(workspace, "rev-parse", "HEAD")
    server = serve([final("Nothing new to keep"), final("1: the user said it once, in passing\n2: a one-off")])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "no-change"
    assert git(workspace, "rev-parse", "HEAD") == head
    assert read_cursor(workspace.cursor_file) == 3
    assert [r["reason"] for r in report.batches[0].reasons] == ["the user said it once, in passing", "a one-off"]


def test_empty_backlog_exits_at_once_without_calling_the_model(workspace, serve):
    server = serve([final("should never be asked")])
    head = git(workspace, "rev-parse", "HEAD")
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "nothing-to-do" and report.exit_code == 0
    assert server.requests == []
    assert git(workspace, "rev-parse", "HEAD") == head


def test_batch_of_only_skip_lines_never_reaches_the_model(workspace, serve):
    write_history(workspace, [entry(1, "[skip] hello"), entry(2, "[skip] bye")])
    server = serve([])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "no-change"
    assert server.requests == []
    assert read_cursor(workspace.cursor_file) == 2


def test_manual_edits_are_committed_first_and_not_credited_to_the_dream(workspace, serve):
    three_entries(workspace)
    user_md = workspace.root / "USER.md"
    user_md.write_text(user_md.read_text() + "- Hand-written: likes tea.\n")
    server = serve([call("edit_file", path="SOUL.md", old_text="## Rules\n", new_text="## Rules\n\n- Be brief.\n"),
                    final("Added a rule"), keeps_nothing()])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed" and report.manual_commit
    manual = git(workspace, "log", "-1", "--format=%B", "HEAD~1")
    assert manual.startswith("manual: hand edits to USER.md") and "Dream-Kind: manual" in manual
    assert git(workspace, "show", "--name-only", "--format=", "HEAD~1") == "USER.md"
    assert git(workspace, "show", "--name-only", "--format=", "HEAD") == "SOUL.md"
    # the model saw the hand edit as current memory
    assert "likes tea" in server.requests[0]["messages"][1]["content"]


def test_concurrent_run_gets_busy_and_touches_nothing(workspace, serve):
    three_entries(workspace)
    before = snapshot(workspace)
    server = serve([final("never")])
    with workspace_lock(workspace):
        report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "busy" and report.exit_code == ExitCode.BUSY
    assert server.requests == []
    assert snapshot(workspace) == before


def test_cursor_behind_last_commit_is_fast_forwarded_not_reconsumed(workspace, serve):
    three_entries(workspace)
    server = serve([call("edit_file", path="SOUL.md", old_text="## Rules\n", new_text="## Rules\n\n- Be brief.\n"),
                    final("Added a rule"), keeps_nothing()])
    assert run_dream(workspace, llm_settings(server)).outcome == "committed"
    workspace.cursor_file.write_text("0\n")  # a crash lost the cursor write
    report = run_dream(workspace, llm_settings(server))
    assert "fast-forwarded to 3" in report.recovered
    assert report.outcome == "nothing-to-do"
    assert read_cursor(workspace.cursor_file) == 3


@pytest.mark.parametrize("budget,expected_batches", [(40, 3), (10_000, 1)])
def test_batches_are_cut_by_token_budget(workspace, serve, budget, expected_batches):
    write_history(workspace, [entry(i, f"[durable] Fact number {i} about the project " + "x" * 80)
                              for i in range(1, 4)])
    server = serve([keeps_nothing()] * 6)
    report = run_dream(workspace, llm_settings(server, batch_tokens=budget))
    assert len(report.batches) == expected_batches
    assert read_cursor(workspace.cursor_file) == 3


def test_dry_run_shows_the_diff_and_changes_nothing(workspace, serve):
    three_entries(workspace)
    before = snapshot(workspace)
    server = serve([call("edit_file", path="SOUL.md", old_text="## Rules\n", new_text="## Rules\n\n- Be brief.\n"),
                    final("Added a rule"), keeps_nothing()])
    report = run_dream(workspace, llm_settings(server), RunOptions(dry_run=True))
    assert report.outcome == "dry-run"
    assert "+- Be brief." in report.batches[0].diff
    assert snapshot(workspace) == before


def test_an_engine_that_crashes_fails_the_batch_cleanly(workspace):
    three_entries(workspace)
    before = snapshot(workspace)

    class Broken:
        name = "broken"

        def run(self, request, toolbox):
            toolbox.call("write_file", '{"path": "USER.md", "content": "# User\\n- half done\\n"}')
            raise KeyError("boom")

    report = run_dream(workspace, Settings(model="openai/unused"), engine_factory=lambda settings: Broken())
    assert report.outcome == "failed" and report.reason == "engine error: KeyError: 'boom'"
    assert snapshot(workspace) == before


def test_an_engine_that_cannot_start_is_reported(workspace):
    three_entries(workspace)

    def missing(settings):
        raise ModuleNotFoundError("No module named 'mcp'")

    report = run_dream(workspace, Settings(model="openai/unused"), engine_factory=missing)
    assert report.outcome == "failed" and "cannot start engine" in report.reason and "mcp" in report.reason
    assert read_cursor(workspace.cursor_file) == 0


def test_a_session_with_tools_never_imports_the_mcp_sdk(workspace):
    """litellm's first call with tools looks for MCP tools to run through its gateway, importing the MCP SDK
    (+244 modules); nanodream's tools are plain functions, so a run never pays it (a fresh interpreter)."""
    three_entries(workspace)
    code = (
        "import sys\n"
        "from nanodream.config import Settings\n"
        "from nanodream.run.dream import run_dream\n"
        "from nanodream.workspace import Workspace\n"
        "from tests.support.scripted_server import ScriptedServer, call, final, keeps_nothing\n"
        "steps = [call('edit_file', path='USER.md', old_text='## Preferences\\n',\n"
        "              new_text='## Preferences\\n\\n- Prefers concise answers.\\n'), final('Filed a preference'),\n"
        "         keeps_nothing()]  # the accounting asks about the facts left out; the model says why\n"
        "with ScriptedServer(steps) as server:\n"
        "    settings = Settings(model='openai/scripted', api_base=server.url, api_key='k', max_retries=0)\n"
        f"    report = run_dream(Workspace.at({str(workspace.root)!r}), settings)\n"
        "print(report.outcome, len(server.requests), 'mcp' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO)
    assert out.stdout.split() == ["committed", "3", "False"], out.stderr[-2000:]
