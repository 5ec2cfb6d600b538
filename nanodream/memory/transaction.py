"""The one transaction every change to memory goes through: journal → files → commit → cursor → forget.

Dream batches, quarantine retries, restores, review decisions, forget and pin all apply here (through the
door, memory/door.py), so "atomic" means one thing everywhere: a failure puts the files back, and a crash
leaves a journal that `recover` — run first by every command that writes — finishes (the commit landed, or
the files are exactly the change's) or undoes (someone edited them since). The commit is the source of
truth for progress: a cursor left behind it is fast-forwarded. This is the only module that commits.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path

from nanodream import boundedjson, clock
from nanodream.atomic import atomic_write, read_text
from nanodream.backlog.history import read_cursor, write_cursor
from nanodream.backlog.position import Position, from_cursor, position_at_offset, position_file, resume, save_position
from nanodream.backlog.waiting import Waiting, nanobot_cursor, settle_waiting
from nanodream.changes import FileChange
from nanodream.memory import archive
from nanodream.memory.journal import Journal, JournalUnreadable, read_current, remove_stale_temp_files, write_files
from nanodream.validity import replaced_line
from nanodream.versioning import objects, pending
from nanodream.versioning.commitmsg import manual_message, with_change_list, without_machine
from nanodream.versioning.gitrunner import GitError
from nanodream.versioning.gitstate import check_hand_edits
from nanodream.versioning.gitstore import DREAM_IDENTITY, TRAVELLED, GitStore
from nanodream.versioning.merge import Conflict, Replaced, Side, merge_file
from nanodream.vocab import count
from nanodream.workspace import ARCHIVE_RULE, GITIGNORE, INSIGHTS_RULE, REJECTED_RULE, Workspace


def ensure_repository(store: GitStore) -> bool:
    """Create the workspace's repository with a first commit of the memory files; True when it was created.

    A workspace nanobot made has no `.gitignore`: nanodream's allowlist is written first, so a person's later
    `git add -A` can never commit history.jsonl or nanodream's own state.
    """
    if store.exists:
        return False
    ignore = store.workspace.root / ".gitignore"
    if not ignore.exists() and not ignore.is_symlink():
        atomic_write(ignore, GITIGNORE)
    store.init()
    _commit(store, "init: start versioning agent memory\n\nCreated by nanodream init.", DREAM_IDENTITY)
    return True


def track_archive(workspace: Workspace, store: GitStore) -> str:
    """A workspace made before the archive existed gets its .gitignore allowlist extended, in a labelled commit."""
    return _allow(workspace, store, ARCHIVE_RULE, "memory/archive/",
                  "nanodream now moves facts that are still true but no longer hot out of memory/MEMORY.md into "
                  "memory/archive/; this\ncommit only adds that folder to the .gitignore allowlist.")


def track_rejected(workspace: Workspace, store: GitStore) -> str:
    """A workspace made before the rejected-facts ledger gets it on its .gitignore allowlist, in a labelled commit."""
    return _allow(workspace, store, REJECTED_RULE, "memory/rejected.md",
                  "nanodream now records the facts a person undid in memory/rejected.md, so no later dream adds\n"
                  "them again; this commit only adds that file to the .gitignore allowlist.")


def track_insights(workspace: Workspace, store: GitStore) -> str:
    """A workspace made before insights existed gets their folder on its .gitignore allowlist, in a labelled commit."""
    return _allow(workspace, store, INSIGHTS_RULE, "memory/insights/",
                  "nanodream now keeps the connections a run proposes between what it learned and what was known\n"
                  "in memory/insights/ (never loaded as facts); this commit only adds that folder to the .gitignore\n"
                  "allowlist.")


def _allow(workspace: Workspace, store: GitStore, rule: str, what: str, why: str) -> str:
    path = workspace.root / ".gitignore"
    text = read_text(path) if path.is_file() and not path.is_symlink() else ""
    anchor = "!/memory/MEMORY.md\n"
    if rule in text or anchor not in text:  # already there, or not nanodream's allowlist: leave it
        return ""
    atomic_write(path, text.replace(anchor, anchor + rule + "\n", 1))
    sha = _commit(store, f"chore: track {what} in the memory repository\n\n{why}", DREAM_IDENTITY)
    return f"updated .gitignore to track {what} (commit {sha[:8]})" if sha else ""


def commit_hand_edits(workspace: Workspace, store: GitStore, message: str | None = None) -> str | None:
    """Commit edits a person made to memory files since the last commit, as theirs, never credited to a dream.

    Raises NeedsPerson, before anything is committed, when one of them holds a credential.
    """
    dirty = store.dirty_paths()
    if not dirty:
        return None
    check_hand_edits(workspace, store, dirty)
    return _commit(store, message or manual_message(dirty), store.user_identity())


@dataclass(frozen=True)
class Progress:
    """Where the history position goes once a commit has landed, and what it passes that waits for a model."""

    position: Position | None = None  # None: the change consumed no history (a tidy pass, a plain restore)
    reset: bool = False  # set it back (a replaying restore) instead of only moving it forward
    waiting: tuple[Waiting, ...] = ()  # entries the position passes unread: recorded before it moves
    released: tuple[str, ...] = ()  # keys of waiting entries this change dreamed: no longer waiting

    def waiting_step(self) -> dict[str, list] | None:
        if not self.waiting and not self.released:
            return None
        return {"add": [asdict(item) for item in self.waiting], "release": list(self.released)}


def journal_for(run_id: str, message: str, changes: list[FileChange], progress: Progress = Progress()) -> Journal:
    """The journal of a validated change: every file's before and after, the message, the progress."""
    position = progress.position
    return Journal(run_id=run_id, message=message, before={c.path: c.before for c in changes},
                   after={c.path: c.after for c in changes},
                   position=asdict(position) if position is not None else None, position_reset=progress.reset,
                   cursor_end=position.cursor if position is not None else 0, waiting=progress.waiting_step())


