"""Ready-to-paste crontab and systemd timer snippets that run `nanodream run` for one workspace.

The system scheduler then owns the timing; nanodream's workspace lock still guarantees a single writer, and
exit code 75 (busy) is declared a success to systemd so a skipped slot is not reported as a failed unit.
"""

from __future__ import annotations

import re
import shlex
import sys
from datetime import timedelta

from nanodream.scheduling.timetable import Schedule, ScheduleError, format_duration
from nanodream.workspace import Workspace

_DAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_NICKNAMES = {"@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@weekly": "0 0 * * 0",
              "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *"}
# (first allowed value, last allowed value) per cron field
_RANGES = {"minute": (0, 59), "hour": (0, 23), "day": (1, 31), "month": (1, 12), "weekday": (0, 7)}


def run_command(workspace: Workspace, extra_args: list[str]) -> list[str]:
    """The command a system scheduler runs: this Python's nanodream, absolute paths, trigger recorded as cron."""
    return [sys.executable, "-m", "nanodream", "run", "-w", str(workspace.root), "--trigger", "cron", *extra_args]


def interval_as_cron(interval: timedelta) -> str:
    """An interval that divides an hour or a day evenly, as a cron expression; others cannot be expressed."""
    minutes, rest = divmod(int(interval.total_seconds()), 60)
    if not rest and 0 < minutes < 60 and 60 % minutes == 0:
        return f"*/{minutes} * * * *" if minutes > 1 else "* * * * *"
    if not rest and minutes % 60 == 0 and 24 % (minutes // 60) == 0:
        hours = minutes // 60
        return "0 0 * * *" if hours == 24 else f"0 */{hours} * * *" if hours > 1 else "0 * * * *"
    raise ScheduleError(f"cron cannot run every {format_duration(interval)} evenly; pass --cron instead "
                        "(an interval must divide an hour or a day)")


def crontab_snippet(workspace: Workspace, schedule: Schedule, extra_args: list[str]) -> str:
    expression = schedule.cron or interval_as_cron(schedule.interval)
    command = shlex.join(run_command(workspace, extra_args))
    log = shlex.quote(str(workspace.state_dir / "cron.log"))
    line = f"{expression} {command} >> {log} 2>&1".replace("%", "\\%")
    return "\n".join([
        f"# nanodream: dream for {workspace.root} — {schedule.describe()}",
        "# Install with `crontab -e` and paste these lines. cron runs with a minimal environment: put the",
        "# provider key in nanodream.toml or prefix the command with it. Exit code 75 means another dream",
        "# held the workspace (or the host agent stayed busy); the next slot picks up the rest.",
        f"# cron uses the system time zone; cronie honours CRON_TZ={schedule.tz.key}, for all lines below it.",
        line,
        "",
    ])


def systemd_snippet(workspace: Workspace, schedule: Schedule, extra_args: list[str]) -> str:
    name = unit_name(workspace)
    command = shlex.join(run_command(workspace, extra_args)).replace("%", "%%")
    timer = _timer_lines(schedule)
    return "\n".join([
        f"# ~/.config/systemd/user/{name}.service",
        "[Unit]",
        f"Description=nanodream: dream for {workspace.root}",
        "",
        "[Service]",
        "Type=oneshot",
        f"ExecStart={command}",
        "# 75: another dream held the workspace or the host agent stayed busy; the next run picks up the rest",
        "SuccessExitStatus=75",
        "# on stop, SIGTERM lets the current batch finish; a second signal abandons it cleanly",
        "TimeoutStopSec=300",
        "# EnvironmentFile=%h/.config/nanodream/env  (provider keys, if they are not in nanodream.toml)",
        "",
        f"# ~/.config/systemd/user/{name}.timer",
        "[Unit]",
        f"Description=nanodream schedule for {workspace.root}: {schedule.describe()}",
        "",
        "[Timer]",
        *timer,
        "",
        "[Install]",
        "WantedBy=timers.target",
        "",
        f"# enable: systemctl --user daemon-reload && systemctl --user enable --now {name}.timer",
        "",
    ])


def unit_name(workspace: Workspace) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", workspace.root.name.lower()).strip("-") or "workspace"
    return f"nanodream-{slug}"


def _timer_lines(schedule: Schedule) -> list[str]:
    if schedule.cron:
        expression = schedule.cron
    else:
        try:
            expression = interval_as_cron(schedule.interval)
        except ScheduleError:
            interval = format_duration(schedule.interval)
            return ["OnActiveSec=1min", f"OnUnitActiveSec={interval}",
                    "# a monotonic interval: systemd cannot catch up a slot missed while the machine was off"]
    return [f"OnCalendar={cron_as_oncalendar(expression, schedule.tz.key)}",
            "# run once at start-up for a slot missed while the machine was off",
            "Persistent=true"]


def cron_as_oncalendar(expression: str, timezone: str) -> str:
    """Translate a 5-field cron expression into a systemd OnCalendar= value with the same firing times."""
    expression = " ".join(expression.split())
    expression = _NICKNAMES.get(expression.lower(), expression)
    fields = expression.split(" ")
    if len(fields) != 5:
        raise ScheduleError(f"cannot translate {expression!r} for systemd: it needs the five standard cron fields")
    minute, hour, day, month, weekday = fields
    if day != "*" and weekday != "*":
        raise ScheduleError("cron runs when the day of month OR the weekday matches, systemd only when both do; "
                            "restrict one of them, not both, for --print-systemd")
    calendar = (f"*-{_field(month, 'month')}-{_field(day, 'day')} "
                f"{_field(hour, 'hour')}:{_field(minute, 'minute')}:00 {timezone}")
    return f"{_weekdays(weekday)} {calendar}" if weekday != "*" else calendar


def _field(text: str, kind: str) -> str:
    if text == "*":
        return "*"
    return ",".join(_part(part, kind) for part in text.split(","))


def _part(part: str, kind: str) -> str:
    low, high = _RANGES[kind]
    body, _, step = part.partition("/")
    if body == "*":
        start, end = low, high
    elif "-" in body:
        first, last = body.split("-", 1)
        start, end = _value(first, kind), _value(last, kind)
    else:
        start, end = _value(body, kind), None
    if step:
        if end is None or end == high:  # "a/n" and "*/n": systemd's own repetition syntax
            return f"{start:02d}/{int(step)}"
        return ",".join(f"{v:02d}" for v in range(start, end + 1, int(step)))
    return f"{start:02d}" if end is None else f"{start:02d}..{end:02d}"


def _value(text: str, kind: str) -> int:
    if kind == "month" and text.lower() in _MONTHS:
        return _MONTHS.index(text.lower()) + 1
    if not text.isdigit():
        raise ScheduleError(f"cannot translate {text!r} in the {kind} field for systemd")
    return int(text)


def _weekdays(text: str) -> str:
    names = [d.lower() for d in _DAYS]
    out = []
    for part in text.split(","):
        if "/" in part:
            raise ScheduleError("a weekday step (like */2) cannot be expressed for systemd; list the days")
        bounds = part.split("-", 1)
        days = [names.index(b.lower()[:3]) if b.lower()[:3] in names else int(b) % 7 for b in bounds]
        out.append(_DAYS[days[0]] if len(days) == 1 else f"{_DAYS[days[0]]}..{_DAYS[days[1]]}")
    return ",".join(out)
