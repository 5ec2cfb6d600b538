"""What a run records, how budgets and stop requests end it, transcripts, and interrupted or raced batches."""

from __future__ import annotations

import json

import pytest

from nanodream.backlog.history import read_cursor
from nanodream.config import Settings
from nanodream.memory.lock import workspace_lock
from nanodream.run.context import RunOptions
from nanodream.run.dream import run_dream
from nanodream.run.records import read_records
from nanodream.run.transcripts import list_transcripts
from nanodream.versioning.gitstore import GitStore
from tests.support.fakes import NoteEngine, noting_model, sessions
from tests.support.workspaces import entry, git, llm_settings, snapshot, write_history


def eight_entries(ws) -> None:
    """Four batches of two at batch_tokens=70."""
    write_history(ws, [entry(i, f"[durable] fact number {i} " + "x" * 60) for i in range(1, 9)])


def fake(**overrides) -> Settings:
    values = dict(model="fake/model", batch_tokens=70)
    values.update(overrides)
    return Settings(**values)


def test_records_carry_trigger_outcome_reason_entries_tokens_cost_and_commits(workspace):
    eight_entries(workspace)
    report = run_dream(workspace, fake(), RunOptions(trigger="cron"), engine_factory=NoteEngine(cost=0.002))
    with workspace_lock(workspace):
        run_dream(workspace, fake(), RunOptions(trigger="slash"), engine_factory=NoteEngine())
    run_dream(workspace, fake(), engine_factory=NoteEngine())

    done, busy, idle = read_records(workspace)
    assert done.id == report.run_id and done.trigger == "cron" and done.outcome == "committed"
    assert done.entries == 8 and done.consumed == [1, 8] and done.batches == 4
    assert (done.tokens_in, done.tokens_out) == (400, 80)
    assert done.cost == pytest.approx(0.008)
    assert done.commits == report.commits and done.commit == git(workspace, "rev-parse", "HEAD")
    assert done.start <= done.end and done.failed_at is None
    assert busy.trigger == "slash" and busy.outcome == "busy" and "another dream" in busy.reason
    assert idle.outcome == "nothing-to-do" and idle.reason == "the backlog is empty"


def test_a_failed_run_records_why_and_where(workspace):
    eight_entries(workspace)
    engine = NoteEngine(fail_when=lambda request: "provider error: overloaded")
    run_dream(workspace, fake(), engine_factory=engine)
    [record] = read_records(workspace)
    assert record.outcome == "failed" and record.reason == "provider error: overloaded"
    assert record.failed_at == [1, 2] and record.entries == 0 and record.commit is None


@pytest.mark.parametrize("limit,reason", [
    (dict(max_batches=2), "batch limit reached (2); the rest waits for the next run"),
    (dict(max_run_tokens=200), "run token budget reached (240 >= 200); the rest waits for the next run"),
    (dict(max_cost=0.015), "run cost budget reached ($0.0200 >= $0.0150); the rest waits"),
])
def test_a_budget_stop_keeps_what_was_committed_and_leaves_the_rest(workspace, limit, reason):
    eight_entries(workspace)
    first = run_dream(workspace, fake(**limit), engine_factory=NoteEngine(cost=0.01))
    assert first.outcome == "committed" and len(first.commits) == 2
    assert first.reason == reason
    assert read_cursor(workspace.cursor_file) == 4
    assert git(workspace, "status", "--porcelain") == ""

    rest = NoteEngine(cost=0.01)
    second = run_dream(workspace, fake(), engine_factory=rest)
    assert rest.batches == [[5, 6], [7, 8]]  # the rest, and nothing twice
    assert second.outcome == "committed" and read_cursor(workspace.cursor_file) == 8


def test_a_stop_request_ends_the_run_between_batches(workspace):
    eight_entries(workspace)
    engine = NoteEngine()
    asked = []

    def should_stop() -> str:
        asked.append(len(engine.batches))
        return "stopped by SIGTERM" if len(engine.batches) >= 2 else ""

    report = run_dream(workspace, fake(), engine_factory=engine, should_stop=should_stop)
    assert asked == [1, 2]  # asked between batches, never before the first
    assert engine.batches == [[1, 2], [3, 4]]
    assert report.outcome == "committed" and report.reason == "stopped by SIGTERM"
    assert read_cursor(workspace.cursor_file) == 4


