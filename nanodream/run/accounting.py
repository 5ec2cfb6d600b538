"""Honesty per fact: after every session, each tagged fact of the batch is accounted for, or not consumed.

A session's edits prove nothing by themselves: small local models wrap a whole file in `<file>` tags, copy an
example call, file a fact in the wrong file, or file one fact of three and claim all of them. So after every
session, edits or not, each `[permanent]`, `[durable]` and `[correction]` line of the batch must be one of:

- kept: a line of the file it belongs in keeps it (engines/facts.py: same subject, polarity and values; a skill;
  an archived line not marked as replaced) — a correction only once the line it corrects is gone;
- misfiled: a line keeps it, but in another file than it belongs in (a fact about the person outside USER.md, a
  rule for the agent outside SOUL.md, a project fact outside MEMORY.md); asked about once, then committed where
  it landed with a warning. A statement is never kept by an order in SOUL.md;
- rejected: memory/rejected.md holds it (a person said no);
- proposed: a pending review-lane proposal holds it;
- withheld: a guard keeps it out with a warning (a secret, an instruction aimed at the agent);
- declined: the built-in rules kept it out, with their reason;
- superseded: a later correction of the same batch replaced it, and that correction is kept;
- explained: the model said why, in words that hold up (run/reasons.py).

Facts left over get one corrective question in the same conversation; it carries no example a model could
copy into a real edit. What is still unaccounted after it is never consumed (run/pipeline.py holds the cursor
before its entry). Memory's lines are indexed once per accounting (run/held.py), so a fact is compared only
with the lines that share a word with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from functools import cached_property

from nanodream.backlog.history import Batch
from nanodream.engines import Engine, SessionRequest, SessionResult
from nanodream.engines.facts import (
    BatchFact,
    batch_facts,
    belongs_in,
    corrects,
    holds,
    ordered,
    procedure_held,
    replaced_in_place,
)
from nanodream.engines.numbered import reasons_in
from nanodream.memory.staging import Staging
from nanodream.rejected import fact_key as rejected_key
from nanodream.rejected import fact_text
from nanodream.run import held, reasons
from nanodream.run.held import Line, LineIndex
from nanodream.run.reasons import Evidence, Explanations
from nanodream.safety import injection, secret_scan
from nanodream.text.sentences import sentences
from nanodream.text.words import content_words, fact_key
from nanodream.toolbox.tools import ToolBox
from nanodream.vocab import count
from nanodream.workspace import MEMORY, SOUL

__all__ = ["Account", "Explanations", "FactAccount", "Ledgers", "Reason", "Status", "account_for", "hold_to_account"]


class Status(StrEnum):
    KEPT = "kept"
    MISFILED = "misfiled"
    REJECTED = "rejected"
    PROPOSED = "proposed"
    WITHHELD = "withheld"
    DECLINED = "declined"
    SUPERSEDED = "superseded"
    EXPLAINED = "explained"
    UNACCOUNTED = "unaccounted"


HELD = (Status.KEPT, Status.MISFILED, Status.REJECTED, Status.PROPOSED)


@dataclass(frozen=True)
class Reason:
    """Why a session kept a fact of the batch out of memory, in its own words."""

    fact: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class FactAccount:
    """What became of one fact; `note` is the reason given, or what is wrong with how it landed."""

    fact: BatchFact
    status: Status
    note: str = ""


@dataclass
class Account:
    """The batch's facts after the session (and its corrective turn, if one was asked)."""

    facts: list[FactAccount] = field(default_factory=list)
    asked: bool = False

    @property
    def unaccounted(self) -> list[FactAccount]:
        return [item for item in self.facts if item.status == Status.UNACCOUNTED]

    @property
    def open(self) -> list[FactAccount]:
        """What the corrective question asks about: facts unaccounted, and facts filed in the wrong file."""
        return [item for item in self.facts if item.status in (Status.UNACCOUNTED, Status.MISFILED)]

    @property
    def misfiled(self) -> list[FactAccount]:
        return [item for item in self.facts if item.status == Status.MISFILED]

    @property
    def unkept(self) -> list[str]:
        """The facts memory does not hold (kept out for a reason, or lost)."""
        return [item.fact.text for item in self.facts if item.status not in HELD]

    @property
    def reasons(self) -> list[Reason]:
        given = (Status.DECLINED, Status.EXPLAINED, Status.SUPERSEDED)
        return [Reason(item.fact.text, item.note) for item in self.facts if item.status in given]

    @property
    def kept(self) -> int:
        return sum(1 for item in self.facts if item.status in (Status.KEPT, Status.MISFILED))

    def first_open_entry(self) -> int | None:
        """The index of the first entry of the batch with an unaccounted fact (None: every fact is accounted)."""
        return min((item.fact.entry for item in self.unaccounted), default=None)

    def warnings(self) -> list[str]:
        """A fact committed where it landed, not where it belongs: never silently."""
        return [f"misfiled: {item.fact.text[:80]!r} — {item.note}" for item in self.misfiled]