class CommitFailed(RuntimeError):
    """The change could not be written or committed; its files are back as they were and no journal is left."""


def apply(workspace: Workspace, store: GitStore, journal: Journal) -> str | None:
    """Journal first, then files, commit, cursor, and only then forget the journal.

    A failure before the commit lands (git refusing it — a hook, a lock — or a full disk) puts every file the
    change wrote back to its bytes before, clears the journal and raises CommitFailed: nothing of the change
    is left for the next run to mistake for a person's hand edits. A crash (or an interrupt) leaves the
    journal instead, and `recover` finishes the change on the next start.
    """
    journal.save(workspace)
    try:
        write_files(workspace.root, journal.after)
        sha = _commit(store, journal.message, DREAM_IDENTITY)
    except Exception as exc:  # anything short of a crash: undo what was written, say what failed
        raise _undone(workspace, journal, exc) from None
    _settle_cursor(workspace, journal)
    Journal.clear(workspace)
    return sha


def _undone(workspace: Workspace, journal: Journal, cause: Exception) -> CommitFailed | JournalUnreadable:
    """Put back every file the change wrote (only its own writes); the error to raise says what happened."""
    what = _describe(cause)
    current = read_current(workspace.root, list(journal.after))
    try:
        write_files(workspace.root, {p: journal.before[p] for p, text in current.items() if text == journal.after[p]})
    except OSError as exc:  # the journal stays, and the files are half written: only a person can sort this out
        return JournalUnreadable(workspace, f"putting its files back failed ({exc.strerror or exc}) after the "
                                            f"change could not be committed ({what})")
    Journal.clear(workspace)
    return CommitFailed(f"the change could not be committed ({what}); the memory files are back as they were")


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror} ({exc.filename})" if exc.filename else exc.strerror
    lines = str(exc).strip().splitlines()
    return lines[0] if lines and isinstance(exc, GitError) else f"{type(exc).__name__}: {lines[0] if lines else ''}"


def _commit(store: GitStore, message: str, author: tuple[str, str]) -> str | None:
    """Commit the memory files, then point the person's index at the new commit for the files it changed.

    If another git process holds the index, the commit stands and the index update is kept as pending
    (`.nanodream/index-sync.json`) for the next start: the person's index never keeps staging a reversal.
    """
    parent = store.head_sha()
    sha = store.commit(message, author)
    if sha is not None:
        _follow_index(store, parent, sha)
    return sha


