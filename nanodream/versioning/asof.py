"""Memory as it stood on a day: the memory files of the last commit made on or before it, by committer date.

Git's clock is when memory changed (history's is when a fact was said): a commit made late on a day, in the
workspace's time zone, still counts for that day. Commits keep honouring GIT_AUTHOR_DATE and
GIT_COMMITTER_DATE (a back-dated history reads back as dated). One `git log` finds the commit and one `git
ls-tree` plus one `git cat-file --batch` read its files, however long the history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo

from nanodream import clock
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import ARCHIVE_PATH, CORE_FILES, SKILL_PATH


@dataclass(frozen=True)
class Snapshot:
    """The memory files of one commit: `commit` and its committer `time` are None when nothing was committed
    by then (memory did not exist yet, so `files` is empty)."""

    day: date
    commit: str | None = None
    time: str | None = None
    files: dict[str, str] = field(default_factory=dict)  # workspace-relative path → text


def is_memory_file(path: str) -> bool:
    """A file memory is made of: a core file, a skill, an archive month."""
    return path in CORE_FILES or bool(SKILL_PATH.match(path) or ARCHIVE_PATH.fullmatch(path))


def end_of(day: date, zone: tzinfo) -> datetime:
    """The last second of `day` where the workspace keeps its time."""
    return datetime.combine(day + timedelta(days=1), time(), zone) - timedelta(seconds=1)


def snapshot(store: GitStore, day: date, zone: tzinfo, paths: tuple[str, ...] = ()) -> Snapshot:
    """The memory files (only `paths`, when given) as the last commit on or before `day` left them (a day still
    to come: as they are now, which git can also tell for a day past its own calendar)."""
    found = store.commit_before(min(end_of(day, zone), clock.now(zone)))
    if found is None:
        return Snapshot(day)
    sha, when = found
    tree = {path: blob for path, blob in store.tree_paths(sha).items()
            if (path in paths if paths else is_memory_file(path))}
    data = store.blobs(list(tree.values()))
    files = {path: data[blob].decode("utf-8", "replace") for path, blob in sorted(tree.items())}
    return Snapshot(day, sha, when, files)
