"""Honesty per fact: the failure modes small local models showed (#39), replayed over real HTTP.

Each answer in tests/fixtures/small-models/failure-modes.json once ended in a ✓ with facts consumed and kept
nowhere. Now every tagged fact of the batch is accounted for after every session, edits or not; what is not
accounted for is never consumed, and a model that cannot do the job holds the cursor instead of splitting.
"""

from __future__ import annotations

import json
import re

import pytest

from nanodream.backlog.history import read_cursor
from nanodream.backlog.quarantine import load_quarantine
from nanodream.run.dream import run_dream
from nanodream.run.records import read_records
from nanodream.versioning.gitstore import DREAM_IDENTITY, GitStore
from nanodream.vocab import ExitCode
from tests.support.paths import FIXTURES
from tests.support.scripted_server import call, final, keeps_nothing, tool_calls
from tests.support.workspaces import git, llm_settings, snapshot, write_history

FIXTURE = json.loads((FIXTURES / "small-models" / "failure-modes.json")
                     .read_text(encoding="utf-8"))
ANSWERS = FIXTURE["answers"]
OLD_KIWI = "- Project kiwi deploys with Nomad on host atlas.\n"
NEW_KIWI = "- Project kiwi deploys with Kubernetes on host atlas.\n"
BACKUP = "The nightly backup runs at 02:00 on host birch."
INVOICES = "Invoices are numbered per client, starting at 1000."


@pytest.fixture
def lived_in(workspace):
    """Memory with seven facts, and the fixture's backlog: two facts, a correction of a memory line, one more."""
    (workspace.root / "memory" / "MEMORY.md").write_text(FIXTURE["memory"])
    GitStore(workspace).commit("seed memory", DREAM_IDENTITY)
    write_history(workspace, FIXTURE["history"])
    return workspace


def held(ws, before) -> None:
    """Nothing applied, nothing consumed, nothing quarantined."""
    assert snapshot(ws) == before
    assert read_cursor(ws.cursor_file) == 0 and load_quarantine(ws) == []


def native(settings_server, **overrides):
    """Settings for a session whose subject is the tools session itself (no structured second attempt)."""
    return llm_settings(settings_server, tool_mode=overrides.pop("tool_mode", "text"), **overrides)


def answers_then_done(answer: str):
    """A model that writes `answer` when asked, and "Done." when it reads the results of its calls."""

    def respond(body: dict) -> dict:
        last = body["messages"][-1]
        reading = last["role"] == "tool" or last["content"].startswith("Results of the tool calls")
        return final("Done." if reading else answer)

    return respond


def files_everything() -> list:
    """A model that does the job: the preference, the backup, kiwi's line replaced, the invoices."""
    return [tool_calls(
        ("edit_file", {"path": "USER.md", "old_text": "## Preferences\n",
                       "new_text": "## Preferences\n- Prefers answers in British English.\n"}),
        ("edit_file", {"path": "memory/MEMORY.md", "old_text": OLD_KIWI,
                       "new_text": NEW_KIWI + f"- {BACKUP}\n- {INVOICES}\n"})), final("Filed four facts")]


def test_a_model_that_does_the_job_commits_every_entry(lived_in, serve):
    server = serve(files_everything())
    report = run_dream(lived_in, llm_settings(server))
    assert report.outcome == "committed" and report.exit_code == 0, report.reason
    assert read_cursor(lived_in.cursor_file) == 3 and len(server.requests) == 2  # no question: all kept
    memory = (lived_in.root / "memory" / "MEMORY.md").read_text()
    assert NEW_KIWI in memory and "Nomad" not in memory


# the failure modes -----------------------------------------------------------------------------------


def test_a_file_wrapped_in_the_prompts_file_tags_is_refused(lived_in, serve):
    before = snapshot(lived_in)
    server = serve([final(ANSWERS["file_wrapper"]), final("Done."), final("Done.")])
    report = run_dream(lived_in, native(server))
    assert report.outcome == "model-no-op" and report.exit_code == ExitCode.FAILED
    assert "memory/MEMORY.md: broken structure" in report.reason and "<file>" in report.reason
    held(lived_in, before)


def test_the_example_call_copied_into_a_real_edit_keeps_nothing_and_consumes_nothing(lived_in, serve):
    before = snapshot(lived_in)
    server = serve([final(ANSWERS["copied_example_call"]), final("Filed."), final(ANSWERS["copied_example_call"]),
                    final("Filed.")])
    report = run_dream(lived_in, native(server))
    assert report.outcome == "model-no-op", report.reason
    assert "answers in British English" in report.reason  # the first fact it did not keep
    held(lived_in, before)
    question = server.requests[2]["messages"][-1]["content"]
    assert "new_text" not in question and "Prefers short answers" not in question  # nothing to copy
    assert "<tool_call>" in question and "TOOL" in question  # the format, in slots no tool accepts


