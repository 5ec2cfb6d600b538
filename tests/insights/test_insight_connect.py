"""connect with a model, over real HTTP to the scripted server: a conversation of its own after the
consolidation's, offered only search_knowledge and propose_insight, refusals the model can act on, its spend
recorded apart, budgets that apply."""

from __future__ import annotations

import json

from nanodream.insights.records import render
from nanodream.insights.shelf import read_shelf
from nanodream.run.dream import run_dream
from nanodream.run.records import read_records
from tests.support.gitdates import commit_at
from tests.support.scripted_server import call, final, tool_calls
from tests.support.workspaces import entry, git, llm_settings, write_history

DECISION = "Decided to host the billing service on Hetzner in Falkenstein to keep customer data in the EU."
OLD = f"memory/archive/2026-03.md: {DECISION}"
BILL = "The Hetzner bill doubled this month after the new load balancer went live."
NEW = f"memory/MEMORY.md: {BILL}"
ALL = ("reflect", "re-evaluate", "connect")  # the default phases (tests/conftest.py's model leaves connect out)
DREAM_TOOLS = ["read_file", "list_skills", "edit_file", "write_file", "delete_skill", "archive_lines", "list_archive",
               "finish"]


def _hosted(workspace):
    path = workspace.root / "memory/archive/2026-03.md"
    path.parent.mkdir()
    path.write_text(f"# Archive 2026-03\n\n## Infrastructure (archived 2026-03-04)\n- {DECISION}\n")
    commit_at(workspace, "2026-03-04T12:00:00Z", "archive")
    write_history(workspace, [entry(1, f"[durable] {BILL}", "telegram:7")])
    return workspace


def consolidation():
    return [call("edit_file", path="memory/MEMORY.md", old_text="## Project\n", new_text=f"## Project\n- {BILL}\n"),
            final("Filed the Hetzner bill\n- memory/MEMORY.md: the bill")]


def proposal(name="hetzner-costs-follow-hosting", sources=(NEW, OLD), **changes) -> dict:
    fields = {
        "name": name,
        "summary": "The Hetzner bill doubled after a load balancer went live. The hosting decision from March "
                   "chose Hetzner in Falkenstein.",
        "what_if": "What if the EU hosting choice now costs more than planned?",
        "possible_outcome": "The person revisits the hosting budget.",
        "rationale": "Both name Hetzner; the new cost bears on the old decision.",
        "likelihood": 0.6, "confidence": 0.5, "topics": ["hetzner", "hosting", "costs"],
        "themes": ["infrastructure costs"],
        "sources": [{"ref": ref, "reason": "names Hetzner", "weight": 0.7, "relation": "supports"}
                    for ref in sources],
    }
    return {**fields, **changes}


def propose(**fields):
    return tool_calls(("propose_insight", proposal(**fields) if fields else proposal()))


def tool_names(body: dict) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def test_connect_is_a_conversation_of_its_own_with_only_its_two_tools(workspace, serve):
    _hosted(workspace)
    server = serve([*consolidation(), call("search_knowledge", query="Hetzner hosting", where="archive"),
                    propose(), final("Proposed one insight.")])

    report = run_dream(workspace, llm_settings(server, phases=ALL))

    assert report.outcome == "committed", report.reason
    dream, connect = server.requests[:2], server.requests[2:]
    assert len(connect) == 3
    assert all(tool_names(body) == DREAM_TOOLS for body in dream)  # consolidation never offers connect's tools
    assert all(tool_names(body) == ["search_knowledge", "propose_insight"] for body in connect)
    opening = connect[0]["messages"]
    assert [m["role"] for m in opening] == ["system", "user"]  # a fresh conversation: nothing of the dream's
    assert opening[0]["content"].startswith("You look for connections")
    assert NEW in opening[1]["content"] and "# Current memory files" not in opening[1]["content"]
    assert not any(m["content"] == dream[0]["messages"][1]["content"] for body in connect for m in body["messages"])
    searched = [m for m in connect[1]["messages"] if m["role"] == "tool"][0]["content"]
    assert searched.startswith(f"- {OLD}")

    insight = read_shelf(workspace).get("hetzner-costs-follow-hosting")
    assert insight.status == "proposed" and insight.refs == {NEW, OLD}
    # its spend apart: the run's totals are the consolidation's, the phases' are the conversation's
    assert (report.tokens_in, report.tokens_out) == (200, 40)
    assert (report.phases.tokens_in, report.phases.tokens_out, report.phases.requests) == (300, 60, 3)
    assert "Dream-Insight-Tokens: in=300 out=60" in git(workspace, "log", "-1", "--format=%B")
    assert "Dream-Tokens: in=200 out=40" in git(workspace, "log", "-1", "--skip=1", "--format=%B")
    record = read_records(workspace)[-1]
    assert (record.tokens_in, record.phases["tokens_in"], record.phases["requests"]) == (200, 300, 3)
    assert (workspace.state_dir / "transcripts" / f"{report.run_id}-connect.json").is_file()


