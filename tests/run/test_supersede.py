"""Superseded, not erased: a replaced line moves to the archive with the day it stopped being true.

The form is one line, `- <old> (from DAY until DAY; replaced by: <new>)`, derived from the history and the
diff whatever engine dreamed: the builtin rules and a model over real HTTP are held to the same outcome.
"""

from __future__ import annotations

import json

import pytest

from nanodream.config import Settings
from nanodream.run.dream import run_dream
from nanodream.validity import is_replaced, parse_validity
from nanodream.workspace import MEMORY, SOUL, USER, Workspace
from tests.support.scripted_server import call, final
from tests.support.workspaces import git, llm_settings

BUILTIN = Settings(model="builtin")


def history(ws: Workspace, *lines: tuple[str, str]) -> None:
    """Append (day, content) entries to history.jsonl, cursors continuing."""
    path = ws.history_file
    known = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    rows = [json.dumps({"cursor": len(known) + n, "timestamp": f"{day} 09:00", "content": content})
            for n, (day, content) in enumerate(lines, start=1)]
    path.write_text("".join(line + "\n" for line in [*known, *rows]), encoding="utf-8")


def dream(ws: Workspace, settings: Settings = BUILTIN) -> None:
    report = run_dream(ws, settings)
    assert report.outcome == "committed", report.reason


def archived(ws: Workspace) -> list[str]:
    folder = ws.root / "memory" / "archive"
    return [line for path in sorted(folder.glob("*.md")) for line in path.read_text().splitlines()
            if line.startswith("- ")]


def test_a_corrected_fact_is_archived_from_the_day_it_was_taught_until_the_day_it_changed(workspace):
    history(workspace, ("2026-03-14", "[durable] The user lives in Ghent."))
    dream(workspace)
    history(workspace, ("2026-06-02", "[correction] User moved to Utrecht."))
    dream(workspace)

    user = (workspace.root / USER).read_text()
    assert "Utrecht" in user and "Ghent" not in user
    assert archived(workspace) == [
        "- The user lives in Ghent (from 2026-03-14 until 2026-06-02; replaced by: User moved to Utrecht)"]
    log = git(workspace, "log", "-1", "--stat", "--format=%s")
    assert "memory/archive/" in log  # the same commit that replaced it


def test_values_that_came_and_went_inside_one_batch_are_each_kept_with_their_validity(workspace):
    history(workspace, ("2026-01-05", "[durable] The deploy bot runs on host oak1."),
            ("2026-02-10", "[correction] The deploy bot runs on host oak2."),
            ("2026-03-20", "[correction] The deploy bot runs on host oak3."))
    dream(workspace)

    assert "oak3" in (workspace.root / MEMORY).read_text()
    lines = [parse_validity(line) for line in archived(workspace)]
    assert [(v.text, str(v.since), str(v.until), v.successor) for v in lines] == [
        ("The deploy bot runs on host oak1", "2026-01-05", "2026-02-10", "The deploy bot runs on host oak2"),
        ("The deploy bot runs on host oak2", "2026-02-10", "2026-03-20", "The deploy bot runs on host oak3")]


@pytest.mark.parametrize(("path", "line", "correction", "gone"), [
    (SOUL, "Always reply in under 100 words.", "Always reply in under 250 words.", "100 words"),
    (USER, "Location: Ghent", "The user relocated to Utrecht.", "Ghent"),
    (MEMORY, "The API listens on port 8080.", "The API port is 9090, not 8080.", "port 8080"),
])
def test_a_line_of_any_active_file_replaced_is_archived_and_leaves_the_active_file(workspace, path, line,
                                                                                   correction, gone):
    file = workspace.root / path
    file.write_text(file.read_text() + f"- {line}\n")
    history(workspace, ("2026-10-05", f"[correction] {correction}"))
    dream(workspace)

    assert f"- {line}" not in file.read_text()
    [kept] = archived(workspace)
    validity = parse_validity(kept)
    assert gone in validity.text and str(validity.until) == "2026-10-05" and validity.since is None
    assert validity.successor == correction.rstrip(".")


def test_a_correction_the_session_files_in_other_words_still_archives_the_line_it_replaced(workspace):
    history(workspace, ("2026-07-01", "[permanent] Always answer in British English."))
    dream(workspace)
    history(workspace, ("2026-08-01", "[correction] Always answer in American English, not British English."))
    dream(workspace)

    soul = (workspace.root / SOUL).read_text()
    assert "- Always answer in British English." not in soul
    [kept] = [parse_validity(line) for line in archived(workspace)]
    assert (kept.text, str(kept.since), str(kept.until)) == (
        "Always answer in British English", "2026-07-01", "2026-08-01")
    assert "American English" in kept.successor and f"- {kept.successor}" in soul  # the line now in SOUL.md


def test_a_refinement_a_pin_and_a_plain_deletion_are_not_replacements(workspace):
    (workspace.root / MEMORY).write_text("# Memory\n\n## Project\n- Uses Go.\n- Staging runs Debian.\n")
    history(workspace, ("2026-10-01", "[durable] Uses Go 1.23 for the API."),
            ("2026-10-02", "[durable] Staging runs Debian 12 on arm64."))
    dream(workspace)
    assert "Go 1.23" in (workspace.root / MEMORY).read_text()
    assert archived(workspace) == []


