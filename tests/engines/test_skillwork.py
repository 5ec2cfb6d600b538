"""The builtin engine's skill rules: pitfalls from corrections, thin skills expanded, family guides, see_also."""

from __future__ import annotations

import json

from nanodream.config import Settings
from nanodream.run.dream import run_dream
from nanodream.skills import parse_skill
from tests.support.memory_engine import append_history
from tests.support.workspaces import entry, git


def skill(name: str, description: str, *steps: str) -> str:
    body = "\n".join(f"{n}. {step}" for n, step in enumerate(steps, start=1))
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\n{body}\n"


DEPLOY = skill("deploy", "Deploy the web service.", "Run `make test`.", "Run the migrations with `make migrate`.",
               "Restart the web service with `systemctl restart web`.")


def put(workspace, name: str, text: str) -> None:
    path = workspace.root / "skills" / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", f"add {name}")


def dream(workspace, *entries: dict) -> str:
    append_history(workspace, *entries)
    report = run_dream(workspace, Settings(model="builtin"))
    assert report.outcome == "committed", report.reason
    return git(workspace, "log", "-1", "--format=%B", report.commits[-1])  # the dream's (insights commit apart)


def read(workspace, name: str) -> str:
    return (workspace.root / "skills" / name / "SKILL.md").read_text()


def test_a_correction_in_a_sitting_that_used_a_skill_becomes_its_pitfall(workspace):
    put(workspace, "deploy", DEPLOY)
    message = dream(workspace, entry(1, "[durable] Shipped v2 with the deploy skill.", "cli:ops", day=5),
                    entry(2, "[correction] Don't restart the web service before the migrations finish.", "cli:ops",
                          day=5))
    text = read(workspace, "deploy")
    assert "## Pitfalls\n- Don't restart the web service before the migrations finish.\n" in text
    assert "pitfall added" in message
    dream(workspace, entry(3, "[durable] Used the deploy skill again.", "cli:ops", day=5),
          entry(4, "[correction] Don't restart the web service before the migrations finish.", "cli:ops", day=5))
    assert read(workspace, "deploy").count("before the migrations finish") == 1  # never twice


def test_a_correction_another_day_or_about_something_else_leaves_the_skill_alone(workspace):
    put(workspace, "deploy", DEPLOY)
    dream(workspace, entry(1, "[durable] Shipped v2 with the deploy skill.", "cli:ops", day=5),
          entry(2, "[correction] Don't restart the web service before the migrations finish.", "cli:ops", day=6),
          entry(3, "[durable] Used the deploy skill.", "tg:1", day=7),
          entry(4, "[correction] User prefers 2-space indentation in SQL files.", "tg:1", day=7))
    assert "Pitfalls" not in read(workspace, "deploy")


def test_usage_a_host_reported_ties_a_correction_to_its_skill(workspace):
    put(workspace, "deploy", DEPLOY)
    (workspace.root / "memory" / "skill-usage.jsonl").write_text(json.dumps(
        {"skill": "deploy", "session_key": "tg:9", "timestamp": "2026-10-05T10:00:00Z", "outcome": "failed"}) + "\n")
    dream(workspace, entry(1, "[correction] The web service must be restarted with `systemctl restart web.service`.",
                           "tg:9", day=5))
    assert "web.service" in read(workspace, "deploy").split("## Pitfalls")[1]


def test_a_thin_skill_takes_the_facts_that_name_it(workspace):
    put(workspace, "backup", skill("backup", "Back up the database.", "Run `restic backup /srv`."))
    dream(workspace, entry(1, "[durable] The backup skill should also run `restic check` afterwards.", day=5),
          entry(2, "[durable] Always run skills/backup before a deploy.", day=5),
          entry(3, "[durable] Project ledgerline runs on Hetzner.", day=5),
          entry(4, "[durable] The nightly backup goes to a Storage Box.", day=5))
    text = read(workspace, "backup")
    assert "2. Always run skills/backup before a deploy" in text and "- The backup skill should also run" in text
    memory = (workspace.root / "memory" / "MEMORY.md").read_text()
    assert "restic check" not in memory and "Hetzner" in memory
    assert "Storage Box" in memory and "Storage Box" not in text  # "backup" alone is not the skill


