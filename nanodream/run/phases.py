"""The run's insight phases, once after its batches: reflect → re-evaluate → connect, then their one commit.

They are passes of the declared list (run/pipeline.py, `once=True`), each switchable by the `phases` setting
or `run --phases`. They write only `memory/insights/` — never an active file — in one commit of their own
whose trailers carry their tokens and cost apart from the consolidation's. A phase with nothing to read is
skipped and says so; a model that fails connect costs its proposals, never the run or re-evaluate's work.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date

from nanodream.atomic import read_text
from nanodream.backlog.history import Position
from nanodream.backlog.position import resume
from nanodream.engines import SessionError, SessionResult, describe_error
from nanodream.insights.edges import back_edges
from nanodream.insights.generator import Pair, candidates, cited_refs, explore_seeds, generate
from nanodream.insights.history_index import up_to_date
from nanodream.insights.knowledge import Item, Knowledge, canonical
from nanodream.insights.proposals import Proposals
from nanodream.insights.records import Insight, one_line, render
from nanodream.insights.reevaluate import reevaluate
from nanodream.insights.reflect import Reflection, reflect
from nanodream.insights.session import connect_message, connect_prompt, converse
from nanodream.insights.shelf import Shelf, read_shelf
from nanodream.insights.tools import ConnectBox
from nanodream.memory import transaction
from nanodream.memory.staging import Staging
from nanodream.retrieval.documents import shown, sources
from nanodream.run import confirmations
from nanodream.run.cascade import out_of_date
from nanodream.run.context import RunContext
from nanodream.run.passes import DONE, Pass, PassResult
from nanodream.run.report import PhaseOutcome, RunReport
from nanodream.run.transcripts import Transcript, save_transcript
from nanodream.toolbox.limits import ToolLimits
from nanodream.versioning.commitmsg import InsightFacts, change_line, insights_message
from nanodream.vocab import Outcome
from nanodream.workspace import INSIGHTS_DIR, Workspace


@dataclass(frozen=True)
class Before:
    """What memory held when the run began: what lets connect tell this run's material from older knowledge."""

    lines: frozenset[str]  # every line of the core files and the archive, as written (a moved line is no news)
    skills: frozenset[str]
    position: Position  # the history position

    @property
    def offset(self) -> int:
        return self.position.offset


def before_run(workspace: Workspace) -> Before:
    skills = frozenset(path.split("/")[1] for path in workspace.memory_paths() if path.startswith("skills/"))
    return Before(memory_lines(workspace), skills, resume(workspace).position)


def memory_lines(workspace: Workspace) -> frozenset[str]:
    """Every line of the core files and the archive as it stands: read and split, nothing parsed."""
    lines: set[str] = set()
    for path in sources(workspace):
        if not path.startswith("skills/"):
            lines.update(line.strip() for line in read_text(workspace.root / path).splitlines())
    return frozenset(lines)


@dataclass
class PhaseWork:
    """What the phases of one run share: its context and report, a staged copy for insight files, what they found."""

    ctx: RunContext
    report: RunReport
    before: Before
    exploring: bool
    outcome: PhaseOutcome = field(default_factory=PhaseOutcome)
    staging: Staging | None = None
    shelf: Shelf = field(default_factory=Shelf)
    reflection: Reflection | None = None
    decided: list[tuple[str, str, str]] = field(default_factory=list)  # (name, change, note)
    _knowledge: Knowledge | None = None

    def on(self, phase: str) -> bool:
        return phase in self.ctx.settings.phases

    @property
    def today(self) -> date:
        return self.ctx.day

    @property
    def knowledge(self) -> Knowledge:
        """Everything connect may cite, read once, with history indexed up to the position the batches reached."""
        if self._knowledge is None:
            workspace = self.ctx.workspace
            history = up_to_date(workspace, resume(workspace).position, since=self.before.position,
                                 save=not self.ctx.dry_run)
            self._knowledge = Knowledge.read(workspace, history)
            self._knowledge.fresh = self._fresh(self._knowledge)
        return self._knowledge

    def _fresh(self, knowledge: Knowledge) -> frozenset[str]:
        """Refs of what this run brought: lines and skills it added, sessions it consumed, its commits."""
        if self.exploring:
            return frozenset()
        added = {canonical(shown(line)) for line in memory_lines(self.ctx.workspace) - self.before.lines}
        found = {item.ref for item in knowledge.items["memory"] + knowledge.items["archive"] if item.text in added}
        found |= {item.ref for item in knowledge.items["skills"] if item.source not in self.before.skills}
        start = self.before.offset
        found |= {f"session:{key}" for key, session in knowledge.sessions.items() if session.last >= start}
        found |= {f"commit:{sha}" for sha in self.report.commits}
        return frozenset(found)

    def stage(self, insight: Insight, change: str, note: str = "") -> None:
        assert self.staging is not None
        self.staging.include(insight.path)
        self.staging.write(insight.path, render(insight))
        self.decided.append((insight.name, change, one_line(note)))
        self.outcome.insights.append({**insight.to_json(), "change": change})

    def note(self, text: str, *, ran: str = "") -> PassResult:
        self.outcome.notes.append(text)
        if ran:
            self.outcome.ran.append(ran)
        return DONE


