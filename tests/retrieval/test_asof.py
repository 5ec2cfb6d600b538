"""Memory as of a date: the files of the last commit by then (committer date), plus the replaced facts that
were still true that day."""

from __future__ import annotations

import json
from datetime import date
from zoneinfo import ZoneInfo

import pytest

from nanodream import api
from nanodream.config import Settings
from nanodream.retrieval.api import recall_as_of
from nanodream.run.dream import run_dream
from nanodream.versioning.asof import snapshot
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import USER, Workspace
from tests.support.cli import cli

UTC = ZoneInfo("UTC")


def dream_on(ws: Workspace, monkeypatch: pytest.MonkeyPatch, when: str, *entries: tuple[str, str]) -> None:
    """Append history entries (day, content) and dream them in a run whose commits are dated `when`."""
    known = ws.history_file.read_text(encoding="utf-8").splitlines() if ws.history_file.is_file() else []
    rows = [json.dumps({"cursor": len(known) + n, "timestamp": f"{day} 08:00", "content": content})
            for n, (day, content) in enumerate(entries, start=1)]
    ws.history_file.write_text("".join(f"{line}\n" for line in [*known, *rows]), encoding="utf-8")
    monkeypatch.setenv("GIT_COMMITTER_DATE", when)
    monkeypatch.setenv("GIT_AUTHOR_DATE", when)
    report = run_dream(ws, Settings(model="builtin"))
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    monkeypatch.delenv("GIT_AUTHOR_DATE")
    assert report.outcome == "committed", report.reason


def first(ws: Workspace, query: str, day: date, zone=UTC):
    hits, _, taken = recall_as_of(ws, query, day, k=5, zone=zone)
    return (hits[0] if hits else None), taken


@pytest.fixture
def moved(workspace, monkeypatch) -> Workspace:
    """Ghent from March (dreamed the same day), a move to Utrecht said on 2 June and dreamed on 5 June."""
    dream_on(workspace, monkeypatch, "2026-03-14T20:00:00Z", ("2026-03-14", "[durable] The user lives in Ghent."))
    dream_on(workspace, monkeypatch, "2026-06-05T20:00:00Z", ("2026-06-02", "[correction] User moved to Utrecht."))
    return workspace


def test_before_the_change_memory_answers_with_the_old_value(moved):
    hit, taken = first(moved, "where does the user live?", date(2026, 4, 1))
    assert "Ghent" in hit.text and hit.file == USER and hit.until is None
    assert taken.time.startswith("2026-03-14")


def test_after_the_change_memory_answers_with_the_new_value_and_not_the_old(moved):
    hits, _, _ = recall_as_of(moved, "where does the user live?", date(2026, 7, 1), zone=UTC)
    assert "Utrecht" in hits[0].text and not any("Ghent" in hit.text for hit in hits)


def test_between_what_history_said_and_what_memory_held_history_decides_as_why_does(moved):
    hit, taken = first(moved, "where does the user live?", date(2026, 6, 3))  # said on 2 June, dreamed on 5 June
    assert "Utrecht" in hit.text and hit.until is None and taken.time.startswith("2026-03-14")
    assert taken.learned_later == (f"{USER}: - User moved to Utrecht.",)
    assert taken.ended == (f"{USER}: - The user lives in Ghent.",)
    assert "Ghent" not in taken.files[USER]
    hit, taken = first(moved, "where does the user live?", date(2026, 6, 1))
    assert "Ghent" in hit.text and not taken.learned_later and not taken.ended


def test_a_fact_replaced_before_memory_ever_held_it_is_answered_from_the_archive(workspace, monkeypatch):
    dream_on(workspace, monkeypatch, "2026-03-01T12:00:00Z", ("2026-01-10", "[durable] The user lives in Ghent."),
             ("2026-02-20", "[correction] User moved to Utrecht."))
    hit, taken = first(workspace, "where does the user live?", date(2026, 2, 1))
    assert taken.commit is None  # nothing committed by then
    assert "Ghent" in hit.text and hit.until == "2026-02-20" and hit.file.startswith("memory/archive/")
    before, _ = first(workspace, "where does the user live?", date(2026, 1, 5))
    assert before is None  # not yet true, not yet in memory


