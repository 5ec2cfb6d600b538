"""A model's summary is checked like its lines: one naming a value memory does not hold (a day, a number, a name the
diff does not show) is replaced by the change summary computed from the diff, and the commit's body says why.

Seen live (issue 48): "corrects the retraining time to Monday" while the line the model wrote says Thursday.
"""

from __future__ import annotations

import pytest

from nanodream.changes import FileChange
from nanodream.run.dream import run_dream
from nanodream.run.summaries import unfounded, values
from nanodream.versioning.gitstore import DREAM_IDENTITY, GitStore
from tests.support.scripted_server import call, final, tool_calls
from tests.support.workspaces import entry, git, llm_settings, write_history

OLD = "- The churn model is retrained every Tuesday at 06:00 on host oak."
NEW = "- The churn model is retrained every Thursday at 06:00 on host oak."
MEMORY = f"# Memory\n\n## Project\n{OLD}\n- Staging runs on a Hetzner CX22 in Falkenstein.\n"


def moved(before: str, after: str) -> list[FileChange]:
    return [FileChange("memory/MEMORY.md", before, after)]


# which words are values --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("summary", "named"), [
    ("Corrects the retraining time to Monday.", ["Monday"]),
    ("The club now has 57 members, not 42.", ["57", "42"]),
    ("Staging moved from the CX22 in Falkenstein to the CX32 in Nuremberg at 02:00.",
     ["CX22", "Falkenstein", "CX32", "Nuremberg", "02:00"]),
    ("Recorded Maya's move to Lisbon in March.", ["Maya", "Lisbon", "March"]),
    ("1. Added the time zone\n2) Replaced the staging host", []),  # list numbers are no values
    ("Filed 3 new facts, fact 4 and entries 5..6; 2 of 3 corrections replaced their line.", []),  # counts
    ("Updated USER.md and memory/MEMORY.md. User prefers short answers.", []),  # file names, sentence starts
    ("Kept the NAS host; its pw is (redacted Password), left out.", ["NAS"]),  # a redaction names a rule
    ("Filed\x1b[2J\x1b[31m\x1b]0;owned\x07 the API\x9b2J", ["API"]),  # a terminal's escapes are no values
])
def test_the_values_a_summary_names(summary, named):
    assert values(summary) == named


def test_a_summary_naming_only_what_memory_or_the_diff_holds_stands():
    after = MEMORY.replace(OLD, NEW)
    summary = "Moved the churn retraining from Tuesday to Thursday, still at 06:00 on oak."
    assert unfounded(summary, moved(MEMORY, after), [after]) == ""  # Tuesday: the removed line, the diff shows it


@pytest.mark.parametrize(("summary", "value"), [
    ("Corrects the retraining time to Monday.", "Monday"),  # a day no line says
    ("The churn model is now retrained at 07:30.", "07:30"),  # a number no line says
    ("Retraining now runs on host Birch.", "Birch"),  # a name the diff does not show
])
def test_a_summary_naming_a_value_memory_does_not_hold_is_unfounded(summary, value):
    after = MEMORY.replace(OLD, NEW)
    note = unfounded(summary, moved(MEMORY, after), [after])
    assert note == f"the session's summary names {value}, which memory does not hold"


def test_numbers_are_compared_as_numbers_and_a_note_names_at_most_three():
    after = MEMORY.replace(OLD, NEW)
    assert unfounded("Retraining stays at 6:00 on Thursday.", moved(MEMORY, after), [after]) == ""
    note = unfounded("Added Anna, Bert, Carl and Dora to the team.", [], [after])
    assert note == "the session's summary names Anna, Bert, Carl and 1 more, which memory does not hold"


# end to end: the commit ---------------------------------------------------------------------------------------


@pytest.fixture
def oak(workspace):
    (workspace.root / "memory" / "MEMORY.md").write_text(MEMORY)
    GitStore(workspace).commit("seed", DREAM_IDENTITY)
    write_history(workspace, [entry(1, "[correction] The churn model is now retrained every Thursday at 06:00, "
                                       "not Tuesday.")])
    return workspace


def corrected(summary: str) -> list:
    return [tool_calls(("edit_file", {"path": "memory/MEMORY.md", "old_text": OLD, "new_text": NEW}),
                       ("finish", {"summary": summary}))]


def test_a_model_summary_naming_a_day_memory_does_not_hold_is_replaced_by_the_change_summary(oak, serve):
    server = serve(corrected("Corrects the retraining time to Monday."))
    report = run_dream(oak, llm_settings(server))
    assert report.outcome == "committed", report.reason
    message = git(oak, "log", "-1", "--format=%B")
    subject = message.splitlines()[0]
    assert subject.startswith("dream: change memory/MEMORY.md (+1 -1)") and "Monday" not in subject
    assert "the session's summary names Monday, which memory does not hold: the subject is the change summary " \
           "instead" in message
    assert "Corrects the retraining time" not in message  # the model's words are not kept as the dream's account
    assert report.batches[0].summary == ""
    assert any("names Monday" in note for note in report.unconfirmed)


def test_a_model_summary_naming_what_it_did_is_the_subject(oak, serve):
    server = serve(corrected("Moved the churn model's retraining from Tuesday to Thursday"))
    report = run_dream(oak, llm_settings(server))
    assert report.outcome == "committed", report.reason
    assert git(oak, "log", "-1", "--format=%s") == "dream: Moved the churn model's retraining from Tuesday to Thursday"
    assert not report.unconfirmed


def test_a_model_that_works_one_call_per_turn_is_checked_the_same(oak, serve):
    server = serve([call("edit_file", path="memory/MEMORY.md", old_text=OLD, new_text=NEW),
                    final("Set retraining to Friday 06:00.")])
    report = run_dream(oak, llm_settings(server))
    assert report.outcome == "committed", report.reason
    message = git(oak, "log", "-1", "--format=%B")
    assert message.startswith("dream: change memory/MEMORY.md") and "names Friday" in message


def test_the_built_in_engines_summary_is_its_own_account_and_not_checked(oak):
    from nanodream.config import Settings

    report = run_dream(oak, Settings(model="builtin", phases=()))
    assert report.outcome == "committed", report.reason
    assert not any("summary names" in note for note in report.unconfirmed)
