"""When dreams are due: cron or interval schedules, durations, and the state file a live scheduler leaves.

Due times come from a cron expression (croniter, in the configured time zone, so "0 3 * * *" means 03:00
local time across daylight-saving changes) or a fixed interval ("every 4h"). `status` reads the next run from
here, so this module holds no run machinery and imports croniter only when a cron expression is used.
"""

from __future__ import annotations

import json
import os
import re
import socket
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from nanodream import boundedjson, clock
from nanodream.atomic import atomic_write
from nanodream.config import Settings, zone
from nanodream.run.records import read_records
from nanodream.vocab import Outcome
from nanodream.workspace import Workspace

_DURATION = re.compile(r"(\d+)\s*([smhd])", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_EVERY = re.compile(r"^@?every\s+(.+)$", re.IGNORECASE)
_LONGEST = timedelta(days=366)


class ScheduleError(ValueError):
    """A schedule, duration or time zone that cannot be used; the message says what is accepted."""


def parse_duration(text: str) -> timedelta:
    """'4h', '90m', '1h30m', '45s', '2d' → timedelta; a bare number is refused (which unit?)."""
    compact = text.strip().replace(" ", "")
    parts = _DURATION.findall(compact)
    if not compact or "".join(n + u for n, u in parts).lower() != compact.lower():
        raise ScheduleError(f"{text!r} is not a duration; write it like 30m, 4h, 1h30m or 2d")
    seconds = sum(int(n) * _UNIT_SECONDS[u.lower()] for n, u in parts)
    if seconds > _LONGEST.total_seconds():  # past what dates can hold, and never what anyone means
        raise ScheduleError(f"{text!r} is too long; use at most {_LONGEST.days}d")
    return timedelta(seconds=seconds)


def _zone(name: str) -> ZoneInfo:
    try:
        return zone(name)
    except ValueError as exc:
        raise ScheduleError(str(exc)) from None


@dataclass(frozen=True)
class Schedule:
    """A cron expression or a fixed interval, in one time zone."""

    tz: ZoneInfo
    cron: str | None = None
    interval: timedelta | None = None

    @classmethod
    def parse(cls, text: str, timezone: str = "UTC") -> Schedule:
        """'every 4h' (or '@every 4h') for an interval, anything else as a cron expression."""
        every = _EVERY.match(text.strip())
        if every:
            return cls.every(every.group(1), timezone)
        return cls.from_cron(text, timezone)

    @classmethod
    def from_cron(cls, expression: str, timezone: str = "UTC") -> Schedule:
        from croniter import croniter

        expression = " ".join(expression.split())
        if not croniter.is_valid(expression):
            raise ScheduleError(f"{expression!r} is not a cron expression; e.g. \"0 */4 * * *\" (every 4 hours)")
        return cls(_zone(timezone), cron=expression)

    @classmethod
    def every(cls, duration: str, timezone: str = "UTC") -> Schedule:
        interval = parse_duration(duration)
        if interval < timedelta(minutes=1):
            raise ScheduleError(f"an interval of {duration!r} is too short; use at least 1m")
        return cls(_zone(timezone), interval=interval)

    def describe(self) -> str:
        what = f'cron "{self.cron}"' if self.cron else f"every {format_duration(self.interval)}"
        return f"{what} ({self.tz.key})"

    def first_due(self, now: datetime, last_attempt: datetime | None,
                  initial_delay: timedelta = timedelta(0)) -> tuple[datetime, datetime | None]:
        """(when the first run is due, the missed slot it catches up or None), never before now + delay."""
        earliest = now + initial_delay
        if self.cron:
            from croniter import croniter

            slot = croniter(self.cron, now.astimezone(self.tz)).get_prev(datetime)
            if last_attempt is not None and last_attempt < slot:
                return earliest, slot
            return max(self._next_slot(now), earliest), None
        if last_attempt is None:
            return earliest, None
        due = last_attempt + self.interval
        if due <= now:
            return earliest, due
        return max(due, earliest), None

    def due_after(self, started: datetime, now: datetime) -> datetime:
        """The next due time after an attempt that began at `started`; slots passed meanwhile are not replayed."""
        if self.cron:
            return self._next_slot(now)
        return max(started + self.interval, now)

    def _next_slot(self, moment: datetime) -> datetime:
        from croniter import croniter

        return croniter(self.cron, moment.astimezone(self.tz)).get_next(datetime)


def format_duration(delta: timedelta | None) -> str:
    seconds = int(delta.total_seconds()) if delta else 0
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size:
            parts.append(f"{seconds // size}{unit}")
            seconds %= size
    return "".join(parts) or "0s"


def last_attempt_start(workspace: Workspace) -> datetime | None:
    """When the newest run that was not turned away as busy began (any trigger: a manual run counts too)."""
    for record in reversed(read_records(workspace, limit=200)):
        if record.outcome == Outcome.BUSY:
            continue
        try:
            moment = datetime.fromisoformat(str(record.start))
        except ValueError:
            continue
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return None


# --- the live scheduler's state file, so `status` can show its next run --------------------------------------


def scheduler_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "scheduler.json"


def write_scheduler_state(workspace: Workspace, schedule: Schedule, next_run: datetime) -> None:
    atomic_write(scheduler_file(workspace), json.dumps({
        "pid": os.getpid(), "host": socket.gethostname(), "schedule": schedule.describe(),
        "next_run": next_run.isoformat(timespec="seconds"),
    }) + "\n")


def read_scheduler_state(workspace: Workspace) -> dict[str, Any] | None:
    """The running scheduler's state, or None when none runs (a file left by a dead one is ignored)."""
    try:
        data = boundedjson.load_file(scheduler_file(workspace))
        pid = int(data["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if data.get("host") == socket.gethostname():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
    return data


def clear_scheduler_state(workspace: Workspace) -> None:
    try:
        data = boundedjson.load_file(scheduler_file(workspace))
        if data.get("pid") == os.getpid():
            scheduler_file(workspace).unlink()
    except (OSError, ValueError, AttributeError):
        return


def next_scheduled(workspace: Workspace, settings: Settings, now: datetime | None = None) -> dict[str, Any] | None:
    """For `status`: the live scheduler's next run, else the one implied by `schedule` in the settings."""
    live = read_scheduler_state(workspace)
    if live is not None:
        return {"source": f"scheduler pid {live.get('pid')}", "schedule": live.get("schedule"),
                "next_run": live.get("next_run"), "catch_up": None}
    if not settings.schedule:
        return None
    try:
        schedule = Schedule.parse(settings.schedule, settings.timezone)
    except ScheduleError as exc:
        return {"source": "schedule setting", "schedule": settings.schedule, "next_run": None, "error": str(exc)}
    due, missed = schedule.first_due(now or clock.now(), last_attempt_start(workspace))
    return {"source": "schedule setting, no scheduler running", "schedule": schedule.describe(),
            "next_run": due.astimezone(schedule.tz).isoformat(timespec="seconds"),
            "catch_up": missed.astimezone(schedule.tz).isoformat(timespec="seconds") if missed else None}
