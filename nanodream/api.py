"""The host API: one function per action, each returning a typed report (a `vocab.Report`).

The command line, the slash commands, the page and the MCP server only parse their input, call these and
render what comes back, so every front end refuses, succeeds and fails the same way. Nothing here raises
for a person's mistake or the workspace's state: a report says what happened, `exit_code` what a command
line should end with, `to_json()` the shape `--json` prints (docs/json.md). Heavy modules (the run
machinery, litellm, bm25s) are imported inside the function that needs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nanodream.layout import Linked, check_plain
from nanodream.vocab import ExitCode, Outcome, Refused, Report
from nanodream.workspace import Workspace

if TYPE_CHECKING:
    from nanodream.config import Settings
    from nanodream.edits.forget import ForgetReport, Target
    from nanodream.edits.hypotheses import DecisionReport, HypothesisLine
    from nanodream.edits.pin import PinReport
    from nanodream.edits.prompt import PromptInitReport, PromptResetReport
    from nanodream.edits.restore import RestoreReport
    from nanodream.edits.review import ReviewReport, Selection
    from nanodream.engines import Engine
    from nanodream.ingest.report import IngestReport
    from nanodream.prompting.prompt import RenderedRequest
    from nanodream.prompting.prompt_override import PromptInfo
    from nanodream.prompting.skill_table import SkillRow
    from nanodream.retrieval.api import Hit, HypothesisHit
    from nanodream.run.context import RunOptions
    from nanodream.run.report import RunReport
    from nanodream.scheduling.hostbusy import HostWait
    from nanodream.status import Status
    from nanodream.versioning.logview import CommitDetail, CommitSummary
    from nanodream.versioning.pending import Proposal
    from nanodream.versioning.provenance import WhyReport

WorkspaceLike = Workspace | str | Path


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


def _refused_as(report: Report, refused: Refused) -> Report:
    report.refuse(refused)
    return report


# the workspace ---------------------------------------------------------------------------------------


@dataclass
class InitReport(Report):
    """`init`: the workspace, the files created (nothing is ever overwritten), whether git was set up now."""

    workspace: str = ""
    created: list[str] = field(default_factory=list)
    git_repository_created: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"workspace": self.workspace, "created": self.created,
                "git_repository_created": self.git_repository_created}


def init(where: str | Path, *, example: bool = False) -> InitReport:
    """Scaffold a workspace (or complete one) and its memory repository, committing what init created."""
    from nanodream.memory.door import writing
    from nanodream.workspace import scaffold

    workspace = Workspace.at(where)
    report = InitReport(outcome=Outcome.CREATED, workspace=str(workspace.root))
    try:
        report.created = scaffold(workspace.root, example=example)
    except NotADirectoryError as exc:
        return _refused_as(report, Refused(str(exc), exit_code=ExitCode.USAGE))
    existed = (workspace.root / ".git").exists()
    try:
        with writing(workspace) as door:
            door.settle("init: add memory files created by nanodream init\n\nDream-Kind: manual")
    except Refused as exc:
        return _refused_as(report, exc)
    report.git_repository_created = not existed
    return report


# dreaming --------------------------------------------------------------------------------------------


def run(where: WorkspaceLike, settings: Settings | None = None, options: RunOptions | None = None, *,
        waiting: HostWait | None = None, engine_factory: Callable[[Settings], Engine] | None = None,
        should_stop: Callable[[], str] | None = None) -> RunReport:
    """Dream now. With `waiting`, first wait while the host agent serves a user turn (cron and the CLI do)."""
    from nanodream.run.context import RunOptions
    from nanodream.run.dream import run_dream
    from nanodream.run.report import RunReport
    from nanodream.vocab import new_run_id

    options = options or RunOptions()
    try:
        workspace = workspace_at(where)
        settings = settings or settings_for(workspace)
    except Refused as exc:
        report = RunReport(run_id=new_run_id(), model=settings.model if settings else "", trigger=options.trigger)
        return _refused_as(report, exc)
    extra: dict[str, Any] = {"engine_factory": engine_factory} if engine_factory else {}
    if waiting is None:
        return run_dream(workspace, settings, options, should_stop=should_stop or (lambda: ""), **extra)
    from nanodream.scheduling.scheduler import run_when_idle

    return run_when_idle(workspace, settings, options, waiting, **extra)


def retry_quarantined(where: WorkspaceLike, line: int, settings: Settings | None = None, *,
                      engine_factory: Callable[[Settings], Engine] | None = None) -> RunReport:
    """Dream one quarantined entry alone; on success it leaves the quarantine."""
    from nanodream.run.dream import retry_quarantined as retry
    from nanodream.run.report import RunReport
    from nanodream.vocab import new_run_id

    try:
        workspace = workspace_at(where)
        settings = settings or settings_for(workspace)
    except Refused as exc:
        return _refused_as(RunReport(run_id=new_run_id(), model="", trigger="retry"), exc)
    return retry(workspace, settings, line, **({"engine_factory": engine_factory} if engine_factory else {}))


def ingest(where: WorkspaceLike, paths: list[str | Path] | None = None, *, fmt: str | None = None,
           dry_run: bool = False, settings: Settings | None = None, trigger: str = "manual") -> IngestReport:
    """Turn transcripts into history entries: the files and folders in `paths`, else the workspace's [[ingest]]
    sources. A named path that is missing or not a transcript is refused (exit 2) and nothing is appended."""
    from nanodream.ingest.pipeline import IngestRequest
    from nanodream.ingest.pipeline import ingest as ingest_pass
    from nanodream.ingest.report import IngestReport
    from nanodream.memory.door import writing

    report = IngestReport(dry_run=dry_run)
    try:
        workspace = workspace_at(where)
        settings = settings or settings_for(workspace)
        sources = _ingest_sources(workspace, paths, fmt)
        if not sources:
            report.reason = "no sources: name transcript files or folders, or add [[ingest]] tables to nanodream.toml"
            return report
        with writing(workspace, preview=dry_run) as door:
            return ingest_pass(door, settings, IngestRequest(sources, bool(paths), dry_run, trigger))
    except Refused as exc:
        return _refused_as(report, exc)


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


@dataclass
class StatusReport(Report):
    """`status`: backlog, cursor, last commit and runs (docs/json.md)."""

    status: Status | None = None

    def to_json(self) -> dict[str, Any]:
        return self.status.to_dict() if self.status is not None else super().to_json()


def status(where: WorkspaceLike, settings: Settings | None = None) -> StatusReport:
    from nanodream.status import workspace_status

    try:
        workspace = workspace_at(where)
        found = workspace_status(workspace, settings or settings_for(workspace))
    except Refused as exc:
        return _refused_as(StatusReport(), exc)
    return StatusReport(outcome=Outcome.NOTHING_TO_DO, status=found)


@dataclass
class LogReport(Report):
    """`log`: memory commits, newest first (each in docs/json.md's commit shape)."""

    workspace: str = ""
    commits: list[CommitSummary] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"workspace": self.workspace, "commits": [c.to_dict() for c in self.commits]}


