"""Slash commands as a host agent sees them: markdown for every command and every mistake, never a traceback."""

from __future__ import annotations

import json

import pytest

import nanodream.api
import nanodream.slash
from nanodream.backlog.history import read_cursor
from nanodream.cli import app
from nanodream.memory.lock import workspace_lock
from nanodream.run.records import read_records
from nanodream.slash import handle, respond
from tests.support.cli import runner
from tests.support.memory_engine import LiteralEngine, append_history, build_history, dream
from tests.support.workspaces import entry, git, snapshot


@pytest.fixture
def history(workspace):
    return workspace, build_history(workspace)


def literal(**extra):
    engine = LiteralEngine()
    return {"model": "literal", "engine_factory": lambda settings: engine, **extra}


def assert_no_traceback(markdown: str) -> None:
    assert "Traceback" not in markdown and 'File "' not in markdown


# /dream ---------------------------------------------------------------------------------------------


def test_dream_runs_commits_and_says_how_to_undo(workspace):
    append_history(workspace, entry(1, "[durable] memory/MEMORY.md: Uses postgres 16"))
    reply = respond(workspace.root, "/dream", **literal())
    head = git(workspace, "rev-parse", "HEAD")
    assert reply.exit_code == 0
    assert reply.markdown.startswith("**Dream committed.** 1 entry of history consumed; tokens in 100 / out 10")
    assert f"- `{head[:8]}` history #1..#1 (1 entry): Filed memory/MEMORY.md: Uses postgres 16" in reply.markdown
    assert "  - memory/MEMORY.md: modified (+1 -0)" in reply.markdown
    assert f"`/dream-restore {head[:8]}`" in reply.markdown
    assert read_records(workspace)[-1].trigger == "slash"


def test_dream_with_an_empty_backlog(workspace):
    reply = respond(workspace.root, "/dream", **literal())
    assert reply.exit_code == 0 and "backlog is empty" in reply.markdown


def test_dream_busy(workspace):
    append_history(workspace, entry(1, "[durable] memory/MEMORY.md: x"))
    before = snapshot(workspace)
    with workspace_lock(workspace):
        reply = respond(workspace.root, "/dream", **literal())
    assert reply.exit_code == 75 and reply.markdown.startswith("**Busy:**")
    assert snapshot(workspace) == before


def test_dream_failure_says_nothing_changed(workspace):
    append_history(workspace, entry(1, "[durable] memory/MEMORY.md: x"))
    before = snapshot(workspace)
    reply = respond(workspace.root, "/dream", **literal(max_file_chars=10))  # the tool refuses: over the cap
    assert reply.exit_code == 1
    assert "**Dream failed:**" in reply.markdown and "cursor did not move" in reply.markdown
    assert snapshot(workspace) == before


@pytest.mark.parametrize("text,expected", [
    ("/dream now", "`/dream` takes no arguments"),
    ("/dream --dry-run", "`/dream` takes no arguments"),
])
def test_dream_rejects_arguments(workspace, text, expected):
    reply = respond(workspace.root, text, **literal())
    assert reply.exit_code == 2 and expected in reply.markdown and "Usage: `/dream`" in reply.markdown


def test_dream_bad_options_and_bad_config_are_markdown(workspace):
    assert "**Unknown option colour**" in handle(workspace.root, "/dream", colour="red")
    workspace.config_file.write_text("batch_tokens = 'many'\n")
    reply = handle(workspace.root, "/dream", **literal())
    assert reply.startswith("**Configuration problem:**") and "batch_tokens" in reply


# /dream-log -----------------------------------------------------------------------------------------


def test_dream_log_lists_recent_commits(history):
    ws, shas = history
    reply = handle(ws.root, "/dream-log")
    assert reply.startswith("**Recent memory commits** (newest first)")
    assert f"- `{shas['b'][:8]}` · " in reply
    assert "**dream** · dream: Filed memory/MEMORY.md: Deploys on Fridays" in reply
    assert "memory/MEMORY.md +1 -0 · history #3..#4 · tokens 200/10" in reply
    assert f"- `{shas['manual'][:8]}` · " in reply and "**manual**" in reply
    assert "`/dream-restore <sha>`" in reply


