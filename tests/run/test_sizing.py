"""A batch that cannot finish gets smaller, not repeated (run/sizing.py), over real HTTP to the scripted server.

The model here works as nanobot's did: it files each fact of its batch with one `edit_file` per turn, then gives its
summary, and every request reports a fixed usage, so the session token budget decides how many turns a session
has. A session a cap stops on several entries, while it was editing, was given too big a batch: its entries come
again at most half as many at a time, in the same run and in the next, and never as the same batch again.
"""

from __future__ import annotations

import json
import re

from nanodream import api
from nanodream.backlog.history import read_cursor
from nanodream.cli import app
from nanodream.run import sizing
from nanodream.run.dream import run_dream
from tests.support.cli import runner
from tests.support.scripted_server import call, final, tool_calls
from tests.support.workspaces import entry, git, llm_settings, snapshot, write_history

FACT = re.compile(r"\[durable\] (.+)$", re.MULTILINE)
PER_REQUEST = 10_000  # prompt tokens every request reports


def facts(workspace, count: int, first: int = 1) -> list[str]:
    said = [f"The ledger shard s{n} is served from host oak{n}." for n in range(first, first + count)]
    write_history(workspace, [entry(n, f"[durable] {fact}", session_key=f"tg:{n}", day=1 + n % 27)
                              for n, fact in enumerate(said, start=first)])
    return said


def serial(reads_per_fact: int = 0):
    """One edit per turn for each fact of the batch memory lacks (after `reads_per_fact` reads of MEMORY.md each),
    then the summary; each response reports PER_REQUEST prompt tokens."""

    def respond(body: dict) -> dict:
        user = body["messages"][1]["content"]
        batch = user.split("<history>")[1].split("</history>")[0]
        todo = [fact for fact in FACT.findall(batch) if f"- {fact}" not in user]
        calls = [call for message in body["messages"] for call in message.get("tool_calls") or []]
        edits = sum(1 for call in calls if call["function"]["name"] == "edit_file")
        if edits >= len(todo):
            step = final(f"Filed {len(todo)} facts")
        elif len(calls) < edits * (reads_per_fact + 1) + reads_per_fact:
            step = call("read_file", path="memory/MEMORY.md")
        else:
            step = tool_calls(("edit_file", {"path": "memory/MEMORY.md", "old_text": "## Project\n",
                                             "new_text": f"## Project\n- {todo[edits]}\n"}))
        step["usage"] = (PER_REQUEST, 50)
        return step

    return respond


def sessions(server) -> list[tuple[str, ...]]:
    """The batch each session was given (by its first request's history), in order."""
    found = []
    for body in server.requests:
        if not any(message["role"] == "assistant" for message in body["messages"]):
            found.append(tuple(FACT.findall(body["messages"][1]["content"].split("<history>")[1])))
    return found


def test_a_session_the_token_budget_stops_is_dreamed_again_smaller_in_the_same_run(workspace, serve):
    said = facts(workspace, 12)
    server = serve([serial()] * 200)
    report = run_dream(workspace, llm_settings(server, max_session_tokens=80_000))

    assert report.outcome == "committed", report.reason
    first, *rest = report.batches
    # 8 requests of 10,050 tokens pass 80,000: the session had filed 7 of its 12 facts
    assert (first.outcome, first.entries, first.oversized, first.requests) == ("split", 12, "tokens", 8)
    assert "too big for one session" in first.reason and first.request_bytes > 0
    assert all(batch.outcome == "committed" and batch.entries <= 6 for batch in rest)
    given = sessions(server)
    assert len(given) == len(set(given)) and given[0] == tuple(said)  # no session twice on the same entries
    memory = (workspace.root / "memory" / "MEMORY.md").read_text()
    assert all(f"- {fact}" in memory for fact in said) and read_cursor(workspace.cursor_file) == 12
    assert sizing.load(workspace).failures == []  # passed: forgotten

    dreams = api.log(workspace.root, kind="dream").commits
    assert dreams[-1].failed == {"sessions": 1, "requests": 8, "in": 8 * PER_REQUEST, "out": 8 * 50,
                                 "bytes": first.request_bytes}  # the first commit past them names their cost
    assert all(commit.failed is None for commit in dreams[:-1])
    shown = runner.invoke(app, ["log", "-w", str(workspace.root)])
    assert "after 1 failed session (too big): 8 req, tokens in 80000 out 400" in shown.output


def test_the_tool_call_cap_is_a_batch_too_big_too(workspace, serve):
    said = facts(workspace, 4)
    server = serve([serial(reads_per_fact=2)] * 200)  # three calls per fact: twelve for the batch
    report = run_dream(workspace, llm_settings(server, max_tool_calls=8))

    assert report.outcome == "committed", report.reason
    first = report.batches[0]
    assert (first.outcome, first.entries, first.oversized) == ("split", 4, "calls") and "tool-call cap" in first.reason
    assert [batch.entries for batch in report.batches[1:]] == [2, 2]
    given = sessions(server)
    assert len(given) == len(set(given))
    assert all(f"- {fact}" in (workspace.root / "memory" / "MEMORY.md").read_text() for fact in said)


