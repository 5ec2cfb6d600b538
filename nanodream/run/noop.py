"""The no-op check: a session that changed nothing is a success only when "nothing worth keeping" is plausible.

Real local models answer in prose that claims edits, or call tools that do not exist, and change nothing;
taking that at its word advances the cursor past facts that are then kept nowhere. So after a session that
made no edit, the batch's *unkept facts* are listed: its `[permanent]`, `[durable]` and `[correction]` lines
(untagged raw text may rightly be dropped) that memory does not already hold. Held means the builtin
engine's own duplicate test finds the fact in an active file or the archive (a replaced fact, in the
until-form, holds none) — the same word set
(`engines/routing.py:fact_key`), or a line that says all of it (`covers`) — or `memory/rejected.md` holds it
(`rejected.fact_key`); lines that look like a secret or an injected instruction are never kept, so never
unkept. With none, the batch passes at once. Otherwise the engine is asked once more, in the same
conversation, to apply them or to give one `N: reason` line per fact; an answer that does neither fails the
batch as `model-no-op`, which is never split or quarantined: a model that cannot use tools says nothing
about the history.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from nanodream.backlog.history import Batch, tagged_lines
from nanodream.engines import Engine, SessionRequest, SessionResult
from nanodream.engines.builtin import strip_tags
from nanodream.memory.staging import Staging
from nanodream.rejected import fact_key as rejected_key
from nanodream.rejected import fact_text
from nanodream.run.claims import edit_claim
from nanodream.safety import injection, secret_scan
from nanodream.text.words import covers, fact_key
from nanodream.toolbox.textcalls import CALL_EXAMPLE
from nanodream.toolbox.tools import ToolBox
from nanodream.validity import is_replaced
from nanodream.vocab import count
from nanodream.workspace import CORE_FILES

FACT_TAGS = ("permanent", "durable", "correction")
# `N: reason` as asked, and the ways models number a list anyway: "1. …", "1) …", "#1 - …", "Fact 1: …", "**1** — …".
_REASON_LINE = re.compile(r"^\s*(?:[-*•]\s+)?\**\s*(?P<label>fact\s+|#\s*)?(?P<number>\d+)\s*\**\s*"
                          r"(?P<mark>:|\.|\)|\s-|—|–)\**\s*(?P<why>.*\w.*)$", re.IGNORECASE)


@dataclass(frozen=True)
class Reason:
    """Why a session kept a fact of the batch out of memory, in its own words."""

    fact: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass
class Account:
    """What the no-op check found: the unkept facts, the reasons given for them, and whether it failed."""

    unkept: list[str] = field(default_factory=list)
    reasons: list[Reason] = field(default_factory=list)
    no_op: bool = False


def unkept_facts(batch: Batch, staging: Staging, rejected: frozenset[frozenset[str]]) -> list[str]:
    """The batch's tagged facts that memory (active files, archive, rejected ledger) does not hold, in order."""
    lines = [fact_text(line) for path in _memory_paths(staging) for line in (staging.read(path) or "").splitlines()
             if not is_replaced(line)]  # a replaced fact is not a current one: true again, it is filed again
    lines = [line for line in lines if line]
    keys = {fact_key(line) for line in lines}
    unkept: list[str] = []
    for entry in batch.entries:
        for tag, raw in tagged_lines(entry.content):
            text = strip_tags(raw)
            if tag not in FACT_TAGS or not text or text in unkept or _never_kept(text):
                continue
            held = rejected_key(text) in rejected or fact_key(text) in keys or any(covers(line, text) for line in lines)
            if not held:
                unkept.append(text)
    return unkept


def _memory_paths(staging: Staging) -> list[str]:
    months = staging.archive_paths()
    for path in months:
        staging.include(path)
    return [*CORE_FILES, *staging.skill_paths(), *months]


def _never_kept(text: str) -> bool:
    """Secrets and instructions aimed at the agent are refused by the guards: keeping them out is right."""
    return bool(secret_scan.rules_hit(text) or injection.rules_hit(text))


