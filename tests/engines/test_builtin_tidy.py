"""`run --tidy` with the builtin engine: repeated facts and stale open tasks go, every other byte stays."""

from __future__ import annotations

from datetime import UTC, date, datetime

from nanodream import clock
from nanodream.backlog.history import read_cursor
from nanodream.cli import app
from nanodream.config import Settings
from nanodream.engines.builtin import BuiltinEngine
from nanodream.engines.tidy import duplicate_bullets
from nanodream.markdown import MarkdownDoc
from nanodream.memory.transaction import ensure_repository
from nanodream.run.context import RunOptions
from nanodream.run.dream import run_dream
from nanodream.run.records import read_records
from nanodream.run.report import RunReport
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace, scaffold
from tests.support.cli import runner
from tests.support.gitdates import commit_at
from tests.support.workspaces import entry, git, snapshot, write_history

TODAY = date(2026, 10, 20)  # with the default 14 days, tasks dated before 2026-10-06 are stale

MEMORY = """\
# Memory

Project context: goals, architecture, decisions and infrastructure.

## Project
- Ledgerline is a self-hosted invoice service in Go.
- Uses PostgreSQL 16 as its primary database.
- Caddy terminates TLS.
- uses postgresql 16 as its primary database
- Ledgerline never stores card numbers.

## Decisions
- Decided to keep invoices immutable.
- ledgerline is a self-hosted invoice service, in Go!

## Open tasks
- (2026-09-01) Task: migrate the invoices table (in progress).
- (2026-10-06) Task: exactly fourteen days old.
- (2026-10-15) Task: write the importer.
- Task: an undated chore is never pruned.
"""
MEMORY_REMOVED = [
    "- uses postgresql 16 as its primary database\n",
    "- ledgerline is a self-hosted invoice service, in Go!\n",
    "- (2026-09-01) Task: migrate the invoices table (in progress).\n",
]

USER = """\
# User

Who the user is: identity, preferences and communication style.

## Preferences
- User prefers Neovim as their editor.
- User prefers concise answers.
- As their editor, user prefers Neovim.
- User prefers Neovim as their editor.
- User prefers Neovim, not Vim, as their editor.

## Identity
- User lives in Stockholm.
- User lives in Stockholm.
  - Moved there in 2024, from Malmö.
"""
USER_REMOVED = ["- As their editor, user prefers Neovim.\n", "- User prefers Neovim as their editor.\n"]

SOUL = """\
# Soul

## Rules
- Always answer in English.
- Always answer in English.
"""


def without(text: str, removed: list[str]) -> str:
    """`text` with the first occurrence of each line after the first copy removed (the expected tidy result)."""
    for line in removed:
        first = text.index(line)
        at = text.index(line, first + 1) if text.count(line) > 1 else first
        text = text[:at] + text[at + len(line):]
    return text


def on(day: date):
    """The one clock at noon of `day`: the engine's stale tasks and the run's own dates (ages, archive) agree."""
    return clock.pinned(datetime(day.year, day.month, day.day, 12, tzinfo=UTC))


def messy_workspace(ws: Workspace, memory: str = MEMORY, user: str = USER, soul: str = SOUL) -> Workspace:
    """Memory files committed by a person, a cursor at 2 and one entry still waiting after it."""
    (ws.root / "memory/MEMORY.md").write_text(memory, encoding="utf-8")
    (ws.root / "USER.md").write_text(user, encoding="utf-8")
    (ws.root / "SOUL.md").write_text(soul, encoding="utf-8")
    write_history(ws, [entry(1, "[durable] old"), entry(2, "[durable] old"), entry(3, "[durable] Still waiting.")])
    ws.cursor_file.write_text("2\n")
    commit_at(ws, "2026-10-01T12:00:00Z")
    return ws


def tidy(ws: Workspace, day: date = TODAY, **settings: object) -> RunReport:
    with on(day):
        report = run_dream(ws, Settings(**settings), RunOptions(tidy=True))
    assert report.outcome != "failed", report.reason
    return report


def read(ws: Workspace, path: str) -> str:
    return (ws.root / path).read_text(encoding="utf-8")


def dream_commits(ws: Workspace) -> list[str]:
    return [m for m in git(ws, "log", "--format=%B%x00").split("\0") if "Dream-Kind: dream" in m]


# run_dream(..., RunOptions(tidy=True)) ----------------------------------------------------------------------------


