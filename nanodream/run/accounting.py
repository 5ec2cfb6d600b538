"""Honesty per fact: after every session, each tagged fact of the batch is accounted for, or not consumed.

A session's edits prove nothing by themselves: small local models wrap a whole file in `<file>` tags, copy an
example call, or file one fact of three and claim all of them. So after every session, edits or not, each
`[permanent]`, `[durable]` and `[correction]` line of the batch must be one of:

- kept: a memory line holds it (engines/facts.py: an active file, a skill, an archived line not marked as
  replaced) — a correction only once the line it corrects is gone from the active files;
- rejected: memory/rejected.md holds it (a person said no);
- proposed: a pending review-lane proposal holds it;
- withheld: a guard keeps it out with a warning (a secret, an instruction aimed at the agent);
- declined: the built-in rules kept it out, with their reason;
- superseded: a later `[correction]` of the same batch replaced it, and that correction is kept;
- explained: the model said why, in words that hold up — not a placeholder ("reason"), not an echo of the
  question or of the fact, not a claim of an edit the diff does not show, not "see fact 3" when fact 3 is lost.

Facts left over get one corrective question in the same conversation; it carries no example a model could
copy into a real edit. What is still unaccounted after it is never consumed (run/batch.py holds the cursor
before its entry).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from functools import cached_property

from nanodream.backlog.history import Batch
from nanodream.engines import Engine, SessionRequest, SessionResult
from nanodream.engines.facts import (
    BatchFact,
    batch_facts,
    corrects,
    holds,
    marked_replaced,
    new_part,
    procedure_held,
)
from nanodream.memory.staging import Staging
from nanodream.rejected import fact_key as rejected_key
from nanodream.rejected import fact_text
from nanodream.run.claims import edit_claim
from nanodream.safety import injection, secret_scan
from nanodream.text.sentences import sentences
from nanodream.text.words import content_words, fact_key, similarity
from nanodream.toolbox.textcalls import CALL_FORMAT
from nanodream.toolbox.tools import ToolBox
from nanodream.vocab import count
from nanodream.workspace import ARCHIVE_DIR, CORE_FILES


class Status(StrEnum):
    KEPT = "kept"
    REJECTED = "rejected"
    PROPOSED = "proposed"
    WITHHELD = "withheld"
    DECLINED = "declined"
    SUPERSEDED = "superseded"
    EXPLAINED = "explained"
    UNACCOUNTED = "unaccounted"


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
    def unkept(self) -> list[str]:
        """The facts memory does not hold (kept out for a reason, or lost)."""
        held = (Status.KEPT, Status.REJECTED, Status.PROPOSED)
        return [item.fact.text for item in self.facts if item.status not in held]

    @property
    def reasons(self) -> list[Reason]:
        given = (Status.DECLINED, Status.EXPLAINED, Status.SUPERSEDED)
        return [Reason(item.fact.text, item.note) for item in self.facts if item.status in given]

    @property
    def kept(self) -> int:
        return sum(1 for item in self.facts if item.status == Status.KEPT)

    def first_open_entry(self) -> int | None:
        """The index of the first entry of the batch with an unaccounted fact (None: every fact is accounted)."""
        return min((item.fact.entry for item in self.unaccounted), default=None)


@dataclass
class _Memory:
    """The lines that can hold a fact, read once per accounting."""

    active: list[str]
    skills: dict[str, str]  # skill name → its text
    archived: list[str]
    added: list[str]  # lines the session added (the diff), for claims of edits
    read_proposed: Callable[[], list[str]]
    rejected: frozenset[frozenset[str]]

    @cached_property
    def proposed(self) -> list[str]:
        """The pending review proposals' lines: read (from git) only for a fact memory does not hold."""
        return [line for line in (fact_text(raw) for raw in self.read_proposed()) if line]


@dataclass(frozen=True)
class Explanations:
    """The model's reasons by the batch's fact numbers, and the question they answer: its words (a reason that
    echoes them explains nothing) and the batch numbers of the facts it listed, in order ("fact 2" in a reason
    means the question's second)."""

    reasons: dict[int, str] = field(default_factory=dict)
    question: str = ""
    listed: tuple[int, ...] = ()

    def batch_number(self, said: int) -> int | None:
        if not self.listed:
            return said
        return self.listed[said - 1] if 1 <= said <= len(self.listed) else None