def _follow_index(store: GitStore, parent: str | None, sha: str) -> None:
    if not store.sync_index(parent, sha, stale_only=True):
        atomic_write(pending_sync_file(store.workspace), json.dumps({"old": parent, "new": sha}) + "\n")


def pending_sync_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "index-sync.json"


def _finish_index_sync(store: GitStore) -> str:
    """Retry an index update another git process blocked; only entries still staging the old text move."""
    path = pending_sync_file(store.workspace)
    try:
        pending = boundedjson.load_file(path)
        old, new = pending["old"], pending["new"]
    except FileNotFoundError:
        return ""
    except (ValueError, KeyError, TypeError):
        path.unlink()
        return ""
    if not store.sync_index(old, new, stale_only=True):
        return ""
    path.unlink()
    return "updated git's index for the files of an earlier commit (another git process held it then)"


def advance(workspace: Workspace, position: Position | None, progress: Progress = Progress()) -> None:
    """Move the history position forward to `position`; never back (only a replaying restore does, by journal).

    What it passes that waits for a model is recorded first, and what a batch dreamed of it released: a crash in
    between leaves a record the position has not reached yet, which readers pass over until it does.
    """
    step = progress.waiting_step()
    if step is not None:
        _settle_waiting(workspace, step)
    if position is not None and resume(workspace).position.offset < position.offset:
        save_position(workspace, position)


def _settle_waiting(workspace: Workspace, step: dict[str, list]) -> None:
    """Record what waits and release what was read; once entries are released, nanobot's cursor may move on."""
    settle_waiting(workspace, step.get("add", []), step.get("release", []))
    if step.get("release") and position_file(workspace).exists():  # (a cheap write when nothing waited)
        write_cursor(workspace.cursor_file, nanobot_cursor(workspace, resume(workspace).position))


def recover(workspace: Workspace, store: GitStore) -> str:
    """Finish or undo an interrupted apply, then fast-forward the cursor to the last commit's range."""
    notes = []
    strays = remove_stale_temp_files(workspace)
    if strays:
        notes.append(f"removed {count(len(strays), 'temp file')} of an interrupted write")
    journal = Journal.load(workspace)
    if journal is not None:
        try:
            notes.append(_recover_journal(workspace, store, journal))
        except (OSError, GitError, ValueError) as exc:  # it would fail the same way on every run
            raise JournalUnreadable(workspace, f"finishing it failed: {type(exc).__name__}: {exc}") from None
    notes += [_finish_index_sync(store), _fast_forward(workspace, store)]
    return "; ".join(note for note in notes if note)


def committed_position(workspace: Workspace, store: GitStore) -> Position | None:
    """The position the last progress commit claims, when it is ahead of the saved one (a crash in between)."""
    trailers = store.progress_trailers() if store.exists else None
    if trailers is None:
        return None
    resumed = resume(workspace)
    if resumed.anomaly:
        return None  # history.jsonl was rotated or rewritten since: the commit's offsets name another file's bytes
    current = resumed.position
    if trailers.position is not None:
        ahead = current.offset < trailers.position
        return position_at_offset(workspace.history_file, trailers.position) if ahead else None
    mark = trailers.cursor_mark  # a commit from before positions: its cursor is all it says
    return from_cursor(workspace.history_file, mark) if mark is not None and current.cursor < mark else None


def _fast_forward(workspace: Workspace, store: GitStore) -> str:
    """Progress left behind the last commit (a crash in between) catches up; it is never re-consumed."""
    position = committed_position(workspace, store)
    if position is not None:
        save_position(workspace, position)
        return f"cursor fast-forwarded to {position.cursor} (line {position.line}) from the last dream commit"
    position, written = resume(workspace).position, read_cursor(workspace.cursor_file)
    expected = nanobot_cursor(workspace, position)
    if position_file(workspace).exists() and written != expected:
        # nanobot reads .dream_cursor; the position is what nanodream goes by, so the two must agree (it stays
        # before the first entry waiting for a model, which nanobot must neither compact away nor hide).
        write_cursor(workspace.cursor_file, expected)
        verb = "fast-forwarded" if written < expected else "set back"
        return f"cursor {verb} to {expected} to match the history position (.dream_cursor said {written})"
    return ""


