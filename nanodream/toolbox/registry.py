"""A tool is declared once: a function whose signature and docstring become the schema the model sees, and
whose typed result the model reads as text and an in-process engine reads as data.

    @TOOLS.tool(writes=True)
    def delete_skill(box: ToolBox, name: str) -> ToolResult:
        '''Delete a skill that has been merged into another one.

        name: the skill's folder name
        '''

The first paragraph of the docstring is the tool's description; later lines `param: text` describe
parameters. A parameter's annotation gives its JSON schema: `str` (the dream's tools edit text, so all of
theirs are strings), `float`, a `Literal` of strings (an enum), `list[...]` and a `TypedDict` (an object).
A tool whose arguments are a record's fields takes them as `**fields: Unpack[TheRecord]`: each key of the
TypedDict is one parameter, in its order.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Unpack, get_args, get_origin, is_typeddict


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


STRING: dict[str, Any] = {"type": "string"}


@dataclass(frozen=True)
class Parameter:
    name: str
    description: str = ""
    schema: dict[str, Any] = field(default_factory=lambda: dict(STRING))
    required: bool = True  # a parameter with a default in the signature may be left out

    @property
    def kind(self) -> str:
        """The JSON type a value must have: string | number | array | object."""
        return str(self.schema["type"])


def schema_of(annotation: Any) -> dict[str, Any]:
    """The JSON schema of a parameter's annotation (see the module docstring); text for anything else."""
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation in (float, int):
        return {"type": "number"}
    if origin is Literal and all(isinstance(value, str) for value in args):
        return {"type": "string", "enum": list(args)}
    if origin is list and len(args) == 1:
        return {"type": "array", "items": schema_of(args[0])}
    if is_typeddict(annotation):
        hints = typing.get_type_hints(annotation)
        return {"type": "object", "properties": {key: schema_of(value) for key, value in hints.items()},
                "required": list(hints)}
    return dict(STRING)


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
        properties = {p.name: {**p.schema, **({"description": p.description} if p.description else {})}
                      for p in self.parameters}
        parameters: dict[str, Any] = {"type": "object", "properties": properties}
        if self.parameters:
            parameters["required"] = [p.name for p in self.parameters if p.required]
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": parameters}}


DREAM_EFFECTS = ("no — it only reads the staged copy", "yes — a path outside the memory files voids the whole session")


@dataclass
class Registry:
    """The tools a session may call, by name, in declaration order; `effects` says on the reference page what a
    reading and a writing tool do."""

    tools: dict[str, Tool] = field(default_factory=dict)
    effects: tuple[str, str] = DREAM_EFFECTS

    def tool(self, *, writes: bool = False,
             finishes: bool = False) -> Callable[[Callable[..., ToolResult]], Callable[..., ToolResult]]:
        """Declare `function(box, ...)` as a tool; `writes` marks tools whose reach outside voids a session,
        `finishes` the one whose value is the session's summary."""

        def declare(function: Callable[..., ToolResult]) -> Callable[..., ToolResult]:
            description, documented = _parse_doc(inspect.getdoc(function) or "")
            parameters = tuple(Parameter(name, documented.get(name, ""), schema_of(hint), required)
                               for name, hint, required in _declared(function))
            self.tools[function.__name__] = Tool(function.__name__, description, parameters, function, writes,
                                                 finishes)
            return function

        return declare

    def copy(self) -> Registry:
        return Registry(dict(self.tools), self.effects)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools.values())

    def get(self, name: object) -> Tool | None:
        return self.tools.get(name) if isinstance(name, str) else None

    def _effect(self, tool: Tool) -> str:
        if tool.finishes:
            return "- ends the session once every call of its response has succeeded; its value is the summary"
        return "- writes: " + self.effects[tool.writes]

    def schemas(self) -> list[dict[str, Any]]:
        return [tool.schema() for tool in self]

    def markdown(self, title: str = "The dream's tools", module: str = "nanodream.toolbox.tools",
                 page: str = "docs/tools.md") -> str:
        """A reference page (docs/tools.md for the dream's), generated so it cannot drift from what the model is
        sent."""
        lines = [f"# {title}", "",
                 f"Generated from the tool declarations in `{module.replace('.', '/')}.py` "
                 f"(`python -m {module} > {page}`); do not edit by hand.", ""]
        for tool in self:
            signature = ", ".join(p.name for p in tool.parameters)
            lines += [f"## `{tool.name}({signature})`", "", tool.description, ""]
            lines += [f"- `{p.name}`: {p.description or 'text'}{_kind(p)}{'' if p.required else ' (optional)'}"
                      for p in tool.parameters]
            lines += [self._effect(tool), ""]
        return "\n".join(lines)


def _declared(function: Callable[..., ToolResult]) -> list[tuple[str, Any, bool]]:
    """(name, annotation, required) of each parameter after the ToolBox, a `**fields: Unpack[Record]` spread into
    its keys; one with a default may be left out."""
    hints = typing.get_type_hints(function)
    found: list[tuple[str, Any, bool]] = []
    for name, parameter in list(inspect.signature(function).parameters.items())[1:]:
        hint = hints.get(name, str)
        if parameter.kind is inspect.Parameter.VAR_KEYWORD and get_origin(hint) is Unpack:
            found += [(key, value, True) for key, value in typing.get_type_hints(get_args(hint)[0]).items()]
        else:
            found.append((name, hint, parameter.default is inspect.Parameter.empty))
    return found


def _kind(parameter: Parameter) -> str:
    """What a parameter that is not plain text takes, as the reference page says it."""
    schema = parameter.schema
    if "enum" in schema:
        return f" (one of {', '.join(schema['enum'])})"
    if schema["type"] == "array" and schema["items"]["type"] == "object":
        return f" (a list of objects with {', '.join(schema['items']['properties'])})"
    return {"number": " (a number)", "array": " (a list of strings)"}.get(schema["type"], "")




def _parse_doc(doc: str) -> tuple[str, dict[str, str]]:
    """(description, {parameter: description}) from a docstring: first paragraph, then `name: text` lines."""
    head, _, rest = doc.partition("\n\n")
    documented = {}
    for line in rest.splitlines():
        name, sep, text = line.partition(":")
        if sep and name.strip().isidentifier():
            documented[name.strip()] = text.strip()
    return " ".join(head.split()), documented
