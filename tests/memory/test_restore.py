"""Undoing memory commits over real histories: several dreams with a hand edit in between."""

from __future__ import annotations

import pytest

import nanodream.memory.transaction
from nanodream.backlog.history import read_cursor
from nanodream.edits.restore import restore_commit
from nanodream.memory.journal import Journal
from nanodream.memory.lock import workspace_lock
from nanodream.memory.transaction import recover
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import ExitCode
from tests.support.memory_engine import LiteralEngine, build_history, dream
from tests.support.workspaces import entry, git, snapshot

MEMORY, USER, SOUL, REJECTED = "memory/MEMORY.md", "USER.md", "SOUL.md", "memory/rejected.md"


def read(ws, path: str) -> str:
    return (ws.root / path).read_text()


@pytest.fixture
def history(workspace):
    return workspace, build_history(workspace)


def test_undoing_a_middle_dream_keeps_earlier_and_later_changes(history):
    ws, shas = history
    old_head = git(ws, "rev-parse", "HEAD")
    report = restore_commit(ws, shas["b"][:8])

    assert report.outcome == "restored", report.reason
    assert "Deploys on Fridays" not in read(ws, MEMORY)
    assert "- Uses postgres 16" in read(ws, MEMORY)  # earlier dream a
    assert "- Lives in Lyon" in read(ws, USER)  # later dream c
    assert "Hand rule" in read(ws, SOUL)  # the hand edit in between
    assert report.changes == [f"{MEMORY}: modified (+0 -1)", f"{REJECTED}: added (+5 -0)"]
    assert report.rejected == ["Deploys on Fridays"]
    # a new commit on top; nothing rewritten
    assert git(ws, "rev-parse", "HEAD~1") == old_head
    message = git(ws, "log", "-1", "--format=%B")
    assert message.startswith(f"restore: undo dream {shas['b'][:8]}")
    assert f"Dream-Kind: restore\nDream-Restores: {shas['b']}\nDream-Restore-Mode: undo" in message
    assert "Dream-Cursor-Reset" not in message
    assert git(ws, "status", "--porcelain") == ""


def test_undo_merges_around_a_later_edit_of_the_same_file(history):
    ws, shas = history
    memory = ws.root / MEMORY
    memory.write_text(memory.read_text().replace("# Memory\n", "# Memory of ledgerline\n"))
    git(ws, "commit", "-qam", "retitle")
    report = restore_commit(ws, shas["b"])
    assert report.outcome == "restored", report.reason
    assert read(ws, MEMORY).startswith("# Memory of ledgerline\n")
    assert "Fridays" not in read(ws, MEMORY) and "- Uses postgres 16\n" in read(ws, MEMORY)


def test_a_hand_edit_next_to_the_undone_line_is_kept(history):
    ws, shas = history
    (ws.root / MEMORY).write_text(read(ws, MEMORY) + "- hand: staging is eu-west\n")
    report = restore_commit(ws, shas["b"])
    assert report.outcome == "restored", report.reason  # adjacent is not the same line
    assert read(ws, MEMORY).endswith("- Uses postgres 16\n- hand: staging is eu-west\n")


def test_conflicting_restore_refuses_and_changes_nothing(history):
    ws, shas = history
    dream(ws, entry(6, "[correction] memory/MEMORY.md: Deploys on Fridays => Deploys on Mondays"))
    before = snapshot(ws)
    report = restore_commit(ws, shas["b"])
    assert report.outcome == "refused" and report.exit_code == ExitCode.FAILED
    assert f"cannot undo {shas['b'][:8]} alone" in report.reason and MEMORY in report.reason
    assert report.conflicts == [f"{MEMORY}: '- Deploys on Fridays' was edited since"]
    assert f"nanodream restore {shas['b'][:8]} --before" in report.hint
    assert snapshot(ws) == before
    assert git(ws, "status", "--porcelain") == ""
    assert not ws.journal_file.exists()


def test_conflict_with_hand_edits_pending_commits_nothing_either(history):
    ws, shas = history
    dream(ws, entry(6, "[correction] memory/MEMORY.md: Deploys on Fridays => Deploys on Mondays"))
    (ws.root / USER).write_text(read(ws, USER) + "- hand: likes rain\n")
    before = snapshot(ws)
    report = restore_commit(ws, shas["b"])
    assert report.outcome == "refused"
    assert snapshot(ws) == before  # the pending hand edit is neither committed nor lost
    assert git(ws, "status", "--porcelain") == f"M {USER}"


