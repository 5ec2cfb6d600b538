"""`nanodream why`: the commit behind a memory line, its kind, and the history entries that mention it."""

from __future__ import annotations

import json

from nanodream.cli import app
from nanodream.edits.pin import pin
from nanodream.edits.restore import restore_commit
from nanodream.versioning.provenance import NotFound, why
from tests.support.cli import runner
from tests.support.memory_engine import build_history, dream
from tests.support.workspaces import entry, git


def test_a_dream_line_names_the_dream_and_ranks_the_entries_that_mention_it(workspace):
    ws = workspace
    build_history(ws)
    dream(ws, entry(6, "[durable] memory/MEMORY.md: Uses redis", session_key="tg:42"),
          entry(7, "We talked about the cache: Redis it is. [durable] memory/MEMORY.md: Uses redis", day=2),
          entry(8, "[durable] memory/MEMORY.md: Ships weekly"))
    sha = git(ws, "rev-parse", "HEAD")

    report = why(ws, "uses redis")

    assert report.commit == sha and report.kind == "dream" and report.file == "memory/MEMORY.md"
    assert report.text == "- Uses redis"
    assert [e["cursor"] for e in report.entries] == [6, 7]  # 8 does not mention it
    assert report.entries[0] == {"line": 6, "cursor": 6, "session_key": "tg:42", "timestamp": "2026-10-01 10:06",
                                 "text": "[durable] memory/MEMORY.md: Uses redis"}
    by_line = why(ws, f"memory/MEMORY.md:{report.line}")
    assert by_line.commit == sha and by_line.text == "- Uses redis"


def test_hand_edits_restores_and_uncommitted_lines_say_what_they_are(workspace):
    ws = workspace
    shas = build_history(ws)
    assert why(ws, "never deploy on sundays").kind == "manual"
    assert why(ws, "never deploy on sundays").entries == []
    restore_commit(ws, shas["c"])
    restore = why(ws, "Lives in Lyon <!--")  # the ledger line, written by the restore
    assert restore.kind == "restore" and restore.file == "memory/rejected.md"
    user = ws.root / "USER.md"
    user.write_text(user.read_text() + "- hand: likes rain\n")
    fresh = why(ws, "likes rain")
    assert fresh.kind == "uncommitted" and fresh.commit is None


def test_a_line_moved_to_the_archive_is_still_credited_to_its_dream(workspace):
    ws = workspace
    dream(ws, entry(1, "[durable] memory/MEMORY.md: Uses postgres 16"))
    origin = git(ws, "rev-parse", "HEAD")
    memory = ws.root / "memory" / "MEMORY.md"
    archive = ws.root / "memory" / "archive" / "2026-10.md"
    archive.parent.mkdir()
    archive.write_text("# Archive 2026-10\n\n## Project\n- Uses postgres 16\n")
    memory.write_text(memory.read_text().replace("- Uses postgres 16\n", ""))
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "dream: archive cold lines\n\nDream-Kind: dream")
    report = why(ws, "postgres 16")
    assert report.file == "memory/archive/2026-10.md" and report.commit == origin


def test_unknown_text_and_a_bad_line_are_a_calm_exit_1(workspace):
    ws = workspace
    build_history(ws)
    for query in ("no such fact anywhere", "USER.md:999"):
        try:
            why(ws, query)
        except NotFound:
            continue
        raise AssertionError(query)
    result = runner.invoke(app, ["why", "no such fact anywhere", "-w", str(ws.root)])
    assert result.exit_code == 1 and "nothing to explain" in result.stdout and "error" not in result.stdout
    result = runner.invoke(app, ["why", "Fridays", "-w", str(ws.root), "--json"])
    data = json.loads(result.stdout)
    assert result.exit_code == 0 and data["kind"] == "dream" and data["entries"][0]["cursor"] == 3


def by_hand(ws, old: str, new: str) -> None:
    user = ws.root / "USER.md"
    assert old in user.read_text()
    user.write_text(user.read_text().replace(old, new))
    git(ws, "commit", "-qam", "manual: an edit by hand\n\nDream-Kind: manual")


def test_why_sees_through_pin_and_unpin_to_the_dream_that_wrote_the_fact(workspace):
    ws = workspace
    dream(ws, entry(1, "[permanent] USER.md: Prefers green tea", session_key="tg:7"))
    origin = git(ws, "rev-parse", "HEAD")

    for step in (lambda: pin(ws, "green tea"), lambda: pin(ws, "green tea", remove=True),
                 lambda: pin(ws, "green tea"), lambda: by_hand(ws, " <!-- keep -->", "")):
        step()
        report = why(ws, "green tea")
        assert (report.commit, report.kind) == (origin, "dream"), report
        assert [e["cursor"] for e in report.entries] == [1]
        shown = runner.invoke(app, ["why", "green tea", "-w", str(ws.root)])
        assert "pin:" not in shown.output and "manual" not in shown.output, shown.output


def test_a_pin_added_by_hand_is_seen_through_but_a_changed_fact_is_not(workspace):
    ws = workspace
    dream(ws, entry(1, "[permanent] USER.md: Prefers green tea"))
    origin = git(ws, "rev-parse", "HEAD")
    by_hand(ws, "Prefers green tea", "Prefers green tea <!-- keep -->")
    assert why(ws, "green tea").commit == origin
    by_hand(ws, "green tea", "black tea")
    changed = why(ws, "black tea")
    assert changed.kind == "manual" and changed.commit == git(ws, "rev-parse", "HEAD")


def test_a_line_a_commit_only_moved_or_rebulleted_keeps_its_writer(workspace):
    ws = workspace
    dream(ws, entry(1, "[durable] memory/MEMORY.md: Uses postgres 16"),
          entry(2, "[durable] memory/MEMORY.md: Ships on Fridays"))
    origin = git(ws, "rev-parse", "HEAD")
    memory = ws.root / "memory" / "MEMORY.md"
    text = memory.read_text()
    memory.write_text(text.replace("- Uses postgres 16\n", "").replace("- Ships on Fridays\n",
                                                                       "- Ships on Fridays\n* Uses postgres 16\n"))
    git(ws, "commit", "-qam", "manual: reorder\n\nDream-Kind: manual")
    assert why(ws, "postgres 16").commit == origin
