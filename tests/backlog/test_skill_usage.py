"""Skill usage from the host's files: mentions in history, memory/skill-usage.jsonl, read by position."""

from __future__ import annotations

import json
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nanodream.backlog.history import HistoryEntry, read_from
from nanodream.backlog.skill_usage import (
    LearnBudget,
    SessionUse,
    SkillNames,
    entry_session,
    entry_use,
    parse_usage,
    read_usage,
    skill_usage,
    state_file,
    usage_file,
)
from nanodream.workspace import Workspace, scaffold
from tests.support.memory_engine import append_history
from tests.support.workspaces import entry

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


# a changing set of skills, and histories nanodream never read ------------------------------------------------


def everything_read(workspace, names) -> dict:
    """The reference: every entry and record read from line 1 for `names`, as sessions → (skills, troubled)."""
    finder, known, sessions = SkillNames(names), set(names), {}
    for item in read_from(workspace.history_file):
        if isinstance(item, HistoryEntry):
            skills, corrected = entry_use(item, finder)
            if skills or corrected:
                found = sessions.setdefault(entry_session(item), ({}, [False]))
                for skill in skills:
                    found[0][skill] = max(found[0].get(skill, ""), item.timestamp[:10])
                found[1][0] |= corrected
    for record, _ in read_usage(usage_file(workspace)):
        if record is not None and record.skill in known:
            found = sessions.setdefault(record.session, ({}, [False]))
            found[0][record.skill] = max(found[0].get(record.skill, ""), record.day)
            found[1][0] |= record.outcome != "ok"
    return {key: SessionUse(skills, trouble[0]) for key, (skills, trouble) in sessions.items()}


def offsets_read(monkeypatch) -> list[int]:
    """Where every read of history.jsonl from a position starts (appended lines), from now on."""
    from nanodream.backlog import skill_usage as module

    starts: list[int] = []
    original = module.read_from
    monkeypatch.setattr(module, "read_from", lambda path, offset=0, line=0: starts.append(offset) or original(
        path, offset, line))
    return starts


def test_a_new_skill_learns_its_past_uses_without_history_being_read_from_line_1(workspace, monkeypatch):
    append_history(workspace,
                   entry(1, "[durable] Ran the backup-db skill before the migration.", "tg:1", day=2),
                   entry(2, "[durable] Used the deploy skill.", "tg:2", day=3),
                   entry(3, "[durable] backup db again, then deploy.", "tg:3", day=4))
    assert skill_usage(workspace, NAMES).uses_since("deploy", date(2026, 10, 1)) == 2
    end = workspace.history_file.stat().st_size
    starts = offsets_read(monkeypatch)
    usage = skill_usage(workspace, [*NAMES, "backup-db"])
    assert starts == [end]  # only what was appended since: nothing; the past came from the bounded read-back
    assert usage.uses_since("backup-db", date(2026, 10, 1)) == 2 and usage.last_used("backup-db") == date(2026, 10, 4)
    assert usage.sessions == everything_read(workspace, [*NAMES, "backup-db"])
    assert usage.co_used() == [("backup-db", "deploy", 1)]


def test_renamed_merged_and_deleted_skills_leave_the_others_as_they_were(workspace):
    append_history(workspace,
                   entry(1, "[durable] Used the deploy skill with mcp-email.", "a", day=2),
                   entry(2, "[correction] rotate api keys monthly, not weekly.", "b", day=3),
                   entry(3, "[durable] release-notes written for 2.0; deploy done.", "c", day=4))
    append_usage(workspace, record("mcp-email", "d", 5, "failed"))
    skill_usage(workspace, NAMES)
    renamed = ["deploy", "mcp-email-send", "release-notes"]  # rotate-api-keys gone, mcp-email renamed, one new
    usage = skill_usage(workspace, renamed)
    assert usage.sessions == everything_read(workspace, renamed)
    assert "mcp-email" not in {skill for use in usage.sessions.values() for skill in use.skills}
    assert "d@2026-10-05" not in usage.sessions and not usage.at_risk()  # the failed skill is gone
    assert usage.last_used("release-notes") == date(2026, 10, 4)
    assert skill_usage(workspace, NAMES).sessions == everything_read(workspace, NAMES)  # and back again


