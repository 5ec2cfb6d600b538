"""Entries the built-in rules cannot read wait for a model: no built-in run consumes them, nothing moves past them
for good, `status` counts them, and the next run with a model (over real HTTP) takes them first."""

from __future__ import annotations

import json

import pytest

from nanodream.backlog.history import Position, marked_languages, read_cursor
from nanodream.backlog.position import resume
from nanodream.backlog.waiting import (
    count_waiting,
    entry_key,
    load_waiting,
    locate,
    marker_line,
    next_batch,
    unread_language,
    waiting_file,
)
from nanodream.config import Settings
from nanodream.memory import transaction
from nanodream.run.dream import run_dream
from nanodream.status import workspace_status
from nanodream.vocab import Outcome
from tests.support.scripted_server import call, final, keeps_nothing
from tests.support.workspaces import entry, git, llm_settings, snapshot, write_history

BUILTIN = Settings(model="builtin")
SPANISH = marker_line(["es"]) + "\n> Siempre que despliego falla la migración de la base de datos, ¿por qué?"
JAPANESE = marker_line(["ja"]) + "\n> テストはいつも手元で実行していますが、CIでは失敗します。"


def mixed_history(ws) -> None:
    """Spanish and Japanese left for a model between English facts."""
    write_history(ws, [
        entry(1, "[permanent] User prefers short commit messages."),
        entry(2, SPANISH),
        entry(3, "[durable] The API runs on port 8080."),
        entry(4, JAPANESE),
        entry(5, "[durable] Backups run nightly at 02:00."),
    ])


def test_the_marker_and_a_language_the_rules_do_not_read_make_an_entry_wait() -> None:
    assert unread_language(SPANISH) == "es"
    assert unread_language(marker_line(["ja", "es"]) + "\n> …") == "es, ja"
    assert unread_language("[durable] The API runs on port 8080.") == ""
    assert unread_language("[ephemeral] Task: chore 0.\n[ephemeral] Task: chore 1.") == ""  # terse, not Norwegian
    # a host's own summary in a language no data file describes waits too, once a run asks its language
    assert unread_language("[durable] Il server di produzione gira su Debian e i backup partono ogni notte.") == "it"
    assert marked_languages("[durable] Il server di produzione gira su Debian.") is None  # all status looks for
    # a person's words that happen to open like the marker are quoted by ingest, never a first line of theirs
    assert unread_language("> [for a model: es] not a marker") == ""


def test_a_builtin_run_files_what_it_reads_and_leaves_the_rest_waiting(workspace) -> None:
    mixed_history(workspace)
    report = run_dream(workspace, BUILTIN)

    assert report.outcome == Outcome.COMMITTED, report.reason
    memory = (workspace.root / "memory/MEMORY.md").read_text()
    assert "port 8080" in memory and "02:00" in memory
    assert "migración" not in json.dumps(report.to_json(), ensure_ascii=False)
    assert [(item.line, item.language) for item in load_waiting(workspace)] == [(2, "es"), (4, "ja")]
    assert report.waiting_for_model == 2
    assert any("2 entries wait for a model (1 in es, 1 in ja)" in notice for notice in report.notices)
    assert {(n["line"], n["outcome"]) for n in report.notable} >= {(2, "waiting"), (4, "waiting")}
    said = {n["line"]: n["detail"] for n in report.notable if n["outcome"] == "waiting"}
    assert said[2] == "left for a model (es): the built-in rules cannot read it whole"  # English may wait too
    # the position went past them; nanobot's cursor did not: it names the last entry before the first waiting one
    assert resume(workspace).position.line == 5
    assert read_cursor(workspace.cursor_file) == 1
    # every line of the history is still there for a model
    assert [json.loads(line)["cursor"] for line in workspace.history_file.read_text().splitlines()] == [1, 2, 3, 4, 5]


