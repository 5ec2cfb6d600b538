"""A full memory file never fails a batch: the coldest lines of memory/MEMORY.md move to the archive."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from nanodream import clock
from nanodream.backlog.quarantine import load_quarantine
from nanodream.config import Settings
from nanodream.engines import SessionResult
from nanodream.engines.facts import corrects
from nanodream.rejected import fact_text
from nanodream.run.dream import run_dream
from nanodream.status import workspace_status
from tests.support.cli import runner
from tests.support.gitdates import commit_at
from tests.support.workspaces import entry, git, snapshot, write_history

MEMORY = "memory/MEMORY.md"


def archive_path() -> str:
    return f"memory/archive/{datetime.now(UTC):%Y-%m}.md"


class Appender:
    """A model double that only ever adds: one bullet per entry to the file it is told, never pruning. A
    `[correction]` takes the place of the lines it corrects (the guards refuse one beside them), so the old lines
    are the pipeline's to archive; every other entry is appended."""

    name = "appender"

    def __init__(self, path: str = MEMORY) -> None:
        self.path = path

    def __call__(self, settings):
        return self

    def run(self, request, toolbox):
        lines = toolbox.invoke("read_file", path=self.path).value.splitlines(keepends=True)
        for item in request.batch.entries:
            tag, _, fact = item.content.partition("] ")
            old = [n for n, line in enumerate(lines) if tag == "[correction" and corrects(fact, fact_text(line))]
            if not old:
                lines.append(f"- {fact}\n")
            else:  # the first line it corrects becomes it; any restatement of that old value goes with it
                lines = [f"- {fact}\n" if n == old[0] else line for n, line in enumerate(lines) if n not in old[1:]]
        result = toolbox.invoke("write_file", path=self.path, content="".join(lines))
        assert result.ok, result.text
        return SessionResult(summary=f"appended {len(request.batch.entries)} facts")

    def follow_up(self, request, result, message, toolbox):
        """Asked again, it has nothing to add: every fact is already a line of its file."""
        return result


def settings(**overrides) -> Settings:
    return Settings(**{"model": "fake/appender", "max_file_chars": 1200, "batch_tokens": 200, **overrides})


def facts(first: int, count: int) -> list[dict]:
    return [entry(i, f"[durable] Fact number {i:03d} about the project, padded to a realistic length.")
            for i in range(first, first + count)]


def test_the_coldest_lines_move_to_the_archive_and_the_batch_commits(workspace):
    memory = workspace.root / MEMORY
    old = [f"- Old fact {i:02d}, written long ago and never touched since then." for i in range(12)]
    memory.write_text("# Memory\n\n## Project\n" + "\n".join(old) + "\n- Keep me forever <!-- keep -->\n")
    commit_at(workspace, "2026-01-05T12:00:00Z")
    write_history(workspace, facts(1, 8))

    report = run_dream(workspace, settings(batch_tokens=10_000), engine_factory=Appender())

    assert report.outcome == "committed", report.reason
    text = memory.read_text()
    assert len(text) <= 0.9 * 1200
    assert "Keep me forever <!-- keep -->" in text  # pinned lines never leave
    assert all(f"Fact number {i:03d}" in text for i in range(1, 9))  # the newest facts stay active
    archive = (workspace.root / archive_path()).read_text()
    moved = [line for line in old if line not in text]
    assert moved and moved == old[: len(moved)]  # oldest first
    assert all(line in archive for line in moved) and "## Project (archived" in archive
    assert archive_path() in git(workspace, "show", "--name-only", "--format=", "HEAD")  # tracked, committed
    assert f"- {archive_path()}: added" in git(workspace, "log", "-1", "--format=%B")  # the summary says so
    status = workspace_status(workspace, settings())
    assert status.fill[MEMORY] == {"chars": len(text.encode()), "cap": 1200}
    assert status.archive == {"files": 1, "chars": len(archive.encode())}


def test_an_append_only_model_never_stalls_at_the_cap(workspace):
    write_history(workspace, facts(1, 60))
    report = run_dream(workspace, settings(max_batches=100), engine_factory=Appender())
    assert report.outcome == "committed" and report.entries == 60, report.reason
    assert len((workspace.root / MEMORY).read_text()) <= 1200
    everything = (workspace.root / MEMORY).read_text() + (workspace.root / archive_path()).read_text()
    assert all(everything.count(f"Fact number {i:03d} ") == 1 for i in range(1, 61))  # each fact once
    assert load_quarantine(workspace) == []


