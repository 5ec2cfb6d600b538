"""Issue 29's items through a model over real HTTP: the signals it is shown and the shapes it writes land."""

from __future__ import annotations

from nanodream.run.dream import run_dream
from nanodream.skills import parse_skill
from tests.support.scripted_server import call, final, tool_calls
from tests.support.workspaces import entry, git, llm_settings, write_history

DEPLOY = ("---\nname: deploy\ndescription: Deploy the web service.\ncreated: 2026-09-01\n---\n\n# Deploy\n\n"
          "1. Run `make test`.\n2. Run the migrations.\n3. Restart the web service.\n")


def add_skill(workspace, name: str, text: str) -> None:
    path = workspace.root / "skills" / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", f"add {name}")


def test_the_model_is_shown_at_risk_skills_and_its_lessons_land(workspace, serve):
    add_skill(workspace, "deploy", DEPLOY)
    write_history(workspace, [
        entry(1, "[durable] Shipped v2 with the deploy skill.", "cli:ops", day=5),
        entry(2, "[correction] User said: \"I told you, don't restart before the migrations finish!!\"", "cli:ops",
              day=5),
        entry(3, "[correction] User asked, please, for shorter answers.", "tg:1", day=6),
        entry(4, "[permanent] User is fine with the agent paying the hosting invoice each month.", "tg:1", day=6),
    ])
    pitfall = DEPLOY + "\n## Pitfalls\n- Don't restart before the migrations have finished.\n"
    server = serve([
        call("edit_file", path="SOUL.md", old_text="## Rules\n", new_text="## Rules\n\n## Anti-patterns\n"
             "- Don't restart the web service before the migrations finish — instead wait for them (deploys)\n"),
        call("write_file", path="skills/deploy/SKILL.md", content=pitfall),
        call("edit_file", path="USER.md", old_text="## Preferences\n", new_text="## Preferences\n"
             "- Prefers shorter answers <!-- hypothesis: 1 of 2, mild -->\n"
             "- Lets the agent pay the hosting invoice each month <!-- ask-first -->\n"),
        final("Filed an anti-pattern, a pitfall, a hypothesis and an ask-first preference"),
        # the accounting's question: these lessons landed in the model's own words, which hold no fact verbatim
        final("1: a one-off release event, not a lasting fact\n"
              "2: kept as the deploy anti-pattern in SOUL.md and the pitfall of the deploy skill\n"
              "3: only a mild hypothesis so far (1 of 2 signals), not yet a settled preference"),
    ])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason

    shown = server.requests[0]["messages"][1]["content"]
    assert "At-risk skills (in use in a session of this batch that corrected the agent):" in shown
    assert "- deploy (cli:ops@2026-10-05 #2):" in shown and "used 1× in 30d" not in shown  # 2026-10 is long ago
    system = server.requests[0]["messages"][0]["content"]
    assert "<!-- hypothesis: 1 of 2, mild -->" in system and "<!-- ask-first -->" in system

    assert "- Don't restart the web service before the migrations finish — instead wait for them (deploys)" in (
        workspace.root / "SOUL.md").read_text()
    user = (workspace.root / "USER.md").read_text()
    assert "<!-- hypothesis: 1 of 2, mild -->" in user and "<!-- ask-first -->" in user
    assert "## Pitfalls" in (workspace.root / "skills/deploy/SKILL.md").read_text()


def test_a_guide_with_see_also_written_by_the_model_passes_the_guards(workspace, serve):
    for name in ("mcp-email", "mcp-calendar", "mcp-maps"):
        add_skill(workspace, name, f"---\nname: {name}\ndescription: Use {name}.\n---\n\n1. Call it.\n")
    write_history(workspace, [entry(1, "[durable] Used the mcp-email skill to answer Anna.", "tg:1")])
    guide = ("---\nname: mcp-guide\ndescription: Which mcp skill when.\nsee_also: [mcp-calendar, mcp-email, mcp-maps]"
             "\n---\n\n- `mcp-calendar`: events\n- `mcp-email`: mail\n- `mcp-maps`: places\n")
    server = serve([call("write_file", path="skills/mcp-guide/SKILL.md", content=guide), final("Wrote the guide"),
                    final("1: a one-off use of a skill, not a lasting fact")])  # the accounting's question
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    shown = server.requests[0]["messages"][1]["content"]
    assert "- mcp-guide: mcp-calendar, mcp-email, mcp-maps (no guide yet)" in shown
    assert parse_skill("skills/mcp-guide/SKILL.md", guide).see_also == ("mcp-calendar", "mcp-email", "mcp-maps")


def test_a_see_also_that_is_no_list_is_refused_with_the_rule_so_the_model_can_fix_it(workspace, serve):
    write_history(workspace, [entry(1, "[durable] Procedure deploy: 1) test 2) ship")])
    broken = "---\nname: deploy\ndescription: Ship.\nsee_also: rollback\n---\n\n1. Test.\n2. Ship.\n"
    server = serve([call("write_file", path="skills/deploy/SKILL.md", content=broken),
                    call("write_file", path="skills/deploy/SKILL.md", content=broken.replace("rollback", "[rollback]")),
                    final("Wrote deploy")])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    refusal = server.requests[1]["messages"][-1]["content"]
    assert "see_also must be a list of skill names" in refusal
    assert "see_also: [rollback]" in (workspace.root / "skills/deploy/SKILL.md").read_text()


def test_a_merged_skill_keeps_the_earliest_created_and_the_latest_last_used(workspace, serve):
    add_skill(workspace, "deploy", DEPLOY.replace("created: 2026-09-01", "created: 2026-09-01\nlast_used: 2026-10-01"))
    add_skill(workspace, "ship", "---\nname: ship\ndescription: Ship a build.\ncreated: 2026-03-15\n"
                                 "last_used: '2026-11-02'\n---\n\n1. Build.\n2. Push.\n")
    write_history(workspace, [entry(1, "[correction] ship and deploy are the same procedure; keep one.")])
    merged = DEPLOY.replace("# Deploy", "# Deploy (was also ship)") + "4. Push the build.\n"
    server = serve([call("write_file", path="skills/deploy/SKILL.md", content=merged),
                    tool_calls(("delete_skill", {"name": "ship"})), final("Merged ship into deploy"),
                    # the accounting's question: the correction is an order about the skills, not a memory line
                    final("1: an instruction about the skills themselves, not a fact to keep as a line")])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    front = parse_skill("skills/deploy/SKILL.md", (workspace.root / "skills/deploy/SKILL.md").read_text()).metadata
    assert (str(front["created"]), str(front["last_used"])) == ("2026-03-15", "2026-11-02")
    assert not (workspace.root / "skills/ship").exists()


def test_a_risky_preference_the_model_files_without_ask_first_gets_it(workspace, serve):
    write_history(workspace, [entry(1, "[permanent] User lets the agent pay the phone bill each month.")])
    user = (workspace.root / "USER.md").read_text()
    server = serve([call("write_file", path="USER.md", content=user + "- Lets the agent pay the phone bill\n"
                                                                      "- Never share the home address\n"),
                    final("Filed two preferences")])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason
    text = (workspace.root / "USER.md").read_text()
    assert "- Lets the agent pay the phone bill <!-- ask-first -->\n" in text
    assert "- Never share the home address\n" in text  # a prohibition allows nothing: nothing to ask
