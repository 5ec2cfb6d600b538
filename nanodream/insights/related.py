"""The insights a question touches, for recall to return beside its hits — never among them.

An insight is matched by its name, topics, themes and summary, with the same rarity-weighted terms connect
searches by (terms.py); rejected ones left view and are never returned. No index is kept: a workspace holds a
few insights, not thousands of lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from nanodream.insights.shelf import read_shelf
from nanodream.insights.terms import Rarity, terms
from nanodream.workspace import Workspace


@dataclass(frozen=True)
class RelatedInsight:
    """An insight that matches a question: a connection to look at, not something memory holds as true."""

    name: str
    status: str
    summary: str
    topics: tuple[str, ...]
    score: float


def related(workspace: Workspace, query: str, k: int = 5) -> list[RelatedInsight]:
    """The `k` insights in view that best share the query's terms, best first; [] when none does."""
    shown = read_shelf(workspace).shown()
    said = {insight.name: terms(" ".join((insight.name.replace("-", " "), *insight.topics, *insight.themes,
                                          insight.summary))) for insight in shown}
    rarity = Rarity(said.values())
    wanted = terms(query)
    scored = [(rarity.score(wanted, said[insight.name]), insight) for insight in shown]
    ranked = sorted((pair for pair in scored if pair[0] > 0), key=lambda pair: (-pair[0], pair[1].name))
    return [RelatedInsight(insight.name, insight.status, insight.summary, insight.topics, round(score, 4))
            for score, insight in ranked[:k]]
