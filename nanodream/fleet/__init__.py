"""Dreams for many workspaces on a real queue: RQ workers on Redis, one job per due workspace (docs/fleet.md).

Only `nanodream fleet` commands import this package's Redis-facing modules: rq and redis are an optional
extra (`nanodream[fleet]`), and the rest of the CLI keeps its start-up time without them.
"""
