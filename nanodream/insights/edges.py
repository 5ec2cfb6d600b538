"""Back-edges without touching the person's lines: which insights cite a line, a skill, a commit or a session.

Nothing is written next to what an insight cites; the edges are read off the records, so `why FILE:LINE`,
`run -o` and recall can say "cited by" while the memory files stay exactly as the person and the dream left
them. Rejected insights left view and cite nothing any more.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from nanodream.insights.knowledge import canonical
from nanodream.insights.records import Insight
from nanodream.insights.refs import line_ref


def edge(insight: Insight, ref: str) -> dict[str, Any] | None:
    """How `insight` cites `ref` ({insight, status, relation, weight, reason}), or None when it does not."""
    for source in insight.sources:
        if source.ref == ref:
            return {"insight": insight.name, "status": insight.status, "relation": source.relation,
                    "weight": source.weight, "reason": source.reason}
    return None


def citing(insights: Iterable[Insight], ref: str) -> list[dict[str, Any]]:
    """Every insight in view that cites `ref`, by name."""
    return [found for insight in insights if insight.status != "rejected" and (found := edge(insight, ref))]


def citing_line(insights: Iterable[Insight], file: str, text: str) -> list[dict[str, Any]]:
    """The insights citing the line of `file` that reads `text` (its bullet and markers aside)."""
    shown = text.strip()
    for marker in ("- ", "* ", "+ "):
        if shown.startswith(marker):
            shown = shown[len(marker):]
    return citing(insights, line_ref(file, canonical(shown)))


def back_edges(cited: Iterable[str], insights: Iterable[Insight]) -> dict[str, list[dict[str, Any]]]:
    """Per ref of `cited`, every insight in view citing it (refs nobody cites are left out)."""
    held = list(insights)
    found = {ref: citing(held, ref) for ref in dict.fromkeys(cited)}
    return {ref: edges for ref, edges in found.items() if edges}