def test_dream_log_sha_shows_one_commit_with_a_fenced_diff(history):
    ws, shas = history
    reply = handle(ws.root, f"/dream-log {shas['b'][:7]}")
    assert reply.startswith(f"### dream `{shas['b'][:8]}` — dream: Filed memory/MEMORY.md: Deploys on Fridays")
    assert "> Filed memory/MEMORY.md: Deploys on Fridays" in reply
    assert "- memory/MEMORY.md: +1 -0" in reply
    assert "**History consumed** (#3..#4)" in reply and "- #3 2026-10-01 10:03: [durable]" in reply
    assert "```diff\n" in reply and "+- Deploys on Fridays\n```" in reply
    assert reply.endswith(f"Undo it with `/dream-restore {shas['b'][:8]}`.")


def test_dream_log_fence_survives_backticks_in_the_diff(workspace):
    dream(workspace, entry(1, "[durable] memory/MEMORY.md: run ```make test``` first"))
    reply = handle(workspace.root, "/dream-log HEAD")
    assert "````diff\n" in reply and reply.count("````") == 2


def test_dream_log_errors(history):
    ws, _ = history
    unknown = respond(ws.root, "/dream-log cafebabe")
    assert unknown.exit_code == 2 and "no commit 'cafebabe'" in unknown.markdown and "`/dream-log`" in unknown.markdown
    too_many = respond(ws.root, "/dream-log a b")
    assert too_many.exit_code == 2 and "Usage: `/dream-log [sha]`" in too_many.markdown
    flag = respond(ws.root, "/dream-log --all")
    assert flag.exit_code == 2 and "Usage:" in flag.markdown


def test_dream_log_of_a_workspace_without_commits(tmp_path):
    (tmp_path / "SOUL.md").write_text("# Soul\n")
    assert handle(tmp_path, "/dream-log").startswith("No memory commits yet")


# /dream-restore -------------------------------------------------------------------------------------


def test_dream_restore_without_sha_lists_dreams_with_hints(history):
    ws, shas = history
    before = snapshot(ws)
    reply = handle(ws.root, "/dream-restore")
    assert reply.startswith("**Recent dreams** (newest first)")
    assert all(f"`{shas[k][:8]}`" in reply for k in ("a", "b", "c")) and shas["manual"][:8] not in reply
    assert "`/dream-restore <sha>` undoes that dream" in reply and "`--before`" in reply and "`--replay`" in reply
    assert snapshot(ws) == before


def test_dream_restore_sha_undoes_it(history):
    ws, shas = history
    reply = respond(ws.root, f"/dream-restore {shas['b'][:8]}")
    head = git(ws, "rev-parse", "HEAD")
    assert reply.exit_code == 0
    assert reply.markdown.startswith(f"**Undid dream `{shas['b'][:8]}`**")
    assert f"in commit `{head[:8]}`" in reply.markdown and "- memory/MEMORY.md: modified (+0 -1)" in reply.markdown
    assert "cursor left at 5" in reply.markdown
    assert "Fridays" not in (ws.root / "memory/MEMORY.md").read_text()
    assert handle(ws.root, f"/dream-restore {shas['b'][:8]}").startswith("Nothing to restore:")


def test_dream_restore_with_replay(history):
    ws, shas = history
    reply = handle(ws.root, f"/dream-restore {shas['b']} --replay")
    assert "History cursor set back to 2" in reply and read_cursor(ws.cursor_file) == 2


def test_dream_restore_conflict_offers_before_and_changes_nothing(history):
    ws, shas = history
    dream(ws, entry(6, "[correction] memory/MEMORY.md: Deploys on Fridays => Deploys on Mondays"))
    before = snapshot(ws)
    reply = respond(ws.root, f"/dream-restore {shas['b'][:8]}")
    assert reply.exit_code == 1
    assert reply.markdown.startswith(f"**Cannot restore `{shas['b'][:8]}`:** cannot undo")
    assert f"`/dream-restore {shas['b'][:8]} --before`" in reply.markdown
    assert snapshot(ws) == before
    done = handle(ws.root, f"/dream-restore {shas['b'][:8]} --before")
    assert done.startswith(f"**Set memory back to before dream `{shas['b'][:8]}`**")


@pytest.mark.parametrize("text,expected", [
    ("/dream-restore abc --force", "Unknown option `--force`"),
    ("/dream-restore --before", "Give one commit sha"),
    ("/dream-restore a b", "Give one commit sha"),
])
def test_dream_restore_bad_arguments(history, text, expected):
    ws, _ = history
    before = snapshot(ws)
    reply = respond(ws.root, text)
    assert reply.exit_code == 2 and expected in reply.markdown and "Usage: `/dream-restore" in reply.markdown
    assert snapshot(ws) == before


