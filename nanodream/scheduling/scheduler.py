"""The foreground scheduler: dream when due (see timetable for when that is), and what happens when it does.

A slot missed while the scheduler was down is caught up once at start-up — judged from the last run record,
whoever made it — never once per missed slot. The clock and the sleep are injected, so tests never really wait.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from nanodream import clock
from nanodream.backlog.history import Position, Survey
from nanodream.backlog.position import resume
from nanodream.backlog.surveyed import survey_of
from nanodream.backlog.waiting import WaitingUnreadable, count_waiting
from nanodream.config import Settings
from nanodream.engines import Engine, engine_for
from nanodream.run.context import RunOptions
from nanodream.run.dream import record_run, run_dream
from nanodream.run.report import RunReport
from nanodream.scheduling.hostbusy import HostWait, read_host_busy, wait_until_idle
from nanodream.scheduling.timetable import (
    Schedule,
    clear_scheduler_state,
    format_duration,
    last_attempt_start,
    write_scheduler_state,
)
from nanodream.vocab import CONSUMED, Declared, Outcome, Shape, count_entries, new_run_id, nothing_to_do, utc_stamp
from nanodream.workspace import Workspace

# Wake at least this often while waiting, so a suspended laptop or a clock change is noticed.
MAX_NAP_SECONDS = 60.0


# --- one run that gives way to the host agent ------------------------------------------------------------


def run_when_idle(workspace: Workspace, settings: Settings, options: RunOptions, waiting: HostWait | None = None, *,
                  engine_factory: Callable[[Settings], Engine] = engine_for) -> RunReport:
    """Wait while the host agent serves a user turn (up to `waiting.wait`, default host_wait), then dream.

    Gives up as "busy" rather than queueing behind a long turn, and between batches ends the run early if
    the host starts another turn meanwhile or a stop is requested.
    """
    waiting = waiting or HostWait()
    started = waiting.clock()
    limit = settings.host_wait if waiting.wait is None else waiting.wait
    claim = wait_until_idle(workspace, waiting, limit=limit, poll=settings.host_poll)
    if claim is not None:
        given_up = f"gave up after {format_duration(timedelta(seconds=limit))}"
        reason = f"{claim.describe()}; {'shutting down' if waiting.stop() else given_up}"
        report = RunReport(run_id=new_run_id(), model=settings.model, trigger=options.trigger, outcome=Outcome.BUSY,
                           reason=reason, started=utc_stamp(started), finished=utc_stamp(waiting.clock()))
        if not options.dry_run:
            record_run(workspace, report)
        return report

    def pause() -> str:
        reason = waiting.stop()
        if reason:
            return reason
        turn = read_host_busy(workspace, waiting.clock())
        return f"paused: {turn.describe()}; the rest waits for the next run" if turn else ""

    return run_dream(workspace, settings, options, engine_factory=engine_factory, should_stop=pause)


# --- the loop ------------------------------------------------------------------------------------------------


@dataclass
class Decision(Declared):
    """One line of the scheduler's log: what it decided and why, and what it has to say about it (`data`)."""

    json_shape = Shape(spread=("data",))

    at: datetime
    kind: str  # next | waiting | ran | nothing-to-do | busy | blocked | failed | stopped
    message: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Scheduler:
    workspace: Workspace
    settings: Settings
    schedule: Schedule
    initial_delay: timedelta = timedelta(0)
    max_batches: int | None = None
    clock: Callable[[], datetime] = clock.now
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
            resumed = resume(self.workspace)  # a history rewritten past placing is no empty backlog: run, to say so
            backlog = survey_of(self.workspace, resumed.position, self.settings.max_cursor_jump, keep=False)
            idle = backlog.pending == 0 and not self._model_has_work(resumed.position, backlog)
            if idle and not resumed.needs_person and not self.workspace.journal_file.exists():
                self._record(now, Outcome.NOTHING_TO_DO, "the backlog is empty")
                return Decision(now, Outcome.NOTHING_TO_DO, "nothing to do: the backlog is empty")
            waiting = HostWait(clock=self.clock, sleep=self.sleep, stop=self.stop, on_wait=lambda claim: self.log(
                Decision(self.clock(), "waiting", f"waiting: {claim.describe()}")))
            report = run_when_idle(self.workspace, self.settings,
                                   RunOptions(trigger="schedule", max_batches=self.max_batches), waiting,
                                   engine_factory=self.engine_factory)
        except Exception as exc:  # the scheduler outlives one broken run; the next slot tries again
            reason = f"{type(exc).__name__}: {exc}"
            self._record(now, Outcome.FAILED, reason)
            return Decision(self.clock(), Outcome.FAILED, f"failed: {reason}")
        return describe_report(self.clock(), report)

    def _model_has_work(self, position: Position, backlog: Survey) -> bool:
        """Entries waiting for a model are work for a run with one (the built-in rules cannot read them)."""
        if self.settings.offline:
            return False
        try:
            return bool(count_waiting(self.workspace, position, backlog))
        except WaitingUnreadable:
            return True  # the run says what is wrong with the record

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
        record_run(self.workspace, RunReport(
            run_id=new_run_id(), model=self.settings.model, trigger="schedule", outcome=outcome, reason=reason,
            started=utc_stamp(started), finished=utc_stamp(self.clock())))


def describe_report(at: datetime, report: RunReport) -> Decision:
    """The one log line for a finished run."""
    data = {"run_id": report.run_id, "outcome": report.outcome, "entries": report.entries,
            "commits": report.commits, "tokens_in": report.tokens_in, "tokens_out": report.tokens_out,
            "cost": report.cost, "quarantined": report.quarantined}
    if report.outcome in CONSUMED:
        span = f"#{report.consumed[0]}..#{report.consumed[1]}" if report.consumed else "no entries"
        commits = ", ".join(sha[:8] for sha in report.commits) or "no commit (nothing worth keeping)"
        message = f"ran: {span} ({count_entries(report.entries)}) → {commits}"
        if report.tokens_in or report.tokens_out:
            message += f"; tokens in {report.tokens_in} out {report.tokens_out}"
        if report.reason:
            message += f"; {report.reason}"
        return Decision(at, "ran", message, data)
    if report.outcome == Outcome.BUSY:
        return Decision(at, Outcome.BUSY, f"busy: {report.reason}; trying again at the next slot", data)
    if report.outcome == Outcome.BLOCKED:
        return Decision(at, Outcome.BLOCKED, f"blocked until a person acts: {report.reason}", data)
    if report.outcome == Outcome.NOTHING_TO_DO:
        return Decision(at, Outcome.NOTHING_TO_DO, nothing_to_do(report.reason), data)
    return Decision(at, Outcome.FAILED, f"failed: {report.reason}", data)
