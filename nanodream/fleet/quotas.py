"""Per-workspace daily quotas: dreams that reached the model, and dollars, per UTC day.

The counts come from the workspace's own run records (`.nanodream/runs.jsonl`), not from counters in Redis:
the dream appends its record under the workspace lock, so there is no second copy to drift, no window in
which a run happened but its counter was not yet raised (a worker killed in between), nothing lost when a
managed Redis evicts keys or fails over, and a manual `nanodream run` counts against the same quota.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime

from nanodream.config import Settings
from nanodream.fleet.config import FleetConfig
from nanodream.run.records import records_since
from nanodream.vocab import Outcome
from nanodream.workspace import Workspace


@dataclass(frozen=True)
class Usage:
    """What a workspace used today (UTC): runs that reached the model, and their known cost."""

    runs: int = 0
    cost: float = 0.0


def usage_today(workspace: Workspace, now: datetime) -> Usage:
    """Today's usage; a run reached the model when it dreamed at least one batch (busy runs never do)."""
    midnight = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    reached = [r for r in records_since(workspace, midnight) if r.batches > 0 and r.outcome != Outcome.BUSY]
    return Usage(len(reached), sum(r.cost or 0.0 for r in reached))


def over_quota(usage: Usage, config: FleetConfig) -> str:
    """Why the workspace may not dream again today, or '' when it may."""
    if config.max_runs_per_day is not None and usage.runs >= config.max_runs_per_day:
        return f"quota: {usage.runs} of {config.max_runs_per_day} dreams today (UTC) used"
    if config.max_cost_per_day is not None and usage.cost >= config.max_cost_per_day:
        return f"quota: ${usage.cost:.4f} of ${config.max_cost_per_day:.4f} spent today (UTC)"
    return ""


def within_budget(settings: Settings, usage: Usage, config: FleetConfig) -> Settings:
    """The settings with `max_cost` lowered to what is left of today's budget, so the run stops there."""
    if config.max_cost_per_day is None:
        return settings
    left = max(config.max_cost_per_day - usage.cost, 0.0)
    return replace(settings, max_cost=left if settings.max_cost is None else min(settings.max_cost, left))


def quotas_apply(config: FleetConfig) -> bool:
    return config.max_runs_per_day is not None or config.max_cost_per_day is not None
