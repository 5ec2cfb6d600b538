"""The turn store's own rules: its line format, segments, an append repeated after a crash, bounds, forgetting."""

from __future__ import annotations

import json

from nanodream.backlog import turns
from nanodream.backlog.turns import Append, Turn


def said(number: int, session: str = "openai:web-42", text: str = "") -> Turn:
    return Turn(f"k{number}", number, session, "2026-10-11", "21:14", "user", "", text or f"message {number}")


def payload(*numbers: int) -> bytes:
    return "".join(said(n).line() for n in numbers).encode("utf-8")


def stored(workspace) -> list[Turn]:
    return [found.turn for path in turns.segments(workspace) for found in turns.read_segment(path)]


def test_a_turn_reads_back_as_written_and_anything_else_is_passed_over(workspace):
    folder = turns.turns_dir(workspace)
    folder.mkdir(parents=True)
    bad = [b"not json\n", b'{"key": "x"}\n', json.dumps({**said(9).__dict__, "cursor": "9"}).encode() + b"\n"]
    (folder / "000001.jsonl").write_bytes(payload(1) + b"".join(bad) + payload(2) + b'{"key": "torn')
    found = list(turns.read_segment(folder / "000001.jsonl"))
    assert [f.turn for f in found] == [said(1), said(2)] and [f.line for f in found] == [1, 5]
    assert turns.turn_at(folder / "000001.jsonl", found[1].offset) == said(2)
    assert turns.turn_at(folder / "000001.jsonl", 3) is None  # not where a line starts


def test_a_named_speaker_is_shown_in_front_and_a_long_text_is_cut_and_said_so():
    caroline = Turn("k", 1, "openai:locomo-1", "2023-05-08", "13:56", "user", "Caroline", "I went camping.")
    assert caroline.shown == "Caroline: I went camping." and caroline.said == "said on 2023-05-08 in openai:locomo-1"
    long = "word " * 5000
    kept = turns.kept_text(long)
    assert len(kept) < turns.TEXT_CHARS + 50 and kept.endswith(f"[…{len(long) - turns.TEXT_CHARS} characters not kept]")
    assert turns.kept_text("short") == "short"


def test_appends_go_to_the_open_segment_until_it_is_full(workspace, monkeypatch):
    assert turns.plan_append(workspace) == Append("000001.jsonl", 0)
    turns.settle(workspace, Append("000001.jsonl", 0), payload(1))
    assert turns.plan_append(workspace) == Append("000001.jsonl", len(payload(1)))
    monkeypatch.setattr(turns, "SEGMENT_BYTES", len(payload(1)))
    assert turns.plan_append(workspace) == Append("000002.jsonl", 0)


def test_settling_again_after_a_crash_leaves_the_turns_once_and_whole(workspace):
    where = Append("000001.jsonl", 0)
    turns.settle(workspace, where, payload(1))
    later = Append("000001.jsonl", len(payload(1)))
    path = turns.turns_dir(workspace) / "000001.jsonl"
    with path.open("ab") as handle:
        handle.write(payload(2, 3)[:30])  # the first attempt died mid-write
    turns.settle(workspace, later, payload(2, 3))
    turns.settle(workspace, later, payload(2, 3))  # and a recovery repeats it
    assert stored(workspace) == [said(1), said(2), said(3)]
    assert path.read_bytes() == payload(1, 2, 3)


def test_undo_cuts_back_an_interrupted_pass_and_nothing_else(workspace):
    turns.settle(workspace, Append("000001.jsonl", 0), payload(1, 2))
    turns.undo(workspace, Append("000001.jsonl", len(payload(1))))
    turns.undo(workspace, Append("000009.jsonl", 0))  # a segment never written: nothing to do
    assert stored(workspace) == [said(1)]


def test_the_store_keeps_its_newest_segments_within_its_bound(workspace):
    for number in (1, 2, 3):
        turns.settle(workspace, Append(f"00000{number}.jsonl", 0), payload(number))
    assert turns.keep_newest(workspace, 10**6) == turns.Dropped()
    dropped = turns.keep_newest(workspace, len(payload(3)) * 2)
    assert dropped == turns.Dropped(1, "2026-10-11") and stored(workspace) == [said(2), said(3)]
    assert turns.keep_newest(workspace, 0).turns == 2 and turns.segments(workspace) == []


def test_removing_a_sessions_turns_rewrites_only_their_segments(workspace):
    turns.settle(workspace, Append("000001.jsonl", 0), payload(1, 2))
    other = said(3, session="telegram:7").line().encode()
    turns.settle(workspace, Append("000002.jsonl", 0), other)
    untouched = (turns.turns_dir(workspace) / "000002.jsonl").stat().st_ino
    assert turns.remove(workspace, lambda turn: turn.cursor == 2, dry_run=True) == 1
    assert len(stored(workspace)) == 3
    assert turns.remove(workspace, lambda turn: turn.session == "openai:web-42") == 2
    assert [turn.cursor for turn in stored(workspace)] == [3]
    assert (turns.turns_dir(workspace) / "000002.jsonl").stat().st_ino == untouched


def test_a_linked_turns_folder_or_segment_is_never_read(workspace, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "000001.jsonl").write_bytes(payload(1))
    turns.turns_dir(workspace).parent.mkdir(parents=True, exist_ok=True)
    turns.turns_dir(workspace).symlink_to(elsewhere)
    assert turns.segments(workspace) == []
    turns.turns_dir(workspace).unlink()
    turns.turns_dir(workspace).mkdir()
    (turns.turns_dir(workspace) / "000001.jsonl").symlink_to(elsewhere / "000001.jsonl")
    assert turns.segments(workspace) == []