def test_the_day_ends_where_the_workspace_keeps_its_time(workspace, monkeypatch):
    dream_on(workspace, monkeypatch, "2026-04-01T23:30:00-04:00", ("2026-04-01", "[durable] The user lives in Ghent."))
    store = GitStore(workspace)
    assert snapshot(store, date(2026, 4, 1), ZoneInfo("America/New_York")).commit is not None
    assert snapshot(store, date(2026, 4, 1), UTC).commit is None  # 03:30 on 2 April in UTC


def test_a_snapshot_reads_only_memory_files(moved):
    taken = snapshot(GitStore(moved), date(2026, 7, 1), UTC)
    assert set(taken.files) >= {"SOUL.md", USER, "memory/MEMORY.md"}
    assert ".gitignore" not in taken.files and "nanodream.toml" not in taken.files
    assert "Utrecht" in taken.files[USER]


# why: a line's life ------------------------------------------------------------------------------------------


def test_why_tells_when_a_line_became_true_was_committed_and_what_it_replaced(moved):
    from nanodream.versioning.provenance import why

    now = why(moved, "Utrecht")
    assert now.file == USER and now.became_true == "2026-06-02" and now.time.startswith("2026-06-05")
    assert now.until is None and now.replaced_by == ""
    assert [(r["text"], r["since"], r["until"]) for r in now.replaced] == [
        ("The user lives in Ghent", "2026-03-14", "2026-06-02")]


def test_why_of_a_replaced_line_tells_until_when_it_was_true_and_what_replaced_it(moved):
    from nanodream.versioning.provenance import why

    old = why(moved, "Ghent")
    assert old.file.startswith("memory/archive/")
    assert (old.became_true, old.until, old.replaced_by) == ("2026-03-14", "2026-06-02", "User moved to Utrecht")
    assert old.time.startswith("2026-06-05")  # archived by the dream that read the move
    assert old.first_written["time"].startswith("2026-03-14")
    assert old.to_json()["replaced"] == []


# the command line -------------------------------------------------------------------------------------------


def test_recall_as_of_prints_what_memory_said_that_day_and_json_keeps_file_and_line(moved):
    where = ("-w", str(moved.root))
    shown = cli("recall", "where does the user live?", "--as-of", "2026-04-01", *where)
    assert shown.exit_code == 0 and shown.output.startswith("as of 2026-04-01 (commit ")
    assert "The user lives in Ghent." in shown.output and "Utrecht" not in shown.output
    hits = json.loads(cli("recall", "where does the user live?", "--as-of", "2026-04-01", "--json", *where).output)
    assert hits[0]["file"] == USER and isinstance(hits[0]["line"], int) and hits[0]["until"] is None
    today = json.loads(cli("recall", "where did the user live before Utrecht?", "--json", *where).output)
    old = next(hit for hit in today if "Ghent" in hit["text"])
    assert old["file"].startswith("memory/archive/") and old["until"] == "2026-06-02"


@pytest.mark.parametrize("day", ["yesterday", "2026-02-30", "14/03/2026", "2026-3-1"])
def test_a_day_that_is_not_a_date_is_exit_2_for_recall_and_show(moved, day):
    where = ("-w", str(moved.root))
    for args in (("recall", "where?", "--as-of", day), ("show", "--as-of", day)):
        plain, as_json = cli(*args, *where), cli(*args, "--json", *where)
        assert plain.exit_code == 2 and "not a date" in plain.output
        assert as_json.exit_code == 2 and json.loads(as_json.output)["exit_code"] == 2


