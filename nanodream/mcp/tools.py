"""The MCP tools: few, named for an agent, each one call of the host API (`nanodream.api`) and its report.

Read-only tools are always listed; write tools only when a person allowed them. Every write enters the same
door as the CLI (lock, recovery, the person's hand edits first), so a busy workspace or one that needs a
person is refused here exactly as there. Heavy modules (the run machinery, the review lane) are imported
inside the tool that needs them, so the server answers `tools/list` without loading them.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

import anyio.to_thread
from mcp.server.mcpserver import Context
from pydantic import Field

from nanodream import api
from nanodream.api import Workspace
from nanodream.mcp.catalogue import Catalogue
from nanodream.mcp.host_tools import SESSION_TOOLS
from nanodream.mcp.progress import BatchProgress
from nanodream.mcp.results import ToolResult, failed, reported

TOOLS = Catalogue()

# A commit as a host names it: the hex of a sha, long enough to be one (what memory_log's `short` gives).
SHA = re.compile(r"[0-9a-fA-F]{4,40}")

Sha = Annotated[str, Field(min_length=1, max_length=64,
                           description="A commit's sha or its first 8+ hex digits, as memory_log lists them.")]
ProposalId = Annotated[str, Field(min_length=1, max_length=64,
                                  description="A proposal's id (short sha) or run id, as dream_proposals lists it.")]


def _not_a_sha(sha: str) -> ToolResult | None:
    """What cannot be a commit (an option, a path, `HEAD~1`) is refused before git sees it; None for a sha."""
    return None if SHA.fullmatch(sha) else failed(f"unknown sha: {sha[:80]!r} is not a commit sha (4 to 40 hex digits)")


# reading ---------------------------------------------------------------------------------------------------


@TOOLS.reads("RecallReport")
def memory_recall(
    workspace: Workspace,
    query: Annotated[str, Field(min_length=1, max_length=2000, description="The question, in your own words.")],
    k: Annotated[int, Field(ge=1, le=50, description="How many facts (and hypotheses) at most.")] = 5,
    as_of: Annotated[str | None, Field(max_length=10, description=(
        "A day, YYYY-MM-DD: answer from memory as it stood then (its last commit by that day, the facts "
        "true then that were replaced since, and the turns said by then). Omit for memory as it is now."))] = None,
) -> ToolResult:
    """The memory lines, skills, archived lines and turns said that best match a question, best first, by one score.

    `hits` are what the memory holds as facts, each with `file` and `line`; a hit with `until` is a fact that
    stopped being true that day (its text says what replaced it): never present it as current. A hit whose
    `source` is `turn` is something said in a transcript ingest read (`heading`: "said on DAY in SESSION",
    `speaker`: who said it): what was said then, not a fact memory kept.
    `related_hypotheses` are lines a dream inferred but the user never stated (`evidence`: how often history
    pointed that way): never present them as facts or as something the user said. `related_insights` are
    connections a dream proposed between things memory holds (insights_list, insight_get): never facts either.
    """
    return reported(api.recall(workspace, query, k, as_of=as_of))


@TOOLS.reads("StatusReport")
def memory_status(workspace: Workspace) -> ToolResult:
    """The history backlog waiting, how far it was consumed, the last dream and runs, each memory file's fill
    against its cap, and the proposals waiting for review."""
    return reported(api.status(workspace))


@TOOLS.reads("LogReport")
def memory_log(
    workspace: Workspace,
    n: Annotated[int, Field(ge=1, le=500, description="How many commits, newest first.")] = 20,
    kind: Annotated[Literal["dream", "manual", "restore", "insights"] | None, Field(
        description="Only dreams, the person's own edits, restores, or insights commits.")] = None,
) -> ToolResult:
    """What changed in memory: its commits newest first, each with the files it changed (+/- lines), the
    history it consumed, tokens and cost. `memory_show` gives one in full."""
    return reported(api.log(workspace, n, kind))


@TOOLS.reads("ShowReport")
def memory_show(workspace: Workspace, sha: Sha) -> ToolResult:
    """One memory commit in full: the dream's summary, the history entries it consumed, and its diff."""
    return _not_a_sha(sha) or reported(api.show(workspace, sha), reference="sha")