def test_tidy_removes_duplicates_and_stale_tasks_and_leaves_every_other_byte(workspace) -> None:
    ws = messy_workspace(workspace)
    history = ws.history_file.read_bytes()

    report = tidy(ws)

    assert report.outcome == "committed"
    assert read(ws, "memory/MEMORY.md") == without(MEMORY, MEMORY_REMOVED)
    assert read(ws, "USER.md") == without(USER, USER_REMOVED)
    assert read(ws, "SOUL.md") == SOUL  # soul_policy "tagged": only tagged history may change it
    commits = dream_commits(ws)
    assert len(commits) == 1
    message = commits[0].strip()
    assert message.startswith("dream: builtin tidy: 4 duplicates removed, 1 stale task pruned\n")
    assert "Dream-Tidy: yes" in message and "Dream-Model: builtin" in message and "Dream-Cursor:" not in message
    assert '- USER.md: duplicate removed: "As their editor, user prefers Neovim." ' \
           '(same fact as "User prefers Neovim as their editor.")' in message
    assert '- task pruned (older than 14 days): "Task: migrate the invoices table (in progress)."' in message
    assert '- SOUL.md: 1 duplicate left alone: soul_policy = "tagged"' in message
    assert read_cursor(ws.cursor_file) == 2 and ws.history_file.read_bytes() == history
    assert GitStore(ws).progress_trailers() is None
    assert read_records(ws)[-1].tidy is True


def test_a_second_tidy_finds_nothing_more_and_commits_nothing(workspace) -> None:
    ws = messy_workspace(workspace)
    tidy(ws)
    before = snapshot(ws)

    report = tidy(ws)

    assert report.outcome == "no-change"
    assert snapshot(ws) == before
    assert report.batches[0].summary.splitlines()[0] == "builtin tidy: nothing removed"  # SOUL.md's is left


def test_a_clean_workspace_gets_no_commit(workspace) -> None:
    ws = messy_workspace(workspace, memory=without(MEMORY, MEMORY_REMOVED), user=without(USER, USER_REMOVED),
                         soul="# Soul\n\n## Rules\n- Always answer in English.\n")
    before = snapshot(ws)

    report = tidy(ws)

    assert report.outcome == "no-change"
    assert report.batches[0].summary == "builtin tidy: nothing to tidy"
    assert snapshot(ws) == before and read_cursor(ws.cursor_file) == 2
    assert dream_commits(ws) == []


def test_the_same_memory_tidies_to_the_same_bytes(tmp_path) -> None:
    results = []
    for name in ("one", "two"):
        ws = Workspace.at(tmp_path / name)
        scaffold(ws.root)
        ensure_repository(GitStore(ws))
        report = tidy(messy_workspace(ws))
        results.append(({p: (ws.root / p).read_bytes() for p in ("SOUL.md", "USER.md", "memory/MEMORY.md")},
                        report.batches[0].summary))
    assert results[0] == results[1]


def test_soul_duplicates_go_when_soul_policy_is_open(workspace) -> None:
    ws = messy_workspace(workspace)
    report = tidy(ws, soul_policy="open")
    assert read(ws, "SOUL.md") == "# Soul\n\n## Rules\n- Always answer in English.\n"
    assert report.batches[0].summary.startswith("builtin tidy: 5 duplicates removed, 1 stale task pruned\n")


def test_locked_soul_is_left_and_the_rest_still_tidied(workspace) -> None:
    ws = messy_workspace(workspace)
    report = tidy(ws, soul_policy="locked")
    assert report.outcome == "committed"
    assert read(ws, "SOUL.md") == SOUL
    assert read(ws, "USER.md") == without(USER, USER_REMOVED)


def test_task_age_counts_from_today_and_the_age_setting(workspace) -> None:
    ws = messy_workspace(workspace)
    tidy(ws, day=date(2026, 10, 31), ephemeral_max_age_days=10)  # stale: before 2026-10-21
    tasks = [b.text for b in MarkdownDoc(read(ws, "memory/MEMORY.md")).bullets("Open tasks")]
    assert tasks == ["Task: an undated chore is never pruned."]


def test_nothing_is_stale_yet_before_the_age_limit(workspace) -> None:
    memory = without(MEMORY, MEMORY_REMOVED[:2])
    ws = messy_workspace(workspace, memory=memory, user=without(USER, USER_REMOVED), soul="# Soul\n")
    report = tidy(ws, day=date(2026, 9, 15))
    assert report.outcome == "no-change" and read(ws, "memory/MEMORY.md") == memory


