"""`nanodream why`: which commit wrote a memory line, for a dream the history entries behind it, and its life.

One `git blame` of one line (`-M -C`: a line moved within its file, or into the archive by the same
commit, is still credited to the commit that first wrote it), one `git log -1` and one read of the
dream's byte range of history.jsonl: the answer costs the same on a long history as on a short one. A
commit that only changed how the line looks — a pin or unpin, a marker or bullet added by hand, a
reorder — is looked through (one more blame each), so the answer is the commit that wrote the fact.

A line's life, on history's clock: the day it became true (the entry that taught it, or the `from` of its
until-form), the day it stopped (its `until`) and what replaced it, and the facts it replaced (archive lines
naming it as their successor: one read of each archive month). For a replaced line the commit is the one
that archived it, and `first_written` the one that first wrote the fact (one `git log -S`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from nanodream.atomic import read_bytes, read_text
from nanodream.backlog.history import HistoryEntry, entry_day
from nanodream.pinning import file_lines, find_lines
from nanodream.rejected import fact_key, fact_text
from nanodream.validity import parse_validity
from nanodream.versioning.commitmsg import commit_kind
from nanodream.versioning.gitstore import GitStore, LineOrigin
from nanodream.versioning.logview import consumed_entries, shown_entry
from nanodream.vocab import Declared, Trailers, count
from nanodream.workspace import ARCHIVE_DIR, ARCHIVE_PATH, CORE_FILES, REJECTED_FILE, PathRefused, Workspace

_WORD = re.compile(r"[a-z0-9]+")
MIN_SHARE = 0.5  # an entry "mentions" a line when it holds at least half of the line's meaningful words


class NotFound(Exception):
    """Nothing in memory matches; the message says so calmly."""


@dataclass
class WhyReport(Declared):
    """The stable JSON shape of `why --json` (docs/json.md)."""

    commit: str | None  # None: the line is a hand edit not committed yet
    kind: str  # dream | manual | restore | init | other | uncommitted
    time: str | None
    file: str
    line: int
    text: str
    subject: str = ""
    entries: list[dict[str, Any]] = field(default_factory=list)  # line, cursor, session_key, timestamp, text
    became_true: str | None = None  # YYYY-MM-DD: the history entry that taught it (or its until-form's `from`)
    until: str | None = None  # YYYY-MM-DD it stopped being true: a replaced line of the archive; None while current
    replaced_by: str = ""  # what replaced it ("" while current, or when nothing took its place)
    replaced: list[dict[str, Any]] = field(default_factory=list)  # facts it replaced: text, since, until, file, line
    first_written: dict[str, str] | None = None  # a replaced fact's first commit: {"commit", "time"}
    insights: list[dict[str, Any]] = field(default_factory=list)  # cite it: insight, status, relation, weight, reason
    machine: str | None = None  # the machine that made the commit (its Machine: trailer; None: before machines)


def why(workspace: Workspace, query: str) -> WhyReport:
    """Answer for `FILE:LINE` when FILE is an existing memory file, else for the memory line holding `query`."""
    path, number, text = _locate(workspace, query)
    store = GitStore(workspace)
    committed = store.exists and store.head_sha()
    sha = _writer(workspace, store, path, number, text) if committed else None
    if sha is None:
        report = WhyReport(None, "uncommitted", None, path, number, text)
    else:
        commit = store.commit_info(sha)
        report = WhyReport(sha, commit.kind, commit.time, path, number, text, commit.subject,
                           machine=commit.trailers.machine)
        if commit.kind == "dream":
            entries = consumed_entries(workspace, commit.trailers)
            report.entries = [_entry(e) for e in rank(entries, _asked_fact(path, text))]
    _life(workspace, store if committed else None, report)
    return report


def _asked_fact(path: str, text: str) -> str:
    """What the entries behind a line mention: its fact, or for a replaced line what replaced it (the dream that
    archived it read that)."""
    validity = parse_validity(text) if path.startswith(f"{ARCHIVE_DIR}/") else None
    if validity is not None:
        return validity.successor or validity.text
    return fact_text(text) or text


def _life(workspace: Workspace, store: GitStore | None, report: WhyReport) -> None:
    """When the line's fact became true, when it stopped and what replaced it, and what it replaced."""
    validity = parse_validity(report.text) if report.file.startswith(f"{ARCHIVE_DIR}/") else None
    if validity is not None:
        report.until, report.replaced_by = validity.until.isoformat(), validity.successor
        report.became_true = validity.since.isoformat() if validity.since else None
        report.first_written = _first_written(store, validity.text) if store is not None else None
        return
    taught = entry_day(report.entries[0]["timestamp"]) if report.entries else None
    report.became_true = taught.isoformat() if taught else None
    report.replaced = _replaced_by_line(workspace, fact_text(report.text))