@TOOLS.reads("WhyAnswer")
def memory_why(
    workspace: Workspace,
    text: Annotated[str, Field(min_length=1, max_length=2000,
                               description="Some words of the memory line, or FILE:LINE such as USER.md:7.")],
) -> ToolResult:
    """Why a line is in memory: the commit that wrote it, its kind, and for a dream the history entries that
    taught it."""
    return reported(api.why(workspace, text))


@TOOLS.reads("ReviewQueue")
def dream_proposals(workspace: Workspace) -> ToolResult:
    """The changes review dreams left waiting, oldest first, each with its diff: accept them with
    `dream_accept`, drop them with `dream_reject`."""
    return reported(api.review_queue(workspace))


# writing -----------------------------------------------------------------------------------------------------


@TOOLS.reads("InsightsReport")
def insights_list(
    workspace: Workspace,
    status: Annotated[Literal["proposed", "reinforced", "stale", "rejected", "promoted"] | None, Field(
        description="Only this status (default: every insight but the rejected ones).")] = None,
    limit: Annotated[int, Field(ge=1, le=500, description="How many at most, by name.")] = 50,
) -> ToolResult:
    """The insights dreams proposed: connections between what they learned and what memory held, each with its
    sources, likelihood and confidence. Never facts: insight_resolve decides one."""
    return reported(api.insights(workspace, status, limit))


@TOOLS.reads("InsightReport")
def insight_get(
    workspace: Workspace,
    name: Annotated[str, Field(min_length=1, max_length=100, description="The insight's name, as insights_list "
                                                                          "gives it.")],
) -> ToolResult:
    """One insight in full: summary, what if, possible outcome, rationale, its sources and the decisions taken."""
    return reported(api.insight(workspace, name), reference="name")


@TOOLS.writes("RunReport", open_world=True)
async def dream_run(
    workspace: Workspace,
    context: Context,
    max_batches: Annotated[int | None, Field(ge=1, le=1000, description=(
        "Stop after this many batches (default: the max_batches setting)."))] = None,
    dry_run: Annotated[bool, Field(description="Show the diff the next batch would make; change nothing.")] = False,
    review: Annotated[bool, Field(description=(
        "Propose the changes for review (dream_proposals) instead of committing them."))] = False,
) -> ToolResult:
    """Dream now: fold the agent's history backlog into its memory files, one git commit per batch, exactly as
    `nanodream run` does. Sends a progress notification per batch when asked for progress."""
    options = api.RunOptions(dry_run=dry_run, max_batches=max_batches, review=review, trigger="mcp",
                         observer=BatchProgress(context))
    report = await anyio.to_thread.run_sync(lambda: api.run(workspace, options=options))
    return reported(report)


@TOOLS.writes("ReviewReport")
def dream_accept(workspace: Workspace, id: ProposalId) -> ToolResult:
    """Apply one waiting proposal to memory as a commit (the person's hand edits made meanwhile are kept)."""
    return reported(api.accept(workspace, api.Selection(ref=id)), reference="id")


@TOOLS.writes("ReviewReport")
def dream_reject(
    workspace: Workspace,
    id: ProposalId,
    reason: Annotated[str, Field(max_length=500, description="Why, for the record.")] = "",
) -> ToolResult:
    """Drop one waiting proposal and record its facts in memory/rejected.md, so no later dream proposes them
    again."""
    return reported(api.reject(workspace, api.Selection(ref=id), reason), reference="id")