def reflect_phase(work: PhaseWork) -> PassResult:
    if not work.on("reflect"):
        return DONE
    settings, workspace = work.ctx.settings, work.ctx.workspace
    restated = confirmations.load(workspace)
    found = reflect(workspace, work.shelf, settings.archive_after_days,
                    lambda line: restated.get(confirmations.line_key(line)), work.today)
    found.out_of_date = [item.message for item in out_of_date(workspace)]
    if found.empty and not found.read:
        return work.note("reflect: skipped (memory holds no lines yet)")
    work.reflection = found
    work.outcome.reflection = found
    return work.note(f"reflect: {len(found.lines())} findings" if not found.empty else "reflect: all healthy",
                     ran="reflect")


def reevaluate_phase(work: PhaseWork) -> PassResult:
    if not work.on("re-evaluate"):
        return DONE
    if not any(insight.status in ("proposed", "reinforced") for insight in work.shelf.insights):
        return work.note("re-evaluate: skipped (no insight waits for a decision)")
    changed = reevaluate(work.shelf, work.knowledge, work.today)
    for item in changed:
        work.stage(item.insight, item.change, item.note)
    tally = ", ".join(f"{item.insight.name} {item.change}" for item in changed) or "nothing changed"
    return work.note(f"re-evaluate: {tally}", ran="re-evaluate")


def connect_phase(work: PhaseWork) -> PassResult:
    if not work.on("connect"):
        return DONE
    if not work.exploring and not (work.report.commits or any(batch.proposal for batch in work.report.batches)):
        return work.note("connect: skipped (this run changed no memory file: it learned nothing new to connect)")
    knowledge = work.knowledge
    starts, before = _starts(work)
    if not starts:
        return work.note("connect: skipped (" + ("no material older than 30 days to explore" if work.exploring
                                                  else "this run brought nothing new to connect") + ")")
    if not any(not knowledge.is_fresh(item.ref) for item in knowledge.everything()):
        return work.note("connect: skipped (nothing older to connect to yet)")
    proposals = Proposals(knowledge, _shelf_now(work), work.ctx.settings.max_insights, work.today)
    seeds = starts if work.exploring else None
    if work.ctx.settings.offline:
        generate(knowledge, proposals, seeds, before)
    else:
        leads = candidates(knowledge, cited_refs(proposals), seeds, before)
        if not leads:  # a model is asked only when something older shares a rare term with the starting points
            return work.note("connect: skipped (nothing older shares a rare term with "
                             + ("the explored items)" if work.exploring else "this run's material)"))
        problem = _with_model(work, proposals, starts, leads)
        if problem:
            return work.note(f"connect: {problem}")
    for insight in proposals.accepted:
        work.stage(insight, "proposed")
    said = ", ".join(insight.name for insight in proposals.accepted) or "nothing worth a look"
    return work.note(f"connect: proposed {said}" if proposals.accepted else f"connect: {said}", ran="connect")


def _starts(work: PhaseWork) -> tuple[list[Item], date | None]:
    """Where connect starts: this run's new items, or (exploring) the old items the day's seed picked."""
    knowledge = work.knowledge
    if work.exploring:
        return explore_seeds(knowledge, work.today)
    return [item for item in knowledge.everything() if knowledge.is_fresh(item.ref)], None


def _shelf_now(work: PhaseWork) -> Shelf:
    """The insights as re-evaluate left them: what connect must not propose again."""
    assert work.staging is not None
    staged = {path: work.staging.read(path) for path in work.staging.existing_paths()
              if path.startswith(f"{INSIGHTS_DIR}/")}
    return read_shelf(work.ctx.workspace, staged)


