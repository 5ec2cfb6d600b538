"""The one door every writer enters: lock, sane git, recovery and the person's hand edits, then the change.

A dream, a restore, a review decision, forget, pin, the prompt override, a quarantine retry, a dead-letter
acknowledgement, the page's and the MCP server's actions — each enters here before it validates its
targets or decides there is nothing to do, so each refuses the same states the same way: one `Refused`
(busy, needs a person, unreadable journal, read-only) with the exit code that says so. In the spirit of
pre-commit's `staged_files_only`: whatever happens inside, the person's work is kept and the workspace
stays consistent. This is the only module that takes the workspace lock.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

from nanodream.changes import FileChange
from nanodream.layout import Linked, check_plain
from nanodream.memory import transaction
from nanodream.memory.journal import Journal
from nanodream.memory.lock import WorkspaceBusy, workspace_lock
from nanodream.memory.snapshot import Committed, Signature, signatures
from nanodream.versioning import pending
from nanodream.versioning.gitlocks import clear_stale_locks
from nanodream.versioning.gitstate import NeedsPerson, check_hand_edits, check_writable
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import ExitCode, Refused
from nanodream.workspace import Workspace

_READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)


@dataclass
class Door:
    """Inside the door: the repository, what entering had to do first, and the one way to apply a change."""

    workspace: Workspace
    store: GitStore
    preview: bool = False  # a dry run: it may look, it writes nothing
    recovered: str = ""  # an interrupted change finished or undone on the way in
    manual_commit: str | None = None  # the person's hand edits, committed as theirs before the first change
    notices: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the last changes had to tell (`take_notes`)
    _settled: bool = field(default=False, repr=False)
    _committed: Committed | None = field(default=None, repr=False)
    _settled_files: dict[str, Signature | None] | None = field(default=None, repr=False)

    @property
    def committed(self) -> Committed | None:
        """The memory files as committed (memory/snapshot.py), once the person's edits are; None before. Read when
        first asked: a file someone changed since the door settled is the commit's text, not theirs (their edit
        is taken in when a change lands)."""
        if self._settled and self._committed is None and not self.preview:
            self._committed = Committed.read(self.workspace, self._settled_files, self._head_texts)
        return self._committed

    def _head_texts(self, paths: list[str]) -> dict[str, str | None]:
        """The last commit's text of `paths` (one `ls-tree`, one `cat-file --batch`)."""
        tree = self.store.tree_paths("HEAD") if self.store.head_sha() else {}
        blobs = self.store.blobs([tree[p] for p in paths if p in tree])
        return {p: blobs[tree[p]].decode("utf-8", "surrogateescape") if p in tree else None for p in paths}

    def settle(self, message: str | None = None) -> None:
        """Commit the person's hand edits (and upgrade the tracked set) once, before anything of ours lands.

        Called by the first `apply`; a run calls it up front so its session sees their edits as committed.
        """
        if self._settled:
            return
        self._settled = True
        self.manual_commit = transaction.commit_hand_edits(self.workspace, self.store, message)
        tracking = (transaction.track_archive, transaction.track_rejected, transaction.track_insights)
        self.notices += [note for note in (track(self.workspace, self.store) for track in tracking) if note]
        self._settled_files = signatures(self.workspace)

    def vet(self) -> None:
        """Refuse now what settling would refuse later (a hand edit holding a credential), committing nothing: for a
        writer that may end with no change at all (a host's dream session), whose settle waits for its first change.
        """
        dirty = self.store.dirty_paths()
        if dirty:
            check_hand_edits(self.workspace, self.store, dirty)

    def apply(self, journal: Journal) -> str | None:
        """Apply one journalled change (see memory/transaction.py); the commit's sha, or None if it changed nothing.

        What a person wrote to memory files while the change was prepared is committed as theirs first and the
        change merged onto it (`transaction.reconcile`; `notes` says so). Raises transaction.CommitFailed with the
        files put back when git or the disk refuses it, and NeedsPerson when their edit holds a credential.
        """
        if self.preview:
            raise RuntimeError("a preview writes nothing")  # a bug in a caller, never a person's doing
        self.settle()
        done = transaction.reconcile(self.workspace, self.store, journal)
        if done.manual_commit is not None:
            self.notes.append(f"hand edits made meanwhile were committed first as the person's own "
                              f"({done.manual_commit[:8]})")
        self.notes += done.notes
        sha = transaction.apply(self.workspace, self.store, done.journal)
        for path, kept, other in done.proposals:
            message = f"proposed: {path} as the change had it\n\nA person's edit of {path} made while a change " \
                      "was prepared stays; the change's version waits here for a decision.\n"
            pending.propose_change(self.store, {path: (_bytes(kept), _bytes(other))}, message)
        if self._committed is not None:
            self._committed.refresh(sorted({*done.journal.after, *done.committed}))
        return sha

    def take_notes(self) -> list[str]:
        """What the last changes had to tell a person (hand edits found meanwhile), said once."""
        notes, self.notes = self.notes, []
        return notes

    def prepare_landing(self, journal: Journal) -> None:
        """Journal a commit built beforehand (a sync's merge) before it leaves the machine: from here on a crash
        lands it on the next start (`transaction.land`)."""
        journal.save(self.workspace)

    def abandon_landing(self) -> None:
        """The commit a journal was prepared for will not land (its push failed): forget the journal."""
        Journal.clear(self.workspace)

    def land(self, journal: Journal) -> None:
        """Land a journalled commit built beforehand (`transaction.land`)."""
        transaction.land(self.workspace, self.store, journal)
        self._committed = None  # HEAD took another machine's files: read again when next asked

    def change(self, run_id: str, message: str, changes: list[FileChange],
               progress: transaction.Progress | None = None) -> str | None:
        """Apply file changes as one commit: the journal is built here from their before and after texts."""
        return self.apply(transaction.journal_for(run_id, message, changes, progress or transaction.Progress()))


