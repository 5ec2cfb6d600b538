"""Guard rules on a staged result, checked directly (the HTTP suite drives the same rules end to end)."""

from __future__ import annotations

import json

import pytest

from nanodream.backlog.history import Batch, HistoryEntry
from nanodream.config import Settings
from nanodream.memory.staging import Staging
from nanodream.prompting.prompt import compose_user_message
from nanodream.prompting.signals import compute_signals
from nanodream.run import guards
from nanodream.toolbox.limits import ToolLimits
from nanodream.toolbox.tools import ToolBox
from nanodream.versioning.gitstore import DREAM_IDENTITY, GitStore

DEPLOY = ("---\nname: deploy\ndescription: Deploy ledgerline to fly.io\n---\n\n"
          "1. make test\n2. fly deploy --remote-only\n")


def batch(*contents: str) -> Batch:
    return Batch([HistoryEntry(i, "2026-10-01 10:00", text) for i, text in enumerate(contents, start=1)])


def rules(staging: Staging, the_batch: Batch, **settings) -> list[str]:
    chosen = Settings(**settings)
    return [v.rule for v in guards.check(staging, the_batch, chosen, ToolLimits.from_settings(chosen)) if v.blocking]


@pytest.fixture
def staged(workspace):
    (workspace.root / "skills" / "deploy").mkdir(parents=True)
    (workspace.root / "skills" / "deploy" / "SKILL.md").write_text(DEPLOY)
    GitStore(workspace).commit("seed", DREAM_IDENTITY)
    return Staging(workspace)


def merged_skill(body: str, description: str = "Ship ledgerline") -> str:
    return f"---\nname: ship\ndescription: {description}\n---\n\n{body}"


@pytest.mark.parametrize("body,description", [
    ("1. Run the deploy skill's steps, then announce.\n", "Ship ledgerline"),  # names it
    ("1. announce\n", "Deploy ledgerline to fly.io and announce it"),  # carries its description
    ("- make test\n- fly deploy --remote-only\n- announce\n", "Ship ledgerline"),  # holds its steps, renumbered
], ids=["by-name", "by-description", "by-steps"])
def test_a_skill_counts_as_merged_when_a_skill_written_this_run_carries_it(staged, body, description):
    staged.write("skills/ship/SKILL.md", merged_skill(body, description))
    staged.delete("skills/deploy/SKILL.md")
    assert rules(staged, batch("[durable] merged the deploy and ship procedures")) == []


def test_an_untouched_skill_mentioning_the_deleted_one_is_not_a_merge(staged, workspace):
    (workspace.root / "skills" / "ship").mkdir()
    (workspace.root / "skills" / "ship" / "SKILL.md").write_text(merged_skill("1. use deploy\n"))
    staging = Staging(workspace)
    staging.delete("skills/deploy/SKILL.md")
    assert rules(staging, batch("[durable] tidy skills")) == ["skill deleted without merging"]
    assert rules(staging, batch("[correction] the deploy skill is obsolete")) == []


def test_core_files_are_never_deleted_even_with_a_correction(staged):
    staged.delete("USER.md")
    assert "deleted core file" in rules(staged, batch("[correction] forget everything"))


@pytest.mark.parametrize("contents,policy,expected", [
    (("[durable] Don't use sudo — instead ask.",), "tagged", []),
    (("[ephemeral] working on the sudo thing",), "tagged", ["untrusted soul change"]),
    (("untagged dump from a web page",), "tagged", ["untrusted soul change"]),
    (("untagged dump from a web page",), "open", []),
    (("[permanent] Be brief.",), "locked", ["soul locked"]),
])
def test_soul_changes_need_the_evidence_the_policy_asks_for(staged, contents, policy, expected):
    staged.write("SOUL.md", staged.read("SOUL.md") + "- Don't use sudo — instead ask.\n")
    assert rules(staged, batch(*contents), soul_policy=policy) == expected


def test_a_reaching_out_read_is_reported_but_does_not_void_the_session(staged):
    box = ToolBox(staged, ToolLimits.from_settings(Settings()))
    assert box.call("read_file", json.dumps({"path": "../../etc/passwd"})).startswith("Error:")
    found = guards.check(staged, batch("[durable] x"), Settings(), box.limits, box.refusals)
    assert [(v.rule, v.blocking) for v in found] == [("reached outside memory", False)]


def test_near_cap_files_are_flagged_to_the_model_before_they_overflow(staged):
    settings = Settings(max_file_chars=400)
    box = ToolBox(staged, ToolLimits.from_settings(settings))
    user = staged.read("USER.md")
    result = box.call("write_file", json.dumps({"path": "USER.md", "content": user + "- likes tea\n" * 22}))
    assert result.startswith("OK") and "merge and prune before adding more" in result
    signals = compute_signals(staged, batch("[durable] x"), GitStore(staged.workspace), settings, limits=box.limits)
    message = compose_user_message(staged, batch("[durable] x"), signals).text
    assert "## USER.md (" in message and "near cap: merge and prune first" in message


def test_redaction_happens_before_the_shape_and_size_checks(staged):
    box = ToolBox(staged, ToolLimits.from_settings(Settings(max_skill_chars=200)), redact_secrets=True)
    token = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
    for name, description in (("ci", f"CI with token {token}"), ("cd", token)):  # the marker keeps YAML valid
        skill = f"---\nname: {name}\ndescription: {description}\n---\n\n1. push\n"
        result = box.call("write_file", json.dumps({"path": f"skills/{name}/SKILL.md", "content": skill}))
        assert "Redacted 1 secret (GitHub Token)" in result
        assert token not in staged.read(f"skills/{name}/SKILL.md")
    assert "cd — (redacted GitHub Token)" in box.call("list_skills", "{}")
    assert guards.check(staged, batch("[durable] CI notes"), Settings(max_skill_chars=200),
                        ToolLimits.from_settings(Settings(max_skill_chars=200))) == []
