"""Every parse of JSON someone else could write is bounded in depth and size: an over-deep or over-long document
is a dead letter, a skipped file or a one-line error — never an escaping RecursionError — and one bad document
never stops the good ones, the dream, `status` or the fleet."""

from __future__ import annotations

import ast
import json
import os
import shutil
from pathlib import Path

import pytest

from nanodream import api, boundedjson
from nanodream.backlog.history import read_from
from nanodream.cli import app
from nanodream.config import Settings
from nanodream.run.dream import run_dream
from nanodream.toolbox.textcalls import read_calls
from tests.support.cli import runner
from tests.support.paths import FIXTURES, REPO
from tests.support.workspaces import entry, git, write_history

PACKAGE = REPO / "nanodream"
FIXTURES = FIXTURES / "ingest"
DEEP = 1500  # the depth that raised RecursionError in every reader before


def deep_object(depth: int = DEEP) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


def deep_array(depth: int = DEEP) -> str:
    return "[" * depth + "]" * depth


# the helper ------------------------------------------------------------------------------------------------------


def test_no_module_parses_json_outside_the_bounded_reader():
    """json.loads, json.load and a JSONDecoder of their own are the one helper's alone."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "boundedjson.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "json" \
                    and node.attr in ("loads", "load", "JSONDecoder", "raw_decode"):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} json.{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module == "json":
                found += [f"{path.relative_to(PACKAGE)}:{node.lineno} from json import {a.name}" for a in node.names]
    assert found == []


@pytest.mark.parametrize("text", [deep_object(), deep_array(), "[" * 100_000, '{"x": ' + "[" * 65 + "]" * 65 + "}"])
def test_too_deep_is_a_value_error_before_the_parser_recurses(text):
    with pytest.raises(boundedjson.TooDeep, match="nested deeper than 64 levels"):
        boundedjson.loads(text, max_bytes=boundedjson.MESSAGE_BYTES)
    with pytest.raises(ValueError):  # raw_decode, for JSON embedded in prose, too
        boundedjson.raw_decode("said: " + text, 6)


def test_brackets_inside_strings_and_documents_at_the_limit_are_read():
    text = json.dumps({"text": "[" * 5000 + "{" * 5000, "nested": json.loads("[" * 63 + "]" * 63)})
    assert boundedjson.loads(text, max_bytes=boundedjson.LINE_BYTES)["text"].startswith("[[[")
    prose = 'call {"name": "x", "arguments": {"a": "}]"}} then [[[[ prose'
    value, end = boundedjson.raw_decode(prose, 5)
    assert value == {"name": "x", "arguments": {"a": "}]"}} and prose[end:] == " then [[[[ prose"


def test_too_long_is_refused_without_reading_past_the_limit(tmp_path):
    with pytest.raises(boundedjson.TooLong):
        boundedjson.loads(b"[" + b"1," * 600 + b"1]", max_bytes=1000)
    big = tmp_path / "state.json"
    big.write_bytes(b'{"a": "' + b"x" * 2000 + b'"}')
    with pytest.raises(boundedjson.TooLong):
        boundedjson.load_file(big, max_bytes=1000)


# history ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("line", [
    '{"cursor": 2, "timestamp": "2026-10-01 10:00", "content": "x", "extra": ' + deep_object() + "}",
    deep_array(),
    '{"cursor": 2, "timestamp": "2026-10-01 10:00", "content": ' + deep_array() + "}",
])
def test_a_deeply_nested_history_line_is_a_dead_letter_and_the_rest_dreams(workspace, line):
    write_history(workspace, [entry(1, "[durable] The API is written in Go."), line,
                              entry(3, "[durable] Deploys go through Fly.io.")])
    items = list(read_from(workspace.history_file))
    assert [getattr(item, "reason", "entry") for item in items] == ["entry", "nested deeper than 64 levels", "entry"]

    status = runner.invoke(app, ["status", "--json", "-w", str(workspace.root)])
    assert status.exit_code == 0, status.output
    assert json.loads(status.output)["dead_letters"] == [{"line": 2, "reason": "nested deeper than 64 levels"}]

    report = run_dream(workspace, Settings(model="builtin"))
    assert report.outcome == "committed" and report.entries == 2
    memory = (workspace.root / "memory" / "MEMORY.md").read_text(encoding="utf-8")
    assert "Go" in memory and "Fly.io" in memory


# transcripts -----------------------------------------------------------------------------------------------------


def _openai_line(text: str, session: str = "s1", minute: int = 0) -> str:
    return json.dumps({"role": "user", "content": text, "session": session,
                       "timestamp": f"2026-10-01T10:{minute:02d}:00Z"}) + "\n"


def _bad_files(folder: Path) -> dict[str, str]:
    """One file per reader that used to recurse without bound: the sniff, a later line, a .json array export,
    a Claude Code record nested in its message."""
    deep_claude = {"type": "user", "uuid": "u-1", "sessionId": "c1", "timestamp": "2026-10-01T10:00:00Z",
                   "message": {"role": "user", "content": "PLACEHOLDER"}}
    files = {
        "first-line-deep.jsonl": deep_object() + "\n" + _openai_line("I live in Lyon."),
        "later-line-deep.jsonl": _openai_line("My sister is called Ana.", "s2") + deep_array() + "\n"
                                 + _openai_line("I work at Acme as a gardener.", "s2", 1),
        "export-deep.json": "[" + _openai_line("I collect stamps.", "s3").strip() + ", " + deep_array() + "]",
        "claude-deep.jsonl": json.dumps(deep_claude).replace('"PLACEHOLDER"', deep_array()) + "\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return files


def test_one_over_deep_transcript_never_stops_the_good_ones(workspace, tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    shutil.copy(FIXTURES / "openai" / "chat.jsonl", folder / "good.jsonl")
    _bad_files(folder)

    done = runner.invoke(app, ["ingest", str(folder), "--json", "-w", str(workspace.root)])

    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    [source] = report["sources"]
    skipped = " ".join(source["skipped"])
    assert "first-line-deep.jsonl" in skipped and "nested deeper than 64 levels" in skipped
    assert "export-deep.json" in skipped and "claude-deep.jsonl" in skipped
    history = workspace.history_file.read_text(encoding="utf-8")
    assert "Ana" in history and "Acme" in history  # the lines around a deep one are read
    assert report["added"] >= 2


def test_a_run_whose_ingest_source_holds_an_over_deep_file_still_dreams(workspace, tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    _bad_files(folder)
    (folder / "good.jsonl").write_text(_openai_line("I live in Lyon and work at Acme.", "g"), encoding="utf-8")
    (workspace.root / "nanodream.toml").write_text(f'model = "builtin"\n\n[[ingest]]\npath = "{folder}"\n')

    done = runner.invoke(app, ["run", "--json", "-w", str(workspace.root)])

    assert done.exit_code == 0, done.output
    assert "Lyon" in (workspace.root / "USER.md").read_text(encoding="utf-8") + \
        (workspace.root / "memory" / "MEMORY.md").read_text(encoding="utf-8")


# nanodream's own state files ----------------------------------------------------------------------------------


def test_over_deep_state_files_are_unreadable_state_never_an_exception(workspace):
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    state = workspace.state_dir
    state.mkdir(exist_ok=True)
    for name in ("position.json", "quarantine.json", "dead-letters.json", "host.busy", "confirmed.json"):
        (state / name).write_text(deep_object())
    os.utime(state / "host.busy", (1, 1))  # unreadable and old: no host claims the workspace (docs/locking.md)
    (state / "runs.jsonl").write_text(deep_array() + "\n")

    status = runner.invoke(app, ["status", "--json", "-w", str(workspace.root)])
    assert status.exit_code == 0, status.output
    assert "unreadable" in json.loads(status.output)["quarantine_error"]

    (state / "quarantine.json").unlink()
    assert runner.invoke(app, ["run", "-w", str(workspace.root)]).exit_code == 0
    assert "Go" in (workspace.root / "memory" / "MEMORY.md").read_text(encoding="utf-8")


def test_an_over_deep_journal_stops_for_a_person_naming_it(workspace):
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    workspace.state_dir.mkdir(exist_ok=True)
    workspace.journal_file.write_text(deep_object())
    before = git(workspace, "rev-parse", "HEAD")

    done = runner.invoke(app, ["run", "-w", str(workspace.root)])

    assert done.exit_code == 78, done.output
    assert ".nanodream/journal.json" in " ".join(done.output.split())
    assert git(workspace, "rev-parse", "HEAD") == before


def test_over_deep_ingest_state_is_said_and_read_afresh(workspace, tmp_path):
    ingest_state = workspace.state_dir / "ingest"
    ingest_state.mkdir(parents=True)
    (ingest_state / "watermarks.json").write_text(deep_object())
    chat = tmp_path / "chat.jsonl"
    chat.write_text(_openai_line("I live in Lyon."))

    done = runner.invoke(app, ["ingest", str(chat), "-w", str(workspace.root)])

    assert done.exit_code == 0, done.output
    assert "watermarks.json is unreadable" in " ".join(done.output.split())
    assert "Lyon" in workspace.history_file.read_text(encoding="utf-8")
    assert api.status(workspace).exit_code == 0


# what a model sends ----------------------------------------------------------------------------------------------


def test_over_deep_calls_written_as_text_are_not_calls_and_do_not_crash():
    deep_call = '{"name": "write_file", "arguments": ' + deep_object() + "}"
    for content in (deep_call, f"```json\n{deep_call}\n```", f"<tool_call>\n{deep_call}\n</tool_call>",
                    f"Here: {deep_array()} and then " + '{"name": "list_skills", "arguments": {}}'):
        calls, _ = read_calls(content)  # an unreadable <tool_call> comes back as an error for the model
        assert all(call.name == "list_skills" or call.unreadable for call in calls)
        assert not any(call.name == "write_file" for call in calls)
    assert [call.name for call in read_calls(content)[0]] == ["list_skills"]


def test_over_deep_tool_arguments_never_escape_the_session(workspace, serve):
    """A provider answer whose call arguments nest 1,500 levels: refused as a bad answer (litellm reads it first)
    or as arguments that are not valid JSON — either way the session goes on and the dream commits."""
    from tests.support.scripted_server import call, final, tool_calls
    from tests.support.workspaces import llm_settings

    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    server = serve([tool_calls(("read_file", deep_object())),
                    call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
                         new_text="## Project\n- The API is written in Go.\n"),
                    final("Filed the API's language.")])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    assert "- The API is written in Go." in (workspace.root / "memory" / "MEMORY.md").read_text(encoding="utf-8")


def test_over_deep_arguments_reaching_the_toolbox_are_an_error_the_model_reads(workspace):
    from nanodream.toolbox.registry import ToolError
    from nanodream.toolbox.tools import _decode_arguments

    with pytest.raises(ToolError, match="not valid JSON"):
        _decode_arguments(deep_object())