@dataclass(frozen=True)
class Ledgers:
    """What accounts for a fact besides the staged files: the rejected ledger's keys, the pending proposals'
    lines (read only when needed), the engine's own rules' reasons, and whether the engine can be asked (a model):
    then a correction beside its old line is unaccounted and a misfiled fact asked about; the built-in rules'
    are left to the guards' report and a warning."""

    rejected: frozenset[frozenset[str]] = frozenset()
    proposed: Callable[[], list[str]] = list
    declined: dict[str, str] = field(default_factory=dict)
    filed: dict[str, str] = field(default_factory=dict)  # the built-in rules' record of a fact kept in another form
    strict_corrections: bool = True


@dataclass
class _Memory:
    """What can hold a fact, read and indexed once per accounting."""

    staging: Staging
    ledgers: Ledgers

    @cached_property
    def active(self) -> LineIndex:
        return held.active_index(self.staging)

    @cached_property
    def archived(self) -> LineIndex:
        return held.archive_index(self.staging)

    @cached_property
    def skills(self) -> dict[str, str]:
        return {path.split("/")[1]: self.staging.read(path) or "" for path in self.staging.skill_paths()}

    @cached_property
    def proposed(self) -> LineIndex:
        """The pending review proposals' lines: read (from git) only for a fact memory does not hold."""
        raw = self.ledgers.proposed()
        return LineIndex(Line("", text, "") for text in (fact_text(line) for line in raw) if text)

    @cached_property
    def began(self) -> list[str]:
        return self.staging.core_lines(began=True)

    @cached_property
    def now(self) -> set[str]:
        return set(self.staging.core_lines())

    def replaced(self, fact: BatchFact) -> bool:
        """Whether a correction took the place of the line it corrects (`replaced_in_place`)."""
        return replaced_in_place(fact.text, self.began, self.now)

    def keeping(self, fact: BatchFact, index: LineIndex) -> list[Line]:
        correction = fact.is_correction
        return [line for line in index.near(fact.text)
                if holds(line.text, fact.text, correction=correction, context=line.context)]

    def evidence(self, accounts: list[FactAccount]) -> Evidence:
        kept = {item.fact.number for item in accounts if item.status in HELD}
        words = frozenset(word[:5] for item in accounts for word in content_words(item.fact.text))
        return Evidence(self.active, self.archived, held.added_lines(self.staging), words, kept.__contains__)


def account_for(batch: Batch, staging: Staging, ledgers: Ledgers = Ledgers(),
                explained: Explanations | None = None) -> Account:
    """Every tagged fact of `batch` against the staged memory, the ledgers and the model's reasons."""
    facts = batch_facts(batch)
    memory = _Memory(staging, ledgers)
    accounts = [_first_look(fact, memory) for fact in facts]
    accounts = [_superseded(item, accounts) for item in accounts]
    evidence = memory.evidence(accounts)
    return Account([_explained(item, evidence, explained or Explanations()) for item in accounts])


