"""Broken setups end in one clear line and a documented exit code — never a traceback, never a changed file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nanodream.cli import main
from nanodream.workspace import Workspace, scaffold
from tests.support.workspaces import entry, snapshot, write_history


def run_main(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    """The console entry point in-process: its exit code and everything it printed."""
    monkeypatch.setattr(sys, "argv", ["nanodream", *args])
    monkeypatch.setattr("nanodream.process._program", False)  # main() claims the process: give it back after
    with pytest.raises(SystemExit) as ended:
        main()
    out = capsys.readouterr()
    return int(ended.value.code or 0), out.out + out.err


def _history_is_a_directory(ws: Workspace) -> None:
    ws.history_file.unlink()
    ws.history_file.mkdir()


def _memory_file_is_a_directory(ws: Workspace) -> None:
    (ws.root / "memory/MEMORY.md").unlink()
    (ws.root / "memory/MEMORY.md").mkdir()


def _lock_is_a_directory(ws: Workspace) -> None:
    ws.lock_file.mkdir(parents=True)


def _soul_is_a_symlink(ws: Workspace, outside: Path) -> None:
    """A core file that is a link still stops everything (a linked skill is left alone: test_linked_skills.py)."""
    (ws.root / "SOUL.md").rename(outside / "SOUL.md")
    (ws.root / "SOUL.md").symlink_to(outside / "SOUL.md")


BROKEN = {
    "history.jsonl is a directory": (_history_is_a_directory, ("status",), 2, "history.jsonl is not a file"),
    "MEMORY.md is a directory": (_memory_file_is_a_directory, ("run",), 2, "MEMORY.md is not a file"),
    "dream.lock is a directory": (_lock_is_a_directory, ("run",), 2, "dream.lock is not a file"),
    "SOUL.md is a symlink": (_soul_is_a_symlink, ("run",), 78, "SOUL.md is a symbolic link"),
}


@pytest.mark.parametrize("case", BROKEN, ids=list(BROKEN))
def test_a_broken_workspace_gets_one_line_and_a_documented_code(workspace, tmp_path, monkeypatch, capsys, case):
    break_it, command, code, message = BROKEN[case]
    write_history(workspace, [entry(1, "[durable] A fact.")])
    if break_it is _soul_is_a_symlink:
        (tmp_path / "elsewhere").mkdir()
        break_it(workspace, tmp_path / "elsewhere")
    else:
        break_it(workspace)
    before = snapshot(workspace)
    exit_code, output = run_main(monkeypatch, capsys, *command, "-w", str(workspace.root))
    assert (exit_code, output.count("\n")) == (code, 1), output
    assert output.startswith("blocked: " if code == 78 else "error: ") and message in output
    assert "Traceback" not in output
    assert snapshot(workspace) == before


def test_init_on_an_existing_file_says_so(tmp_path, monkeypatch, capsys):
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    exit_code, output = run_main(monkeypatch, capsys, "init", str(target))
    assert exit_code == 2 and output == f"error: {target} is a file, not a directory; choose another path for the " \
                                        "workspace\n"
    assert target.read_text() == "mine"


def _read_only(root: Path, *args: str) -> subprocess.CompletedProcess:
    """`nanodream ARGS` with the workspace bind-mounted read-only (root ignores file modes; a mount does not)."""
    nanodream = str(Path(sys.executable).with_name("nanodream"))
    script = f'mount --bind -o ro "$1" "$1" && shift && exec {nanodream} "$@"'
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(root), *args],
                          capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"}, check=False)


def test_a_read_only_workspace_previews_with_dry_run_and_refuses_a_real_run_in_one_line(tmp_path):
    root = tmp_path / "ws"
    scaffold(root, example=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    preview = _read_only(root, "run", "--dry-run", "-w", str(root))
    assert preview.returncode == 0, preview.stderr
    assert "dry run" in preview.stdout and "Traceback" not in preview.stderr
    real = _read_only(root, "run", "-w", str(root))
    assert real.returncode == 1 and real.stderr.startswith("error: Read-only file system")
    assert real.stderr.count("\n") == 1 and "Traceback" not in real.stderr


def test_every_writer_refuses_a_read_only_workspace_the_same_way(tmp_path):
    """One process: the door says it for each command that writes, one line, exit 1, nothing written."""
    root = tmp_path / "ws"
    scaffold(root, example=True)
    assert main_in_subprocess(root, "run") == 0  # a repository and a dream commit to act on
    commands = [["restore", "HEAD"], ["pin", "Go"], ["forget", "--session", "cli:direct"],
                ["review", "accept", "--all"], ["prompt", "init"], ["history", "ack", "--all"],
                ["hypotheses", "promote", "USER.md:1"]]
    before = snapshot(Workspace.at(root))
    for command in commands:
        done = _read_only(root, *command, "-w", str(root))
        assert done.returncode == 1, (command, done.stdout, done.stderr)
        assert done.stderr.startswith("error: Read-only file system") and done.stderr.count("\n") == 1, done.stderr
        assert "Traceback" not in done.stderr
    assert snapshot(Workspace.at(root)) == before


def main_in_subprocess(root: Path, *args: str) -> int:
    nanodream = str(Path(sys.executable).with_name("nanodream"))
    return subprocess.run([nanodream, *args, "-w", str(root)], capture_output=True, check=False).returncode
