"""The restricted toolset: exact edits on the staged copy, and no way out of the allowlist."""

from __future__ import annotations

import json
import os

import pytest

from nanodream.config import Settings
from nanodream.memory.staging import Staging
from nanodream.toolbox.limits import ToolLimits
from nanodream.toolbox.tools import TOOLS, SessionAborted, ToolBox

SKILL = "---\nname: deploy\ndescription: Deploy the service\n---\n\n1. run deploy\n"


@pytest.fixture
def box(workspace):
    limits = ToolLimits.from_settings(Settings(max_tool_calls=100, max_file_chars=500, max_skill_chars=300))
    return ToolBox(Staging(workspace), limits)


def run(box, tool, **args):
    return box.call(tool, json.dumps(args))


def test_edit_replaces_exactly_one_occurrence_and_names_the_count_otherwise(box):
    run(box, "write_file", path="memory/MEMORY.md", content="- a\n- b\n- a\n")
    assert "matches 2 times" in run(box, "edit_file", path="memory/MEMORY.md", old_text="- a", new_text="- c")
    assert "0 matches" in run(box, "edit_file", path="memory/MEMORY.md", old_text="- z", new_text="- c")
    assert run(box, "edit_file", path="memory/MEMORY.md", old_text="- b\n- a", new_text="- c").startswith("OK")
    assert box.staging.read("memory/MEMORY.md") == "- a\n- c\n"


def test_tools_edit_the_staged_copy_never_the_real_file(box, workspace):
    original = (workspace.root / "USER.md").read_bytes()
    assert run(box, "write_file", path="USER.md", content="# User\n- new\n").startswith("OK")
    assert (workspace.root / "USER.md").read_bytes() == original
    assert run(box, "read_file", path="USER.md") == "# User\n- new\n"


@pytest.mark.parametrize("path", [
    "/etc/passwd", "../outside.md", "memory/../USER.md", "./USER.md", "memory/history.jsonl", "memory/.dream_cursor",
    ".git/config", "nanodream.toml", "prompts/dream.md", "skills/Bad_Name/SKILL.md", "skills/x/other.md",
    "skills/x/../../USER.md", "USER.md/", "", "C:\\USER.md", "memory\\MEMORY.md", "skills//SKILL.md",
])
def test_paths_outside_the_allowlist_are_refused_for_read_and_write(box, workspace, path):
    assert run(box, "read_file", path=path).startswith("Error:")
    assert run(box, "write_file", path=path, content="pwned").startswith("Error:")
    assert not any("pwned" in (c or "") for c in box.staging.current.values())


def test_symlinked_memory_file_pointing_outside_is_refused(box, workspace, tmp_path):
    secret = tmp_path / "outside.md"
    secret.write_text("outside secret")
    (workspace.root / "skills" / "evil").mkdir(parents=True)
    os.symlink(secret, workspace.root / "skills" / "evil" / "SKILL.md")
    os.symlink(tmp_path, workspace.root / "skills" / "linkdir")
    for path in ("skills/evil/SKILL.md", "skills/linkdir/SKILL.md"):
        assert "symlink" in run(box, "read_file", path=path)
        assert "symlink" in run(box, "write_file", path=path, content=SKILL.replace("deploy", "evil"))
    assert secret.read_text() == "outside secret"


def test_skill_files_need_front_matter_matching_the_folder(box):
    assert "front matter" in run(box, "write_file", path="skills/deploy/SKILL.md", content="1. run deploy\n")
    assert "name must be 'deploy'" in run(box, "write_file", path="skills/deploy/SKILL.md",
                                          content=SKILL.replace("name: deploy", "name: other"))
    assert "description" in run(box, "write_file", path="skills/deploy/SKILL.md",
                                content="---\nname: deploy\n---\n\nsteps\n")
    assert run(box, "write_file", path="skills/deploy/SKILL.md", content=SKILL).startswith("OK: created")
    assert "deploy — Deploy the service" in run(box, "list_skills")
    assert run(box, "delete_skill", name="deploy") == "OK: deleted skill deploy"
    assert "does not exist" in run(box, "delete_skill", name="deploy")


def test_size_cap_refuses_and_tells_the_model_to_merge(box):
    assert "merge and prune" in run(box, "write_file", path="USER.md", content="x" * 501)


def test_a_file_near_or_over_its_cap_is_said_once_a_session(box):
    """Every later request re-sends each tool result: the model is told once per file and kind, not per edit."""
    near = [run(box, "write_file", path="USER.md", content="x" * size) for size in (430, 440, 450)]
    assert ["merge and prune before adding more" in result for result in near] == [True, False, False]
    over = [run(box, "write_file", path="USER.md", content="x" * size) for size in (510, 520)]
    assert ["over its cap" in result for result in over] == [True, False]
    assert "merge and prune before" in run(box, "write_file", path="memory/MEMORY.md", content="x" * 450)


def test_malformed_arguments_and_unknown_tools_get_actionable_errors(box):
    assert "not valid JSON" in box.call("read_file", '{"path": "USER.md"')
    assert "missing argument path" in box.call("read_file", "{}")
    assert "unknown tool 'rm'" in box.call("rm", "{}")


@pytest.mark.parametrize(("name", "arguments", "parameter", "kind"), [
    ("write_file", {"path": "memory/MEMORY.md", "content": ["# Memory\n", "- a\n"]}, "content", "a list"),
    ("edit_file", {"path": "USER.md", "old_text": "# User", "new_text": None}, "new_text", "null"),
    ("read_file", {"path": {"file": "USER.md"}}, "path", "an object"),
    ("delete_skill", {"name": 3}, "name", "a number"),
    ("archive_lines", {"path": "memory/MEMORY.md", "text": True}, "text", "a boolean"),
])
def test_an_argument_of_the_wrong_type_names_the_parameter_and_the_expected_type(box, name, arguments, parameter,
                                                                                  kind):
    before = dict(box.staging.current)
    answer = box.call(name, arguments)
    assert answer.startswith("Error:") and f"parameter {parameter!r}" in answer
    assert f"expects a string, got {kind}" in answer and TOOLS.get(name).signature() in answer
    assert box.staging.current == before and box.calls == 1 and box.failures == 1


def test_an_unknown_tool_is_answered_with_every_tool_and_its_parameters(box):
    answer = box.call("merge", {"path": "memory/MEMORY.md"})
    assert "unknown tool 'merge'" in answer
    for tool in TOOLS:
        assert tool.signature() in answer
    assert "every argument is a string" in answer


def test_a_call_that_could_not_be_read_is_counted_and_guarded_like_a_failed_one(box):
    for _ in range(2):
        assert "could not" in box.call("", "{", unreadable="could not read it")
    with pytest.raises(SessionAborted, match="repeated 3 times"):
        box.call("", "{", unreadable="could not read it")
    assert box.calls == 3


def test_repeating_the_same_failing_call_aborts_the_session(box):
    for _ in range(2):
        assert run(box, "read_file", path="nope.md").startswith("Error:")
    with pytest.raises(SessionAborted, match="repeated 3 times"):
        run(box, "read_file", path="nope.md")


def test_tool_call_cap(workspace):
    box = ToolBox(Staging(workspace), ToolLimits.from_settings(Settings(max_tool_calls=2)))
    run(box, "list_skills")
    run(box, "list_skills")
    with pytest.raises(SessionAborted, match="cap of 2"):
        run(box, "list_skills")
