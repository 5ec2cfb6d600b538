"""What `log`, `show` and the slash commands tell a person about memory commits: read-only and fast.

Everything comes from the commit itself (the real diff and the trailers), never from anyone's memory of
the run; the history entries a dream consumed are looked up in history.jsonl by the commit's cursor range and
shown as memory would hold them: credentials redacted (`shown_entry`), for every view that lists them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from nanodream.backlog.history import HistoryEntry, iter_after, marked_languages, read_from
from nanodream.versioning.commitmsg import message_summary
from nanodream.versioning.gitstore import GitStore, MemoryCommit, UnknownCommit, made_here
from nanodream.vocab import BUILTIN_MODEL, Declared, Trailer, Trailers
from nanodream.workspace import Workspace


@dataclass
class CommitSummary(Declared):
    """One line of `log`: the stable JSON shape documented in docs/review.md."""

    sha: str
    short: str
    kind: str  # dream | manual | restore | init | other
    time: str
    author: str
    subject: str
    files: list[dict[str, Any]]  # {"path", "added", "removed"} from the real diff; counts null when binary
    history: dict[str, int] | None  # {"first", "last"}: the history cursor range a dream consumed
    lines: dict[str, int] | None  # {"first", "last"}: the lines of history.jsonl it consumed (newer dreams)
    tokens: dict[str, int | None] | None  # {"in", "out", "cached"}; cached is null for commits that do not say
    cost: float | None
    run: str | None
    model: str | None
    restores: str | None  # for a restore: the sha it undid
    cursor_reset: int | None  # for a replaying restore: where it set the cursor back to
    machine: str | None  # the machine that made it (its Machine: trailer); None for a commit from before
    # sessions that failed as too big on the entries a dream consumed, before it: {"sessions", "requests", "in",
    # "out", "bytes"} (run/sizing.py); null when none did
    failed: dict[str, int] | None = None
    sessions: list[str] = field(default_factory=list)  # a dream whose batch took several sessions: their modes


@dataclass
class CommitDetail(CommitSummary):
    """`show`: the summary line plus the words, the consumed history and the diff."""

    message: str = ""
    summary: str = ""
    history_entries: list[dict[str, Any]] = field(default_factory=list)
    diff: str = ""


def summarize(commit: MemoryCommit) -> CommitSummary:
    trailers = commit.trailers
    span, tokens, lines = trailers.cursor_range, trailers.tokens, trailers.line_range
    return CommitSummary(
        sha=commit.sha, short=commit.sha[:8], kind=commit.kind, time=commit.time, author=commit.author,
        subject=commit.subject,
        files=[{"path": f.path, "added": f.added, "removed": f.removed} for f in commit.files],
        history={"first": span[0], "last": span[1]} if span else None,
        lines={"first": lines[0], "last": lines[1]} if lines else None,
        tokens={"in": tokens[0], "out": tokens[1], "cached": trailers.cached_tokens} if tokens else None,
        cost=trailers.cost, run=trailers.get(Trailer.RUN), model=trailers.get(Trailer.MODEL),
        restores=trailers.get(Trailer.RESTORES), cursor_reset=trailers.cursor_reset, machine=trailers.machine,
        failed=trailers.failed, sessions=trailers.sessions,
    )


def memory_log(workspace: Workspace, limit: int | None = 20, kind: str | None = None) -> list[CommitSummary]:
    """Commits newest first; `kind` keeps only dream, manual or restore commits."""
    return [summarize(c) for c in GitStore(workspace).memory_commits(limit, kind=kind)]


def commit_detail(workspace: Workspace, ref: str | None = None) -> CommitDetail:
    """One commit in full; without `ref`, the latest dream. Raises UnknownCommit with a helpful message."""
    store = GitStore(workspace)
    if ref is None:
        dreams = store.memory_commits(1, kind="dream")
        if not dreams:
            raise UnknownCommit("no dream commits yet: a run commits only when it changes memory; `nanodream "
                                "status` shows how the last runs went and what waits (`nanodream run` to dream)")
        commit = dreams[0]
    else:
        commit = store.commit_info(store.resolve_commit(ref))
    detail = CommitDetail(**asdict(summarize(commit)), message=commit.message,
                          summary=message_summary(commit.message), diff=store.commit_diff(commit.sha))
    detail.history_entries = [asdict(shown_entry(e)) for e in consumed_entries(workspace, commit.trailers)]
    return detail


def shown_entry(entry: HistoryEntry) -> HistoryEntry:
    """A history entry as a view may show it: what the secret guard would keep out of memory is redacted."""
    from nanodream.safety.secret_scan import redacted  # detect-secrets: `log` and `status` read this module too

    return replace(entry, content=redacted(entry.content))


def consumed_entries(workspace: Workspace, trailers: Trailers) -> list[HistoryEntry]:
    """The entries a dream consumed that are still in history.jsonl: by byte range, or by cursor for old dreams.
    None for a dream another machine made: it consumed that machine's history, which never travels. A built-in
    dream passed over the entries ingest left for a model (they wait, docs/builtin-engine.md): not among them."""
    if not made_here(workspace, trailers):
        return []
    offsets, lines = trailers.offset_range, trailers.line_range
    if offsets is not None and lines is not None:
        entries = _by_offset(workspace, offsets, lines[0])
    else:
        span = trailers.cursor_range
        entries = _by_cursor(workspace, *span) if span is not None else []
    if trailers.get(Trailer.MODEL) == BUILTIN_MODEL:
        return [entry for entry in entries if marked_languages(entry.content) is None]
    return entries


def _by_offset(workspace: Workspace, offsets: tuple[int, int], first_line: int) -> list[HistoryEntry]:
    path = workspace.history_file
    if not path.is_file() or path.stat().st_size < offsets[1]:
        return []  # rewritten or rotated since: the bytes there are other entries now
    entries = []
    stream = read_from(path, offsets[0], first_line - 1)
    for item in stream:
        if item.offset >= offsets[1]:
            break
        if isinstance(item, HistoryEntry):
            entries.append(item)
    stream.close()
    return entries


def _by_cursor(workspace: Workspace, first: int, last: int) -> list[HistoryEntry]:
    entries = []
    stream = iter_after(workspace.history_file, first - 1)
    for entry in stream:
        if entry.cursor > last:
            break
        entries.append(entry)
    stream.close()
    return entries
