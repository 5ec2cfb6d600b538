"""A folder source reads every file its format is kept in — `.json` arrays for `openai` — unless `include` says
otherwise; a pretty-printed session file is named with a hint that says what JSON Lines wants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nanodream.cli import app
from nanodream.config import IngestSource
from nanodream.ingest.sources import list_files
from tests.support.cli import runner


def message(text: str, minute: int = 0, session: str = "web-1") -> dict:
    return {"role": "user", "content": text, "session": session, "timestamp": f"2026-10-01T10:{minute:02d}:00Z"}


def ingest(ws, *args: str) -> tuple[int, dict]:
    done = runner.invoke(app, ["ingest", *args, "--json", "-w", str(ws.root)])
    return done.exit_code, json.loads(done.output)


@pytest.fixture
def exports(tmp_path: Path) -> Path:
    folder = tmp_path / "exports"
    (folder / "2026").mkdir(parents=True)
    (folder / "2026" / "chat-1.json").write_text(json.dumps([message("I live in Lyon."),
                                                             message("Thanks!", 1)]))
    (folder / "chat-2.jsonl").write_text(json.dumps(message("I work at Acme.", 2, "web-2")) + "\n")
    (folder / "notes.txt").write_text("not a transcript\n")
    return folder


@pytest.mark.parametrize("fmt", [None, "openai"])
def test_a_folder_of_openai_exports_reads_the_json_arrays_too(workspace, exports, fmt):
    code, report = ingest(workspace, str(exports), *(["--format", fmt] if fmt else []))
    assert code == 0, report
    history = workspace.history_file.read_text(encoding="utf-8")
    assert "Lyon" in history and "Acme" in history
    assert report["sources"][0]["files"] == 2  # notes.txt is no format's file


def test_include_still_decides_when_given(exports):
    only_lines = IngestSource(exports, "openai", include=("*.jsonl",))
    assert [p.name for p in list_files(only_lines).files] == ["chat-2.jsonl"]
    default = IngestSource(exports, "codex")  # a format kept in .jsonl alone
    assert [p.name for p in list_files(default).files] == ["chat-2.jsonl"]


def test_a_configured_source_reads_the_arrays_during_run(workspace, exports):
    (workspace.root / "nanodream.toml").write_text(f'model = "builtin"\n\n[[ingest]]\npath = "{exports}"\n')
    done = runner.invoke(app, ["run", "-w", str(workspace.root)])
    assert done.exit_code == 0, done.output
    assert "Lyon" in workspace.history_file.read_text(encoding="utf-8")


def test_a_json_file_that_is_no_array_is_named_and_the_rest_is_read(workspace, exports):
    (exports / "sessions.json").write_text(json.dumps({"agent:main": {"sessionId": "x"}}))
    code, report = ingest(workspace, str(exports))
    assert code == 0, report
    assert any("sessions.json" in line for line in report["sources"][0]["skipped"])
    assert "Lyon" in workspace.history_file.read_text(encoding="utf-8")


def test_a_settings_file_beside_the_sessions_is_no_conversation_and_gets_no_jq_advice(workspace, exports):
    """OpenClaw's agents/ folder holds models.json and auth-profiles.json, pretty-printed: a new user was told, nine
    times, to rewrite them with `jq -c . FILE`."""
    (exports / "models.json").write_text(json.dumps({"providers": {"openai": {"baseUrl": "https://x"}}}, indent=2))
    code, report = ingest(workspace, str(exports))
    skipped = [line for line in report["sources"][0]["skipped"] if "models.json" in line]
    assert code == 0 and skipped and "no conversation" in skipped[0] and "jq" not in skipped[0], skipped
    (exports / "agent-1.meta.json").write_text(json.dumps({"agentType": "general-purpose", "description": "x"}))
    code, report = ingest(workspace, str(exports))  # a Claude Code subagent's one-line .meta.json: likewise
    said = [line for line in report["sources"][0]["skipped"] if "meta.json" in line]
    assert said and "no conversation" in said[0] and "formats:" not in said[0], said


PRETTY = json.dumps(message("I live in Lyon."), indent=2) + "\n" + json.dumps(message("I work at Acme.", 1),
                                                                                indent=2) + "\n"


def test_one_record_pretty_printed_gets_the_hint_and_the_workspace_stays_as_it_was(workspace, tmp_path):
    """A whole-file document that is no conversation (`{"messages": …}`) is one record written over many lines."""
    named = tmp_path / "one.json"
    named.write_text(json.dumps(message("I live in Lyon."), indent=2))
    before = workspace.history_file.read_bytes() if workspace.history_file.exists() else None
    done = runner.invoke(app, ["ingest", str(named), "-w", str(workspace.root)])
    assert done.exit_code == 2 and "jq -c" in " ".join(done.output.split()), done.output
    assert (workspace.history_file.read_bytes() if workspace.history_file.exists() else None) == before


def test_a_pretty_printed_session_file_gets_a_hint(workspace, tmp_path):
    named = tmp_path / "session.jsonl"
    named.write_text(PRETTY)
    done = runner.invoke(app, ["ingest", str(named), "-w", str(workspace.root)])
    assert done.exit_code == 2, done.output
    said = " ".join(done.output.split())
    assert "pretty-printed JSON" in said and "one record per line" in said and "jq -c" in said

    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "session.jsonl").write_text(PRETTY)
    (folder / "good.jsonl").write_text(json.dumps(message("I have a dog.")) + "\n")
    code, report = ingest(workspace, str(folder))
    assert code == 0 and any("pretty-printed" in line for line in report["sources"][0]["skipped"])
    assert "dog" in workspace.history_file.read_text(encoding="utf-8")


def test_a_first_line_that_is_not_json_still_says_only_that(workspace, tmp_path):
    named = tmp_path / "broken.jsonl"
    named.write_text('{"role": "user", "content": \n')
    done = runner.invoke(app, ["ingest", str(named), "-w", str(workspace.root)])
    assert done.exit_code == 2 and "line 1 is not JSON" in done.output and "pretty" not in done.output


def test_an_openclaw_session_reset_and_archived_is_read_from_its_folder(workspace, tmp_path):
    """`/reset` keeps the old transcript beside the new one as "<id>.jsonl.reset.<time>": a folder reads both."""
    from tests.support.paths import FIXTURES

    folder = tmp_path / "sessions"
    folder.mkdir()
    live = FIXTURES / "ingest" / "openclaw" / "sessions" / "b7300bff-a214-4c11-97ae-eab26883c67a.jsonl"
    archived = folder / "5d1c0e9a-0000-4000-8000-000000000001.jsonl.reset.2026-03-19T23-41-41.547Z"
    archived.write_text(live.read_text(encoding="utf-8").replace("b7300bff-a214-4c11-97ae-eab26883c67a",
                                                                 "5d1c0e9a-0000-4000-8000-000000000001"),
                        encoding="utf-8")
    code, report = ingest(workspace, str(folder))
    assert code == 0, report
    assert report["sources"][0]["files"] == 1 and report["sources"][0]["messages"] > 0, report


def test_openclaw_sessions_deleted_from_its_list_are_counted_not_read_and_a_trace_pointer_gets_no_jq(workspace,
                                                                                                   tmp_path):
    """A new user's OpenClaw folder: 16 "<id>.jsonl.deleted.<time>" transcripts were passed over without a word,
    and 18 "<id>.trajectory-path.json" pointers (pretty-printed, with a sessionId) each got "rewrite it with
    `jq -c`". The deleted ones are counted and said; named on its own, one is read; a pointer is no conversation."""
    from tests.support.paths import FIXTURES

    folder = tmp_path / "sessions"
    folder.mkdir()
    live = FIXTURES / "ingest" / "openclaw" / "sessions" / "b7300bff-a214-4c11-97ae-eab26883c67a.jsonl"
    deleted = folder / "5d1c0e9a-0000-4000-8000-000000000001.jsonl.deleted.1782530279"
    deleted.write_text(live.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "5d1c0e9a-0000-4000-8000-000000000001.trajectory.jsonl.deleted.1782530279").write_text("{}\n")
    (folder / "5d1c0e9a-0000-4000-8000-000000000001.trajectory-path.json").write_text(json.dumps(
        {"traceSchema": "openclaw-trajectory-pointer", "schemaVersion": 1,
         "sessionId": "5d1c0e9a-0000-4000-8000-000000000001", "runtimeFile": "/x.trajectory.jsonl"}, indent=2))
    code, report = ingest(workspace, str(folder))
    skipped = report["sources"][0]["skipped"]
    assert code == 0 and f"{folder}: transcripts OpenClaw keeps for sessions deleted from its list: 1 passed over " \
                         "(name one to read it)" in skipped, skipped
    assert any("trajectory-path.json: a JSON document holding no conversation" in line for line in skipped), skipped
    assert not any("jq" in line for line in skipped) and report["sources"][0]["messages"] == 0
    code, report = ingest(workspace, str(deleted))
    assert code == 0 and report["sources"][0]["messages"] > 0, report
