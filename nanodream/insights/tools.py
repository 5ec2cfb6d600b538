"""connect's two tools, declared once like the dream's (toolbox/registry.py): the schemas the model is sent,
their handlers and docs/insight-tools.md all come from the declarations below.

The conversation is offered these two and nothing else; a consolidation session never sees them. Searching
reads; proposing goes through the rules of proposals.py, whose refusals reach the model as tool errors it can
act on. Searches are budgeted per run (`SEARCHES`), on top of the session's tool-call cap.
"""

from __future__ import annotations

from typing import TypedDict, Unpack

from nanodream.controls import visible
from nanodream.insights.knowledge import WHERE, Item, Knowledge, Where
from nanodream.insights.proposals import Proposals
from nanodream.insights.records import Relation
from nanodream.memory.staging import Staging
from nanodream.toolbox.limits import ToolLimits
from nanodream.toolbox.registry import Registry, ToolError, ToolResult
from nanodream.toolbox.tools import ToolBox

CONNECT_TOOLS = Registry(effects=("no — it only searches", "proposes one insight, kept only if the run's insights are "
                                  "committed; a refusal comes back as an error saying what to change"))
SEARCHES = 12  # search_knowledge calls per run
RESULTS = 8  # items per search


class ConnectBox(ToolBox):
    """The toolbox of a connect conversation: the knowledge it searches and the proposals it makes."""

    def __init__(self, staging: Staging, limits: ToolLimits, knowledge: Knowledge, proposals: Proposals) -> None:
        super().__init__(staging, limits, registry=CONNECT_TOOLS)
        self.knowledge = knowledge
        self.proposals = proposals
        self.searches = 0


class SourceArgument(TypedDict):
    ref: str
    reason: str
    weight: float
    relation: Relation


@CONNECT_TOOLS.tool()
def search_knowledge(box: ConnectBox, query: str, where: Where) -> ToolResult:
    """Search one part of the knowledge base by words; each result starts with the ref to cite it by.

    query: the words to look for (names, subjects)
    where: memory (active lines), archive (older lines), skills, history (past sessions)
    """
    if where not in WHERE:
        raise ToolError(f"where must be one of {', '.join(WHERE)}, got {where!r}", "search one part at a time")
    if box.searches >= SEARCHES:
        raise ToolError(f"the search budget of this run ({SEARCHES} searches) is spent",
                        "propose from what you found, or answer without proposing")
    box.searches += 1
    found = box.knowledge.search(query, where, RESULTS)
    if not found:
        return ToolResult(f"nothing in {where} shares a word with {query!r}", [])
    lines = [_shown(box.knowledge, item, query) for item, _ in found]
    return ToolResult("\n".join(lines), [item.ref for item, _ in found])


def _shown(knowledge: Knowledge, item: Item, query: str) -> str:
    new = " (this run)" if knowledge.is_fresh(item.ref) else ""
    day = f" [{item.day.isoformat()}]" if item.day else ""
    if item.where == "history":
        return visible(f"- {item.ref}{day}{new}: {knowledge.said(item, query)}")
    return visible(f"- {item.ref}{day}{new}")


class ProposedInsight(TypedDict):
    """propose_insight's arguments: the record's fields (records.PROPOSED), in their order."""

    name: str
    summary: str
    what_if: str
    possible_outcome: str
    rationale: str
    likelihood: float
    confidence: float
    topics: list[str]
    themes: list[str]
    sources: list[SourceArgument]


@CONNECT_TOOLS.tool(writes=True)
def propose_insight(box: ConnectBox, **fields: Unpack[ProposedInsight]) -> ToolResult:
    """Propose one insight: a connection between what this run brought and older knowledge.

    name: kebab-case, unique
    summary: 2-4 sentences
    what_if: the hypothesis, one paragraph
    possible_outcome: what would follow if it holds
    rationale: why the sources support it
    likelihood: 0 to 1
    confidence: 0 to 1
    topics: 3-5 short topics
    themes: cross-session themes, short phrases (0-5)
    sources: 2-8 objects, each ref exactly as a search showed it, with why it bears, a weight 0-1 and a relation
    """
    insight = box.proposals.propose(dict(fields))
    left = box.proposals.limit - len(box.proposals.accepted)
    more = f"you may propose {left} more" if left else "that was the last one: answer now"
    return ToolResult(f"proposed {insight.name}; {more}", insight)


if __name__ == "__main__":  # regenerate docs/insight-tools.md
    print(CONNECT_TOOLS.markdown("connect's tools", "nanodream.insights.tools", "docs/insight-tools.md"))
