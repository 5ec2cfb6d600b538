"""The one transaction every change to memory goes through: journal → files → commit → cursor → forget.

Dream batches, quarantine retries, restores, review decisions, forget and pin all apply here (through the
door, memory/door.py), so "atomic" means one thing everywhere: a failure puts the files back, and a crash
leaves a journal that `recover` — run first by every command that writes — finishes (the commit landed, or
the files are exactly the change's) or undoes (someone edited them since). The commit is the source of
truth for progress: a cursor left behind it is fast-forwarded. This is the only module that commits.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from nanodream import boundedjson
from nanodream.atomic import atomic_write, read_text
from nanodream.backlog.history import read_cursor, write_cursor
from nanodream.backlog.position import Position, from_cursor, position_at_offset, position_file, resume, save_position
from nanodream.backlog.waiting import Waiting, nanobot_cursor, settle_waiting
from nanodream.changes import FileChange
from nanodream.memory.journal import Journal, JournalUnreadable, read_current, remove_stale_temp_files, write_files
from nanodream.memory.staging import Staging
from nanodream.versioning.commitmsg import manual_message
from nanodream.versioning.gitrunner import GitError
from nanodream.versioning.gitstate import check_hand_edits
from nanodream.versioning.gitstore import DREAM_IDENTITY, GitStore
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
    if sha is not None and not store.sync_index(parent, sha, stale_only=True):
        atomic_write(pending_sync_file(store.workspace), json.dumps({"old": parent, "new": sha}) + "\n")
    return sha


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


def changed_since_staged(workspace: Workspace, staging: Staging, paths: list[str]) -> list[str]:
    """Files someone else (the host agent, a person) wrote while a session ran: applying would lose that."""
    current = read_current(workspace.root, paths)
    return [path for path in paths if current[path] != staging.on_disk.get(path)]


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
    if store.head_message().strip() == journal.message.strip():
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
