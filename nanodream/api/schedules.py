"""Schedules: the plan, cron/systemd snippets, the foreground scheduler."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from nanodream.api.acting import WorkspaceLike, action, settings_for, workspace_at
from nanodream.api.reports import (
    SchedulePlan,
    ScheduleSnippet,
)
from nanodream.vocab import ExitCode, Refused, Report

if TYPE_CHECKING:
    from nanodream.config import Settings
    from nanodream.scheduling.scheduler import Decision
    from nanodream.scheduling.shutdown import GracefulStop


@action()
def schedule_plan(where: WorkspaceLike, settings: Settings | None = None, *, cron: str | None = None,
                  every: str | None = None, initial_delay: str | None = None) -> SchedulePlan:
    """The schedule `cron` or `every` gives, else the workspace's `schedule` setting, in the `timezone` setting;
    one that does not parse, or none at all, is refused (exit 2)."""
    from datetime import timedelta

    from nanodream.scheduling.timetable import Schedule, ScheduleError, parse_duration

    workspace = workspace_at(where)
    settings = settings or settings_for(workspace)
    try:
        if cron or every:
            timetable = Schedule.from_cron(cron, settings.timezone) if cron else Schedule.every(every or "",
                                                                                               settings.timezone)
        else:
            timetable = Schedule.parse(settings.schedule, settings.timezone) if settings.schedule else None
        delay = parse_duration(initial_delay) if initial_delay else timedelta(0)
    except ScheduleError as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    if timetable is None:
        raise Refused('no schedule: pass --cron "0 */4 * * *" or --every 4h, or set schedule in nanodream.toml',
                      exit_code=ExitCode.USAGE)
    return SchedulePlan(timetable=timetable, delay=delay)


@action()
def schedule_snippet(where: WorkspaceLike, plan: SchedulePlan, kind: str,
                     arguments: Iterable[str] = ()) -> ScheduleSnippet:
    """The crontab line or systemd units (`kind`) that run `nanodream run` with `arguments` on `plan`."""
    from nanodream.scheduling.snippets import crontab_snippet, systemd_snippet
    from nanodream.scheduling.timetable import ScheduleError

    write = {"crontab": crontab_snippet, "systemd": systemd_snippet}[kind]
    try:
        text = write(workspace_at(where), plan.timetable, list(arguments))
    except ScheduleError as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    return ScheduleSnippet(kind=kind, plan=plan, text=text)


@action()
def schedule(where: WorkspaceLike, plan: SchedulePlan, settings: Settings | None = None, *,
             max_batches: int | None = None, stop: GracefulStop | None = None,
             log: Callable[[Decision], None] = lambda decision: None) -> Report:
    """Dream whenever `plan` says, until `stop` asks to (SIGINT/SIGTERM through GracefulStop), telling `log`
    each decision; a second signal raises KeyboardInterrupt to the caller, the workspace consistent."""
    from nanodream.scheduling.scheduler import Scheduler

    workspace = workspace_at(where)
    pacing: dict[str, Any] = {"sleep": stop.sleep, "stop": stop.reason} if stop is not None else {}
    Scheduler(workspace, settings or settings_for(workspace), plan.timetable, initial_delay=plan.delay,
              max_batches=max_batches, log=log, **pacing).run()
    return Report()