@contextmanager
def writing(workspace: Workspace, *, preview: bool = False) -> Iterator[Door]:
    """Enter the door: hold the lock, refuse what needs a person, recover, and hand over a Door.

    Raises Refused for every state that stops a writer, raised inside the block too (a hand edit holding a
    credential is only found when the first change settles them). `preview` (a dry run) only takes the lock
    when it can and never writes.
    """
    try:
        check_plain(workspace)  # before the lock: a linked .nanodream would lock another workspace
    except Linked as exc:
        raise Refused(str(exc), exit_code=ExitCode.NEEDS_PERSON) from None
    try:
        with _locked(workspace, preview):
            door = Door(workspace, GitStore(workspace), preview)
            if not preview:
                _enter(door)
            yield door
    except NeedsPerson as exc:
        raise Refused(str(exc), exit_code=ExitCode.NEEDS_PERSON) from None


@contextmanager
def _locked(workspace: Workspace, preview: bool) -> Iterator[None]:
    with ExitStack() as held:
        try:
            held.enter_context(workspace_lock(workspace, read_only=preview))
        except WorkspaceBusy as exc:
            raise Refused(f"{exc}; try again when it has finished", exit_code=ExitCode.BUSY) from None
        except OSError as exc:
            if exc.errno not in _READ_ONLY:
                raise
            where = f" ({exc.filename})" if exc.filename else ""
            raise Refused(f"{exc.strerror}{where}: nanodream cannot write to this workspace (check the folder's "
                          "permissions and mount)", exit_code=ExitCode.FAILED) from None
        yield


def _enter(door: Door) -> None:
    """Everything before a writer may look at its targets: sane git, no lock a killed git left, a repository,
    no half-finished change; and a word about the linked skills it will leave alone."""
    check_writable(door.workspace)
    door.notices += [f"removed {path}, left by a git command that was killed (no process holds it)"
                     for path in clear_stale_locks(door.workspace)]  # one that may be held needs a person
    transaction.ensure_repository(door.store)
    door.recovered = transaction.recover(door.workspace, door.store)  # an unrecoverable journal needs a person
    door.notices += [f"{path} is a symbolic link: left alone (a dream neither reads, writes, indexes nor commits "
                     "it)" for path in door.workspace.linked_skills()]


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8", "surrogateescape")