def test_a_name_inside_a_new_or_removed_name_is_read_again(workspace):
    append_history(workspace, entry(1, "[durable] ran mcp email send for the invoices.", "a", day=2),
                   entry(2, "[durable] checked mcp-email settings.", "b", day=3))
    assert set(skill_usage(workspace, ["mcp-email"]).sessions) == {"a@2026-10-02", "b@2026-10-03"}
    both = skill_usage(workspace, ["mcp-email", "mcp-email-send"])  # the longer name wins where both read
    assert both.skills_in("a@2026-10-02") == {"mcp-email-send"} and both.skills_in("b@2026-10-03") == {"mcp-email"}
    assert skill_usage(workspace, ["mcp-email"]).skills_in("a@2026-10-02") == {"mcp-email"}


def test_a_history_never_read_costs_one_budget_per_call_newest_first(workspace):
    entries = [entry(n, f"[durable] step {n} of the migration with the deploy skill.", f"s{n // 10}", day=1 + n // 40)
               for n in range(1, 400)]
    entries += [entry(400, "[correction] deploy only on Mondays.", "late", day=28)]
    append_history(workspace, *entries)
    small = LearnBudget(bytes=1 << 20, lines=25)
    first = skill_usage(workspace, NAMES, budget=small)
    assert first.last_used("deploy") == date(2026, 10, 28) and first.at_risk() == {"deploy"}  # the newest first
    assert 0 < len(first.sessions) < len(everything_read(workspace, NAMES))  # 25 lines decoded, not 400
    calls = 1
    while skill_usage(workspace, NAMES, budget=small).sessions != everything_read(workspace, NAMES):
        calls += 1
        assert calls < 40
    assert calls >= 400 // 25 - 1
    assert not json.loads(state_file(workspace).read_text())["debts"]  # nothing owed any more


def test_names_written_in_other_cases_escapes_or_letters_that_lowercase_to_ascii_are_found(workspace):
    lines = ['{"cursor": 1, "timestamp": "2026-10-02 10:00", "content": "ran \\u0064eploy", "session_key": "a"}',
             '{"cursor": 2, "timestamp": "2026-10-03 10:00", "content": "DEPLOY done", "session_key": "b"}',
             '{"cursor": 3, "timestamp": "2026-10-04 10:00", "content": "\\u212aafka backup ok", "session_key": "c"}',
             json.dumps({"cursor": 4, "timestamp": "2026-10-05 10:00", "content": "\u212aafka-backup",
                         "session_key": "d"}, ensure_ascii=False),
             '{"cursor": 5, "timestamp": "2026-10-06 10:00", "content": "[CORRECTION] n\\u006f", "session_key": "e"}']
    workspace.history_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    names = ["deploy", "kafka-backup"]
    usage = skill_usage(workspace, names)
    assert usage.sessions == everything_read(workspace, names)
    october = date(2026, 10, 1)
    assert usage.uses_since("deploy", october) == 2 and usage.uses_since("kafka-backup", october) == 2
    assert usage.sessions["e@2026-10-06"].trouble


PHRASES = ("used the {} skill", "ran skills/{}/SKILL.md", "{}", "[correction] no, {} differently", "nothing here",
           "[skip] the {} skill", "MCP email SEND", "mcp_email")
POOL = ["deploy", "mcp-email", "mcp-email-send", "rotate-api-keys", "email", "weekly-report", "report"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_whatever_changes_and_whatever_the_budget_usage_ends_as_reading_everything_would(tmp_path_factory, data):
    from nanodream.backlog import past

    workspace = Workspace.at(tmp_path_factory.mktemp("ws"))
    scaffold(workspace.root)
    cursor = 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(past, "BLOCK", data.draw(st.sampled_from([16, 64, 4096])))  # chunks of a few lines
        for _ in range(data.draw(st.integers(1, 5))):
            texts = data.draw(st.lists(st.tuples(st.sampled_from(PHRASES), st.sampled_from(POOL),
                                                 st.sampled_from("abc"), st.integers(1, 28)), max_size=12))
            for phrase, name, session, day in texts:
                cursor += 1
                append_history(workspace, entry(cursor, phrase.format(name.replace("-", " ")), session, day=day))
            if data.draw(st.booleans()):
                append_usage(workspace, record(data.draw(st.sampled_from(POOL)), "b", data.draw(st.integers(1, 28)),
                                               data.draw(st.sampled_from(["ok", "failed"]))))
            names = data.draw(st.lists(st.sampled_from(POOL), unique=True))
            budget = LearnBudget(bytes=data.draw(st.integers(1, 4096)), lines=data.draw(st.integers(1, 6)))
            skill_usage(workspace, names, budget=budget)
        while json.loads(state_file(workspace).read_text())["debts"]:
            skill_usage(workspace, names, budget=budget)
        assert skill_usage(workspace, names).sessions == everything_read(workspace, names)