def _recover_journal(workspace: Workspace, store: GitStore, journal: Journal) -> str:
    if journal.target is not None:
        return _recover_landing(workspace, store, journal)
    if without_machine(store.head_message()) == without_machine(journal.message):
        head = store.head_sha()
        # The crash may have come between the commit and the index update: finish that step too.
        store.sync_index(store.parent_of(head), head, stale_only=True)
        _settle_cursor(workspace, journal)
        Journal.clear(workspace)
        return f"finished interrupted run {journal.run_id} (commit had landed; cursor written)"
    current = read_current(workspace.root, list(journal.after))
    foreign = [p for p, text in current.items() if text not in (journal.before[p], journal.after[p])]
    unwritable = journal.unwritable()  # left by an older nanodream: rolling it forward would fail every time
    if foreign or unwritable:
        # Undo only the dream's own writes; anyone else's edits stay.
        write_files(workspace.root, {p: journal.before[p] for p, text in current.items()
                                     if text == journal.after[p]})
        Journal.clear(workspace)
        why = f"{', '.join(foreign)} changed since" if foreign else f"{unwritable} cannot be written"
        return f"abandoned interrupted run {journal.run_id}: {why}; batch will rerun"
    try:
        apply(workspace, store, journal)
    except CommitFailed as exc:
        return f"abandoned interrupted run {journal.run_id}: {exc}; batch will rerun"
    return f"completed interrupted run {journal.run_id}"


def _settle_cursor(workspace: Workspace, journal: Journal) -> None:
    """After the commit: record what waits for a model, then advance the position, or set a replaying restore's back
    (old journals: the cursor)."""
    if journal.waiting is not None:
        _settle_waiting(workspace, journal.waiting)
    if journal.position is not None:
        target = Position(**journal.position)
        if journal.position_reset:
            save_position(workspace, target)
        else:
            advance(workspace, target)
    elif journal.cursor_reset is not None:
        write_cursor(workspace.cursor_file, journal.cursor_reset)
    elif read_cursor(workspace.cursor_file) < journal.cursor_end:
        write_cursor(workspace.cursor_file, journal.cursor_end)


# a change prepared while someone edited the files: their edits first, the change merged onto them ------------


class _PersonFirst:
    """The clock of a change landing on a person's edits: theirs (the person's) is always the newer — it was made
    while the change was being prepared from the files before it."""

    def line(self, conflict: Conflict) -> Side | None:
        return "theirs"

    def file(self, path: str) -> Side | None:
        return "theirs"

    def day(self, conflict: Conflict, side: Side) -> date:
        return clock.today()


@dataclass
class Reconciled:
    """A journal merged onto what is on disk now, what the person's edits became, and what waits for them."""

    journal: Journal
    manual_commit: str | None = None
    committed: list[str] = field(default_factory=list)  # the paths of the person's edits, committed as theirs
    notes: list[str] = field(default_factory=list)
    proposals: list[tuple[str, str | None, str | None]] = field(default_factory=list)  # path, before, after