def _replaced_by_line(workspace: Workspace, fact: str) -> list[dict[str, Any]]:
    """The archive's replaced facts whose successor is `fact` (the same words), oldest month first."""
    key = fact_key(fact)
    found = []
    for path in _archive_months(workspace):
        lines = read_bytes(workspace.root / path).decode("utf-8", errors="replace").splitlines()
        for number, line in enumerate(lines, start=1):
            validity = parse_validity(line)
            if validity is not None and key and fact_key(validity.successor) == key:
                found.append({"text": validity.text, "since": validity.since.isoformat() if validity.since else None,
                              "until": validity.until.isoformat(), "file": path, "line": number})
    return found


def _first_written(store: GitStore, fact: str) -> dict[str, str] | None:
    """The commit that first wrote `fact` into a core file, and its time; None when git has no such commit."""
    found = store.first_commit_adding(fact, list(CORE_FILES))
    return {"commit": found[0], "time": found[1]} if found else None


def taught_on(store: GitStore, path: str, number: int, text: str) -> date | None:
    """The day of the history entry that taught line `number` of `path`, when a dream wrote it (else None)."""
    sha = _writer(store.workspace, store, path, number, text)
    if sha is None:
        return None
    return _day_taught(store.workspace, store.commit_info(sha).message, text)


def taught_days(store: GitStore, lines: Sequence[tuple[str, int, str]]) -> dict[tuple[str, int], date | None]:
    """`taught_on` for many lines (path, 1-based number, text) at once, as a batch's replaced facts ask it: one
    blame per file of all its lines asked about, one `cat-file --batch` for the commits blamed and their parents'
    files. A line whose writer only re-marked a fact its parent already held is looked through one line at a
    time, as `why` does (a pin, an unpin: rare)."""
    origins: dict[tuple[str, int], LineOrigin | None] = {}
    for path in dict.fromkeys(path for path, _, _ in lines):
        numbers = [number for each, number, _ in lines if each == path]
        origins.update({(path, number): found for number, found in store.line_origins(path, numbers).items()})
    blamed = [found for found in origins.values() if found is not None]
    objects = store.read_objects([name for found in blamed for name in (found.sha, f"{found.sha}^:{found.path}")])
    days: dict[tuple[str, int], date | None] = {}
    for path, number, text in lines:
        found = origins.get((path, number))
        if found is None:
            days[(path, number)] = None
        elif _fact(text) and _states(objects.get(f"{found.sha}^:{found.path}"), _fact(text)):
            days[(path, number)] = taught_on(store, path, number, text)
        else:
            days[(path, number)] = _day_taught(store.workspace, _message(objects.get(found.sha)), text)
    return days


def _states(data: bytes | None, fact: str) -> bool:
    return data is not None and any(_fact(line) == fact for line in data.decode("utf-8", "replace").split("\n"))


def _message(raw: bytes | None) -> str:
    """A raw commit object's message (what follows its headers)."""
    return raw.decode("utf-8", "replace").partition("\n\n")[2] if raw else ""


def _day_taught(workspace: Workspace, message: str, text: str) -> date | None:
    """The day of the entry a dream commit (by its message) consumed that mentions `text` best; None otherwise."""
    if commit_kind(message) != "dream":
        return None
    entries = rank(consumed_entries(workspace, Trailers.parse(message)), fact_text(text) or text)
    return entry_day(entries[0].timestamp) if entries else None


def rank(entries: list[HistoryEntry], fact: str) -> list[HistoryEntry]:
    """The entries that mention `fact`: whole-text matches first, then by the share of its words they hold."""
    needle = " ".join(fact.lower().split())
    words = {w for w in _WORD.findall(needle) if len(w) > 2} or set(_WORD.findall(needle))
    scored = []
    for entry in entries:
        content = " ".join(entry.content.lower().split())
        exact = needle in content
        share = len(words & set(_WORD.findall(content))) / len(words) if words else 0.0
        if exact or share >= MIN_SHARE:
            scored.append((not exact, -share, entry.line, entry))
    return [item[-1] for item in sorted(scored, key=lambda item: item[:3])]


