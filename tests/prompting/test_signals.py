"""Signals: line ages from real git history, recurrence across sessions, thin skills, sizes against caps."""

from __future__ import annotations

import shutil
from datetime import date

from nanodream.backlog.history import Batch, HistoryEntry
from nanodream.config import Settings
from nanodream.memory.staging import Staging
from nanodream.prompting.signals import (
    AgeRun,
    compute_signals,
    recurring_topics,
    section_ages,
    skill_signal,
)
from nanodream.toolbox.limits import ToolLimits
from nanodream.versioning.gitstore import GitStore
from tests.support.gitdates import commit_at

TODAY = date(2026, 10, 15)
CAPS = dict(max_file_chars=1000, max_skill_chars=500)

MEMORY_V1 = """# Project memory

## Ledgerline
- ledgerline is an invoice service.
- It uses PostgreSQL 15.

## Open tasks
- Migrate the invoices table.
"""

MEMORY_V2 = """# Project memory

## Ledgerline
- ledgerline is an invoice service.
- It uses PostgreSQL 16.

## Open tasks
- Migrate the invoices table.
- Add PDF export.
"""


def signals_for(ws, **settings):
    chosen = Settings(**CAPS, **settings)
    limits = ToolLimits.from_settings(chosen)
    return compute_signals(Staging(ws), None, GitStore(ws), chosen, limits=limits, today=TODAY)


def test_line_ages_come_from_the_commit_that_last_changed_each_line(workspace):
    memory = workspace.root / "memory/MEMORY.md"
    memory.write_text(MEMORY_V1)
    commit_at(workspace, "2026-09-01T12:00:00Z")
    memory.write_text(MEMORY_V2)
    commit_at(workspace, "2026-10-10T12:00:00Z")

    ages = signals_for(workspace).ages["memory/MEMORY.md"]

    old, new = date(2026, 9, 1), date(2026, 10, 10)
    assert [(s.heading, s.runs) for s in ages] == [
        ("# Project memory", (AgeRun(1, 1, old),)),
        ("## Ledgerline", (AgeRun(3, 4, old), AgeRun(5, 5, new))),
        ("## Open tasks", (AgeRun(7, 8, old), AgeRun(9, 9, new))),
    ]


def test_uncommitted_lines_count_as_changed_today(workspace):
    memory = workspace.root / "memory/MEMORY.md"
    memory.write_text(MEMORY_V1)
    commit_at(workspace, "2026-09-01T12:00:00Z")
    memory.write_text(MEMORY_V1 + "- Hand-added, not committed.\n")

    runs = signals_for(workspace).ages["memory/MEMORY.md"][-1].runs
    assert runs[-1] == AgeRun(9, 9, TODAY)
    assert runs[0].changed == date(2026, 9, 1)


def test_line_dates_follow_the_configured_time_zone(workspace):
    (workspace.root / "USER.md").write_text("# About Maya\n- Lives in Stockholm.\n")
    commit_at(workspace, "2026-09-01T23:30:00Z")  # already 2 September in Stockholm

    in_utc = signals_for(workspace).ages["USER.md"]
    in_stockholm = signals_for(workspace, timezone="Europe/Stockholm").ages["USER.md"]
    assert in_utc[0].runs[0].changed == date(2026, 9, 1)
    assert in_stockholm[0].runs[0].changed == date(2026, 9, 2)


def test_without_a_repository_every_line_is_new_never_old_enough_to_prune(workspace):
    shutil.rmtree(workspace.root / ".git")  # a nanobot workspace before its first run
    signals = signals_for(workspace)
    assert {run.changed for s in signals.ages["USER.md"] for run in s.runs} == {TODAY}


def test_sections_ignore_headings_inside_code_fences_and_blank_lines_do_not_split_runs():
    text = "## Steps\n- one\n\n- two\n```sh\n# not a heading\n```\n## Next\n- three\n"
    day = date(2026, 10, 1)
    sections = section_ages(text, [day] * 9)
    assert [(s.heading, s.runs) for s in sections] == [
        ("## Steps", (AgeRun(1, 7, day),)),
        ("## Next", (AgeRun(8, 9, day),)),
    ]


def test_sizes_are_measured_against_each_files_cap_and_flag_near_cap(workspace):
    (workspace.root / "USER.md").write_text("x" * 850)
    sizes = {s.path: s for s in signals_for(workspace).sizes}
    assert (sizes["USER.md"].chars, sizes["USER.md"].cap, sizes["USER.md"].near_cap) == (850, 1000, True)
    assert not sizes["SOUL.md"].near_cap


# skills -------------------------------------------------------------------------------------------------

