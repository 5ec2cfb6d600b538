"""`run --tidy`: a dream over the memory alone, through the same tools, guards, journal and commit path."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from nanodream import clock
from nanodream.backlog.history import read_cursor
from nanodream.cli import app
from nanodream.config import Settings
from nanodream.run.context import RunOptions
from nanodream.run.dream import run_dream
from nanodream.run.records import read_records
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import ExitCode
from tests.support.cli import runner
from tests.support.gitdates import commit_at
from tests.support.scripted_server import call, final
from tests.support.workspaces import entry, git, llm_settings, snapshot, write_history

STALE = "- Task: migrate the invoices table (in progress).\n"
DUPLICATE = "- Uses PostgreSQL 16 as its primary database.\n"

MEMORY_BEFORE = (
    "# Memory\n\n## Project\n- ledgerline is a self-hosted invoice service in Go.\n" + DUPLICATE
    + "- Deploys to staging every Tuesday.\n- Caddy terminates TLS.\n"
)


@pytest.fixture
def messy(workspace):
    """MEMORY.md with a stale task (from September) and a duplicated fact (added in October), seen on October 15."""
    memory = workspace.root / "memory/MEMORY.md"
    memory.write_text(MEMORY_BEFORE + "\n## Open tasks\n" + STALE)
    commit_at(workspace, "2026-09-01T12:00:00Z")
    memory.write_text(memory.read_text().replace("- Deploys", DUPLICATE.rstrip("\n") + "\n- Deploys"))
    commit_at(workspace, "2026-10-10T12:00:00Z")
    workspace.cursor_file.write_text("2\n")
    write_history(workspace, [entry(1, "[durable] old"), entry(2, "[durable] old"),
                              entry(3, "[durable] Not consumed by a tidy.")])
    with clock.pinned(datetime(2026, 10, 15, 12, tzinfo=UTC)):
        yield workspace


def prune_script():
    return [
        call("edit_file", path="memory/MEMORY.md", old_text=DUPLICATE + DUPLICATE, new_text=DUPLICATE),
        call("edit_file", path="memory/MEMORY.md", old_text="\n## Open tasks\n" + STALE, new_text=""),
        final("Merge a duplicate and drop a stale task\n- MEMORY.md: one PostgreSQL line\n- MEMORY.md: stale task"),
    ]


def test_tidy_sees_ages_and_commits_through_the_dream_path_without_moving_the_cursor(messy, serve):
    server = serve(prune_script())
    report = run_dream(messy, llm_settings(server), RunOptions(tidy=True))

    assert report.outcome == "committed", report.reason
    assert (messy.root / "memory/MEMORY.md").read_text() == MEMORY_BEFORE
    assert read_cursor(messy.cursor_file) == 2  # the backlog after it waits for a normal run
    message = git(messy, "log", "-1", "--format=%B")
    assert message.startswith("dream: Merge a duplicate and drop a stale task\n")
    assert "- memory/MEMORY.md: modified (+0 -4)" in message
    for trailer in ("Dream-Kind: dream", "Dream-Tidy: yes", f"Dream-Run: {report.run_id}", "Dream-Tokens: in=300"):
        assert trailer in message
    assert "Dream-Cursor:" not in message
    assert GitStore(messy).progress_trailers() is None  # a tidy never claims history
    assert not messy.journal_file.exists()
    assert read_records(messy)[-1].tidy is True

    user = server.requests[0]["messages"][1]["content"]
    assert "# Tidy pass: no history batch" in user and "<history>" not in user
    assert "Not consumed by a tidy" not in user
    # the stale task's age and the duplicate's recency are in front of the model
    assert '"## Open tasks" L10-11 44d' in user and "L6 5d" in user


def test_tidy_that_deletes_most_of_a_file_is_refused_and_leaves_the_workspace_byte_identical(messy, serve):
    before = snapshot(messy)
    server = serve([call("write_file", path="memory/MEMORY.md", content="# Memory\n"), final("Pruned hard")])
    report = run_dream(messy, llm_settings(server), RunOptions(tidy=True))
    # no history entry can cause a mass deletion (a tidy has none): the model broke memory (docs/guards.md)
    assert report.outcome == "model-no-op" and report.exit_code == ExitCode.FAILED
    assert "memory/MEMORY.md: mass deletion" in report.reason and "model check" in report.reason
    assert snapshot(messy) == before
    assert read_cursor(messy.cursor_file) == 2


def test_tidy_with_nothing_to_change_makes_no_commit_and_keeps_the_cursor(messy, serve):
    head = git(messy, "rev-parse", "HEAD")
    server = serve([final("Memory is already tidy")])
    report = run_dream(messy, llm_settings(server), RunOptions(tidy=True))
    assert report.outcome == "no-change"
    assert git(messy, "rev-parse", "HEAD") == head
    assert read_cursor(messy.cursor_file) == 2


def test_tidy_commits_hand_edits_first_as_the_persons_own(messy, serve):
    user_md = messy.root / "USER.md"
    user_md.write_text(user_md.read_text() + "- Likes tea.\n")
    report = run_dream(messy, llm_settings(serve(prune_script())), RunOptions(tidy=True))
    assert report.outcome == "committed" and report.manual_commit
    assert git(messy, "log", "-1", "--format=%s", "HEAD~1").startswith("manual: hand edits to USER.md")


def test_tidy_dry_run_shows_the_diff_and_changes_nothing(messy, serve):
    before = snapshot(messy)
    report = run_dream(messy, llm_settings(serve(prune_script())), RunOptions(tidy=True, dry_run=True))
    assert report.outcome == "dry-run"
    assert "-- Task: migrate the invoices table" in report.batches[0].diff
    assert snapshot(messy) == before


def test_run_tidy_from_the_command_line(messy, serve):
    server = serve(prune_script())
    env = {"NANODREAM_MODEL": "openai/scripted-model", "NANODREAM_API_BASE": server.url,
           "NANODREAM_API_KEY": "test-key"}
    result = runner.invoke(app, ["run", "--tidy", "--json", "-w", str(messy.root)], env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["outcome"], data["tidy"], data["entries"]) == ("committed", True, 0)
    result = runner.invoke(app, ["run", "--tidy", "-w", str(messy.root)],
                                env=env | {"NANODREAM_API_BASE": serve([final("Already tidy")]).url})
    assert result.exit_code == 0 and "tidy pass → nothing to tidy" in result.stdout


def test_a_tidy_whose_engine_cannot_start_is_reported_in_one_line(workspace):
    def missing(settings):
        raise ModuleNotFoundError("No module named 'mcp'")

    report = run_dream(workspace, Settings(model="openai/unused"), RunOptions(tidy=True), engine_factory=missing)
    assert report.outcome == "failed"
    assert report.reason == "cannot start engine 'openai/unused': ModuleNotFoundError: No module named 'mcp'"
