"""`nanodream forget`: take out what one session (or one entry) taught the memory, and never read it again.

Each memory line is traced to the dream that wrote it (one `git blame` per file) and, through that
dream's consumed entries, to the entries that mention it. A line that only those entries support is
removed in one new commit and recorded as rejected; a line that also draws on other entries is listed for
the person, never silently kept or dropped; so is a replaced fact of the archive whose replacement those
entries taught (it may be true again), which is never dropped. The entries are marked in nanodream's own state
(.nanodream/forgotten.json) so no run consumes them again, even after `restore --replay`, and the turns ingest
kept of them leave the turn store (backlog/turns.py), so `recall` no longer finds what was said there. What
forget does not erase is said plainly: git history (never rewritten) and history.jsonl (the host's file).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nanodream import clock
from nanodream.atomic import read_text
from nanodream.backlog import turns
from nanodream.backlog.forgotten import mark_forgotten
from nanodream.backlog.history import HistoryEntry, read_from
from nanodream.changes import FileChange
from nanodream.edits.hypotheses import stale_lines
from nanodream.edits.shared import committed, through_door
from nanodream.hypotheses import parse
from nanodream.ingest import journal as ingest_journal
from nanodream.ingest.journal import IngestJournalUnreadable
from nanodream.ingest.seen import Seen
from nanodream.memory.door import Door
from nanodream.pinning import file_lines
from nanodream.rejected import fact_text, with_rejected
from nanodream.run.transcripts import list_transcripts
from nanodream.validity import parse_validity
from nanodream.versioning.gitstore import GitStore
from nanodream.versioning.logview import consumed_entries
from nanodream.versioning.provenance import rank
from nanodream.vocab import ExitCode, Outcome, Refused, Report, count, new_run_id
from nanodream.workspace import ARCHIVE_DIR, ARCHIVE_PATH, CORE_FILES, REJECTED_FILE, Workspace

NOT_ERASED = [
    "git history: earlier commits still hold the removed lines (history is never rewritten)",
    "memory/history.jsonl: the host's file is never touched; the entries stay there, marked as never to read",
]


@dataclass
class ForgetReport(Report):
    """What `forget` did or, with --dry-run, would do (docs/json.md): forgotten | dry-run | refused | busy."""

    entries: list[int] = field(default_factory=list)  # history lines marked as never to be consumed
    removed: list[str] = field(default_factory=list)  # "path:line: text", supported only by those entries
    review: list[str] = field(default_factory=list)  # lines that also draw on other entries: edit by hand
    staled: list[str] = field(default_factory=list)  # hypotheses that also draw on other entries: marked stale
    commit: str | None = None
    manual_commit: str | None = None
    transcripts: list[str] = field(default_factory=list)  # deleted with --purge-transcripts
    turns: int = 0  # turns of those entries taken out of the turn store (recall no longer finds them)
    not_erased: list[str] = field(default_factory=lambda: list(NOT_ERASED))


@dataclass(frozen=True)
class Target:
    session: str | None = None
    line: int | None = None


def forget(workspace: Workspace, target: Target, *, dry_run: bool = False,
           purge_transcripts: bool = False) -> ForgetReport:
    report = ForgetReport(outcome=Outcome.REFUSED)
    through_door(workspace, report, lambda door: _forget(door, target, dry_run, purge_transcripts, report))
    return report


def _forget(door: Door, target: Target, dry_run: bool, purge: bool, report: ForgetReport) -> None:
    workspace, store = door.workspace, door.store
    chosen = [e for e in _entries(workspace)
              if (e.session_key == target.session if target.session is not None else e.line == target.line)]
    if not chosen:
        what = f"session {target.session!r}" if target.session is not None else f"line {target.line}"
        raise Refused(f"no history entry belongs to {what}; nothing to forget")
    report.entries = [e.line for e in chosen]
    offsets = {e.offset for e in chosen}
    stale: dict[str, set[int]] = {}
    drop, runs = _attribute(store, offsets, report, stale)
    if dry_run:
        report.turns = _forget_turns(workspace, chosen, dry_run=True)
        report.outcome = Outcome.DRY_RUN
        return
    _finish_ingest(workspace)
    changes = _changes(workspace, drop, target, stale)
    if changes:
        message = (f"forget: {count(len(report.removed), 'line')} taught only by {_describe(target)}\n\n"
                   "Removed at the person's request (nanodream forget) and recorded in memory/rejected.md.\n"
                   + (f"Marked stale: {count(len(report.staled), 'hypothesis line')} that also drew on them.\n"
                      if report.staled else "")
                   + "Earlier commits still hold these lines: git history is never rewritten.\n")
        report.commit = committed(door, f"forget-{new_run_id()}", message, changes)
    mark_forgotten(workspace, chosen)
    report.turns = _forget_turns(workspace, chosen)
    if purge:
        report.transcripts = _purge(workspace, runs)
    report.outcome = Outcome.FORGOTTEN


def _attribute(store: GitStore, offsets: set[int], report: ForgetReport,
               stale: dict[str, set[int]]) -> tuple[dict[str, set[int]], set[str]]:
    """Lines to drop per file (0-based), and the runs that consumed the entries; fills the report's lists and
    `stale` (hypotheses that also draw on other entries: marked stale, not dropped)."""
    drop: dict[str, set[int]] = {}
    runs: set[str] = set()
    cache: dict[str, list[HistoryEntry]] = {}
    for path in _memory_files(store.workspace):
        file = store.workspace.root / path
        if not file.is_file() or file.is_symlink():
            continue
        lines = file_lines(read_text(file))
        for index, sha in enumerate(store.line_commits(path)):
            fact = fact_text(lines[index]) if index < len(lines) else ""
            consumed = _consumed(store, sha, cache, runs, offsets) if fact and sha else []
            if not any(e.offset in offsets for e in consumed):
                continue
            shown = f"{path}:{index + 1}: {lines[index].strip()}"
            if _replaced_by_forgotten(lines[index], consumed, offsets, report, shown):
                continue
            support = rank(consumed, fact) or consumed
            if not any(e.offset in offsets for e in support):
                continue  # the same dream, but other entries taught this line
            if all(e.offset in offsets for e in support):
                drop.setdefault(path, set()).add(index)
                report.removed.append(shown)
            elif path in CORE_FILES and parse(lines[index]) is not None:
                stale.setdefault(path, set()).add(index)  # part of its evidence is gone: a person re-weighs it
                report.staled.append(shown)
            else:
                report.review.append(shown)
    return drop, runs


def _replaced_by_forgotten(line: str, consumed: list[HistoryEntry], offsets: set[int], report: ForgetReport,
                           shown: str) -> bool:
    """A replaced line of the archive was written by the dream that replaced it: forgetting that dream's entries
    does not make the old fact untrue, it may make it current again. It is listed for the person (when what
    replaced it is being forgotten), never dropped. False for any other line."""
    validity = parse_validity(line)
    if validity is None:
        return False
    replacing = rank(consumed, validity.successor)
    if replacing and all(e.offset in offsets for e in replacing):
        report.review.append(f"{shown} (what replaced it is forgotten: it may be true again)")
    return True


def _memory_files(workspace: Workspace) -> list[str]:
    """The core files and the archive's months: every place a fact a session taught may sit now."""
    folder = workspace.root / ARCHIVE_DIR
    months = sorted(f"{ARCHIVE_DIR}/{p.name}" for p in folder.glob("*.md")) if folder.is_dir() else []
    return [*CORE_FILES, *(m for m in months if ARCHIVE_PATH.fullmatch(m))]


