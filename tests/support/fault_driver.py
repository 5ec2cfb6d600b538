"""Run one dream that SIGKILLs itself at a named point: `python -m tests.support.fault_driver WORKSPACE POINT N`.

Test-only: production code has no fault hooks. The driver patches one function so that its Nth call
(optionally only for one target file) kills the process on the spot, exactly like `kill -9` or a power
cut would, and then runs an ordinary dream with the in-process fault engine.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import Any

import nanodream.memory.journal
import nanodream.run.batch
import nanodream.run.dream
import nanodream.versioning.gitstore
from nanodream.memory.journal import Journal
from nanodream.toolbox.tools import ToolBox
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace
from tests.support.fault_engine import SETTINGS, AppendEngine

MEMORY_FILES = ("SOUL.md", "USER.md", "MEMORY.md", "SKILL.md")


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def kill_on_call(owner: Any, attribute: str, nth: int, *, after: bool = False,
                 only: Callable[..., bool] = lambda *args, **kwargs: True) -> None:
    """Replace owner.attribute so that its nth matching call dies (before it runs, or right after)."""
    original = getattr(owner, attribute)
    seen = 0

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal seen
        if only(*args, **kwargs):
            seen += 1
            if seen == nth and not after:
                die()
        result = original(*args, **kwargs)
        if only(*args, **kwargs) and seen == nth and after:
            die()
        return result

    setattr(owner, attribute, wrapper)


def _target_is(*names: str) -> Callable[..., bool]:
    return lambda source, destination, *rest, **kwargs: str(destination).endswith(names)


def _memory_file(path: Any, *rest: Any, **kwargs: Any) -> bool:
    return str(path).endswith(MEMORY_FILES)


POINTS: dict[str, Callable[[int], None]] = {
    # before the staged copy is even made
    "before-staging": lambda n: kill_on_call(nanodream.run.batch, "Staging", n),
    # mid-session, right after the engine staged an edit through the tools
    "in-session": lambda n: kill_on_call(ToolBox, "call", n, after=True,
                                         only=lambda box, name, *rest, **kwargs: name == "write_file"),
    # validated, but the journal is not written yet
    "before-journal": lambda n: kill_on_call(Journal, "save", n),
    # the journal's temp file is written but not renamed into place
    "journal-torn": lambda n: kill_on_call(os, "replace", n, only=_target_is("journal.json")),
    # after the nth memory file was written: the apply is half done
    "between-files": lambda n: kill_on_call(nanodream.memory.journal, "atomic_write", n, after=True, only=_memory_file),
    # a memory file's temp copy exists next to it, not yet renamed
    "mid-file-write": lambda n: kill_on_call(os, "replace", n, only=_target_is(*MEMORY_FILES)),
    # every file applied, no commit yet
    "before-commit": lambda n: kill_on_call(GitStore, "commit", n),
    # the commit object exists (index built, tree and commit written), the branch was not moved to it
    "before-ref-update": lambda n: kill_on_call(nanodream.versioning.gitstore, "run_git", n,
                                                only=lambda root, *args, **kwargs: args[:1] == ("update-ref",)),
    # the commit landed, the cursor was not written
    "after-commit": lambda n: kill_on_call(GitStore, "commit", n, after=True),
    # the cursor's temp file is written but not renamed
    "cursor-torn": lambda n: kill_on_call(os, "replace", n, only=_target_is(".dream_cursor")),
    # cursor written, journal not yet cleared
    "before-journal-clear": lambda n: kill_on_call(Journal, "clear", n),
    # everything done except the run record
    "before-record": lambda n: kill_on_call(nanodream.run.dream, "append_record", n),
}


def main(argv: list[str]) -> int:
    root, point, nth = argv[1], argv[2], int(argv[3])
    POINTS[point](nth)
    report = nanodream.run.dream.run_dream(Workspace.at(root), SETTINGS, engine_factory=AppendEngine)
    print(report.outcome, report.reason)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
