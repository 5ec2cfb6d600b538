"""What one process learned from git, the next one reads instead of asking again — and only ever the right answer:
a commit's blame, skills' change times and progress trailers worked out from the commit equal git's own, a memo
that is garbage or about other commits is never believed, and a run started cold costs a handful of processes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from nanodream.versioning import gitcache, gitmemo, gitrunner
from nanodream.versioning.gitstore import DREAM_IDENTITY, GitStore, shifted_times
from tests.support.scripted_server import ScriptedServer, call, final
from tests.support.workspaces import entry, git, write_history

MEMORY = "memory/MEMORY.md"


def forget(workspace) -> None:
    """As a new process knows it: nothing in memory, and (when asked) nothing on disk either."""
    gitcache._ANSWERS.clear()
    gitcache._FIXED.clear()
    gitcache._drop_scratch()
    gitmemo._LOADED.clear()


def counted(monkeypatch) -> list[list[str]]:
    calls: list[list[str]] = []
    spawn = gitrunner._spawn

    def counting(root, argv, env, stdin):
        calls.append(argv[2:])
        return spawn(root, argv, env, stdin)

    monkeypatch.setattr(gitrunner, "_spawn", counting)
    return calls


def edit(path, *, add=(), drop=(), change=None) -> None:
    lines = path.read_text().split("\n")
    lines = [line for line in lines if line not in drop]
    if change:
        lines = [change[1] if line == change[0] else line for line in lines]
    at = lines.index("## Project") + 1 if "## Project" in lines else len(lines)
    path.write_text("\n".join(lines[:at] + list(add) + lines[at:]))


def test_the_blame_of_a_commit_worked_out_from_its_diff_is_gits(workspace, monkeypatch):
    store = GitStore(workspace)
    memory = workspace.root / MEMORY
    steps = [dict(add=["- Uses Go.", "- Deploys with ko."]), dict(add=["- Works from Lisbon."]),
             dict(change=("- Uses Go.", "- Uses Go 1.23.")), dict(drop=["- Deploys with ko."]),
             dict(add=["- Reviews on Fridays.", "- Tests with gotestsum."],
                  change=("- Works from Lisbon.", "- Moved."))]
    for day, step in enumerate(steps, start=1):
        assert store.line_times(MEMORY) is not None  # the run's signals blame the file before the session
        edit(memory, **step)
        monkeypatch.setenv("GIT_COMMITTER_DATE", f"@{1_700_000_000 + day * 86_400} +0000")
        assert store.commit(f"dream: step {day}", DREAM_IDENTITY)
        calls = counted(monkeypatch)
        worked_out = store.line_times(MEMORY)
        assert calls == []  # known without a blame
        monkeypatch.undo()
        forget(workspace)
        shutil.rmtree(workspace.root / ".git" / "nanodream")
        assert worked_out == GitStore(workspace).line_times(MEMORY), step


def test_a_new_process_reads_the_answers_the_last_one_learned(workspace, monkeypatch):
    store = GitStore(workspace)
    edit(workspace.root / MEMORY, add=["- Uses Go."])
    store.commit("dream: one\n\nDream-Cursor: 1..4", DREAM_IDENTITY)
    expected = (store.line_times(MEMORY), store.line_times("SOUL.md"), store.last_change_times("skills/"),
                store.progress_trailers())
    forget(workspace)
    calls = counted(monkeypatch)
    again = GitStore(workspace)
    assert (again.line_times(MEMORY), again.line_times("SOUL.md"), again.last_change_times("skills/"),
            again.progress_trailers()) == expected
    assert calls == []
    assert expected[3] is not None and expected[3].cursor_mark == 4


def test_progress_trailers_follow_commits_that_move_nothing_and_accepted_proposals(workspace, monkeypatch):
    store = GitStore(workspace)
    memory = workspace.root / MEMORY
    for day, message in enumerate(["dream: one\n\nDream-Cursor: 1..3", "manual: a hand edit",
                                   "review: accepted\n\nDream-Cursor: 4..9\nDream-Accepted: a proposal",
                                   "dream: quoted\n\nSays Dream-Cursor: 5..7 in prose"], start=1):
        edit(memory, add=[f"- Fact {day}."])
        store.commit(message, DREAM_IDENTITY)
        worked_out = store.progress_trailers()
        forget(workspace)
        by_git = GitStore(workspace).progress_trailers()
        assert (worked_out and worked_out.cursor_mark) == (by_git and by_git.cursor_mark) == 3, message


def test_a_memo_that_is_garbage_or_about_other_commits_is_never_believed(workspace):
    store = GitStore(workspace)
    head = store.head_sha()
    truth = store.line_times(MEMORY)
    memo = workspace.root / ".git" / "nanodream" / "answers.json"
    plants = [b"{not json", json.dumps({"version": 1, "answers": [["blame", MEMORY, [head, "0" * 32], [1, 2]]]}),
              json.dumps({"version": 1, "answers": [["blame", MEMORY, [head, gitcache.bytes_digest(
                  (workspace.root / MEMORY).read_bytes())], ["a", {}]]]}),
              json.dumps({"version": 7, "answers": "x"}), b"\0" * 100]
    for plant in plants:
        memo.write_bytes(plant if isinstance(plant, bytes) else plant.encode())
        forget(workspace)
        assert GitStore(workspace).line_times(MEMORY) == truth


def test_the_private_index_kept_for_one_commit_is_not_used_for_another(workspace, monkeypatch):
    store = GitStore(workspace)
    memory = workspace.root / MEMORY
    edit(memory, add=["- Uses Go."])
    first = store.commit("dream: one", DREAM_IDENTITY)
    git(workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "by hand")
    (workspace.root / "notes.txt").write_text("not memory\n")
    git(workspace, "add", "-f", "notes.txt")
    git(workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "notes")
    forget(workspace)
    edit(memory, add=["- Uses chi."])
    calls = counted(monkeypatch)
    second = GitStore(workspace).commit("dream: two", DREAM_IDENTITY)
    assert [argv[0] for argv in calls if argv[0] == "read-tree"] == ["read-tree"]  # HEAD moved past the kept one
    assert git(workspace, "show", f"{second}:notes.txt") == "not memory"
    assert git(workspace, "rev-parse", f"{second}~3") == first
    forget(workspace)
    edit(memory, add=["- Uses sqlc."])
    calls = counted(monkeypatch)
    third = GitStore(workspace).commit("dream: three", DREAM_IDENTITY)
    assert "read-tree" not in [argv[0] for argv in calls]  # kept for the commit it starts from
    assert git(workspace, "show", f"{third}:notes.txt") == "not memory"
    assert git(workspace, "diff", "--name-only", second, third) == MEMORY


def test_shifted_times_keep_the_lines_a_commit_kept():
    old = [b"# Memory", b"- a", b"- b", b"- c"]
    assert shifted_times(old, [1, 2, None, 3], [b"# Memory", b"- a", b"- new", b"- b", b"- c"], 9) == [1, 2, 9, 9, 3]
    assert shifted_times([], [], [b"x", b"y"], 5) == [5, 5]
    assert shifted_times(old, [1, 2, 2, 3], [], 5) == []


def test_a_one_batch_run_after_init_runs_at_most_eight_git_processes(workspace, tmp_path):
    """As cron runs it: a whole `nanodream run` process, every git it starts counted by a wrapper on PATH."""
    bin_dir, log = tmp_path / "bin", tmp_path / "git.log"
    bin_dir.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{shutil.which("git")}" "$@"\n')
    wrapper.chmod(0o755)
    script = []
    for day in (1, 2):
        script += [call("edit_file", path=MEMORY, old_text="## Project\n", new_text=f"## Project\n- Fact {day}.\n"),
                   final(f"Filed fact {day}\n- {MEMORY}: one bullet")]
    with ScriptedServer(script) as server:
        env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "NANODREAM_API_KEY": "k",
               "NANODREAM_MODEL": "openai/m", "NANODREAM_API_BASE": server.url, "NANODREAM_MAX_RETRIES": "0"}
        for day in (1, 2):
            write_history(workspace, [entry(i, f"[durable] Fact {i}.", day=i) for i in range(1, day + 1)])
            log.write_text("")
            done = subprocess.run([sys.executable, "-m", "nanodream", "run", "-w", str(workspace.root), "--json",
                                   "--max-batches", "1"], env=env, capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            assert len(json.loads(done.stdout)["commits"]) == 1
            calls = log.read_text().splitlines()
            assert len(calls) <= 8, calls


def test_a_memo_folder_that_is_a_link_leads_nowhere(workspace, tmp_path):
    """In a fleet the repository is a tenant's: a link must not make the worker write or delete elsewhere."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "index-0000").write_text("someone else's file\n")
    shutil.rmtree(workspace.root / ".git" / "nanodream", ignore_errors=True)
    (workspace.root / ".git" / "nanodream").symlink_to(outside)
    forget(workspace)
    edit(workspace.root / MEMORY, add=["- Uses Go."])
    sha = GitStore(workspace).commit("dream: one", DREAM_IDENTITY)
    assert sha and git(workspace, "show", f"{sha}:{MEMORY}").count("- Uses Go.") == 1
    assert sorted(path.name for path in outside.iterdir()) == ["index-0000"]
    assert (outside / "index-0000").read_text() == "someone else's file\n"


