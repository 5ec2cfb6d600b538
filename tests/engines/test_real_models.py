"""What real local models do, replayed: Qwen2.5-Coder-1.5B's four recorded sessions and variants of each.

The recorded answers (tests/fixtures/real-model/, whole) are the exact assistant contents a llama.cpp server
returned for nanodream's requests. Each ran "successfully" before: nothing written, cursor advanced, 19
entries kept nowhere. Here they go through litellm and the scripted server over real HTTP.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nanodream.backlog.history import read_cursor
from nanodream.backlog.quarantine import load_quarantine
from nanodream.memory.transaction import ensure_repository
from nanodream.run.dream import run_dream
from nanodream.run.records import read_records
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import ExitCode
from nanodream.workspace import Workspace, scaffold
from tests.support.cli import runner
from tests.support.paths import FIXTURES, REPO
from tests.support.scripted_server import call, error, final, keeps_nothing, reason_per_fact, tool_calls
from tests.support.workspaces import entry, git, llm_settings, snapshot, write_history

FIXTURES = FIXTURES / "real-model"
EXAMPLE_HISTORY = REPO / "workspace-example" / "memory" / "history.jsonl"


def recorded(session: int) -> dict:
    return json.loads((FIXTURES / f"qwen2.5-coder-1.5b-session-{session}.json").read_text(encoding="utf-8"))


def answer(session: int) -> str:
    """The model's whole answer in a recorded session, exactly as the server returned it."""
    return recorded(session)["messages"][-1]["content"]


def kiwi(ws: Workspace) -> None:
    """Session 1's batch: a preference, a deployment fact and its correction."""
    write_history(ws, [
        {"cursor": 1, "timestamp": "2026-11-20 10:00", "session_key": "cli:1",
         "content": "- [permanent] User prefers answers in British English.\n"
                    "- [durable] Project kiwi deploys with Nomad on host atlas."},
        {"cursor": 2, "timestamp": "2026-11-21 10:00", "session_key": "cli:1",
         "content": "- [correction] Project kiwi now deploys with Kubernetes, not Nomad."},
    ])


KIWI_FACTS = ["User prefers answers in British English.", "Project kiwi deploys with Nomad on host atlas.",
              "Project kiwi now deploys with Kubernetes, not Nomad."]


@pytest.fixture
def example(tmp_path: Path) -> Workspace:
    """The example workspace (Maya, ledgerline) the recorded sessions 2-4 dreamed over."""
    ws = Workspace.at(tmp_path / "example")
    scaffold(ws.root, example=True)
    ensure_repository(GitStore(ws))
    return ws


def example_batch(ws: Workspace, first: int, last: int) -> None:
    """The example history's entries first..last: the batch a recorded session was sent."""
    entries = []
    for raw in EXAMPLE_HISTORY.read_text(encoding="utf-8").splitlines():
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        if first <= item["cursor"] <= last:
            entries.append(item)
    write_history(ws, entries)


def untouched(ws: Workspace, before: dict[str, str]) -> None:
    """Nothing of the batch was applied, consumed or quarantined."""
    assert snapshot(ws) == before
    assert read_cursor(ws.cursor_file) == 0
    assert not (ws.state_dir / "position.json").exists()
    assert load_quarantine(ws) == []