def test_pruning_stays_within_the_deletion_guard_and_finishes_in_later_tidies(workspace) -> None:
    """Six stale tasks in an eight-line file: all at once would be refused; four go now, two next time."""
    stale = [f"- (2026-09-0{n}) Task: chore {n}.\n" for n in range(1, 7)]
    ws = messy_workspace(workspace, memory="# Memory\n\n## Open tasks\n" + "".join(reversed(stale)),
                         user="# User\n", soul="# Soul\n")

    first = tidy(ws)
    assert first.outcome == "committed"
    assert read(ws, "memory/MEMORY.md") == "# Memory\n\n## Open tasks\n" + stale[5] + stale[4]  # oldest went first
    assert "2 stale tasks kept for now: pruning more in one run would trip the mass-deletion guard" \
        in first.batches[0].summary

    second = tidy(ws)
    assert second.outcome == "committed"
    assert read(ws, "memory/MEMORY.md") == "# Memory\n\n## Open tasks\n"


def test_reworded_duplicates_stay_within_the_deletion_guard(workspace) -> None:
    """A line identical to the one kept costs the guard nothing; reworded copies count as lost lines."""
    copies = ["- User likes tea.\n", "- user likes tea\n", "- Tea, user likes.\n", "- User likes tea!\n",
              "- USER LIKES TEA\n", "- User: likes tea.\n", "- User likes tea.\n"]
    user = "# User\n\n## Preferences\n" + "".join(copies)
    ws = messy_workspace(workspace, memory="# Memory\n", user=user, soul="# Soul\n")

    report = tidy(ws)  # 9 lines: at most 4 may be lost; the identical last copy is free

    assert report.outcome == "committed"
    assert read(ws, "USER.md") == "# User\n\n## Preferences\n- User likes tea.\n- User: likes tea.\n"
    assert "- USER.md: 1 duplicate kept for now" in report.batches[0].summary
    tidy(ws)
    assert read(ws, "USER.md") == "# User\n\n## Preferences\n- User likes tea.\n"


def test_run_tidy_from_the_command_line_uses_the_builtin_engine_and_the_real_date(workspace) -> None:
    memory = ("# Memory\n\n## Project\n- A fact.\n- a fact\n- Another fact.\n\n"
              "## Open tasks\n- (2000-01-01) Task: old.\n")
    ws = messy_workspace(workspace, memory=memory, user="# User\n", soul="# Soul\n")
    with on(TODAY):  # the day the memory's lines are old or not, for the engine and the run alike
        result = runner.invoke(app, ["run", "--tidy", "-w", str(ws.root)])
    assert result.exit_code == 0, result.output
    assert "tidy pass" in result.output and "builtin tidy: 1 duplicate removed, 1 stale task pruned" in result.output
    assert read(ws, "memory/MEMORY.md") == "# Memory\n\n## Project\n- A fact.\n- Another fact.\n\n## Open tasks\n"
    assert len(dream_commits(ws)) == 1 and read_cursor(ws.cursor_file) == 2


# the engine's parts ----------------------------------------------------------------------------------------------


def test_duplicates_skip_open_tasks_wordless_bullets_and_bullets_with_more_below() -> None:
    lines = [
        "## Project", "- A fact.", "- a FACT", "- ---", "- ---",  # 2 repeats 1; "---" has no words to compare
        "- A fact.", "  - with a sub-item", "- A fact.", "lazily continued",  # both say more than "A fact."
        "- A fact.", "", "  an indented paragraph of the item", "- A fact.", "", "A new paragraph.",  # 12 alone
        "```", "- A fact.", "```", "# Title", "- A fact.", "## Open tasks", "- Task: x.", "- Task: x.",
    ]
    found = [(duplicate.index, first.index) for duplicate, first in duplicate_bullets(MarkdownDoc("\n".join(lines)))]
    assert found == [(2, 1), (12, 1), (19, 1)]


def test_default_today_is_the_date_in_the_configured_time_zone() -> None:
    # UTC+14 and UTC-12 are always on different calendar days, so an engine ignoring the zone fails one of them.
    east = BuiltinEngine(Settings(timezone="Pacific/Kiritimati")).today()
    west = BuiltinEngine(Settings(timezone="Etc/GMT+12")).today()
    assert east > west  # an unknown zone never gets here: loading the settings refuses it (test_workspace.py)