def _entry(entry: HistoryEntry) -> dict[str, Any]:
    return {"line": entry.line, "cursor": entry.cursor, "session_key": entry.session_key,
            "timestamp": entry.timestamp, "text": shown_entry(entry).content}


def _locate(workspace: Workspace, query: str) -> tuple[str, int, str]:
    """(path, 1-based line, text) of the line asked about; NotFound when there is none."""
    head, sep, tail = query.rpartition(":")
    if sep and tail.strip().isdigit() and _is_memory_file(workspace, head):
        lines = file_lines(read_text(workspace.root / head))
        number = int(tail)
        if not 1 <= number <= len(lines):
            raise NotFound(f"{head} has {count(len(lines), 'line')}; there is no line {number}")
        return head, number, lines[number - 1]
    if not " ".join(query.split()):
        raise NotFound("give some text of a memory line, or FILE:LINE")
    matches = find_lines(workspace, query) + _archive_matches(workspace, query)
    matches += find_lines(workspace, query, REJECTED_FILE) if (workspace.root / REJECTED_FILE).is_file() else []
    if not matches:
        raise NotFound(f"no memory line holds {query!r}; nothing to explain")
    wanted = " ".join(query.lower().split())
    best = next((m for m in matches if " ".join(fact_text(m.text).lower().split()) == wanted), matches[0])
    return best.path, best.line, best.text


def _is_memory_file(workspace: Workspace, path: str) -> bool:
    if path == REJECTED_FILE:
        return (workspace.root / path).is_file() and not (workspace.root / path).is_symlink()
    try:
        workspace.check_memory_path(path, archive=True)
    except PathRefused:
        return False
    return (workspace.root / path).is_file()


def _archive_matches(workspace: Workspace, query: str) -> list:
    return [m for path in _archive_months(workspace) for m in find_lines(workspace, query, path)]


def _archive_months(workspace: Workspace) -> list[str]:
    folder = workspace.root / ARCHIVE_DIR
    if not folder.is_dir() or folder.is_symlink():
        return []
    months = sorted(f"{ARCHIVE_DIR}/{p.name}" for p in folder.glob("*.md") if not p.is_symlink())
    return [path for path in months if ARCHIVE_PATH.fullmatch(path)]


# How many commits that kept a line's fact (a pin, an unpin, a move, a new bullet) `why` looks through.
MAX_SEE_THROUGH = 20


def _writer(workspace: Workspace, store: GitStore, path: str, number: int, text: str) -> str | None:
    """The commit that wrote the fact line `number` states, following moves; None while it is uncommitted.

    A commit whose parent already stated the fact changed only how the line looks (nanodream's pin and unpin,
    a marker or bullet added by hand, a reorder): blame looks past it, for as long as the older version of
    the line states the same fact.
    """
    fact = _fact(text)
    ignored: list[str] = []
    writer: str | None = None
    for _ in range(MAX_SEE_THROUGH):
        blamed = store.line_origin(path, number, ignored)
        if blamed is None or blamed.sha in ignored or (writer and _fact(_line_at(store, blamed)) != fact):
            break  # uncommitted, nothing older to credit, or git mapped it to a line that said something else
        writer = blamed.sha
        if not fact or not _parent_states(store, blamed, fact):
            break
        ignored.append(blamed.sha)
    return writer


def _fact(line: str) -> str:
    return " ".join(fact_text(line).lower().split())


def _line_at(store: GitStore, blamed: LineOrigin) -> str:
    lines = _lines_of(store, blamed.sha, blamed.path)
    return lines[blamed.line - 1] if 0 < blamed.line <= len(lines) else ""


def _parent_states(store: GitStore, blamed: LineOrigin, fact: str) -> bool:
    """Whether the commit's parent already held a line stating `fact` in the same file."""
    return any(_fact(line) == fact for line in _lines_of(store, f"{blamed.sha}^", blamed.path))


def _lines_of(store: GitStore, rev: str, path: str) -> list[str]:
    data = store.file_at(rev, path)  # None for the first commit's parent, or a file it did not have
    return data.decode("utf-8", "replace").split("\n") if data is not None else []
