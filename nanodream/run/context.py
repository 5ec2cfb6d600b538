"""Everything one run needs, built once: functions take this instead of ten loose arguments that drift."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import cached_property

from nanodream import clock
from nanodream.config import Settings, zone
from nanodream.engines import Engine, ProviderMisconfigured, describe_error, engine_for
from nanodream.memory.door import Door
from nanodream.run.progress import SILENT, RunObserver
from nanodream.toolbox.limits import ToolLimits
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import HOST_TRIGGER, Outcome, new_run_id
from nanodream.workspace import Workspace


def never_stop() -> str:
    return ""


@dataclass(frozen=True)
class RunOptions:
    """How this run was asked for (flags, not settings)."""

    dry_run: bool = False
    max_batches: int | None = None  # None: the max_batches setting
    trigger: str = "manual"  # manual | cron | slash | schedule | retry | mcp | fleet | host
    tidy: bool = False  # one maintenance session over the memory alone: no history, cursor untouched
    allow_empty: bool = False  # with an empty backlog, run the tidy pass instead of doing nothing
    lookback_days: int = 0  # show already-consumed history of the last N days as context (0: none)
    review: bool = False  # every change waits on refs/nanodream/pending for review (as the setting review = true)
    observer: RunObserver = field(default=SILENT, compare=False)  # who watches (the CLI's progress display)
    max_entries: int | None = None  # a batch holds at most this many entries (None: the batch_tokens budget alone)

    @property
    def hosted(self) -> bool:
        """A host agent is the model (run/hosted.py): it waits on the host's calls, so it reads no [[ingest]]
        source and re-dreams no held entry first — it begins at once and leaves nothing an abort cannot undo."""
        return self.trigger == HOST_TRIGGER


class EngineUnavailable(RuntimeError):
    """The engine could not be started (e.g. a provider package missing); the message is one line.

    `outcome` is `misconfigured` when a person must change the configuration first (a missing key).
    """

    def __init__(self, message: str, outcome: str = Outcome.FAILED) -> None:
        super().__init__(message)
        self.outcome = outcome


@dataclass(frozen=True)
class RunContext:
    """The workspace, its settings and repository, the run's options, and how to get an engine.

    `should_stop` is asked between batches: a non-empty answer is the reason to end after the batch that
    just finished (a SIGTERM, the host agent starting a user turn).
    """

    workspace: Workspace
    settings: Settings
    options: RunOptions = RunOptions()
    engine_factory: Callable[[Settings], Engine] = engine_for
    should_stop: Callable[[], str] = never_stop
    run_id: str = field(default_factory=new_run_id)
    door: Door | None = None  # set once the run has entered the write door (memory/door.py)
    started: datetime = field(default_factory=clock.now)  # the run's one moment: every date it writes
    _engines: list[Engine] = field(default_factory=list, compare=False, repr=False)

    @cached_property
    def store(self) -> GitStore:
        return GitStore(self.workspace)

    @cached_property
    def limits(self) -> ToolLimits:
        return ToolLimits.from_settings(self.settings)

    @property
    def day(self) -> date:
        """The run's day in UTC: the archive's month, `until` dates, confirmations."""
        return self.started.astimezone(UTC).date()

    @property
    def local_day(self) -> date:
        """The run's day on the person's clock (the workspace's timezone): line ages, stale tasks."""
        return self.started.astimezone(zone(self.settings.timezone)).date()

    @property
    def dry_run(self) -> bool:
        return self.options.dry_run

    @property
    def review(self) -> str:
        """What waits for review: off | all | soul (`--review` means all, whatever the setting says)."""
        return "all" if self.options.review else self.settings.review

    @property
    def batch_limit(self) -> int:
        """A dry run shows one batch; a real run stops starting batches past max_batches."""
        return 1 if self.dry_run else (self.options.max_batches or self.settings.max_batches)

    def engine(self) -> Engine:
        """The run's engine, started on first use (a run with nothing to dream never imports litellm)."""
        if not self._engines:
            try:
                self._engines.append(self.engine_factory(self.settings))
            except ProviderMisconfigured as exc:
                raise EngineUnavailable(f"configuration: {exc}", Outcome.MISCONFIGURED) from None
            except Exception as exc:
                raise EngineUnavailable(
                    f"cannot start engine {self.settings.model!r}: {describe_error(exc)}") from None
        return self._engines[0]