def corrective_message(facts: list[str], *, text_calls: bool) -> str:
    """The one question a session that changed nothing is asked: apply these facts, or say why not, by number."""
    how = (" If you cannot call tools natively, write each call in your answer like this:\n\n"
           f"{CALL_EXAMPLE}\n" if text_calls else "")
    listed = "\n".join(f"{number}. {fact}" for number, fact in enumerate(facts, start=1))
    return (f"You changed no memory file, but these facts of the history batch are not in memory:\n\n{listed}\n\n"
            f"Apply them now with the tools (edit_file or write_file); an answer that only describes edits "
            f"changes nothing.{how}\nIf a fact is not worth keeping, answer instead with one line per fact, "
            "exactly `N: reason` (for example `2: superseded by fact 3`).")


def reasons_in(answer: str, facts: list[str]) -> list[Reason]:
    """The reason lines of `answer` for facts numbered 1..len(facts), first line per number wins: `N: reason` as
    asked, or another numbering when what follows the number does not claim an edit."""
    given: dict[int, str] = {}
    for line in answer.splitlines():
        match = _REASON_LINE.match(line)
        if match is None or not 1 <= int(match.group("number")) <= len(facts):
            continue
        number, why = int(match.group("number")), match.group("why").strip()
        if _plain(why) == _plain(facts[number - 1]):  # the list asked about, echoed back, is no reason
            continue
        as_asked = match.group("mark") == ":" and not match.group("label")
        if as_asked or not _claims_an_edit(why):  # "1. **Updated USER.md**" is a claim, not a reason
            given.setdefault(number, why)
    return [Reason(facts[number - 1], why) for number, why in sorted(given.items())]


def _claims_an_edit(why: str) -> bool:
    """An edit stated as done by this session: "already added to USER.md" says why nothing was, and is not one."""
    claim = edit_claim(why)
    return bool(claim) and not re.search(r"\balready\b", why[:why.lower().find(claim.lower())], re.IGNORECASE)


def _plain(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def hold_to_account(engine: Engine, request: SessionRequest, result: SessionResult, toolbox: ToolBox, *,
                    text_calls: bool) -> tuple[SessionResult, Account]:
    """Check a finished session; ask once more when it changed nothing while facts memory lacks are unexplained.

    A session voided by a refused call is left to the guards, which fail it with the refusal itself; a tidy
    pass (no entries) has no facts to miss.
    """
    if toolbox.staging.changes() or any(refusal.blocking for refusal in toolbox.refusals):
        return result, Account()
    unkept = unkept_facts(request.batch, toolbox.staging, request.rejected)
    declined = {fact_key(text): why for text, why in result.declined.items()}
    explained = [Reason(fact, declined[fact_key(fact)]) for fact in unkept if fact_key(fact) in declined]
    open_facts = [fact for fact in unkept if fact_key(fact) not in declined]
    if not open_facts:
        return result, Account(unkept, explained)
    result = engine.follow_up(request, result, corrective_message(open_facts, text_calls=text_calls), toolbox)
    reasons = explained + reasons_in(result.summary, open_facts)
    if toolbox.staging.changes():
        return result, Account(unkept, reasons)
    return result, Account(unkept, reasons, no_op=len(reasons) < len(unkept))


def misuse_reason(stopped: str) -> str:
    """The one line of a session stopped for repeating a call no tool can run, having changed nothing."""
    return (f"the model kept making tool calls no tool can run and changed nothing ({stopped}); it may not "
            "support tool calls — see `nanodream model check`")


def no_op_reason(toolbox: ToolBox, account: Account) -> str:
    """The one line a failed no-op batch ends with."""
    missing = len(account.unkept)
    facts = f"{count(missing, 'fact')} of the batch {'is' if missing == 1 else 'are'} not in memory"
    if not toolbox.calls:
        did = "the model answered without using its tools twice"
    else:
        did = (f"the model changed no memory file in two answers ({count(toolbox.calls, 'tool call')}, none "
               "changed a file)")
    return f"{did} while {facts}; it may not support tool calls — see `nanodream model check`"
