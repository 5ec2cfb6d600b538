"""The engine of a host's dream session: the host's model does the reading, nanodream's run does the rest.

A run asks its engine two things: `run` (one session over the batch and a staged copy, through the tools) and
`follow_up` (one more message in the same session: the accounting's corrective question). A HostEngine answers
both by handing the session over to the host and waiting: the run's thread blocks in `Channel.hand_over` while
the host calls the dream's tools on the same ToolBox from its own thread (run/hosted.py), then finishes with a
summary and its reasons. Nothing else of the run changes, so a host session passes the guards, the accounting,
supersede, holds, pressure, apply and the insight phases exactly as a model's does.

The revisit follow-up (run/revisit.py: lines still naming a value the batch replaced) is not put to a host: the
session offers one question, and a host reads memory whole anyway; what it leaves is listed by `status` and the
run's reflect phase, as after any run.
"""

from __future__ import annotations

import json
import queue
from dataclasses import dataclass
from typing import Any

from nanodream.engines import SessionError, SessionRequest, SessionResult
from nanodream.engines.facts import batch_facts
from nanodream.run.accounting import Explanations, Ledgers, account_for
from nanodream.run.report import RunReport
from nanodream.toolbox.tools import ToolBox
from nanodream.vocab import Declared


class SessionAbandoned(BaseException):  # not an Exception: no `except Exception` of the run may stop it
    """The host walked away (an abort, the idle timer, the server stopping). Raised in the run's thread, it unwinds
    the run as a killed process would: the lock let go, nothing applied (the staged copy lives in memory), nothing
    recorded — the workspace stays exactly as it was."""


@dataclass(frozen=True)
class OpenFact(Declared):
    """A fact of the batch neither kept nor explained: its number in the batch, its text, what is wrong with how it
    landed or with the reason given (empty when nothing was said about it)."""

    number: int
    text: str
    note: str = ""


# what the run's thread hands the host ------------------------------------------------------------------------


@dataclass(frozen=True)
class Opened:
    """The session is the host's: the request a model would get, and the ToolBox over the staged copy."""

    request: SessionRequest
    toolbox: ToolBox


@dataclass(frozen=True)
class Asked:
    """The accounting's one corrective question, the facts it is about, and how many facts memory holds so far."""

    question: str
    open: list[OpenFact]
    kept: int


@dataclass(frozen=True)
class Ended:
    """The run is over: its report, or None when the host abandoned the session (then nothing happened at all)."""

    report: RunReport | None
    error: str = ""  # a run that could not even start or end: one line


Turn = Opened | Asked | Ended


# what the host hands the run's thread ------------------------------------------------------------------------


@dataclass(frozen=True)
class Finish:
    """The host's `dream_finish`: its summary and its reasons by the batch's fact numbers."""

    summary: str
    reasons: dict[int, str]


@dataclass(frozen=True)
class Stop:
    """A cap or a loop guard stopped the session during one of the host's calls: it fails as a model's would."""

    reason: str
    misuse: bool = False


@dataclass(frozen=True)
class Abandon:
    """Leave without applying anything."""


Answer = Finish | Stop | Abandon


class Channel:
    """Where the run's thread and the host's calls meet: one turn at a time each way."""

    def __init__(self) -> None:
        self._turns: queue.Queue[Turn] = queue.Queue()
        self._answers: queue.Queue[Answer] = queue.Queue()

    def hand_over(self, turn: Opened | Asked) -> Finish | Stop:
        """The run's side: give the host the session and wait for its answer (SessionAbandoned if it left)."""
        self._turns.put(turn)
        answer = self._answers.get()
        if isinstance(answer, Abandon):
            raise SessionAbandoned
        return answer

    def close(self, ended: Ended) -> None:
        self._turns.put(ended)

    def next_turn(self) -> Turn:
        """The host's side: wait until the run hands over the session, asks, or ends."""
        return self._turns.get()

    def answer(self, answer: Answer) -> None:
        self._answers.put(answer)


