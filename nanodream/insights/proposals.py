"""The rules every new insight meets, whoever proposes it (a model's propose_insight, the built-in generator).

In order: the run's `max_insights`; a well-formed record (records.check); sources that resolve now and that no
correction superseded; a name no insight has (rejected ones included: a rejected insight is never proposed
again); a set of sources no insight cites already; and at least one source older than this run. Each refusal
is a ToolError whose message says what is wrong and whose hint says what to do instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from nanodream.insights.knowledge import Knowledge
from nanodream.insights.records import Insight, InsightInvalid, check
from nanodream.insights.shelf import Shelf
from nanodream.toolbox.registry import ToolError


class LimitReached(ToolError):
    """This run proposed as many insights as it may."""

    kind = "refused"


@dataclass
class Proposals:
    knowledge: Knowledge
    shelf: Shelf
    limit: int
    today: date
    accepted: list[Insight] = field(default_factory=list)

    @property
    def full(self) -> bool:
        return len(self.accepted) >= self.limit

    def propose(self, fields: dict[str, Any]) -> Insight:
        """Accept the insight `fields` describe as this run's, or raise ToolError saying why not."""
        if self.full:
            raise LimitReached(f"this run already proposed {len(self.accepted)} insights, its limit (max_insights)",
                               "stop proposing and answer with a one-line summary")
        try:
            insight = check(fields, created=self.today)
        except InsightInvalid as exc:
            raise ToolError("; ".join(exc.problems), "fix every problem listed and call propose_insight again") \
                from None
        insight = replace(insight, sources=tuple(self._resolved(insight)))
        self._new(insight)
        self.accepted.append(insight)
        return insight

    def _resolved(self, insight: Insight):
        """Each source with its ref as it resolves now (a line that moved is cited where it is)."""
        for number, source in enumerate(insight.sources, 1):
            found = self.knowledge.resolve(source.ref)
            if not found.ok:
                raise ToolError(f"source {number} does not resolve: {found.problem}",
                                "cite only what search_knowledge returned, with its ref exactly as shown")
            if found.superseded:
                raise ToolError(f"source {number} was superseded by a correction"
                                + (f" (replaced by: {found.replaced_by})" if found.replaced_by else ""),
                                "cite the line that replaced it, or leave the source out")
            yield replace(source, ref=found.ref)

    def _new(self, insight: Insight) -> None:
        """Refuse a name or a set of sources taken already, and a connection with nothing older than this run."""
        taken = [*self.shelf.insights, *self.accepted]
        named = next((other for other in taken if other.name == insight.name), None)
        if named is not None or insight.name in self.shelf.names():
            status = f" (status {named.status})" if named is not None else ""
            raise ToolError(f"an insight named {insight.name!r} exists already{status}",
                            "propose a different connection under a new name" if named is None or
                            named.status != "rejected" else "a person rejected it: never propose it again")
        same = next((other for other in taken if other.refs == insight.refs), None)
        if same is not None:
            raise ToolError(f"insight {same.name!r} ({same.status}) cites exactly these sources already",
                            "a person rejected that connection: do not propose it again" if same.status == "rejected"
                            else "connect other sources, or none")
        if all(self.knowledge.is_fresh(ref) for ref in insight.refs):
            raise ToolError("every source is material this run brought; an insight connects it to older knowledge",
                            "search memory, archive, skills or history for something older and cite it too")
