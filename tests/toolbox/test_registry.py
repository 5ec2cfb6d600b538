"""The tool registry: each tool is declared once, and the model's schema, the builtin engine's calls and the
reference page all come from that declaration."""

from __future__ import annotations

from typing import Literal, TypedDict, Unpack

from nanodream.backlog.history import Batch
from nanodream.config import Settings
from nanodream.engines.base import SessionRequest
from nanodream.engines.llm import LLMEngine
from nanodream.memory.staging import Staging
from nanodream.toolbox.limits import ToolLimits
from nanodream.toolbox.registry import ToolResult
from nanodream.toolbox.tools import TOOLS, ToolBox
from tests.support.paths import REPO
from tests.support.scripted_server import call, final
from tests.support.workspaces import llm_settings

DOCS = REPO / "docs" / "tools.md"
_STRING = {"type": "string"}


def _tool(name: str, description: str, *parameters: str) -> dict:
    schema: dict = {"type": "object", "properties": {p: _STRING for p in parameters}}
    if parameters:
        schema["required"] = list(parameters)
    return {"type": "function", "function": {"name": name, "description": description, "parameters": schema}}


# What the model is sent, written out by hand: every byte of it is in every request (issue 26 cut it from
# 2,731 to 1,858 bytes by leaving what the system prompt says and what a tool's error tells only to those).
HAND_WRITTEN_SCHEMAS = [
    _tool("read_file", "Read a memory file or archive month.", "path"),
    _tool("list_skills", "List skills: name, description, size."),
    _tool("edit_file", "Replace old_text, which must occur once, with new_text (empty: delete).",
          "path", "old_text", "new_text"),
    _tool("write_file", "Create a skill or rewrite a memory file whole.", "path", "content"),
    _tool("delete_skill", "Delete a skill merged into another.", "name"),
    _tool("archive_lines", "Move exact whole lines of memory/MEMORY.md to the archive.", "path", "text"),
    _tool("list_archive", "List the archive's months and their line counts."),
    {"type": "function", "function": {
        "name": "finish", "description": "End the session with its summary (and, optionally, the reasons for facts "
                                         "kept out, by number).",
        "parameters": {"type": "object", "properties": {"summary": _STRING, "reasons": _STRING},
                       "required": ["summary"]}}},
]


def with_toy_tool():
    """A registry with one more tool: the whole cost of adding a tool is this one declaration."""
    registry = TOOLS.copy()

    @registry.tool()
    def shout(box: ToolBox, text: str) -> ToolResult:
        """Repeat a text in capitals.

        text: what to repeat
        """
        return ToolResult(text.upper(), text.upper())

    return registry


def box_for(workspace, registry) -> ToolBox:
    return ToolBox(Staging(workspace), ToolLimits.from_settings(Settings()), registry=registry)


def test_the_declared_tools_reproduce_the_schemas_the_model_was_sent():
    assert TOOLS.schemas() == HAND_WRITTEN_SCHEMAS
    assert [tool.name for tool in TOOLS if tool.writes] == ["edit_file", "write_file", "delete_skill",
                                                            "archive_lines"]
    assert [tool.name for tool in TOOLS if tool.finishes] == ["finish"]


def test_a_toy_tool_reaches_the_model_over_http(workspace, serve):
    server = serve([call("shout", text="hello"), final("Shouted")])
    engine = LLMEngine(llm_settings(server))
    result = engine.run(SessionRequest("system", "user", Batch([])), box_for(workspace, with_toy_tool()))
    assert result.summary == "Shouted"
    sent = server.requests[0]["tools"]
    assert [tool["function"]["name"] for tool in sent][-1] == "shout"
    assert sent[-1]["function"]["parameters"] == {
        "type": "object", "properties": {"text": {"type": "string", "description": "what to repeat"}},
        "required": ["text"]}
    answered = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert answered[0]["content"] == "HELLO"


def test_a_toy_tool_is_in_the_builtin_engines_reach_with_a_typed_result(workspace):
    box = box_for(workspace, with_toy_tool())
    assert box.invoke("shout", text="hi") == ToolResult("HI", "HI")
    assert box.invoke("shout").error == "invalid"  # the same argument checks as the model's calls
    assert "shout" not in [tool.name for tool in TOOLS]  # the default registry is untouched


def test_typed_results_say_what_happened_without_parsing_prose(workspace):
    box = box_for(workspace, TOOLS)
    assert box.invoke("read_file", path="memory/MEMORY.md").value.startswith("# Memory")
    assert box.invoke("read_file", path="skills/none/SKILL.md").error == "not-found"
    assert box.invoke("read_file", path="../etc/passwd").error == "refused"
    assert box.invoke("list_skills").value == ()


def test_the_tool_reference_page_is_generated_from_the_declarations():
    assert DOCS.read_text(encoding="utf-8") == TOOLS.markdown() + "\n", "regenerate: python -m nanodream.toolbox.tools"


class Pair(TypedDict):
    left: str
    weight: float


class Fields(TypedDict):
    label: str
    pairs: list[Pair]


def test_a_typed_tool_declares_numbers_enums_lists_and_records_and_checks_their_kinds(workspace):
    registry = TOOLS.copy()

    @registry.tool()
    def rate(box: ToolBox, score: float, mood: Literal["calm", "loud"], **fields: Unpack[Fields]) -> ToolResult:
        """Rate something.

        score: 0 to 1
        """
        return ToolResult("rated", (score, mood, fields))

    tool = registry.get("rate")
    assert [p.name for p in tool.parameters] == ["score", "mood", "label", "pairs"]  # a record spreads into its keys
    properties = tool.schema()["function"]["parameters"]["properties"]
    assert properties["score"] == {"type": "number", "description": "0 to 1"}
    assert properties["mood"] == {"type": "string", "enum": ["calm", "loud"]}
    assert properties["pairs"] == {"type": "array", "items": {
        "type": "object", "properties": {"left": {"type": "string"}, "weight": {"type": "number"}},
        "required": ["left", "weight"]}}
    box = box_for(workspace, registry)
    good = box.dispatch("rate", {"score": 0.5, "mood": "calm", "label": "x", "pairs": [{"left": "a", "weight": 1}]})
    assert good.ok and good.value[2]["label"] == "x"
    refused = box.dispatch("rate", {"score": 0.5, "mood": "calm", "label": "x", "pairs": "a, b"})
    assert refused.error == "invalid" and "'pairs'" in refused.text and "expects a list" in refused.text
    assert not box.dispatch("rate", {"score": True, "mood": "calm", "label": "x", "pairs": []}).ok


def test_connects_tool_reference_page_is_generated_from_its_declarations():
    from nanodream.insights.tools import CONNECT_TOOLS

    page = REPO / "docs" / "insight-tools.md"
    expected = CONNECT_TOOLS.markdown("connect's tools", "nanodream.insights.tools", "docs/insight-tools.md")
    assert page.read_text(encoding="utf-8") == expected + "\n", "regenerate: python -m nanodream.insights.tools"
