"""The host API's actions: one function per action a front end performs, each returning a typed report.

The command line, the slash commands, the page and the MCP server only parse their input, call these and
render what comes back, so every front end refuses, succeeds and fails the same way. Nothing here raises
for a person's mistake or the workspace's state: an action raises `Refused` anywhere inside, and `@action`
turns it into the action's own report (`exit_code` what a command line should end with, `to_json()` the shape
`--json` prints, docs/json.md). Heavy modules (the run machinery, litellm, bm25s) are imported inside the
action that needs them.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from nanodream.api import reports
from nanodream.api.reports import (
    AckReport,
    DeadLetter,
    DeadLettersReport,
    EvalAnswer,
    EvalRequest,
    FleetFailure,
    FleetStatus,
    FleetSweep,
    HypothesesReport,
    ImportedScenario,
    InitReport,
    InsightReport,
    InsightsReport,
    LocomoReport,
    LogReport,
    MemoryAsOf,
    MemoryFile,
    ModelCheck,
    PromptReport,
    ProposalsReport,
    QuarantineReport,
    RecallReport,
    ReflectReport,
    RenderedReport,
    Reviewable,
    ReviewQueue,
    SchedulePlan,
    ScheduleSnippet,
    ShowReport,
    SimulateReport,
    SkillsReport,
    StatusReport,
    WhyAnswer,
)
from nanodream.layout import Linked, check_plain
from nanodream.vocab import ExitCode, Outcome, Refused, Report, new_run_id
from nanodream.workspace import CORE_FILES, Workspace, shown_value

if TYPE_CHECKING:
    from redis import Redis

    from nanodream.config import Settings
    from nanodream.edits.forget import ForgetReport, Target
    from nanodream.edits.hypotheses import DecisionReport
    from nanodream.edits.insights import InsightDecisionReport
    from nanodream.edits.pin import PinReport
    from nanodream.edits.prompt import PromptInitReport, PromptResetReport
    from nanodream.edits.restore import RestoreReport
    from nanodream.edits.review import ReviewReport, Selection
    from nanodream.engines import Engine
    from nanodream.evaluation.runner import EvalReport, ScenarioResult
    from nanodream.fleet.config import FleetConfig
    from nanodream.ingest.report import IngestReport
    from nanodream.run.context import RunOptions
    from nanodream.run.report import RunReport
    from nanodream.scheduling.hostbusy import HostWait
    from nanodream.scheduling.scheduler import Decision
    from nanodream.scheduling.shutdown import GracefulStop

WorkspaceLike = Workspace | str | Path
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
Act = TypeVar("Act", bound=Callable[..., Report])
ACTIONS: list[str] = []  # every action's name, in the order declared
# The fields a refused report starts from: fixed values, or a function of the call's arguments (by name).
Blank = dict[str, Any] | Callable[..., dict[str, Any]]


def action(blank: Blank | None = None) -> Callable[[Act], Act]:
    """The refusal path, written once: `Refused` raised anywhere in the action — the workspace's, the settings',
    the door's or the action's own — becomes the report its return annotation names, made from `blank` and
    refused (outcome, reason, hint, exit code)."""

    def declare(act: Act) -> Act:
        ACTIONS.append(act.__name__)

        @functools.wraps(act)
        def answer(*args: Any, **kwargs: Any) -> Report:
            try:
                return act(*args, **kwargs)
            except Refused as refused:
                report = _blank_report(act, blank, args, kwargs)
                report.refuse(refused)
                return report

        return cast(Act, answer)

    return declare


def _blank_report(act: Callable[..., Report], blank: Blank | None, args: tuple, kwargs: dict) -> Report:
    values = blank or {}
    if callable(values):
        call = inspect.signature(act).bind(*args, **kwargs)
        call.apply_defaults()
        values = values(**call.arguments)
    return getattr(reports, act.__annotations__["return"])(**values)


def workspace_at(where: WorkspaceLike) -> Workspace:
    """The workspace at `where`; Refused (exit 2) when it is not one, naming why."""
    workspace = where if isinstance(where, Workspace) else Workspace.at(where)
    problem = workspace.problem()
    if problem:
        raise Refused(problem, f"create one with: nanodream init {workspace.root}" if workspace.missing else "",
                      ExitCode.USAGE)
    try:
        check_plain(workspace)  # readers too: a linked history or state folder belongs to someone else
    except Linked as exc:
        raise Refused(str(exc), exit_code=ExitCode.NEEDS_PERSON) from None
    return workspace


def settings_for(workspace: Workspace, overrides: dict[str, Any] | None = None) -> Settings:
    """The workspace's settings with `overrides`; Refused (exit 2) naming the key when they are wrong."""
    from nanodream.config import ConfigError, load_settings

    try:
        return load_settings(workspace, overrides)
    except ConfigError as exc:
        raise Refused(f"configuration: {exc}", exit_code=ExitCode.USAGE) from None


