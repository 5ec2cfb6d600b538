"""When a memory line's fact became true, asked for many lines at once (a batch's replaced facts): the same
answers `why` gives one line at a time, from one blame per file and one `cat-file` in all."""

from __future__ import annotations

from datetime import date

from nanodream.edits.pin import pin
from nanodream.versioning import gitrunner
from nanodream.versioning.gitstore import GitStore
from nanodream.versioning.provenance import taught_days, taught_on
from tests.support.memory_engine import dream
from tests.support.workspaces import entry, git


def numbered(ws, path: str, text: str) -> tuple[str, int, str]:
    lines = (ws.root / path).read_text().splitlines()
    number = next(n for n, line in enumerate(lines, start=1) if text in line)
    return path, number, lines[number - 1]


def test_many_lines_get_the_answers_one_line_at_a_time_gets(workspace, monkeypatch):
    ws = workspace
    dream(ws, entry(1, "[durable] memory/MEMORY.md: Uses postgres 16", day=3),
          entry(2, "[permanent] USER.md: Prefers green tea", day=4))
    dream(ws, entry(3, "[durable] memory/MEMORY.md: Ships on Fridays", day=9))
    pin(ws, "green tea")  # its writer is a pin: looked through to the dream that wrote the fact
    user = ws.root / "USER.md"
    user.write_text(user.read_text() + "- Likes rain\n")
    git(ws, "commit", "-qam", "manual: by hand\n\nDream-Kind: manual")
    memory = ws.root / "memory" / "MEMORY.md"
    memory.write_text(memory.read_text() + "- Not committed yet\n")
    asked = [numbered(ws, "memory/MEMORY.md", "postgres"), numbered(ws, "USER.md", "green tea"),
             numbered(ws, "memory/MEMORY.md", "Fridays"), numbered(ws, "USER.md", "rain"),
             numbered(ws, "memory/MEMORY.md", "Not committed")]
    store = GitStore(ws)
    one_by_one = {(path, number): taught_on(store, path, number, text) for path, number, text in asked}

    spawned: list[list[str]] = []
    spawn = gitrunner._spawn
    monkeypatch.setattr(gitrunner, "_spawn", lambda *args: spawned.append(args[1]) or spawn(*args))
    at_once = taught_days(GitStore(ws), asked)

    assert at_once == one_by_one == {asked[0][:2]: date(2026, 10, 3), asked[1][:2]: date(2026, 10, 4),
                                     asked[2][:2]: date(2026, 10, 9), asked[3][:2]: None, asked[4][:2]: None}
    # a blame per file and one cat-file; then the pinned line alone is looked through one step at a time
    assert [argv[2] for argv in spawned][:3] == ["blame", "blame", "cat-file"]


def test_three_git_processes_for_any_number_of_lines_and_none_when_asked_again(workspace, monkeypatch):
    ws = workspace
    dream(ws, *(entry(n, f"[durable] memory/MEMORY.md: Shard s{n} lives on host oak{n}", day=n) for n in range(1, 6)),
          entry(6, "[permanent] USER.md: Prefers green tea", day=6))
    asked = [numbered(ws, "memory/MEMORY.md", f"s{n} ") for n in range(1, 6)] + [numbered(ws, "USER.md", "tea")]
    spawned: list[list[str]] = []
    spawn = gitrunner._spawn
    monkeypatch.setattr(gitrunner, "_spawn", lambda *args: spawned.append(args[1]) or spawn(*args))
    expected = {line[:2]: date(2026, 10, n) for n, line in enumerate(asked, start=1)}
    assert taught_days(GitStore(ws), asked) == expected
    assert [argv[2] for argv in spawned] == ["blame", "blame", "cat-file"]
    spawned.clear()
    assert taught_days(GitStore(ws), asked) == expected  # a later batch of the same run
    assert spawned == []
