"""Whether nanodream is this process's program (its CLI) or a library inside a host's process.

Some choices belong to a process's program, not to a library it imports: freezing the garbage collector's view
of the heap after litellm's import (engines/llm.py) would freeze a host's objects too, and keep its cycles for
good. The console entry point claims the process; `import nanodream` never does.
"""

from __future__ import annotations

_program = False


def become_program() -> None:
    """Called once by the console entry point (`nanodream …`, `python -m nanodream`)."""
    global _program
    _program = True


def is_program() -> bool:
    return _program