class HostEngine:
    """An Engine whose session is driven from outside (see the module docstring). `transcript` is shared with the
    host's side, which adds each tool call to it; it is kept with the run's other transcripts."""

    name = "host"

    def __init__(self, channel: Channel, transcript: list[dict[str, Any]]) -> None:
        self.channel = channel
        self.transcript = transcript
        self.began = False
        self.reasons: dict[int, str] = {}  # every reason the host gave, by fact number: a later round adds to them

    def run(self, request: SessionRequest, toolbox: ToolBox) -> SessionResult:
        if self.began:  # a host session is one batch: its run is asked for one (max_batches = 1)
            raise SessionError("a host session dreams one batch; the rest waits for the next session")
        self.began = True
        self.transcript += [{"role": "system", "content": request.system_prompt},
                            {"role": "user", "content": request.user_message}]
        return self._answered(Opened(request, toolbox))

    def follow_up(self, request: SessionRequest, result: SessionResult, message: str,
                  toolbox: ToolBox) -> SessionResult:
        """The accounting's question goes to the host; the revisit (no open facts) does not (module docstring)."""
        if not request.open_facts:
            return result
        self.transcript.append({"role": "user", "content": message})
        open_facts, kept = _still_open(request, toolbox, self.reasons)
        answered = self._answered(Asked(host_question(request, open_facts), open_facts, kept))
        answered.summary = ""  # the host's reasons are its answer; the summary it gave first stays the commit's
        return answered

    def _answered(self, turn: Opened | Asked) -> SessionResult:
        answer = self.channel.hand_over(turn)
        if isinstance(answer, Stop):
            raise SessionError(answer.reason, spent=SessionResult("", transcript=list(self.transcript)),
                               misuse=answer.misuse, model_fault=True)
        self.reasons.update(answer.reasons)
        said = answer.summary + "".join(f"\n{number}: {why}" for number, why in sorted(answer.reasons.items()))
        self.transcript.append({"role": "assistant", "content": said})
        return SessionResult(summary=answer.summary, explanations=dict(self.reasons),
                             transcript=list(self.transcript))


def _still_open(request: SessionRequest, toolbox: ToolBox, reasons: dict[int, str]) -> tuple[list[OpenFact], int]:
    """The facts the question is about, each with what the accounting says of it, and the facts memory holds."""
    account = account_for(request.batch, toolbox.staging, Ledgers(rejected=request.rejected),
                          Explanations(dict(reasons)))
    notes = {item.fact.number: item.note for item in account.facts}
    facts = {fact.number: fact.text for fact in batch_facts(request.batch)}
    return [OpenFact(number, facts[number], notes.get(number, "")) for number in request.open_facts
            if number in facts], account.kept


def host_question(request: SessionRequest, open_facts: list[OpenFact]) -> str:
    """The corrective question as a host gets it: each fact under its number in the batch, the number its reason
    goes under in dream_finish's `reasons` (the question a model gets numbers them anew, for its one-line answers)."""
    tags = {fact.number: fact.tag for fact in batch_facts(request.batch)}
    listed = "\n".join(f"{fact.number}. [{tags.get(fact.number, '')}] {fact.text}"
                       + (f"\n   ({fact.note})" if fact.note else "") for fact in open_facts)
    return (f"These facts of the history batch are not in memory and have no reason given:\n\n{listed}\n\n"
            "File each one now with the tools (edit_file or write_file): a [correction] replaces the line it "
            "corrects. A summary that only describes edits changes nothing. If a fact must stay out of memory, give "
            "dream_finish a reason for it instead, in `reasons` under its number above: why, in your own words.")


def tool_call_messages(number: int, name: str, arguments: dict[str, Any], answer: str) -> list[dict[str, Any]]:
    """One host call as a transcript keeps a model's: the call, then what the tool answered."""
    call_id = f"host_call_{number}"
    return [{"role": "assistant", "content": None,
             "tool_calls": [{"id": call_id, "type": "function",
                             "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}]},
            {"role": "tool", "tool_call_id": call_id, "content": answer}]