def write_result(path: Path, data: Any) -> None:
    """A report's JSON written to `path` atomically: JSON, or YAML when it ends in .yaml/.yml (`-o FILE`)."""
    import json

    from nanodream.atomic import atomic_write

    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        from nanodream.boundedjson import plain

        text = yaml.safe_dump(plain(data), sort_keys=False, allow_unicode=True)
    else:
        text = json.dumps(data, indent=2, sort_keys=True, default=str) + "\n"
    atomic_write(path, text)


# the workspace ---------------------------------------------------------------------------------------


@action(lambda where, **_: {"outcome": Outcome.CREATED, "workspace": str(Workspace.at(where).root)})
def init(where: str | Path, *, example: bool = False) -> InitReport:
    """Scaffold a workspace (or complete one) and its memory repository, committing what init created."""
    from nanodream.memory.door import writing
    from nanodream.workspace import scaffold

    workspace = Workspace.at(where)
    report = InitReport(outcome=Outcome.CREATED, workspace=str(workspace.root))
    try:
        report.created = scaffold(workspace.root, example=example)
    except NotADirectoryError as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    existed = (workspace.root / ".git").exists()
    with writing(workspace) as door:
        door.settle("init: add memory files created by nanodream init\n\nDream-Kind: manual")
    report.git_repository_created = not existed
    return report


@action()
def memory_file(where: WorkspaceLike, path: str) -> MemoryFile:
    """The text of one memory file (core files, skills, archive months); a path the dream could not read is
    refused (exit 2), one that is not there is `missing`, and one reached through a link — swapped in after the
    check included: the open refuses it too — needs a person (exit 78)."""
    from nanodream.layout import read_memory_file
    from nanodream.workspace import PathRefused

    workspace = workspace_at(where)
    try:
        return MemoryFile(path=path, text=read_memory_file(workspace, path))
    except PathRefused as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    except FileNotFoundError:
        return MemoryFile(path=path, missing=True, reason=f"{path} does not exist in this workspace")
    except OSError as exc:
        raise Refused(f"{path} cannot be read without following a link ({exc.strerror})",
                      exit_code=ExitCode.NEEDS_PERSON) from None


# dreaming --------------------------------------------------------------------------------------------


def _run_blank(settings: Settings | None = None, options: RunOptions | None = None, **_: Any) -> dict[str, Any]:
    return {"run_id": new_run_id(), "model": settings.model if settings else "",
            "trigger": options.trigger if options else "manual"}


@action(_run_blank)
def run(where: WorkspaceLike, settings: Settings | None = None, options: RunOptions | None = None, *,
        waiting: HostWait | None = None, engine_factory: Callable[[Settings], Engine] | None = None,
        should_stop: Callable[[], str] | None = None) -> RunReport:
    """Dream now. With `waiting`, first wait while the host agent serves a user turn (cron and the CLI do)."""
    from nanodream.run.context import RunOptions
    from nanodream.run.dream import run_dream

    options = options or RunOptions()
    workspace = workspace_at(where)
    settings = settings or settings_for(workspace)
    extra: dict[str, Any] = {"engine_factory": engine_factory} if engine_factory else {}
    if waiting is None:
        return run_dream(workspace, settings, options, should_stop=should_stop or (lambda: ""), **extra)
    from nanodream.scheduling.scheduler import run_when_idle

    return run_when_idle(workspace, settings, options, waiting, **extra)


@action(lambda **_: {"run_id": new_run_id(), "model": "", "trigger": "retry"})
def retry_quarantined(where: WorkspaceLike, line: int, settings: Settings | None = None, *,
                      engine_factory: Callable[[Settings], Engine] | None = None) -> RunReport:
    """Dream one quarantined entry alone; on success it leaves the quarantine."""
    from nanodream.run.dream import retry_quarantined as retry

    workspace = workspace_at(where)
    settings = settings or settings_for(workspace)
    return retry(workspace, settings, line, **({"engine_factory": engine_factory} if engine_factory else {}))