@TOOLS.writes("RestoreReport", destructive=True)
def dream_restore(workspace: Workspace, sha: Sha) -> ToolResult:
    """Undo one commit (a dream, usually) as a new commit; later changes stay, and what a dream added is
    recorded as rejected so the next dream does not add it again."""
    if refused := _not_a_sha(sha):
        return refused
    report = api.restore(workspace, sha)
    return reported(report, reference="" if report.target else "sha")


@TOOLS.writes("PinReport")
def memory_pin(
    workspace: Workspace,
    text: Annotated[str, Field(min_length=1, max_length=2000,
                               description="Some words of the one memory line to pin.")],
    path: Annotated[str | None, Field(max_length=200, description=(
        "The memory file holding it (USER.md, memory/MEMORY.md, …) when the words are in several."))] = None,
) -> ToolResult:
    """Pin a memory line (`<!-- keep -->`) so no dream changes, moves or removes it; one commit of the
    person's own."""
    return reported(api.pin(workspace, text, path=path))


@TOOLS.writes("ForgetReport", destructive=True)
def memory_forget(
    workspace: Workspace,
    session: Annotated[str, Field(min_length=1, max_length=500,
                                  description="The session_key of the history entries to forget.")],
) -> ToolResult:
    """Take out of memory what one session's history entries taught (lines only they support), and mark those
    entries never to be consumed again. Not erasure: git history keeps older versions."""
    return reported(api.forget(workspace, api.Target(session=session)))


@TOOLS.writes("DecisionReport")
def hypothesis_resolve(
    workspace: Workspace,
    line: Annotated[str, Field(min_length=1, max_length=300, description=(
        "The hypothesis as memory_recall's related_hypotheses or `nanodream hypotheses` names it: PATH:LINE "
        "(e.g. USER.md:7), or a bare line number when only one file has a hypothesis there."))],
    decision: Annotated[Literal["reinforce", "stale", "reject", "promote"], Field(description=(
        "reinforce: one more sighting; stale: no longer holds; reject: drop it and never infer it again; "
        "promote: it is a plain preference now."))],
) -> ToolResult:
    """A person's decision on one inferred preference (a hypothesis line), as one commit of their own."""
    return reported(api.resolve_hypothesis(workspace, line, decision), reference="line")


@TOOLS.writes("InsightDecisionReport")
def insight_resolve(
    workspace: Workspace,
    name: Annotated[str, Field(min_length=1, max_length=100, description="The insight's name.")],
    decision: Annotated[Literal["reinforce", "stale", "reject", "promote"], Field(description=(
        "reinforce: it holds; stale: it no longer does; reject: out of view, never proposed again; promote: its "
        "statement goes to history, and the next dream decides whether it becomes memory."))],
    note: Annotated[str, Field(max_length=500, description="Why, kept under the insight's Decisions.")] = "",
) -> ToolResult:
    """A decision on one insight, as one commit. Promoting writes no fact: it appends one history entry
    (session `insight:<name>`) for the next dream to judge."""
    return reported(api.decide_insight(workspace, name, decision, note), reference="name")


@TOOLS.writes("RunReport", open_world=True)
async def insights_run(
    workspace: Workspace,
    context: Context,
    phases: Annotated[list[Literal["reflect", "re-evaluate", "connect"]] | None, Field(
        description="The insight phases to run (default: the phases setting, all three).")] = None,
    max_insights: Annotated[int | None, Field(ge=1, le=50, description=(
        "New insights connect may propose in this run (default: the max_insights setting)."))] = None,
) -> ToolResult:
    """Run now with these insight phases: the backlog is consolidated first, as by dream_run, then reflect,
    re-evaluate and connect; with nothing new, connect explores old material. `insights` and `back_edges` say
    what it proposed or changed."""
    options = api.RunOptions(trigger="mcp", allow_empty=True, observer=BatchProgress(context))
    report = await anyio.to_thread.run_sync(lambda: api.insights_run(workspace, phases, max_insights,
                                                                     options=options))
    return reported(report)


TOOLS.include(SESSION_TOOLS)  # the host's dream session (mcp/host_tools.py), listed after the tools above