FULL_SKILL = """---
name: release
description: Cut a release of ledgerline
---

1. Run `make test` and stop if anything fails; the release must be green.
2. Tag the commit with `git tag vX.Y.Z` using the next semantic version.
3. Push the tag with `git push origin vX.Y.Z` so CI builds the images.
4. On the VPS run `docker compose pull && docker compose up -d`.
"""

THIN_SKILL = """---
name: deploy
description: Deploy ledgerline
---

1. Run `make deploy`.
```sh
- not a step
- nor this
```
"""


def test_a_skill_with_few_steps_is_thin_and_code_blocks_do_not_count_as_steps():
    thin = skill_signal("skills/deploy/SKILL.md", THIN_SKILL, 500, None)
    assert (thin.steps, thin.thin) == (1, True)
    full = skill_signal("skills/release/SKILL.md", FULL_SKILL, 500, None)
    assert (full.steps, full.thin) == (4, False)


def test_a_short_skill_is_thin_even_with_enough_steps():
    short = "---\nname: tiny\ndescription: Tiny\n---\n\n1. a\n2. b\n3. c\n"
    assert skill_signal("skills/tiny/SKILL.md", short, 500, None).thin


def test_a_broken_skill_is_reported_not_raised_and_not_called_thin():
    broken = skill_signal("skills/broken/SKILL.md", "no front matter here", 500, None)
    assert broken.description is None and not broken.thin
    assert broken.name == "broken"


def test_skills_index_carries_size_and_last_change_from_git(workspace):
    (workspace.root / "skills/release").mkdir()
    (workspace.root / "skills/release/SKILL.md").write_text(FULL_SKILL)
    commit_at(workspace, "2026-09-20T12:00:00Z")
    [skill] = signals_for(workspace).skills
    assert skill.name == "release" and skill.size.chars == len(FULL_SKILL) and skill.size.cap == 500
    assert skill.changed == date(2026, 9, 20)


def test_each_skill_ages_from_its_own_last_commit_and_an_edited_one_is_new(workspace):
    for name in ("alpha", "beta", "gamma"):
        (workspace.root / f"skills/{name}").mkdir()
        (workspace.root / f"skills/{name}/SKILL.md").write_text(FULL_SKILL.replace("release", name))
    commit_at(workspace, "2026-09-01T12:00:00Z")
    (workspace.root / "skills/beta/SKILL.md").write_text(FULL_SKILL.replace("release", "beta") + "\nMore.\n")
    commit_at(workspace, "2026-09-25T12:00:00Z")
    (workspace.root / "skills/gamma/SKILL.md").write_text(FULL_SKILL.replace("release", "gamma") + "\nDraft.\n")
    changed = {skill.name: skill.changed for skill in signals_for(workspace).skills}
    assert changed == {"alpha": date(2026, 9, 1), "beta": date(2026, 9, 25), "gamma": TODAY}


# recurring topics ----------------------------------------------------------------------------------------


def entry(cursor: int, content: str, session: str | None, day: str = "2026-10-05") -> HistoryEntry:
    return HistoryEntry(cursor, f"{day} 10:00", content, session)


def test_a_procedure_told_in_two_sessions_is_one_subject_with_its_sessions_and_entries():
    topics = recurring_topics([
        entry(1, "[durable] Procedure release: run `make test`, then tag with git tag.", "cli:direct"),
        entry(2, "[permanent] User prefers dark mode.", "telegram:1"),
        entry(3, "[durable] Procedure release: run `make test`, then tag with git tag.", "slack:C1"),
    ])
    [release] = [t for t in topics if "procedure release" in t.terms]
    assert release.sessions == ("cli:direct", "slack:C1")
    assert release.cursors == (1, 3)
    assert {"git tag", "make test"} <= set(release.terms)
    assert not any("dark mode" in t.terms for t in topics)  # said once
    assert not any(term in ("permanent", "durable") for t in topics for term in t.terms)  # tags are not topics


def test_repetition_inside_one_session_is_not_recurrence():
    topics = recurring_topics([
        entry(1, "User prefers dark mode.", "telegram:1"),
        entry(2, "User prefers dark mode in all tools.", "telegram:1"),
    ])
    assert topics == []


def test_entries_without_a_session_key_count_as_one_session_per_day():
    same_day = recurring_topics([entry(1, "nightly backups to storage box", None),
                                 entry(2, "nightly backups to storage box", None)])
    two_days = recurring_topics([entry(1, "nightly backups to storage box", None, "2026-10-05"),
                                 entry(2, "nightly backups to storage box", None, "2026-10-06")])
    assert same_day == []
    assert two_days and two_days[0].sessions == ("day:2026-10-05", "day:2026-10-06")