@action(lambda dry_run=False, **_: {"dry_run": dry_run})
def ingest(where: WorkspaceLike, paths: list[str | Path] | None = None, *, fmt: str | None = None,
           dry_run: bool = False, settings: Settings | None = None, trigger: str = "manual") -> IngestReport:
    """Turn transcripts into history entries: the files and folders in `paths`, else the workspace's [[ingest]]
    sources. A named path that is missing or not a transcript is refused (exit 2) and nothing is appended."""
    from nanodream.ingest.pipeline import IngestRequest
    from nanodream.ingest.pipeline import ingest as ingest_pass
    from nanodream.ingest.report import IngestReport
    from nanodream.memory.door import writing

    workspace = workspace_at(where)
    settings = settings or settings_for(workspace)
    sources = _ingest_sources(workspace, paths, fmt)
    if not sources:
        return IngestReport(dry_run=dry_run, reason="no sources: name transcript files or folders, or add "
                                                    "[[ingest]] tables to nanodream.toml")
    with writing(workspace, preview=dry_run) as door:
        return ingest_pass(door, settings, IngestRequest(sources, bool(paths), dry_run, trigger))


def _ingest_sources(workspace: Workspace, paths: list[str | Path] | None, fmt: str | None) -> tuple:
    import os
    from dataclasses import replace

    from nanodream.config import ConfigError, IngestSource, ingest_sources
    from nanodream.vocab import INGEST_FORMATS

    if fmt is not None and fmt not in INGEST_FORMATS:
        raise Refused(f"--format must be one of {', '.join(INGEST_FORMATS)}; got {fmt!r}", exit_code=ExitCode.USAGE)
    if paths:
        return tuple(IngestSource(Path(os.path.abspath(Path(p).expanduser())), fmt) for p in paths)
    try:
        configured = ingest_sources(workspace)
    except ConfigError as exc:
        raise Refused(f"configuration: {exc}", exit_code=ExitCode.USAGE) from None
    return tuple(replace(source, format=fmt) if fmt else source for source in configured)


# reading -----------------------------------------------------------------------------------------------


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
    return MemoryAsOf(as_of=day.isoformat(), commit=taken.commit, time=taken.time, files=files)


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


# a person's changes ---------------------------------------------------------------------------------------


@action()
def restore(where: WorkspaceLike, ref: str, *, before: bool = False, replay: bool = False) -> RestoreReport:
    """Undo the commit `ref` as a new commit (`before`: set memory back to just before it; `replay`: let the
    next dream read its history again)."""
    from nanodream.edits.restore import restore_commit

    return restore_commit(workspace_at(where), ref, before=before, replay=replay)


@action()
def proposals(where: WorkspaceLike) -> ProposalsReport:
    """The review lane's pending proposals, oldest first."""
    from nanodream.versioning.gitstore import GitStore
    from nanodream.versioning.pending import proposals as pending

    store = GitStore(workspace_at(where))
    return ProposalsReport(proposals=pending(store) if store.exists else [])


@action()
def review_queue(where: WorkspaceLike) -> ReviewQueue:
    """The pending proposals with their diffs (one `git show` each): for a front end that shows them."""
    from nanodream.versioning.gitstore import GitStore
    from nanodream.versioning.pending import proposals as pending

    store = GitStore(workspace_at(where))
    chain = pending(store) if store.exists else []
    return ReviewQueue(proposals=[Reviewable(p, store.commit_diff(p.source)) for p in chain])


@action({"action": "accept"})
def accept(where: WorkspaceLike, selection: Selection) -> ReviewReport:
    """Apply the selected proposals to the branch as commits, oldest first; a real conflict is refused."""
    from nanodream.edits.review import accept as accept_proposals

    return accept_proposals(workspace_at(where), selection)


@action({"action": "reject"})
def reject(where: WorkspaceLike, selection: Selection, reason: str = "") -> ReviewReport:
    """Drop the selected proposals and record their facts as rejected, so no later run proposes them again."""
    from nanodream.edits.review import reject as reject_proposals

    return reject_proposals(workspace_at(where), selection, reason)


@action()
def forget(where: WorkspaceLike, target: Target, *, dry_run: bool = False,
           purge_transcripts: bool = False) -> ForgetReport:
    """Take out of memory what the target's history entries alone taught, and never read those entries again."""
    from nanodream.edits.forget import forget as forget_entries

    return forget_entries(workspace_at(where), target, dry_run=dry_run, purge_transcripts=purge_transcripts)


