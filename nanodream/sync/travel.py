"""`nanodream sync`: fetch the remote's memory, merge it with this machine's, land the merge, push it.

Inside the door (the lock, recovery, the states that need a person), in this order, so that a sync that cannot
complete changes nothing anywhere — no ref here, no remote-tracking ref, nothing on the remote, no object:

1. the remote's tip (`ls-remote`) and its objects, fetched into a quarantine (versioning/objects.py);
2. the plan (sync/plan.py): hand edits as the person's commit, the merge as nanodream's, objects only;
3. what would leave, scanned (sync/arrivals.py): a credential or a path that never travels stops it here;
4. the journal of the landing (memory/transaction.py), then the push — refused because the remote moved on, the
   sync starts again from 1 (a few times);
5. the landing: the objects join the repository, the files take the merge, HEAD moves, proposals are laid, the
   remote-tracking ref follows.

A SIGKILL anywhere: before 4 nothing happened; from 4 on the next start lands the journalled commit (pushed or
not), and the next sync pushes what is not on the remote yet — no line lost or doubled.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nanodream.changes import FileChange
from nanodream.config import ConfigError, Settings, sync_settings
from nanodream.memory.door import Door, writing
from nanodream.memory.journal import Journal
from nanodream.sync.arrivals import arrival_guard, leak
from nanodream.sync.plan import Plan, plan
from nanodream.versioning import gitmemo, objects
from nanodream.versioning.gitstore import GitStore
from nanodream.versioning.remote import (
    NoRemote,
    Remote,
    RemoteFailed,
    RemoteMoved,
    fetch,
    find_remote,
    push,
    remote_tip,
)
from nanodream.vocab import ExitCode, Outcome, Refused, Report, new_run_id
from nanodream.workspace import Workspace

ATTEMPTS = 3  # a push the remote refused because it moved on starts the sync again, this many times in all


@dataclass
class SyncReport(Report):
    """What `sync` did, or (`--dry-run`) would do (docs/json.md): outcome synced | nothing-to-do | dry-run |
    failed | refused | busy | blocked."""

    remote: str = ""  # the remote's name and URL (a password or token in it left out)
    branch: str = ""
    machine: str = ""  # this machine's name, in every commit it makes
    fetched: str | None = None  # the remote's commit when the sync read it (None: an empty remote)
    commit: str | None = None  # where HEAD moved (None: it stayed)
    pushed: str | None = None  # what the remote's branch moved to (None: nothing pushed)
    local: list[dict[str, Any]] = field(default_factory=list)  # this machine's files: {"path", "added", "removed"}
    remote_files: list[dict[str, Any]] = field(default_factory=list)  # the remote's files, as the push changes them
    hand_edits: list[str] = field(default_factory=list)  # files the person edited, committed as theirs first
    archived: list[str] = field(default_factory=list)  # older values of lines changed on both sides
    proposals: int = 0  # what waits in the review lane (`nanodream review`)
    held: list[str] = field(default_factory=list)  # arriving lines that wait for review
    left_out: list[str] = field(default_factory=list)  # arriving lines left out (a credential, an injection)
    notes: list[str] = field(default_factory=list)
    recovered: str = ""


def sync(workspace: Workspace, settings: Settings, *, dry_run: bool = False) -> SyncReport:
    """Merge the remote's memory into this workspace's and push the result (see the module docstring)."""
    report = SyncReport(outcome=Outcome.NOTHING_TO_DO)
    try:
        mine = sync_settings(workspace)
    except ConfigError as exc:
        raise Refused(f"configuration: {exc}", exit_code=ExitCode.USAGE) from None
    report.machine = mine.machine
    with writing(workspace, preview=dry_run) as door:
        report.recovered = door.recovered
        remote = _remote(door.store, mine.remote)
        report.remote, report.branch = remote.shown, remote.branch
        try:
            with gitmemo.unwritten(workspace.root) if dry_run else nullcontext():
                _attempts(door, remote, settings, report, dry_run)
        except RemoteFailed as exc:
            report.outcome, report.reason = Outcome.FAILED, str(exc)
    return report


def _remote(store: GitStore, name: str) -> Remote:
    try:
        return find_remote(store, name)
    except NoRemote as exc:
        raise Refused(f"{exc}: add it (git -C {store.workspace.root} remote add {name} URL) or name another "
                      "([sync] remote in nanodream.local.toml)", exit_code=ExitCode.USAGE) from None


def _attempts(door: Door, remote: Remote, settings: Settings, report: SyncReport, dry_run: bool) -> None:
    if not dry_run:
        objects.discard_stale(door.workspace)  # left by a sync killed before it journalled anything
    for attempt in range(ATTEMPTS):
        try:
            _once(door, remote, settings, report, dry_run)
            return
        except RemoteMoved:
            if attempt == ATTEMPTS - 1:
                raise RemoteFailed(f"{remote.shown} kept moving on while this sync merged ({ATTEMPTS} tries)"
                                   ) from None


class _Leaked(RemoteFailed):
    """Something that must not leave this machine would have been pushed."""


def _once(door: Door, remote: Remote, settings: Settings, report: SyncReport, dry_run: bool) -> None:
    folder = objects.open_quarantine(door.workspace, inside=not dry_run)
    journalled = False
    try:
        store = GitStore(door.workspace, objects=folder)
        theirs = remote_tip(store, remote)
        if theirs is not None:
            fetch(store, remote, theirs)
        found = plan(store, remote, theirs, arrival_guard(settings))
        _describe(report, found, dry_run)
        if dry_run or (found.target is None and found.push is None):
            return
        if found.push is not None:
            problem = leak(store, found.push, theirs)
            if problem is not None:
                raise _Leaked(f"{problem} would be pushed: nothing was pushed, nothing changed here")
        journal = _journal(found, remote, folder)
        door.prepare_landing(journal)
        journalled = True
        _push(door, store, remote, found)
        door.land(journal)
        report.outcome = Outcome.SYNCED
    finally:
        if not journalled:
            objects.discard(folder)


def _push(door: Door, store: GitStore, remote: Remote, found: Plan) -> None:
    """Push, or forget the journal when the push fails: then nothing lands and nothing has changed."""
    if found.push is None:
        return
    try:
        push(store, remote, found.push)
    except RemoteFailed:
        door.abandon_landing()
        objects.discard(store.objects)
        raise


def _journal(found: Plan, remote: Remote, folder: Path) -> Journal:
    """The landing of `found.target` (or of nothing but the tracking ref, when only a push happens)."""
    target = found.target or found.head
    return Journal(run_id=f"sync-{new_run_id()}", message=f"sync with {remote.shown}",
                   before={change.path: change.before for change in found.landing},
                   after={change.path: change.after for change in found.landing},
                   target=target, parent=found.head, objects=str(folder), proposals=found.proposals,
                   tracking=[remote.tracking, found.push or found.theirs] if (found.push or found.theirs) else None,
                   travelled=f"memory from {remote.shown}\n" if found.merges else "")


def _describe(report: SyncReport, found: Plan, dry_run: bool) -> None:
    report.fetched = found.theirs
    report.commit = found.target
    report.pushed = found.push
    report.local = _counted(found.landing)
    report.remote_files = _counted(found.pushing)
    report.hand_edits = found.hand_edits
    report.archived, report.held, report.left_out = found.archived, found.held, found.left_out
    report.notes = found.notes
    report.proposals = len(found.proposals)
    if dry_run:
        report.outcome = Outcome.DRY_RUN
        report.commit = report.pushed = None
    if found.target is None and found.push is None:
        report.reason = "this machine and the remote already hold the same memory"


def _counted(changes: list[FileChange]) -> list[dict[str, Any]]:
    return [{"path": change.path, "added": change.line_counts()[0], "removed": change.line_counts()[1]}
            for change in changes]