def tool_results(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


# session 1: prose that claims edits it never made ------------------------------------------------------


def test_session_1_replayed_twice_fails_as_model_no_op_and_keeps_the_backlog(workspace, serve):
    kiwi(workspace)
    before = snapshot(workspace)
    server = serve([final(answer(1))] * 4)  # the tools session and its question, then structured mode's two
    report = run_dream(workspace, llm_settings(server))

    assert report.outcome == "model-no-op" and report.exit_code == ExitCode.FAILED
    assert "tool" in report.reason and "nanodream model check" in report.reason and "\n" not in report.reason
    assert report.reason.startswith("structured mode: ") and "the tools session before it" in report.reason
    assert report.batches[0].unkept == KIWI_FACTS
    untouched(workspace, before)
    assert [("response_format" in body) for body in server.requests] == [False, False, True, True]
    first, second = server.requests[:2]
    question = second["messages"][-1]
    assert second["messages"][:2] == first["messages"]  # the same conversation, one more request
    assert second["messages"][2] == {"role": "assistant", "content": answer(1)}
    assert question["role"] == "user" and len(second["messages"]) == 4
    for number, (tag, fact) in enumerate(zip(("permanent", "durable", "correction"), KIWI_FACTS, strict=True), 1):
        assert f"{number}. [{tag}] {fact}" in question["content"]
    assert "its number, a colon, then why" in question["content"]
    assert "new_text" not in question["content"] and "Prefers" not in question["content"]  # nothing to copy
    [record] = read_records(workspace)
    assert record.outcome == "model-no-op" and record.failed_at == [1, 2] and record.requests == 4


def test_session_1_then_a_reason_per_fact_is_accepted_and_recorded(workspace, serve):
    kiwi(workspace)
    head = git(workspace, "rev-parse", "HEAD")
    reasons = ("1: the user said it once, as a joke\n2: kiwi was a test project, shut down the same week\n"
               "3: kiwi was cancelled the next day")
    server = serve([final(answer(1)), final(reasons)])
    report = run_dream(workspace, llm_settings(server))

    assert report.outcome == "no-change" and report.exit_code == 0
    assert read_cursor(workspace.cursor_file) == 2 and git(workspace, "rev-parse", "HEAD") == head
    expected = [{"fact": KIWI_FACTS[0], "reason": "the user said it once, as a joke"},
                {"fact": KIWI_FACTS[1], "reason": "kiwi was a test project, shut down the same week"},
                {"fact": KIWI_FACTS[2], "reason": "kiwi was cancelled the next day"}]
    assert report.to_json()["reasons"] == expected
    assert read_records(workspace)[-1].reasons == expected


@pytest.mark.parametrize("reasons", [
    "1. the user said it once, as a joke\n2. a test project, shut down\n3. kiwi was cancelled the next day",
    "1) the user said it once, as a joke\n2) a test project, shut down\n3) kiwi was cancelled the next day",
    "- **Fact 1** — the user said it once, as a joke\n- #2 - a test project, shut down\n- Fact 3: kiwi was "
    "cancelled the next day",
])
def test_reasons_numbered_the_way_models_number_lists_are_reasons_too(workspace, serve, reasons):
    check_reasons(workspace, serve, reasons, ["the user said it once, as a joke", "a test project, shut down",
                                              "kiwi was cancelled the next day"])


def test_a_reason_that_says_memory_already_holds_a_fact_is_one_when_memory_does(workspace, serve):
    user = workspace.root / "USER.md"
    user.write_text(user.read_text() + "\n## Identity\n- British English for everything written.\n")
    git(workspace, "commit", "-qam", "hand")
    reasons = ("1. Already in USER.md from an earlier session.\n2. a test project, shut down\n"
               "3. kiwi was cancelled the next day")
    check_reasons(workspace, serve, reasons, ["Already in USER.md from an earlier session.",
                                              "a test project, shut down", "kiwi was cancelled the next day"])


def check_reasons(workspace, serve, reasons: str, expected: list[str]) -> None:
    kiwi(workspace)
    server = serve([final(answer(1)), final(reasons)])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "no-change", report.reason
    assert [r["reason"] for r in report.to_json()["reasons"]] == expected


@pytest.mark.parametrize("second", [
    "1. **Updated USER.md**: British English\n2. **Updated memory/MEMORY.md**: Kubernetes\n3. **Done**",
    "1: the user said it once\n3: kiwi was cancelled",  # fact 2 has no reason
    "I have updated the memory files as requested.",
    "\n".join(f"{n}. {fact}" for n, fact in enumerate(KIWI_FACTS, start=1)),  # the question's list, echoed
    "1: Added to USER.md.\n2: Updated memory/MEMORY.md.\n3: Filed in memory/MEMORY.md.",  # claims, in the asked form
    "1: reason\n2: reason\n3: reason",  # the template's own word
    "1: N/A\n2: -\n3: see above",
    "1: the user said it once\n2: superseded by fact 3\n3: superseded by fact 2",  # pointing at lost facts
    "1: its number, a colon, then why\n2: in your own words\n3: must stay out of memory",  # the question's words
    "1. **User preference for answers in British English**\n2. **Project deployment (Nomad to Kubernetes)**\n"
    "3. **Kubernetes for kiwi**",  # titles, not reasons
])
def test_numbered_claims_or_reasons_for_only_some_facts_are_not_reasons(workspace, serve, second):
    kiwi(workspace)
    before = snapshot(workspace)
    server = serve([final(answer(1)), final(second)])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "model-no-op" and report.exit_code == ExitCode.FAILED
    untouched(workspace, before)


def test_session_1_then_the_corrected_model_applies_the_facts_with_its_tools(workspace, serve):
    kiwi(workspace)
    server = serve([
        final(answer(1)),
        tool_calls(("edit_file", {"path": "USER.md", "old_text": "## Preferences\n",
                                  "new_text": "## Preferences\n\n- Prefers answers in British English.\n"}),
                   ("edit_file", {"path": "memory/MEMORY.md", "old_text": "## Project\n", "new_text":
                                  "## Project\n\n- Project kiwi deploys with Kubernetes on host atlas.\n"})),
        final("Filed the preference and kiwi's deployment\n- USER.md: British English\n- MEMORY.md: kiwi"),
    ])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    assert "British English" in (workspace.root / "USER.md").read_text()
    assert read_cursor(workspace.cursor_file) == 2 and len(server.requests) == 3
    # the Nomad fact is accounted for: the batch's own correction replaced it, and that correction is kept
    assert report.batches[0].reasons == [{"fact": KIWI_FACTS[1], "reason": "replaced by the batch's own "
                                          f"correction: {KIWI_FACTS[2]}"}]


@pytest.mark.parametrize("files_it", [True, False])
def test_a_reason_pointing_at_another_fact_holds_only_while_memory_holds_that_fact(workspace, serve, files_it):
    write_history(workspace, [entry(1, "[durable] The team standup is at 09:00 in room Ada.\n"
                                       "[durable] The team standup moved to 09:30 on Zoom.")])
    before = snapshot(workspace)
    keep = call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
                new_text="## Project\n\n- The team standup moved to 09:30 on Zoom.\n")
    server = serve([final("Nothing to keep."), keep if files_it else final("1: superseded by fact 2"),
                    final("1: superseded by fact 2\n2: kept")])
    report = run_dream(workspace, llm_settings(server))
    if files_it:
        assert report.outcome == "committed", report.reason
        # "moved to" states a change: fact 2 corrects fact 1 whatever its tag, before any reason is read
        assert report.batches[0].reasons == [{"fact": "The team standup is at 09:00 in room Ada.", "reason":
                                              "replaced by the batch's own correction: The team standup moved to "
                                              "09:30 on Zoom."}]
    else:  # fact 2 is in memory nowhere: pointing at it explains nothing
        assert report.outcome == "model-no-op" and "points to fact 2" in report.reason
        untouched(workspace, before)