def test_a_full_file_that_may_not_be_archived_stops_for_a_person_and_quarantines_nothing(workspace):
    write_history(workspace, facts(1, 40))
    first = run_dream(workspace, settings(split_after=1), engine_factory=Appender("USER.md"))
    assert first.outcome == "blocked" and first.exit_code == 78, first.reason
    assert first.reason.startswith("capacity: USER.md is ") and first.batches[-1].capacity
    assert "never archived automatically" in first.reason and "raise max_file_chars" in first.reason
    before = snapshot(workspace)
    for _ in range(3):  # split_after=1 would split and quarantine a poisoned batch; a full file is not one
        again = run_dream(workspace, settings(split_after=1), engine_factory=Appender("USER.md"))
        assert again.outcome == "blocked" and again.reason.startswith("capacity: USER.md is ")
        assert len(again.batches) == 1 and again.quarantined == []
    assert snapshot(workspace) == before and load_quarantine(workspace) == []


@pytest.mark.parametrize("path,setting", [("USER.md", "max_file_chars"), ("SOUL.md", "max_file_chars"),
                                          ("skills/deploy/SKILL.md", "max_skill_chars")])
def test_a_file_a_person_filled_past_its_cap_stops_every_run_for_them_until_trimmed(workspace, path, setting):

    from nanodream.cli import app

    workspace.config_file.write_text("max_file_chars = 1200\nmax_skill_chars = 1200\nmodel = 'builtin'\n")
    target = workspace.root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    head = "---\nname: deploy\ndescription: Ship it\n---\n\n" if path.startswith("skills/") else "# Notes\n\n"
    target.write_text(head + "".join(f"- Hand-written line number {i:03d} about this and that.\n"
                                     for i in range(40)))
    write_history(workspace, [entry(1, "[durable] The project uses Go")])
    for _ in range(2):
        done = runner.invoke(app, ["run", "-w", str(workspace.root)])
        said = " ".join(done.output.split())
        assert done.exit_code == 78, done.output
        assert f"{path} is" in said and f"raise {setting}" in said and "internal error" not in said
    target.write_text(head + "- One line left.\n")
    assert runner.invoke(app, ["run", "-w", str(workspace.root)]).exit_code == 0
    assert "Go" in (workspace.root / MEMORY).read_text()


def test_an_older_workspace_gets_the_archive_tracked_in_a_labelled_commit(workspace):
    gitignore = workspace.root / ".gitignore"
    gitignore.write_text(gitignore.read_text().replace("!/memory/archive/\n", ""))  # as nanodream used to write it
    commit_at(workspace, "2026-01-05T12:00:00Z")
    write_history(workspace, facts(1, 1))
    report = run_dream(workspace, settings(), engine_factory=Appender())
    assert report.notices[0].startswith("updated .gitignore to track memory/archive/ (commit ")
    assert "!/memory/archive/\n" in gitignore.read_text()
    subjects = git(workspace, "log", "--format=%s", "-3").splitlines()
    assert subjects[1] == "chore: track memory/archive/ in the memory repository"
    again = run_dream(workspace, settings(), engine_factory=Appender())
    assert again.notices == []  # once


def test_the_model_can_move_lines_to_the_archive_and_read_it_back(workspace):
    from nanodream.memory.staging import Staging
    from nanodream.toolbox.limits import ToolLimits
    from nanodream.toolbox.tools import ToolBox

    memory = workspace.root / MEMORY
    memory.write_text("# Memory\n\n## Project\n- Uses PostgreSQL 16.\n- The 2025 migration is done.\n")
    box = ToolBox(Staging(workspace), ToolLimits.from_settings(settings()))
    moved = box.call("archive_lines", {"path": MEMORY, "text": "- The 2025 migration is done."})
    assert moved == f"OK: moved 1 line from {MEMORY} to {archive_path()}"
    assert box.invoke("read_file", path=MEMORY).value == "# Memory\n\n## Project\n- Uses PostgreSQL 16.\n"
    assert "- The 2025 migration is done." in box.invoke("read_file", path=archive_path()).value
    assert "not a whole line" in box.call("archive_lines", {"path": MEMORY, "text": "- Uses Postgre"})
    assert "only memory/MEMORY.md is archived" in box.call("archive_lines", {"path": "USER.md", "text": "x"})
    rewrite = box.invoke("write_file", path=archive_path(), content="x")  # the archive is read, never rewritten
    assert rewrite.error == "invalid" and "outside the memory files" in rewrite.text


