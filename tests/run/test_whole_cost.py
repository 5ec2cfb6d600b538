"""The whole cost and all evidence of a batch that took more than one session, replayed from a live small model.

Measured live (issue 48): every `tool_mode = "auto"` run of a 1.5B model fell back to structured mode; the commit's
trailers and `log` counted only the structured session (1,529 in / 932 out) while runs.jsonl said 7,282 / 1,280,
the tools session's transcript was overwritten by the structured one, and a commit subject could be raw JSON.
Here the same shape runs over real HTTP against the scripted server, with each answer's own token counts.
"""

from __future__ import annotations

import json

import pytest

from nanodream import api
from nanodream.run.dream import run_dream
from nanodream.run.records import read_records
from nanodream.run.transcripts import Transcript, list_transcripts, save_transcript, transcripts_dir
from nanodream.vocab import Trailer, Trailers
from tests.support.cli import cli
from tests.support.paths import FIXTURES
from tests.support.scripted_server import final, spending, tool_calls
from tests.support.structured import OLD, item, kiwi_backlog
from tests.support.workspaces import git, llm_settings, snapshot


@pytest.fixture
def kiwi(workspace):
    return kiwi_backlog(workspace)


def filed(summary: str = "Filed the preference, the backup and the move to Kubernetes") -> str:
    return json.dumps({"facts": [item(1, "USER.md", "Prefers answers in British English"),
                                 item(2, "memory/MEMORY.md", "The nightly backup runs at 02:00 on host birch"),
                                 item(3, "memory/MEMORY.md", "Project kiwi deploys with Kubernetes on host atlas",
                                      OLD[2:])],
                       "summary": summary})


# What the 1.5B did live: prose about edits it never made (its recorded answer to this very batch), an answer to the
# question that accounts for nothing, then structured mode.
RECORDED = json.loads((FIXTURES / "real-model" / "qwen2.5-coder-1.5b-session-1.json").read_text())
PROSE = RECORDED["messages"][-1]["content"]
TOOLS_SESSION = [spending(4000, 300, final(PROSE)), spending(1753, 48, final("All of them are saved now."))]
FALLBACK = [*TOOLS_SESSION, spending(1529, 932, final(filed()))]


def last_dream(ws) -> Trailers:
    return Trailers.parse(git(ws, "log", "-1", "--format=%B"))


def test_autos_fallback_counts_both_sessions_in_the_trailers_log_records_and_status(kiwi, serve):
    server = serve(FALLBACK)
    report = run_dream(kiwi, llm_settings(server))
    assert report.outcome == "committed" and report.exit_code == 0, report.reason
    assert (report.tokens_in, report.tokens_out, report.requests) == (7282, 1280, 3)

    trailers = last_dream(kiwi)
    assert trailers.tokens == (7282, 1280)  # the commit counts the tools session too, not only the structured one
    assert trailers.sessions == ["tools", "structured"]
    assert "tools requests=2 in=5753 out=348" in trailers.get(Trailer.SESSIONS)
    assert "structured requests=1 in=1529 out=932" in trailers.get(Trailer.SESSIONS)

    [logged] = [c for c in api.log(kiwi.root).commits if c.kind == "dream"]
    assert logged.tokens["in"] == 7282 and logged.tokens["out"] == 1280 and logged.sessions == ["tools", "structured"]
    shown = cli("log", ws=kiwi)
    assert "tokens in 7282 out 1280" in shown.output and "2 sessions (tools, structured)" in shown.output

    [record] = read_records(kiwi)
    assert (record.tokens_in, record.tokens_out, record.requests) == (7282, 1280, 3)
    assert [(s["mode"], s["requests"], s["tokens_in"], s["tokens_out"]) for s in record.sessions] == [
        ("tools", 2, 5753, 348), ("structured", 1, 1529, 932)]
    assert [s["outcome"] for s in record.sessions] == ["model-no-op", "committed"]
    status = cli("status", ws=kiwi)
    assert "out 1280, 2 sessions (tools, structured)" in status.output


def test_autos_fallback_keeps_both_transcripts_each_under_its_own_name(kiwi, serve):
    server = serve(FALLBACK)
    run_dream(kiwi, llm_settings(server))
    [record] = read_records(kiwi)
    names = [s["transcript"] for s in record.sessions]
    assert len(set(names)) == 2 and all(names)
    assert sorted(p.name for p in list_transcripts(kiwi)) == sorted(names)
    tools, structured = (json.loads((transcripts_dir(kiwi) / name).read_text()) for name in names)
    assert tools["mode"] == "tools" and structured["mode"] == "structured"
    said = [m.get("content") for m in tools["messages"] if m["role"] == "assistant"]
    assert said == [PROSE, "All of them are saved now."]
    assert json.loads(structured["messages"][-1]["content"])["facts"][0]["file"] == "USER.md"


