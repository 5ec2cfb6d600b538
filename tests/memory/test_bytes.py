"""A dream changes the lines it means to change and nothing else: modes, encodings and line endings survive."""

from __future__ import annotations

import os
import stat

from nanodream.atomic import atomic_write
from nanodream.config import Settings
from nanodream.memory.staging import with_original_endings
from nanodream.run.dream import run_dream
from tests.support.fakes import NoteEngine
from tests.support.workspaces import entry, git, write_history

MEMORY = "memory/MEMORY.md"


def commit_by_hand(ws) -> None:
    git(ws, "add", "-A")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "prepare")


def dream_one_note(ws) -> None:
    write_history(ws, [entry(1, "[durable] A fact.")])
    report = run_dream(ws, Settings(model="fake/m"), engine_factory=NoteEngine())
    assert report.outcome == "committed", report.reason


def numstat(ws, path: str) -> str:
    return git(ws, "show", "--numstat", "--format=", "HEAD", "--", path)


def test_a_written_file_keeps_its_mode(workspace):
    target = workspace.root / MEMORY
    os.chmod(target, 0o640)  # git records only the executable bit: nothing to commit, but the mode is theirs
    dream_one_note(workspace)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert "- noted 1..1" in target.read_text()


def test_a_new_file_follows_the_umask_not_the_temp_files_0600(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write(tmp_path / "skills" / "new" / "SKILL.md", "---\nname: new\n---\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "skills" / "new" / "SKILL.md").stat().st_mode) == 0o640


def test_crlf_lines_the_dream_did_not_touch_keep_their_bytes_and_new_lines_follow_the_file(workspace):
    target = workspace.root / MEMORY
    original = b"# Memory\r\n\r\nProject context.\r\n\r\n## Project\r\n- an old fact\r\n"
    target.write_bytes(original)
    commit_by_hand(workspace)

    dream_one_note(workspace)

    after = target.read_bytes()
    # the double files the batch's fact too (the per-fact accounting): both new lines take the file's CRLF
    assert after == (b"# Memory\r\n\r\nProject context.\r\n\r\n## Project\r\n"
                     b"- noted 1..1\r\n- A fact.\r\n- an old fact\r\n")
    assert numstat(workspace, MEMORY) == f"2\t0\t{MEMORY}"


def test_bytes_that_are_not_utf8_survive_a_dream_of_the_same_file(workspace):
    target = workspace.root / MEMORY
    latin1 = "- Café in Zürich\n".encode("latin-1")
    target.write_bytes(b"# Memory\n\n## Project\n" + latin1)
    commit_by_hand(workspace)

    dream_one_note(workspace)

    assert target.read_bytes() == b"# Memory\n\n## Project\n- noted 1..1\n- A fact.\n" + latin1
    assert numstat(workspace, MEMORY) == f"2\t0\t{MEMORY}"


def test_mixed_endings_keep_each_line_as_it_was():
    raw = "a\r\nb\nc\r\nd"
    assert with_original_endings(raw, "a\nb\nNEW\nc\nd") == "a\r\nb\nNEW\r\nc\r\nd"
    assert with_original_endings(raw, "a\nc\nd") == "a\r\nc\r\nd"
    assert with_original_endings(None, "x\n") == "x\n"
    assert with_original_endings("lf only\n", "lf only\nmore\n") == "lf only\nmore\n"