def test_a_batch_memory_already_holds_passes_at_once_with_one_request(workspace, serve):
    user, memory = workspace.root / "USER.md", workspace.root / "memory/MEMORY.md"
    user.write_text(user.read_text() + "- user PREFERS answers in British English\n")
    memory.write_text(memory.read_text() + "- Project kiwi now deploys with Kubernetes (not Nomad) on host atlas.\n")
    (workspace.root / "memory/rejected.md").write_text("# Rejected facts\n\n- Project kiwi deploys with Nomad "
                                                        "on host atlas. <!-- memory/MEMORY.md · abc -->\n")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "hand")
    kiwi(workspace)
    server = serve([final("Nothing new: memory already says all of it.")])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "no-change" and len(server.requests) == 1
    assert report.batches[0].unkept == [] and read_cursor(workspace.cursor_file) == 2


def test_archived_facts_count_as_kept(workspace, serve):
    archive = workspace.root / "memory/archive/2026-09.md"
    archive.parent.mkdir(parents=True)
    archive.write_text("# Archive 2026-09\n\n## Project\n- Project kiwi deploys with Nomad on host atlas.\n")
    write_history(workspace, [{"cursor": 1, "timestamp": "2026-11-20 10:00",
                               "content": "[durable] Project kiwi deploys with Nomad on host atlas.\n"
                                          "Raw notes about lunch, untagged."}])
    server = serve([final("Nothing worth keeping.")])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "no-change" and len(server.requests) == 1


