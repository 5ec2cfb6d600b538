"""How an MCP tool is declared: once, as a function whose typed signature and docstring are its schema.

    @TOOLS.reads("StatusReport")
    def memory_status(workspace: Workspace) -> ToolResult:
        '''The backlog waiting, the last dream and runs, the files' fill, the pending proposals.'''

The first parameter is the workspace the server was started for; the server binds it, so a host never names
a path. The SDK derives the input schema from the remaining parameters (types, bounds, choices and their
`Field` descriptions), so what a host is told and what the code accepts cannot disagree. The output schema is
the declared schema of the report the tool answers with (`answers`, a type of `nanodream.api`), marked untrusted.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mcp_types import ToolAnnotations

from nanodream.api.schema import output_schema


@dataclass(frozen=True)
class McpTool:
    function: Callable[..., Any]
    writes: bool  # listed only when a person allowed writes (`--allow-write`, `mcp_write = true`)
    annotations: ToolAnnotations
    answers: str  # the report type of nanodream.api whose JSON the result carries

    @property
    def name(self) -> str:
        return self.function.__name__

    @property
    def description(self) -> str:
        return inspect.getdoc(self.function) or ""

    @property
    def output_schema(self) -> dict[str, Any]:
        """The report's declared schema, and the `untrusted` mark every result carries."""
        schema = output_schema(self.answers)
        return {**schema, "properties": {**schema["properties"], "untrusted": {"const": True}},
                "required": [*schema["required"], "untrusted"]}


@dataclass
class Catalogue:
    """The server's tools by name, in declaration order."""

    tools: dict[str, McpTool] = field(default_factory=dict)

    def reads(self, answers: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Declare a tool that only looks, answering with the report type `answers`: always listed."""
        return self._declare(answers, False, ToolAnnotations(read_only_hint=True, open_world_hint=False))

    def writes(self, answers: str, *, destructive: bool = False,
               open_world: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Declare a tool that changes the workspace through the write door: listed only when allowed.

        `destructive`: it may take something out of memory (a restore, forget); `open_world`: it may reach a
        model provider (a dream).
        """
        hints = ToolAnnotations(read_only_hint=False, destructive_hint=destructive, idempotent_hint=False,
                                open_world_hint=open_world)
        return self._declare(answers, True, hints)

    def _declare(self, answers: str, writes: bool,
                 hints: ToolAnnotations) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def declare(function: Callable[..., Any]) -> Callable[..., Any]:
            self.tools[function.__name__] = McpTool(function, writes, hints, answers)
            return function

        return declare

    def include(self, other: Catalogue) -> None:
        """Add another catalogue's tools after these (a concern declared in a module of its own)."""
        self.tools.update(other.tools)

    def __iter__(self) -> Iterator[McpTool]:
        return iter(self.tools.values())

    def listed(self, *, writes: bool) -> list[McpTool]:
        """The tools a server shows: the read-only ones, and the write ones only when `writes`."""
        return [tool for tool in self if writes or not tool.writes]
