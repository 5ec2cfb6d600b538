"""Run one `nanodream sync` that SIGKILLs itself at a chosen moment: `python -m tests.support.sync_driver WORKSPACE
N [after]`.

Test-only: production code has no fault hooks. The driver counts the moments a sync can be cut at — each git
process it starts (fetch, the objects it builds, the push, the ref moves) and each file it renames into place (the
journal, memory files, the state it keeps) — and dies like `kill -9` or a power cut at the Nth, before it happens
or (`after`) right after. With fewer moments than N the sync simply completes.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

import nanodream.versioning.gitrunner
from nanodream import api
from nanodream.workspace import Workspace


def main(argv: list[str]) -> int:
    root, nth, after = argv[1], int(argv[2]), len(argv) > 3 and argv[3] == "after"
    seen = 0

    def cut(original: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            nonlocal seen
            seen += 1
            if seen == nth and not after:
                os.kill(os.getpid(), signal.SIGKILL)
            result = original(*args, **kwargs)
            if seen == nth and after:
                os.kill(os.getpid(), signal.SIGKILL)
            return result
        return wrapper

    nanodream.versioning.gitrunner._spawn = cut(nanodream.versioning.gitrunner._spawn)  # type: ignore[assignment]
    os.replace = cut(os.replace)  # type: ignore[assignment]
    report = api.sync(Workspace.at(root))
    print(report.outcome, report.reason, f"moments={seen}")
    return int(report.exit_code)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
