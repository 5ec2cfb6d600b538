"""Reading memory and its history without changing anything: status, log, show, why, recall, as of a
day, skills, dead letters, the quarantine."""

from __future__ import annotations

import contextlib
import os
import re
from datetime import date, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from nanodream.api.acting import WorkspaceLike, action, settings_for, workspace_at
from nanodream.api.reports import (
    DeadLetter,
    DeadLettersReport,
    LogReport,
    MemoryAsOf,
    MemoryFile,
    QuarantineReport,
    RecallReport,
    ShowReport,
    SkillsReport,
    StatusReport,
    WhyAnswer,
)
from nanodream.vocab import ExitCode, Outcome, Refused
from nanodream.workspace import CORE_FILES, Workspace, shown_value

if TYPE_CHECKING:
    from nanodream.config import Settings


@action()
def status(where: WorkspaceLike, settings: Settings | None = None) -> StatusReport:
    """Backlog, cursor, last commit and runs, the files' fill, proposals, ingest sources, the schedule."""
    from nanodream.status import workspace_status

    workspace = workspace_at(where)
    return StatusReport(outcome=Outcome.NOTHING_TO_DO,
                        status=workspace_status(workspace, settings or settings_for(workspace)))


@action()
def log(where: WorkspaceLike, limit: int | None = 20, kind: str | None = None) -> LogReport:
    """Memory commits, newest first; `kind` keeps only dream, manual or restore commits."""
    from nanodream.versioning.logview import memory_log

    workspace = workspace_at(where)
    return LogReport(workspace=str(workspace.root), commits=memory_log(workspace, limit, kind))


@action()
def show(where: WorkspaceLike, ref: str | None = None) -> ShowReport:
    """The commit `ref` (default: the newest dream); an unknown reference is refused with exit 2."""
    from nanodream.versioning.gitstore import UnknownCommit
    from nanodream.versioning.logview import commit_detail

    workspace = workspace_at(where)
    try:
        return ShowReport(detail=commit_detail(workspace, ref))
    except UnknownCommit as exc:
        raise Refused(str(exc), "`nanodream log` lists the commits", ExitCode.USAGE) from None


@action()
def why(where: WorkspaceLike, query: str) -> WhyAnswer:
    """Answer for `FILE:LINE` or for the memory line holding `query`; nothing matching is refused (exit 1)."""
    from nanodream.insights.edges import citing_line
    from nanodream.insights.shelf import read_shelf
    from nanodream.versioning.provenance import NotFound
    from nanodream.versioning.provenance import why as explain

    workspace = workspace_at(where)
    try:
        answer = explain(workspace, query)
    except NotFound as exc:
        raise Refused(str(exc)) from None
    answer.insights = citing_line(read_shelf(workspace).insights, answer.file, answer.text)
    return WhyAnswer(answer=answer)


@action(lambda query, **_: {"query": query})
def recall(where: WorkspaceLike, query: str, k: int = 5, as_of: date | str | None = None) -> RecallReport:
    """Best matches first, up to `k` facts and `k` hypotheses, and the insights the question touches; `as_of`
    (YYYY-MM-DD) asks memory as it stood on that day: the last commit by its end (committer date, the workspace's
    time zone) and the replaced facts true then (insights are today's connections, so none are given then). A
    date that is not one, or the `recall` extra missing, is refused (exit 2)."""
    from nanodream.insights.related import related
    from nanodream.retrieval.api import RecallUnavailable, recall_apart, recall_as_of

    workspace = workspace_at(where)
    day = _day(as_of) if as_of is not None else None
    try:
        if day is None:
            hits, hypotheses = recall_apart(workspace, query, k)
            return RecallReport(query=query, hits=hits, related_hypotheses=hypotheses,
                                related_insights=related(workspace, query, k))
        hits, hypotheses, taken = recall_as_of(workspace, query, day, k, _zone(workspace))
    except RecallUnavailable as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    return RecallReport(query=query, hits=hits, related_hypotheses=hypotheses, as_of=day.isoformat(),
                        commit=taken.commit)