def test_a_line_that_only_restated_the_old_value_goes_with_it_and_one_that_says_more_stays(workspace):
    (workspace.root / MEMORY).write_text(
        "# Memory\n\n## Infrastructure\n- Project kiwi deploys with Nomad on host atlas.\n"
        "- Kiwi deploys with Nomad.\n- The kiwi runbook restarts Nomad allocations after a deploy.\n")
    history(workspace, ("2026-10-07", "[correction] Project kiwi now deploys with Kubernetes, not Nomad."))
    dream(workspace)

    memory = (workspace.root / MEMORY).read_text()
    assert "- Kiwi deploys with Nomad." not in memory
    assert "restarts Nomad allocations" in memory  # says more than the old fact: flagged, not dropped
    assert sorted(parse_validity(line).text for line in archived(workspace)) == [
        "Kiwi deploys with Nomad", "Project kiwi deploys with Nomad on host atlas"]


def test_a_model_that_edits_the_old_line_in_place_gets_it_archived_with_the_history_date(workspace, serve):
    (workspace.root / USER).write_text("# User\n\n## Identity\n- Lives in Ghent.\n- Prefers tea.\n")
    history(workspace, ("2026-09-30", "[correction] The user lives in Utrecht now."))
    server = serve([call("edit_file", path=USER, old_text="- Lives in Ghent.", new_text="- Lives in Utrecht."),
                    final("Moved the user to Utrecht")])
    dream(workspace, llm_settings(server))

    assert archived(workspace) == ["- Lives in Ghent (until 2026-09-30; replaced by: Lives in Utrecht)"]


def test_a_model_that_archived_the_old_line_itself_gets_that_copy_marked_not_a_second(workspace, serve):
    (workspace.root / MEMORY).write_text("# Memory\n\n## Project\n- The queue runs on RabbitMQ.\n")
    history(workspace, ("2026-08-08", "[correction] The queue runs on NATS now, not RabbitMQ."))
    server = serve([call("archive_lines", path=MEMORY, text="- The queue runs on RabbitMQ."),
                    call("edit_file", path=MEMORY, old_text="## Project\n", new_text="## Project\n- The queue runs "
                         "on NATS.\n"),
                    final("Queue moved to NATS")])
    dream(workspace, llm_settings(server))

    assert archived(workspace) == [
        "- The queue runs on RabbitMQ (until 2026-08-08; replaced by: The queue runs on NATS)"]


def test_a_soul_line_waiting_for_review_stays_out_of_the_archive(workspace):
    soul = workspace.root / SOUL
    soul.write_text(soul.read_text() + "- Always reply in under 100 words.\n")
    history(workspace, ("2026-10-05", "[correction] Always reply in under 250 words."))
    report = run_dream(workspace, Settings(model="builtin", review="soul"))
    assert report.batches[0].proposal, report.reason  # the change to SOUL.md waits for a person
    assert "under 100 words" in soul.read_text() and archived(workspace) == []


def test_replaced_lines_are_recognised_and_others_are_not():
    assert is_replaced("- Lives in Ghent (from 2026-03-14 until 2026-06-02; replaced by: Lives in Utrecht (NL))")
    assert parse_validity("- Lives in Ghent (until 2026-06-02; replaced by: Lives in Utrecht (NL))").successor == (
        "Lives in Utrecht (NL)")
    assert parse_validity("- Uses Nomad (until 2026-11-02)").successor == ""
    for line in ("- Lives in Ghent.", "- Contract runs until 2026-12-31.", "- Lives in Ghent (until 2026-13-40)",
                 "## Identity (archived 2026-11-27)"):
        assert not is_replaced(line)


# a person's undo and forget ------------------------------------------------------------------------------------


def test_undoing_the_dream_that_replaced_a_fact_brings_it_back_and_takes_its_until_line_out(workspace):
    from nanodream.edits.restore import restore_commit

    history(workspace, ("2026-03-14", "[durable] The user lives in Ghent."))
    dream(workspace)
    history(workspace, ("2026-06-02", "[correction] User moved to Utrecht."))
    dream(workspace)
    report = restore_commit(workspace, "HEAD")

    assert report.outcome == "restored", report.reason
    user = (workspace.root / USER).read_text()
    assert "The user lives in Ghent." in user and "Utrecht" not in user
    assert archived(workspace) == []


def test_forgetting_what_replaced_a_fact_keeps_the_fact_and_asks_the_person(workspace):
    from nanodream.edits.forget import Target, forget

    history(workspace, ("2026-03-14", "[durable] The user lives in Ghent."))
    dream(workspace)
    history(workspace, ("2026-06-02", "[correction] User moved to Utrecht."))
    dream(workspace)
    report = forget(workspace, Target(line=2))

    assert report.outcome == "forgotten", report.reason
    assert "Utrecht" not in (workspace.root / USER).read_text()
    assert [parse_validity(line).text for line in archived(workspace)] == ["The user lives in Ghent"]
    assert any("may be true again" in line and "Ghent" in line for line in report.review)
