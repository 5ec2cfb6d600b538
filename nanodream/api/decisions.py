"""A person's changes through the door: restore, review decisions, forget, pin, hypotheses, dead letters
acknowledged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nanodream.api.acting import WorkspaceLike, action, workspace_at
from nanodream.api.reports import (
    AckReport,
    HypothesesReport,
    ProposalsReport,
    Reviewable,
    ReviewQueue,
)
from nanodream.vocab import ExitCode

if TYPE_CHECKING:
    from nanodream.edits.forget import ForgetReport, Target
    from nanodream.edits.hypotheses import DecisionReport
    from nanodream.edits.pin import PinReport
    from nanodream.edits.restore import RestoreReport
    from nanodream.edits.review import ReviewReport, Selection


@action()
def restore(where: WorkspaceLike, ref: str, *, before: bool = False, replay: bool = False) -> RestoreReport:
    """Undo the commit `ref` as a new commit (`before`: set memory back to just before it; `replay`: let the
    next dream read its history again)."""
    from nanodream.edits.restore import restore_commit

    return restore_commit(workspace_at(where), ref, before=before, replay=replay)


@action()
def proposals(where: WorkspaceLike) -> ProposalsReport:
    """The review lane's pending proposals, oldest first."""
    from nanodream.versioning.gitstore import GitStore
    from nanodream.versioning.pending import proposals as pending

    store = GitStore(workspace_at(where))
    return ProposalsReport(proposals=pending(store) if store.exists else [])


@action()
def review_queue(where: WorkspaceLike) -> ReviewQueue:
    """The pending proposals with their diffs (one `git show` each): for a front end that shows them."""
    from nanodream.versioning.gitstore import GitStore
    from nanodream.versioning.pending import proposals as pending

    store = GitStore(workspace_at(where))
    chain = pending(store) if store.exists else []
    return ReviewQueue(proposals=[Reviewable(p, store.commit_diff(p.source)) for p in chain])


@action({"action": "accept"})
def accept(where: WorkspaceLike, selection: Selection) -> ReviewReport:
    """Apply the selected proposals to the branch as commits, oldest first; a real conflict is refused."""
    from nanodream.edits.review import accept as accept_proposals

    return accept_proposals(workspace_at(where), selection)


@action({"action": "reject"})
def reject(where: WorkspaceLike, selection: Selection, reason: str = "") -> ReviewReport:
    """Drop the selected proposals and record their facts as rejected, so no later run proposes them again."""
    from nanodream.edits.review import reject as reject_proposals

    return reject_proposals(workspace_at(where), selection, reason)


@action()
def forget(where: WorkspaceLike, target: Target, *, dry_run: bool = False,
           purge_transcripts: bool = False) -> ForgetReport:
    """Take out of memory what the target's history entries alone taught, and never read those entries again."""
    from nanodream.edits.forget import forget as forget_entries

    return forget_entries(workspace_at(where), target, dry_run=dry_run, purge_transcripts=purge_transcripts)


@action()
def pin(where: WorkspaceLike, text: str, *, path: str | None = None, remove: bool = False) -> PinReport:
    """Pin (or unpin) the one memory line holding `text`, as one commit."""
    from nanodream.edits.pin import pin as pin_line

    return pin_line(workspace_at(where), text, path=path, remove=remove)


@action()
def hypotheses(where: WorkspaceLike) -> HypothesesReport:
    """Every hypothesis line of SOUL.md, USER.md and memory/MEMORY.md, in file order; changes nothing."""
    from nanodream.edits.hypotheses import hypothesis_lines

    return HypothesesReport(hypotheses=hypothesis_lines(workspace_at(where)))


@action(lambda decision, **_: {"decision": decision})
def resolve_hypothesis(where: WorkspaceLike, line: str | int, decision: str) -> DecisionReport:
    """A person's decision on one hypothesis — reinforce, stale, reject or promote — as one commit.

    `line` is `PATH:LINE` as `hypotheses` lists it (`ref`), or a bare line number when one core file alone has a
    hypothesis there; anything else is refused with exit 2 and nothing written.
    """
    from nanodream.edits.hypotheses import resolve

    return resolve(workspace_at(where), line, decision)


@action()
def acknowledge(where: WorkspaceLike, lines: list[int] | None) -> AckReport:
    """Acknowledge dead letters (None: all of them) so `status` stops listing them; exit 2 when none matched."""
    from nanodream.backlog.deadletters import acknowledge as ack
    from nanodream.memory.door import writing

    report = AckReport()
    with writing(workspace_at(where)) as door:
        report.acknowledged, report.not_found = ack(door.workspace, lines)
    if report.not_found and not report.acknowledged:  # every number was wrong: a usage error, lists kept
        report.code = ExitCode.USAGE
    return report