def log(where: WorkspaceLike, limit: int | None = 20, kind: str | None = None) -> LogReport:
    from nanodream.versioning.logview import memory_log

    try:
        workspace = workspace_at(where)
    except Refused as exc:
        return _refused_as(LogReport(), exc)
    return LogReport(workspace=str(workspace.root), commits=memory_log(workspace, limit, kind))


@dataclass
class ShowReport(Report):
    """`show`: one commit with its summary, the history it consumed and the diff."""

    detail: CommitDetail | None = None

    def to_json(self) -> dict[str, Any]:
        return self.detail.to_dict() if self.detail is not None else super().to_json()


def show(where: WorkspaceLike, ref: str | None = None) -> ShowReport:
    """The commit `ref` (default: the newest dream); an unknown reference is refused with exit 2."""
    from nanodream.versioning.gitstore import UnknownCommit
    from nanodream.versioning.logview import commit_detail

    try:
        workspace = workspace_at(where)
        try:
            return ShowReport(detail=commit_detail(workspace, ref))
        except UnknownCommit as exc:
            raise Refused(str(exc), "`nanodream log` lists the commits", ExitCode.USAGE) from None
    except Refused as exc:
        return _refused_as(ShowReport(outcome=Outcome.REFUSED), exc)


@dataclass
class WhyAnswer(Report):
    """`why`: the commit that wrote a memory line, its kind, and for a dream the entries behind it."""

    answer: WhyReport | None = None

    def to_json(self) -> dict[str, Any]:
        return self.answer.to_dict() if self.answer is not None else super().to_json()


def why(where: WorkspaceLike, query: str) -> WhyAnswer:
    """Answer for `FILE:LINE` or for the memory line holding `query`; nothing matching is refused (exit 1)."""
    from nanodream.versioning.provenance import NotFound
    from nanodream.versioning.provenance import why as explain

    try:
        workspace = workspace_at(where)
        try:
            return WhyAnswer(answer=explain(workspace, query))
        except NotFound as exc:
            raise Refused(str(exc)) from None
    except Refused as exc:
        return _refused_as(WhyAnswer(), exc)