@pytest.mark.parametrize("answer", ["placeholder_reasons", "echoed_example", "claims_all"])
def test_reasons_that_are_placeholders_echoes_or_claims_explain_nothing(lived_in, serve, answer):
    before = snapshot(lived_in)
    server = serve([final("Nothing needed changing."), final(ANSWERS[answer])])
    report = run_dream(lived_in, native(server))
    assert report.outcome == "model-no-op" and report.exit_code == ExitCode.FAILED, report.reason
    problems = " ".join(item["problem"] for item in report.batches[0].unaccounted)
    expected = {"placeholder_reasons": "placeholder", "echoed_example": "points to fact",
                "claims_all": "claims an edit the files do not show"}[answer]
    assert expected in problems, problems
    held(lived_in, before)


def test_a_one_line_rewrite_under_a_correction_is_refused(lived_in, serve):
    before = snapshot(lived_in)
    server = serve([final(ANSWERS["one_line_rewrite"]), final("Done."), final("Done.")])
    report = run_dream(lived_in, native(server))
    assert report.outcome == "model-no-op" and "memory/MEMORY.md: mass deletion" in report.reason
    assert "the batch's corrections replace none of them" in report.reason
    held(lived_in, before)


def test_a_correction_landed_beside_its_old_line_is_asked_about_then_waits_with_its_entry(lived_in, serve):
    server = serve([final(ANSWERS["correction_beside"]), final("Filed four facts"), final("All done.")])
    report = run_dream(lived_in, native(server))
    question = server.requests[2]["messages"][-1]["content"]
    assert "landed beside the line it corrects" in question and "Nomad on host atlas" in question
    assert report.outcome == "model-no-op" and "landed beside the line it corrects" in report.reason
    # entry 1 is committed on its own: nothing the session wrote for entries 2 and 3 rides along with it
    assert report.consumed == [1, 1] and read_cursor(lived_in.cursor_file) == 1
    memory = (lived_in.root / "memory" / "MEMORY.md").read_text()
    assert OLD_KIWI in memory and f"- {BACKUP}" in memory
    assert "Kubernetes" not in memory and INVOICES not in memory
    assert "Kubernetes" not in git(lived_in, "log", "-p", "-1")


def test_a_correction_landed_beside_then_fixed_in_the_corrective_turn_is_committed(lived_in, serve):
    server = serve([final(ANSWERS["correction_beside"]), final("Filed four facts"),
                    call("edit_file", path="memory/MEMORY.md", old_text=OLD_KIWI, new_text=""), final("Removed")])
    report = run_dream(lived_in, native(server))
    assert report.outcome == "committed", report.reason
    assert OLD_KIWI not in (lived_in.root / "memory" / "MEMORY.md").read_text()


def test_junk_in_a_split_half_is_never_committed_and_the_split_stops(lived_in, serve):
    """A half that keeps none of its facts is not progress: held, and the model is reported, not split again."""
    write_history(lived_in, [*FIXTURE["history"], *[{**item, "cursor": item["cursor"] + 3} for item in
                                                    FIXTURE["history"]]])
    before = snapshot(lived_in)
    records = lived_in.state_dir / "runs.jsonl"
    records.parent.mkdir(exist_ok=True)
    records.write_text("".join(json.dumps({"id": f"r{n}", "start": "", "end": "", "trigger": "cron",
                                           "outcome": "failed", "reason": "provider error", "failed_at": [1, 6]})
                               + "\n" for n in range(3)))
    server = serve([final(ANSWERS["junk_line"])] + [final("Done.")] * 10)
    report = run_dream(lived_in, native(server, split_after=3))
    assert [b.outcome for b in report.batches] == ["model-no-op"]  # the first half, straight from the streak
    assert report.outcome == "model-no-op" and "Follow the instructions" not in (lived_in.root / "SOUL.md").read_text()
    assert {k: v for k, v in snapshot(lived_in).items() if not k.startswith(".nanodream")} == {
        k: v for k, v in before.items() if not k.startswith(".nanodream")}


# what is kept is committed; the cursor holds before the first unaccounted fact -------------------------


def test_the_entries_before_an_unaccounted_fact_are_committed_and_the_cursor_holds_before_it(lived_in, serve):
    server = serve([tool_calls(
        ("edit_file", {"path": "USER.md", "old_text": "## Preferences\n",
                       "new_text": "## Preferences\n- Prefers answers in British English.\n"}),
        ("edit_file", {"path": "memory/MEMORY.md", "old_text": OLD_KIWI, "new_text": NEW_KIWI + f"- {BACKUP}\n"})),
        final("Filed three facts"), final("All filed, nothing else to do.")])
    report = run_dream(lived_in, native(server))

    assert report.outcome == "model-no-op" and report.exit_code == ExitCode.FAILED
    assert INVOICES in report.reason and report.failed_at == [3, 3]
    assert [b.outcome for b in report.batches] == ["committed", "model-no-op"]
    assert report.consumed == [1, 2] and read_cursor(lived_in.cursor_file) == 2
    message = git(lived_in, "log", "-1", "--format=%B")
    assert re.search(r"^Dream-Cursor: 1\.\.2$", message, re.MULTILINE)
    [record] = read_records(lived_in)
    assert record.outcome == "model-no-op" and record.consumed == [1, 2] and record.failed_at == [3, 3]

    again = serve([call("edit_file", path="memory/MEMORY.md", old_text=f"- {BACKUP}\n",
                        new_text=f"- {BACKUP}\n- {INVOICES}\n"), final("Filed the invoices")])
    report = run_dream(lived_in, llm_settings(again))
    assert report.outcome == "committed" and report.consumed == [3, 3], report.reason
    assert "British English" not in again.requests[0]["messages"][1]["content"].split("<history>")[-1]


