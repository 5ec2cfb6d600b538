"""The foreground scheduler: when the next dream is due, and what happens when it is.

Due times come from a cron expression (croniter, in the configured time zone, so "0 3 * * *" means 03:00
local time across daylight-saving changes) or a fixed interval ("every 4h"). A slot missed while the
scheduler was down is caught up once at start-up — judged from the last run record, whoever made it —
never once per missed slot. The clock and the sleep are injected, so tests never really wait.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import croniter

from nanodream.atomic import atomic_write
from nanodream.config import Settings
from nanodream.dream import RunReport, new_run_id, record_run, run_dream
from nanodream.engines import Engine, engine_for
from nanodream.history import read_cursor, scan_backlog
from nanodream.hostbusy import HostBusy, read_host_busy, utc_now, wait_until_idle
from nanodream.records import read_records
from nanodream.workspace import Workspace

_DURATION = re.compile(r"(\d+)\s*([smhd])", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_EVERY = re.compile(r"^@?every\s+(.+)$", re.IGNORECASE)
# Wake at least this often while waiting, so a suspended laptop or a clock change is noticed.
MAX_NAP_SECONDS = 60.0


class ScheduleError(ValueError):
    """A schedule, duration or time zone that cannot be used; the message says what is accepted."""


def parse_duration(text: str) -> timedelta:
    """'4h', '90m', '1h30m', '45s', '2d' → timedelta; a bare number is refused (which unit?)."""
    compact = text.strip().replace(" ", "")
    parts = _DURATION.findall(compact)
    if not compact or "".join(n + u for n, u in parts).lower() != compact.lower():
        raise ScheduleError(f"{text!r} is not a duration; write it like 30m, 4h, 1h30m or 2d")
    return timedelta(seconds=sum(int(n) * _UNIT_SECONDS[u.lower()] for n, u in parts))


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleError(f"unknown time zone {name!r}; use an IANA name like UTC or Europe/Berlin") from None


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
        expression = " ".join(expression.split())
        if not croniter.is_valid(expression):
            raise ScheduleError(f"{expression!r} is not a cron expression; e.g. \"0 */4 * * *\" (every 4 hours)")
        return cls(zone(timezone), cron=expression)

    @classmethod
    def every(cls, duration: str, timezone: str = "UTC") -> Schedule:
        interval = parse_duration(duration)
        if interval < timedelta(minutes=1):
            raise ScheduleError(f"an interval of {duration!r} is too short; use at least 1m")
        return cls(zone(timezone), interval=interval)

    def describe(self) -> str:
        what = f'cron "{self.cron}"' if self.cron else f"every {format_duration(self.interval)}"
        return f"{what} ({self.tz.key})"

    def first_due(self, now: datetime, last_attempt: datetime | None,
                  initial_delay: timedelta = timedelta(0)) -> tuple[datetime, datetime | None]:
        """(when the first run is due, the missed slot it catches up or None), never before now + delay."""
        earliest = now + initial_delay
        if self.cron:
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
        if record.get("outcome") == "busy":
            continue
        try:
            moment = datetime.fromisoformat(str(record.get("start")))
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
        data = json.loads(scheduler_file(workspace).read_text(encoding="utf-8"))
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
        data = json.loads(scheduler_file(workspace).read_text(encoding="utf-8"))
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
    due, missed = schedule.first_due(now or utc_now(), last_attempt_start(workspace))
    return {"source": "schedule setting, no scheduler running", "schedule": schedule.describe(),
            "next_run": due.astimezone(schedule.tz).isoformat(timespec="seconds"),
            "catch_up": missed.astimezone(schedule.tz).isoformat(timespec="seconds") if missed else None}


# --- one run that gives way to the host agent ------------------------------------------------------------


def run_when_idle(workspace: Workspace, settings: Settings, *, trigger: str, wait: float | None = None,
                  clock: Callable[[], datetime] = utc_now, sleep: Callable[[float], object] = time.sleep,
                  stop: Callable[[], str] = lambda: "", on_wait: Callable[[HostBusy], None] = lambda claim: None,
                  dry_run: bool = False, max_batches: int | None = None, tidy: bool = False,
                  engine_factory: Callable[[Settings], Engine] = engine_for) -> RunReport:
    """Wait while the host agent serves a user turn (up to `wait`, default host_wait), then dream.

    Gives up as "busy" rather than queueing behind a long turn, and between batches ends the run early if
    the host starts another turn meanwhile or a stop is requested.
    """
    started = clock()
    limit = settings.host_wait if wait is None else wait
    claim = wait_until_idle(workspace, limit=limit, poll=settings.host_poll, sleep=sleep, clock=clock,
                            should_stop=stop, on_wait=on_wait)
    if claim is not None:
        waited = format_duration(timedelta(seconds=limit))
        reason = f"{claim.describe()}; shutting down" if stop() else f"{claim.describe()}; gave up after {waited}"
        report = RunReport(run_id=new_run_id(), model=settings.model, trigger=trigger, outcome="busy", reason=reason,
                           started=started.astimezone(UTC).isoformat(timespec="seconds"),
                           finished=clock().astimezone(UTC).isoformat(timespec="seconds"))
        if not dry_run:
            record_run(workspace, report)
        return report

    def pause() -> str:
        reason = stop()
        if reason:
            return reason
        turn = read_host_busy(workspace, clock())
        return f"paused: {turn.describe()}; the rest waits for the next run" if turn else ""

    return run_dream(workspace, settings, dry_run=dry_run, max_batches=max_batches, trigger=trigger, tidy=tidy,
                     engine_factory=engine_factory, should_stop=pause)


# --- the loop ------------------------------------------------------------------------------------------------


@dataclass
class Decision:
    """One line of the scheduler's log: what it decided and why."""

    at: datetime
    kind: str  # next | waiting | ran | nothing-to-do | busy | failed | stopped
    message: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"at": self.at.isoformat(timespec="seconds"), "kind": self.kind, "message": self.message,
                **self.data}


