"""What `status` reports: cheap reads only, and never an import of litellm."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from nanodream.backlog.deadletters import in_file, load_dead_letters
from nanodream.backlog.history import Position, Survey, read_cursor
from nanodream.backlog.position import resume
from nanodream.backlog.quarantine import QuarantineUnreadable, load_quarantine
from nanodream.backlog.surveyed import survey_of
from nanodream.backlog.waiting import WaitingUnreadable, by_language, count_waiting
from nanodream.config import Settings
from nanodream.ingest.overview import ingest_overview
from nanodream.insights.shelf import tally
from nanodream.prompting.prompt_override import active_prompt
from nanodream.run import sizing
from nanodream.run.cascade import out_of_date
from nanodream.run.records import read_records
from nanodream.scheduling.timetable import next_scheduled
from nanodream.versioning.gitrunner import repository_programs
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import FAILURES, SUCCEEDED, Declared, RunRecord
from nanodream.workspace import ARCHIVE_DIR, Workspace


@dataclass
class Status(Declared):
    workspace: str
    model: str
    cursor: int
    pending_entries: int
    last_history_cursor: int
    malformed_lines: int
    last_commit: str | None
    last_commit_subject: str
    prompt_source: str
    interrupted_run: bool
    last_success: dict[str, Any] | None
    last_failure: dict[str, Any] | None
    quarantine: list[dict[str, Any]]
    quarantine_error: str
    schedule: dict[str, Any] | None
    position: dict[str, int]  # {"line", "offset", "cursor"}: how far history.jsonl has been consumed
    notice: str  # how reading will resume when that had to be worked out (upgrade, rewritten file)
    dead_letters: list[dict[str, Any]]  # unacknowledged malformed lines: {"line", "reason"}
    anomalies: list[str]  # cursor anomalies waiting in the backlog and those the last run met
    entry_outcomes: dict[str, Any]  # {"counts": {outcome: n}, "latest": [...]}: entries not consumed normally
    fill: dict[str, dict[str, int]]  # active file → {"chars", "cap"}: how close each is to its cap
    archive: dict[str, int]  # {"files", "chars"} of memory/archive/: what moved out under pressure
    last_dream: dict[str, Any] | None  # the newest dream commit, in `log --json`'s shape
    proposals: dict[str, int]  # review lane: {"pending", "conflicted"} proposals on refs/nanodream/pending
    # transcript sources: {"sources": [{"path", "format", watermark totals, "files": [...]}], "last_pass", ...}
    ingest: dict[str, Any] = field(default_factory=dict)
    # active lines naming the old value of a replaced fact: {"file", "line", "text", "fact", "changed_on",
    # "replaced_by", "message"} (run/cascade.py), newest change first
    out_of_date: list[dict[str, Any]] = field(default_factory=list)
    insights: dict[str, int] = field(default_factory=dict)  # status → how many (docs/insights.md), and "broken"
    # what the repository configures that would run a program, never obeyed: [{"key", "origin", "runs"}]
    git_ignored: list[dict[str, str]] = field(default_factory=list)
    linked_skills: list[str] = field(default_factory=list)  # skills reached through a link: left alone
    # history entries the built-in rules cannot read, which wait for a model (backlog/waiting.py): how many, by
    # language; not counted in pending_entries. A run with a model takes them first.
    waiting_for_model: int = 0
    waiting_languages: dict[str, int] = field(default_factory=dict)
    waiting_error: str = ""  # .nanodream/waiting.json cannot be read: what to do
    # sessions a cap stopped on a batch too big, whose entries wait to be dreamed in a smaller one (run/sizing.py):
    # {"first_line", "last_line", "entries", "cause", "requests", "tokens_in", "tokens_out", "request_bytes", ...}
    failed_sessions: list[dict[str, Any]] = field(default_factory=list)


# Entries not consumed normally that `status` lists (counts cover every recent record).
LATEST_NOTABLE = 50


def workspace_status(workspace: Workspace, settings: Settings) -> Status:
    cursor = read_cursor(workspace.cursor_file)
    resumed = resume(workspace)
    # When no place in a rewritten history can be trusted, any line of it may be unread: count them all.
    start = Position() if resumed.needs_person else resumed.position
    backlog = survey_of(workspace, start, settings.max_cursor_jump, keep=False)
    store = GitStore(workspace)
    sha = subject = None
    if store.exists:
        sha = store.head_sha()
        subject = store.head_message().splitlines()[0] if sha else None
    records = read_records(workspace, limit=200)
    successes = [r.to_json() for r in records if r.outcome in SUCCEEDED]
    failures = [r.to_json() for r in records if r.outcome in FAILURES]
    try:
        quarantine, quarantine_error = [vars(e) for e in load_quarantine(workspace)], ""
    except QuarantineUnreadable as exc:
        quarantine, quarantine_error = [], str(exc)
    letters = _dead_letters(workspace, backlog)
    try:
        waiting, waiting_error = count_waiting(workspace, start, backlog), ""
    except WaitingUnreadable as exc:
        waiting, waiting_error = backlog.waiting, str(exc)
    return Status(
        workspace=str(workspace.root), model=settings.model, cursor=cursor,
        pending_entries=backlog.pending, last_history_cursor=backlog.last_cursor,
        malformed_lines=len(letters), last_commit=sha, last_commit_subject=subject or "",
        prompt_source=active_prompt(workspace).source, interrupted_run=workspace.journal_file.exists(),
        last_success=successes[-1] if successes else None, last_failure=failures[-1] if failures else None,
        quarantine=quarantine, quarantine_error=quarantine_error, schedule=next_scheduled(workspace, settings),
        position={"line": resumed.position.line, "offset": resumed.position.offset, "cursor": resumed.position.cursor},
        notice=resumed.notice, dead_letters=letters,
        anomalies=[a.message for a in backlog.anomalies[:LATEST_NOTABLE]] + (records[-1].anomalies if records else []),
        entry_outcomes=_entry_outcomes(records), fill=_fill(workspace, settings), archive=_archive(workspace),
        last_dream=_last_dream(workspace, store) if sha else None, proposals=_proposals(store) if sha else
        {"pending": 0, "conflicted": 0}, ingest=ingest_overview(workspace), insights=tally(workspace),
        out_of_date=[item.to_dict() for item in out_of_date(workspace)],
        git_ignored=[asdict(finding) for finding in repository_programs(workspace.root)],
        linked_skills=workspace.linked_skills(), waiting_for_model=sum(waiting.values()),
        waiting_languages=dict(sorted(by_language(waiting).items())), waiting_error=waiting_error,
        failed_sessions=[asdict(failure) for failure in sizing.load(workspace).failures
                         if failure.start >= resumed.position.offset],
    )


def _proposals(store: GitStore) -> dict[str, int]:
    from nanodream.versioning.pending import proposals

    states = [p.state for p in proposals(store)]
    return {"pending": states.count("pending"), "conflicted": states.count("conflicted")}


def _last_dream(workspace: Workspace, store: GitStore) -> dict[str, Any] | None:
    """What the newest dream changed (one `git log`): the last run's outcome alone says "nothing-to-do"."""
    from nanodream.versioning.logview import summarize

    newest = store.newest("dream")
    return summarize(newest).to_json() if newest is not None else None