@dataclass(frozen=True)
class Ledgers:
    """What accounts for a fact besides the staged files: the rejected ledger's keys, the pending proposals'
    lines (read only when needed), the engine's own rules' reasons, and whether a correction beside its old line
    is unaccounted (a model, which can be asked) or left to the guards' report (the built-in rules)."""

    rejected: frozenset[frozenset[str]] = frozenset()
    proposed: Callable[[], list[str]] = list
    declined: dict[str, str] = field(default_factory=dict)
    filed: dict[str, str] = field(default_factory=dict)  # the built-in rules' record of a fact kept in another form
    strict_corrections: bool = True


def account_for(batch: Batch, staging: Staging, ledgers: Ledgers = Ledgers(),
                explained: Explanations = Explanations()) -> Account:
    """Every tagged fact of `batch` against the staged memory, the ledgers and the model's reasons."""
    memory = _read(staging, ledgers.proposed, ledgers.rejected)
    facts = batch_facts(batch)
    accounts = [_first_look(fact, memory, ledgers) for fact in facts]
    accounts = [_superseded(item, accounts) for item in accounts]
    return Account([_explained(item, accounts, memory, explained) for item in accounts])


def _read(staging: Staging, proposed: Callable[[], list[str]], rejected: frozenset[frozenset[str]]) -> _Memory:
    months = staging.archive_paths()
    for path in months:
        staging.include(path)
    active = [line for path in [*CORE_FILES, *staging.skill_paths()] for line in _lines(staging.read(path))]
    skills = {path.split("/")[1]: staging.read(path) or "" for path in staging.skill_paths()}
    archived = [fact_text(raw) for path in months for raw in (staging.read(path) or "").splitlines()
                if fact_text(raw) and not marked_replaced(raw)]
    added = [line for change in staging.changes() if not change.path.startswith(f"{ARCHIVE_DIR}/")
             for line in set(_lines(change.after)) - set(_lines(change.before))]
    return _Memory(active, skills, archived, added, proposed, rejected)


def _lines(text: str | None) -> list[str]:
    return [line for line in (fact_text(raw) for raw in (text or "").splitlines()) if line]


def _first_look(fact: BatchFact, memory: _Memory, ledgers: Ledgers) -> FactAccount:
    """What memory, the ledgers, the guards and the engine's own record say about one fact."""
    correction = fact.is_correction
    tripped = secret_scan.rules_hit(fact.text) or injection.rules_hit(fact.text)
    if tripped:
        return FactAccount(fact, Status.WITHHELD, f"withheld by a guard ({', '.join(tripped)})")
    if rejected_key(fact.text) in memory.rejected:
        return FactAccount(fact, Status.REJECTED, "a person rejected it (memory/rejected.md)")
    if procedure_held(fact.text, memory.skills, memory.active):
        return FactAccount(fact, Status.KEPT, "a skill holds its steps")
    if _held(fact, memory.active):
        beside = _beside(fact, memory.active) if correction and ledgers.strict_corrections else ""
        if beside:
            return FactAccount(fact, Status.UNACCOUNTED, f"it landed beside the line it corrects, {beside!r}, "
                                                         "which is still there: replace that line instead")
        return FactAccount(fact, Status.KEPT)
    if _held(fact, memory.archived):
        return FactAccount(fact, Status.KEPT, "archived")
    if _held(fact, memory.proposed):
        return FactAccount(fact, Status.PROPOSED, "held back for review (nanodream review)")
    return _recorded(fact, ledgers)


def _held(fact: BatchFact, lines: list[str]) -> bool:
    """A line holds the fact, or — a fact of several sentences, filed one line each — every sentence has one."""
    correction = fact.is_correction
    if any(holds(line, fact.text, correction=correction) for line in lines):
        return True
    parts = list(sentences(fact.text))
    return len(parts) > 1 and all(any(holds(line, part, correction=correction) for line in lines) for part in parts)


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


def _beside(fact: BatchFact, active: list[str]) -> str:
    """The active line the correction `fact` replaces, when it is still there ('' when it is gone)."""
    return next((line for line in active if corrects(fact.text, line)), "")


