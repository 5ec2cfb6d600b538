"""Test doubles for scheduling tests: a clock whose sleep only moves time, and small in-process engines."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from nanodream.engines import SessionError, SessionRequest, SessionResult
from nanodream.engines.facts import batch_facts
from nanodream.toolbox.tools import ToolBox
from tests.support.scripted_server import call, error, final

CURSOR_IN_MESSAGE = re.compile(r"^\[#(\d+) ", re.MULTILINE)
FACT_IN_MESSAGE = re.compile(r"\[(?:permanent|durable|correction)\]\s*([^\n]+?)\s*$", re.MULTILINE)


def noted(first: int, last: int, facts: list[str]) -> str:
    """What the noting doubles add under `## Project`: the batch's range, then each tagged fact as a bullet."""
    return f"## Project\n- noted {first}..{last}\n" + "".join(f"- {fact}\n" for fact in facts)


@dataclass
class FakeClock:
    """`clock()` returns the current fake time; `sleep(s)` advances it and runs any hooks due by then."""

    now: datetime
    sleeps: list[float] = field(default_factory=list)
    hooks: list[tuple[datetime, Callable[[], None]]] = field(default_factory=list)

    def __call__(self) -> datetime:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += timedelta(seconds=seconds)
        for hook in [h for h in self.hooks if h[0] <= self.now]:
            self.hooks.remove(hook)
            hook[1]()

    def at(self, moment: datetime, action: Callable[[], None]) -> None:
        self.hooks.append((moment, action))


@dataclass
class NoteEngine:
    """Notes each batch's cursor range in MEMORY.md through the real tools; `during(batch_index)` hooks in."""

    name: str = "note-engine"
    batches: list[list[int]] = field(default_factory=list)
    cost: float | None = None
    during: Callable[[int], None] = lambda index: None
    fail_when: Callable[[SessionRequest], str] = lambda request: ""

    def __call__(self, settings: Any) -> NoteEngine:  # usable directly as an engine_factory
        return self

    def run(self, request: SessionRequest, toolbox: ToolBox) -> SessionResult:
        cursors = [e.cursor for e in request.batch.entries]
        self.batches.append(cursors)
        self.during(len(self.batches) - 1)
        reason = self.fail_when(request)
        if reason:
            raise SessionError(reason, spent=SessionResult("", tokens_in=7, transcript=[
                {"role": "user", "content": request.user_message}]))
        facts = [fact.text for fact in batch_facts(request.batch)]
        result = toolbox.call("edit_file", {"path": "memory/MEMORY.md", "old_text": "## Project\n",
                                            "new_text": noted(cursors[0], cursors[-1], facts)})
        assert result.startswith("OK"), result
        messages = [{"role": "system", "content": request.system_prompt},
                    {"role": "user", "content": request.user_message},
                    {"role": "assistant", "content": f"noted {cursors[0]}..{cursors[-1]}"}]
        return SessionResult(summary=f"noted {cursors[0]}..{cursors[-1]}", tokens_in=100, tokens_out=20,
                             cost=self.cost, transcript=messages)


def history_cursors(body: dict[str, Any]) -> list[int]:
    """The history cursors a scripted-server request carries in its user message."""
    return [int(c) for c in CURSOR_IN_MESSAGE.findall(body["messages"][1]["content"])]


def noting_model(poison: str | None = None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A scripted-server step: note the batch and its tagged facts in MEMORY.md, then finish; refuse any batch
    containing `poison`."""

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        if poison is not None and poison in body["messages"][1]["content"]:
            return error(400, "the provider rejected this content")
        if body["messages"][-1]["role"] == "tool":
            return final("Noted the batch")
        cursors = history_cursors(body)
        history = body["messages"][1]["content"].split("<history>")[-1]
        return call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
                    new_text=noted(cursors[0], cursors[-1], FACT_IN_MESSAGE.findall(history)))

    return respond


def sessions(requests: list[dict[str, Any]]) -> list[list[int]]:
    """The batches the scripted server saw, one per session (a session starts with a bare user message)."""
    return [history_cursors(body) for body in requests if body["messages"][-1]["role"] == "user"]
