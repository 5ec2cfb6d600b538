"""The scheduler, driven by an injected clock: due times, catch-up, the busy host, empty backlogs, stops."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta

import pytest

from nanodream.backlog.history import read_cursor
from nanodream.config import Settings
from nanodream.memory.lock import workspace_lock
from nanodream.run.records import append_record, read_records
from nanodream.scheduling.hostbusy import busy_file
from nanodream.scheduling.scheduler import Scheduler
from nanodream.scheduling.timetable import (
    Schedule,
    ScheduleError,
    next_scheduled,
    parse_duration,
    read_scheduler_state,
    scheduler_file,
)
from nanodream.status import workspace_status
from nanodream.vocab import RunRecord
from tests.support.fakes import FakeClock, NoteEngine
from tests.support.workspaces import entry, git, snapshot, write_history

T0 = datetime(2026, 10, 1, 13, 0, tzinfo=UTC)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def settings(**overrides) -> Settings:
    values = dict(model="fake/model", host_wait=60.0, host_poll=5.0)
    values.update(overrides)
    return Settings(**values)


def past_run(ws, start: datetime, outcome: str = "committed") -> None:
    append_record(ws, RunRecord(id="earlier", start=start.isoformat(), outcome=outcome, trigger="cron"))


def make_scheduler(ws, clock, plan, engine=None, **kwargs) -> tuple[Scheduler, list]:
    decisions: list = []
    scheduler = Scheduler(ws, kwargs.pop("settings", settings()), plan, clock=clock, sleep=clock.sleep,
                          log=decisions.append, engine_factory=engine or NoteEngine(), **kwargs)
    return scheduler, decisions


def claim_host(ws, expires: datetime, pid: int | None = None) -> None:
    busy_file(ws).parent.mkdir(parents=True, exist_ok=True)
    busy_file(ws).write_text(json.dumps({"pid": pid or os.getpid(), "since": T0.isoformat(),
                                         "expires": expires.isoformat()}))


# --- due times ------------------------------------------------------------------------------------------------


def test_cron_slots_follow_local_time_across_a_daylight_saving_change():
    plan = Schedule.from_cron("0 3 * * *", "Europe/Berlin")
    before = plan.due_after(T0, utc("2026-03-28 12:00"))
    after = plan.due_after(T0, before)
    assert before == utc("2026-03-29 01:00")  # 03:00 CEST, the first day of summer time
    assert after == utc("2026-03-30 01:00")
    assert plan.due_after(T0, utc("2026-03-27 12:00")) == utc("2026-03-28 02:00")  # 03:00 CET


def test_interval_is_anchored_on_the_last_run_not_on_start_up():
    plan = Schedule.every("4h")
    assert plan.first_due(T0, last_attempt=T0 - timedelta(hours=1)) == (T0 + timedelta(hours=3), None)
    assert plan.first_due(T0, last_attempt=None) == (T0, None)
    # a run that outlasts its interval is followed at once, not skipped
    assert plan.due_after(T0, T0 + timedelta(hours=5)) == T0 + timedelta(hours=5)


def test_schedule_text_from_the_config_accepts_cron_and_every():
    assert Schedule.parse("every 90m").interval == timedelta(minutes=90)
    assert Schedule.parse("@every 1h30m").interval == timedelta(minutes=90)
    assert Schedule.parse("0   */4 * * *").cron == "0 */4 * * *"
    assert Schedule.parse("@hourly").cron == "@hourly"
    assert parse_duration("2d") == timedelta(days=2)


@pytest.mark.parametrize("text,message", [
    ("every 4", "not a duration"), ("every 4x", "not a duration"), ("every 30s", "too short"),
    ("0 */4 * *", "not a cron expression"), ("61 * * * *", "not a cron expression"),
])
def test_bad_schedules_are_refused_with_an_example(text, message):
    with pytest.raises(ScheduleError, match=message):
        Schedule.parse(text)


def test_unknown_time_zone_is_refused():
    with pytest.raises(ScheduleError, match="unknown time zone 'Mars/Olympus'"):
        Schedule.from_cron("0 * * * *", "Mars/Olympus")


# --- catch-up after downtime -------------------------------------------------------------------------------------


def test_slots_missed_while_down_are_caught_up_once(workspace):
    write_history(workspace, [entry(i, f"[durable] fact {i}") for i in range(1, 4)])
    past_run(workspace, utc("2026-10-01 00:05"))  # then down through the 04:00, 08:00 and 12:00 slots
    clock = FakeClock(T0)
    engine = NoteEngine()
    scheduler, decisions = make_scheduler(workspace, clock, Schedule.from_cron("0 */4 * * *"), engine)
    assert scheduler.run(max_attempts=2) == 2

    nexts = [d for d in decisions if d.kind == "next"]
    assert "catching up the run due at 2026-10-01T12:00:00+00:00" in nexts[0].message
    assert nexts[0].data["next_run"] == T0.isoformat()  # caught up at once...
    assert nexts[1].data["next_run"] == "2026-10-01T16:00:00+00:00"  # ...then back on the regular slots
    assert [d.kind for d in decisions if d.kind not in ("next",)] == ["ran", "nothing-to-do"]
    assert clock.now == utc("2026-10-01 16:00")
    assert engine.batches == [[1, 2, 3]]


def test_no_catch_up_when_a_run_happened_after_the_last_slot(workspace):
    past_run(workspace, utc("2026-10-01 12:30"), outcome="no-change")
    past_run(workspace, utc("2026-10-01 12:50"), outcome="busy")  # turned away: does not count as a run
    scheduler, decisions = make_scheduler(workspace, FakeClock(T0), Schedule.from_cron("0 */4 * * *"))
    scheduler.run(max_attempts=0)
    assert decisions[0].data["next_run"] == "2026-10-01T16:00:00+00:00"
    assert "catching up" not in decisions[0].message


def test_initial_delay_holds_back_a_catch_up(workspace):
    past_run(workspace, utc("2026-09-30 00:00"))
    scheduler, decisions = make_scheduler(workspace, FakeClock(T0), Schedule.every("4h"),
                                          initial_delay=timedelta(minutes=5))
    scheduler.run(max_attempts=0)
    assert decisions[0].data["next_run"] == (T0 + timedelta(minutes=5)).isoformat()
    assert "missed while not running" in decisions[0].message


# --- each attempt ------------------------------------------------------------------------------------------------


def test_empty_backlog_never_starts_the_engine(workspace):
    def no_engine(settings):
        raise AssertionError("the engine must not be started for an empty backlog")

    head = git(workspace, "rev-parse", "HEAD")
    clock = FakeClock(T0)
    scheduler, decisions = make_scheduler(workspace, clock, Schedule.every("1h"), engine=no_engine)
    scheduler.run(max_attempts=2)
    assert [d.message for d in decisions if d.kind != "next"] == ["nothing to do: the backlog is empty"] * 2
    assert [r.outcome for r in read_records(workspace)] == ["nothing-to-do"] * 2
    assert {r.trigger for r in read_records(workspace)} == {"schedule"}
    assert git(workspace, "rev-parse", "HEAD") == head
    assert clock.now == T0 + timedelta(hours=1)


def test_waits_for_the_host_turn_to_end_then_runs(workspace):
    write_history(workspace, [entry(1, "[durable] fact")])
    clock = FakeClock(T0)
    claim_host(workspace, expires=T0 + timedelta(minutes=10))
    clock.at(T0 + timedelta(seconds=12), busy_file(workspace).unlink)  # the turn ends during the third poll
    scheduler, decisions = make_scheduler(workspace, clock, Schedule.every("1h"))
    scheduler.run(max_attempts=1)
    assert clock.sleeps == [5.0, 5.0, 5.0]
    kinds = [d.kind for d in decisions]
    assert kinds == ["next", "waiting", "ran", "next"]
    assert f"pid {os.getpid()}" in decisions[1].message
    assert read_cursor(workspace.cursor_file) == 1


def test_gives_up_on_a_host_that_stays_busy_and_tries_the_next_slot(workspace):
    write_history(workspace, [entry(1, "[durable] fact")])
    before = snapshot(workspace)
    clock = FakeClock(T0)
    claim_host(workspace, expires=T0 + timedelta(hours=2))
    engine = NoteEngine()
    scheduler, decisions = make_scheduler(workspace, clock, Schedule.from_cron("0 * * * *"), engine,
                                          settings=settings(host_wait=30, host_poll=10))
    scheduler.run(max_attempts=1)
    assert clock.sleeps == [60.0] * 60 + [10.0, 10.0, 10.0]  # up to the 14:00 slot, then three polls
    busy = [d for d in decisions if d.kind == "busy"]
    assert len(busy) == 1 and "gave up after 30s" in busy[0].message and "next slot" in busy[0].message
    assert decisions[-1].data["next_run"] == "2026-10-01T15:00:00+00:00"
    assert engine.batches == []
    assert snapshot(workspace) == before
    record = read_records(workspace)[-1]
    assert record.outcome == "busy" and "host agent is serving a user turn" in record.reason


def test_stale_host_claims_do_not_hold_up_the_run(workspace):
    write_history(workspace, [entry(1, "[durable] fact")])
    clock = FakeClock(T0)
    claim_host(workspace, expires=T0 - timedelta(seconds=1))  # expired
    scheduler, decisions = make_scheduler(workspace, clock, Schedule.every("1h"))
    scheduler.run(max_attempts=1)
    assert clock.sleeps == [] and [d.kind for d in decisions] == ["next", "ran", "next"]


def test_another_dream_holding_the_workspace_means_busy_until_the_next_slot(workspace):
    write_history(workspace, [entry(1, "[durable] fact")])
    scheduler, decisions = make_scheduler(workspace, FakeClock(T0), Schedule.every("2h"))
    with workspace_lock(workspace):
        scheduler.run(max_attempts=1)
    busy = [d for d in decisions if d.kind == "busy"]
    assert len(busy) == 1 and "another dream is running" in busy[0].message
    assert decisions[-1].data["next_run"] == (T0 + timedelta(hours=2)).isoformat()
    assert read_cursor(workspace.cursor_file) == 0


def test_a_stop_during_a_run_finishes_the_batch_and_ends_the_scheduler(workspace):
    write_history(workspace, [entry(i, f"[durable] fact number {i} " + "x" * 60) for i in range(1, 5)])
    stop_reason = []
    engine = NoteEngine(during=lambda index: stop_reason.append("stopped by SIGTERM"))
    clock = FakeClock(T0)
    scheduler = Scheduler(workspace, settings(batch_tokens=70), Schedule.every("1h"), clock=clock,
                          sleep=clock.sleep, stop=lambda: stop_reason[0] if stop_reason else "",
                          log=(decisions := []).append, engine_factory=engine)
    assert scheduler.run() == 1
    assert engine.batches == [[1, 2]]  # the batch in progress finished; the next one never started
    assert read_cursor(workspace.cursor_file) == 2
    assert not workspace.journal_file.exists()
    assert git(workspace, "status", "--porcelain") == ""
    assert "Dream-Cursor: 1..2" in git(workspace, "log", "-1", "--format=%B")
    assert decisions[-1].kind == "stopped"
    record = read_records(workspace)[-1]
    assert record.outcome == "committed" and record.reason == "stopped by SIGTERM"
    assert not scheduler_file(workspace).exists()


def test_a_host_turn_starting_mid_run_pauses_after_the_current_batch(workspace):
    write_history(workspace, [entry(i, f"[durable] fact number {i} " + "x" * 60) for i in range(1, 5)])
    clock = FakeClock(T0)
    engine = NoteEngine(during=lambda index: claim_host(workspace, expires=T0 + timedelta(minutes=5)))
    scheduler, decisions = make_scheduler(workspace, clock, Schedule.every("1h"), engine,
                                          settings=settings(batch_tokens=70))
    scheduler.run(max_attempts=1)
    assert engine.batches == [[1, 2]]
    ran = [d for d in decisions if d.kind == "ran"][0]
    assert "paused: the host agent is serving a user turn" in ran.message
    assert read_cursor(workspace.cursor_file) == 2


def test_a_history_rewritten_past_placing_is_never_an_empty_backlog(workspace):
    write_history(workspace, [entry(i, f"[durable] fact {i}") for i in range(1, 4)])
    clock = FakeClock(T0)
    scheduler, decisions = make_scheduler(workspace, clock, Schedule.every("1h"))
    scheduler.run(max_attempts=1)
    write_history(workspace, [entry(1, "[durable] fact 1")])  # shorter, and its last consumed line is gone
    scheduler.run(max_attempts=1)
    [blocked] = [d for d in decisions if d.kind == "blocked"]
    assert "rotated or rewritten" in blocked.message
    assert not [d for d in decisions if d.kind == "nothing-to-do"]


def test_a_run_that_needs_a_person_is_logged_and_the_scheduler_goes_on(workspace):
    write_history(workspace, [entry(1, "[durable] fact")])
    workspace.state_dir.mkdir(exist_ok=True)
    workspace.journal_file.write_text("{not json")  # recovery refuses to guess
    clock = FakeClock(T0)
    scheduler, decisions = make_scheduler(workspace, clock, Schedule.every("1h"))
    assert scheduler.run(max_attempts=2) == 2
    blocked = [d for d in decisions if d.kind == "blocked"]
    assert len(blocked) == 2 and "journal.json is not a journal nanodream can recover" in blocked[0].message
    assert [r.outcome for r in read_records(workspace)] == ["blocked", "blocked"]


# --- what status shows -------------------------------------------------------------------------------------------


def test_status_shows_the_configured_schedule_and_a_pending_catch_up(workspace):
    past_run(workspace, utc("2026-10-01 07:00"))
    plan = next_scheduled(workspace, settings(schedule="0 */4 * * *", timezone="Europe/Berlin"), now=T0)
    assert plan["schedule"] == 'cron "0 */4 * * *" (Europe/Berlin)'
    assert plan["catch_up"] == "2026-10-01T12:00:00+02:00"  # the 10:00 UTC slot passed since 07:00
    assert plan["next_run"] == "2026-10-01T15:00:00+02:00"
    assert next_scheduled(workspace, settings()) is None
    assert "error" in next_scheduled(workspace, settings(schedule="every now and then"))


def test_status_shows_the_live_schedulers_next_run(workspace):
    scheduler, _ = make_scheduler(workspace, FakeClock(T0), Schedule.every("3h"))
    scheduler._announce(T0 + timedelta(hours=3))
    assert read_scheduler_state(workspace)["pid"] == os.getpid()
    info = workspace_status(workspace, settings())
    assert info.schedule["next_run"] == (T0 + timedelta(hours=3)).isoformat()
    assert info.schedule["source"] == f"scheduler pid {os.getpid()}"
    state = json.loads(scheduler_file(workspace).read_text())
    scheduler_file(workspace).write_text(json.dumps({**state, "pid": 2**22 + 7}))  # no such process
    assert workspace_status(workspace, settings()).schedule is None