def test_entries_once_quarantined_for_a_full_file_are_released_and_dreamed(workspace):
    from nanodream.backlog.history import read_from
    from nanodream.backlog.quarantine import QuarantinedEntry, add_to_quarantine
    from tests.support.fakes import NoteEngine

    write_history(workspace, facts(1, 3))
    assert run_dream(workspace, settings(), engine_factory=NoteEngine()).outcome == "committed"
    second = list(read_from(workspace.history_file))[1]
    add_to_quarantine(workspace, [QuarantinedEntry(
        cursor=2, timestamp=second.timestamp, preview="Fact number 002", quarantined_at="2026-10-01T00:00:00+00:00",
        reason="tool error: memory/MEMORY.md would be 27542 chars, over its cap of 24000; merge and prune instead "
               "of adding", run_id="older", line=2, offset=second.offset)])

    engine = NoteEngine()
    report = run_dream(workspace, settings(), engine_factory=engine)

    assert engine.batches == [[2]] and load_quarantine(workspace) == []
    assert report.notices == ["released line 2 (cursor 2) from quarantine: it was held for a full file, not a "
                              "poisoned entry, and is now dreamed"]
    assert "Dream-Quarantine-Retry: 2" in git(workspace, "log", "-1", "--format=%B")


def test_a_long_busy_history_drains_through_the_builtin_engine_without_a_stall(workspace):
    """Months of a busy agent in miniature: 400 services whose ports change, under a 3,000-char cap."""
    import json
    import random

    rnd, ports, lines = random.Random(7), {}, []
    for cursor in range(1, 601):
        service = f"service-{rnd.randrange(120):03d}"
        tag = "correction" if service in ports and rnd.random() < 0.3 else "durable"
        ports[service] = rnd.randint(2000, 9999)
        lines.append(json.dumps(entry(cursor, f"[{tag}] The {service} listens on port {ports[service]}.",
                                      day=1 + cursor // 20 % 28)))
    workspace.history_file.write_text("\n".join(lines) + "\n")

    report = run_dream(workspace, Settings(max_file_chars=3000, batch_tokens=800, max_batches=1000))

    assert report.outcome == "committed" and report.entries == 600, report.reason
    assert all(batch.outcome == "committed" for batch in report.batches) and load_quarantine(workspace) == []
    memory = (workspace.root / MEMORY).read_text()
    assert len(memory) <= 3000
    everything = memory + (workspace.root / archive_path()).read_text()
    recent = {json.loads(line)["content"].split()[2] for line in lines[-10:]}
    assert all(f"The {service} listens on port {ports[service]}" in memory for service in recent)  # active
    assert all(f"The {service} listens on port {port}" in everything for service, port in ports.items())


def memory_with_old_lines(workspace, when: str = "2026-01-05T12:00:00Z") -> list[str]:
    old = ["- The staging database is called atlas.", "- Invoices are archived after seven years.",
           "- The mobile app ships every second Tuesday. <!-- keep -->"]
    (workspace.root / MEMORY).write_text("# Memory\n\n## Project\n" + "\n".join(old) + "\n")
    commit_at(workspace, when)
    return old


def test_lines_untouched_for_archive_after_days_move_even_without_pressure(workspace):
    old = memory_with_old_lines(workspace)  # months ago, and the file is far below its cap
    write_history(workspace, facts(1, 1))
    report = run_dream(workspace, settings(max_file_chars=24_000), engine_factory=Appender())
    assert report.outcome == "committed", report.reason
    memory, archive = (workspace.root / MEMORY).read_text(), (workspace.root / archive_path()).read_text()
    assert old[0] not in memory and old[1] not in memory and old[0] in archive and old[1] in archive
    assert old[2] in memory  # pinned
    assert "Fact number 001" in memory  # written now


def test_archive_after_days_zero_archives_nothing_by_age(workspace):
    old = memory_with_old_lines(workspace)
    write_history(workspace, facts(1, 1))
    run_dream(workspace, settings(max_file_chars=24_000, archive_after_days=0), engine_factory=Appender())
    assert all(line in (workspace.root / MEMORY).read_text() for line in old)
    assert not (workspace.root / "memory/archive").exists()


def test_a_fact_history_restates_stays_active_in_this_run_and_the_next(workspace):
    old = memory_with_old_lines(workspace)
    write_history(workspace, [entry(1, "[durable] The staging database is called atlas.")])
    run_dream(workspace, Settings(archive_after_days=90))  # builtin: a repeat, so the file is unchanged
    memory = (workspace.root / MEMORY).read_text()
    assert old[0] in memory and old[1] not in memory  # confirmed today; the other one aged out
    confirmed = json.loads((workspace.state_dir / "confirmed.json").read_text())
    assert list(confirmed) == ["- the staging database is called atlas."]

    write_history(workspace, [entry(1, "[durable] The staging database is called atlas."),
                              entry(2, "[durable] Releases are cut on Mondays.")])
    run_dream(workspace, Settings(archive_after_days=90))  # blame still says January; the record says today
    assert old[0] in (workspace.root / MEMORY).read_text()


def test_a_correction_whose_old_fact_is_archived_leaves_a_neighbour_alone(workspace):
    (workspace.root / MEMORY).write_text("# Memory\n\n## Project\n- The svc-17 service runs on host elm.\n")
    folder = workspace.root / "memory/archive"
    folder.mkdir()
    (folder / "2026-03.md").write_text("# Archive 2026-03\n\n## Project (archived 2026-03-01)\n"
                                       "- The svc-42 service runs on host oak.\n")
    write_history(workspace, [entry(1, "[correction] The svc-42 service runs on host fir.")])
    report = run_dream(workspace, Settings())
    assert report.outcome == "committed", report.reason
    memory = (workspace.root / MEMORY).read_text()
    assert "- The svc-17 service runs on host elm." in memory  # shares words, but is about another service
    assert "- The svc-42 service runs on host fir." in memory


def test_list_archive_names_each_month_with_its_size(workspace):
    from nanodream.memory.staging import Staging
    from nanodream.toolbox.limits import ToolLimits
    from nanodream.toolbox.tools import ToolBox

    box = ToolBox(Staging(workspace), ToolLimits.from_settings(settings()))
    assert box.call("list_archive", {}) == "The archive is empty."
    folder = workspace.root / "memory/archive"
    folder.mkdir()
    (folder / "2026-03.md").write_text("# Archive\n\n- a\n")
    (folder / "notes.md").write_text("not a month\n")
    assert box.call("list_archive", {}) == "memory/archive/2026-03.md (3 lines)"


def test_pressure_merges_repeats_and_facts_another_line_says_all_of(workspace):
    from nanodream.memory.staging import Staging
    from nanodream.run.pressure import relieve
    from nanodream.toolbox.limits import ToolLimits
    from nanodream.versioning.gitstore import GitStore

    filler = "".join(f"- Enjoys hiking trail number {i:02d} in the Alps.\n" for i in range(8))
    text = ("# User\n\n## Preferences\n- Prefers tabs.\n- Prefers tabs over spaces in Go code.\n"
            "- Coffee, black, no sugar.\n- coffee   BLACK, no sugar!\n- Likes Go. <!-- keep -->\n"
            "- Likes Go and Rust.\n\n## Identity\n- Prefers tabs.\n- Likes Go and Rust and Zig.\n" + filler)
    staging = Staging(workspace)
    staging.write("USER.md", text)
    chosen = settings(max_file_chars=len(text))
    relief = relieve(staging, GitStore(workspace), chosen, ToolLimits.from_settings(chosen), today=clock.today())
    merged = staging.read("USER.md")
    assert relief.problems == []
    assert "- Prefers tabs.\n- Prefers tabs over spaces" not in merged  # said all of by the next line
    assert "- Prefers tabs over spaces in Go code." in merged and merged.count("offee") == 1
    assert "- Likes Go. <!-- keep -->" in merged and "- Likes Go and Rust." in merged  # pinned stays
    # a repeat anywhere in the file goes; saying more is only compared within a section
    assert merged.endswith("## Identity\n- Likes Go and Rust and Zig.\n" + filler)


def test_a_line_in_the_until_form_leaves_the_active_file_once_its_day_has_passed(workspace):
    from datetime import date

    from nanodream.memory.staging import Staging
    from nanodream.run.pressure import relieve
    from nanodream.toolbox.limits import ToolLimits
    from nanodream.versioning.gitstore import GitStore

    ended = "- Lives in Ghent (until 2026-06-02; replaced by: Lives in Utrecht)"
    running = "- Contract with Globex (until 2027-01-31)"
    text = f"# User\n\n## Identity\n{ended}\n- Lives in Utrecht.\n{running}\n"
    staging = Staging(workspace)
    staging.write("USER.md", text)
    chosen = settings(max_file_chars=len(text) * 10)
    relieve(staging, GitStore(workspace), chosen, ToolLimits.from_settings(chosen), today=date(2026, 11, 2))
    user = staging.read("USER.md")
    assert ended not in user and "- Lives in Utrecht." in user  # its successor is not "said all of" by it
    assert running in user  # still true: the date is what makes it true
    assert ended in staging.read("memory/archive/2026-11.md")