def _superseded(item: FactAccount, accounts: list[FactAccount]) -> FactAccount:
    """A fact a later correction of the batch replaced is accounted for once that correction is kept."""
    if item.status != Status.UNACCOUNTED or item.note:
        return item
    later = next((other for other in accounts if other.fact.number > item.fact.number and other.fact.is_correction
                  and other.status in (Status.KEPT, Status.PROPOSED) and corrects(other.fact.text, item.fact.text)),
                 None)
    if later is None:
        return item
    return FactAccount(item.fact, Status.SUPERSEDED, f"replaced by the batch's own correction: {later.fact.text}")


def _explained(item: FactAccount, accounts: list[FactAccount], memory: _Memory,
               explained: Explanations) -> FactAccount:
    reason = explained.reasons.get(item.fact.number, "")
    if item.status != Status.UNACCOUNTED or not reason:
        return item
    problem = _not_an_explanation(reason, item.fact, accounts, memory, explained)
    if problem:
        return FactAccount(item.fact, Status.UNACCOUNTED, f"its reason {reason[:80]!r} {problem}")
    return FactAccount(item.fact, Status.EXPLAINED, reason)


# Words that make no reason on their own: a template's slots and the filler around them.
_FILLER = frozenset({"n", "reason", "reasons", "why", "because", "fact", "facts", "number", "no", "none", "na",
                     "tbd", "todo", "placeholder", "explanation", "text", "here", "see", "above", "below", "same",
                     "etc", "x", "y", "z", "your", "own", "words", "this", "it", "line"})
# Words that say why a fact stays out; a reason without one that only repeats the batch's words is a title.
_WHY = frozenset({"already", "duplicate", "duplicates", "repeat", "repeated", "same", "superseded", "replaced",
                  "corrected", "correction", "outdated", "obsolete", "stale", "old", "wrong", "false", "joke",
                  "once", "temporary", "ephemeral", "irrelevant", "trivial", "secret", "private", "password",
                  "credential", "not", "no", "never", "longer", "cancelled", "canceled", "because", "since",
                  "only", "unclear", "unsure", "speculative", "hypothetical", "sarcasm", "hostile", "instruction"})
_REFERENCE = re.compile(r"(?:\b(?:fact|facts|item|number|no\.?|entry)\s*#?\s*|#\s*|\bby\s+)(\d+)\b", re.IGNORECASE)
_ALREADY = re.compile(r"\b(?:already|previously|before|earlier)\b", re.IGNORECASE)


def _not_an_explanation(reason: str, fact: BatchFact, accounts: list[FactAccount], memory: _Memory,
                        explained: Explanations) -> str:
    """What makes `reason` no explanation for `fact` ('' when it is one)."""
    pointed = [explained.batch_number(n) for n in _references(reason)]
    lost = [n for n in pointed if n is not None and (n == fact.number or not _kept(n, accounts))]
    if lost:
        return f"points to fact {lost[0]}, which memory does not hold"
    # a fact it points to that memory holds counts as a word: "superseded by fact 2" is a reason
    meaningful = [w for w in content_words(reason) if w not in _FILLER and len(w) > 1] + [
        "fact" for n in pointed if n is not None]
    if len(meaningful) < 2:
        return "is a placeholder, not a reason"
    plain = _plain(reason)
    if plain == _plain(fact.text) or similarity(reason, fact.text) >= 0.8 or _restates(meaningful, accounts):
        return "only repeats the batch's words; it does not say why"
    if plain and plain in _plain(explained.question):
        return "repeats the question's own words"
    claim = edit_claim(reason)
    if claim or _ALREADY.search(reason):
        lines = memory.added if claim and not _ALREADY.search(reason) else memory.active + memory.archived
        if not any(_about(line, fact.text) for line in lines):
            return "claims an edit the files do not show"
    return ""


def _restates(meaningful: list[str], accounts: list[FactAccount]) -> bool:
    """Most of the reason's words are the batch's own and none says why: a title ("**Project deployment
    (Nomad to Kubernetes)**"), not a reason."""
    if any(word in _WHY for word in meaningful):
        return False
    batch = {_stem(word) for item in accounts for word in content_words(item.fact.text)}
    return sum(1 for word in meaningful if _stem(word) in batch) * 5 >= len(meaningful) * 3


def _stem(word: str) -> str:
    """A crude stem, enough to see "deployment" in "deploys" and "preference" in "prefers"."""
    return word[:5]