def test_a_replaced_fact_in_the_archive_does_not_count_as_kept_when_it_is_true_again(workspace, serve):
    archive = workspace.root / "memory/archive/2026-09.md"
    archive.parent.mkdir(parents=True)
    archive.write_text("# Archive 2026-09\n\n## Project\n- Project kiwi deploys with Nomad on host atlas "
                       "(from 2026-03-01 until 2026-09-12; replaced by: Project kiwi deploys with Kubernetes)\n")
    write_history(workspace, [{"cursor": 1, "timestamp": "2026-11-20 10:00",
                               "content": "[correction] Project kiwi deploys with Nomad on host atlas."}])
    server = serve([final("Nothing worth keeping.")] * 4)
    report = run_dream(workspace, llm_settings(server))
    # asked again, in tools and then in structured mode: memory does not hold it
    assert report.outcome == "model-no-op" and len(server.requests) == 4
    assert report.batches[0].unkept == ["Project kiwi deploys with Nomad on host atlas."]
    assert read_cursor(workspace.cursor_file) == 0


def test_a_model_that_keeps_answering_in_prose_never_moves_the_cursor_nor_quarantines(workspace, serve):
    kiwi(workspace)
    before = snapshot(workspace)
    server = serve([final(answer(1))] * 40)
    for _ in range(10):
        report = run_dream(workspace, llm_settings(server, split_after=2))
        assert report.outcome == "model-no-op" and report.exit_code == ExitCode.FAILED
        assert len(report.batches) == 1 and report.batches[0].entries == 2  # never split
    untouched(workspace, before)
    assert len(server.requests) == 40  # two in tools, two in structured mode, each run
    assert all(record.outcome == "model-no-op" for record in read_records(workspace))
    assert not any("quarantin" in record.reason for record in read_records(workspace))


def test_the_cli_says_tool_in_one_line_and_exits_1(workspace, serve):

    from nanodream.cli import app

    kiwi(workspace)
    server = serve([final(answer(1)), final(answer(1))])
    env = {"NANODREAM_MODEL": "openai/qwen", "NANODREAM_API_BASE": server.url, "NANODREAM_API_KEY": "k"}
    result = runner.invoke(app, ["run", "-w", str(workspace.root)], env=env)
    assert result.exit_code == 1
    [line] = [line for line in result.stderr.splitlines() if "dream failed" in line]
    assert "tool" in line and "nanodream model check" in line
    data = json.loads(runner.invoke(app, ["status", "-w", str(workspace.root), "--json"]).stdout)
    assert data["last_failure"]["outcome"] == "model-no-op"


# sessions 2-4: calls written as text ---------------------------------------------------------------------


def test_session_2_finish_written_as_text_ends_the_session_and_the_no_op_check_asks_once(example, serve):
    example_batch(example, 1, 6)
    server = serve([
        final(answer(2)),
        final('<tool_call>{"name": "edit_file", "arguments": {"path": "USER.md", "old_text": "- Name: Maya\\n", '
              '"new_text": "- Name: Maya Lindqvist\\n- Lives in Stockholm (Europe/Stockholm)\\n"}}</tool_call>'),
        final("Filed Maya's name and home\n- USER.md: name, Stockholm\n- everything else: filed too"),
        *[final("I filed them all.")] * 2,  # structured mode's request and its question, answered in prose
    ])
    before = snapshot(example)
    report = run_dream(example, llm_settings(server))

    # The written finish ran as the real tool: its summary ended the session, with nothing edited ...
    turn = server.requests[1]["messages"][2]
    assert turn["tool_calls"][0]["function"]["name"] == "finish"  # the written call, sent back as a call
    assert json.loads(turn["tool_calls"][0]["function"]["arguments"])["summary"].startswith("User's name")
    [finished] = tool_results(server.requests[1])
    assert finished.startswith("OK")
    # ... so the accounting asked its one question; the model filed one line of the batch and claimed the rest.
    assert "not in memory and have no reason given" in server.requests[1]["messages"][-1]["content"]
    assert len(server.requests) == 5
    assert report.outcome == "model-no-op" and report.exit_code == ExitCode.FAILED
    untouched(example, before)  # nothing of the first entry's facts but Maya's name is kept: nothing consumed
    assert "User lives in Stockholm, Sweden" in report.reason


def test_session_3_a_list_where_a_string_is_expected_is_corrected_by_the_model(example, serve):
    example_batch(example, 7, 12)
    memory = (example.root / "memory/MEMORY.md").read_text()
    fixed = memory + "- Staging deploys every Friday to a Hetzner CX22 in Falkenstein.\n"
    corrected = {"name": "write_file", "arguments": {"path": "memory/MEMORY.md", "content": fixed}}
    server = serve([
        final(answer(3)),
        final(f"```json\n{json.dumps(corrected)}\n```"),
        final("Added the staging schedule\n- memory/MEMORY.md: staging"),
        keeps_nothing(reason="not worth a line of memory, says the model"),
    ])
    report = run_dream(example, llm_settings(server))

    assert report.outcome == "committed", report.reason
    [wrong_type] = tool_results(server.requests[1])
    assert "parameter 'content' of write_file(path, content) expects a string, got a list" in wrong_type
    assert "Hetzner CX22 in Falkenstein" in (example.root / "memory/MEMORY.md").read_text()
    assert report.batches[0].requests == 4  # the session's three and the accounting's question


