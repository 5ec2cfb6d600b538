"""The backlog reader: tolerant of bad lines, bisects to the cursor, cuts batches by token budget."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from nanodream import boundedjson
from nanodream.backlog.history import (
    BatchLimits,
    DeadLetter,
    drop_skip_lines,
    iter_after,
    next_batch,
    parse_line,
    read_cursor,
    read_from,
    survey,
    tagged_lines,
    write_cursor,
)
from nanodream.backlog.position import Position
from tests.support.workspaces import entry, write_history


def after(batch) -> Position:
    return Position(batch.end_offset, batch.last_line, batch.last_cursor)


def test_parse_line_accepts_nanobot_entries_and_rejects_wrong_types():
    good = parse_line(json.dumps({"cursor": 3, "timestamp": "2026-10-01 10:00", "content": "x", "session_key": "a"}))
    assert good is not None and good.cursor == 3 and good.session_key == "a"
    assert parse_line(json.dumps({"cursor": 3, "timestamp": "t", "content": "x"})).session_key is None
    for bad in ('{"cursor": "3", "timestamp": "t", "content": "x"}', '{"cursor": 0, "timestamp": "t", "content": "x"}',
                '{"cursor": true, "timestamp": "t", "content": "x"}', '{"cursor": 1, "timestamp": 5, "content": "x"}',
                '{"cursor": 1, "timestamp": "t", "content": ["x"]}',
                '{"cursor": 1, "timestamp": "t", "content": "x", "session_key": 7}',
                "[1, 2]", "not json", '{"cursor": 4, "timestamp": "2026-10-0', b"\xff\xfe"):
        assert parse_line(bad) is None, bad


def test_malformed_lines_are_dead_letters_by_line_number_never_fatal(workspace):
    write_history(workspace, [entry(1, "[durable] a"), '{"cursor": 2, "timest', "", "[]", entry(3, "[durable] b")])
    items = list(read_from(workspace.history_file))
    assert [(i.line, type(i).__name__) for i in items] == [
        (1, "HistoryEntry"), (2, "DeadLetter"), (4, "DeadLetter"), (5, "HistoryEntry")]
    assert [d.describe() for d in survey(workspace.history_file, Position(), 1000).dead_letters] == [
        "history.jsonl line 2: not valid JSON", "history.jsonl line 4: not a JSON object"]
    assert items[1] == DeadLetter(2, items[1].offset, '{"cursor": 2, "timest', "not valid JSON")
    batch = next_batch(workspace.history_file, Position(), 10_000)
    assert [(e.line, e.cursor) for e in batch.entries] == [(1, 1), (5, 3)]


def test_an_unterminated_last_line_that_does_not_parse_yet_is_left_for_later(workspace):
    write_history(workspace, [entry(1, "[durable] a")])
    with workspace.history_file.open("a") as handle:
        handle.write('{"cursor": 2, "timestamp": "2026-10-01 10:02", "cont')  # the host is mid-write
    assert [type(i).__name__ for i in read_from(workspace.history_file)] == ["HistoryEntry"]
    with workspace.history_file.open("a") as handle:
        handle.write('ent": "[durable] b"}\n')
    assert [i.cursor for i in read_from(workspace.history_file)] == [1, 2]


def test_reading_after_the_cursor_matches_a_linear_scan_with_gaps_and_bad_lines(workspace):
    lines: list = []
    for cursor in range(1, 400, 3):
        lines.append(entry(cursor, f"[durable] fact {cursor} " + "y" * (cursor % 17)))
        if cursor % 50 == 1:
            lines.append("garbage line {")
    write_history(workspace, lines)
    cursors = [e["cursor"] for e in lines if isinstance(e, dict)]
    for start in (0, 1, 2, 3, 4, 150, 151, 396, 397, 398, 1000):
        expected = [c for c in cursors if c > start]
        assert [e.cursor for e in iter_after(workspace.history_file, start)] == expected, start


def test_skip_lines_are_dropped_before_the_model_and_counted(workspace):
    write_history(workspace, [entry(1, "[permanent] keep me\n[skip] hello there\n - [SKIP] bye")])
    batch = next_batch(workspace.history_file, Position(), 10_000)
    assert batch.entries[0].content == "[permanent] keep me"
    assert batch.skipped_lines == 2
    assert drop_skip_lines("[skip] only chatter") == ("", 1)


def test_tags_are_recognised_case_insensitively_and_untagged_text_is_kept():
    assert tagged_lines("[Correction] X is Y\nraw summary line\n\n- [durable] Z") == [
        ("correction", "X is Y"), (None, "raw summary line"), ("durable", "Z")]


def test_batches_are_cut_by_tokens_and_an_oversized_entry_goes_alone(workspace):
    write_history(workspace, [entry(1, "a" * 40), entry(2, "b" * 4000), entry(3, "c" * 40), entry(4, "d" * 40)])
    first = next_batch(workspace.history_file, Position(), 100)
    assert [e.cursor for e in first.entries] == [1] and first.more_after
    second = next_batch(workspace.history_file, after(first), 100)
    assert [e.cursor for e in second.entries] == [2]  # larger than the budget, processed alone
    third = next_batch(workspace.history_file, after(second), 100)
    assert [e.cursor for e in third.entries] == [3, 4] and not third.more_after
    assert next_batch(workspace.history_file, after(third), 100) is None


def test_a_batch_holds_at_most_max_entries_when_asked(workspace):
    write_history(workspace, [entry(n, "x" * 10) for n in range(1, 6)])
    first = next_batch(workspace.history_file, Position(), 1000, limits=BatchLimits(max_entries=2))
    assert [e.cursor for e in first.entries] == [1, 2] and first.more_after
    assert [e.cursor for e in next_batch(workspace.history_file, after(first), 1000).entries] == [3, 4, 5]


def test_missing_history_means_an_empty_backlog(workspace):
    workspace.history_file.unlink()
    assert next_batch(workspace.history_file, Position(), 100) is None
    assert survey(workspace.history_file, Position(), 1000).pending == 0


def test_cursor_file_missing_or_unreadable_means_zero(workspace):
    assert read_cursor(workspace.cursor_file) == 0
    workspace.cursor_file.write_text("not a number")
    assert read_cursor(workspace.cursor_file) == 0
    write_cursor(workspace.cursor_file, 42)
    assert workspace.cursor_file.read_text() == "42\n" and read_cursor(workspace.cursor_file) == 42


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(value=_JSON_VALUES, before=st.sampled_from(["", " ", "\t", "\ufeff", "\x0b", "x"]),
       after=st.sampled_from(["", "\n", "\r\n", " \t", "\x0c", "}", " 1"]), raw=st.binary(max_size=40))
def test_line_decoding_accepts_exactly_what_json_loads_accepts(value, before, after, raw):
    """The bounded reader (history's fast decoder) must keep json.loads' verdict on every UTF-8 line, good or bad.

    (json.loads would also sniff UTF-16/32 from the bytes; history.jsonl is UTF-8, so those are not compared.)
    """
    lines = [(before + json.dumps(value, ensure_ascii=False) + after).encode("utf-8")]
    if json.detect_encoding(raw).startswith("utf-8"):
        lines.append(raw)
    for line in lines:
        try:
            expected = ("ok", json.loads(line))
        except (ValueError, UnicodeDecodeError):
            expected = ("error", None)
        try:
            got = ("ok", boundedjson.loads(line, max_bytes=boundedjson.LINE_BYTES))
        except (ValueError, UnicodeDecodeError):
            got = ("error", None)
        assert got == expected, line


def test_cursor_resets_repeats_and_jumps_are_read_in_file_order_and_reported(workspace):
    write_history(workspace, [entry(8, "[durable] a"), entry(9, "[durable] b"), entry(1, "[durable] c"),
                              entry(1, "[durable] d"), entry(5000, "[durable] e")])
    found = survey(workspace.history_file, Position(), max_jump=1000)
    assert found.pending == 5
    assert [a.message for a in found.anomalies] == [
        "history.jsonl line 3: cursor 1 goes back from 9 (the host's counter restarted?); read in file order, "
        "nothing skipped",
        "history.jsonl line 4: cursor 1 repeats the line before; read in file order, nothing skipped",
        "history.jsonl line 5: cursor jumps from 1 to 5000; read in file order, nothing skipped",
    ]
    batch = next_batch(workspace.history_file, Position(), 10_000)
    assert [e.content for e in batch.entries] == ["[durable] a", "[durable] b", "[durable] c", "[durable] d",
                                                  "[durable] e"]


@settings(max_examples=200, deadline=None)
@given(chunks=st.lists(st.lists(st.one_of(st.integers(min_value=1, max_value=40), st.none()), max_size=8),
                       min_size=1, max_size=5),
       budget=st.integers(min_value=1, max_value=60))
def test_every_appended_line_is_consumed_exactly_once_or_reported(tmp_path_factory, chunks, budget):
    """Whatever cursors the host writes (resets, repeats, jumps) and however it appends, nothing is skipped."""
    path = tmp_path_factory.mktemp("history") / "history.jsonl"
    path.touch()
    position, consumed, reported = Position(), [], set()
    entry_lines, bad_lines, line = [], [], 0
    for chunk in chunks:
        with path.open("a") as handle:
            for cursor in chunk:
                line += 1
                if cursor is None:
                    handle.write(f"not json {line}\n")
                    bad_lines.append(line)
                else:
                    handle.write(json.dumps(entry(cursor, f"fact from line {line}")) + "\n")
                    entry_lines.append(line)
        reported |= {letter.line for letter in survey(path, position, 1000).dead_letters}
        while (batch := next_batch(path, position, budget)) is not None:
            consumed += [e.line for e in batch.entries]
            assert all(e.content == f"fact from line {e.line}" for e in batch.entries)
            position = after(batch)
    assert consumed == entry_lines
    assert reported == set(bad_lines)