def memory_file(where: WorkspaceLike, path: str) -> str:
    """The text of one memory file (`SOUL.md`, `skills/x/SKILL.md`, `memory/archive/2026-03.md`), never read through
    a link: PathRefused (a ValueError) for any other path, FileNotFoundError when absent, OSError for a link."""
    from nanodream.layout import read_memory_file

    return read_memory_file(workspace_at(where) if not isinstance(where, Workspace) else where, path)


@dataclass
class RecallReport(Report):
    """`recall`: the memory lines, skills and archived lines that best match a question, and apart from them
    the hypothesis lines that do (inferred, never stated: not to be presented as memory)."""

    query: str = ""
    hits: list[Hit] = field(default_factory=list)
    related_hypotheses: list[HypothesisHit] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"hits": [hit.to_dict() for hit in self.hits],
                "related_hypotheses": [hit.to_dict() for hit in self.related_hypotheses]}


def recall(where: WorkspaceLike, query: str, k: int = 5) -> RecallReport:
    """Best matches first, up to `k` facts and `k` hypotheses; the `recall` extra missing is refused (exit 2)."""
    from nanodream.retrieval.api import RecallUnavailable, recall_apart

    report = RecallReport(query=query)
    try:
        report.hits, report.related_hypotheses = recall_apart(workspace_at(where), query, k)
    except RecallUnavailable as exc:
        return _refused_as(report, Refused(str(exc), exit_code=ExitCode.USAGE))
    except Refused as exc:
        return _refused_as(report, exc)
    return report


@dataclass
class SkillsReport(Report):
    """`skills`: each skill's use (30 days), last use, companions, at-risk, thin and unused marks, family."""

    skills: list[SkillRow] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"skills": [row.to_dict() for row in self.skills]}


def skills(where: WorkspaceLike, settings: Settings | None = None) -> SkillsReport:
    """The skills table, from the skills on disk and what the host's files say about their use."""
    from nanodream.prompting.skill_table import skill_rows

    try:
        workspace = workspace_at(where)
        return SkillsReport(skills=skill_rows(workspace, settings or settings_for(workspace)))
    except Refused as exc:
        return _refused_as(SkillsReport(), exc)


# a person's changes ---------------------------------------------------------------------------------------


def restore(where: WorkspaceLike, ref: str, *, before: bool = False, replay: bool = False) -> RestoreReport:
    from nanodream.edits.restore import RestoreReport, restore_commit

    try:
        return restore_commit(workspace_at(where), ref, before=before, replay=replay)
    except Refused as exc:
        return _refused_as(RestoreReport(), exc)


@dataclass
class ProposalsReport(Report):
    """`review`: the proposals review runs left pending, oldest first, each with its diff."""

    proposals: list[Proposal] = field(default_factory=list)
    diffs: dict[str, str] = field(default_factory=dict)  # proposal id → its diff

    def to_json(self) -> dict[str, Any]:
        return {"proposals": [p.to_dict() for p in self.proposals]}


def proposals(where: WorkspaceLike, *, with_diffs: bool = False) -> ProposalsReport:
    """The review lane's pending proposals; their diffs (one `git show` each) only when the caller shows them."""
    from nanodream.versioning.gitstore import GitStore
    from nanodream.versioning.pending import proposals as pending

    try:
        store = GitStore(workspace_at(where))
    except Refused as exc:
        return _refused_as(ProposalsReport(), exc)
    chain = pending(store) if store.exists else []
    diffs = {p.id: store.commit_diff(p.source) for p in chain} if with_diffs else {}
    return ProposalsReport(proposals=chain, diffs=diffs)


def accept(where: WorkspaceLike, selection: Selection) -> ReviewReport:
    from nanodream.edits.review import ReviewReport
    from nanodream.edits.review import accept as accept_proposals

    try:
        return accept_proposals(workspace_at(where), selection)
    except Refused as exc:
        return _refused_as(ReviewReport(action="accept"), exc)


def reject(where: WorkspaceLike, selection: Selection, reason: str = "") -> ReviewReport:
    from nanodream.edits.review import ReviewReport
    from nanodream.edits.review import reject as reject_proposals

    try:
        return reject_proposals(workspace_at(where), selection, reason)
    except Refused as exc:
        return _refused_as(ReviewReport(action="reject"), exc)


def forget(where: WorkspaceLike, target: Target, *, dry_run: bool = False,
           purge_transcripts: bool = False) -> ForgetReport:
    from nanodream.edits.forget import ForgetReport
    from nanodream.edits.forget import forget as forget_entries

    try:
        return forget_entries(workspace_at(where), target, dry_run=dry_run, purge_transcripts=purge_transcripts)
    except Refused as exc:
        return _refused_as(ForgetReport(), exc)