@action()
def pin(where: WorkspaceLike, text: str, *, path: str | None = None, remove: bool = False) -> PinReport:
    """Pin (or unpin) the one memory line holding `text`, as one commit."""
    from nanodream.edits.pin import pin as pin_line

    return pin_line(workspace_at(where), text, path=path, remove=remove)


@action()
def hypotheses(where: WorkspaceLike) -> HypothesesReport:
    """Every hypothesis line of SOUL.md, USER.md and memory/MEMORY.md, in file order; changes nothing."""
    from nanodream.edits.hypotheses import hypothesis_lines

    return HypothesesReport(hypotheses=hypothesis_lines(workspace_at(where)))


@action(lambda decision, **_: {"decision": decision})
def resolve_hypothesis(where: WorkspaceLike, line: str | int, decision: str) -> DecisionReport:
    """A person's decision on one hypothesis — reinforce, stale, reject or promote — as one commit.

    `line` is `PATH:LINE` as `hypotheses` lists it (`ref`), or a bare line number when one core file alone has a
    hypothesis there; anything else is refused with exit 2 and nothing written.
    """
    from nanodream.edits.hypotheses import resolve

    return resolve(workspace_at(where), line, decision)


# insights ---------------------------------------------------------------------------------------------------


@action()
def insights(where: WorkspaceLike, status: str | None = None, limit: int | None = None) -> InsightsReport:
    """The insights in view (every status but rejected), or those of `status`, by name; changes nothing.

    An unknown status is refused (exit 2); a file that does not parse is listed apart in `broken`.
    """
    from nanodream.insights.records import STATUSES
    from nanodream.insights.shelf import read_shelf

    if status is not None and status not in STATUSES:
        raise Refused(f"unknown status {status!r}; choose one of {', '.join(STATUSES)}", exit_code=ExitCode.USAGE)
    shelf = read_shelf(workspace_at(where))
    return InsightsReport(insights=shelf.shown(status)[:limit], broken=shelf.broken)


@action()
def insight(where: WorkspaceLike, name: str) -> InsightReport:
    """One insight by name; an unknown name is refused (exit 2) naming the insights there are."""
    from nanodream.insights.shelf import read_shelf

    shelf = read_shelf(workspace_at(where))
    found = shelf.get(name)
    if found is None:
        broken = next((b for b in shelf.broken if b.path.endswith(f"/{name}.md")), None)
        if broken is not None:
            raise Refused(f"{broken.path} cannot be read: {broken.problem}", exit_code=ExitCode.USAGE)
        known = ", ".join(item.name for item in shelf.insights[:10]) or "none yet"
        raise Refused(f"no insight named {name!r} (insights: {known})", "`nanodream insights list` lists them",
                      ExitCode.USAGE)
    return InsightReport(insight=found)


@action(lambda name, decision, **_: {"name": name, "decision": decision})
def decide_insight(where: WorkspaceLike, name: str, decision: str, note: str = "") -> InsightDecisionReport:
    """A decision on one insight — reinforce, stale, reject or promote — as one commit; `promote` appends one
    history entry (session_key `insight:<name>`) for the next dream to judge, and writes no fact."""
    from nanodream.edits.insights import decide

    workspace = workspace_at(where)
    return decide(workspace, settings_for(workspace), name, decision, note)


@action(_run_blank)
def insights_run(where: WorkspaceLike, phases: list[str] | None = None, max_insights: int | None = None, *,
                 options: RunOptions | None = None) -> RunReport:
    """A run with these insight phases and `max_insights` (the settings' when None): the backlog first, as any
    run does, then the phases; with an empty backlog the tidy pass, then connect explores old material."""
    from nanodream.run.context import RunOptions

    workspace = workspace_at(where)
    overrides = {"phases": None if phases is None else ",".join(phases), "max_insights": max_insights}
    settings = settings_for(workspace, overrides)
    return run(workspace, settings, options or RunOptions(trigger="mcp", allow_empty=True))