@dataclass
class Scheduler:
    workspace: Workspace
    settings: Settings
    schedule: Schedule
    initial_delay: timedelta = timedelta(0)
    max_batches: int | None = None
    clock: Callable[[], datetime] = utc_now
    sleep: Callable[[float], object] = time.sleep
    stop: Callable[[], str] = lambda: ""  # a reason to shut down, or ''
    log: Callable[[Decision], None] = lambda decision: None
    engine_factory: Callable[[Settings], Engine] = engine_for

    def run(self, max_attempts: int | None = None) -> int:
        """Run dreams when due until a stop is requested (or `max_attempts` are made); returns attempts made."""
        now = self.clock()
        due, missed = self.schedule.first_due(now, last_attempt_start(self.workspace), self.initial_delay)
        if missed is not None:
            self._announce(due, f"catching up the run due at {self._local(missed)}, missed while not running")
        else:
            self._announce(due)
        attempts = 0
        try:
            while max_attempts is None or attempts < max_attempts:
                if not self._wait_until(due):
                    break
                started = self.clock()
                self.log(self.attempt())
                attempts += 1
                if self.stop():
                    break
                due = self.schedule.due_after(started, self.clock())
                self._announce(due)
        finally:
            clear_scheduler_state(self.workspace)
        if self.stop():
            self.log(Decision(self.clock(), "stopped", self.stop()))
        return attempts

    def attempt(self) -> Decision:
        """One due run: skip an empty backlog, wait for a busy host, then dream; never raises a run's failure."""
        now = self.clock()
        try:
            backlog = scan_backlog(self.workspace.history_file, read_cursor(self.workspace.cursor_file))
            if backlog.pending == 0 and not self.workspace.journal_file.exists():
                self._record(now, "nothing-to-do", "the backlog is empty")
                return Decision(now, "nothing-to-do", "nothing to do: the backlog is empty")
            report = run_when_idle(
                self.workspace, self.settings, trigger="schedule", max_batches=self.max_batches,
                engine_factory=self.engine_factory, clock=self.clock, sleep=self.sleep, stop=self.stop,
                on_wait=lambda claim: self.log(Decision(self.clock(), "waiting", f"waiting: {claim.describe()}")))
        except Exception as exc:  # the scheduler outlives one broken run; the next slot tries again
            reason = f"{type(exc).__name__}: {exc}"
            self._record(now, "failed", reason)
            return Decision(self.clock(), "failed", f"failed: {reason}")
        return describe_report(self.clock(), report)

    def _wait_until(self, due: datetime) -> bool:
        """Sleep until `due`; False when a stop was requested first."""
        while not self.stop():
            left = (due - self.clock()).total_seconds()
            if left <= 0:
                return True
            self.sleep(min(left, MAX_NAP_SECONDS))
        return False

    def _announce(self, due: datetime, note: str = "") -> None:
        write_scheduler_state(self.workspace, self.schedule, due)
        message = f"next run at {self._local(due)}" + (f" ({note})" if note else "")
        self.log(Decision(self.clock(), "next", message, {"next_run": due.isoformat(timespec="seconds")}))

    def _local(self, moment: datetime) -> str:
        return moment.astimezone(self.schedule.tz).isoformat(timespec="seconds")

    def _record(self, started: datetime, outcome: str, reason: str) -> None:
        stamp = self.clock().astimezone(UTC).isoformat(timespec="seconds")
        record_run(self.workspace, RunReport(
            run_id=new_run_id(), model=self.settings.model, trigger="schedule", outcome=outcome, reason=reason,
            started=started.astimezone(UTC).isoformat(timespec="seconds"), finished=stamp))


def describe_report(at: datetime, report: RunReport) -> Decision:
    """The one log line for a finished run."""
    data = {"run_id": report.run_id, "outcome": report.outcome, "entries": report.entries,
            "commits": report.commits, "tokens_in": report.tokens_in, "tokens_out": report.tokens_out,
            "cost": report.cost, "quarantined": report.quarantined}
    if report.outcome in ("committed", "no-change"):
        span = f"#{report.consumed[0]}..#{report.consumed[1]}" if report.consumed else "no entries"
        commits = ", ".join(sha[:8] for sha in report.commits) or "no commit (nothing worth keeping)"
        message = f"ran: {span} ({report.entries} entries) → {commits}"
        if report.tokens_in or report.tokens_out:
            message += f"; tokens in {report.tokens_in} out {report.tokens_out}"
        if report.reason:
            message += f"; {report.reason}"
        return Decision(at, "ran", message, data)
    if report.outcome == "busy":
        return Decision(at, "busy", f"busy: {report.reason}; trying again at the next slot", data)
    if report.outcome == "nothing-to-do":
        return Decision(at, "nothing-to-do", "nothing to do: the backlog is empty", data)
    return Decision(at, "failed", f"failed: {report.reason}", data)