def test_before_restores_exactly_the_earlier_bytes_as_a_new_commit(history):
    ws, shas = history
    dream(ws, entry(6, "[correction] memory/MEMORY.md: Deploys on Fridays => Deploys on Mondays"))
    skill = ws.root / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_bytes(b"---\nname: deploy\ndescription: Deploy\n---\n\n1. ship\n")
    (ws.root / MEMORY).write_bytes((ws.root / MEMORY).read_bytes().replace(b"\n", b"\r\n", 1))  # odd bytes too
    old_head = git(ws, "rev-parse", "HEAD")

    report = restore_commit(ws, shas["b"], before=True)

    assert report.outcome == "restored", report.reason
    parent = f"{shas['b']}^"
    for path in (MEMORY, USER, SOUL):
        assert (ws.root / path).read_bytes() == git_bytes(ws, f"{parent}:{path}"), path
    assert not skill.exists() and not skill.parent.exists()  # created after b: gone in the restore
    assert git(ws, "log", "-1", "--format=%s", "HEAD~1").startswith("manual: hand edits")  # the hand edits kept
    assert git(ws, "rev-parse", "HEAD~2") == old_head
    assert git(ws, "show", "HEAD~1:skills/deploy/SKILL.md").startswith("---")
    assert "Dream-Restore-Mode: before" in git(ws, "log", "-1", "--format=%B")
    assert git(ws, "status", "--porcelain") == ""


def git_bytes(ws, spec: str) -> bytes:
    import subprocess

    return subprocess.run(["git", "show", spec], cwd=ws.root, check=True, capture_output=True).stdout


def test_without_replay_the_cursor_stays_and_the_next_run_does_not_readd(history):
    ws, shas = history
    assert read_cursor(ws.cursor_file) == 5
    report = restore_commit(ws, shas["b"])
    assert report.cursor_before == report.cursor_after == 5

    engine = LiteralEngine()
    rerun = dream(ws, engine=engine)  # same history, nothing new
    assert rerun.outcome == "nothing-to-do" and engine.batches == []
    assert "Fridays" not in read(ws, MEMORY)

    ws.cursor_file.unlink()  # even a lost cursor is fast-forwarded from the commits, not re-read from 0
    rerun = dream(ws, entry(6, "[durable] memory/MEMORY.md: Uses redis"), engine=engine)
    assert "fast-forwarded to 5" in rerun.recovered
    assert engine.batches == [(6, 6)]
    assert "- Uses redis" in read(ws, MEMORY) and "Fridays" not in read(ws, MEMORY)


def test_replay_rewinds_the_cursor_and_the_run_does_not_fast_forward_past_it(history):
    ws, shas = history
    report = restore_commit(ws, shas["b"], replay=True)
    assert report.outcome == "restored"
    assert report.cursor_before == 5 and report.cursor_after == 2
    assert "Dream-Cursor-Reset: 2" in git(ws, "log", "-1", "--format=%B")
    assert GitStore(ws).progress_trailers().cursor_mark == 2

    engine = LiteralEngine()
    rerun = dream(ws, engine=engine)
    assert "fast-forward" not in rerun.recovered
    assert engine.batches == [(3, 5)]  # the batch is consumed again
    assert read(ws, MEMORY).count("- Deploys on Fridays") == 1
    assert read(ws, USER).count("- Lives in Lyon") == 2  # replay reads c's entry too: the documented price
    assert read_cursor(ws.cursor_file) == 5


def test_a_crash_after_a_replay_commit_still_rewinds_on_recovery(history, monkeypatch):
    ws, shas = history

    def crash(workspace, journal):
        raise KeyboardInterrupt("power cut")

    monkeypatch.setattr(nanodream.memory.transaction, "_settle_cursor", crash)
    with pytest.raises(KeyboardInterrupt):
        restore_commit(ws, shas["b"], replay=True)
    monkeypatch.undo()
    assert Journal.load(ws) is not None and read_cursor(ws.cursor_file) == 5
    note = recover(ws, GitStore(ws))
    assert "finished interrupted run restore-" in note
    assert read_cursor(ws.cursor_file) == 2 and Journal.load(ws) is None