@action()
def reflect(where: WorkspaceLike) -> ReflectReport:
    """Memory's health without a model: lines near their archive date, lines that disagree, decisions waiting,
    dead letters (what a run's reflect phase hands connect), lines that may be out of date since a fact they
    name changed; changes nothing."""
    from nanodream.insights.reflect import reflect as look
    from nanodream.insights.shelf import read_shelf
    from nanodream.run import confirmations
    from nanodream.run.cascade import out_of_date

    workspace = workspace_at(where)
    settings = settings_for(workspace)
    restated = confirmations.load(workspace)
    found = look(workspace, read_shelf(workspace), settings.archive_after_days,
                 lambda line: restated.get(confirmations.line_key(line)))
    found.out_of_date = [item.message for item in out_of_date(workspace)]
    return ReflectReport(reflection=found)


@action()
def acknowledge(where: WorkspaceLike, lines: list[int] | None) -> AckReport:
    """Acknowledge dead letters (None: all of them) so `status` stops listing them; exit 2 when none matched."""
    from nanodream.backlog.deadletters import acknowledge as ack
    from nanodream.memory.door import writing

    report = AckReport()
    with writing(workspace_at(where)) as door:
        report.acknowledged, report.not_found = ack(door.workspace, lines)
    if report.not_found and not report.acknowledged:  # every number was wrong: a usage error, lists kept
        report.code = ExitCode.USAGE
    return report


# the prompt ---------------------------------------------------------------------------------------------


@action()
def prompt(where: WorkspaceLike) -> PromptReport:
    """Which dream prompt is active, where it comes from, and its text."""
    from nanodream.prompting.prompt_override import prompt_info

    return PromptReport(info=prompt_info(workspace_at(where)))


@action()
def rendered_prompt(where: WorkspaceLike, settings: Settings | None = None, *, tidy: bool = False) -> RenderedReport:
    """The next session's request; when a run would send none, the reason (exit 0: nothing is wrong)."""
    from nanodream.prompting.prompt import NothingToSend, render_next_request

    workspace = workspace_at(where)
    try:
        return RenderedReport(request=render_next_request(workspace, settings or settings_for(workspace),
                                                          tidy=tidy))
    except NothingToSend as exc:
        return RenderedReport(outcome=Outcome.NOTHING_TO_DO, reason=str(exc))


@action()
def prompt_init(where: WorkspaceLike) -> PromptInitReport:
    """Copy the built-in prompt to prompts/dream.md for editing; text already there is never replaced."""
    from nanodream.edits.prompt import init_override

    return init_override(workspace_at(where))


@action()
def prompt_reset(where: WorkspaceLike, *, force: bool = False) -> PromptResetReport:
    """Remove prompts/dream.md so the built-in prompt is used again; uncommitted edits only with `force`."""
    from nanodream.edits.prompt import reset_override

    return reset_override(workspace_at(where), force=force)


# the model, evaluation ----------------------------------------------------------------------------------


@action()
def check_model(where: WorkspaceLike, *, model: str | None = None, api_base: str | None = None,
                tool_mode: str | None = None) -> ModelCheck:
    """Dream a tiny batch (two tagged facts and a correction) with the model on a scratch workspace, judged by
    the run's own per-fact accounting.

    Settings come from the workspace's nanodream.toml and NANODREAM_*, with `model`, `api_base` and `tool_mode`
    over them; the workspace's memory is never read or written. Exit 1 unless the dream kept both facts and
    replaced the corrected line; the builtin engine and configuration mistakes are refused (exit 2).
    """
    from nanodream.engines import ProviderMisconfigured
    from nanodream.evaluation.model_check import check_model as tiny_dream

    settings = settings_for(Workspace.at(where), {"model": model, "api_base": api_base, "tool_mode": tool_mode})
    if settings.offline:
        raise Refused("the builtin engine needs no check (it calls the tools in-process); name a model with -m",
                      exit_code=ExitCode.USAGE)
    try:
        verdict = tiny_dream(settings)
    except ProviderMisconfigured as exc:
        raise Refused(f"configuration: {exc}", exit_code=ExitCode.USAGE) from None
    if verdict.usable:
        return ModelCheck(verdict=verdict)
    return ModelCheck(outcome=Outcome.FAILED, reason=verdict.problems[0] if verdict.problems else "not usable",
                      verdict=verdict)


