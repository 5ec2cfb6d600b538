"""The one transaction every change to memory goes through: journal → files → commit → cursor → forget.

Dream batches, quarantine retries and restores all apply here, so "atomic" means one thing everywhere: a
crash at any point leaves either nothing or a journal that `recover` — run first by every command that
writes — finishes (the commit landed, or the files are exactly the dream's) or undoes (someone edited
them since). The commit is the source of truth for progress: a cursor left behind it is fast-forwarded.
"""

from __future__ import annotations

from dataclasses import dataclass

from nanodream.run.history import read_cursor, write_cursor
from nanodream.run.journal import Journal, read_current, remove_stale_temp_files, write_files
from nanodream.run.staging import FileChange, Staging
from nanodream.versioning.commitmsg import manual_message
from nanodream.versioning.gitstore import DREAM_IDENTITY, GitStore
from nanodream.workspace import Workspace


@dataclass(frozen=True)
class Prepared:
    """What had to happen before a change could be made: an interrupted run finished, hand edits committed."""

    recovered: str = ""
    manual_commit: str | None = None


def prepare(workspace: Workspace, store: GitStore) -> Prepared:
    """Finish an interrupted apply and commit the person's hand edits before anything of ours touches the files."""
    store.ensure_repo()
    recovered = recover(workspace, store)
    return Prepared(recovered, commit_hand_edits(store))


def commit_hand_edits(store: GitStore) -> str | None:
    """Commit edits a person made to memory files since the last commit, as theirs, never credited to a dream."""
    dirty = store.dirty_paths()
    return store.commit(manual_message(dirty), store.user_identity()) if dirty else None


def journal_for(run_id: str, message: str, changes: list[FileChange], cursor_end: int,
                cursor_reset: int | None = None) -> Journal:
    """The journal of a validated change; `cursor_end` 0 never moves the cursor, `cursor_reset` sets it back."""
    return Journal(run_id=run_id, message=message, cursor_end=cursor_end,
                   before={c.path: c.before for c in changes}, after={c.path: c.after for c in changes},
                   cursor_reset=cursor_reset)


def apply(workspace: Workspace, store: GitStore, journal: Journal) -> str | None:
    """Journal first, then files, commit, cursor, and only then forget the journal: any crash is recoverable."""
    journal.save(workspace)
    write_files(workspace.root, journal.after)
    sha = store.commit(journal.message, DREAM_IDENTITY)
    _settle_cursor(workspace, journal)
    Journal.clear(workspace)
    return sha


def changed_since_staged(workspace: Workspace, staging: Staging, paths: list[str]) -> list[str]:
    """Files someone else (the host agent, a person) wrote while a session ran: applying would lose that."""
    current = read_current(workspace.root, paths)
    return [path for path in paths if current[path] != staging.on_disk.get(path)]


def advance_cursor(workspace: Workspace, cursor: int) -> None:
    """Move the cursor forward to `cursor`; never back (only a replaying restore sets it back, via its journal)."""
    if read_cursor(workspace.cursor_file) < cursor:
        write_cursor(workspace.cursor_file, cursor)


def recover(workspace: Workspace, store: GitStore) -> str:
    """Finish or undo an interrupted apply, then fast-forward the cursor to the last commit's range."""
    notes = []
    strays = remove_stale_temp_files(workspace)
    if strays:
        notes.append(f"removed {len(strays)} temp file(s) of an interrupted write")
    journal = Journal.load(workspace)
    if journal is not None:
        notes.append(_recover_journal(workspace, store, journal))
    mark = store.cursor_mark()
    if mark is not None and read_cursor(workspace.cursor_file) < mark:
        write_cursor(workspace.cursor_file, mark)
        notes.append(f"cursor fast-forwarded to {mark} from the last dream commit")
    return "; ".join(notes)


def _recover_journal(workspace: Workspace, store: GitStore, journal: Journal) -> str:
    if store.head_message().strip() == journal.message.strip():
        _settle_cursor(workspace, journal)
        Journal.clear(workspace)
        return f"finished interrupted run {journal.run_id} (commit had landed; cursor written)"
    current = read_current(workspace.root, list(journal.after))
    foreign = [p for p, text in current.items() if text not in (journal.before[p], journal.after[p])]
    if foreign:
        # Someone edited the files after the crash: undo only the dream's own writes, keep theirs.
        write_files(workspace.root, {p: journal.before[p] for p, text in current.items()
                                     if text == journal.after[p]})
        Journal.clear(workspace)
        return f"abandoned interrupted run {journal.run_id}: {', '.join(foreign)} changed since; batch will rerun"
    write_files(workspace.root, journal.after)
    store.commit(journal.message, DREAM_IDENTITY)
    _settle_cursor(workspace, journal)
    Journal.clear(workspace)
    return f"completed interrupted run {journal.run_id}"


def _settle_cursor(workspace: Workspace, journal: Journal) -> None:
    """After the commit: advance to the journal's range end, or set back a replaying restore's cursor."""
    if journal.cursor_reset is not None:
        write_cursor(workspace.cursor_file, journal.cursor_reset)
    else:
        advance_cursor(workspace, journal.cursor_end)