def _refusals(server) -> list[str]:
    """The errors the model read, in the order it read them (the last request holds the whole conversation)."""
    return [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool"
            and m["content"].startswith("Error")]


def test_proposals_the_rules_refuse_come_back_as_errors_the_model_can_act_on(workspace, serve):
    _hosted(workspace)
    rejected = read_shelf(workspace)  # empty: write a rejected insight by hand, as a person's decision
    assert not rejected.insights
    folder = workspace.root / "memory/insights"
    folder.mkdir()
    from datetime import date

    from nanodream.insights.records import check

    old = check(proposal("hosting-was-a-mistake", sources=("skill:ops", "session:old-chat")),
                created=date(2026, 4, 1))
    (folder / "hosting-was-a-mistake.md").write_text(render(old.decided("rejected", date(2026, 4, 2), "no")))
    commit_at(workspace, "2026-04-02T12:00:00Z", "rejected an insight")
    server = serve([*consolidation(),
                    propose(sources=(NEW, "memory/MEMORY.md: Uses Perl.")),
                    propose(sources=(NEW, "session:telegram:7")),
                    propose(name="hosting-was-a-mistake"),
                    propose(likelihood=7, topics=["one"]),
                    propose(),
                    final("One proposed.")])

    report = run_dream(workspace, llm_settings(server, phases=ALL))

    errors = _refusals(server)
    assert len(errors) == 4
    assert "source 2 does not resolve" in errors[0] and "cite only what search_knowledge returned" in errors[0]
    assert "every source is material this run brought" in errors[1]
    assert "exists already (status rejected)" in errors[2] and "never propose it again" in errors[2]
    assert "likelihood must be a number from 0 to 1" in errors[3] and "topics must hold 3-5" in errors[3]
    assert [item["name"] for item in report.phases.insights] == ["hetzner-costs-follow-hosting"]


def test_a_run_without_leads_asks_the_model_nothing(workspace, serve):
    write_history(workspace, [entry(1, "[durable] The staging server runs Debian 12.")])
    server = serve([call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
                         new_text="## Project\n- The staging server runs Debian 12.\n"), final("Filed it.")])
    report = run_dream(workspace, llm_settings(server, phases=ALL))
    assert len(server.requests) == 2
    assert any(note.startswith("connect: skipped (nothing older") for note in report.phases.notes)


def test_a_spent_run_budget_skips_connect_and_a_failed_connect_costs_only_its_proposals(workspace, serve):
    _hosted(workspace)
    server = serve(consolidation())
    report = run_dream(workspace, llm_settings(server, max_run_tokens=200, phases=ALL))
    assert len(server.requests) == 2 and report.outcome == "committed"
    assert "connect: skipped (the run's token or cost budget is spent)" in report.phases.notes

    answer = "Hetzner support answered about the Falkenstein bill."
    with workspace.history_file.open("a") as handle:
        handle.write(json.dumps(entry(2, f"[durable] {answer}", "telegram:8")) + "\n")
    failing = serve([call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
                          new_text=f"## Project\n- {answer}\n"), final("Filed."),
                     propose()])  # then the script runs out: the provider fails connect
    report = run_dream(workspace, llm_settings(failing, phases=ALL))
    assert report.outcome in ("committed", "no-change"), report.reason
    [note] = [note for note in report.phases.notes if note.startswith("connect:")]
    assert note.startswith("connect: failed, nothing proposed (provider error")
    assert read_shelf(workspace).insights == []
    assert report.phases.requests >= 2 and report.phases.tokens_in > 0  # what it spent still counts


def test_in_text_mode_the_tools_are_described_in_the_prompt(workspace, serve):
    _hosted(workspace)
    written = ('<tool_call>\n' + json.dumps({"name": "propose_insight", "arguments": proposal()}) + '\n</tool_call>')
    server = serve([*consolidation(), final(written), final("Done.")])
    report = run_dream(workspace, llm_settings(server, tool_mode="text", phases=ALL))
    connect = server.requests[2]
    assert "tools" not in connect or not connect["tools"]
    assert "## Calling tools" in connect["messages"][0]["content"]
    assert "propose_insight(name, summary" in connect["messages"][0]["content"]
    assert [item["name"] for item in report.phases.insights] == ["hetzner-costs-follow-hosting"]


def test_how_a_statement_is_said_in_another_language_is_no_topic():
    """A move said in German twice made an insight of "ich", "wohne" and "berlin": the language's own words for
    saying it are its data file's cues, not what it is about; an English word a file borrows ("Bug") still is."""
    from nanodream.insights.terms import terms

    assert terms("Ich wohne jetzt in Berlin.") == {"berlin"}
    assert not terms("Meine Zeitzone ist UTC-5.") & {"meine", "ist"}
    assert "bug" in terms("Der Bug im Login ist behoben.")
