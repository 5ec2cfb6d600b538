"""SKILL.md front matter beyond name and description (see_also, dates) and skill families."""

from __future__ import annotations

import pytest

from nanodream.skills import families, family_prefix, guide_name, is_guide, parse_skill, set_front_matter
from tests.support.cli import runner

SKILL = """---
name: mcp-email
description: Send email through the MCP mail server.
created: 2026-09-01
tags:
  - mail
  - mcp
---

# Email

1. Draft.
"""


def test_see_also_is_read_and_must_be_a_list_of_names():
    text = SKILL.replace("created:", "see_also: [mcp-guide, mcp-calendar]\ncreated:")
    assert parse_skill("skills/mcp-email/SKILL.md", text).see_also == ("mcp-guide", "mcp-calendar")
    assert parse_skill("skills/mcp-email/SKILL.md", SKILL).see_also == ()
    with pytest.raises(ValueError, match="see_also must be a list of skill names"):
        parse_skill("skills/mcp-email/SKILL.md", SKILL.replace("created:", "see_also: mcp-guide\ncreated:"))


def test_setting_a_key_keeps_every_other_byte():
    added = set_front_matter(SKILL, "see_also", ["mcp-guide"])
    assert added == SKILL.replace("  - mcp\n---", "  - mcp\nsee_also: [mcp-guide]\n---")
    replaced = set_front_matter(SKILL, "tags", ["x"])  # a block list is replaced whole
    assert replaced == SKILL.replace("tags:\n  - mail\n  - mcp\n", "tags: [x]\n")
    assert set_front_matter(SKILL, "created", "2026-08-01").count("created: '2026-08-01'") == 1
    with pytest.raises(ValueError):
        set_front_matter("# no front matter\n", "see_also", [])


def test_families_need_three_members_sharing_the_part_before_the_first_dash():
    names = ["mcp-email", "mcp-calendar", "mcp-weather", "mcp-guide", "deploy", "db-backup", "db-restore"]
    assert families(names) == {"mcp": ["mcp-calendar", "mcp-email", "mcp-weather"]}
    assert family_prefix("deploy") is None and family_prefix("mcp-") is None
    assert guide_name("mcp") == "mcp-guide" and is_guide("mcp-guide") and not is_guide("mcp-email")


# `nanodream skills` ---------------------------------------------------------------------------------------


def test_the_skills_table_counts_recent_uses_companions_trouble_families_and_idle_skills(workspace):
    import json
    from datetime import UTC, datetime, timedelta

    from nanodream.cli import app
    from tests.support.gitdates import commit_at

    def add(name: str, steps: int = 3) -> None:
        path = workspace.root / "skills" / name / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "\n".join(f"{n}. Step {n}, with enough words and an exact command: `make step-{n} VERBOSE=1`."
                         for n in range(1, steps + 1))
        path.write_text(f"---\nname: {name}\ndescription: How to {name}.\n---\n\n{body}\n")

    for name in ("deploy", "rollback", "mcp-email", "mcp-maps", "mcp-calendar", "mcp-guide"):
        add(name)
    add("stub", steps=1)
    commit_at(workspace, "2026-01-01T00:00:00Z")  # long enough ago for an idle skill to count as unused
    today = datetime.now(UTC).date()
    stamp = (today - timedelta(days=3)).isoformat()
    workspace.history_file.write_text("".join(json.dumps(item) + "\n" for item in [
        {"cursor": 1, "timestamp": f"{stamp} 09:00", "session_key": "ops", "content": "[durable] Used the deploy "
         "skill and the rollback skill."},
        {"cursor": 2, "timestamp": f"{stamp} 09:10", "session_key": "ops", "content": "[correction] Deploy only "
         "after the tests pass."},
    ]))
    result = runner.invoke(app, ["skills", "-w", str(workspace.root), "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.output)["skills"]}
    assert rows["deploy"] | {"description": "", "chars": 0} == {
        "name": "deploy", "description": "", "uses": 1, "last_used": stamp, "co_used": ["rollback"],
        "at_risk": True, "thin": False, "unused": False, "family": None, "see_also": [], "chars": 0}
    assert rows["mcp-email"]["family"] == "mcp" and rows["mcp-guide"]["family"] == "mcp"
    assert rows["mcp-email"]["unused"] and rows["stub"]["thin"]
    shown = runner.invoke(app, ["skills", "-w", str(workspace.root)], terminal_width=200).output
    assert "deploy" in shown and "at-risk" in shown and "rollback" in shown


def test_skills_outside_a_workspace_is_one_line_and_exit_2(tmp_path):

    from nanodream.cli import app

    result = runner.invoke(app, ["skills", "-w", str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and "no workspace at" in result.output
