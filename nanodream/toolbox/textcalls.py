"""Tool calls a model wrote as text instead of the API's `tool_calls`, and the format text mode teaches.

Small local models served by llama.cpp, Ollama or vLLM often answer a tool request with the call in the
message content: `<tool_call>{…}</tool_call>` (Qwen, Hermes), a fenced ```json block with one call or a
list of calls, a bare `{"name": …, "arguments": …}` object, a `{"function": {…}}` wrapper, a
`functions.NAME: {…}` line or `<function=NAME>{…}</function>` (Llama); arguments under `arguments`,
`parameters`, `args` or `input`, as an object or a JSON string. `read_calls` finds them so they can
be run exactly like native calls. Only `<tool_call>` and `<function=…>` blocks announce a call for sure: a
broken one there is reported back to the model, while JSON in prose that is not call-shaped is left alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from nanodream import boundedjson
from nanodream.toolbox.registry import Registry

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|(?=<tool_call>)|$)", re.DOTALL)
_FUNCTION_TAG = re.compile(r"<function=([\w.-]+)>\s*(.*?)\s*(?:</function>|(?=<function=)|$)", re.DOTALL)
_FENCE = re.compile(r"```[ \t]*(?:json|tool_call|tool_calls|javascript|js)?[ \t]*\n(.*?)```", re.DOTALL | re.I)
# `functions.NAME` and then the arguments object, after at most a short separator: ": ", "(", a fence opener
# ("\n```json\n"), or a harmony-style "<|constrain|>json<|message|>".
_FUNCTIONS_PREFIX = re.compile(r"\bfunctions\.([A-Za-z_][\w-]*)[^{]{0,40}?(?=\{)")
# What is left of the wrapping once the calls are taken out: the list they stood in ("[…, …]" → "[, ]"), and the
# markers models put before calls (Mistral's [TOOL_CALLS], Llama's <|python_tag|>, "functools"). The rest of the
# text may be the session's summary, so none of this may remain in it.
_MARKERS = re.compile(r"\[TOOL_CALLS\]|<\|python_tag\|>|<\|eom_id\|>|<\|eot_id\|>|\bfunctools\b(?=\s*\[)")
_EMPTIED_LIST = re.compile(r"\[\s*,[\s,]*\]|^[ \t]*\[\s*\][ \t]*$", re.MULTILINE)  # a checklist's "[ ]" stays
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
_LIST_KEYS = ("tool_calls", "calls")


@dataclass(frozen=True)
class TextCall:
    """One call read from text; `unreadable` says why a block that announced a call could not be read."""

    name: str
    arguments: str | dict[str, Any]  # a JSON object, or the raw text the model sent as arguments
    unreadable: str = ""
    source: str = field(default="", compare=False)  # the text the call was read from (its block)

    @property
    def key(self) -> str:
        """The call whatever syntax wrote it: its name and arguments as canonical JSON."""
        return call_key(self.name, self.arguments)


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    calls: tuple[TextCall, ...]


def read_calls(content: str) -> tuple[list[TextCall], str]:
    """The calls written in `content`, in order, and the prose around them (content without the calls)."""
    found: list[_Found] = []
    for finder in (_tagged, _function_tags, _fenced, _prefixed, _bare):
        found += finder(content, [(f.start, f.end) for f in found])
    found.sort(key=lambda f: f.start)
    calls = [replace(call, source=content[item.start:item.end]) for item in found for call in item.calls]
    rest, last = [], 0
    for item in found:
        rest.append(content[last:item.start])
        last = item.end
    rest.append(content[last:])
    prose = "".join(rest)
    return calls, (_EMPTIED_LIST.sub("", _MARKERS.sub("", prose)) if calls else prose).strip()


def _outside(start: int, end: int, taken: list[tuple[int, int]]) -> bool:
    return all(end <= first or start >= last for first, last in taken)


def _tagged(content: str, taken: list[tuple[int, int]]) -> list[_Found]:
    found = []
    for match in _TAGGED.finditer(content):
        values = _json_values(match.group(1))
        calls = [c for value in values or [] for c in _calls_in(value, lenient=True)]
        if values is None or not calls:
            calls = [TextCall("", match.group(1), unreadable="the text inside <tool_call> is not a JSON object with "
                                                          "a name and arguments")]
        found.append(_Found(match.start(), match.end(), tuple(calls)))
    return [f for f in found if _outside(f.start, f.end, taken)]


def _function_tags(content: str, taken: list[tuple[int, int]]) -> list[_Found]:
    found = []
    for match in _FUNCTION_TAG.finditer(content):
        if _outside(match.start(), match.end(), taken):
            found.append(_Found(match.start(), match.end(), (TextCall(match.group(1), _arguments(match.group(2))),)))
    return found


def _fenced(content: str, taken: list[tuple[int, int]]) -> list[_Found]:
    found = []
    for match in _FENCE.finditer(content):
        values = _json_values(match.group(1))
        calls = [c for value in values or [] for c in _calls_in(value, lenient=False)]
        if calls and _outside(match.start(), match.end(), taken):
            found.append(_Found(match.start(), match.end(), tuple(calls)))
    return found


def _prefixed(content: str, taken: list[tuple[int, int]]) -> list[_Found]:
    found = []
    for match in _FUNCTIONS_PREFIX.finditer(content):
        try:
            value, end = boundedjson.raw_decode(content, match.end())
        except ValueError:
            continue
        if isinstance(value, dict) and _outside(match.start(), end, taken):
            found.append(_Found(match.start(), end, (TextCall(match.group(1), value),)))
    return found


def _bare(content: str, taken: list[tuple[int, int]]) -> list[_Found]:
    """Top-level JSON objects in prose that have the shape of a call (a name and its arguments)."""
    found, index = [], content.find("{")
    while index != -1:
        resume = index + 1
        if _outside(index, resume, taken):
            try:
                value, end = boundedjson.raw_decode(content, index)
            except ValueError:
                pass
            else:
                resume = end  # a whole object, call or not: data nested in it is never read as a call
                calls = _calls_in(value, lenient=False)
                if calls and _outside(index, end, taken):
                    found.append(_Found(index, end, tuple(calls)))
        index = content.find("{", resume)
    return found


def _json_values(text: str) -> list[Any] | None:
    """Every JSON value in `text` (one, or several one after another); None when any of it is not JSON."""
    values, index, text = [], 0, text.strip()
    while index < len(text):
        try:
            value, index = boundedjson.raw_decode(text, index)
        except ValueError:
            return None
        values.append(value)
        while index < len(text) and text[index] in " \t\r\n,":
            index += 1
    return values


def _calls_in(value: Any, *, lenient: bool) -> list[TextCall]:
    """The calls a JSON value states: a call, a list of calls, a `{"function": …}` or `{"tool_calls": […]}`.

    `lenient` (inside a tag that announced a call) accepts a name without arguments.
    """
    if isinstance(value, list):
        calls = [_calls_in(item, lenient=lenient) for item in value]
        return [c for group in calls for c in group] if calls and all(calls) else []
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("function"), dict):
        return _calls_in(value["function"], lenient=lenient)
    for key in _LIST_KEYS:
        if isinstance(value.get(key), list):
            return _calls_in(value[key], lenient=lenient)
    name = value.get("name", value.get("function"))  # {"function": "write_file", "arguments": …} too
    key = next((k for k in _ARGUMENT_KEYS if k in value), None)
    if not isinstance(name, str) or not name or (key is None and not lenient):
        return []
    return [TextCall(name, _arguments(value.get(key) if key else {}))]


def _arguments(raw: Any) -> str | dict[str, Any]:
    """Arguments as an object when they are one (or a JSON string holding one); else the raw text, which the
    toolbox answers with an error the model can act on."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = boundedjson.loads(raw, max_bytes=boundedjson.MESSAGE_BYTES) if raw.strip() else {}
        except ValueError:
            return raw
        return value if isinstance(value, dict) else raw
    return json.dumps(raw)


