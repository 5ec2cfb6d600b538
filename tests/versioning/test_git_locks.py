"""A git killed while it holds a lock never wedges the workspace: a lock no live process can hold is cleared by
the door's recovery; one a live process may hold stops the command for a person (exit 78) naming the file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nanodream.cli import app
from nanodream.workspace import Workspace
from tests.support.cli import runner
from tests.support.paths import REPO
from tests.support.workspaces import entry, git, snapshot, write_history

REPO = REPO


def real_git() -> str:
    return subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True, check=True).stdout.strip()


def aimed_git(tmp_path: Path, aim: str) -> Path:
    """A `git` first on PATH that lets every command through, except the first one whose arguments hold `aim`:
    that one runs with a reference-transaction hook that SIGKILLs it once it holds its ref locks ("prepared")
    — a real git killed mid-commit, exactly as a kill -9 aimed at it would leave the repository."""
    folder = tmp_path / "aimed"
    (folder / "hooks").mkdir(parents=True)
    hook = folder / "hooks" / "reference-transaction"
    hook.write_text('#!/bin/sh\n[ "$1" = prepared ] && kill -9 $PPID\nexit 0\n')
    hook.chmod(0o755)
    armed = folder / "armed"
    armed.touch()
    wrapper = folder / "git"
    wrapper.write_text(f"""#!/bin/sh
case " $* " in
  *" {aim} "*)
    if [ -e '{armed}' ]; then
      rm -f '{armed}'
      n=${{GIT_CONFIG_COUNT:-0}}
      export GIT_CONFIG_KEY_$n=core.hooksPath GIT_CONFIG_VALUE_$n='{folder / "hooks"}' GIT_CONFIG_COUNT=$((n + 1))
    fi;;
esac
exec '{real_git()}' "$@"
""")
    wrapper.chmod(0o755)
    return folder


def nanodream(ws: Workspace, *args: str, path_first: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NANODREAM_", "GIT_"))}
    if path_first is not None:
        env["PATH"] = f"{path_first}{os.pathsep}{env['PATH']}"
    return subprocess.run([sys.executable, "-m", "nanodream", *args, "-w", str(ws.root)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_git_killed_holding_the_ref_locks_is_recovered_by_the_next_run(workspace, tmp_path):
    write_history(workspace, [entry(1, "[durable] The API is written in Go."),
                              entry(2, "[durable] Deploys go through Fly.io.")])
    (workspace.root / "nanodream.toml").write_text('model = "builtin"\n')
    git(workspace, "add", "nanodream.toml")
    git(workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "config", "--no-verify")
    before = snapshot(workspace)

    killed = nanodream(workspace, "run", path_first=aimed_git(tmp_path, "update-ref"))

    assert killed.returncode == 1, killed.stdout + killed.stderr
    left = sorted(p.relative_to(workspace.root).as_posix() for p in (workspace.root / ".git").rglob("*.lock"))
    assert left, "the aimed kill left no lock: the test aimed at nothing"
    assert snapshot(workspace) == before  # the failed commit put every file back

    again = nanodream(workspace, "run", "--json")

    assert again.returncode == 0, again.stdout + again.stderr
    assert not list((workspace.root / ".git").rglob("*.lock"))
    assert any(lock in again.stdout for lock in left)  # the notice names what it removed
    memory = (workspace.root / "memory" / "MEMORY.md").read_text(encoding="utf-8")
    assert memory.count("Go") == 1 and memory.count("Fly.io") == 1
    subprocess.run(["git", "fsck", "--strict", "--no-progress"], cwd=workspace.root, check=True, capture_output=True)


@pytest.mark.parametrize("lock", [".git/index.lock", ".git/HEAD.lock", ".git/refs/heads/main.lock",
                                  ".git/refs/nanodream/pending.lock", ".git/packed-refs.lock"])
def test_a_lock_no_process_holds_is_cleared_and_the_dream_goes_on(workspace, lock):
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    (workspace.root / lock).parent.mkdir(parents=True, exist_ok=True)
    (workspace.root / lock).write_text("")  # what a git killed between taking and renaming it leaves

    done = runner.invoke(app, ["run", "--json", "-w", str(workspace.root)])

    assert done.exit_code == 0, done.output
    assert not (workspace.root / lock).exists() and lock in done.output
    assert "Go" in (workspace.root / "memory" / "MEMORY.md").read_text(encoding="utf-8")


def test_a_lock_a_live_git_may_hold_stops_for_a_person_naming_it(workspace):
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    lock = workspace.root / ".git" / "index.lock"
    lock.write_text("")
    before = snapshot(workspace)
    live = subprocess.Popen(["git", "cat-file", "--batch"], cwd=workspace.root, stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL)  # a git working in the workspace, as a person's would
    try:
        done = runner.invoke(app, ["run", "-w", str(workspace.root)])
        for_review = runner.invoke(app, ["restore", "HEAD", "-w", str(workspace.root)])
    finally:
        live.communicate(b"")

    for result in (done, for_review):
        assert result.exit_code == 78, result.output
        said = " ".join(result.output.split())
        assert ".git/index.lock" in said and f"pid {live.pid}" in said and "delete .git/index.lock" in said
    assert lock.exists() and snapshot(workspace) == before

    assert runner.invoke(app, ["run", "-w", str(workspace.root)]).exit_code == 0  # the git finished: stale now
    assert not lock.exists()


def test_a_lock_another_process_has_open_stops_for_a_person(workspace):
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    lock = workspace.root / ".git" / "HEAD.lock"
    holder = subprocess.Popen([sys.executable, "-c", "import sys; f = open(sys.argv[1], 'w'); sys.stdin.read()",
                               str(lock)], stdin=subprocess.PIPE)
    try:
        while not lock.exists():
            pass
        done = runner.invoke(app, ["run", "-w", str(workspace.root)])
    finally:
        holder.communicate(b"")
    assert done.exit_code == 78, done.output
    assert ".git/HEAD.lock" in " ".join(done.output.split())
