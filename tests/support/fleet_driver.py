"""`python -m tests.support.fleet_driver SECONDS fleet worker ...`: a fleet worker whose dreams are slow and countable.

Test-only: production code has no sleep hooks. The driver replaces the engine factory that fleet jobs use
(RQ forks every job from this process, so each job inherits the replacement) with the fault tests'
AppendEngine, which files every fact of a batch in the memory files, after sleeping SECONDS per batch: a
dream long enough to kill a worker in the middle of, whose files show any entry lost or consumed twice.
"""

from __future__ import annotations

import sys
import time

import nanodream.fleet.jobs
from nanodream.cli import main
from nanodream.config import Settings
from nanodream.engines.base import SessionRequest, SessionResult
from nanodream.toolbox.tools import ToolBox
from tests.support.fault_engine import AppendEngine


class SlowAppendEngine(AppendEngine):
    """AppendEngine that first sleeps `delay` seconds per batch, like a model thinking."""

    def __init__(self, settings: Settings, delay: float) -> None:
        super().__init__(settings)
        self.delay = delay

    def run(self, request: SessionRequest, toolbox: ToolBox) -> SessionResult:
        time.sleep(self.delay)
        return super().run(request, toolbox)


if __name__ == "__main__":
    delay = float(sys.argv.pop(1))
    nanodream.fleet.jobs.engine_for = lambda settings: SlowAppendEngine(settings, delay)
    sys.argv[0] = "nanodream"
    main()