def test_replay_needs_a_dream_commit(history):
    ws, shas = history
    before = snapshot(ws)
    report = restore_commit(ws, shas["manual"], replay=True)
    assert report.outcome == "refused" and report.exit_code == ExitCode.USAGE
    assert "--replay needs a dream commit" in report.reason
    assert snapshot(ws) == before


def test_hand_edits_are_committed_first_then_the_restore(history):
    ws, shas = history
    (ws.root / USER).write_text(read(ws, USER) + "- hand: likes rain\n")
    report = restore_commit(ws, shas["b"])
    assert report.outcome == "restored" and report.manual_commit
    assert git(ws, "log", "-1", "--format=%s", "HEAD~1").startswith("manual: hand edits to USER.md")
    assert "- hand: likes rain" in read(ws, USER) and "Fridays" not in read(ws, MEMORY)
    stat = git(ws, "show", "--format=", "--stat", "HEAD")
    assert stat.count("|") == 2 and USER not in stat  # the restore holds only its own change and the ledger


def test_restore_refuses_while_a_run_holds_the_lock(history):
    ws, shas = history
    before = snapshot(ws)
    with workspace_lock(ws):
        report = restore_commit(ws, shas["b"])
    assert report.outcome == "busy" and report.exit_code == ExitCode.BUSY
    assert snapshot(ws) == before


@pytest.mark.parametrize("ref,message", [
    ("0123456789abcdef", "no commit '0123456789abcdef'"),
    ("--help", "is not a commit"),
    ("", "is not a commit"),
])
def test_unknown_revision_is_a_usage_error(history, ref, message):
    ws, _ = history
    before = snapshot(ws)
    report = restore_commit(ws, ref)
    assert report.outcome == "refused" and report.exit_code == ExitCode.USAGE and message in report.reason
    assert "nanodream log" in report.hint
    assert snapshot(ws) == before


def test_first_commit_and_commits_outside_history_are_refused(history):
    ws, _ = history
    root = git(ws, "rev-list", "--max-parents=0", "HEAD")
    assert "nothing before it" in restore_commit(ws, root).reason
    git(ws, "checkout", "-q", "-b", "side")
    (ws.root / USER).write_text("side\n")
    git(ws, "commit", "-qam", "side")
    side = git(ws, "rev-parse", "HEAD")
    git(ws, "checkout", "-q", "main")
    report = restore_commit(ws, side)
    assert report.exit_code == ExitCode.USAGE and "not in the current memory history" in report.reason


def test_restoring_twice_is_nothing_to_do(history):
    ws, shas = history
    assert restore_commit(ws, shas["b"]).outcome == "restored"
    head = git(ws, "rev-parse", "HEAD")
    again = restore_commit(ws, shas["b"])
    assert again.outcome == "nothing-to-do" and again.exit_code == 0 and "already" in again.reason
    assert git(ws, "rev-parse", "HEAD") == head


def test_undoing_a_restore_brings_the_change_back(history):
    ws, shas = history
    restore_commit(ws, shas["b"])
    report = restore_commit(ws, "HEAD")
    assert report.outcome == "restored" and report.target_kind == "restore"
    assert "- Deploys on Fridays" in read(ws, MEMORY)


def test_undoing_a_dream_that_created_a_skill_deletes_it(workspace):
    engine = LiteralEngine()
    dream(workspace, entry(1, "[durable] memory/MEMORY.md: Uses postgres 16"), engine=engine)
    skill = workspace.root / "skills" / "release" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: release\ndescription: Cut a release\n---\n\n1. tag\n")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "dream: add skill\n\nDream-Kind: dream\nDream-Cursor: 2..2")
    report = restore_commit(workspace, "HEAD")
    assert report.outcome == "restored" and report.changes == ["skills/release/SKILL.md: deleted (+0 -6)"]
    assert not skill.parent.exists()


