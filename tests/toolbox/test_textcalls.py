"""Tool calls written as text: every form local models use is read, and prose that only looks like JSON is not."""

from __future__ import annotations

import json

import pytest

from nanodream.toolbox.textcalls import CALL_EXAMPLE, TextCall, read_calls, text_mode_instructions
from nanodream.toolbox.tools import TOOLS

EDIT = {"path": "USER.md", "old_text": "## Preferences\n", "new_text": "## Preferences\n- Likes tea.\n"}
CALL = {"name": "edit_file", "arguments": EDIT}


@pytest.mark.parametrize("content", [
    f"<tool_call>\n{json.dumps(CALL)}\n</tool_call>",
    f"I will add it.\n<tool_call>{json.dumps(CALL)}</tool_call>\nDone.",
    f"<tool_call>{json.dumps(CALL)}",  # a closing tag the model never wrote
    f"```json\n{json.dumps(CALL, indent=2)}\n```",
    f"```\n{json.dumps(CALL)}\n```",
    f"```json\n{json.dumps([CALL])}\n```",
    json.dumps(CALL),
    f"Here is the call: {json.dumps(CALL)} and that is all.",
    json.dumps({"name": "edit_file", "parameters": EDIT}),
    json.dumps({"name": "edit_file", "arguments": json.dumps(EDIT)}),
    json.dumps({"function": {"name": "edit_file", "arguments": EDIT}}),
    json.dumps({"type": "function", "function": {"name": "edit_file", "arguments": json.dumps(EDIT)}}),
    json.dumps({"tool_calls": [{"function": {"name": "edit_file", "arguments": EDIT}}]}),
    f"functions.edit_file: {json.dumps(EDIT)}",
    f"functions.edit_file({json.dumps(EDIT)})",
    f"functions.edit_file:\n```json\n{json.dumps(EDIT, indent=2)}\n```",
    f"to=functions.edit_file <|constrain|>json<|message|>{json.dumps(EDIT)}",
    json.dumps({"function": "edit_file", "arguments": EDIT}),
    json.dumps({"type": "tool_use", "id": "toolu_1", "name": "edit_file", "input": EDIT}),
    f"[TOOL_CALLS] {json.dumps([CALL])}",
    f"<function=edit_file>{json.dumps(EDIT)}</function>",
])
def test_every_common_form_of_a_written_call_is_read(content):
    calls, _ = read_calls(content)
    assert calls == [TextCall("edit_file", EDIT)]


def test_several_calls_are_read_in_the_order_written():
    read = {"name": "read_file", "arguments": {"path": "USER.md"}}
    content = (f"First:\n```json\n{json.dumps([read, CALL])}\n```\nthen <tool_call>{json.dumps(read)}</tool_call>"
               f"\nand {json.dumps({'name': 'list_skills', 'arguments': {}})}")
    calls, prose = read_calls(content)
    assert [c.name for c in calls] == ["read_file", "edit_file", "read_file", "list_skills"]
    assert prose.startswith("First:") and "then" in prose and "read_file" not in prose


@pytest.mark.parametrize(("content", "prose"), [
    (f"[TOOL_CALLS] {json.dumps([CALL])}", ""),
    (f"Noted the tea.\n{json.dumps([CALL, CALL])}", "Noted the tea."),
    (f"<|python_tag|>{json.dumps(CALL)}<|eom_id|>", ""),
    (f"functools[{json.dumps(CALL)}]", ""),
    (f"{json.dumps(CALL)}\nOpen questions:\n- [ ] ask about the deploy window",
     "Open questions:\n- [ ] ask about the deploy window"),  # a checklist is not a list the calls stood in
])
def test_the_wrapping_of_written_calls_never_stays_in_the_prose_that_may_be_the_summary(content, prose):
    calls, rest = read_calls(content)
    assert calls and rest == prose


def test_prose_and_json_that_is_not_a_call_are_left_alone():
    content = ("### Summary\n- **Changed**: nothing.\n```markdown\n# User\n```\n"
               '```json\n{"name": "Maya", "city": "Stockholm"}\n```\n{"settings": {"name": "x", "arguments": {}}}')
    assert read_calls(content) == ([], content.strip())


def test_a_broken_call_inside_tool_call_tags_is_reported_not_skipped():
    [call], _ = read_calls('<tool_call>{"name": "edit_file", "arguments": {"path": "USER.md"</tool_call>')
    assert call.unreadable and "not a JSON object" in call.unreadable


def test_arguments_that_are_not_an_object_are_passed_on_for_the_toolbox_to_refuse():
    [call], _ = read_calls(json.dumps({"name": "read_file", "arguments": "USER.md"}))
    assert call.arguments == "USER.md"
    [listed], _ = read_calls(json.dumps({"name": "read_file", "arguments": ["USER.md"]}))
    assert listed.arguments == '["USER.md"]'


def test_the_text_mode_prompt_names_every_tool_with_its_parameters_and_the_format_the_reader_reads():
    text = text_mode_instructions(TOOLS)
    for tool in TOOLS:
        assert f"- {tool.signature()}: {tool.description}" in text
    assert "edit_file(path, old_text, new_text)" in text
    assert CALL_EXAMPLE in text
    assert "edit_file takes path, old_text and new_text" in text
    [example], _ = read_calls(CALL_EXAMPLE)  # a read: copied verbatim, it files nothing the user never said
    assert example.name == "read_file" and example.arguments == {"path": "USER.md"}
