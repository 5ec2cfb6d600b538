"""Re-evaluate: earlier insights against the knowledge base as it is now, without a model.

An insight still waiting (proposed or reinforced) whose every source resolves, and that history this run
consumed mentions again, becomes `reinforced`. One with a source that no longer resolves (forgotten, restored
away, rejected) or that a correction superseded becomes `stale`, with the day and why under its Decisions.
A line source that pressure moved to the archive is followed there: its ref is rewritten, nothing else.
Decided insights (stale, rejected, promoted) are a person's to change, and are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from nanodream.insights.knowledge import Item, Knowledge, Resolution
from nanodream.insights.records import Insight, Source
from nanodream.insights.shelf import Shelf
from nanodream.insights.terms import terms

WAITING = ("proposed", "reinforced")
BY = "re-evaluate"


@dataclass(frozen=True)
class Reevaluated:
    insight: Insight  # as it is now
    change: str  # reinforced | stale | followed
    note: str


def reevaluate(shelf: Shelf, knowledge: Knowledge, today: date) -> list[Reevaluated]:
    """What changed for each waiting insight (see the module docstring), in name order."""
    mentions = [item for item in knowledge.items["history"] if knowledge.is_fresh(item.ref)]
    found = []
    for insight in shelf.insights:
        if insight.status in WAITING:
            changed = _one(insight, knowledge, mentions, today)
            if changed is not None:
                found.append(changed)
    return found


def _one(insight: Insight, knowledge: Knowledge, mentions: list[Item], today: date) -> Reevaluated | None:
    resolved = [(source, knowledge.resolve(source.ref)) for source in insight.sources]
    gone = next(((source, found) for source, found in resolved if not found.ok or found.superseded), None)
    if gone is not None:
        note = _why_stale(*gone)
        return Reevaluated(insight.decided("stale", today, f"{BY}: {note}"), "stale", note)
    followed = tuple(replace(source, ref=found.ref) for source, found in resolved)
    current = replace(insight, sources=followed, updated=today) if followed != insight.sources else insight
    session = _mentioned_again(insight, mentions) if insight.status == "proposed" else None
    if session is not None:
        note = f"history mentions it again in {session.ref}"
        return Reevaluated(current.decided("reinforced", today, f"{BY}: {note}"), "reinforced", note)
    if current is not insight:
        moved = [f"{old.ref} → {new.ref}" for old, new in zip(insight.sources, followed, strict=True) if old != new]
        return Reevaluated(current, "followed", "; ".join(moved))
    return None


def _why_stale(source: Source, found: Resolution) -> str:
    if found.superseded:
        replaced = f" (replaced by: {found.replaced_by})" if found.replaced_by else ""
        return f"source superseded by a correction: {found.ref}{replaced}"
    return f"source no longer resolves: {source.ref} ({found.problem})"


def _mentioned_again(insight: Insight, mentions: list[Item]) -> Item | None:
    """A session this run consumed, not cited already, that holds at least two of the insight's topic terms
    (all of them when it has fewer)."""
    wanted = terms(" ".join(insight.topics))
    needed = min(2, len(wanted))
    for item in mentions:
        if needed and item.ref not in insight.refs and len(wanted & item.terms) >= needed:
            return item
    return None