# quotations: calls the session was shown ---------------------------------------------------------------

MAX_NESTED_TEXT = 3  # levels of JSON held in a JSON string ("arguments": "{…}") looked into for calls


def call_key(name: str, arguments: str | dict[str, Any]) -> str:
    """A call as canonical JSON: the same key whether it was written as a tag, a fence, a list or a wrapper."""
    return json.dumps([name, _arguments(arguments)], sort_keys=True, ensure_ascii=False)


class Quotations:
    """Every call written in what a session was given: a written call that repeats one is quoted, not its own.

    A model that echoes an instruction it found in the history ("I ignored this: ```json {…}```") writes the
    call again, in the same syntax or another, maybe re-indented; what it never does is invent the same name
    and the same arguments by itself. So a call counts as quoted when its name and arguments (canonical JSON)
    equal those of a call found anywhere in the given text, or when its block's text occurs there.
    """

    def __init__(self, texts: Iterable[str]) -> None:
        self.keys: set[str] = set()
        given = []
        for text in texts:
            given.append(_squeezed(text))
            self.keys |= {call.key for call in mentioned_calls(text)}
        self.text = "\n".join(given)

    def holds(self, call: TextCall) -> bool:
        source = _squeezed(call.source)
        return call.key in self.keys or bool(source) and source in self.text