def test_status_counts_waiting_entries_apart_from_the_pending_ones(workspace) -> None:
    mixed_history(workspace)
    before = workspace_status(workspace, BUILTIN)
    assert (before.pending_entries, before.waiting_for_model) == (3, 2)  # ingest's marker is read without a run
    assert before.waiting_languages == {"es": 1, "ja": 1}
    run_dream(workspace, BUILTIN)
    after = workspace_status(workspace, BUILTIN)
    assert (after.pending_entries, after.waiting_for_model) == (0, 2)
    assert after.to_json()["waiting_for_model"] == 2


def test_a_builtin_run_with_only_waiting_entries_left_has_nothing_to_do_and_says_how_many_wait(workspace) -> None:
    mixed_history(workspace)
    run_dream(workspace, BUILTIN)
    with workspace.history_file.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry(6, SPANISH.replace("migración", "réplica"))) + "\n")
    before = snapshot(workspace)

    report = run_dream(workspace, BUILTIN)

    assert report.outcome == Outcome.NOTHING_TO_DO
    assert report.reason.startswith("nothing to do; 3 entries wait for a model (2 in es, 1 in ja)")
    assert snapshot(workspace) == before
    assert resume(workspace).position.line == 5  # the newest waits after the position: nothing passed it
    assert workspace_status(workspace, BUILTIN).waiting_for_model == 3


def test_a_model_run_takes_the_waiting_entries_first_then_the_rest(workspace, serve) -> None:
    mixed_history(workspace)
    run_dream(workspace, BUILTIN)
    with workspace.history_file.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry(6, "[durable] The staging database runs PostgreSQL 16.")) + "\n")
    server = serve([
        call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
             new_text="## Project\n\n- Las migraciones fallan al desplegar.\n"),
        final("Filed what the Spanish and Japanese messages said"),
        call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
             new_text="## Project\n\n- The staging database runs PostgreSQL 16.\n"),
        final("Filed the staging database"),
    ])

    report = run_dream(workspace, llm_settings(server))

    assert report.outcome == Outcome.COMMITTED, report.reason
    first, later = server.requests[0]["messages"][1]["content"], server.requests[2]["messages"][1]["content"]
    assert "migración" in first and "テスト" in first and "PostgreSQL 16" not in first
    assert "PostgreSQL 16" in later and "migración" not in later
    assert load_waiting(workspace) == []
    assert workspace_status(workspace, BUILTIN).waiting_for_model == 0
    waiting_commit = git(workspace, "log", "-1", "--skip=1", "--format=%B")
    assert "Dream-Waiting: 2,4" in waiting_commit
    assert read_cursor(workspace.cursor_file) == 6  # nothing waits any more: nanobot may move on
    assert resume(workspace).position.line == 6


def test_waiting_entries_after_the_position_are_taken_in_order_by_a_model(workspace, serve) -> None:
    write_history(workspace, [entry(1, SPANISH), entry(2, "[durable] The API runs on port 8080.")])
    server = serve([keeps_nothing()] * 4)
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == Outcome.NO_CHANGE, report.reason
    assert "migración" in server.requests[0]["messages"][1]["content"]
    assert resume(workspace).position.line == 2 and load_waiting(workspace) == []


def test_the_next_batch_for_a_model_is_the_waiting_entries_oldest_first(workspace) -> None:
    mixed_history(workspace)
    run_dream(workspace, BUILTIN)
    start = resume(workspace).position

    batch = next_batch(workspace, start, 10_000, reads_everything=True)
    assert batch is not None and batch.waiting
    assert [e.line for e in batch.entries] == [2, 4]
    small = next_batch(workspace, start, 1, reads_everything=True)
    assert small is not None and [e.line for e in small.entries] == [2] and small.more_after
    assert [e.line for e in next_batch(workspace, start, 10_000, frozenset({small.entries[0].offset}),
                                       reads_everything=True).entries] == [4]
    assert next_batch(workspace, start, 10_000, reads_everything=False) is None


def test_the_builtin_batch_leaves_out_what_it_cannot_read_and_names_what_it_passed(workspace) -> None:
    mixed_history(workspace)
    batch = next_batch(workspace, Position(), 10_000, reads_everything=False)
    assert batch is not None and not batch.waiting
    assert [e.line for e in batch.entries] == [1, 3, 5]
    assert [(e.line, language) for e, language in batch.passed] == [(2, "es"), (4, "ja")]
    cut = next_batch(workspace, Position(), 20, reads_everything=False)  # room for the first entry alone
    assert [e.line for e in cut.entries] == [1] and cut.passed == ()