def _first_look(fact: BatchFact, memory: _Memory) -> FactAccount:
    """What memory, the ledgers, the guards and the engine's own record say about one fact."""
    tripped = secret_scan.rules_hit(fact.text) or injection.rules_hit(fact.text)
    if tripped:
        return FactAccount(fact, Status.WITHHELD, f"withheld by a guard ({', '.join(tripped)})")
    if rejected_key(fact.text) in memory.ledgers.rejected:
        return FactAccount(fact, Status.REJECTED, "a person rejected it (memory/rejected.md)")
    if procedure_held(fact.text, memory.skills, [line.text for line in memory.active.lines]):
        return FactAccount(fact, Status.KEPT, "a skill holds its steps")
    keeping = _held(fact, memory)
    if keeping:
        return _placed(fact, keeping, memory)
    if _held(fact, memory, memory.archived):
        return FactAccount(fact, Status.KEPT, "archived")
    if _held(fact, memory, memory.proposed):
        return FactAccount(fact, Status.PROPOSED, "held back for review (nanodream review)")
    return _recorded(fact, memory.ledgers)


def _held(fact: BatchFact, memory: _Memory, index: LineIndex | None = None) -> list[Line]:
    """The lines that keep the fact; a fact of several sentences, filed one line each, is kept when every
    sentence is."""
    index = index or memory.active
    found = memory.keeping(fact, index)
    if found:
        return found
    parts = _sentences(fact)
    if len(parts) < 2:
        return []
    each = [memory.keeping(part, index) for part in parts]
    return [line for lines in each for line in lines] if all(each) else []


def _sentences(fact: BatchFact) -> list[BatchFact]:
    return [replace(fact, text=part) for part in sentences(fact.text)]


def _placed(fact: BatchFact, keeping: list[Line], memory: _Memory) -> FactAccount:
    """Kept where it belongs, misfiled, or beside the line it corrects."""
    if fact.is_correction and memory.ledgers.strict_corrections and not memory.replaced(fact):
        beside = next((line.text for line in memory.active.near(fact.text) if not line.path.startswith("skills/")
                       and corrects(fact.text, line.text, path=line.path)), "")
        if beside:
            return FactAccount(fact, Status.UNACCOUNTED, f"it landed beside the line it corrects, {beside!r}, "
                                                         "which is still there: replace that line instead")
    statements = [line for line in keeping if not (line.path == SOUL and ordered(line.text, fact.text))]
    if not statements:
        return FactAccount(fact, Status.UNACCOUNTED, "SOUL.md holds it only as an order for the agent; a "
                                                     f"statement of fact belongs in {belongs_in(fact.text) or MEMORY}")
    home = belongs_in(fact.text)
    if home is None or any(line.path == home or line.path.startswith("skills/") for line in statements):
        return FactAccount(fact, Status.KEPT)
    if home == MEMORY and all(line.path == SOUL for line in statements):
        return FactAccount(fact, Status.KEPT)  # a statement of how things go may be a rule: SOUL.md is not wrong
    return FactAccount(fact, Status.MISFILED, f"kept in {statements[0].path}; it belongs in {home}")


def _recorded(fact: BatchFact, ledgers: Ledgers) -> FactAccount:
    """What the engine's own rules recorded about a fact memory does not hold word for word."""
    key = fact_key(fact.text)
    declined = {fact_key(text): why for text, why in ledgers.declined.items()}
    filed = {fact_key(text): how for text, how in ledgers.filed.items()}
    if key in declined:
        return FactAccount(fact, Status.DECLINED, declined[key])
    if key in filed:
        return FactAccount(fact, Status.KEPT, f"kept by the built-in rules as {filed[key]}")
    return FactAccount(fact, Status.UNACCOUNTED)