def _fill(workspace: Workspace, settings: Settings) -> dict[str, dict[str, int]]:
    """Sizes against caps, from the files' byte sizes (cheap; a multi-byte character counts more than once)."""
    sizes = {}
    for path in workspace.memory_paths():
        cap = settings.max_skill_chars if path.startswith("skills/") else settings.max_file_chars
        sizes[path] = {"chars": (workspace.root / path).stat().st_size, "cap": cap}
    return sizes


def _archive(workspace: Workspace) -> dict[str, int]:
    folder = workspace.root / ARCHIVE_DIR
    files = sorted(folder.glob("*.md")) if folder.is_dir() and not folder.is_symlink() else []
    return {"files": len(files), "chars": sum(path.stat().st_size for path in files)}


def _dead_letters(workspace: Workspace, backlog: Survey) -> list[dict[str, Any]]:
    """Malformed lines nobody has acknowledged: those kept by earlier runs and those still in the backlog."""
    held = {(letter.offset, letter.fingerprint): letter for letter in in_file(workspace.history_file,
                                                                              load_dead_letters(workspace))}
    found = {key: letter for key, letter in held.items() if not letter.acknowledged}
    for letter in backlog.dead_letters:
        if (letter.offset, letter.fingerprint) not in held:
            found[letter.offset, letter.fingerprint] = letter
    return [{"line": letter.line, "reason": letter.reason} for _, letter in sorted(found.items())]


def _entry_outcomes(records: list[RunRecord]) -> dict[str, Any]:
    notable = [item for record in records for item in record.notable]
    return {"counts": dict(Counter(item["outcome"] for item in notable)), "latest": notable[-LATEST_NOTABLE:]}
