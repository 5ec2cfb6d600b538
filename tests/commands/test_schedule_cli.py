"""The schedule and run commands' options, and the crontab / systemd snippets they print."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from nanodream.cli import app
from nanodream.config import Settings
from nanodream.run.dream import run_dream
from nanodream.run.records import read_records
from nanodream.scheduling.snippets import cron_as_oncalendar
from nanodream.scheduling.timetable import Schedule
from tests.scheduling.test_hostbusy import write_claim
from tests.support.cli import runner
from tests.support.fakes import NoteEngine
from tests.support.workspaces import entry, snapshot, write_history


def invoke(*args: str):
    return runner.invoke(app, list(args))


def test_print_crontab_runs_this_install_on_this_workspace(workspace):
    result = invoke("schedule", "-w", str(workspace.root), "--every", "4h", "-m", "openai/x", "--print-crontab")
    assert result.exit_code == 0, result.output
    line = [text for text in result.output.splitlines() if not text.startswith("#")][0]
    assert line.startswith("0 */4 * * * ")
    assert f"{sys.executable} -m nanodream run -w {workspace.root} --trigger cron --model openai/x" in line
    assert line.endswith(f">> {workspace.root}/.nanodream/cron.log 2>&1")


def test_print_crontab_takes_the_schedule_from_the_config(workspace):
    workspace.config_file.write_text('schedule = "every 30m"\n')
    result = invoke("schedule", "-w", str(workspace.root), "--print-crontab")
    assert result.exit_code == 0 and "\n*/30 * * * * " in result.output


def test_an_interval_cron_cannot_express_is_refused_for_crontab(workspace):
    result = invoke("schedule", "-w", str(workspace.root), "--every", "7h", "--print-crontab")
    assert result.exit_code == 2 and "cron cannot run every 7h evenly" in result.output


def test_print_systemd_emits_a_service_and_a_persistent_timer(workspace):
    result = invoke("schedule", "-w", str(workspace.root), "--cron", "30 9 * * mon-fri",
                    "--timezone", "Europe/Berlin", "--print-systemd")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "# ~/.config/systemd/user/nanodream-ws.service" in out
    assert "# ~/.config/systemd/user/nanodream-ws.timer" in out
    assert f"ExecStart={sys.executable} -m nanodream run -w {workspace.root} --trigger cron\n" in out
    assert "SuccessExitStatus=75" in out
    assert "OnCalendar=Mon..Fri *-*-* 09:30:00 Europe/Berlin" in out and "Persistent=true" in out


def test_print_systemd_falls_back_to_a_monotonic_timer_for_odd_intervals(workspace):
    result = invoke("schedule", "-w", str(workspace.root), "--every", "7h", "--print-systemd")
    assert result.exit_code == 0 and "OnUnitActiveSec=7h" in result.output and "OnCalendar" not in result.output


@pytest.mark.parametrize("args,message", [
    ((), "no schedule: pass --cron"),
    (("--cron", "0 * * * *", "--every", "1h"), "pass --cron or --every, not both"),
    (("--cron", "every day at noon"), "is not a cron expression"),
    (("--every", "1h", "--initial-delay", "soon"), "'soon' is not a duration"),
    (("--every", "1h", "--timezone", "Nowhere/Land"), "unknown time zone"),
])
def test_schedule_refuses_bad_options_with_exit_2(workspace, args, message):
    result = invoke("schedule", "-w", str(workspace.root), *args)
    assert result.exit_code == 2 and message in result.output


def test_the_day_of_month_or_weekday_rule_is_not_silently_changed_for_systemd():
    with pytest.raises(ValueError, match="OR the weekday"):
        cron_as_oncalendar("0 9 1 * mon", "UTC")


EQUIVALENT = [
    ("0 */4 * * *", "Europe/Berlin"), ("30 9 * * mon-fri", "America/New_York"), ("*/20 * * * *", "UTC"),
    ("0 0 1 */3 *", "UTC"), ("5/20 8-18/2 * * *", "Asia/Tokyo"), ("0 3 * * 5-7", "Europe/Berlin"),
    ("@weekly", "UTC"), ("15 10 1,15 * *", "Australia/Sydney"),
]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
@pytest.mark.parametrize("expression,timezone", EQUIVALENT)
def test_the_systemd_calendar_fires_exactly_when_cron_would(expression, timezone):
    base = datetime(2026, 3, 27, 21, 17, tzinfo=UTC)  # the weekend Europe springs forward
    calendar = cron_as_oncalendar(expression, timezone)
    out = subprocess.run(
        ["systemd-analyze", "calendar", "--iterations=6", f"--base-time={base:%Y-%m-%d %H:%M:%S} UTC", calendar],
        capture_output=True, text=True, check=True, env={**os.environ, "TZ": "UTC"}).stdout
    fired = [datetime.strptime(m, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
             for m in re.findall(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC", out.split("Normalized form")[1])]
    plan, moment, expected = Schedule.from_cron(expression, timezone), base, []
    for _ in range(6):
        moment = plan.due_after(moment, moment)
        expected.append(moment.astimezone(UTC))
    assert fired == expected


def test_run_refuses_an_unknown_trigger(workspace):
    result = invoke("run", "-w", str(workspace.root), "--trigger", "sometimes")
    assert result.exit_code == 2 and "--trigger must be one of manual, cron, slash" in result.output


def test_run_gives_way_to_a_busy_host_but_slash_runs_anyway(workspace):
    write_history(workspace, [entry(1, "[skip] nothing to keep")])
    write_claim(workspace, expires="2999-01-01T00:00:00+00:00")
    before = snapshot(workspace)
    busy = invoke("run", "-w", str(workspace.root), "--trigger", "cron", "--host-wait", "0")
    assert busy.exit_code == 75 and "host agent is serving a user turn" in busy.output
    assert snapshot(workspace) == before

    slash = invoke("run", "-w", str(workspace.root), "--trigger", "slash")
    assert slash.exit_code == 0, slash.output
    assert [(r.trigger, r.outcome) for r in read_records(workspace)] == [("cron", "busy"), ("slash", "no-change")]


def test_status_shows_last_success_last_failure_with_reason_quarantine_and_next_run(workspace):
    write_history(workspace, [entry(i, f"[durable] fact {i}" + (" POISON" if i == 2 else "")) for i in range(1, 5)])
    poisoned = NoteEngine(fail_when=lambda r: "rejected" if any("POISON" in e.content for e in r.batch.entries) else "")
    assert run_dream(workspace, Settings(model="fake/m", split_after=1), engine_factory=poisoned).quarantined == [2]
    with workspace.history_file.open("a") as handle:
        handle.write('{"cursor": 5, "timestamp": "2026-10-02 09:00", "content": "[durable] [late] fact"}\n')
    broken = NoteEngine(fail_when=lambda r: "provider error: overloaded [503]")
    assert run_dream(workspace, Settings(model="fake/m"), engine_factory=broken).outcome == "failed"
    workspace.config_file.write_text('schedule = "every 4h"\n')
    last_start = read_records(workspace)[-1].start

    result = invoke("status", "-w", str(workspace.root))

    assert result.exit_code == 0, result.output
    assert "last ok    " in result.output and "committed (manual, 3 entries, tokens in " in result.output
    assert "(manual): provider error: overloaded [503]" in result.output  # brackets survive the rendering
    assert "quarantine 1 set aside: line 2" in result.output and "line 2: rejected" in result.output
    expected = (datetime.fromisoformat(last_start) + timedelta(hours=4)).isoformat()
    assert f"next run   {expected}" in result.output
    assert "every 4h (UTC)" in result.output