@action()
def evaluate(request: EvalRequest, on_result: Callable[[ScenarioResult], None] = lambda result: None) -> EvalAnswer:
    """Score the request's corpus in throwaway workspaces (and, to compare, a second model or prompt);
    `on_result` hears of each scenario as it finishes. A bad scenario or setting is refused (exit 2)."""
    from nanodream.config import ConfigError
    from nanodream.evaluation.report import compare
    from nanodream.evaluation.scenario import ScenarioError

    for path in (request.prompt, request.against_prompt):
        if path is not None and not path.is_file():
            raise Refused(f"prompt file not found: {path}", exit_code=ExitCode.USAGE)
    try:
        base, other = _evaluations(request, on_result)
    except (ScenarioError, ConfigError) as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    diff = compare(base, other) if other is not None else None
    return EvalAnswer(evaluation=base,
                      against=None if diff is None else {key: diff[key] for key in ("other", "delta", "scenarios")})


def _evaluations(request: EvalRequest,
                 on_result: Callable[[ScenarioResult], None]) -> tuple[EvalReport, EvalReport | None]:
    from nanodream.evaluation.runner import EvalConfig, run_corpus
    from nanodream.evaluation.scenario import discover, shipped_corpus, shipped_transcripts

    default = shipped_transcripts() if request.transcripts else shipped_corpus()
    scenarios = discover(list(request.corpus or [default]))
    overrides = {"model": request.model} if request.model else {}
    base = run_corpus(scenarios, EvalConfig(overrides, request.prompt, request.max_cost, top_k=request.top_k),
                      on_result)
    if not request.compared:
        return base, None
    spent = None if request.max_cost is None else max(request.max_cost - base.cost, 0.0)
    model = request.against_model or request.model
    config = EvalConfig({"model": model} if model else {}, request.against_prompt or request.prompt, spent,
                        top_k=request.top_k)
    return base, run_corpus(scenarios, config, on_result)


@action()
def import_locomo(source: Path, output: Path) -> LocomoReport:
    """LoCoMo's public conversations as eval scenarios under `output`, one per conversation (its questions as
    asks); a file that is not LoCoMo's JSON is refused (exit 2)."""
    from nanodream.evaluation.locomo import import_locomo as convert
    from nanodream.evaluation.scenario import ScenarioError, load_scenario

    try:
        written = convert(source, output)
    except ScenarioError as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    return LocomoReport(scenarios=[ImportedScenario(str(path), len(load_scenario(path).asks)) for path in written])


@action()
def simulate(output: Path, seed: int, days: int = 60, user_facts: int = 5) -> SimulateReport:
    """Write a scenario of `days` of simulated history and its ground truth into `output` (same seed, same
    bytes); a folder holding anything but a scenario is refused (exit 2)."""
    from nanodream.evaluation.simulate import write_scenario

    if output.exists() and any(output.iterdir()) and not (output / "expect.toml").is_file():
        raise Refused(f"{output} is not empty and is not a scenario; choose an empty directory",
                      exit_code=ExitCode.USAGE)
    entries = write_scenario(output, seed, days, user_facts)
    return SimulateReport(path=str(output.resolve()), seed=seed, days=days, entries=entries)


# schedules ------------------------------------------------------------------------------------------------


@action()
def schedule_plan(where: WorkspaceLike, settings: Settings | None = None, *, cron: str | None = None,
                  every: str | None = None, initial_delay: str | None = None) -> SchedulePlan:
    """The schedule `cron` or `every` gives, else the workspace's `schedule` setting, in the `timezone` setting;
    one that does not parse, or none at all, is refused (exit 2)."""
    from datetime import timedelta

    from nanodream.scheduling.timetable import Schedule, ScheduleError, parse_duration

    workspace = workspace_at(where)
    settings = settings or settings_for(workspace)
    try:
        if cron or every:
            timetable = Schedule.from_cron(cron, settings.timezone) if cron else Schedule.every(every or "",
                                                                                               settings.timezone)
        else:
            timetable = Schedule.parse(settings.schedule, settings.timezone) if settings.schedule else None
        delay = parse_duration(initial_delay) if initial_delay else timedelta(0)
    except ScheduleError as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    if timetable is None:
        raise Refused('no schedule: pass --cron "0 */4 * * *" or --every 4h, or set schedule in nanodream.toml',
                      exit_code=ExitCode.USAGE)
    return SchedulePlan(timetable=timetable, delay=delay)