def test_show_as_of_prints_a_memory_file_as_it_stood_named_either_way(moved):
    where = ("-w", str(moved.root))
    relative = cli("show", "--as-of", "2026-04-01", USER, *where)
    assert relative.exit_code == 0 and "The user lives in Ghent." in relative.output
    absolute = json.loads(cli("show", "--as-of", "2026-07-01", str(moved.root / USER), "--json", *where).output)
    assert [f["path"] for f in absolute["files"]] == [USER] and "Utrecht" in absolute["files"][0]["text"]
    assert absolute["time"].startswith("2026-06-05")
    every = json.loads(cli("show", "--as-of", "2026-04-01", "--json", *where).output)
    assert [f["path"] for f in every["files"]] == ["SOUL.md", USER, "memory/MEMORY.md"]
    before = cli("show", "--as-of", "2026-01-01", *where)
    assert before.exit_code == 0 and "no commit on or before 2026-01-01" in before.output


@pytest.mark.parametrize("target", ["nanodream.toml", "memory/history.jsonl", "../elsewhere.md", "/etc/passwd"])
def test_show_as_of_refuses_what_is_not_a_memory_file_with_exit_2(moved, target):
    shown = cli("show", "--as-of", "2026-04-01", target, "-w", str(moved.root))
    assert shown.exit_code == 2 and shown.output.strip()


def test_why_and_status_say_a_line_s_life_and_what_may_be_out_of_date(moved):
    where = ("-w", str(moved.root))
    now = cli("why", "Utrecht", *where).output
    assert "true since 2026-06-02" in now and "it replaced: The user lives in Ghent" in now
    old = cli("why", "lives in Ghent", *where).output
    assert "true from 2026-03-14 until 2026-06-02; replaced by: User moved to Utrecht" in old
    user = moved.root / USER
    user.write_text(user.read_text() + "- Cycles along the Ghent canal to work.\n")
    status = cli("status", *where).output
    assert 'may be out of date since "The user lives in Ghent" changed on 2026-06-02' in status


# history's dates, as why gives them ------------------------------------------------------------------------


BILLING = "[durable] The billing service runs on Postgres 16."


@pytest.fixture
def dreamed_late(workspace, monkeypatch) -> Workspace:
    """A session of 26 April that a dream read only in December, after memory began in March."""
    dream_on(workspace, monkeypatch, "2026-03-01T20:00:00Z", ("2026-03-01", "[durable] The user lives in Ghent."))
    dream_on(workspace, monkeypatch, "2026-12-10T20:00:00Z", ("2026-04-26", BILLING))
    return workspace


def test_a_fact_why_calls_true_since_a_day_is_recalled_and_shown_as_of_the_next(dreamed_late):
    from nanodream.versioning.provenance import why

    assert why(dreamed_late, "Postgres 16").became_true == "2026-04-26"
    hit, taken = first(dreamed_late, "which database does billing run on?", date(2026, 4, 27))
    assert "Postgres 16" in hit.text and taken.time.startswith("2026-03-01")
    assert [line.split(": ", 1)[0] for line in taken.learned_later] == ["memory/MEMORY.md"]
    on_the_day, _ = first(dreamed_late, "which database does billing run on?", date(2026, 4, 26))
    assert on_the_day is not None and "Postgres" in on_the_day.text
    before, taken = first(dreamed_late, "which database does billing run on?", date(2026, 4, 25))
    assert before is None or "Postgres" not in before.text
    assert not taken.learned_later and "Ghent" in taken.files[USER]


def test_show_as_of_puts_a_fact_learned_late_where_memory_keeps_it_today(dreamed_late):
    where = ("-w", str(dreamed_late.root))
    shown = cli("show", "--as-of", "2026-04-27", "memory/MEMORY.md", *where)
    assert shown.exit_code == 0, shown.output
    assert "The billing service runs on Postgres 16." in shown.output
    assert "1 line later dreams learned from history of that day or before" in shown.output
    data = json.loads(cli("show", "--as-of", "2026-04-27", "--json", *where).output)
    memory = next(f for f in data["files"] if f["path"] == "memory/MEMORY.md")
    today = (dreamed_late.root / "memory/MEMORY.md").read_text(encoding="utf-8")
    assert memory["text"].splitlines() == today.splitlines()  # held then, in the place it holds today
    assert data["learned_later"] == ["memory/MEMORY.md: - The billing service runs on Postgres 16."]
    assert data["ended"] == [] and data["time"].startswith("2026-03-01")
    earlier = json.loads(cli("show", "--as-of", "2026-04-25", "--json", *where).output)
    assert "Postgres" not in json.dumps(earlier["files"]) and earlier["learned_later"] == []