def test_a_family_gets_a_guide_kept_current_as_members_come_and_go(workspace):
    for name in ("mcp-email", "mcp-calendar"):
        put(workspace, name, skill(name, f"Use the {name} server.", "Call it.", "Check it.", "Report it."))
    dream(workspace, entry(1, "[durable] Project ledgerline bills three clients.", day=1))
    assert not (workspace.root / "skills" / "mcp-guide").exists()  # two members are not a family yet

    dream(workspace, entry(2, "[durable] Procedure mcp-weather: 1) call the weather tool 2) answer in metric units",
                           day=2))
    guide = read(workspace, "mcp-guide")
    assert [line for line in guide.splitlines() if line.startswith("- `")] == [
        "- `mcp-calendar`: Use the mcp-calendar server.", "- `mcp-email`: Use the mcp-email server.",
        "- `mcp-weather`: Step-by-step procedure for mcp weather, learned from the history."]
    assert parse_skill("skills/mcp-email/SKILL.md", read(workspace, "mcp-email")).see_also == (
        "mcp-guide", "mcp-calendar", "mcp-weather")

    put(workspace, "mcp-maps", skill("mcp-maps", "Find places on a map.", "Search.", "Route.", "Share."))
    (workspace.root / "skills" / "mcp-calendar" / "SKILL.md").unlink()
    git(workspace, "commit", "-qam", "person: drop mcp-calendar")
    dream(workspace, entry(3, "[durable] Project ledgerline bills four clients now.", day=3))
    guide = read(workspace, "mcp-guide")
    assert "`mcp-maps`: Find places on a map." in guide and "mcp-calendar" not in guide.split("---")[2]
    assert "mcp-calendar" not in read(workspace, "mcp-email")


def test_skills_used_together_point_at_each_other(workspace):
    put(workspace, "deploy", DEPLOY)
    put(workspace, "rollback", skill("rollback", "Roll back a release.", "Pick the tag.", "Redeploy it.", "Verify."))
    put(workspace, "backup", skill("backup", "Back up.", "Dump.", "Encrypt.", "Upload."))
    message = dream(workspace, entry(1, "[durable] Ran the deploy skill, then the rollback skill.", "a", day=3),
                    entry(2, "[durable] Ran the backup skill.", "b", day=3))
    assert "see_also: [rollback]" in read(workspace, "deploy") and "see_also: [deploy]" in read(workspace, "rollback")
    assert "see_also" not in read(workspace, "backup")  # used alone
    assert "see_also: rollback" in message


def test_many_skills_never_exceed_the_tool_call_cap_and_what_is_left_waits_for_later(workspace):
    from tests.support.gitdates import commit_at

    for n in range(30):
        path = workspace.root / "skills" / f"mcp-tool{n:02d}" / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(skill(f"mcp-tool{n:02d}", f"Use MCP tool {n}.", "Call it.", "Check it.", "Report it."))
    for n in range(40):
        path = workspace.root / "skills" / f"chore{n:02d}" / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(skill(f"chore{n:02d}", f"Chore {n}.", "Do it.", "Check it.", "Log it."))
    commit_at(workspace, "2026-10-01T09:00:00Z")
    message = dream(workspace, entry(1, "[durable] Project ledgerline bills three clients.", day=2))
    assert "left for a later batch (the session's tool-call cap)" in message
    assert (workspace.root / "skills/mcp-guide/SKILL.md").is_file()
    for day in range(3, 6):
        dream(workspace, entry(day, f"[durable] Project ledgerline bills {day} clients now.", day=day))
    assert all("mcp-guide" in (workspace.root / f"skills/mcp-tool{n:02d}/SKILL.md").read_text() for n in range(30))
    assert "see_also" not in (workspace.root / "skills/chore00/SKILL.md").read_text()  # no family, no companion
