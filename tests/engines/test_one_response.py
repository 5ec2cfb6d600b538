"""A dream in one round trip: every edit and the summary in one response end the session without another request.

The summary comes with the calls as `finish(summary)` or as text beside calls that only write; a failed call
or a read the model asked for is answered and the session goes on; models that work one call per turn, or
write their calls as text, keep working.
"""

from __future__ import annotations

import json

from nanodream.run.dream import run_dream
from tests.support.scripted_server import call, final, keeps_nothing, tool_calls
from tests.support.workspaces import entry, git, llm_settings, write_history

PREFERENCE = ("edit_file", {"path": "USER.md", "old_text": "## Preferences\n",
                            "new_text": "## Preferences\n- Prefers concise answers.\n"})
DEPLOY = ("edit_file", {"path": "memory/MEMORY.md", "old_text": "## Project\n",
                        "new_text": "## Project\n- ledgerline deploys with docker compose on a Hetzner box.\n"})
SUMMARY = "Filed a preference and the deploy setup\n- USER.md: concise answers\n- memory/MEMORY.md: deploys"


def two_facts(ws):
    write_history(ws, [entry(1, "[permanent] User prefers concise answers."),
                       entry(2, "[durable] ledgerline deploys with docker compose on a Hetzner box.")])


def with_text(step, text):
    step["message"]["content"] = text
    return step


def filed(ws) -> bool:
    return ("- Prefers concise answers." in (ws.root / "USER.md").read_text()
            and "docker compose" in (ws.root / "memory/MEMORY.md").read_text())


def test_edits_and_finish_in_one_response_are_one_request(workspace, serve):
    two_facts(workspace)
    server = serve([tool_calls(PREFERENCE, DEPLOY, ("finish", {"summary": SUMMARY}))])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    assert len(server.requests) == 1 and report.requests == 1
    assert filed(workspace)
    assert report.batches[0].summary == SUMMARY
    assert git(workspace, "log", "-1", "--format=%s") == "dream: Filed a preference and the deploy setup"


def test_text_beside_calls_that_only_write_is_the_summary(workspace, serve):
    two_facts(workspace)
    server = serve([with_text(tool_calls(PREFERENCE, DEPLOY), SUMMARY)])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    assert len(server.requests) == 1 and filed(workspace)
    assert report.batches[0].summary == SUMMARY


def test_a_failed_edit_gets_another_turn_and_the_first_summary_stands(workspace, serve):
    two_facts(workspace)
    wrong = ("edit_file", {"path": "memory/MEMORY.md", "old_text": "## Projects\n", "new_text": "x"})
    server = serve([tool_calls(PREFERENCE, wrong, ("finish", {"summary": SUMMARY})), tool_calls(DEPLOY)])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    assert len(server.requests) == 2 and filed(workspace)
    results = [m["content"] for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert results[0].startswith("OK: edited") and "old_text not found" in results[1]
    assert report.batches[0].summary == SUMMARY


def test_a_read_beside_text_gets_its_result_before_the_session_ends(workspace, serve):
    two_facts(workspace)
    server = serve([with_text(call("read_file", path="skills/none/SKILL.md"), "Let me look first."),
                    tool_calls(PREFERENCE, DEPLOY, ("finish", {"summary": SUMMARY}))])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    assert len(server.requests) == 2 and report.batches[0].summary == SUMMARY


def test_a_model_that_goes_one_call_per_turn_still_works(workspace, serve):
    two_facts(workspace)
    server = serve([tool_calls(PREFERENCE), tool_calls(DEPLOY), final(SUMMARY)])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    assert len(server.requests) == 3 and filed(workspace)
    assert report.batches[0].summary == SUMMARY


def test_calls_and_finish_written_as_text_are_one_request(workspace, serve):
    two_facts(workspace)
    blocks = "\n".join(f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"
                       for name, arguments in (PREFERENCE, DEPLOY, ("finish", {"summary": SUMMARY})))
    server = serve([final(blocks)])
    report = run_dream(workspace, llm_settings(server, tool_mode="text"))
    assert report.outcome == "committed", report.reason
    assert len(server.requests) == 1 and filed(workspace)
    assert report.batches[0].summary == SUMMARY


def test_an_empty_finish_is_refused_and_the_model_says_it_again(workspace, serve):
    two_facts(workspace)
    server = serve([tool_calls(PREFERENCE, DEPLOY, ("finish", {"summary": "  "})), final(SUMMARY)])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    assert len(server.requests) == 2
    assert "summary is empty" in server.requests[1]["messages"][-1]["content"]
    assert report.batches[0].summary == SUMMARY


def test_a_finish_that_changed_nothing_still_faces_the_no_op_check(workspace, serve):
    two_facts(workspace)
    reason = "a passing remark in one chat, not a lasting fact"
    server = serve([call("finish", summary="Nothing worth keeping."), keeps_nothing(reason=reason)])
    report = run_dream(workspace, llm_settings(server))
    assert len(server.requests) == 2  # the finish, then the accounting's one question
    assert "not in memory and have no reason given" in server.requests[1]["messages"][-1]["content"]
    assert report.outcome == "no-change", report.reason
    assert [r["reason"] for r in report.batches[0].reasons] == [reason, reason]


def test_a_finish_that_changed_nothing_twice_fails_as_a_no_op(workspace, serve):
    two_facts(workspace)
    server = serve([call("finish", summary="Nothing worth keeping."), call("finish", summary="Still nothing.")])
    report = run_dream(workspace, llm_settings(server, tool_mode="native"))
    assert len(server.requests) == 2  # the finish, the one question; native mode has no structured fallback
    assert report.outcome == "model-no-op", report.reason
    assert not filed(workspace)