def test_waiting_entries_are_followed_when_the_host_compacts_history(workspace) -> None:
    """nanobot drops processed entries from the front of history.jsonl, keeping every one after `.dream_cursor`
    (agent/memory.py, compact_history): the waiting ones are among those kept, now at other offsets."""
    mixed_history(workspace)
    run_dream(workspace, BUILTIN)
    cursor = read_cursor(workspace.cursor_file)
    lines = workspace.history_file.read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if json.loads(line)["cursor"] > cursor]
    workspace.history_file.write_text("".join(json.dumps(json.loads(line), ensure_ascii=False) + "\n"
                                              for line in kept), encoding="utf-8")  # re-serialised, as nanobot does

    found = locate(workspace, resume(workspace).position)
    assert [(item.line, entry.cursor) for item, entry in found.entries] == [(1, 2), (3, 4)] and not found.lost
    assert count_waiting(workspace, resume(workspace).position) == {"es": 1, "ja": 1}


def test_a_crash_after_the_waiting_record_and_before_the_position_loses_nothing(workspace, monkeypatch) -> None:
    mixed_history(workspace)
    real = transaction.save_position

    def crash(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(transaction, "save_position", crash)
    with pytest.raises(KeyboardInterrupt):
        run_dream(workspace, BUILTIN)
    monkeypatch.setattr(transaction, "save_position", real)
    assert workspace.journal_file.exists()  # the commit landed; the journal finishes the rest

    report = run_dream(workspace, BUILTIN)

    assert "finished interrupted run" in report.recovered
    assert [item.line for item in load_waiting(workspace)] == [2, 4]
    assert resume(workspace).position.line == 5 and read_cursor(workspace.cursor_file) == 1


def test_a_crash_after_a_model_read_the_waiting_entries_never_reads_them_twice(workspace, serve,
                                                                              monkeypatch) -> None:
    mixed_history(workspace)
    run_dream(workspace, BUILTIN)
    real = transaction.settle_waiting

    def crash(*args, **kwargs):
        raise KeyboardInterrupt

    server = serve([call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
                         new_text="## Project\n\n- Las migraciones fallan al desplegar.\n"), final("Filed it")])
    monkeypatch.setattr(transaction, "settle_waiting", crash)
    with pytest.raises(KeyboardInterrupt):
        run_dream(workspace, llm_settings(server))
    monkeypatch.setattr(transaction, "settle_waiting", real)
    assert len(load_waiting(workspace)) == 2  # the commit landed, the record not yet

    again = serve([keeps_nothing()] * 2)
    report = run_dream(workspace, llm_settings(again))  # the next start finishes it from the journal first

    assert "finished interrupted run" in report.recovered
    assert load_waiting(workspace) == []
    assert report.outcome == Outcome.NOTHING_TO_DO and again.requests == []  # never read twice


def test_a_dry_run_with_a_model_previews_the_waiting_entries_once_and_writes_nothing(workspace, serve) -> None:
    mixed_history(workspace)
    run_dream(workspace, BUILTIN)
    before = snapshot(workspace)
    ledger = waiting_file(workspace).read_bytes()
    server = serve([keeps_nothing()] * 6)
    from nanodream.run.context import RunOptions

    report = run_dream(workspace, llm_settings(server), RunOptions(dry_run=True))

    assert report.outcome == Outcome.DRY_RUN
    assert len(report.batches) == 1
    assert snapshot(workspace) == before and waiting_file(workspace).read_bytes() == ledger


def test_an_unreadable_record_fails_the_run_with_one_line_and_changes_nothing(workspace) -> None:
    mixed_history(workspace)
    waiting_file(workspace).parent.mkdir(exist_ok=True)
    waiting_file(workspace).write_text("{not json", encoding="utf-8")
    before = snapshot(workspace)
    report = run_dream(workspace, BUILTIN)
    assert report.outcome == Outcome.FAILED and "waiting.json is unreadable" in report.reason
    assert snapshot(workspace) == before
    assert "waiting.json is unreadable" in workspace_status(workspace, BUILTIN).waiting_error