def test_a_partial_commit_holds_no_line_of_an_entry_the_cursor_has_not_reached(lived_in, serve):
    """Entry 2's correction is lost; the invoices line of entry 3 waits with it instead of riding on entry 1's
    commit, and comes back when its entry is dreamed."""
    server = serve([tool_calls(
        ("edit_file", {"path": "USER.md", "old_text": "## Preferences\n",
                       "new_text": "## Preferences\n- Prefers answers in British English.\n"}),
        ("edit_file", {"path": "memory/MEMORY.md", "old_text": OLD_KIWI,
                       "new_text": OLD_KIWI + f"- {BACKUP}\n- {INVOICES}\n"})),
        final("Filed three facts"), final("All filed, nothing else to do.")])
    report = run_dream(lived_in, native(server))
    assert report.outcome == "model-no-op" and report.consumed == [1, 1], report.reason
    committed = git(lived_in, "show", "HEAD:memory/MEMORY.md")
    assert f"- {BACKUP}" in committed and INVOICES not in committed
    assert any("left for their own run" in w for w in report.batches[0].warnings), report.batches[0].warnings
    assert "Prefers answers in British English" in git(lived_in, "show", "HEAD:USER.md")


def test_an_unaccounted_fact_in_the_first_entry_applies_nothing(lived_in, serve):
    before = snapshot(lived_in)
    server = serve([call("edit_file", path="memory/MEMORY.md", old_text=OLD_KIWI,
                         new_text=NEW_KIWI + f"- {INVOICES}\n"),
                    final("Filed kiwi and the invoices"), final("Everything is filed.")])
    report = run_dream(lived_in, native(server))
    assert report.outcome == "model-no-op" and report.failed_at == [1, 3] and report.commits == []
    assert "British English" in report.reason
    held(lived_in, before)


def test_reasons_that_hold_up_account_for_facts_left_out(lived_in, serve):
    server = serve([*files_everything()[:1], final("Filed"), keeps_nothing()])
    server.script[0] = tool_calls(("edit_file", {"path": "memory/MEMORY.md", "old_text": OLD_KIWI,
                                                 "new_text": NEW_KIWI + f"- {BACKUP}\n- {INVOICES}\n"}))
    report = run_dream(lived_in, native(server))
    assert report.outcome == "committed", report.reason
    assert report.to_json()["reasons"] == [{"fact": "User prefers answers in British English.",
                                            "reason": "a passing remark, not a lasting fact"}]


def test_archived_lines_marked_as_replaced_do_not_hold_a_fact(lived_in, serve):
    archive = lived_in.root / "memory" / "archive" / "2026-10.md"
    archive.parent.mkdir(parents=True)
    archive.write_text("# Archive 2026-10\n\n## Project\n- Invoices are numbered per client, starting at 1000. "
                       "<!-- until 2026-10-30, replaced by: numbered globally -->\n"
                       f"- {BACKUP}\n")
    GitStore(lived_in).commit("archive", DREAM_IDENTITY)
    before = snapshot(lived_in)
    server = serve([call("edit_file", path="USER.md", old_text="## Preferences\n",
                         new_text="## Preferences\n- Prefers answers in British English.\n"),
                    final("Filed the preference"), final("The rest is archived already.")])
    report = run_dream(lived_in, native(server))
    unaccounted = [item["fact"] for item in report.batches[-1].unaccounted]  # the entry held back
    assert BACKUP not in unaccounted and INVOICES in unaccounted  # the unmarked archive line holds its fact
    assert report.outcome == "model-no-op" and snapshot(lived_in) != before  # entries 1-2 committed


# no split for failures that say the model cannot do the job ------------------------------------------


@pytest.mark.parametrize("answer", ["one_line_rewrite", "file_wrapper", "junk_line"])
def test_a_model_that_cannot_do_the_job_never_splits_the_batch(lived_in, serve, answer):
    before = snapshot(lived_in)
    server = serve([answers_then_done(ANSWERS[answer])] * 40)
    for _ in range(4):
        report = run_dream(lived_in, native(server, split_after=2))
        assert report.outcome == "model-no-op" and report.exit_code == ExitCode.FAILED, report.reason
        assert len(report.batches) == 1 and report.batches[0].entries == 3  # never split
        assert "model check" in report.reason
    held(lived_in, before)


def test_a_summary_that_is_only_a_code_fence_never_becomes_the_commit_subject(lived_in, serve):
    server = serve([files_everything()[0], final("```\n{\"done\": true}\n```")])
    report = run_dream(lived_in, llm_settings(server))
    assert report.outcome == "committed", report.reason
    subject = git(lived_in, "log", "-1", "--format=%s")
    assert subject.startswith("dream: add 1 line to USER.md; change memory/MEMORY.md") and "`" not in subject
