"""One session's messages as the provider is sent them: answers, tool calls (native or written as text), results.

A call the model wrote as text is answered in the form tool-calling chat templates render best: the
assistant turn gets the call as a native `tool_calls` entry and each result a `role: tool` message. Some
servers refuse `role: tool` without a native call behind it; then every such turn is rewritten to the
model's own text followed by one user message with the results, and the session goes on that way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from nanodream.toolbox.textcalls import results_message


@dataclass(frozen=True)
class Call:
    """One tool call and its result, however the model made it."""

    id: str
    name: str
    arguments: str | dict[str, Any]
    output: str

    def native(self) -> dict[str, Any]:
        arguments = self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": arguments}}


@dataclass
class Conversation:
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None  # None: text mode, no `tools` parameter is sent
    results_as_user: bool = False  # answer calls written as text in a user message
    user_blocks: tuple[str, ...] = ()  # the first user message cut where its stable parts end (SessionRequest)
    extra: dict[str, Any] = field(default_factory=dict)  # more request parameters (structured mode's response_format)
    called_natively: bool = False  # the model made a native tool call in this session
    _written: list[tuple[int, str, int]] = field(default_factory=list)  # (index, the model's text, calls) per turn

    def answered(self, content: str) -> None:
        self.messages.append({"role": "assistant", "content": content})

    def called(self, content: str, calls: list[Call]) -> None:
        """A turn of native calls and their results."""
        self.messages.append({"role": "assistant", "content": content, "tool_calls": [c.native() for c in calls]})
        self.messages += [{"role": "tool", "tool_call_id": c.id, "content": c.output} for c in calls]

    def wrote(self, content: str, prose: str, calls: list[Call]) -> None:
        """A turn of calls written as text (`prose`: the content without them) and their results."""
        if self.results_as_user:
            self.messages += _as_user(content, calls)
            return
        self._written.append((len(self.messages), content, len(calls)))
        self.called(prose, calls)

    def given(self) -> list[str]:
        """The text of every message the model was given (system, user, tool results), not its own answers."""
        return [content_text(m.get("content")) for m in self.messages if m.get("role") != "assistant"]

    def results_to_user_messages(self) -> bool:
        """Rewrite the turns of calls written as text to answer in user messages; False when there is none."""
        if not self._written:
            return False
        for index, content, count in reversed(self._written):
            turn = self.messages[index]
            outputs = {m["tool_call_id"]: m["content"] for m in self.messages[index + 1:index + 1 + count]}
            calls = [Call(c["id"], c["function"]["name"], c["function"]["arguments"], outputs[c["id"]])
                     for c in turn["tool_calls"]]
            self.messages[index:index + 1 + count] = _as_user(content, calls)
        self._written.clear()
        self.results_as_user = True
        return True


def content_text(content: Any) -> str:
    """A message's content as text: a string, or the text parts of a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [part.get("text", "") if isinstance(part, dict) else str(part) for part in content]
        return "".join(parts)
    return str(content)


def _as_user(content: str, calls: list[Call]) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": content},
            {"role": "user", "content": results_message([(c.name, c.output) for c in calls])}]
