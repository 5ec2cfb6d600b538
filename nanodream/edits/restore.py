"""Undo a memory commit as a new commit: history is never rewritten and a person's edits are never lost.

The undo takes the commit's own lines out of today's files one by one (see linerevert.py), entirely
before anything is written, so a conflict — a later change to the very same lines — is refused with the
workspace untouched. The result is applied through the same write-ahead
journal as a dream, so a crash mid-restore is finished by the next run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from nanodream import clock
from nanodream.backlog.history import read_cursor
from nanodream.backlog.position import Position, from_cursor, position_at_offset
from nanodream.changes import FileChange
from nanodream.edits.hypotheses import stale_where_reverted
from nanodream.edits.shared import as_text, committed, on_disk, through_door
from nanodream.memory import transaction
from nanodream.memory.door import Door
from nanodream.rejected import fact_key, with_rejected
from nanodream.versioning.commitmsg import change_line, restore_message
from nanodream.versioning.gitstore import GitStore, MemoryCommit, UnknownCommit, made_here
from nanodream.versioning.linerevert import revert_lines
from nanodream.vocab import ExitCode, Outcome, Refused, Report, new_run_id
from nanodream.workspace import ARCHIVE_DIR, CORE_FILES, REJECTED_FILE, Workspace

Plan = dict[str, tuple[bytes | None, bytes | None]]  # path → (on disk now, after the restore)


@dataclass
class RestoreReport(Report):
    """What `restore` did (docs/json.md): outcome restored | nothing-to-do | refused | busy | blocked."""

    mode: str = "undo"
    replay: bool = False
    target: str = ""
    target_kind: str = ""
    target_subject: str = ""
    commit: str | None = None
    manual_commit: str | None = None
    changes: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # facts recorded in memory/rejected.md
    cursor_before: int = 0
    cursor_after: int = 0
    recovered: str = ""


def restore_commit(workspace: Workspace, ref: str, *, before: bool = False, replay: bool = False) -> RestoreReport:
    """Undo commit `ref` (or, with `before`, set every memory file back to just before it) as a new commit.

    The cursor stays where it is unless `replay`: the person rejected those changes, so the next dream
    must not read the same history again and re-add them.
    """
    report = RestoreReport(outcome=Outcome.REFUSED, mode="before" if before else "undo", replay=replay)
    report.cursor_before = report.cursor_after = read_cursor(workspace.cursor_file)
    try:
        if not GitStore(workspace).head_sha():
            raise Refused(f"{workspace.root} has no memory history yet", "run `nanodream init` or a first dream",
                          ExitCode.USAGE)
    except Refused as exc:
        report.refuse(exc)
        return report
    through_door(workspace, report, lambda door: _restore(door, ref, report))
    report.cursor_after = read_cursor(workspace.cursor_file)
    return report


def _restore(door: Door, ref: str, report: RestoreReport) -> None:
    workspace, store = door.workspace, door.store
    report.cursor_before = read_cursor(workspace.cursor_file)
    try:
        target = store.commit_info(store.resolve_commit(ref))
    except UnknownCommit as exc:
        raise Refused(str(exc), "`nanodream log` lists the commits you can restore", ExitCode.USAGE) from None
    short = target.sha[:8]
    report.target, report.target_kind, report.target_subject = target.sha, target.kind, target.subject
    if not target.parents:
        raise Refused(f"{short} is the first commit of the memory history; there is nothing before it",
                      exit_code=ExitCode.USAGE)
    if len(target.parents) > 1:
        raise Refused(f"{short} is a merge commit; restore one of the commits it merged instead",
                      exit_code=ExitCode.USAGE)
    replay = _replay_position(workspace, target) if report.replay else None

    plan = _before_plan(store, target) if report.mode == "before" else _undo_plan(store, target, report)
    if report.mode == "undo":
        _stale_reverted(plan)
    if report.mode == "undo" and not report.replay and target.kind == "dream":
        _record_rejected(store, target, plan, report)
    changes = [FileChange(path, as_text(path, old), as_text(path, new)) for path, (old, new) in sorted(plan.items())]
    if not changes:
        report.outcome = Outcome.NOTHING_TO_DO
        report.reason = f"the memory files already match; the changes of {short} are undone"
        return

    message = restore_message(target_sha=target.sha, target_kind=target.kind, target_subject=target.subject,
                              mode=report.mode, changes=changes, replay=replay)
    progress = transaction.Progress(replay, reset=True) if replay is not None else transaction.Progress()
    report.commit = committed(door, f"restore-{new_run_id()}", message, changes, progress)
    report.changes = [change_line(c) for c in changes]
    report.outcome = Outcome.RESTORED


def _replay_position(workspace: Workspace, target: MemoryCommit) -> Position:
    """The history position just before the batch `target` consumed, so the next run reads that batch again."""
    trailers = target.trailers
    span, offsets = trailers.cursor_range, trailers.offset_range
    if target.kind != "dream" or span is None:
        raise Refused(f"--replay needs a dream commit with a history range; {target.sha[:8]} is a {target.kind} "
                      "commit", "restore it without --replay", ExitCode.USAGE)
    if not made_here(workspace, trailers):
        raise Refused(f"{target.sha[:8]} was dreamed on {trailers.machine or 'another machine'} from its own history, "
                      "which never travels: there is no batch here to consume again", "restore it without --replay",
                      ExitCode.USAGE)
    if offsets is None:  # a dream from before positions: its cursor range is all there is
        return from_cursor(workspace.history_file, span[0] - 1)
    position = position_at_offset(workspace.history_file, offsets[0])
    if position is None:
        raise Refused(f"history.jsonl no longer holds the lines {target.sha[:8]} consumed (rewritten or rotated)",
                      "restore it without --replay")
    return position


def _undo_plan(store: GitStore, target: MemoryCommit, report: RestoreReport) -> Plan:
    """Revert the commit's own changes onto what is on disk now; record every path that conflicts."""
    at_target = store.tree_paths(target.sha)
    at_parent = store.tree_paths(target.parents[0])
    plan: Plan = {}
    for stat in target.files:
        path = stat.path
        base = store.blob(at_target[path]) if path in at_target else None
        theirs = store.blob(at_parent[path]) if path in at_parent else None
        ours = on_disk(store.workspace, path)
        if ours in (base, theirs):
            result = theirs
        elif None in (ours, base, theirs):
            report.conflicts.append(f"{path}: {'deleted' if ours is None else 'changed'} by a later commit")
            continue
        else:
            undone = revert_lines(ours, base, theirs)
            if undone.result is None:
                report.conflicts.append(f"{path}: " + "; ".join(undone.conflicts))
                continue
            result = undone.result
        if result != ours:
            plan[path] = (ours, result)
    if report.conflicts:
        short = target.sha[:8]
        raise Refused(f"cannot undo {short} alone: " + "; ".join(report.conflicts),
                      f"`nanodream restore {short} --before` sets every memory file back to just before {short} "
                      "(undoing later changes to them too)")
    return plan