def test_plural_forms_count_as_one_topic_and_counts_are_per_session():
    topics = recurring_topics([
        entry(1, "Invoice numbers reset in January.", "a"),
        entry(2, "Invoices need VAT numbers.", "b"),
        entry(3, "The invoice list is slow.", "c"),
        entry(4, "Another invoice question.", "c"),
    ])
    [invoice] = [t for t in topics if t.terms == ("invoice",)]
    assert invoice.sessions == ("a", "b", "c") and invoice.cursors == (1, 2, 3, 4)


def test_a_lone_word_in_only_two_sessions_is_not_reported():
    topics = recurring_topics([entry(1, "The server is slow.", "a"), entry(2, "Another server crashed.", "b")])
    assert topics == []


def test_subjects_with_more_sessions_come_first_and_lists_are_bounded():
    entries = [entry(i, f"topic{i % 20} alpha{i % 20} mentioned", f"s{i}") for i in range(60)]
    entries += [entry(100 + i, "docker compose pull", f"s{i}") for i in range(4)]
    topics = recurring_topics(entries, max_subjects=5, max_words=0)
    assert len(topics) == 5
    assert topics[0].terms[0] == "docker compose" and len(topics[0].sessions) == 4


def test_signals_carry_topics_only_when_there_is_a_batch(workspace):
    batch = Batch([entry(1, "docker compose pull", "a"), entry(2, "docker compose pull", "b")])
    with_batch = compute_signals(Staging(workspace), batch, GitStore(workspace), Settings(**CAPS),
                                 limits=ToolLimits.from_settings(Settings(**CAPS)), today=TODAY)
    assert with_batch.topics and with_batch.topics[0].terms[0] == "docker compose"
    assert signals_for(workspace).topics == ()


# skills: use, trouble, companions, families --------------------------------------------------------------


def _skill(name: str, description: str = "Does a thing.") -> str:
    steps = f"1. One.\n2. Two.\n3. Three, long enough not to be a stub: {'x' * 200}\n"
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\n{steps}"


def test_skill_health_says_use_trouble_companions_and_families(workspace):
    from nanodream.prompting.prompt import render_skill_ages, render_skill_health, render_skills

    for name in ("deploy", "rollback", "mcp-email", "mcp-calendar", "mcp-maps", "old-report"):
        path = workspace.root / "skills" / name / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_skill(name))
    commit_at(workspace, "2026-06-01T12:00:00Z")
    entries = [HistoryEntry(1, "2026-10-14 09:00", "[durable] Ran the deploy skill and the rollback skill.", "a"),
               HistoryEntry(2, "2026-10-14 09:30", "[correction] Don't restart before migrations.", "a"),
               HistoryEntry(3, "2026-10-12 09:30", "[durable] deploy skill and rollback skill again.", "b")]
    workspace.history_file.write_text("".join(
        f'{{"cursor": {e.cursor}, "timestamp": "{e.timestamp}", "content": "{e.content}", "session_key": '
        f'"{e.session_key}"}}\n' for e in entries))
    limits = ToolLimits.from_settings(Settings(**CAPS))
    signals = compute_signals(Staging(workspace), Batch(entries[:2]), GitStore(workspace), Settings(**CAPS),
                              limits=limits, today=TODAY)
    health = signals.health
    assert health.uses["deploy"].uses == 2 and health.uses["deploy"].last_used == date(2026, 10, 14)
    assert health.uses["old-report"].unused and not health.uses["deploy"].unused
    assert [(r.skill, r.corrections) for r in health.at_risk] == [
        ("deploy", ("Don't restart before migrations.",)), ("rollback", ("Don't restart before migrations.",))]
    shown = "\n".join(render_skill_health(health))
    assert '- deploy (a@2026-10-14 #2): "Don\'t restart before migrations."' in shown
    assert "Used in the same session: deploy + rollback 2" in shown
    assert "- mcp-guide: mcp-calendar, mcp-email, mcp-maps (no guide yet)" in shown
    assert "old-report — Does a thing. [" in render_skills(signals)
    ages = "\n".join(render_skill_ages(signals))
    assert "used 2× in 30d, last 2026-10-14" in ages.split("deploy ")[1].split(" · ")[0]
    assert "UNUSED 90d" in ages.split("old-report")[1].split(" · ")[0]


def test_skill_health_says_nothing_when_nothing_applies(workspace):
    from nanodream.prompting.prompt import render_signals

    text = render_signals(signals_for(workspace), tidy=False)
    assert "At-risk" not in text and "same session" not in text and "families" not in text