def _with_model(work: PhaseWork, proposals: Proposals, starts: list[Item], leads: list[Pair]) -> str:
    """The connect conversation; '' when it ran, else why not (its proposals are then dropped)."""
    ctx, report = work.ctx, work.report
    left = ctx.settings.max_run_tokens - report.tokens_in - report.tokens_out
    if left <= 0 or (ctx.settings.max_cost is not None and (report.cost or 0.0) >= ctx.settings.max_cost):
        return "skipped (the run's token or cost budget is spent)"
    settings = replace(ctx.settings, max_session_tokens=min(ctx.settings.max_session_tokens, left))
    assert work.staging is not None
    box = ConnectBox(work.staging, ToolLimits.from_settings(settings), work.knowledge, proposals)
    system = connect_prompt(settings.tool_mode == "text")
    message = connect_message(box, starts, leads, work.reflection, exploring=work.exploring)
    try:
        engine = ctx.engine_factory(settings)
    except Exception as exc:  # a missing key or provider package: the consolidation said so already, or did not need it
        return f"skipped (cannot start {settings.model!r}: {describe_error(exc)})"
    try:
        result = converse(engine, box, system, message, ctx.options.observer.activity)
    except SessionError as exc:
        _spent(work, exc.spent)
        _keep(work, exc.transcript, f"failed: {exc.reason}")
        proposals.accepted.clear()
        return f"failed, nothing proposed ({exc.reason})"
    if result is None:
        return f"skipped ({settings.model!r} holds no conversation of its own)"
    _spent(work, result)
    _keep(work, result.transcript, "finished")
    return ""


def _spent(work: PhaseWork, result: SessionResult) -> None:
    outcome = work.outcome
    outcome.tokens_in += result.tokens_in
    outcome.tokens_out += result.tokens_out
    outcome.cached_tokens += result.cached_tokens
    outcome.requests += result.requests
    if result.cost is not None:
        outcome.cost = (outcome.cost or 0.0) + result.cost


def _keep(work: PhaseWork, messages: list, ended: str) -> None:
    ctx = work.ctx
    if not ctx.dry_run:
        save_transcript(ctx.workspace, Transcript(ctx.run_id, 0, 0, ctx.settings.model, messages, ended,
                                                  part="connect"), keep=ctx.settings.keep_transcripts)


def record_phase(work: PhaseWork) -> PassResult:
    """The phases' one commit (a dry run shows its diff); only insight files may be in it."""
    assert work.staging is not None
    changes = work.staging.changes()
    stray = [change.path for change in changes if not change.path.startswith(f"{INSIGHTS_DIR}/")]
    if stray:  # a phase writes insights only: anything else is a bug, and nothing of it lands
        return PassResult(failure=f"the insight phases staged {', '.join(stray)}; nothing of them applied")
    if not changes:
        return DONE
    if work.ctx.dry_run:
        work.outcome.diff = "".join(change.unified_diff() for change in changes)
        return DONE
    outcome, ctx = work.outcome, work.ctx
    facts = InsightFacts(ctx.run_id, ctx.settings.model, outcome.tokens_in, outcome.tokens_out,
                         outcome.cached_tokens, outcome.cost)
    try:
        outcome.commit = ctx.door.change(ctx.run_id, insights_message(work.decided, changes, facts), changes)
    except transaction.CommitFailed as exc:
        return PassResult(failure=f"the insights were not committed: {exc}")
    work.outcome.notes.append("insights: " + "; ".join(change_line(change) for change in changes))
    return DONE


def _back_edges(work: PhaseWork) -> None:
    """Per source this run's insights cite, every insight that cites it (rejected ones left out)."""
    cited = [source["ref"] for item in work.outcome.insights for source in item["sources"]]
    work.outcome.back_edges = back_edges(cited, _shelf_now(work).insights)


RUNS_AFTER = (Outcome.COMMITTED, Outcome.NO_CHANGE, Outcome.DRY_RUN)


def run_phases(ctx: RunContext, report: RunReport, before: Before, exploring: bool,
               passes: tuple[Pass[PhaseWork], ...]) -> None:
    """The phases after a consolidation that ended well (never after a failure or with nothing to do).

    A phase's failure, or a bug in one, is said in the run's notices; the consolidation's outcome stands.
    """
    if not ctx.settings.phases or report.outcome not in RUNS_AFTER:
        return
    if ctx.review == "all":  # a commit of insights would land while every change is to wait for a person
        report.notices.append("insights: the phases did not run; every change waits for review (review = all)")
        return
    try:
        work = PhaseWork(ctx, report, before, exploring, staging=Staging(ctx.workspace),
                         shelf=read_shelf(ctx.workspace))
    except Exception as exc:  # the consolidation already landed: a shelf that cannot be read fails only the phases
        report.notices.append(f"insights: internal error: {describe_error(exc)}")
        return
    report.phases = work.outcome
    try:
        for each in passes:
            result = each.step(work)
            work.outcome.notes += result.warnings
            if result.failure:
                report.notices.append(f"insights: {result.failure}")
                return
        _back_edges(work)
    except Exception as exc:  # a bug in a phase: one line; the consolidation already landed
        report.notices.append(f"insights: internal error: {describe_error(exc)}")
