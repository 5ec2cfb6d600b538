"""Accept or reject pending proposals (see pending.py): the branch gets commits, the chain is rebuilt.

Everything is computed before anything is written: accepting merges each proposal's own lines into today's
files (hand edits made meanwhile stay) and refuses, naming the lines, when a later change touched the same
ones; then the person's hand edits are committed first, each accepted proposal lands as its own commit
through the write-ahead journal, and the rest of the chain is laid again on the new HEAD. Rejecting records
the proposal's facts in memory/rejected.md, so no later run proposes them again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nanodream import clock
from nanodream.changes import FileChange
from nanodream.edits.shared import as_text, committed, on_disk, through_door
from nanodream.memory.door import Door
from nanodream.rejected import with_rejected
from nanodream.versioning import pending
from nanodream.versioning.commitmsg import with_change_list
from nanodream.versioning.gitstore import GitStore, UnknownCommit
from nanodream.vocab import ExitCode, Outcome, Refused, Report, new_run_id
from nanodream.workspace import CORE_FILES, REJECTED_FILE, Workspace


@dataclass
class ReviewReport(Report):
    """What `review accept|reject` did (docs/json.md): accepted | rejected | nothing-to-do | refused | busy."""

    action: str  # accept | reject
    ids: list[str] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    manual_commit: str | None = None
    rejected: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)  # the chain afterwards


@dataclass(frozen=True)
class Selection:
    """Which proposals: one id (short sha or run id), or all; optionally only one file of each."""

    ref: str | None = None
    everything: bool = False
    path: str | None = None


def accept(workspace: Workspace, selection: Selection) -> ReviewReport:
    """Apply the selected proposals to the branch as commits, oldest first; refuse on a real conflict."""
    return _decided(workspace, ReviewReport(action="accept", outcome=Outcome.REFUSED),
                    lambda door, report: _accept(door, selection, report))


def reject(workspace: Workspace, selection: Selection, reason: str = "") -> ReviewReport:
    """Drop the selected proposals and record their facts as rejected."""
    return _decided(workspace, ReviewReport(action="reject", outcome=Outcome.REFUSED),
                    lambda door, report: _reject(door, selection, reason, report))


def _decided(workspace: Workspace, report: ReviewReport, body: Callable[[Door, ReviewReport], None]) -> ReviewReport:
    through_door(workspace, report, lambda door: body(door, report))
    store = GitStore(workspace)
    report.pending = [p.to_json() for p in pending.proposals(store)] if store.exists else []
    return report


def _chosen(store: GitStore, selection: Selection) -> list[pending.Proposal]:
    chain = pending.proposals(store)
    if selection.everything:
        return [p for p in chain if selection.path is None or any(f["path"] == selection.path for f in p.files)]
    if not selection.ref:
        raise Refused("give a proposal id, or --all", "`nanodream review` lists them", ExitCode.USAGE)
    try:
        chosen = [pending.find(store, selection.ref)]
    except UnknownCommit as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    if selection.path and not any(f["path"] == selection.path for f in chosen[0].files):
        raise Refused(f"proposal {chosen[0].id} does not change {selection.path}",
                      "`nanodream review` shows the files of each proposal", ExitCode.USAGE)
    return chosen


def _accept(door: Door, selection: Selection, report: ReviewReport) -> None:
    store = door.store
    chosen = _chosen(store, selection)
    if not chosen:
        report.outcome, report.reason = Outcome.NOTHING_TO_DO, "no proposals are pending"
        return
    current: dict[str, bytes | None] = {}
    planned = []
    for proposal in chosen:  # all computed before anything is written
        change = pending.change_of(store, proposal, selection.path)
        for path in change:
            current.setdefault(path, on_disk(store.workspace, path))
        files, conflicts = pending.merged(current, change)
        report.conflicts += [f"{proposal.id}: {c}" for c in conflicts]
        changes = [FileChange(p, as_text(p, current[p]), as_text(p, files[p])) for p in sorted(files)]
        current.update(files)
        planned.append((proposal, changes))
    if report.conflicts:
        raise Refused("cannot accept: " + "; ".join(report.conflicts),
                      "edit the named lines by hand, or reject the proposal")
    door.settle()
    for proposal, changes in planned:
        report.ids.append(proposal.id)
        if changes:
            message = with_change_list(pending.accepted_message(proposal, store.commit_info(proposal.sha).message),
                                       changes)
            sha = committed(door, f"accept-{new_run_id()}", message, changes)
            report.commits += [sha] if sha else []
    _rebuild(store, chosen, selection.path)
    report.outcome = Outcome.ACCEPTED


def _reject(door: Door, selection: Selection, reason: str, report: ReviewReport) -> None:
    store = door.store
    chosen = _chosen(store, selection)
    if not chosen:
        report.outcome, report.reason = Outcome.NOTHING_TO_DO, "no proposals are pending"
        return
    taken = []
    for proposal in chosen:
        for path, (old, new) in pending.change_of(store, proposal, selection.path).items():
            if path in CORE_FILES:
                taken += [(path, line) for line in _added(old, new)]
    note = f"rejected proposal {', '.join(p.id for p in chosen)}, {clock.today().isoformat()}"
    if reason:
        note += ": " + " ".join(reason.replace("-->", "- ->").split())
    current = as_text(REJECTED_FILE, on_disk(store.workspace, REJECTED_FILE))
    ledger, report.rejected = with_rejected(current, taken, note)
    if ledger is not None:
        message = (f"review: reject {', '.join(p.id for p in chosen)}\n\n{reason or 'Rejected in review.'}\n\n"
                   "Recorded as rejected in memory/rejected.md:\n" + "".join(f"- {f}\n" for f in report.rejected))
        change = FileChange(REJECTED_FILE, current, ledger)
        report.commits = [c for c in [committed(door, f"reject-{new_run_id()}", message, [change])] if c]
    report.ids = [p.id for p in chosen]
    _rebuild(store, chosen, selection.path)
    report.outcome = Outcome.REJECTED


def _rebuild(store: GitStore, done: list[pending.Proposal], path: str | None) -> None:
    """The chain without what was just accepted or rejected (with a path: without that file of them)."""
    finished = {p.sha for p in done}
    keep = []
    for proposal in pending.proposals(store):
        change = pending.change_of(store, proposal)
        if proposal.sha in finished:
            change = {p: c for p, c in change.items() if path is not None and p != path}
        keep.append((proposal, change))
    pending.rebuild(store, keep)


def _added(old: bytes | None, new: bytes | None) -> list[str]:
    """Lines of `new` that `old` does not hold (as many times)."""
    had = Counter((old or b"").splitlines())
    added = []
    for line in (new or b"").splitlines():
        if had[line] > 0:
            had[line] -= 1
        else:
            added.append(line.decode("utf-8", "replace"))
    return added
