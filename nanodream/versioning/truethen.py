"""Memory as of a day on history's clock: what a commit of that day held, corrected by what history says.

A commit's date says when memory changed; a history entry's date says when a fact became true. They disagree
whenever a dream runs late: a session of 26 April dreamed in December wrote a line `why` calls "true since
2026-04-26", though no commit of April held it; and a move said on 2 June and dreamed on 5 June left the old
address in the commits of 3 and 4 June. Memory as of a day follows `why`:

- a line of today's committed memory (HEAD) that the snapshot lacks counts as held that day when the dream that
  wrote it learned it from a history entry of that day or before (the entry `why` names: the consumed entry
  that mentions the fact most, `provenance.rank`); it is placed after the line it follows today;
- a line the snapshot holds is left out when the archive says it stopped being true on or before that day and
  that until-line was written after the snapshot's commit (an until-line the snapshot's own archive already
  had means the fact was learned again since).

Costs, only when HEAD is not the snapshot's commit and today's files hold lines the snapshot lacks: one `git
blame` per such file, one `git log` of the commits since the snapshot, one read of each dream's history range.
A line whose last change was not a dream (a pin, a hand edit) keeps its commit's date.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date

from nanodream.backlog.history import HistoryEntry, entry_day
from nanodream.rejected import fact_key, fact_text
from nanodream.validity import parse_validity
from nanodream.versioning.gitstore import GitStore, MemoryCommit
from nanodream.versioning.logview import consumed_entries
from nanodream.versioning.provenance import rank
from nanodream.workspace import ARCHIVE_PATH, CORE_FILES


@dataclass
class Corrected:
    """The snapshot's files on history's clock, and how many lines each rule moved."""

    files: dict[str, str]
    learned_later: list[str] = field(default_factory=list)  # "path: line" held that day by history's date
    ended: list[str] = field(default_factory=list)  # "path: line" no longer true that day


@dataclass
class _Dreams:
    """The commits since the snapshot, and the entries each dream consumed (read once per commit)."""

    store: GitStore
    head: str
    day: date
    commits: dict[str, MemoryCommit]
    entries: dict[str, list[HistoryEntry]] = field(default_factory=dict)

    def held(self, path: str, fresh: list[tuple[int, str]]) -> set[int]:
        """Which of today's `fresh` lines of `path` a dream learned from history of the day or before."""
        shas = self.store.line_commits(path, rev=self.head)
        return {number for number, line in fresh
                if (taught := self.taught_on(shas[number] if number < len(shas) else None, line)) is not None
                and taught <= self.day}

    def taught_on(self, sha: str | None, line: str) -> date | None:
        commit = self.commits.get(sha or "")
        if commit is None or commit.kind != "dream":
            return None
        if commit.sha not in self.entries:
            self.entries[commit.sha] = consumed_entries(self.store.workspace, commit.trailers)
        found = rank(self.entries[commit.sha], fact_text(line) or line)
        return entry_day(found[0].timestamp) if found else None


def on_history_clock(store: GitStore, day: date, taken: str | None, files: dict[str, str],
                     paths: tuple[str, ...]) -> Corrected:
    """`files` (the snapshot of commit `taken`, None: no commit by then) as they stood on `day` by history's dates;
    `paths` narrow which core files are answered (empty: all)."""
    head = store.head_sha() if store.exists else None
    corrected = Corrected(dict(files))
    if not head or head == taken:
        return corrected
    wanted = [path for path in CORE_FILES if not paths or path in paths]
    now = _texts(store, head, lambda path: path in wanted or bool(ARCHIVE_PATH.fullmatch(path)))
    then = _texts(store, taken, lambda path: bool(ARCHIVE_PATH.fullmatch(path))) if taken else {}
    ended = _ended_since(now, then, day)
    commits = store.memory_commits(rev=f"{taken}..{head}" if taken else head)
    dreams = _Dreams(store, head, day, {commit.sha: commit for commit in commits})
    for path in wanted:
        _correct(corrected, path, now.get(path), ended, dreams)
    return corrected


def _texts(store: GitStore, rev: str, keep: Callable[[str], bool]) -> dict[str, str]:
    tree = {path: blob for path, blob in store.tree_paths(rev).items() if keep(path)}
    data = store.blobs(list(tree.values()))
    return {path: data[blob].decode("utf-8", "replace") for path, blob in tree.items()}


def _ended_since(now: dict[str, str], then: dict[str, str], day: date) -> set[frozenset[str]]:
    """The facts today's archive says stopped being true by `day`, by until-lines the snapshot's archive lacks."""
    known = {line for text in then.values() for line in text.splitlines()}
    ended = set()
    for path, text in now.items():
        if not ARCHIVE_PATH.fullmatch(path):
            continue
        for line in text.splitlines():
            validity = parse_validity(line)
            if validity is not None and validity.until <= day and line not in known:
                ended.add(fact_key(validity.text))
    return ended


def _correct(corrected: Corrected, path: str, today: str | None, ended: set[frozenset[str]],
             dreams: _Dreams) -> None:
    """One file: the snapshot's lines that had ended left out, today's lines held that day put in."""
    before = corrected.files.get(path)
    lines = before.split("\n") if before is not None else []
    gone = [line for line in lines if fact_text(line) and fact_key(line) in ended]
    lines = [line for line in lines if line not in gone]
    today_lines = today.split("\n") if today is not None else []
    known = {fact_key(line) for line in lines if fact_text(line)}
    fresh = [(number, line) for number, line in enumerate(today_lines)
             if fact_text(line) and fact_key(line) not in known and parse_validity(line) is None]
    added = dreams.held(path, fresh) if fresh else set()
    if not gone and not added:
        return
    corrected.ended += [f"{path}: {line.strip()}" for line in gone]
    corrected.learned_later += [f"{path}: {today_lines[number].strip()}" for number in sorted(added)]
    merged = _merged(lines, today_lines, added) if before is not None else list(_skeleton(today_lines, added))
    corrected.files[path] = "\n".join(merged)


def _merged(lines: list[str], today: list[str], added: set[int]) -> list[str]:
    """`lines` with today's lines numbered `added` each put after the nearest line before it that `lines` hold
    (at the end when none does)."""
    present = set(lines)
    after: dict[str | None, list[str]] = {}
    anchor: str | None = None
    for number, line in enumerate(today):
        if number in added:
            after.setdefault(anchor, []).append(line)
        elif line in present and line.strip():
            anchor = line
    out: list[str] = []
    for line in lines:
        out.append(line)
        out += after.pop(line, [])
    tail = [line for group in after.values() for line in group]
    if tail and out and not out[-1].strip():
        return out[:-1] + tail + [out[-1]]
    return out + tail


def _skeleton(today: list[str], added: set[int]) -> Iterator[str]:
    """A file the snapshot did not have: today's headings around the lines held that day."""
    blank = False
    for number, line in enumerate(today):
        if number in added or line.lstrip().startswith("#"):
            yield line
            blank = False
        elif not line.strip() and not blank:
            yield line
            blank = True