def test_a_kept_index_that_is_not_whole_is_not_used(workspace, monkeypatch):
    store = GitStore(workspace)
    memory = workspace.root / MEMORY
    edit(memory, add=["- Uses Go."])
    first = store.commit("dream: one", DREAM_IDENTITY)
    kept = workspace.root / ".git" / "nanodream" / f"index-{first}"
    data = bytearray(kept.read_bytes())
    data[40] ^= 0xFF
    kept.write_bytes(bytes(data))
    forget(workspace)
    edit(memory, add=["- Uses chi."])
    calls = counted(monkeypatch)
    second = GitStore(workspace).commit("dream: two", DREAM_IDENTITY)
    assert "read-tree" in [argv[0] for argv in calls]
    assert git(workspace, "diff", "--name-only", first, second) == MEMORY
    assert git(workspace, "ls-tree", "-r", "--name-only", second) == git(workspace, "ls-tree", "-r", "--name-only",
                                                                         first)


def test_status_of_a_workspace_nothing_was_committed_to_since_asks_git_nothing(workspace, monkeypatch):
    """HEAD's message and the newest dream are kept by HEAD's id (as the config listing is by its files), and a
    review lane with no ref needs no rev-parse: a later `status` process starts no git process at all."""
    from nanodream.config import Settings
    from nanodream.run.dream import run_dream
    from nanodream.status import workspace_status

    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    assert run_dream(workspace, Settings(model="builtin", phases=())).outcome == "committed"
    first = workspace_status(workspace, Settings())
    forget(workspace)
    calls = counted(monkeypatch)
    again = workspace_status(workspace, Settings())
    assert calls == []
    assert (again.last_commit_subject, again.last_dream) == (first.last_commit_subject, first.last_dream)
    assert again.last_dream is not None and again.last_dream["kind"] == "dream"
    assert again.proposals == {"pending": 0, "conflicted": 0}
    edit(workspace.root / MEMORY, add=["- Uses chi."])
    GitStore(workspace).commit("manual: by hand\n\nDream-Kind: manual", DREAM_IDENTITY)
    after = workspace_status(workspace, Settings())  # a new commit: asked again, never an old answer
    assert after.last_commit_subject == "manual: by hand" and after.last_dream == first.last_dream