def test_dream_restore_unknown_sha_and_busy(history):
    ws, _ = history
    unknown = respond(ws.root, "/dream-restore 0000000")
    assert unknown.exit_code == 2 and "**Cannot restore `0000000`:**" in unknown.markdown
    assert "nanodream log" in unknown.markdown
    with workspace_lock(ws):
        busy = respond(ws.root, "/dream-restore HEAD")
    assert busy.exit_code == 75 and busy.markdown.startswith("**Busy:**")


def test_dream_restore_list_without_dreams(workspace):
    assert handle(workspace.root, "/dream-restore") == "No dream commits to undo yet."


# /dream-prompt --------------------------------------------------------------------------------------


def test_dream_prompt_show_init_and_refusal(workspace):
    assert handle(workspace.root, "/dream-prompt").startswith("Active dream prompt: **built-in**")
    created = respond(workspace.root, "/dream-prompt init")
    assert created.exit_code == 0 and "Copied the built-in dream prompt" in created.markdown
    assert "**prompts/dream.md**" in handle(workspace.root, "/dream-prompt")
    assert "identical to the built-in prompt" in handle(workspace.root, "/dream-prompt")
    workspace.prompt_override.write_text("Mine.\n")
    again = respond(workspace.root, "/dream-prompt init")
    assert again.exit_code == 1 and again.markdown.startswith("**Prompt not copied:**")
    assert workspace.prompt_override.read_text() == "Mine.\n"


def test_dream_prompt_bad_argument(workspace):
    reply = respond(workspace.root, "/dream-prompt reset")
    assert reply.exit_code == 2 and "Unknown argument `reset`" in reply.markdown
    assert "Usage: `/dream-prompt [init]`" in reply.markdown


# the edges ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,expected", [
    ("/dreams", "**Unknown command** `/dreams`"),
    ("/help", "**Unknown command** `/help`"),
    ("dream", "**Not a slash command:** `dream`"),
    ("", "**Not a slash command:**"),
    ("   ", "**Not a slash command:**"),
    ('/dream-log "abc', "**Could not read that command**"),
])
def test_unknown_and_malformed_commands_list_what_exists(workspace, text, expected):
    reply = respond(workspace.root, text)
    assert reply.exit_code == 2 and expected in reply.markdown
    assert "- `/dream-restore [sha] [--before] [--replay]`" in reply.markdown
    assert_no_traceback(reply.markdown)


def test_command_names_are_case_insensitive(history):
    ws, _ = history
    assert handle(ws.root, "/DREAM-LOG").startswith("**Recent memory commits**")


@pytest.mark.parametrize("text", ["/dream", "/dream-log", "/dream-restore", "/dream-prompt"])
def test_a_missing_workspace_is_explained(tmp_path, text):
    reply = respond(tmp_path / "nowhere", text)
    assert reply.exit_code == 2 and "**No agent workspace here:** no workspace at" in reply.markdown
    assert "nanodream init" in reply.markdown
    assert not (tmp_path / "nowhere").exists()


def test_an_unexpected_error_is_markdown_not_a_traceback(history, monkeypatch):
    ws, _ = history

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(nanodream.api, "log", broken)
    reply = respond(ws.root, "/dream-log")
    assert reply.exit_code == 1
    assert reply.markdown == "**nanodream hit an unexpected error:** `RuntimeError: disk on fire`"


def test_cli_slash_prints_markdown_and_exits_with_its_code(history):
    ws, shas = history
    ok = runner.invoke(app, ["slash", "/dream-log", "-w", str(ws.root)])
    assert ok.exit_code == 0 and ok.stdout.startswith("**Recent memory commits**")
    bad = runner.invoke(app, ["slash", "/nope", "-w", str(ws.root)])
    assert bad.exit_code == 2 and "**Unknown command** `/nope`" in bad.stdout
    missing = runner.invoke(app, ["slash", "/dream-log", "-w", str(ws.root / "nowhere")])
    assert missing.exit_code == 2 and "**No agent workspace here:**" in missing.stdout
    assert json.loads(runner.invoke(app, ["log", "-w", str(ws.root), "--json"]).stdout)["commits"]