def test_session_4_an_unknown_tool_then_prose_fails_as_a_model_that_changed_nothing(example, serve):
    example_batch(example, 20, 24)
    before = snapshot(example)
    server = serve([final(answer(4)), final("I merged the memory."), final("Merged everything as asked.")])
    report = run_dream(example, llm_settings(server))

    assert report.outcome == "model-no-op", report.reason
    assert "the model changed no memory file (1 tool call)" in report.reason
    [merge] = tool_results(server.requests[1])
    assert "unknown tool 'merge'" in merge and "read_file(path)" in merge
    assert snapshot(example) == before and load_quarantine(example) == []


@pytest.mark.parametrize("session", [1, 2, 3, 4])
def test_each_recorded_session_with_reasons_after_it_never_loses_a_fact_silently(example, workspace, serve,
                                                                                  session):
    ws = workspace if session == 1 else example
    if session == 1:
        kiwi(ws)
    else:
        example_batch(ws, *{2: (1, 6), 3: (7, 12), 4: (20, 24)}[session])

    def then(body):  # "Done." after its calls' results; asked about the facts, a reason for each
        last = body["messages"][-1]
        if last["role"] == "user" and "its number, a colon" in last["content"]:
            return final(reason_per_fact(last["content"], "not worth keeping, says the model"))
        return final("Done.")

    server = serve([final(answer(session)), then, then])
    report = run_dream(ws, llm_settings(server))
    assert report.outcome == "no-change", report.reason
    reasons = report.batches[0].reasons
    assert reasons and {r["fact"] for r in reasons} == set(report.batches[0].unkept)


# how calls written as text are answered -----------------------------------------------------------------


WRITTEN_EDIT = ('<tool_call>{"name": "edit_file", "arguments": {"path": "SOUL.md", "old_text": "## Rules\\n", '
                '"new_text": "## Rules\\n\\n- Be brief.\\n"}}</tool_call>')


def test_a_server_that_refuses_role_tool_after_a_written_call_gets_the_results_as_a_user_message(workspace, serve):
    kiwi(workspace)
    server = serve([final(WRITTEN_EDIT), keeps_nothing("Added a rule"), keeps_nothing()], refuse_tool_role=True)
    report = run_dream(workspace, llm_settings(server))

    assert report.outcome == "committed", report.reason
    refused, resent = server.requests[1], server.requests[2]
    assert any(m["role"] == "tool" for m in refused["messages"])
    assert not any(m["role"] == "tool" or m.get("tool_calls") for m in resent["messages"])
    assert resent["messages"][2] == {"role": "assistant", "content": WRITTEN_EDIT}
    assert resent["messages"][3]["role"] == "user" and "OK: edited SOUL.md" in resent["messages"][3]["content"]
    assert "- Be brief." in (workspace.root / "SOUL.md").read_text()


def test_a_conversation_too_long_after_a_written_call_fails_at_once_and_is_not_resent_as_text(workspace, serve):
    """Only a refusal of the `tool` role is answered by resending the results as user text."""
    kiwi(workspace)
    before = snapshot(workspace)
    too_long = error(400, "This model's maximum context length is 8192 tokens. However, your messages resulted in "
                          "9000 tokens.")
    server = serve([final(WRITTEN_EDIT), too_long, final("unused"), final("unused")])
    report = run_dream(workspace, llm_settings(server, max_retries=0, split_after=99))
    assert report.outcome == "failed" and "maximum context length" in report.reason
    assert len(server.requests) == 2 and any(m["role"] == "tool" for m in server.requests[1]["messages"])
    untouched(workspace, before)