def test_a_fact_learned_late_with_no_commit_by_then_is_shown_under_todays_headings(workspace, monkeypatch):
    dream_on(workspace, monkeypatch, "2026-12-10T20:00:00Z", ("2026-04-26", BILLING))
    data = json.loads(cli("show", "--as-of", "2026-04-27", "--json", "-w", str(workspace.root)).output)
    assert data["commit"] is None and data["learned_later"]
    memory = next(f for f in data["files"] if f["path"] == "memory/MEMORY.md")
    assert "The billing service runs on Postgres 16." in memory["text"] and "## " in memory["text"]
    plain = cli("show", "--as-of", "2026-04-27", "-w", str(workspace.root)).output
    assert "no commit yet" in plain and "Postgres 16" in plain
    hit, taken = first(workspace, "which database does billing run on?", date(2026, 4, 27))
    assert taken.commit is None and "Postgres 16" in hit.text


def test_a_fact_learned_again_after_it_was_replaced_stays_in_memory_as_of_a_later_day(moved, monkeypatch):
    dream_on(moved, monkeypatch, "2026-06-21T20:00:00Z", ("2026-06-20", "[correction] The user lives in Ghent."))
    dream_on(moved, monkeypatch, "2026-09-01T20:00:00Z", ("2026-09-01", "[durable] The user's cat is called Miso."))
    hit, taken = first(moved, "where does the user live?", date(2026, 7, 1))
    assert "Ghent" in hit.text and taken.ended == ()


def test_the_page_and_mcp_read_a_fact_learned_late_as_show_does(dreamed_late):
    import httpx

    from tests.serve.test_serve import PageServer

    with PageServer(dreamed_late) as page, httpx.Client(base_url=page.url) as client:
        answer = client.get("/memory", params={"as_of": "2026-04-27"})
    assert answer.status_code == 200 and "Postgres 16" in answer.text
    found = api.recall(dreamed_late, "which database does billing run on?", as_of="2026-04-27")
    assert found.hits and "Postgres 16" in found.hits[0].text


# any valid day ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("day", ["9999-12-31", "9999-12-30", "3000-01-01", "0001-01-01", "1970-01-01"])
@pytest.mark.parametrize("timezone", ["UTC", "Pacific/Kiritimati", "Etc/GMT+12"])
def test_any_valid_day_is_read_far_future_as_memory_is_now(moved, day, timezone):
    (moved.root / "nanodream.toml").write_text(f'timezone = "{timezone}"\n', encoding="utf-8")
    where = ("-w", str(moved.root))
    future = day > "2100"
    for args in (("recall", "where does the user live?", "--as-of", day), ("show", "--as-of", day)):
        shown = cli(*args, *where)
        assert shown.exit_code == 0 and "internal error" not in shown.output, shown.output
        data = json.loads(cli(*args, "--json", *where).output)
        assert ("Utrecht" in json.dumps(data)) is future
    if future:
        assert json.loads(cli("show", "--as-of", day, "--json", *where).output)["commit"] == GitStore(moved).head_sha()


def test_the_page_reads_a_far_future_day_as_memory_is_now(moved):
    import httpx

    from tests.serve.test_serve import PageServer

    with PageServer(moved) as page, httpx.Client(base_url=page.url) as client:
        answer = client.get("/memory", params={"as_of": "9999-12-31"})
        past = client.get("/memory", params={"as_of": "0001-01-01"})
    assert answer.status_code == 200 and "Utrecht" in answer.text
    assert past.status_code == 200