def _superseded(item: FactAccount, accounts: list[FactAccount]) -> FactAccount:
    """A fact a later correction of the batch replaced is accounted for once that correction is kept."""
    if item.status != Status.UNACCOUNTED or item.note:
        return item
    later = next((other for other in accounts if other.fact.number > item.fact.number and other.fact.is_correction
                  and other.status in HELD and corrects(other.fact.text, item.fact.text)), None)
    if later is None:
        return item
    return FactAccount(item.fact, Status.SUPERSEDED, f"replaced by the batch's own correction: {later.fact.text}")


def _explained(item: FactAccount, evidence: Evidence, explained: Explanations) -> FactAccount:
    reason = explained.reasons.get(item.fact.number, "")
    if item.status != Status.UNACCOUNTED or not reason:
        return item
    problem = reasons.problem_with(reason, item.fact, evidence, explained)
    if problem:
        return FactAccount(item.fact, Status.UNACCOUNTED, f"its reason {reason[:80]!r} {problem}")
    return FactAccount(item.fact, Status.EXPLAINED, reason)


def hold_to_account(engine: Engine, request: SessionRequest, result: SessionResult, toolbox: ToolBox, *,
                    text_calls: bool, ledgers: Ledgers = Ledgers()) -> tuple[SessionResult, Account]:
    """Account for the batch's facts after a session; ask once more about those left over or misfiled.

    A session voided by a refused call is left to the guards, which fail it with the refusal itself; a tidy
    pass (no entries) has no facts to account for.
    """
    if any(refusal.blocking for refusal in toolbox.refusals) or not request.batch.entries:
        return result, Account()

    ledgers = replace(ledgers, rejected=request.rejected, declined=result.declined, filed=result.filed)

    def look(explained: Explanations) -> Account:
        return account_for(request.batch, toolbox.staging, ledgers, explained)

    account = look(Explanations(dict(result.explanations)))
    # the built-in rules cannot be asked: a fact they filed elsewhere is only said aloud
    open_facts = account.open if ledgers.strict_corrections else account.unaccounted
    if not open_facts:
        result.warnings += account.warnings()
        return result, account
    question = reasons.question([(item.fact, item.note) for item in open_facts], text_calls=text_calls)
    asked = replace(request, open_facts=tuple(item.fact.number for item in open_facts))
    summary = result.summary
    result = engine.follow_up(asked, result, question, toolbox)
    answer = f"{result.summary}\n{result.reasons_given}"
    result.summary = summary or result.summary  # the answer's reasons are not a summary
    if any(refusal.blocking for refusal in toolbox.refusals):
        return result, Account(account.facts, asked=True)
    listed = tuple(item.fact.number for item in open_facts)
    given = {listed[n - 1]: why for n, why in reasons_in(answer, len(listed)).items()}
    account = look(Explanations({**result.explanations, **given}, question, listed))
    account.asked = True
    result.warnings += account.warnings()
    return result, account


def misuse_reason(stopped: str) -> str:
    """The one line of a session stopped for repeating a call no tool can run, having changed nothing."""
    return (f"the model kept making tool calls no tool can run and changed nothing ({stopped}); it may not "
            "support tool calls — see `nanodream model check`")


def unaccounted_reason(toolbox: ToolBox, account: Account) -> str:
    """The one line a batch with unaccounted facts ends with."""
    missing = account.unaccounted
    first = missing[0]
    what = (f"{count(len(missing), 'fact')} of the batch {'is' if len(missing) == 1 else 'are'} neither kept "
            f"nor explained (first: {first.fact.text[:80]!r}" + (f" — {first.note[:120]}" if first.note else "")
            + ")")
    if not toolbox.calls and not toolbox.staging.changes():
        did = "the model answered without using its tools"
    elif not toolbox.staging.changes():
        did = f"the model changed no memory file ({count(toolbox.calls, 'tool call')})"
    else:
        did = f"the model kept {count(account.kept, 'fact')} of {len(account.facts)}"
    return f"{did}; {what}; the cursor stays before it — see `nanodream model check`"