def test_text_mode_sends_no_tools_and_describes_them_in_the_system_prompt(workspace, serve):
    kiwi(workspace)
    server = serve([final(WRITTEN_EDIT), keeps_nothing("Added a rule"), keeps_nothing()])
    report = run_dream(workspace, llm_settings(server, tool_mode="text"))

    assert report.outcome == "committed", report.reason
    first, second = server.requests[:2]
    assert "tools" not in first and "tools" not in second
    system = first["messages"][0]["content"]
    assert "<tool_call>" in system
    for signature in ("read_file(path)", "edit_file(path, old_text, new_text)", "write_file(path, content)",
                      "delete_skill(name)", "archive_lines(path, text)", "list_skills()", "list_archive()"):
        assert signature in system
    assert second["messages"][3]["role"] == "user" and "OK: edited SOUL.md" in second["messages"][3]["content"]


def test_native_mode_does_not_read_calls_written_as_text(workspace, serve):
    kiwi(workspace)
    before = snapshot(workspace)
    server = serve([final(WRITTEN_EDIT), final(WRITTEN_EDIT)])
    report = run_dream(workspace, llm_settings(server, tool_mode="native"))
    assert report.outcome == "model-no-op" and "without using its tools" in report.reason
    assert "<tool_call>" not in server.requests[1]["messages"][-1]["content"]  # no text format offered
    untouched(workspace, before)


def test_written_calls_meet_the_same_cap_as_native_ones(workspace, serve):
    kiwi(workspace)
    server = serve([final('<tool_call>{"name": "list_skills", "arguments": {}}</tool_call>')] * 10)
    report = run_dream(workspace, llm_settings(server, max_tool_calls=3))
    assert report.outcome == "model-no-op" and "tool-call cap of 3" in report.reason


def test_a_summary_that_claims_files_the_diff_does_not_show_is_called_out(workspace, serve):
    kiwi(workspace)
    server = serve([
        call("edit_file", path="USER.md", old_text="## Preferences\n",
             new_text="## Preferences\n\n- Prefers answers in British English.\n"),
        final("Updated USER.md and SOUL.md\n- USER.md: British English\n- SOUL.md: a new rule\n- skills/deploy: new"),
        keeps_nothing(),
    ])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    message = git(workspace, "log", "-1", "--format=%B")
    assert "Summary (the session's own words" in message
    assert "Not shown by the diff:\n- the session's summary mentions SOUL.md; SOUL.md did not change\n" in message
    assert "- the session's summary mentions skills/deploy/SKILL.md; skills/deploy/SKILL.md did not change" in message
    assert "USER.md did not change" not in message
    assert "- USER.md: modified (+2 -0)" in message
    assert read_records(workspace)[-1].unconfirmed == [
        "the session's summary mentions SOUL.md; SOUL.md did not change",
        "the session's summary mentions skills/deploy/SKILL.md; skills/deploy/SKILL.md did not change"]


def test_a_no_change_whose_summary_speaks_of_edits_says_nothing_changed(workspace, serve):
    write_history(workspace, [{"cursor": 1, "timestamp": "2026-11-20 10:00", "content": "Chatted about lunch."}])
    server = serve([final("- **Changed**: updated the memory with the lunch plans")])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "no-change" and len(server.requests) == 1  # untagged text may be dropped
    assert report.batches[0].unconfirmed == ['the session\'s summary speaks of edits ("Changed"); '
                                             "no memory file changed"]


def test_a_local_server_gets_a_placeholder_key_when_none_is_set(workspace, serve, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    kiwi(workspace)
    server = serve([keeps_nothing()] * 2, usage=None)
    report = run_dream(workspace, llm_settings(server, api_key=None))
    assert report.outcome == "no-change", report.reason
    assert set(server.authorizations) == {"Bearer no-key"}
    assert report.tokens_in == 0 and report.requests == 2  # a server that reports no usage


def test_a_model_that_keeps_calling_a_tool_that_does_not_exist_is_a_no_op_never_poison(example, serve):
    example_batch(example, 20, 24)
    before = snapshot(example)
    server = serve([final(answer(4))] * 30)
    for _ in range(4):
        report = run_dream(example, llm_settings(server, split_after=2))
        assert report.outcome == "model-no-op" and report.exit_code == ExitCode.FAILED, report.reason
        assert "no tool can run" in report.reason and "nanodream model check" in report.reason
        # the loop guard stopped the tools session at 3 requests; structured mode's two found no items either
        assert len(report.batches) == 1 and report.batches[0].requests == 5
    assert snapshot(example) == before and load_quarantine(example) == []
    assert read_cursor(example.cursor_file) == 0
