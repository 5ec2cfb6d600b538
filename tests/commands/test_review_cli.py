"""`log`, `show`, `restore` and `prompt` through the CLI, in-process with typer's CliRunner."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from nanodream.backlog.history import Batch, HistoryEntry
from nanodream.cli import app
from nanodream.commands.show import render_diff
from nanodream.config import Settings
from nanodream.memory.lock import workspace_lock
from nanodream.prompting.prompt_override import builtin_prompt
from nanodream.run.dream import run_dream
from nanodream.versioning.commitmsg import DreamFacts, commit_kind, dream_message
from nanodream.vocab import Trailers
from tests.support.cli import runner
from tests.support.memory_engine import build_history
from tests.support.workspaces import entry, git, snapshot, write_history

ANSI = "\x1b["


def cli(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def history(workspace):
    return workspace, build_history(workspace)


# log --------------------------------------------------------------------------------------------------


def test_log_json_lists_kinds_ranges_spend_and_real_line_counts(history):
    ws, shas = history
    result = cli("log", "-w", str(ws.root), "--json")
    assert result.exit_code == 0
    commits = json.loads(result.stdout)["commits"]
    assert [c["kind"] for c in commits] == ["dream", "dream", "manual", "dream", "init"]
    assert [c["sha"] for c in commits[:4]] == [shas["c"], shas["b"], shas["manual"], shas["a"]]
    b = commits[1]
    assert b["history"] == {"first": 3, "last": 4}
    assert b["tokens"] == {"in": 200, "out": 10, "cached": 0} and b["cost"] is None and b["model"] == "literal"
    assert b["files"] == [{"path": "memory/MEMORY.md", "added": 1, "removed": 0}]
    assert b["run"] and b["restores"] is None and b["short"] == shas["b"][:8]
    manual = commits[2]
    assert manual["history"] is None and manual["tokens"] is None and manual["run"] is None
    assert manual["files"] == [{"path": "SOUL.md", "added": 1, "removed": 0}]
    assert set(b) == {"sha", "short", "kind", "time", "author", "subject", "files", "history", "lines", "tokens",
                      "cost", "run", "model", "restores", "cursor_reset", "machine", "failed", "sessions"}
    assert b["failed"] is None  # no session failed as too big on its entries
    assert b["sessions"] == []  # one session per batch: Dream-Tokens says it all


def test_log_text_tells_dreams_hand_edits_and_restores_apart(history):
    ws, shas = history
    assert cli("restore", shas["b"], "-w", str(ws.root)).exit_code == 0
    out = cli("log", "-w", str(ws.root)).stdout
    lines = out.splitlines()
    assert lines[0].split()[3] == "restore" and f"undo dream {shas['b'][:8]}" in lines[0]
    assert f"undoes {shas['b'][:8]}" in out
    manual_line = next(line for line in lines if line.startswith(shas["manual"][:8]))
    assert manual_line.split()[3] == "manual" and "hand edits to SOUL.md" in manual_line
    assert "history #3..#4 · tokens in 200 out 10 · cost unknown · literal" in out
    assert "memory/MEMORY.md +1 -0" in out
    assert ANSI not in out


def test_log_number_and_kind_filters(history):
    ws, shas = history
    out = json.loads(cli("log", "-w", str(ws.root), "-n", "2", "--json").stdout)["commits"]
    assert [c["sha"] for c in out] == [shas["c"], shas["b"]]
    manual = json.loads(cli("log", "-w", str(ws.root), "--kind", "manual", "--json").stdout)["commits"]
    assert [c["sha"] for c in manual] == [shas["manual"]]
    bad = cli("log", "-w", str(ws.root), "--kind", "dreams")
    assert bad.exit_code == 2 and "--kind must be one of dream, manual, restore" in bad.stderr


def test_log_of_a_fresh_workspace_shows_the_init_commit(workspace):
    out = cli("log", "-w", str(workspace.root)).stdout
    assert "init" in out and "start versioning agent memory" in out
    assert "no dream commits yet" in cli("log", "-w", str(workspace.root), "--kind", "dream").stdout


def test_log_outside_a_workspace_is_a_clear_error(tmp_path):
    result = cli("log", "-w", str(tmp_path / "nowhere"))
    assert result.exit_code == 2 and "no workspace at" in result.stderr and "nanodream init" in result.stderr


def test_trailers_are_read_from_the_last_paragraph_only():
    batch = Batch([HistoryEntry(1, "2026-10-01 10:00", "x")])
    message = dream_message("Tidied up\nDream-Kind: manual\nDream-Cursor: 0..999", [],
                            DreamFacts(run_id="r", model="m", batch=batch, tokens_in=1, tokens_out=2, cost=None))
    assert commit_kind(message) == "dream"
    assert Trailers.parse(message).values["Dream-Cursor"] == "1..1"
    assert commit_kind("manual stuff\n\nDream-Kind: manual") == "manual"
    assert commit_kind("fix typo by hand") == "other"
    assert commit_kind("init: start versioning agent memory\n\nCreated by nanodream init.") == "init"


# show -------------------------------------------------------------------------------------------------


def test_show_defaults_to_the_latest_dream_not_a_newer_restore(history):
    ws, shas = history
    cli("restore", shas["b"], "-w", str(ws.root))
    detail = json.loads(cli("show", "-w", str(ws.root), "--json").stdout)
    assert detail["sha"] == shas["c"] and detail["kind"] == "dream"


def test_show_gives_summary_changes_consumed_history_and_plain_diff(history):
    ws, shas = history
    result = cli("show", shas["b"][:10], "-w", str(ws.root))
    assert result.exit_code == 0
    out = result.stdout
    assert f"commit {shas['b']} (dream)" in out
    assert "Filed memory/MEMORY.md: Deploys on Fridays" in out  # the model's summary
    assert "memory/MEMORY.md +1 -0" in out
    assert "History consumed (#3..#4, 2 entries still in history.jsonl):" in out
    assert "[durable] memory/MEMORY.md: Deploys on Fridays" in out and "[skip] thanks" in out
    assert "+- Deploys on Fridays\n" in out and "--- a/memory/MEMORY.md" in out
    assert ANSI not in out


def test_show_json_shape(history):
    ws, shas = history
    detail = json.loads(cli("show", shas["a"], "-w", str(ws.root), "--json").stdout)
    assert detail["summary"] == "Filed memory/MEMORY.md: Uses postgres 16; USER.md: Prefers tea"
    assert [e["cursor"] for e in detail["history_entries"]] == [1, 2]
    assert set(detail["history_entries"][0]) == {"cursor", "timestamp", "content", "session_key", "line", "offset",
                                                 "end"}
    assert [e["line"] for e in detail["history_entries"]] == [1, 2]
    assert "+- Prefers tea" in detail["diff"] and detail["message"].startswith("dream: ")


def test_show_of_a_builtin_dream_leaves_out_the_entries_it_passed_over_for_a_model(workspace):
    """A new user read entries waiting for a model under "History consumed": a built-in run passes them over."""
    waiting = "[for a model: ja]\n> 昨日は雨だったので、家で本を読みながらゆっくり過ごしました。"
    write_history(workspace, [entry(1, "[durable] The API uses OAuth2."), entry(2, waiting),
                              entry(3, "[durable] The cache is Redis.")])
    run_dream(workspace, Settings(model="builtin"))
    detail = json.loads(cli("show", "-w", str(workspace.root), "--json").stdout)
    assert [item["cursor"] for item in detail["history_entries"]] == [1, 3]


def test_show_says_when_the_consumed_history_is_gone(history):
    ws, shas = history
    write_history(ws, [entry(9, "[durable] compacted away")])
    out = cli("show", shas["b"], "-w", str(ws.root)).stdout
    assert "History consumed: #3..#4 (no longer in history.jsonl)" in out


def test_show_highlights_the_diff_on_a_terminal():
    buffer = io.StringIO()
    render_diff(Console(file=buffer, force_terminal=True, color_system="truecolor"), "--- a/x\n+++ b/x\n+new\n")
    assert ANSI in buffer.getvalue() and "new" in buffer.getvalue()


def test_show_unknown_commit_is_a_usage_error(history):
    ws, _ = history
    bad = cli("show", "deadbeef", "-w", str(ws.root))
    assert bad.exit_code == 2 and "no commit 'deadbeef'" in bad.stderr and "nanodream log" in bad.stderr
    as_json = cli("show", "deadbeef", "-w", str(ws.root), "--json")
    assert json.loads(as_json.stdout)["exit_code"] == 2


def test_show_without_dreams_says_so(workspace):
    result = cli("show", "-w", str(workspace.root))
    assert result.exit_code == 2 and "no dream commits yet" in result.stderr
    assert "commits only when it changes memory" in result.stderr  # runs that kept nothing left no commit


# restore ------------------------------------------------------------------------------------------------


def test_restore_cli_json_shape_and_exit_codes(history):
    ws, shas = history
    result = cli("restore", shas["b"], "-w", str(ws.root), "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["outcome"] == "restored" and report["target"] == shas["b"] and report["mode"] == "undo"
    assert report["commit"] == git(ws, "rev-parse", "HEAD") and report["cursor_after"] == 5
    assert set(report) == {"outcome", "mode", "replay", "target", "target_kind", "target_subject", "commit",
                           "manual_commit", "changes", "conflicts", "rejected", "cursor_before", "cursor_after",
                           "recovered", "reason", "hint", "exit_code"}


def test_restore_cli_conflict_message_offers_before(history):
    ws, shas = history
    from tests.support.memory_engine import dream

    dream(ws, entry(6, "[correction] memory/MEMORY.md: Deploys on Fridays => Deploys on Mondays"))
    before = snapshot(ws)
    result = cli("restore", shas["b"][:8], "-w", str(ws.root))
    assert result.exit_code == 1
    assert f"error: cannot undo {shas['b'][:8]} alone" in result.stderr
    assert f"hint: `nanodream restore {shas['b'][:8]} --before`" in result.stderr
    assert snapshot(ws) == before
    ok = cli("restore", shas["b"][:8], "--before", "-w", str(ws.root))
    assert ok.exit_code == 0 and "set memory back to before dream" in ok.stdout


def test_restore_cli_busy_exit_code(history):
    ws, shas = history
    with workspace_lock(ws):
        result = cli("restore", shas["b"], "-w", str(ws.root))
    assert result.exit_code == 75 and "busy:" in result.stderr


def test_restore_cli_replay_says_where_the_cursor_went(history):
    ws, shas = history
    out = cli("restore", shas["b"], "--replay", "-w", str(ws.root)).stdout
    assert "cursor set back from 5 to 2" in out


# prompt -------------------------------------------------------------------------------------------------


def test_prompt_shows_the_builtin_prompt_and_how_to_customise(workspace):
    result = cli("prompt", "-w", str(workspace.root))
    assert result.exit_code == 0
    assert "active prompt: built-in" in result.stdout and "nanodream prompt init" in result.stdout
    assert builtin_prompt().splitlines()[0] in result.stdout
    info = json.loads(cli("prompt", "show", "-w", str(workspace.root), "--json").stdout)
    assert info["source"] == "built-in" and info["override_state"] == "absent"
    assert info["path"].endswith("prompts/dream.md") and info["text"] == builtin_prompt()


def test_prompt_init_copies_the_builtin_and_never_overwrites(workspace):
    result = cli("prompt", "init", "-w", str(workspace.root))
    assert result.exit_code == 0
    override = workspace.prompt_override
    assert override.read_text() == builtin_prompt()
    info = json.loads(cli("prompt", "-w", str(workspace.root), "--json").stdout)
    assert info["source"] == "prompts/dream.md" and info["override_identical_to_builtin"] is True

    override.write_text("My own prompt.\n")
    again = cli("prompt", "init", "-w", str(workspace.root))
    assert again.exit_code == 1 and "already has content" in again.stderr
    assert override.read_text() == "My own prompt.\n"
    assert "it differs from the built-in prompt" in cli("prompt", "-w", str(workspace.root)).stdout


def test_prompt_init_fills_an_empty_override_and_options_before_the_subcommand_apply(workspace):
    workspace.prompt_override.parent.mkdir()
    workspace.prompt_override.write_text("\n")
    assert "exists but is empty" in cli("prompt", "-w", str(workspace.root)).stdout
    result = cli("prompt", "-w", str(workspace.root), "--json", "init")
    assert result.exit_code == 0 and json.loads(result.stdout)["source"] == "prompts/dream.md"
    assert workspace.prompt_override.read_text() == builtin_prompt()


def test_prompt_init_refuses_a_symlink(workspace, tmp_path):
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("")
    workspace.prompt_override.parent.mkdir()
    workspace.prompt_override.symlink_to(elsewhere)
    result = cli("prompt", "init", "-w", str(workspace.root))
    assert result.exit_code == 78 and "prompts/dream.md is a symbolic link" in result.stderr
    assert elsewhere.read_text() == ""
    shown = cli("prompt", "-w", str(workspace.root))  # reading it would read the other file: refused too
    assert shown.exit_code == 78 and "prompts/dream.md is a symbolic link" in shown.stderr


def test_prompt_reset_keeps_uncommitted_edits_unless_forced(workspace):
    cli("prompt", "init", "-w", str(workspace.root))
    workspace.prompt_override.write_text("Uncommitted custom prompt.\n")
    refused = cli("prompt", "reset", "-w", str(workspace.root))
    assert refused.exit_code == 1 and "would be lost" in refused.stderr
    assert workspace.prompt_override.read_text() == "Uncommitted custom prompt.\n"

    git(workspace, "add", "prompts/dream.md")
    git(workspace, "commit", "-qm", "custom prompt")
    ok = cli("prompt", "reset", "-w", str(workspace.root))  # committed: nothing is lost
    assert ok.exit_code == 0 and "built-in prompt is active" in ok.stdout
    assert not workspace.prompt_override.exists() and not workspace.prompt_override.parent.exists()
    assert "already active" in cli("prompt", "reset", "-w", str(workspace.root)).stdout

    workspace.prompt_override.parent.mkdir()
    workspace.prompt_override.write_text("Another one.\n")
    forced = cli("prompt", "reset", "--force", "-w", str(workspace.root), "--json")
    assert json.loads(forced.stdout) == {"removed": True, "source": "built-in"}
    assert not workspace.prompt_override.exists()


def test_prompt_outside_a_workspace_is_a_clear_error(tmp_path):
    result = cli("prompt", "-w", str(tmp_path / "none"))
    assert result.exit_code == 2 and "no workspace at" in result.stderr


def test_show_prints_the_whole_summary_once(workspace):
    from nanodream.versioning.gitstore import DREAM_IDENTITY, GitStore

    (workspace.root / "USER.md").write_text("# User\n\n- tidy\n")
    batch = Batch([HistoryEntry(1, "2026-10-01 10:00", "x")])
    message = dream_message("Tidied memory\n- merged two skills\n- dropped a stale task", [],
                            DreamFacts(run_id="r", model="m", batch=batch, tokens_in=1, tokens_out=2, cost=0.0012))
    GitStore(workspace).commit(message, DREAM_IDENTITY)
    out = cli("show", "-w", str(workspace.root)).stdout
    assert out.count("Tidied memory") == 1
    assert "    - merged two skills\n    - dropped a stale task\n" in out
    assert "cost $0.0012" in out


def test_status_json_carries_the_last_run_record(history):
    """Top-level keys are checked against docs/json.md in test_json.py; this is the run record inside."""
    ws, _ = history
    cli("run", "-w", str(ws.root), "--json")  # empty backlog: no engine needed
    status = json.loads(cli("status", "-w", str(ws.root), "--json").stdout)
    assert set(status["last_success"]) == {"id", "start", "end", "trigger", "outcome", "reason", "entries",
                                           "tokens_in", "tokens_out", "cached_tokens", "cost", "commits", "model",
                                           "duration_s",
                                           "malformed_lines", "recovered", "tidy", "consumed", "batches",
                                           "commit", "quarantined", "failed_at", "warnings", "consumed_lines",
                                           "notices", "anomalies", "dead_letters", "notable", "requests",
                                           "request_bytes", "reasons", "unconfirmed", "misfiled", "phases",
                                           "sessions"}