def test_when_both_sessions_fail_nothing_changes_and_both_are_on_record(kiwi, serve):
    before = snapshot(kiwi)
    server = serve([*TOOLS_SESSION, spending(900, 40, final("Sure, here is what I filed.")),
                    spending(800, 30, final("Everything is filed."))])
    report = run_dream(kiwi, llm_settings(server))
    assert report.outcome == "model-no-op" and report.exit_code == 1
    assert snapshot(kiwi) == before
    [record] = read_records(kiwi)
    assert (record.tokens_in, record.tokens_out, record.requests) == (7453, 418, 4)
    assert [s["mode"] for s in record.sessions] == ["tools", "structured"]
    assert [s["outcome"] for s in record.sessions] == ["model-no-op", "model-no-op"]
    assert sorted(p.name for p in list_transcripts(kiwi)) == sorted(s["transcript"] for s in record.sessions)


def test_a_transcript_never_replaces_another_of_the_same_run_and_batch(workspace):
    def save(words: str) -> str:
        transcript = Transcript("run-1", 4, 9, "openai/m", [{"role": "assistant", "content": words}], "finished",
                                mode="tools")
        return save_transcript(workspace, transcript, keep=10).name

    names = [save("first"), save("second"), save("third")]
    assert names == ["run-1-4-tools.json", "run-1-4-tools-2.json", "run-1-4-tools-3.json"]
    kept = [json.loads(p.read_text())["messages"][0]["content"] for p in sorted(list_transcripts(workspace))]
    assert sorted(kept) == ["first", "second", "third"]


# the subject is words ----------------------------------------------------------------------------------------


CUT = {"message": {"role": "assistant", "content": '{"facts": [{"number": 1, "file": "USER.md", "line": "Prefers'},
       "finish_reason": "length"}


def test_a_structured_answer_cut_at_max_tokens_never_becomes_the_subject(kiwi, serve):
    server = serve([CUT, final(filed(summary=""))])
    report = run_dream(kiwi, llm_settings(server, tool_mode="structured", max_tokens=64))
    assert report.outcome == "committed", report.reason
    subject = git(kiwi, "log", "-1", "--format=%s")
    assert subject.startswith("dream: add 1 line to USER.md; change memory/MEMORY.md (+")
    assert "{" not in subject and "`" not in subject


def test_autos_fallback_after_a_cut_answer_commits_under_words(kiwi, serve):
    server = serve([*TOOLS_SESSION, spending(1529, 1024, CUT), final(filed(summary=""))])
    report = run_dream(kiwi, llm_settings(server, max_tokens=1024))
    assert report.outcome == "committed", report.reason
    subject = git(kiwi, "log", "-1", "--format=%s")
    assert subject.startswith("dream: add 1 line to USER.md") and "{" not in subject
    assert last_dream(kiwi).tokens == (4000 + 1753 + 1529 + 100, 300 + 48 + 1024 + 20)


@pytest.mark.parametrize("summary", [
    '{"facts": [{"number": 1, "file": "USER.md"',
    '```json\n{"summary": "filed"}\n```',
    '<tool_call>{"name": "finish", "arguments": {"summary": "done"',
    '"summary": "I filed the facts"',
    '[{"number": 1}]',
])
def test_a_summary_that_is_json_or_code_is_never_the_subject_and_the_body_says_why(kiwi, serve, summary):
    server = serve([final(json.dumps({"facts": json.loads(filed())["facts"], "summary": summary}))])
    report = run_dream(kiwi, llm_settings(server, tool_mode="structured"))
    assert report.outcome == "committed", report.reason
    message = git(kiwi, "log", "-1", "--format=%B")
    subject = message.splitlines()[0]
    assert subject.startswith("dream: add 1 line to USER.md") and not any(ch in subject for ch in "{[<`\"")
    assert "summary is not words" in message and summary.splitlines()[0] not in message


def test_a_tools_sessions_summary_that_is_json_is_never_the_subject(kiwi, serve):
    edits = tool_calls(
        ("edit_file", {"path": "USER.md", "old_text": "## Preferences\n",
                       "new_text": "## Preferences\n- Prefers answers in British English.\n"}),
        ("edit_file", {"path": "memory/MEMORY.md", "old_text": OLD,
                       "new_text": "- Project kiwi deploys with Kubernetes on host atlas.\n"
                                   "- The nightly backup runs at 02:00 on host birch."}),
        ("finish", {"summary": '{"facts": [{"number": 1, "file": "USER.md", "line": "Prefers answers in'}))
    server = serve([edits])
    report = run_dream(kiwi, llm_settings(server, tool_mode="native"))
    assert report.outcome == "committed", report.reason
    message = git(kiwi, "log", "-1", "--format=%B")
    assert message.startswith("dream: add 1 line to USER.md; change memory/MEMORY.md (+2 -1)")
    assert "summary is not words" in message and '"facts"' not in message