@action(lambda as_of, **_: {"as_of": str(as_of)})
def memory_as_of(where: WorkspaceLike, as_of: date | str, paths: list[str] | None = None) -> MemoryAsOf:
    """Memory files as they stood on `as_of` (YYYY-MM-DD): those of the last commit by the day's end (committer
    date, in the workspace's time zone). `paths` are memory files, workspace-relative or absolute inside the
    workspace (default: the three core files); anything else, or a date that is not one, is refused (exit 2)."""
    from nanodream.versioning.asof import snapshot
    from nanodream.versioning.gitstore import GitStore

    workspace = workspace_at(where)
    day = _day(as_of)
    wanted = list(dict.fromkeys(_memory_path(workspace, path) for path in paths)) if paths else list(CORE_FILES)
    taken = snapshot(GitStore(workspace), day, _zone(workspace), tuple(wanted))
    files = [MemoryFile(path=path, text=taken.files.get(path), missing=path not in taken.files) for path in wanted]
    return MemoryAsOf(as_of=day.isoformat(), commit=taken.commit, time=taken.time, files=files,
                      learned_later=list(taken.learned_later), ended=list(taken.ended))


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _day(value: date | str) -> date:
    """A day as `YYYY-MM-DD` (or a date already); Refused (exit 2) for anything else."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    text = str(value).strip()
    with contextlib.suppress(ValueError):
        if _ISO_DAY.fullmatch(text):
            return date.fromisoformat(text)
    raise Refused(f"{shown_value(value)} is not a date; give the day as YYYY-MM-DD (e.g. 2026-03-14)",
                  exit_code=ExitCode.USAGE)


def _zone(workspace: Workspace) -> tzinfo:
    """Where the workspace keeps its days: `timezone` in nanodream.toml (UTC by default)."""
    from nanodream.config import zone

    return zone(settings_for(workspace).timezone)


def _memory_path(workspace: Workspace, path: str) -> str:
    """`path` as the workspace-relative memory file it names; Refused (exit 2) when it names none."""
    from nanodream.workspace import PathRefused

    given = Path(path).expanduser()
    if given.is_absolute():
        try:
            path = Path(os.path.abspath(given)).relative_to(workspace.root).as_posix()
        except ValueError:
            raise Refused(f"{path} is outside the workspace {workspace.root}", exit_code=ExitCode.USAGE) from None
    try:
        return workspace.check_memory_path(path, archive=True)
    except PathRefused as exc:
        raise Refused(str(exc), "give a memory file: SOUL.md, USER.md, memory/MEMORY.md, skills/<name>/SKILL.md "
                      "or memory/archive/YYYY-MM.md", ExitCode.USAGE) from None


@action()
def skills(where: WorkspaceLike, settings: Settings | None = None) -> SkillsReport:
    """The skills table, from the skills on disk and what the host's files say about their use."""
    from nanodream.prompting.skill_table import skill_rows

    workspace = workspace_at(where)
    return SkillsReport(skills=skill_rows(workspace, settings or settings_for(workspace)))


@action()
def dead_letters(where: WorkspaceLike) -> DeadLettersReport:
    """The malformed lines of history.jsonl nobody acknowledged yet, as they are stored (credentials redacted)."""
    from nanodream.backlog.deadletters import pending_letters

    letters = pending_letters(workspace_at(where))
    return DeadLettersReport(letters=[DeadLetter(d.line, d.offset, d.reason, d.raw) for d in letters])


@action()
def quarantine(where: WorkspaceLike) -> QuarantineReport:
    """The entries set aside because they failed on their own; an unreadable quarantine is refused (exit 1)."""
    from nanodream.backlog.quarantine import QuarantineUnreadable, load_quarantine

    try:
        return QuarantineReport(entries=load_quarantine(workspace_at(where)))
    except QuarantineUnreadable as exc:
        raise Refused(str(exc)) from None