def reconcile(workspace: Workspace, store: GitStore, journal: Journal) -> Reconciled:
    """Take in what a person (or a host agent) wrote to memory files while a change was being prepared, before it
    lands: their edits become their own commit first — never folded into the change, never lost by restoring it —
    and the change is merged onto them with the same three-way merge a sync uses (base: the files the change was
    prepared from). Where both changed one line, theirs stays and the change's value goes to the archive as
    replaced; a skill both changed keeps theirs and proposes the change's.

    Raises NeedsPerson, before anything is written or committed, when their edit holds a credential.
    """
    done = Reconciled(journal)
    dirty = store.dirty_paths()
    if dirty:
        check_hand_edits(workspace, store, dirty)
        done.manual_commit = _commit(store, manual_message(dirty, meanwhile=True), store.user_identity())
        done.committed = dirty
    current = read_current(workspace.root, list(journal.after))
    moved = [path for path in sorted(journal.after) if current[path] != journal.before[path]]
    if not moved:
        return done
    merged = {path: merge_file(path, journal.before[path], journal.after[path], current[path], _PersonFirst())
              for path in moved}
    for path, result in merged.items():
        journal.before[path], journal.after[path] = current[path], result.text
        done.notes += result.notes
        if result.proposal is not None:
            done.proposals.append((path, result.text, result.proposal))
    _archive_replaced(workspace, journal, [item for result in merged.values() for item in result.replaced])
    changes = [FileChange(p, journal.before[p], journal.after[p]) for p in sorted(journal.after)
               if journal.before[p] != journal.after[p]]
    journal.message = with_change_list(journal.message, changes)
    done.notes.append(f"{', '.join(moved)} changed on disk while this change was prepared: merged onto that edit")
    return done


def _archive_replaced(workspace: Workspace, journal: Journal, replaced: list[Replaced]) -> None:
    """The change's values a person's edit replaced go to this month's archive, marked until today."""
    if not replaced:
        return
    day = clock.today()
    path = archive.archive_file(day)
    if path not in journal.after:
        journal.before[path] = journal.after[path] = read_current(workspace.root, [path])[path]
    moved = [(archive.section_of(journal.after.get(item.path), item.new), replaced_line(item.old, item.until, item.new))
             for item in replaced]
    journal.after[path] = archive.appended(journal.after[path], day, moved)


# landing a commit built beforehand (a sync's merge) ------------------------------------------------------------


def land(workspace: Workspace, store: GitStore, journal: Journal) -> None:
    """Land a journalled commit that was built (and perhaps pushed) beforehand: its objects join the repository,
    the files take its text, HEAD moves to it, then its proposals are laid and the remote-tracking ref follows.

    The journal was saved before the push, so a crash anywhere is finished by `recover`. A file someone edited
    since the merge was computed keeps their edit, merged onto the commit's text and left for the door to commit
    as theirs.
    """
    assert journal.target is not None
    if journal.objects:
        objects.migrate(workspace, Path(journal.objects))
    current = read_current(workspace.root, list(journal.after))
    written = {}
    for path, after in journal.after.items():
        now, before = current[path], journal.before[path]
        if now != after:
            written[path] = after if now == before else merge_file(path, before, after, now, _PersonFirst()).text
    write_files(workspace.root, written)
    if journal.travelled:  # before another machine's commits are in HEAD: their history trailers are not ours
        atomic_write(workspace.state_dir / TRAVELLED, journal.travelled)
    store.move_head(journal.target, journal.parent, journal.message)
    _follow_index(store, journal.parent, journal.target)
    _after_landing(workspace, store, journal)


def _after_landing(workspace: Workspace, store: GitStore, journal: Journal) -> None:
    """What follows a landed commit: its proposals (laid again after a crash: a proposal already laid is not
    laid twice), the remote-tracking ref; then the journal goes."""
    for proposal in journal.proposals:
        files = {path: (_bytes(pair[0]), _bytes(pair[1])) for path, pair in proposal["files"].items()}
        pending.propose_change(store, files, proposal["message"])
    if journal.tracking:
        store.set_ref(journal.tracking[0], journal.tracking[1])
    Journal.clear(workspace)


def _recover_landing(workspace: Workspace, store: GitStore, journal: Journal) -> str:
    head = store.head_sha()
    if head == journal.parent:
        land(workspace, store, journal)
    elif head == journal.target:
        objects.discard(Path(journal.objects) if journal.objects else None)
        _after_landing(workspace, store, journal)
    else:
        objects.discard(Path(journal.objects) if journal.objects else None)
        Journal.clear(workspace)
        return f"abandoned interrupted sync {journal.run_id}: the branch moved since; the next sync merges again"
    return f"finished interrupted sync {journal.run_id} (its merge landed)"


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8", "surrogateescape")
