"""The kept backlog survey: what a run and `status` find after the position, reading only what changed since."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nanodream.backlog import surveyed
from nanodream.backlog.history import HistoryEntry, Position, read_from, survey
from nanodream.backlog.surveyed import state_file, survey_of
from nanodream.config import Settings
from nanodream.status import workspace_status
from nanodream.workspace import Workspace, scaffold
from tests.support.memory_engine import append_history
from tests.support.workspaces import entry


def same(found, expected) -> bool:
    return ((found.pending, found.tokens, found.last_cursor, found.anomalies, found.dead_letters, found.waiting)
            == (expected.pending, expected.tokens, expected.last_cursor, expected.anomalies, expected.dead_letters,
                expected.waiting))


def starts_read(monkeypatch) -> list[int]:
    """Where the kept survey starts reading whole lines, from now on."""
    starts: list[int] = []
    original = surveyed.raw_lines
    monkeypatch.setattr(surveyed, "raw_lines", lambda handle, offset=0, line=0: starts.append(offset) or original(
        handle, offset, line))
    return starts


def after(workspace: Workspace, cursor: int) -> Position:
    found = next(item for item in read_from(workspace.history_file)
                 if isinstance(item, HistoryEntry) and item.cursor == cursor)
    return Position(found.end, found.line, found.cursor)


def test_a_second_survey_reads_only_what_was_appended(workspace, monkeypatch):
    append_history(workspace, *(entry(n, f"[durable] fact {n}") for n in range(1, 50)), "not json")
    first = survey_of(workspace, Position(), 1000, keep=True)
    assert same(first, survey(workspace.history_file, Position(), 1000)) and first.pending == 49
    size = workspace.history_file.stat().st_size
    starts = starts_read(monkeypatch)
    append_history(workspace, entry(60, "[durable] fact 60"))
    second = survey_of(workspace, Position(), 1000, keep=True)
    assert starts == [size] and second.pending == 50 and second.last_cursor == 60
    assert same(second, survey(workspace.history_file, Position(), 1000))  # the dead letter too, its text read again


def test_what_a_run_consumed_is_taken_out_and_the_first_entry_after_is_counted_against_the_position(workspace):
    append_history(workspace, *(entry(n, f"[durable] fact {n}") for n in (1, 2, 3, 3, 9, 4)), "{broken")
    survey_of(workspace, Position(), 2, keep=True)
    for cursor in (1, 3, 9, 4):
        position = after(workspace, cursor)
        assert same(survey_of(workspace, position, 2, keep=True), survey(workspace.history_file, position, 2))
    kept = json.loads(state_file(workspace).read_text())
    assert kept["base"]["offset"] == after(workspace, 4).offset and kept["pending"] == 0


def test_a_rotated_file_a_position_moved_back_or_another_jump_limit_survey_afresh(workspace):
    append_history(workspace, *(entry(n, f"[durable] fact {n}") for n in range(1, 10)))
    survey_of(workspace, after(workspace, 5), 1000, keep=True)
    assert same(survey_of(workspace, Position(), 1000, keep=True), survey(workspace.history_file, Position(), 1000))
    assert same(survey_of(workspace, Position(), 1, keep=True), survey(workspace.history_file, Position(), 1))
    workspace.history_file.write_text(json.dumps(entry(1, "[durable] a new file")) + "\n")
    assert survey_of(workspace, Position(), 1, keep=True).pending == 1


def test_status_reads_the_kept_survey_and_writes_none(workspace):
    append_history(workspace, *(entry(n, f"[durable] fact {n}") for n in range(1, 5)))
    status = workspace_status(workspace, Settings())
    assert status.pending_entries == 4 and not state_file(workspace).exists()
    survey_of(workspace, Position(), Settings().max_cursor_jump, keep=True)
    before = state_file(workspace).read_bytes()
    append_history(workspace, entry(5, "[durable] fact 5"))
    assert workspace_status(workspace, Settings()).pending_entries == 5
    assert state_file(workspace).read_bytes() == before


LINES = st.one_of(
    st.builds(lambda c, text: json.dumps({"cursor": c, "timestamp": "2026-10-01 10:00", "content": text}),
              st.integers(1, 40), st.sampled_from(["", "[durable] a", "x" * 30, "[for a model: es]\n> hola"])),
    st.sampled_from(["not json", "", '{"cursor": "7"}', "   "]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_whatever_is_appended_consumed_or_written_half_the_kept_survey_agrees_with_a_full_one(tmp_path_factory, data):
    workspace = Workspace.at(tmp_path_factory.mktemp("ws"))
    scaffold(workspace.root)
    workspace.history_file.write_text("")
    position, jump = Position(), 3
    for _ in range(data.draw(st.integers(1, 8))):
        step = data.draw(st.sampled_from(["append", "append", "half", "finish", "consume", "jump"]))
        if step in ("append", "half"):
            lines = data.draw(st.lists(LINES, max_size=6))
            with workspace.history_file.open("a") as handle:
                handle.write("".join(line + "\n" for line in lines) + (data.draw(LINES) if step == "half" else ""))
        elif step == "finish":
            with workspace.history_file.open("a") as handle:
                handle.write("\n")
        elif step == "consume":
            entries = [e for e in read_from(workspace.history_file, position.offset, position.line)
                       if isinstance(e, HistoryEntry)]
            if entries:
                chosen = data.draw(st.sampled_from(entries))
                position = Position(chosen.end, chosen.line, chosen.cursor)
        else:
            jump = data.draw(st.sampled_from([1, 3, 1000]))
        found = survey_of(workspace, position, jump, keep=data.draw(st.booleans()))
        assert same(found, survey(workspace.history_file, position, jump))


def test_a_position_inside_a_line_the_host_finished_later_is_surveyed_as_the_reader_reads_it(workspace):
    first, second = json.dumps(entry(1, "[durable] one")), json.dumps(entry(2, "[durable] two"))
    workspace.history_file.write_text(f"{first}\n{second}")  # the host is still writing line 2
    assert survey_of(workspace, Position(), 1000, keep=True).pending == 2
    position = after(workspace, 2)  # consumed as it was; then the host goes on writing on the same line
    with workspace.history_file.open("a") as handle:
        handle.write(json.dumps(entry(3, "[durable] three")) + "\n")
    found = survey_of(workspace, position, 1000, keep=True)
    assert same(found, survey(workspace.history_file, position, 1000)) and found.pending == 1
