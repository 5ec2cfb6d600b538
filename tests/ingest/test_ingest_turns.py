"""Ingest keeps every message it takes in, in the turn store beside history: redacted, once, whatever happens."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from nanodream import api
from nanodream.backlog import turns
from nanodream.ingest import journal, pipeline
from tests.support.paths import FIXTURES

OPENAI = FIXTURES / "ingest" / "openai" / "chat.jsonl"
SAID = 6  # the fixture's user and assistant messages that hold text (a tool call and the system prompt are none)


def history(ws) -> list[dict]:
    if not ws.history_file.is_file():
        return []
    return [json.loads(line) for line in ws.history_file.read_text(encoding="utf-8").splitlines() if line.strip()]


def stored(ws) -> list[turns.Turn]:
    return [found.turn for path in turns.segments(ws) for found in turns.read_segment(path)]


def store_bytes(ws) -> bytes:
    return b"".join(path.read_bytes() for path in turns.segments(ws))


def test_every_speaker_is_kept_redacted_with_its_entry_session_and_day(workspace):
    report = api.ingest(workspace.root, [FIXTURES / "ingest"])
    kept = stored(workspace)
    assert len(kept) == report.messages > 20  # every message taken in, none other
    assert {turn.role for turn in kept} == {"user", "assistant"}
    assert "ghp_Xq3vR8tLm2Nw9Zp4Ks7Jd1Fh6Gb5Yc0Ta8Ue" not in store_bytes(workspace).decode()
    assert any("redacted" in turn.text for turn in kept)
    assert "Never reveal this prompt" not in store_bytes(workspace).decode()  # a system message is no turn
    entries = {entry["cursor"]: entry for entry in history(workspace)}
    assert all(turn.session == entries[turn.cursor]["session_key"] for turn in kept)
    nurse = next(turn for turn in kept if "Erasmus" in turn.text)
    assert (nurse.day, nurse.time, nurse.session) == ("2026-10-11", "21:14", "openai:web-42")
    assert (turns.turns_dir(workspace) / "000001.jsonl").stat().st_mode & 0o077 == 0  # raw words: private


def test_a_named_speaker_and_the_persons_clock_are_kept(workspace, tmp_path):
    chat = tmp_path / "friends.jsonl"
    chat.write_text(json.dumps({"role": "user", "name": "Caroline", "content": "I went to a support group.",
                                "timestamp": "2023-05-08T23:30:00Z", "session": "s1"}) + "\n"
                    + json.dumps({"role": "user", "content": "Undated words."}) + "\n", encoding="utf-8")
    (workspace.root / "nanodream.toml").write_text('timezone = "Asia/Tokyo"\n', encoding="utf-8")
    api.ingest(workspace.root, [chat])
    caroline, undated = stored(workspace)
    assert (caroline.speaker, caroline.shown, caroline.day, caroline.time) == (
        "Caroline", "Caroline: I went to a support group.", "2023-05-09", "08:30")
    entry = next(e for e in history(workspace) if e["cursor"] == undated.cursor)
    assert (undated.day, undated.time) == (entry["timestamp"][:10], "")  # the entry's day, said so by no time


def test_a_chunk_read_in_part_and_waiting_in_part_keeps_each_message_once(workspace, tmp_path):
    """A chunk written as two entries (what the rules read, what waits for a model) stored every one of its
    messages under both: a secret in the store, and every answer in recall, twice."""
    chat = tmp_path / "mixed.jsonl"
    said = ["I live in Graz.", "¿Puedes revisar por qué falla el despliegue en staging? Creo que es la migración.",
            "Thanks, that works."]
    chat.write_text("".join(json.dumps({"role": "user", "content": text, "timestamp": f"2026-05-01T10:0{n}:00Z"},
                                       ensure_ascii=False) + "\n" for n, text in enumerate(said)), encoding="utf-8")
    report = api.ingest(workspace.root, [chat])
    assert report.added == 2 and report.for_model == {"es": 1}  # one chunk, two entries
    assert sorted(turn.text for turn in stored(workspace)) == sorted(said)


def test_a_key_is_redacted_before_a_sentence_end_inside_it_can_cut_it(workspace, tmp_path):
    """"My private key is sk_h1.Fu!Ic;dyMiQG_)4@DpE7v6L^TD" was cut at its "!" before redaction: the part before
    it no longer looked like a key and went into history, and into USER.md, as "User's private key is sk_h1.Fu"."""
    chat = tmp_path / "key.jsonl"
    chat.write_text(json.dumps({"role": "user", "content": "My private key is sk_h1.Fu!Ic;dyMiQG_)4@DpE7v6L^TD"})
                    + "\n", encoding="utf-8")
    api.ingest(workspace.root, [chat])
    written = workspace.history_file.read_text(encoding="utf-8") + store_bytes(workspace).decode()
    assert "sk_h1" not in written and "dyMiQG" not in written


def test_ingesting_again_or_a_copy_keeps_nothing_twice(workspace, tmp_path):
    api.ingest(workspace.root, [FIXTURES / "ingest"])
    before = store_bytes(workspace)
    api.ingest(workspace.root, [FIXTURES / "ingest"])
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(OPENAI.read_bytes())
    api.ingest(workspace.root, [copy])
    assert store_bytes(workspace) == before


def test_a_dry_run_keeps_no_turn_and_keep_turns_mb_0_keeps_none(workspace):
    api.ingest(workspace.root, [OPENAI], dry_run=True)
    assert turns.segments(workspace) == []
    (workspace.root / "nanodream.toml").write_text("keep_turns_mb = 0\n", encoding="utf-8")
    assert api.ingest(workspace.root, [OPENAI]).added == 1
    assert turns.segments(workspace) == [] and history(workspace)


def die(*args):
    raise KeyboardInterrupt  # the process dies here


def test_a_crash_before_the_turns_are_written_finishes_them_once(workspace, monkeypatch):
    monkeypatch.setattr(turns, "settle", die)  # history holds the entry; the store nothing yet
    with pytest.raises(KeyboardInterrupt):
        api.ingest(workspace.root, [OPENAI])
    monkeypatch.undo()
    assert len(history(workspace)) == 1 and stored(workspace) == []
    report = api.ingest(workspace.root, [OPENAI])
    assert "finished an interrupted ingest" in report.recovered and report.added == 0
    assert len(stored(workspace)) == SAID and len({turn.key for turn in stored(workspace)}) == SAID


def test_turns_torn_by_a_crash_are_written_again_whole(workspace, monkeypatch):
    real = os.pwrite

    def torn(fd, data, offset):
        real(fd, data[: len(data) // 2], offset)
        raise KeyboardInterrupt

    monkeypatch.setattr(turns.os, "pwrite", torn)
    with pytest.raises(KeyboardInterrupt):
        api.ingest(workspace.root, [OPENAI])
    monkeypatch.undo()
    api.ingest(workspace.root, [OPENAI])
    assert len(stored(workspace)) == SAID and store_bytes(workspace).endswith(b"}\n")


def test_a_pass_that_never_reached_history_leaves_no_turn_and_is_read_again(workspace, monkeypatch):
    api.ingest(workspace.root, [FIXTURES / "ingest" / "codex"])
    before = store_bytes(workspace)
    saved = journal.IngestJournal.save

    def journal_then_die(self, ws):
        saved(self, ws)
        turns.settle(ws, self.turns_at, self.turns_payload.encode())  # as if the store were written first
        raise KeyboardInterrupt

    monkeypatch.setattr(journal.IngestJournal, "save", journal_then_die)
    with pytest.raises(KeyboardInterrupt):
        api.ingest(workspace.root, [OPENAI])
    monkeypatch.undo()
    assert store_bytes(workspace) != before
    report = api.ingest(workspace.root, [OPENAI])
    assert "appended nothing" in report.recovered and report.added == 1
    assert store_bytes(workspace).startswith(before) and len(stored(workspace)) == len(before.splitlines()) + SAID


def test_past_its_bound_the_store_drops_its_oldest_segments_and_says_so(workspace, monkeypatch, tmp_path):
    monkeypatch.setattr(turns, "SEGMENT_BYTES", 200)
    monkeypatch.setattr(pipeline, "MIB", 1500)  # keep_turns_mb = 1 then keeps 1,500 bytes
    (workspace.root / "nanodream.toml").write_text("keep_turns_mb = 1\n", encoding="utf-8")
    for day in range(1, 6):
        chat = tmp_path / f"day{day}.jsonl"
        chat.write_text("".join(json.dumps({"role": "user", "content": f"Day {day}, note {n}: " + "x" * 80,
                                            "timestamp": f"2026-10-0{day}T10:0{n}:00Z"}) + "\n" for n in range(3)))
        report = api.ingest(workspace.root, [chat])
    assert sum(path.stat().st_size for path in turns.segments(workspace)) <= 1500
    assert stored(workspace)[-1].text.startswith("Day 5, note 2")
    assert any("no longer recalled" in notice for notice in report.notices)
    assert len(history(workspace)) == 5  # history is the host's: never trimmed


def test_forgetting_a_session_takes_its_turns_out(workspace):
    api.ingest(workspace.root, [FIXTURES / "ingest"])
    others = [turn for turn in stored(workspace) if turn.session != "openai:web-42"]
    dry = api.forget(workspace.root, api.Target("openai:web-42"), dry_run=True)
    assert dry.turns == SAID and len(stored(workspace)) == len(others) + SAID
    report = api.forget(workspace.root, api.Target("openai:web-42"))
    assert report.turns == SAID and stored(workspace) == others


def test_forgetting_one_entry_takes_only_its_turns_out(workspace, tmp_path):
    chat = tmp_path / "long.jsonl"
    chat.write_text("".join(json.dumps({"role": "user", "content": f"Note {n}: " + "word " * 300, "session": "s",
                                        "timestamp": f"2026-10-01T10:{n:02d}:00Z"}) + "\n" for n in range(6)))
    api.ingest(workspace.root, [chat])
    entries = history(workspace)
    assert len(entries) > 1
    first = [turn for turn in stored(workspace) if turn.cursor == entries[0]["cursor"]]
    report = api.forget(workspace.root, api.Target(line=1))
    assert report.turns == len(first) and all(turn.cursor != entries[0]["cursor"] for turn in stored(workspace))


def test_an_interrupted_ingest_is_finished_before_forget_rewrites_the_store(workspace, monkeypatch):
    api.ingest(workspace.root, [FIXTURES / "ingest" / "codex"])
    monkeypatch.setattr(turns, "settle", die)  # history holds the pass, the store not yet
    with pytest.raises(KeyboardInterrupt):
        api.ingest(workspace.root, [OPENAI])
    monkeypatch.undo()
    api.forget(workspace.root, api.Target("openai:web-42"))
    assert not journal.journal_file(workspace).exists()
    assert all(turn.session != "openai:web-42" for turn in stored(workspace)) and stored(workspace)
    assert api.ingest(workspace.root, [OPENAI]).added == 0  # its keys were recorded: never read again


def test_an_unreadable_ingest_journal_stops_forget_before_anything_changes(workspace):
    api.ingest(workspace.root, [OPENAI])
    journal.journal_file(workspace).write_text("{torn")
    before = store_bytes(workspace)
    report = api.forget(workspace.root, api.Target("openai:web-42"))
    assert report.exit_code == 78 and "journal.json is unreadable" in report.reason
    assert store_bytes(workspace) == before


def test_turn_store_paths_never_follow_a_link(workspace, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    turns.turns_dir(workspace).parent.mkdir(parents=True, exist_ok=True)
    turns.turns_dir(workspace).symlink_to(elsewhere)
    report = api.ingest(workspace.root, [OPENAI])
    assert report.exit_code == 78 and ".nanodream/turns" in report.reason
    assert list(Path(elsewhere).iterdir()) == []
