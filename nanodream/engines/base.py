"""What every engine receives and returns."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from nanodream.backlog.history import Batch
from nanodream.prompting.skill_signals import SkillHealth
from nanodream.toolbox.tools import ToolBox


def describe_error(exc: BaseException) -> str:
    """An exception as one short line for a person: its type once and the first line of its message.

    litellm wraps a provider's words in its own names ("litellm.InternalServerError: InternalServerError:
    OpenAIException - upstream is down"); those wrappers are dropped.
    """
    name = type(exc).__name__
    lines = str(exc).strip().splitlines()
    if not lines:
        return name
    wrappers = re.compile(rf"^(?:litellm\.\w+:\s*|{re.escape(name)}:\s*|\w+Exception\s+-\s+)+")
    message = wrappers.sub("", lines[0]).strip() or lines[0]
    return f"{name}: {message[:300]}"


class SessionError(RuntimeError):
    """A session that could not finish; `reason` is one line a person can act on.

    `spent` is what it used up before it stopped (tokens, requests, its transcript so far); `misuse`: it was
    stopped for repeating a call that never reached a tool (see toolbox.SessionAborted); `model_fault`: it was
    stopped by a cap or a loop guard, which says the model cannot do the job, not that an entry is poisoned.
    `cap` names the cap that stopped it ("tokens": the session token budget, "calls": the tool-call cap): on a
    batch of more than one entry that says the batch was too big for one session (run/sizing.py).
    """

    def __init__(self, reason: str, *, spent: SessionResult | None = None, misuse: bool = False,
                 model_fault: bool = False, cap: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.spent = spent or SessionResult(summary="")
        self.misuse = misuse
        self.model_fault = model_fault or misuse or bool(cap)
        self.cap = cap

    @property
    def tokens_in(self) -> int:
        return self.spent.tokens_in

    @property
    def tokens_out(self) -> int:
        return self.spent.tokens_out

    @property
    def cached_tokens(self) -> int:
        return self.spent.cached_tokens

    @property
    def transcript(self) -> list[dict[str, Any]]:
        return self.spent.transcript

    @property
    def requests(self) -> int:
        return self.spent.requests


class ProviderMisconfigured(RuntimeError):
    """The model cannot be called as configured (e.g. its provider's key is not set): one line naming what to set."""


@dataclass(frozen=True)
class SessionRequest:
    system_prompt: str
    user_message: str
    batch: Batch
    activity: Callable[[str], None] = field(default=lambda text: None, compare=False)  # what it is doing now
    rejected: frozenset[frozenset[str]] = frozenset()  # keys of memory/rejected.md's facts (rejected.fact_key)
    skills: SkillHealth = field(default_factory=SkillHealth, compare=False)  # use, failures, families of skills
    # The user message cut where its stable parts end (memory files, skills index; the batch last): joined, they
    # are `user_message`. A provider that caches only marked prefixes is told to keep each but the last.
    user_blocks: tuple[str, ...] = ()
    # The corrective question's facts, by their number in the batch (engines/facts.py): an engine that answers
    # in its own format (structured mode) asks the model about these alone.
    open_facts: tuple[int, ...] = ()


@dataclass
class SessionResult:
    summary: str
    tokens_in: int = 0
    tokens_out: int = 0
    cached_tokens: int = 0  # of tokens_in, those the provider read from its prompt cache (billed at its cache price)
    cost: float | None = None
    transcript: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # what the engine left out and a person should know about
    requests: int = 0  # model requests the session made (0 for the offline engine)
    request_bytes: int = 0  # what those requests sent: messages, tools and response format as JSON
    declined: dict[str, str] = field(default_factory=dict)  # fact → why the engine's own rules kept it out
    filed: dict[str, str] = field(default_factory=dict)  # fact → in what form the engine's own rules kept it
    # The model's reasons for facts it left out, by the fact's number in the batch: its words, checked like any
    # answer to the corrective question (run/accounting.py), never taken on trust.
    explanations: dict[int, str] = field(default_factory=dict)
    reasons_given: str = ""  # what the last answer gave as reasons by number (`finish`'s `reasons`), as written
    state: Any = field(default=None, repr=False)  # what the engine needs to continue this session (follow_up)


class Engine(Protocol):
    name: str

    def run(self, request: SessionRequest, toolbox: ToolBox) -> SessionResult:
        """Consolidate the batch by calling tools on `toolbox`; return the final summary."""
        ...

    def follow_up(self, request: SessionRequest, result: SessionResult, message: str,
                  toolbox: ToolBox) -> SessionResult:
        """Continue the same session with one more user `message` (the accounting's question)."""
        ...
