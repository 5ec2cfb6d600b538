"""Memory as it stood on a day: the memory files of the last commit made on or before it, by committer date,
then corrected on history's clock (versioning/truethen.py).

Git's clock is when memory changed (history's is when a fact was said): a commit made late on a day, in the
workspace's time zone, still counts for that day. Commits keep honouring GIT_AUTHOR_DATE and
GIT_COMMITTER_DATE (a back-dated history reads back as dated). One `git log` finds the commit and one `git
ls-tree` plus one `git cat-file --batch` read its files, however long the history. Where a later dream learned a
fact from history of that day or before, or archived one as ended by then, the day's files say so, as `why`
does. Any valid day is answered: one still to come reads memory as it is now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, tzinfo

from nanodream import clock
from nanodream.versioning.gitstore import GitStore
from nanodream.versioning.truethen import on_history_clock
from nanodream.workspace import ARCHIVE_PATH, CORE_FILES, SKILL_PATH


@dataclass(frozen=True)
class Snapshot:
    """The memory files of one commit: `commit` and its committer `time` are None when nothing was committed
    by then (memory did not exist yet, so `files` is empty)."""

    day: date
    commit: str | None = None
    time: str | None = None
    files: dict[str, str] = field(default_factory=dict)  # workspace-relative path → text
    head: str | None = None  # the commit whose history-dated lines corrected `files` (None: none needed)
    learned_later: tuple[str, ...] = ()  # "path: line" a later dream learned from history of the day or before
    ended: tuple[str, ...] = ()  # "path: line" the commit held that had stopped being true by the day


def is_memory_file(path: str) -> bool:
    """A file memory is made of: a core file, a skill, an archive month."""
    return path in CORE_FILES or bool(SKILL_PATH.match(path) or ARCHIVE_PATH.fullmatch(path))


def end_of(day: date, zone: tzinfo) -> datetime:
    """The last second of `day` where the workspace keeps its time (9999-12-31 has one too: no next day is
    reckoned)."""
    return datetime.combine(day, time(23, 59, 59), zone)


def snapshot(store: GitStore, day: date, zone: tzinfo, paths: tuple[str, ...] = ()) -> Snapshot:
    """The memory files (only `paths`, when given) as the last commit on or before `day` left them (a day still
    to come: as they are now, which git can also tell for a day past its own calendar), corrected by what later
    dreams learned history said by then."""
    found = store.commit_before(min(end_of(day, zone), clock.now(zone)))
    sha, when = found if found is not None else (None, None)
    files: dict[str, str] = {}
    if sha is not None:
        tree = {path: blob for path, blob in store.tree_paths(sha).items()
                if (path in paths if paths else is_memory_file(path))}
        data = store.blobs(list(tree.values()))
        files = {path: data[blob].decode("utf-8", "replace") for path, blob in sorted(tree.items())}
    if paths and not set(paths) & set(CORE_FILES):
        return Snapshot(day, sha, when, files)
    corrected = on_history_clock(store, day, sha, files, paths)
    return Snapshot(day, sha, when, corrected.files, store.head_sha() if store.exists else None,
                    tuple(corrected.learned_later), tuple(corrected.ended))