def _references(reason: str) -> list[int]:
    return [int(match.group(1)) for match in _REFERENCE.finditer(reason)]


def _kept(number: int, accounts: list[FactAccount]) -> bool:
    return any(item.fact.number == number and item.status in (Status.KEPT, Status.PROPOSED) for item in accounts)


def _about(line: str, fact: str) -> bool:
    """A memory line that states most of what the fact is about (a claim that it was kept, borne out)."""
    said = content_words(new_part(fact)[0])
    return bool(said) and len(said & content_words(line)) * 2 >= len(said)


def _plain(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


# the corrective question ------------------------------------------------------------------------------

# `N: reason` as asked, and the ways models number a list anyway: "1. …", "1) …", "#1 - …", "Fact 1: …", "**1** — …".
_REASON_LINE = re.compile(r"^\s*(?:[-*•]\s+)?\**\s*(?P<label>fact\s+|#\s*)?(?P<number>\d+)\s*\**\s*"
                          r"(?P<mark>:|\.|\)|\s-|—|–)\**\s*(?P<why>.*\w.*)$", re.IGNORECASE)


def corrective_message(open_facts: list[FactAccount], *, text_calls: bool) -> str:
    """The one question about what is unaccounted: file these facts, or say why not, by number.

    It shows no example edit: a model copies examples into real edits.
    """
    listed = "\n".join(f"{number}. [{item.fact.tag}] {item.fact.text}" + (f"\n   ({item.note})" if item.note else "")
                       for number, item in enumerate(open_facts, start=1))
    how = (f" Without native tool calls, write each call in your answer as {CALL_FORMAT}."
           if text_calls else "")
    return (f"These facts of the history batch are not in memory and have no reason given:\n\n{listed}\n\n"
            "File each one now with the tools (edit_file or write_file): a [correction] replaces the line it "
            f"corrects.{how} An answer that only describes edits changes nothing. If a fact must stay out of "
            "memory, answer with one line for it instead: its number, a colon, then why, in your own words.")


def reasons_in(answer: str, count_asked: int) -> dict[int, str]:
    """The reason line of `answer` for each number 1..count_asked, first line per number: `N: why` as asked, or
    another numbering when what follows the number does not state an edit as done."""
    given: dict[int, str] = {}
    for line in answer.splitlines():
        match = _REASON_LINE.match(line)
        if match is None or not 1 <= int(match.group("number")) <= count_asked:
            continue
        why = match.group("why").strip()
        as_asked = match.group("mark") == ":" and not match.group("label")
        if as_asked or not edit_claim(why):  # "1. **Updated USER.md**" is a list of claims, not of reasons
            given.setdefault(int(match.group("number")), why)
    return given


def hold_to_account(engine: Engine, request: SessionRequest, result: SessionResult, toolbox: ToolBox, *,
                    text_calls: bool, ledgers: Ledgers = Ledgers()) -> tuple[SessionResult, Account]:
    """Account for the batch's facts after a session; ask once more about those left over.

    A session voided by a refused call is left to the guards, which fail it with the refusal itself; a tidy
    pass (no entries) has no facts to account for.
    """
    if any(refusal.blocking for refusal in toolbox.refusals) or not request.batch.entries:
        return result, Account()

    ledgers = replace(ledgers, rejected=request.rejected, declined=result.declined, filed=result.filed)

    def look(explained: Explanations) -> Account:
        return account_for(request.batch, toolbox.staging, ledgers, explained)

    account = look(Explanations(dict(result.explanations)))
    open_facts = account.unaccounted
    if not open_facts:
        return result, account
    question = corrective_message(open_facts, text_calls=text_calls)
    asked = replace(request, open_facts=tuple(item.fact.number for item in open_facts))
    summary = result.summary
    result = engine.follow_up(asked, result, question, toolbox)
    answer, result.summary = result.summary, summary or result.summary  # the answer's reasons are not a summary
    if any(refusal.blocking for refusal in toolbox.refusals):
        return result, Account(account.facts, asked=True)
    listed = tuple(item.fact.number for item in open_facts)
    reasons = {listed[n - 1]: why for n, why in reasons_in(answer, len(listed)).items()}
    account = look(Explanations({**reasons, **result.explanations}, question, listed))
    account.asked = True
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
