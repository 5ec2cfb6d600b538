"""`python -m tests.support.pinned_main MOMENT <nanodream arguments>`: nanodream with its one clock pinned.

Test-only: a process the test starts (a fleet worker, whose jobs RQ forks from it and so inherit the pin) reads
the same day as the test, whatever the wall clock says: a quota counted "today (UTC)" must not flip at midnight.
"""

from __future__ import annotations

import sys
from datetime import datetime

from nanodream import clock
from nanodream.cli import main

if __name__ == "__main__":
    moment = datetime.fromisoformat(sys.argv.pop(1))
    sys.argv[0] = "nanodream"
    with clock.pinned(moment):
        main()