def test_a_run_that_stops_after_a_batch_too_big_leaves_everything_and_the_next_run_takes_half(workspace, serve):
    said = facts(workspace, 12)
    before = snapshot(workspace)
    head = git(workspace, "rev-parse", "HEAD")
    server = serve([serial()] * 200)
    report = run_dream(workspace, llm_settings(server, max_session_tokens=80_000, max_batches=1))

    assert report.outcome == "failed" and report.exit_code == 1
    assert "too big for one session" in report.reason and "the next run takes the smaller batch" in report.reason
    assert report.failed_at is None  # not a poisoned entry's streak
    assert snapshot(workspace) == before and git(workspace, "rev-parse", "HEAD") == head
    [kept] = sizing.load(workspace).failures  # written before the run went on
    assert (kept.first_line, kept.last_line, kept.entries, kept.cause, kept.requests) == (1, 12, 12, "tokens", 8)

    status = api.status(workspace.root).to_json()
    [waiting] = status["failed_sessions"]
    assert (waiting["requests"], waiting["tokens_in"], waiting["entries"]) == (8, 8 * PER_REQUEST, 12)
    assert status["last_failure"]["request_bytes"] == kept.request_bytes > 0
    shown = runner.invoke(app, ["status", "-w", str(workspace.root)])
    assert "too big    lines 1-12 (12 entries) hit the session token budget" in shown.output
    assert "8 requests · tokens in 80000 · out 400" in shown.output and "at most 6 at a time" in shown.output

    again = run_dream(workspace, llm_settings(server, max_session_tokens=80_000))
    assert again.outcome == "committed", again.reason
    assert again.batches[0].entries <= 6 and all(batch.outcome == "committed" for batch in again.batches)
    given = sessions(server)
    assert given.count(tuple(said)) == 1  # the failed session was never sent again
    assert read_cursor(workspace.cursor_file) == 12 and sizing.load(workspace).failures == []


def test_a_cap_on_one_entry_or_with_nothing_edited_still_holds_the_cursor(workspace, serve):
    facts(workspace, 1)
    server = serve([serial()] * 20)
    report = run_dream(workspace, llm_settings(server, max_session_tokens=5_000))
    assert report.outcome == "model-no-op" and "token budget" in report.reason
    assert read_cursor(workspace.cursor_file) == 0 and sizing.load(workspace).failures == []

    facts(workspace, 3)
    looping = serve([lambda body: call("list_skills")] * 50)  # reads forever: not a batch too big
    report = run_dream(workspace, llm_settings(looping, max_tool_calls=5, tool_mode="native"))
    assert report.outcome == "model-no-op" and report.batches[0].entries > 1 and not report.batches[0].oversized
    assert sizing.load(workspace).failures == []


def test_batches_are_cut_so_a_serial_model_fits_and_grow_for_a_model_that_answers_in_one_response(workspace, serve):
    said = facts(workspace, 24)

    def by_size(body: dict) -> dict:
        step = serial()(body)
        step["usage"] = (len(json.dumps(body)) // 4, 50)
        return step

    server = serve([by_size] * 400)
    report = run_dream(workspace, llm_settings(server, max_session_tokens=40_000))
    assert report.outcome == "committed", report.reason
    assert len(report.batches) > 1 and all(batch.outcome == "committed" for batch in report.batches)
    assert all(batch.tokens_in <= 40_000 for batch in report.batches)  # none near the cap, none failed

    more = [f"The billing job b{n} runs at {n % 24:02d}:00." for n in range(30)]
    write_history(workspace, [*[json.loads(line) for line in workspace.history_file.read_text().splitlines()],
                              *(entry(25 + n, f"[durable] {fact}", session_key=f"tg:{25 + n}")
                                for n, fact in enumerate(more))])

    def one_response(body: dict) -> dict:
        user = body["messages"][1]["content"]
        todo = [fact for fact in FACT.findall(user.split("<history>")[1]) if f"- {fact}" not in user]
        step = tool_calls(*(("edit_file", {"path": "memory/MEMORY.md", "old_text": "## Project\n",
                                           "new_text": f"## Project\n- {fact}\n"}) for fact in todo),
                          ("finish", {"summary": f"Filed {len(todo)} facts"}))
        step["usage"] = (len(json.dumps(body)) // 4, 50)
        return step

    fast = serve([one_response] * 50)
    later = run_dream(workspace, llm_settings(fast, max_session_tokens=40_000, model="openai/one-response"))
    sizes = [batch.entries for batch in later.batches]
    assert later.outcome == "committed" and max(sizes[1:]) > sizes[0], sizes  # it learned: one request a batch
    assert all(f"- {fact}" in (workspace.root / "memory" / "MEMORY.md").read_text() for fact in [*said, *more])


def test_a_dry_run_remembers_nothing(workspace, serve):
    facts(workspace, 12)
    server = serve([serial()] * 50)
    from nanodream.run.context import RunOptions

    report = run_dream(workspace, llm_settings(server, max_session_tokens=80_000), RunOptions(dry_run=True))
    assert report.outcome == "failed" and "token budget" in report.reason
    assert not sizing.state_file(workspace).exists()
