"""The host API: the one door every front end — the command line, the slash commands, the page, the MCP server —
and any host embedding nanodream goes through.

    from nanodream import api
    report = api.status("~/agent")          # a typed report: outcome, reason, hint, exit_code, to_json()
    report = api.run("~/agent", options=api.RunOptions(max_batches=1))

`actions` holds one function per action; `reports` the request and report types they take and return. Both are
re-exported here by name. Importing this package loads neither the run machinery nor litellm: the actions import
what they need when called, and the types whose home is a domain module are imported on first use.
"""

from __future__ import annotations

from typing import Any

from nanodream.api import actions, reports

__all__ = sorted({*actions.__all__, *reports.__all__, *reports.ELSEWHERE})


def __getattr__(name: str) -> Any:
    if name in actions.__all__:
        value = getattr(actions, name)
    elif name in reports.__all__ or name in reports.ELSEWHERE:
        value = getattr(reports, name)
    else:
        raise AttributeError(f"module 'nanodream.api' has no attribute {name!r}")
    globals()[name] = value  # resolved once
    return value


def __dir__() -> list[str]:
    return __all__