def pin(where: WorkspaceLike, text: str, *, path: str | None = None, remove: bool = False) -> PinReport:
    from nanodream.edits.pin import PinReport
    from nanodream.edits.pin import pin as pin_line

    try:
        return pin_line(workspace_at(where), text, path=path, remove=remove)
    except Refused as exc:
        return _refused_as(PinReport(), exc)


@dataclass
class HypothesesReport(Report):
    """`hypotheses list`: the inferred lines still marked in the core files, each with its `ref` (docs/json.md)."""

    hypotheses: list[HypothesisLine] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"hypotheses": [h.to_dict() for h in self.hypotheses]}


def hypotheses(where: WorkspaceLike) -> HypothesesReport:
    """Every hypothesis line of SOUL.md, USER.md and memory/MEMORY.md, in file order; changes nothing."""
    from nanodream.edits.hypotheses import hypothesis_lines

    try:
        return HypothesesReport(hypotheses=hypothesis_lines(workspace_at(where)))
    except Refused as exc:
        return _refused_as(HypothesesReport(), exc)


def resolve_hypothesis(where: WorkspaceLike, line: str | int, decision: str) -> DecisionReport:
    """A person's decision on one hypothesis — reinforce, stale, reject or promote — as one commit.

    `line` is `PATH:LINE` as `hypotheses` lists it (`ref`), or a bare line number when one core file alone has a
    hypothesis there; anything else is refused with exit 2 and nothing written.
    """
    from nanodream.edits.hypotheses import DecisionReport, resolve

    try:
        return resolve(workspace_at(where), line, decision)
    except Refused as exc:
        return _refused_as(DecisionReport(decision=decision), exc)


@dataclass
class AckReport(Report):
    """`history ack`: malformed lines acknowledged, and numbers that are no dead letter nanodream knows."""

    acknowledged: list[int] = field(default_factory=list)
    not_found: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"acknowledged": self.acknowledged, "not_found": self.not_found}


def acknowledge(where: WorkspaceLike, lines: list[int] | None) -> AckReport:
    """Acknowledge dead letters (None: all of them) so `status` stops listing them; exit 2 when none matched."""
    from nanodream.backlog.deadletters import acknowledge as ack
    from nanodream.memory.door import writing

    report = AckReport()
    try:
        with writing(workspace_at(where)) as door:
            report.acknowledged, report.not_found = ack(door.workspace, lines)
    except Refused as exc:
        return _refused_as(report, exc)
    report.outcome = Outcome.NOTHING_TO_DO
    if report.not_found and not report.acknowledged:  # every number was wrong: a usage error, lists kept
        report.code = ExitCode.USAGE
    return report


# the prompt ---------------------------------------------------------------------------------------------


@dataclass
class PromptReport(Report):
    """`prompt show`: which dream prompt is active, and its text."""

    info: PromptInfo | None = None

    def to_json(self) -> dict[str, Any]:
        return self.info.to_dict() if self.info is not None else super().to_json()


def prompt(where: WorkspaceLike) -> PromptReport:
    from nanodream.prompting.prompt_override import prompt_info

    try:
        return PromptReport(info=prompt_info(workspace_at(where)))
    except Refused as exc:
        return _refused_as(PromptReport(), exc)


@dataclass
class RenderedReport(Report):
    """`prompt show --rendered`: exactly what the next session would send, without sending it."""

    request: RenderedRequest | None = None

    def to_json(self) -> dict[str, Any]:
        return self.request.to_dict() if self.request is not None else super().to_json()


def rendered_prompt(where: WorkspaceLike, settings: Settings | None = None, *, tidy: bool = False) -> RenderedReport:
    """The next session's request; when a run would send none, the reason (exit 0: nothing is wrong)."""
    from nanodream.prompting.prompt import NothingToSend, render_next_request

    try:
        workspace = workspace_at(where)
        return RenderedReport(request=render_next_request(workspace, settings or settings_for(workspace),
                                                          tidy=tidy))
    except NothingToSend as exc:
        return RenderedReport(outcome=Outcome.NOTHING_TO_DO, reason=str(exc))
    except Refused as exc:
        return _refused_as(RenderedReport(), exc)


def prompt_init(where: WorkspaceLike) -> PromptInitReport:
    from nanodream.edits.prompt import PromptInitReport, init_override

    try:
        return init_override(workspace_at(where))
    except Refused as exc:
        return _refused_as(PromptInitReport(), exc)


def prompt_reset(where: WorkspaceLike, *, force: bool = False) -> PromptResetReport:
    from nanodream.edits.prompt import PromptResetReport, reset_override

    try:
        return reset_override(workspace_at(where), force=force)
    except Refused as exc:
        return _refused_as(PromptResetReport(), exc)
