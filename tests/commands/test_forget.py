"""`nanodream forget`: only that session's facts go, they never return, and the entries are never read again."""

from __future__ import annotations

import json

from nanodream.cli import app
from nanodream.edits.forget import Target, forget
from nanodream.edits.restore import restore_commit
from tests.support.cli import runner
from tests.support.memory_engine import LiteralEngine, dream
from tests.support.workspaces import entry, git, snapshot

MEMORY, USER, REJECTED = "memory/MEMORY.md", "USER.md", "memory/rejected.md"


def read(ws, path: str) -> str:
    return (ws.root / path).read_text()


def history(ws):
    """Dream 1 mixes two sessions; dream 2 is only the secret one; a fact both sessions stated is shared."""
    dream(ws, entry(1, "[durable] memory/MEMORY.md: Uses postgres 16", session_key="work"),
          entry(2, "[permanent] USER.md: Has a sister in Oslo", session_key="private"),
          entry(3, "[durable] memory/MEMORY.md: Deploys on Fridays", session_key="private"),
          entry(4, "Deploys on Fridays, agreed. [skip] ok", session_key="work"))
    dream(ws, entry(5, "[permanent] USER.md: Sees a therapist on Tuesdays", session_key="private"))


def test_forget_removes_only_that_sessions_facts_and_they_never_return(workspace):
    ws = workspace
    history(ws)
    head = git(ws, "rev-parse", "HEAD")
    report = forget(ws, Target(session="private"))

    assert report.outcome == "forgotten" and report.entries == [2, 3, 5]
    assert [r.split(": ", 1)[1] for r in report.removed] == ["- Has a sister in Oslo",
                                                             "- Sees a therapist on Tuesdays"]
    assert [r.split(": ", 1)[1] for r in report.review] == ["- Deploys on Fridays"]  # the work session said it too
    user, memory = read(ws, USER), read(ws, MEMORY)
    assert "Oslo" not in user and "therapist" not in user and "- Deploys on Fridays" in memory
    assert "- Uses postgres 16" in memory
    assert git(ws, "rev-parse", "HEAD~1") == head and git(ws, "status", "--porcelain") == ""
    assert "- Has a sister in Oslo <!-- USER.md · forgotten (session private)" in read(ws, REJECTED)

    # never consumed again, even by a replay of the dream that consumed them
    restore_commit(ws, git(ws, "rev-parse", "HEAD~1"), replay=True)
    engine = LiteralEngine()
    dream(ws, entry(6, "[permanent] USER.md: Sees a therapist on Tuesdays", session_key="other"), engine=engine)
    assert "therapist" not in read(ws, USER).lower() and "Oslo" not in read(ws, USER)


def test_dry_run_lists_both_and_changes_nothing(workspace):
    ws = workspace
    history(ws)
    before = snapshot(ws)
    result = runner.invoke(app, ["forget", "--session", "private", "--dry-run", "-w", str(ws.root)])
    assert result.exit_code == 0, result.output
    assert "would remove 2 lines" in result.stdout and "edit them yourself" in result.stdout
    assert "not erased: git history" in result.stdout and "history.jsonl" in result.stdout
    assert snapshot(ws) == before and not (ws.root / ".nanodream" / "forgotten.json").exists()


def test_forget_one_entry_and_purge_its_transcripts(workspace):
    ws = workspace
    history(ws)
    transcripts = ws.root / ".nanodream" / "transcripts"
    transcripts.mkdir(parents=True, exist_ok=True)
    run = git(ws, "log", "-1", "--format=%(trailers:key=Dream-Run,valueonly)").strip()
    (transcripts / f"{run}-5.json").write_text("{}")
    (transcripts / "other-run-1.json").write_text("{}")
    result = runner.invoke(app, ["forget", "--entry", "5", "--purge-transcripts", "-w", str(ws.root), "--json"])
    data = json.loads(result.stdout)
    assert result.exit_code == 0 and data["entries"] == [5] and data["transcripts"] == [f"{run}-5.json"]
    assert (transcripts / "other-run-1.json").exists() and "therapist" not in read(ws, USER)
    assert "Oslo" in read(ws, USER)


def test_nothing_to_forget_is_exit_1_and_changes_nothing(workspace):
    ws = workspace
    history(ws)
    before = snapshot(ws)
    report = forget(ws, Target(session="nobody"))
    assert report.exit_code == 1 and "nothing to forget" in report.reason and snapshot(ws) == before
    assert runner.invoke(app, ["forget", "-w", str(ws.root)]).exit_code == 2


def test_a_fact_moved_to_the_archive_is_forgotten_there_too(workspace):
    ws = workspace
    history(ws)
    memory, archive = ws.root / MEMORY, ws.root / "memory" / "archive" / "2026-10.md"
    archive.parent.mkdir()
    user = ws.root / USER
    archive.write_text("# Archive 2026-10\n\n## Preferences\n- Has a sister in Oslo\n")
    user.write_text(user.read_text().replace("- Has a sister in Oslo\n", ""))
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "dream: archive cold lines\n\nDream-Kind: dream")
    report = forget(ws, Target(session="private"))
    assert any(r.startswith("memory/archive/2026-10.md:4: ") for r in report.removed)
    assert "Oslo" not in archive.read_text() and memory.exists()