def _consumed(store: GitStore, sha: str, cache: dict[str, list[HistoryEntry]], runs: set[str],
              offsets: set[int]) -> list[HistoryEntry]:
    if sha not in cache:
        commit = store.commit_info(sha)
        cache[sha] = consumed_entries(store.workspace, commit.trailers) if commit.kind == "dream" else []
        run = commit.trailers.values.get("Dream-Run")
        if run and any(e.offset in offsets for e in cache[sha]):
            runs.add(run)
    return cache[sha]


def _changes(workspace: Workspace, drop: dict[str, set[int]], target: Target,
             stale: dict[str, set[int]]) -> list[FileChange]:
    changes, taken = [], []
    for path in sorted(drop.keys() | stale.keys()):
        before = read_text(workspace.root / path)  # exact: the lines kept keep their bytes and their CRLF
        indexes = drop.get(path, set())
        lines = stale_lines(before, stale.get(path, set()), clock.today()).split("\n")
        taken += [(path, lines[i].removesuffix("\r")) for i in sorted(indexes)]
        changes.append(FileChange(path, before, "\n".join(text for i, text in enumerate(lines) if i not in indexes)))
    if taken:
        file = workspace.root / REJECTED_FILE
        current = read_text(file) if file.is_file() else None
        ledger, _ = with_rejected(current, taken, f"forgotten ({_describe(target)}), {clock.today().isoformat()}")
        if ledger is not None:
            changes.append(FileChange(REJECTED_FILE, current, ledger))
    return changes


def _entries(workspace: Workspace) -> list[HistoryEntry]:
    if not workspace.history_file.is_file():
        return []
    return [item for item in read_from(workspace.history_file) if isinstance(item, HistoryEntry)]


def _describe(target: Target) -> str:
    return f"session {target.session}" if target.session is not None else f"history line {target.line}"


def _forget_turns(workspace: Workspace, chosen: list[HistoryEntry], *, dry_run: bool = False) -> int:
    """Take the turns of the chosen entries out of the turn store (by session and cursor: the entry each went
    into); how many."""
    entries = {(e.session_key, e.cursor) for e in chosen}
    return turns.remove(workspace, lambda turn: (turn.session, turn.cursor) in entries, dry_run=dry_run)


def _finish_ingest(workspace: Workspace) -> None:
    """An ingest a crash interrupted is finished or undone before a segment of the turn store is rewritten, so
    its turns land where its journal says; an unreadable journal needs a person, as for ingest itself."""
    try:
        if ingest_journal.load(workspace) is None:
            return
    except IngestJournalUnreadable as exc:
        raise Refused(str(exc), exit_code=ExitCode.NEEDS_PERSON) from None
    seen = Seen(workspace)
    try:
        ingest_journal.recover(workspace, seen)
    finally:
        seen.close()


def _purge(workspace: Workspace, runs: set[str]) -> list[str]:
    gone = []
    for path in list_transcripts(workspace):
        if any(path.name.startswith(f"{run}-") for run in runs):
            path.unlink()
            gone.append(path.name)
    return gone