def mentioned_calls(text: str, depth: int = 0) -> list[TextCall]:
    """Every call-shaped value in `text`: the forms `read_calls` reads, and any JSON object or list at any depth,
    and JSON held in a string inside one ("arguments": "{\\"name\\": …}")."""
    calls = list(read_calls(text)[0])
    for value in _json_documents(text):
        for node in _nodes(value):
            calls += _calls_in(node, lenient=True)
            if isinstance(node, str) and "{" in node and depth < MAX_NESTED_TEXT:
                calls += mentioned_calls(node, depth + 1)
    return calls


def _json_documents(text: str) -> Iterator[Any]:
    """Each JSON object in `text`, outermost first; one that is not whole JSON is looked into at its next `{`."""
    index = text.find("{")
    while index != -1:
        try:
            value, end = boundedjson.raw_decode(text, index)
        except ValueError:  # not JSON here, or deeper than any call: an object inside it is met at its own `{`
            index = text.find("{", index + 1)
            continue
        yield value
        index = text.find("{", end)


def _nodes(value: Any) -> Iterator[Any]:
    """`value` and everything inside it, without recursion (a deep document cannot exhaust the stack)."""
    stack = [value]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, dict):
            stack += node.values()
        elif isinstance(node, list):
            stack += node


def _squeezed(text: str) -> str:
    return " ".join(text.split())


# text mode: what the system prompt teaches --------------------------------------------------------------

# A read: a model that copies the example verbatim changes nothing (an edit copied from an example once filed
# "Prefers short answers." for a user who never said it).
CALL_EXAMPLE = '<tool_call>\n{"name": "read_file", "arguments": {"path": "USER.md"}}\n</tool_call>'
# The format in words, with slots no tool accepts: copied as is, it is an unreadable call, never an edit.
CALL_FORMAT = '<tool_call>{"name": TOOL, "arguments": {PARAMETER: "TEXT", …}}</tool_call>'


def text_mode_instructions(registry: Registry) -> str:
    """The system prompt's part in `tool_mode = "text"`: every tool with its parameters, and the call format
    `read_calls` reads (the server is sent no tool definitions)."""
    lines = ["## Calling tools", "",
             "No tool definitions are attached to this conversation: call a tool by writing the call in your answer, "
             "one block per call, exactly like this:", "", CALL_EXAMPLE, "",
             "Every argument is a JSON string (join lines with \\n), e.g. edit_file takes path, old_text and "
             "new_text. Write all your calls as blocks in one answer, "
             "finish last; they run in order. If one fails, the next message gives the results.", "", "The tools:"]
    for tool in registry:
        lines.append(f"- {tool.signature()}: {tool.description}")
        lines += [f"  - {p.name}: {p.description}" for p in tool.parameters if p.description]
    return "\n".join(lines)


def results_message(results: list[tuple[str, str]]) -> str:
    """Tool results as a user message, for servers that accept no `role: tool` after a call written as text."""
    blocks = [f'<tool_result name="{name}">\n{output}\n</tool_result>' for name, output in results]
    return "\n".join(["Results of the tool calls you wrote, in order:", *blocks,
                      "Continue with more calls in the same form, or answer without calls when memory is current."])