def test_an_interrupt_mid_apply_is_finished_from_the_journal_before_the_lock_is_released(workspace, monkeypatch):
    eight_entries(workspace)
    real_commit = GitStore.commit
    calls = []

    def commit_then_interrupt(self, message, author):
        calls.append(message)
        if len(calls) == 1:
            raise KeyboardInterrupt  # files are written, the commit is not: the worst moment
        return real_commit(self, message, author)

    monkeypatch.setattr(GitStore, "commit", commit_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        run_dream(workspace, fake(), engine_factory=NoteEngine())

    assert not workspace.journal_file.exists()
    assert git(workspace, "status", "--porcelain") == ""
    assert "Dream-Cursor: 1..2" in git(workspace, "log", "-1", "--format=%B")
    assert read_cursor(workspace.cursor_file) == 2
    [record] = read_records(workspace)
    assert record.outcome == "failed" and record.reason == "abandoned on interrupt"
    assert record.recovered.startswith("completed interrupted run")


def test_an_interrupt_mid_session_leaves_the_workspace_as_it_was(workspace):
    eight_entries(workspace)
    before = snapshot(workspace)

    def interrupt(index):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_dream(workspace, fake(), engine_factory=NoteEngine(during=interrupt))
    assert snapshot(workspace) == before
    with workspace_lock(workspace):  # and the lock was released
        pass


def test_a_file_edited_on_disk_during_the_session_becomes_its_own_commit_and_the_batch_lands_on_it(workspace):
    eight_entries(workspace)
    memory = workspace.root / "memory/MEMORY.md"

    def host_edits(index):
        memory.write_text(memory.read_text() + f"- written by the host agent meanwhile {index}\n")

    report = run_dream(workspace, fake(), engine_factory=NoteEngine(during=host_edits))
    assert report.outcome == "committed" and read_cursor(workspace.cursor_file) == 8
    text = memory.read_text()
    for index in range(4):  # each host line once, each batch's note too
        assert text.count(f"- written by the host agent meanwhile {index}\n") == 1
    assert [text.count(f"- noted {i}..{i + 1}\n") for i in (1, 3, 5, 7)] == [1, 1, 1, 1]
    assert git(workspace, "status", "--porcelain") == ""
    for sha in git(workspace, "rev-list", "HEAD").split():  # a host line is added by a manual commit, never a dream's
        shown = git(workspace, "show", "--format=%B", sha)
        added = [line for line in shown.splitlines() if line.startswith("+") and not line.startswith("+++")]
        if any("written by the host agent" in line for line in added):
            assert "Dream-Kind: manual" in shown and not any("noted" in line for line in added)
    assert any("committed first as the person's own" in warning for batch in report.batches
               for warning in batch.warnings)


def test_transcripts_are_kept_per_session_rotated_and_never_fed_back(workspace, serve):
    eight_entries(workspace)
    history_before = workspace.history_file.read_bytes()
    server = serve([noting_model()] * 8)
    report = run_dream(workspace, llm_settings(server, batch_tokens=70, keep_transcripts=3))

    assert report.outcome == "committed" and len(sessions(server.requests)) == 4
    kept = list_transcripts(workspace)
    assert [p.name for p in kept] == [f"{report.run_id}-{c}-tools.json" for c in (3, 5, 7)]  # the newest three
    saved = json.loads(kept[-1].read_text())
    assert saved["cursors"] == [7, 8] and saved["ended"] == "finished"
    assert [m["role"] for m in saved["messages"]] == ["system", "user", "assistant", "tool", "assistant"]
    assert saved["messages"][-1]["content"] == "Noted the batch"
    assert workspace.history_file.read_bytes() == history_before
    assert ".nanodream" not in git(workspace, "ls-files")
    # the model's words from earlier sessions never reach a later one
    assert all("Noted the batch" not in body["messages"][1]["content"] for body in server.requests)


def test_a_failed_sessions_transcript_is_kept_too_and_keep_zero_keeps_none(workspace):
    eight_entries(workspace)
    failing = NoteEngine(fail_when=lambda request: "guard refused")
    run_dream(workspace, fake(), engine_factory=failing)
    [kept] = list_transcripts(workspace)
    assert json.loads(kept.read_text())["ended"] == "failed: guard refused"
    kept.unlink()
    run_dream(workspace, fake(keep_transcripts=0), engine_factory=NoteEngine())
    assert list_transcripts(workspace) == []


AWS_KEY = "AKIA" + "IOSFODNN7EXAMPLE"
GITHUB_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"


def scanned_texts(monkeypatch) -> list[str]:
    """Every text the transcripts' secret scan is given, from now on."""
    from nanodream.run import transcripts

    seen: list[str] = []
    original = transcripts.secret_scan.redact
    monkeypatch.setattr(transcripts.secret_scan, "redact", lambda before, text: seen.append(text) or original(
        before, text))
    return seen


def test_a_transcript_scans_what_the_model_and_the_batch_added_not_the_memory_files_in_git(workspace, monkeypatch):
    memory = workspace.root / "memory" / "MEMORY.md"
    memory.write_text(memory.read_text() + f"- The example key in the docs is {AWS_KEY}.\n")
    git(workspace, "add", "memory/MEMORY.md")
    git(workspace, "-c", "user.name=me", "-c", "user.email=me@x", "commit", "-qm", "a key the person committed")
    write_history(workspace, [entry(1, f"[durable] The CI token is {GITHUB_TOKEN} for now.")])
    seen = scanned_texts(monkeypatch)
    run_dream(workspace, fake(), engine_factory=NoteEngine())

    [kept] = list_transcripts(workspace)
    text = kept.read_text()
    assert GITHUB_TOKEN not in text and "redacted GitHub Token" in text  # the batch is scanned
    assert any("noted 1..1" in scanned for scanned in seen)  # and the model's words
    assert not any(AWS_KEY in scanned for scanned in seen)  # the file in git is not scanned again
    assert AWS_KEY in text


def test_a_credential_typed_while_a_run_goes_on_stops_it_before_anything_lands_and_no_session_saw_it(workspace):
    eight_entries(workspace)
    user = workspace.root / "USER.md"
    head = git(workspace, "rev-parse", "HEAD")

    def edit(batch: int) -> None:
        if batch == 0:  # the host writes USER.md by hand during the first session
            user.write_text(user.read_text() + f"- Deploy key {AWS_KEY}.\n")

    report = run_dream(workspace, fake(max_batches=2), engine_factory=NoteEngine(during=edit))
    assert report.exit_code == 78 and "USER.md line" in report.reason and AWS_KEY not in report.reason
    assert git(workspace, "rev-parse", "HEAD") == head and read_cursor(workspace.cursor_file) == 0
    assert user.read_text().endswith(f"- Deploy key {AWS_KEY}.\n")  # the person's file as they left it
    assert not any(AWS_KEY in kept.read_text() for kept in list_transcripts(workspace))
