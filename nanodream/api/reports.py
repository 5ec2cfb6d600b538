"""The request and report types of the host API: what a front end hands an action and what it gets back.

The API's own reports are declared here; the types whose home is a domain module (a run's report, a restore's,
the review lane's selection, …) are re-exported by name and imported only when first used, so `import
nanodream.api` stays as light as `status` needs it to be. Every report declares its JSON once — its dataclass
fields and its `json_shape` (vocab.Shape) — and `--json`, the MCP tools' output schemas and docs/json.md all
come from that declaration (`python -m nanodream.api.outputs` writes the last two).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nanodream.vocab import VERDICT, Declared, ExitCode, Outcome, Refused, Report, Shape
from nanodream.workspace import CORE_FILES, Workspace

if TYPE_CHECKING:
    from nanodream.backlog.quarantine import QuarantinedEntry
    from nanodream.edits.hypotheses import HypothesisLine
    from nanodream.evaluation.model_check import ModelVerdict
    from nanodream.evaluation.runner import EvalReport
    from nanodream.fleet.sweep import SweepReport
    from nanodream.hosts.install import HostState, Planned
    from nanodream.insights.records import Insight
    from nanodream.insights.reflect import Reflection
    from nanodream.insights.related import RelatedInsight
    from nanodream.insights.shelf import Broken
    from nanodream.prompting.prompt import RenderedRequest
    from nanodream.prompting.prompt_override import PromptInfo
    from nanodream.prompting.skill_table import SkillRow
    from nanodream.retrieval.api import Hit, HypothesisHit
    from nanodream.run.host_engine import OpenFact
    from nanodream.run.host_view import BatchLine, SkillLine
    from nanodream.scheduling.timetable import Schedule
    from nanodream.status import Status
    from nanodream.versioning.logview import CommitDetail, CommitSummary
    from nanodream.versioning.pending import Proposal
    from nanodream.versioning.provenance import WhyReport

# name → the module it lives in: request and report types (and the few words a front end needs) of the domain.
ELSEWHERE = {
    "Batch": "nanodream.backlog.history",
    "QuarantinedEntry": "nanodream.backlog.quarantine",
    "Settings": "nanodream.config",
    "ForgetReport": "nanodream.edits.forget",
    "Target": "nanodream.edits.forget",
    "DecisionReport": "nanodream.edits.hypotheses",
    "HypothesisLine": "nanodream.edits.hypotheses",
    "PinReport": "nanodream.edits.pin",
    "PromptInitReport": "nanodream.edits.prompt",
    "PromptResetReport": "nanodream.edits.prompt",
    "RestoreReport": "nanodream.edits.restore",
    "ReviewReport": "nanodream.edits.review",
    "Selection": "nanodream.edits.review",
    "AskResult": "nanodream.evaluation.asks",
    "CheckResult": "nanodream.evaluation.checks",
    "ModelVerdict": "nanodream.evaluation.model_check",
    "EvalReport": "nanodream.evaluation.runner",
    "ScenarioResult": "nanodream.evaluation.runner",
    "SweepReport": "nanodream.fleet.sweep",
    "SyncReport": "nanodream.sync.travel",
    "InsightDecisionReport": "nanodream.edits.insights",
    "IngestReport": "nanodream.ingest.report",
    "Insight": "nanodream.insights.records",
    "Source": "nanodream.insights.records",
    "Reflection": "nanodream.insights.reflect",
    "RelatedInsight": "nanodream.insights.related",
    "Broken": "nanodream.insights.shelf",
    "SourceReport": "nanodream.ingest.report",
    "Match": "nanodream.pinning",
    "PIN": "nanodream.pinning",
    "RenderedRequest": "nanodream.prompting.prompt",
    "OVERRIDE": "nanodream.prompting.prompt_override",
    "PromptInfo": "nanodream.prompting.prompt_override",
    "SkillRow": "nanodream.prompting.skill_table",
    "Hit": "nanodream.retrieval.api",
    "HypothesisHit": "nanodream.retrieval.api",
    "RunOptions": "nanodream.run.context",
    "OpenFact": "nanodream.run.host_engine",
    "BatchLine": "nanodream.run.host_view",
    "SkillLine": "nanodream.run.host_view",
    "RunObserver": "nanodream.run.progress",
    "Tally": "nanodream.run.progress",
    "BatchOutcome": "nanodream.run.report",
    "PhaseOutcome": "nanodream.run.report",
    "RunReport": "nanodream.run.report",
    "HostBusy": "nanodream.scheduling.hostbusy",
    "HostWait": "nanodream.scheduling.hostbusy",
    "Decision": "nanodream.scheduling.scheduler",
    "GracefulStop": "nanodream.scheduling.shutdown",
    "Schedule": "nanodream.scheduling.timetable",
    "Status": "nanodream.status",
    "HostState": "nanodream.hosts.install",
    "Planned": "nanodream.hosts.install",
    "DREAM_COMMAND": "nanodream.hosts.command",  # the /dream a host runs: the MCP prompt, the installed command file
    "JSONRefused": "nanodream.boundedjson",  # the one JSON reader, for a front end that parses (MCP's stdio)
    "MESSAGE_BYTES": "nanodream.boundedjson",
    "bounded_loads": "nanodream.boundedjson",
    "plain": "nanodream.boundedjson",
    "COMMIT_KINDS": "nanodream.versioning.commitmsg",
    "CommitDetail": "nanodream.versioning.logview",
    "CommitSummary": "nanodream.versioning.logview",
    "Proposal": "nanodream.versioning.pending",
    "WhyReport": "nanodream.versioning.provenance",
}


def elsewhere(name: str) -> Any:
    """A re-exported type, imported on first use; AttributeError for a name the API does not export."""
    try:
        module = ELSEWHERE[name]
    except KeyError:
        raise AttributeError(f"module 'nanodream.api' has no attribute {name!r}") from None
    return getattr(import_module(module), name)


def __getattr__(name: str) -> Any:
    return elsewhere(name)


# the workspace -------------------------------------------------------------------------------------------


@dataclass
class InitReport(Report):
    """`init`: the workspace, the files created (nothing is ever overwritten), whether git was set up now."""

    json_shape = Shape(hidden=VERDICT)

    workspace: str = ""
    created: list[str] = field(default_factory=list)
    git_repository_created: bool = False
    remote: str = ""  # `init --from`: the memory remote it came from (a password or token in its URL left out)
    fetched: str | None = None  # the remote's commit it took (None: an empty remote, or no --from)
    held: list[str] = field(default_factory=list)  # the remote's lines that wait for review instead of landing
    left_out: list[str] = field(default_factory=list)  # the remote's lines left out (a credential, an injection)


@dataclass
class MemoryFile(Report):
    """One memory file's text, read as the dream's own tools may read it (the MCP server's resources)."""

    json_shape = Shape(hidden=VERDICT)

    path: str = ""
    text: str | None = None  # None: refused, or (`missing`) not in this workspace
    missing: bool = False


# reading -------------------------------------------------------------------------------------------------


@dataclass
class StatusReport(Report):
    """`status`: backlog, cursor, last commit and runs (docs/json.md); refused, the verdict alone."""

    json_shape = Shape(inner="status")

    status: Status | None = None


@dataclass
class LogReport(Report):
    """`log`: memory commits, newest first."""

    json_shape = Shape(hidden=VERDICT)

    workspace: str = ""
    commits: list[CommitSummary] = field(default_factory=list)


@dataclass
class ShowReport(Report):
    """`show`: one commit with its summary, the history it consumed and the diff."""

    json_shape = Shape(inner="detail")

    detail: CommitDetail | None = None


@dataclass
class WhyAnswer(Report):
    """`why`: the commit that wrote a memory line, its kind, and for a dream the entries behind it."""

    json_shape = Shape(inner="answer")

    answer: WhyReport | None = None


@dataclass
class RecallReport(Report):
    """`recall`: the memory lines, skills and archived lines that best match a question, and apart from them
    the hypothesis lines that do (inferred, never stated: not to be presented as memory). Asked `as_of` a day,
    memory as it stood then: `commit` is the commit it read (None when memory had none by then)."""

    json_shape = Shape(hidden=(*VERDICT, "query"))

    query: str = ""
    hits: list[Hit] = field(default_factory=list)
    related_hypotheses: list[HypothesisHit] = field(default_factory=list)
    related_insights: list[RelatedInsight] = field(default_factory=list)  # connections, never facts
    as_of: str | None = None  # YYYY-MM-DD, or None for memory as it is now
    commit: str | None = None


@dataclass
class MemoryAsOf(Report):
    """`show --as-of`: memory files as the last commit on or before a day left them (`commit` None: memory had
    no commit by then), corrected by history's dates: lines a later dream learned from a session of that day or
    before are in, lines archived as no longer true by then are out."""

    json_shape = Shape(hidden=VERDICT)

    as_of: str = ""
    commit: str | None = None
    time: str | None = None  # the commit's committer date
    files: list[MemoryFile] = field(default_factory=list)  # `missing`: the file did not exist then
    learned_later: list[str] = field(default_factory=list)  # "path: line" in by history's date, not the commit's
    ended: list[str] = field(default_factory=list)  # "path: line" the commit held, no longer true by then


@dataclass
class SkillsReport(Report):
    """`skills`: each skill's use (30 days), last use, companions, at-risk, thin and unused marks, family."""

    json_shape = Shape(hidden=VERDICT)

    skills: list[SkillRow] = field(default_factory=list)


@dataclass
class DeadLetter(Declared):
    """A malformed line of history.jsonl nobody acknowledged: where it is, why, and the line as stored."""

    line: int
    offset: int
    reason: str
    raw: str


@dataclass
class DeadLettersReport(Report):
    """`history`: the malformed lines waiting for a person, in file order."""

    json_shape = Shape(hidden=VERDICT)

    letters: list[DeadLetter] = field(default_factory=list)


@dataclass
class AckReport(Report):
    """`history ack`: malformed lines acknowledged, and numbers that are no dead letter nanodream knows."""

    json_shape = Shape(hidden=VERDICT)

    acknowledged: list[int] = field(default_factory=list)
    not_found: list[int] = field(default_factory=list)


@dataclass
class QuarantineReport(Report):
    """`quarantine`: the entries set aside because they failed even on their own, oldest first."""

    json_shape = Shape(hidden=VERDICT)

    entries: list[QuarantinedEntry] = field(default_factory=list)


@dataclass(frozen=True)
class SlashReply(Declared):
    """The answer to one slash command: the markdown a host shows, and (`slash --json`) what is behind it."""

    markdown: str
    exit_code: int = ExitCode.OK
    result: Any = None  # the structured answer behind the markdown, None for an error
    command: str = ""  # the command as typed, lower case; "" when there was none


# the review lane --------------------------------------------------------------------------------------------


@dataclass
class ProposalsReport(Report):
    """`review`: the proposals review runs left pending, oldest first."""

    json_shape = Shape(hidden=VERDICT)

    proposals: list[Proposal] = field(default_factory=list)


@dataclass
class Reviewable(Declared):
    """A pending proposal and its diff, for a front end that shows both."""

    json_shape = Shape(spread=("proposal",))

    proposal: Proposal
    diff: str = ""


@dataclass
class ReviewQueue(Report):
    """The pending proposals with their diffs (one `git show` each), oldest first."""

    json_shape = Shape(hidden=VERDICT)

    proposals: list[Reviewable] = field(default_factory=list)


@dataclass
class HypothesesReport(Report):
    """`hypotheses list`: the inferred lines still marked in the core files, each with its `ref` (docs/json.md)."""

    json_shape = Shape(hidden=VERDICT)

    hypotheses: list[HypothesisLine] = field(default_factory=list)


# insights ---------------------------------------------------------------------------------------------------


@dataclass
class InsightsReport(Report):
    """`insights list`: the insights in view (or of one status), by name, and apart the files that do not parse;
    `--json` prints the list of insights alone."""

    json_shape = Shape(hidden=VERDICT)

    insights: list[Insight] = field(default_factory=list)
    broken: list[Broken] = field(default_factory=list)


@dataclass
class InsightReport(Report):
    """`insights show`: one insight record, and what cites each of its sources too."""

    json_shape = Shape(inner="insight")

    insight: Insight | None = None


@dataclass
class ReflectReport(Report):
    """`reflect`: memory's health, read without a model (docs/insights.md)."""

    json_shape = Shape(inner="reflection")

    reflection: Reflection | None = None


# the prompt -------------------------------------------------------------------------------------------------


@dataclass
class PromptReport(Report):
    """`prompt show`: which dream prompt is active, and its text."""

    json_shape = Shape(inner="info")

    info: PromptInfo | None = None


@dataclass
class RenderedReport(Report):
    """`prompt show --rendered`: exactly what the next session would send, without sending it."""

    json_shape = Shape(inner="request")

    request: RenderedRequest | None = None


# models, evaluation ----------------------------------------------------------------------------------------


@dataclass
class ModelCheck(Report):
    """`model check`: what the model's tiny dream kept; exit 1 unless it kept both facts and replaced the
    corrected line."""

    json_shape = Shape(inner="verdict")

    verdict: ModelVerdict | None = None


@dataclass(frozen=True)
class EvalRequest:
    """What `eval` scores: scenario folders (default: the shipped corpus, or its transcripts), with which model and
    prompt, against what (`against_model`, `against_prompt`), spending at most `max_cost` USD."""

    corpus: tuple[Path, ...] = ()
    transcripts: bool = False
    top_k: int = 5
    model: str | None = None
    prompt: Path | None = None
    against_model: str | None = None
    against_prompt: Path | None = None
    max_cost: float | None = None

    @property
    def compared(self) -> bool:
        return self.against_model is not None or self.against_prompt is not None


@dataclass
class EvalAnswer(Report):
    """`eval`: the evaluation, and with a second model or prompt the difference to it (`against`)."""

    json_shape = Shape(hidden=(*VERDICT, "evaluation"), spread=("evaluation",))

    evaluation: EvalReport | None = None
    against: dict[str, Any] | None = None  # {other, delta, scenarios}: evaluation.report.compare without `base`


@dataclass
class ImportedScenario(Declared):
    path: str
    asks: int


@dataclass
class LocomoReport(Report):
    """`eval import-locomo`: the scenarios written, one per conversation, with their asks."""

    json_shape = Shape(hidden=VERDICT)

    scenarios: list[ImportedScenario] = field(default_factory=list)


@dataclass
class SimulateReport(Report):
    """`simulate`: where the scenario was written and how long its history is."""

    json_shape = Shape(hidden=VERDICT)

    path: str = ""
    seed: int = 0
    days: int = 0
    entries: int = 0


# schedules, the fleet ----------------------------------------------------------------------------------------


@dataclass
class SchedulePlan(Report):
    """When dreams are due: the flags' schedule, else the workspace's `schedule` setting; refused when neither
    gives one or it does not parse."""

    json_shape = Shape(hidden=(*VERDICT, "timetable", "delay"),
                       derived=("schedule", "cron", "interval_seconds", "timezone"))

    timetable: Schedule | None = None
    delay: timedelta = timedelta(0)  # never run sooner than this after start-up

    @property
    def schedule(self) -> str:
        return self.timetable.describe() if self.timetable else ""

    @property
    def cron(self) -> str | None:
        return self.timetable.cron if self.timetable else None

    @property
    def interval_seconds(self) -> float | None:
        interval = self.timetable.interval if self.timetable else None
        return interval.total_seconds() if interval else None

    @property
    def timezone(self) -> str:
        return str(self.timetable.tz) if self.timetable else ""


@dataclass
class ScheduleSnippet(Report):
    """`schedule --print-crontab|--print-systemd`: the schedule and the text to install."""

    json_shape = Shape(hidden=(*VERDICT, "plan"), spread=("plan",))

    kind: str = ""  # crontab | systemd
    plan: SchedulePlan | None = None
    text: str = ""


@dataclass
class FleetSweep(Report):
    """`fleet enqueue`: what one sweep over the roots found and enqueued."""

    json_shape = Shape(inner="sweep")

    sweep: SweepReport | None = None


@dataclass
class FleetFailure(Declared):
    workspace: str
    reason: str
    at: str


@dataclass
class FleetStatus(Report):
    """`fleet status`: the queue's job counts and each failing workspace's latest reason, newest first."""

    json_shape = Shape(hidden=VERDICT)

    queue: str = ""
    queued: int = 0
    started: int = 0
    finished: int = 0
    failed: int = 0
    failures: list[FleetFailure] = field(default_factory=list)


# a host's dream session, and installing nanodream into a host -----------------------------------------------


@dataclass
class DreamSession(Report):
    """`dream_begin`: a dream session whose model is the host. `session` is its id (null: nothing to dream, or
    refused); the batch a run would cut, the memory files, the skills, the dream prompt (`instructions`) and what
    nanodream computed for it (`signals`), `host` the model its commit will name, and how long it may sit idle."""

    session: str | None = None
    batch: list[BatchLine] = field(default_factory=list)
    memory: dict[str, str | None] = field(default_factory=dict)
    skills: list[SkillLine] = field(default_factory=list)
    instructions: str = ""
    signals: str = ""
    host: str = ""
    expires_in_s: float = 0.0


@dataclass
class DreamToolReport(Report):
    """One of the dream's tools a host called on its session's staged copy: what the tool answered (`text`, as a
    model reads it), whether it `ok`, and `ended` when the call ended the session (a path outside the memory files
    voids it, a cap stops it; `reason` then says what the run recorded)."""

    session: str = ""
    tool: str = ""
    ok: bool = False
    text: str = ""
    ended: bool = False


@dataclass
class DreamFinish(Report):
    """`dream_finish`: a `question` about facts left `open` (nothing committed, the session still open), or the
    end of the session — the dream's commit (`sha`, null without one), every commit it made (the insights' after
    it), the history `cursor` as memory/.dream_cursor holds it, how many of the batch's facts memory holds."""

    session: str = ""
    committed: bool = False
    sha: str | None = None
    commits: list[str] = field(default_factory=list)
    cursor: int = 0
    kept: int = 0
    open: list[OpenFact] = field(default_factory=list)
    question: str | None = None
    warnings: list[str] = field(default_factory=list)
    proposal: str | None = None  # the review lane's commit holding what waits for a person (review, held lines)
    run_id: str = ""
    expires_in_s: float | None = None  # asked: how long the still open session may sit idle


@dataclass
class DreamAbort(Report):
    """`dream_abort`: the session ended with nothing applied; the workspace is as it was before it began."""

    session: str = ""


@dataclass
class HostsInstallReport(Report):
    """`hosts install HOST`: the host's files it wrote (with --dry-run: would write), each `created`, `updated`,
    `unchanged` or `kept` (a command file holding other text, left alone), and the text each holds after it."""

    host: str = ""
    workspace: str = ""
    dry_run: bool = False
    files: list[Planned] = field(default_factory=list)


@dataclass
class HostsReport(Report):
    """`hosts list`: each host, whether it starts nanodream's server and for which workspace, and its command."""

    json_shape = Shape(hidden=VERDICT)

    workspace: str = ""
    hosts: list[HostState] = field(default_factory=list)


# What `from nanodream.api.reports import *` binds: the types declared here and the words every front end uses.
# (The ELSEWHERE names are left out: binding them would import their modules.)
__all__ = ["CORE_FILES", "VERDICT", "Declared", "ExitCode", "Outcome", "Refused", "Report", "Shape", "Workspace",
           *(name for name, value in list(globals().items())
             if isinstance(value, type) and value.__module__ == __name__)]