def _stale_reverted(plan: Plan) -> None:
    """An undo that takes a sighting away from a hypothesis leaves it stale, not silently weaker."""
    for path, (old, new) in plan.items():
        if path in CORE_FILES and old is not None and new is not None:
            before, after = old.decode("utf-8", "surrogateescape"), new.decode("utf-8", "surrogateescape")
            plan[path] = (old, stale_where_reverted(before, after, clock.today()).encode("utf-8", "surrogateescape"))


def _record_rejected(store: GitStore, target: MemoryCommit, plan: Plan, report: RestoreReport) -> None:
    """A plain undo of a dream rejects the facts it takes out: the ledger joins the plan, in the same commit.

    Only the core files' lines count: a skill's steps and front matter are not facts to keep out, and neither is
    a fact the undo leaves in the file in another form (a hypothesis put back to an older count).
    """
    taken = []
    for path, (old, new) in sorted(plan.items()):
        if path in CORE_FILES:
            kept = Counter((new or b"").splitlines())
            staying = {fact_key(line.decode("utf-8", "replace")) for line in kept}
            for line in (old or b"").splitlines():
                if kept[line] > 0:
                    kept[line] -= 1
                elif fact_key(line.decode("utf-8", "replace")) not in staying:
                    taken.append((path, line.decode("utf-8", "replace")))
    current = on_disk(store.workspace, REJECTED_FILE)
    note = f"restore of {target.sha[:8]}, {clock.today().isoformat()}"
    ledger, report.rejected = with_rejected(current.decode("utf-8", "replace") if current else None, taken, note)
    if ledger is not None:
        plan[REJECTED_FILE] = (current, ledger.encode("utf-8"))


def _before_plan(store: GitStore, target: MemoryCommit) -> Plan:
    """Every memory file as it was at the target's parent; files created since are removed."""
    at_parent = store.tree_paths(target.parents[0])
    paths = set(at_parent) | set(store.tree_paths("HEAD")) | set(store.dirty_paths())
    plan: Plan = {}
    for path in sorted(p for p in paths if _is_memory_path(p)):
        wanted = store.blob(at_parent[path]) if path in at_parent else None
        ours = on_disk(store.workspace, path)
        if wanted != ours:
            plan[path] = (ours, wanted)
    return plan


def _is_memory_path(path: str) -> bool:
    """What `--before` resets: the memory itself, not the prompt override or the configuration."""
    return path in CORE_FILES or path.startswith(("skills/", f"{ARCHIVE_DIR}/"))
