"""A tool is declared once: a function whose signature and docstring become the schema the model sees, and
whose typed result the model reads as text and an in-process engine reads as data.

    @TOOLS.tool(writes=True)
    def delete_skill(box: ToolBox, name: str) -> ToolResult:
        '''Delete a skill that has been merged into another one.

        name: the skill's folder name
        '''

The first paragraph of the docstring is the tool's description; later lines `param: text` describe
parameters. Every parameter is a string (the tools edit text), so a schema needs nothing more.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolResult:
    """What a tool call produced: `text` for the model, `value` for in-process callers, `error` when it failed.

    `problem` is what went wrong said for a person (a failure reason, a record): the fact alone, never the
    directions `text` gives the model ("read_file it…", "Stop now and answer…").
    """

    text: str
    value: Any = None
    error: str = ""  # "" on success; else a kind: not-found, invalid, refused
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


class ToolError(Exception):
    """A tool call the model can correct: the message states what is wrong, `hint` tells the model what to do.

    Only the message may reach a person; the hint is for the model alone.
    """

    kind = "invalid"

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


class NotFound(ToolError):
    """The file or skill does not exist (yet)."""

    kind = "not-found"


@dataclass(frozen=True)
class Parameter:
    name: str
    description: str = ""


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: tuple[Parameter, ...]
    handler: Callable[..., ToolResult]
    writes: bool
    finishes: bool = False  # its value is the session's summary: a response whose calls all succeed ends there

    @property
    def reads(self) -> bool:
        """A call that asks for something to read: the model needs its result, so the session goes on."""
        return not self.writes and not self.finishes

    def signature(self) -> str:
        """`edit_file(path, old_text, new_text)`: how error messages and the text-mode prompt name a tool."""
        return f"{self.name}({', '.join(p.name for p in self.parameters)})"

    def schema(self) -> dict[str, Any]:
        """The OpenAI-style function schema litellm passes on to every provider."""
        properties = {p.name: {"type": "string", **({"description": p.description} if p.description else {})}
                      for p in self.parameters}
        parameters: dict[str, Any] = {"type": "object", "properties": properties}
        if self.parameters:
            parameters["required"] = [p.name for p in self.parameters]
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": parameters}}


@dataclass
class Registry:
    """The tools a session may call, by name, in declaration order."""

    tools: dict[str, Tool] = field(default_factory=dict)

    def tool(self, *, writes: bool = False,
             finishes: bool = False) -> Callable[[Callable[..., ToolResult]], Callable[..., ToolResult]]:
        """Declare `function(box, ...)` as a tool; `writes` marks tools whose reach outside voids a session,
        `finishes` the one whose value is the session's summary."""

        def declare(function: Callable[..., ToolResult]) -> Callable[..., ToolResult]:
            description, documented = _parse_doc(inspect.getdoc(function) or "")
            names = list(inspect.signature(function).parameters)[1:]  # the first is the ToolBox
            parameters = tuple(Parameter(name, documented.get(name, "")) for name in names)
            self.tools[function.__name__] = Tool(function.__name__, description, parameters, function, writes,
                                                 finishes)
            return function

        return declare

    def copy(self) -> Registry:
        return Registry(dict(self.tools))

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools.values())

    def get(self, name: object) -> Tool | None:
        return self.tools.get(name) if isinstance(name, str) else None

    def schemas(self) -> list[dict[str, Any]]:
        return [tool.schema() for tool in self]

    def markdown(self) -> str:
        """The reference page docs/tools.md, generated so it cannot drift from what the model is sent."""
        lines = ["# The dream's tools", "",
                 "Generated from the tool declarations in `nanodream/toolbox/tools.py` "
                 "(`python -m nanodream.toolbox.tools > docs/tools.md`); do not edit by hand.", ""]
        for tool in self:
            signature = ", ".join(p.name for p in tool.parameters)
            lines += [f"## `{tool.name}({signature})`", "", tool.description, ""]
            lines += [f"- `{p.name}`: {p.description or 'text'}" for p in tool.parameters]
            lines += [_effect(tool), ""]
        return "\n".join(lines)


def _effect(tool: Tool) -> str:
    if tool.finishes:
        return "- ends the session once every call of its response has succeeded; its value is the summary"
    return "- writes: " + ("yes — a path outside the memory files voids the whole session"
                           if tool.writes else "no — it only reads the staged copy")


def _parse_doc(doc: str) -> tuple[str, dict[str, str]]:
    """(description, {parameter: description}) from a docstring: first paragraph, then `name: text` lines."""
    head, _, rest = doc.partition("\n\n")
    documented = {}
    for line in rest.splitlines():
        name, sep, text = line.partition(":")
        if sep and name.strip().isidentifier():
            documented[name.strip()] = text.strip()
    return " ".join(head.split()), documented
