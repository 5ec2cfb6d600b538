"""Skill usage from the host's files: mentions in history, memory/skill-usage.jsonl, read by position."""

from __future__ import annotations

import json
from datetime import date

from nanodream.backlog.skill_usage import (
    SkillNames,
    parse_usage,
    skill_usage,
    state_file,
    usage_file,
)
from tests.conftest import entry
from tests.memory_engine import append_history

NAMES = ["deploy", "mcp-email", "mcp-email-send", "rotate-api-keys"]


def record(skill: str, session: str, day: int, outcome: str = "ok") -> dict:
    return {"skill": skill, "session_key": session, "timestamp": f"2026-10-{day:02d}T09:00:00Z", "outcome": outcome}


def append_usage(workspace, *records: dict | str) -> None:
    path = usage_file(workspace)
    with path.open("a", encoding="utf-8") as handle:
        handle.writelines((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def test_a_skill_is_named_by_its_path_its_words_or_the_skill_phrase():
    names = SkillNames(NAMES)
    text = ("Used the deploy skill; read skills/mcp-email/SKILL.md; rotated keys per Rotate API keys; "
            "ran mcp email send; redeploy and deploy-prod are other words")
    assert names.found(text) == {"deploy", "mcp-email", "mcp-email-send", "rotate-api-keys"}
    assert names.found("we redeployed the deploy-prod stack, mcp, email") == set()
    assert names.found("mcp_email and MCP-Email-Send") == {"mcp-email", "mcp-email-send"}
    assert SkillNames([]).found("anything") == set()


def test_usage_lines_are_read_tolerantly():
    assert parse_usage(b'{"skill": "Deploy", "session_key": "a", "timestamp": "2026-10-02 10:00", "outcome": "failed"}'
                       ).outcome == "failed"
    assert parse_usage(b'{"skill": "deploy"}').session == "@"  # no key, no day: still one use
    assert parse_usage(b'{"skill": "deploy", "outcome": "meh"}').outcome == "ok"
    assert parse_usage(b"not json") is None and parse_usage(b'{"skill": 3}') is None


def test_a_usage_line_too_long_to_be_a_record_is_passed_over_in_bounded_memory(workspace):
    from nanodream.backlog.history import MAX_LINE_BYTES

    huge = {**record("deploy", "tg:1", 5), "note": "x" * (MAX_LINE_BYTES + 10)}
    append_usage(workspace, huge, record("mcp-email", "tg:1", 5))
    usage = skill_usage(workspace, NAMES)
    assert usage.uses_since("mcp-email", date(2026, 10, 1)) == 1 and usage.uses_since("deploy", date(2026, 10, 1)) == 0


def test_uses_last_use_co_use_and_trouble_from_both_files(workspace):
    append_history(workspace,
                   entry(1, "[durable] Shipped with the deploy skill and mcp-email.", "cli:a", day=2),
                   entry(2, "[correction] Don't deploy on Fridays.", "cli:a", day=2),
                   entry(3, "[durable] Ran skills/deploy/SKILL.md again.", "cli:a", day=20),
                   entry(4, "[skip] the deploy skill was mentioned in a skipped line", "cli:b", day=21))
    append_usage(workspace, record("mcp-email", "tg:1", 5), record("mcp-email", "tg:1", 5, "failed"),
                 record("deploy", "tg:1", 5), record("unknown-skill", "tg:1", 5), "{broken")
    usage = skill_usage(workspace, NAMES)
    assert usage.skills_in("cli:a@2026-10-02") == {"deploy", "mcp-email"}
    assert usage.uses_since("deploy", date(2026, 10, 1)) == 3  # three sittings; the [skip] line is no use
    assert usage.uses_since("deploy", date(2026, 10, 10)) == 1
    assert usage.last_used("deploy") == date(2026, 10, 20) and usage.last_used("rotate-api-keys") is None
    assert usage.co_used() == [("deploy", "mcp-email", 2)]
    assert usage.at_risk() == {"deploy", "mcp-email"}  # a correction in one sitting, a failure in the other
    assert usage.at_risk(date(2026, 10, 10)) == set()


def test_only_what_was_appended_is_read_and_a_rewrite_is_read_again(workspace, monkeypatch):
    append_history(workspace, entry(1, "[durable] Used the deploy skill.", "a", day=2))
    assert skill_usage(workspace, NAMES).uses_since("deploy", date(2026, 10, 1)) == 1
    kept = json.loads(state_file(workspace).read_text())
    assert kept["sources"]["history"]["offset"] == workspace.history_file.stat().st_size

    read = []
    from nanodream.backlog import skill_usage as module

    original = module.read_from
    monkeypatch.setattr(module, "read_from", lambda path, offset, line: read.append(offset) or original(path, offset,
                                                                                                       line))
    append_history(workspace, entry(2, "[durable] Used the deploy skill.", "b", day=3))
    assert skill_usage(workspace, NAMES).uses_since("deploy", date(2026, 10, 1)) == 2
    assert read == [kept["sources"]["history"]["offset"]]  # from where it stopped, not from the start

    workspace.history_file.write_text(json.dumps(entry(1, "[durable] Nothing about skills.", "c")) + "\n")
    assert skill_usage(workspace, NAMES).uses_since("deploy", date(2026, 10, 1)) == 0  # rewritten: read anew
    assert skill_usage(workspace, ["deploy", "other"]).sessions == {}  # other names: read anew, same answer


def test_an_unreadable_state_is_rebuilt_and_a_half_written_usage_line_waits(workspace):
    append_usage(workspace, record("deploy", "a", 2))
    with usage_file(workspace).open("a") as handle:
        handle.write('{"skill": "deploy", "session_key": "b"')  # the host is still writing it
    state_file(workspace).parent.mkdir(exist_ok=True)
    state_file(workspace).write_text("{not json")
    assert set(skill_usage(workspace, NAMES).sessions) == {"a@2026-10-02"}
    with usage_file(workspace).open("a") as handle:
        handle.write(', "timestamp": "2026-10-03 10:00"}\n')
    assert set(skill_usage(workspace, NAMES).sessions) == {"a@2026-10-02", "b@2026-10-03"}