def test_an_entry_key_survives_re_serialisation_and_ignores_skip_lines() -> None:
    from nanodream.backlog.history import parse_line

    stored = entry(7, "[skip] hi\n" + SPANISH)
    compact = parse_line(json.dumps(stored, separators=(",", ":"), ensure_ascii=False))
    spaced = parse_line(json.dumps({**stored, "content": SPANISH}, indent=None))
    assert compact is not None and spaced is not None and entry_key(compact) == entry_key(spaced)


def test_a_model_finds_the_waiting_entries_a_host_moved_without_a_run_having_followed_them(workspace):
    mixed_history(workspace)
    run_dream(workspace, BUILTIN)
    cursor = read_cursor(workspace.cursor_file)
    kept = [line for line in workspace.history_file.read_text(encoding="utf-8").splitlines()
            if json.loads(line)["cursor"] > cursor]
    workspace.history_file.write_text("\n".join(kept) + "\n", encoding="utf-8")  # compacted from the front
    batch = next_batch(workspace, resume(workspace).position, 10_000, reads_everything=True)
    assert batch is not None and batch.waiting and [e.cursor for e in batch.entries] == [2, 4]


def test_a_model_reading_waiting_entries_again_in_their_place_releases_them(workspace, serve):
    """After a replaying restore set the position back before them, a model run meets them in the history
    itself: they are read, so they wait no more (never a second time)."""
    from nanodream.backlog.position import save_position

    mixed_history(workspace)
    run_dream(workspace, BUILTIN)
    save_position(workspace, Position())  # what `restore --replay` to the start does
    server = serve([keeps_nothing()] * 6)
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome in (Outcome.NO_CHANGE, Outcome.COMMITTED), report.reason
    assert load_waiting(workspace) == [] and read_cursor(workspace.cursor_file) == 5
    again = serve([keeps_nothing()] * 2)
    assert run_dream(workspace, llm_settings(again)).outcome == Outcome.NOTHING_TO_DO and again.requests == []


def test_counts_by_language_say_so_when_they_add_up_to_more_than_the_entries() -> None:
    """One entry holding Japanese and Russian counts under both: the line says why the counts exceed it."""
    from nanodream.vocab import entries_by_language

    assert entries_by_language({"ja": 1, "ru": 1}, 1) == "1 in ja, 1 in ru; an entry may hold two languages"
    assert entries_by_language({"es": 1, "ja": 1}, 2) == "1 in es, 1 in ja"


@pytest.mark.parametrize("content", ["[permanent] Svara alltid på svenska.",  # the model unsure, English no guess
                                     "[durable] Il server di staging si trova a Milano e usa Debian.",
                                     "[permanent] Всегда отвечай по-русски."])
def test_a_hosts_entry_in_another_language_at_the_end_of_history_waits_and_status_says_so(workspace, content):
    """It was pending for ever (a run said "the backlog is empty", status "1 entry to read") or consumed: only a
    run knows a host's entry's language, so a built-in run with nothing else to read records it and moves on."""
    write_history(workspace, [entry(1, "[durable] The API runs on port 8080."), entry(2, content)])
    run_dream(workspace, BUILTIN)
    before = snapshot(workspace)

    report = run_dream(workspace, BUILTIN)

    assert report.outcome == Outcome.NOTHING_TO_DO
    assert report.reason.startswith("nothing to do; 1 entry waits for a model")
    assert snapshot(workspace) == before
    status = workspace_status(workspace, BUILTIN)
    assert (status.pending_entries, status.waiting_for_model) == (0, 1)
    memory = "".join((workspace.root / name).read_text() for name in ("SOUL.md", "USER.md", "memory/MEMORY.md"))
    assert "port 8080" in memory and content.split("] ", 1)[1] not in memory
    assert read_cursor(workspace.cursor_file) == 1  # nanobot still keeps and shows it