@action()
def schedule_snippet(where: WorkspaceLike, plan: SchedulePlan, kind: str,
                     arguments: Iterable[str] = ()) -> ScheduleSnippet:
    """The crontab line or systemd units (`kind`) that run `nanodream run` with `arguments` on `plan`."""
    from nanodream.scheduling.snippets import crontab_snippet, systemd_snippet
    from nanodream.scheduling.timetable import ScheduleError

    write = {"crontab": crontab_snippet, "systemd": systemd_snippet}[kind]
    try:
        text = write(workspace_at(where), plan.timetable, list(arguments))
    except ScheduleError as exc:
        raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    return ScheduleSnippet(kind=kind, plan=plan, text=text)


@action()
def schedule(where: WorkspaceLike, plan: SchedulePlan, settings: Settings | None = None, *,
             max_batches: int | None = None, stop: GracefulStop | None = None,
             log: Callable[[Decision], None] = lambda decision: None) -> Report:
    """Dream whenever `plan` says, until `stop` asks to (SIGINT/SIGTERM through GracefulStop), telling `log`
    each decision; a second signal raises KeyboardInterrupt to the caller, the workspace consistent."""
    from nanodream.scheduling.scheduler import Scheduler

    workspace = workspace_at(where)
    pacing: dict[str, Any] = {"sleep": stop.sleep, "stop": stop.reason} if stop is not None else {}
    Scheduler(workspace, settings or settings_for(workspace), plan.timetable, initial_delay=plan.delay,
              max_batches=max_batches, log=log, **pacing).run()
    return Report()


# the fleet --------------------------------------------------------------------------------------------------


@action()
def fleet_enqueue(roots: list[Path], *, redis_url: str, queue: str, config: Path | None = None) -> FleetSweep:
    """Enqueue one job per due workspace under `roots` (never a second while one waits or runs)."""
    _fleet_extra()
    from rq import Queue

    from nanodream import clock
    from nanodream.fleet.sweep import sweep

    missing = [str(root) for root in roots if not root.is_dir()]
    if missing:
        raise Refused(f"not a directory: {', '.join(missing)}", exit_code=ExitCode.USAGE)
    settings = _fleet_config(config)
    with _redis(redis_url) as connection:
        return FleetSweep(sweep=sweep(roots, settings, Queue(queue, connection=connection), clock.now()))


@action()
def fleet_worker(*, redis_url: str, queue: str, config: Path | None = None, burst: bool = False) -> Report:
    """An RQ worker: each job dreams one workspace in a fork; until stopped, or (`burst`) the queue is empty. A
    Redis that goes away, then or later, is refused with exit 69."""
    _fleet_extra()
    from nanodream.fleet.jobs import run_worker

    settings = _fleet_config(config)
    with _redis(redis_url) as connection:
        run_worker(connection, queue, settings, burst=burst)
    return Report()


@action()
def fleet_status(*, redis_url: str, queue: str) -> FleetStatus:
    """The queue's job counts and, per failing workspace, its latest failure."""
    _fleet_extra()
    from rq import Queue

    from nanodream.fleet.status import fleet_status as counted

    with _redis(redis_url) as connection:
        data = counted(Queue(queue, connection=connection))
    return FleetStatus(**{**data, "failures": [FleetFailure(**failure) for failure in data["failures"]]})


def _fleet_extra() -> None:
    try:
        import redis  # noqa: F401
        import rq  # noqa: F401
    except ImportError:
        raise Refused("the fleet commands need rq and redis: pip install 'nanodream[fleet]'",
                      exit_code=ExitCode.USAGE) from None


@contextmanager
def _redis(url: str) -> Iterator[Redis]:
    """A checked connection; any Redis failure in the block is refused with exit 69 (EX_UNAVAILABLE)."""
    from redis.exceptions import RedisError

    from nanodream.fleet.connection import RedisUnavailable, connect, unavailable

    try:
        yield connect(url)
    except RedisUnavailable as exc:
        raise Refused(str(exc), exit_code=ExitCode.UNAVAILABLE) from None
    except RedisError as exc:
        raise Refused(str(unavailable(url, exc)), exit_code=ExitCode.UNAVAILABLE) from None


def _fleet_config(path: Path | None) -> FleetConfig:
    from nanodream.config import ConfigError
    from nanodream.fleet.config import load_fleet_config

    try:
        return load_fleet_config(path)
    except ConfigError as exc:
        raise Refused(f"fleet config: {exc}", exit_code=ExitCode.USAGE) from None


__all__ = ["ACTIONS", "WorkspaceLike", "action", "settings_for", "workspace_at", "write_result", *ACTIONS]