def test_a_symlinked_skill_folder_is_never_written_through(workspace, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    skill = workspace.root / "skills" / "release" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: release\ndescription: Cut a release\n---\n\n1. tag\n")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "dream: add skill\n\nDream-Kind: dream\nDream-Cursor: 1..1")
    workspace.cursor_file.write_text("1\n")
    git(workspace, "rm", "-rq", "skills/release")
    git(workspace, "commit", "-qm", "manual: drop skill\n\nDream-Kind: manual")
    (workspace.root / "skills").mkdir(exist_ok=True)
    (workspace.root / "skills" / "release").symlink_to(outside, target_is_directory=True)
    before = snapshot(workspace)
    report = restore_commit(workspace, "HEAD")  # would recreate skills/release/SKILL.md, through the link
    assert report.outcome == "refused" and report.exit_code == 1  # a linked skill is left alone, never written
    assert "skills/release is a symlink" in report.reason
    assert list(outside.iterdir()) == [] and snapshot(workspace) == before


def test_files_outside_the_memory_are_left_to_git(workspace):
    (workspace.root / "notes.txt").write_text("not memory\n")
    git(workspace, "add", "-f", "notes.txt")
    git(workspace, "commit", "-qm", "add notes by hand")
    before = snapshot(workspace)
    report = restore_commit(workspace, "HEAD")
    assert report.outcome == "refused" and "notes.txt is not a file nanodream versions" in report.reason
    assert snapshot(workspace) == before


def test_a_middle_dream_whose_section_later_dreams_appended_to_is_undone_alone(workspace):
    ws = workspace
    dream(ws, entry(1, "[durable] memory/MEMORY.md: Uses postgres 16"))
    dream(ws, entry(2, "[durable] memory/MEMORY.md: Deploys on Fridays"),
          entry(3, "[durable] memory/MEMORY.md: Staging is eu-west"))
    middle = git(ws, "rev-parse", "HEAD")
    dream(ws, entry(4, "[durable] memory/MEMORY.md: Uses redis"))
    dream(ws, entry(5, "[durable] memory/MEMORY.md: On-call is Ana"))

    report = restore_commit(ws, middle)

    assert report.outcome == "restored", report.reason
    assert read(ws, MEMORY).endswith("## Project\n- Uses postgres 16\n- Uses redis\n- On-call is Ana\n")
    assert report.changes == [f"{MEMORY}: modified (+0 -2)", f"{REJECTED}: added (+6 -0)"]


def test_undoing_a_correction_swaps_the_old_line_back_in_place(workspace):
    ws = workspace
    dream(ws, entry(1, "[durable] memory/MEMORY.md: Deploys on Fridays"),
          entry(2, "[durable] memory/MEMORY.md: Uses postgres 16"))
    dream(ws, entry(3, "[correction] memory/MEMORY.md: Deploys on Fridays => Deploys on Mondays"))
    fix = git(ws, "rev-parse", "HEAD")
    dream(ws, entry(4, "[durable] memory/MEMORY.md: Uses redis"))

    assert restore_commit(ws, fix).outcome == "restored"
    assert read(ws, MEMORY).endswith("- Deploys on Fridays\n- Uses postgres 16\n- Uses redis\n")


def test_a_removed_line_comes_back_after_its_old_neighbour(workspace):
    ws = workspace
    dream(ws, *(entry(n, f"[durable] memory/MEMORY.md: Fact {n}") for n in (1, 2, 3)))
    memory = ws.root / MEMORY
    memory.write_text(read(ws, MEMORY).replace("- Fact 2\n", ""))
    git(ws, "commit", "-qam", "manual: drop fact 2\n\nDream-Kind: manual")
    removal = git(ws, "rev-parse", "HEAD")
    dream(ws, entry(4, "[durable] memory/MEMORY.md: Fact 4"))

    assert restore_commit(ws, removal).outcome == "restored"
    assert read(ws, MEMORY).endswith("- Fact 1\n- Fact 2\n- Fact 3\n- Fact 4\n")
    assert restore_commit(ws, removal).outcome == "nothing-to-do"


def test_a_true_overlap_names_the_line_and_changes_nothing(workspace):
    ws = workspace
    dream(ws, entry(1, "[durable] memory/MEMORY.md: Uses postgres 16"))
    dream(ws, entry(2, "[durable] memory/MEMORY.md: Deploys on Fridays"))
    middle = git(ws, "rev-parse", "HEAD")
    dream(ws, entry(3, "[durable] memory/MEMORY.md: Uses redis"))
    dream(ws, entry(4, "[correction] memory/MEMORY.md: Deploys on Fridays => Deploys on Fridays at 9"))
    (ws.root / USER).write_text(read(ws, USER) + "- hand: likes rain\n")
    before = snapshot(ws)

    report = restore_commit(ws, middle)

    assert report.outcome == "refused" and "'- Deploys on Fridays' was edited since" in report.reason
    assert snapshot(ws) == before and not ws.journal_file.exists()


def test_a_plain_undo_of_a_dream_records_its_facts_and_no_later_run_readds_them(history):
    ws, shas = history
    report = restore_commit(ws, shas["c"])
    assert report.rejected == ["Lives in Lyon"]
    ledger = read(ws, REJECTED)
    assert ledger.startswith("# Rejected facts\n")
    assert f"- Lives in Lyon <!-- {USER} · restore of {shas['c'][:8]}" in ledger
    assert git(ws, "status", "--porcelain") == ""  # tracked, committed with the restore

    engine = LiteralEngine()
    dream(ws, entry(6, "[permanent] USER.md: lives in lyon"), entry(7, "[permanent] USER.md: Likes jazz"),
          engine=engine)
    assert engine.batches == [(6, 7)] and "- Likes jazz" in read(ws, USER)
    assert "lyon" not in read(ws, USER).lower()  # other history repeating it does not bring it back


@pytest.mark.parametrize("how", ["replay", "before", "manual", "restore"])
def test_replay_before_and_undoing_a_non_dream_record_nothing(history, how):
    ws, shas = history
    if how == "restore":
        restore_commit(ws, shas["c"])
        assert (ws.root / REJECTED).exists()
        report = restore_commit(ws, "HEAD")  # undoing the undo also takes the facts off the ledger
        assert report.rejected == [] and not (ws.root / REJECTED).exists() and "- Lives in Lyon" in read(ws, USER)
        return
    ref = shas["manual"] if how == "manual" else shas["b"]
    report = restore_commit(ws, ref, replay=how == "replay", before=how == "before")
    assert report.outcome == "restored" and report.rejected == []
    assert not (ws.root / REJECTED).exists()


def test_the_prompt_shows_only_the_relevant_rejected_facts_within_a_bound(history):
    from nanodream.prompting.prompt import render_next_request
    from tests.support.memory_engine import append_history, dream_settings

    ws, shas = history
    restore_commit(ws, shas["c"])
    ledger = ws.root / REJECTED
    ledger.write_text(read(ws, REJECTED) + "".join(f"- Lives in city number {n}\n" for n in range(40)))
    append_history(ws, entry(6, "[permanent] USER.md: Lives in Lyon, near the river"))
    rendered = render_next_request(ws, dream_settings())
    part = rendered.message.parts()["rejected"]
    assert "do not add them again" in part and "- Lives in Lyon" in part
    assert part.count("\n- ") <= 8 and len(part) < 1200

    append_history(ws, entry(7, "[permanent] USER.md: Prefers coffee"))
    (ws.root / REJECTED).write_text("# Rejected facts\n\n- Deploys on Fridays\n")
    ws.history_file.write_text(ws.history_file.read_text().splitlines(keepends=True)[-1])
    assert "rejected" not in render_next_request(ws, dream_settings()).message.parts()


def test_the_builtin_engine_never_files_a_rejected_fact(workspace):
    from nanodream.config import Settings
    from nanodream.run.dream import run_dream
    from tests.support.memory_engine import append_history

    (workspace.root / REJECTED).write_text("# Rejected facts\n\n- User prefers tea. <!-- USER.md · test -->\n")
    append_history(workspace, entry(1, "[permanent] user prefers TEA"), entry(2, "[permanent] User prefers dark mode"))
    report = run_dream(workspace, Settings(model="builtin"))
    assert report.outcome == "committed", report.reason
    user = read(workspace, USER)
    assert "dark mode" in user and "tea" not in user.lower()
    assert "1 fact skipped: a person rejected it" in git(workspace, "log", "-1", "--format=%B")


def test_an_older_workspace_gets_the_ledger_tracked_in_a_labelled_commit(workspace):
    gitignore = workspace.root / ".gitignore"
    gitignore.write_text(gitignore.read_text().replace("!/memory/rejected.md\n", ""))  # as nanodream used to write it
    git(workspace, "commit", "-qam", "older template")
    report = dream(workspace, entry(1, "[durable] memory/MEMORY.md: Uses postgres 16"))
    assert report.notices[0].startswith("updated .gitignore to track memory/rejected.md (commit ")
    assert "!/memory/rejected.md\n" in gitignore.read_text()
    assert git(workspace, "log", "--format=%s", "-2").splitlines()[1] == (
        "chore: track memory/rejected.md in the memory repository")
    restore_commit(workspace, "HEAD")
    assert git(workspace, "ls-files", REJECTED) == REJECTED
    assert dream(workspace).notices == []  # once
