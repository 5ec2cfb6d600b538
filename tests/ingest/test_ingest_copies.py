"""Copies of transcripts whose messages carry no id are recognised by content (docs/ingest.md, "Exactly once").

An OpenAI-style file without `session` fields has only its name for a session; a copy under another name must not
be ingested twice, while the same short words said in another conversation are a message of their own.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from nanodream import api
from nanodream.ingest import watermarks
from nanodream.ingest.formats.nanobot import FORMAT as NANOBOT
from nanodream.ingest.message import Said, make
from nanodream.ingest.seen import Seen
from tests.support.paths import FIXTURES


def history(ws) -> list[dict]:
    if not ws.history_file.is_file():
        return []
    return [json.loads(line) for line in ws.history_file.read_text(encoding="utf-8").splitlines() if line.strip()]


def said(path: Path, lines: list[tuple[str, str]]) -> Path:
    """Append messages without ids, timestamps or sessions: the file's name is all that names the session."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.writelines(json.dumps({"role": role, "content": text}) + "\n" for role, text in lines)
    return path


OPENING = [("user", "I live in Lisbon and work as a ceramicist."), ("assistant", "Lovely, noted."),
           ("user", "ok"), ("assistant", "Anything else?")]


def contents(ws) -> str:
    return "\n".join(line["content"] for line in history(ws))


def test_a_copy_under_another_name_adds_nothing(workspace, tmp_path):
    original = said(tmp_path / "src" / "chat.jsonl", OPENING)
    assert api.ingest(workspace.root, [original]).added == 1
    before = workspace.history_file.read_bytes()
    copied = tmp_path / "elsewhere" / "chat-backup.jsonl"
    copied.parent.mkdir()
    shutil.copyfile(original, copied)
    report = api.ingest(workspace.root, [copied])
    assert (report.added, report.messages, report.duplicates) == (0, 0, len(OPENING))
    assert workspace.history_file.read_bytes() == before


def test_a_copy_appended_to_since_adds_only_its_new_tail_once(workspace, tmp_path):
    original = said(tmp_path / "src" / "chat.jsonl", OPENING)
    api.ingest(workspace.root, [original])
    copied = tmp_path / "src" / "chat (1).jsonl"
    shutil.copyfile(original, copied)
    said(copied, [("user", "I adopted a greyhound called Pixel.")])
    report = api.ingest(workspace.root, [tmp_path / "src"])
    assert (report.messages, report.duplicates) == (1, len(OPENING))
    assert contents(workspace).count("Lisbon") == 1 and contents(workspace).count("Pixel") == 1
    said(original, [("user", "I adopted a greyhound called Pixel.")])  # the same tail reaching the original later
    assert api.ingest(workspace.root, [tmp_path / "src"]).added == 0


def test_the_same_short_words_in_another_conversation_are_a_message_of_their_own(workspace, tmp_path):
    said(tmp_path / "src" / "monday.jsonl", OPENING)
    other = said(tmp_path / "src" / "tuesday.jsonl",
                 [("user", "My sister Ana moved to Porto."), ("assistant", "Noted."), ("user", "ok"),
                  ("assistant", "Anything else?")])
    report = api.ingest(workspace.root, [tmp_path / "src"])
    assert (report.messages, report.duplicates) == (len(OPENING) * 2, 0)
    assert {line["session_key"] for line in history(workspace)} == {"openai:monday", "openai:tuesday"}
    assert api.ingest(workspace.root, [other]).added == 0


def test_words_repeated_in_one_conversation_are_each_a_message(workspace, tmp_path):
    chat = said(tmp_path / "chat.jsonl", [("user", "ok"), ("assistant", "Shall I go on?"), ("user", "ok")])
    assert api.ingest(workspace.root, [chat]).messages == 3


def test_a_renamed_or_moved_file_appended_to_adds_only_the_new_message(workspace, tmp_path):
    first = said(tmp_path / "a" / "chat.jsonl", OPENING)
    api.ingest(workspace.root, [tmp_path / "a"])
    renamed = first.rename(tmp_path / "a" / "chat-2026-10.jsonl")  # same inode: the watermark follows it
    said(renamed, [("user", "We decided to glaze with celadon.")])
    assert api.ingest(workspace.root, [tmp_path / "a"]).messages == 1
    moved = tmp_path / "b" / "archived.jsonl"  # another folder, a new inode: read again from its start
    moved.parent.mkdir()
    shutil.copyfile(renamed, moved)
    os.unlink(renamed)
    said(moved, [("user", "The kiln is booked for Fridays.")])
    report = api.ingest(workspace.root, [tmp_path / "b"])
    assert (report.messages, report.duplicates) == (1, len(OPENING) + 1)
    text = contents(workspace)
    assert text.count("Lisbon") == 1 and text.count("celadon") == 1 and text.count("kiln") == 1


def test_an_exported_array_copied_under_another_name_adds_nothing(workspace, tmp_path):
    export = tmp_path / "export.json"
    shutil.copyfile(FIXTURES / "ingest" / "openai" / "export.json", export)
    assert api.ingest(workspace.root, [export]).added == 1
    shutil.copyfile(export, tmp_path / "export (copy).json")
    assert api.ingest(workspace.root, [tmp_path / "export (copy).json"]).added == 0


def test_state_lost_the_file_read_again_adds_nothing(workspace, tmp_path):
    chat = said(tmp_path / "chat.jsonl", OPENING)
    api.ingest(workspace.root, [chat])
    watermarks.watermarks_file(workspace).unlink()
    assert api.ingest(workspace.root, [chat]).added == 0


def test_messages_ingested_by_an_earlier_version_are_still_recognised(workspace, tmp_path):
    chat = said(tmp_path / "chat.jsonl", OPENING)
    seen = Seen(workspace)  # what an earlier version recorded: keys of the file's name as the session
    seen.add(make("openai", "chat", Said(role, text)).key for role, text in OPENING)
    seen.close()
    report = api.ingest(workspace.root, [chat])
    assert (report.added, report.duplicates) == (0, len(OPENING))


def test_a_session_its_records_name_keeps_its_identity_by_that_name(tmp_path):
    context = {"file": "telegram_4711"}
    NANOBOT.read({"_type": "metadata", "key": "telegram:4711"}, context)
    [named] = NANOBOT.read({"role": "user", "content": "I live in Lyon.", "timestamp": "2026-10-01T10:00"}, context)
    [unnamed] = NANOBOT.read({"role": "user", "content": "I live in Lyon.", "timestamp": "2026-10-01T10:00"},
                             {"file": "telegram_4711"})
    assert named.session == unnamed.session == "telegram:4711"
    assert named.content_key == "" and unnamed.content_key != ""  # only a name-given session is chained


def test_a_copy_whose_messages_have_ids_but_no_session_adds_nothing(workspace, tmp_path):
    original = tmp_path / "a" / "thread.jsonl"
    original.parent.mkdir()
    original.write_text("".join(json.dumps({"role": role, "content": text, "id": f"msg-{n}"}) + "\n"
                                for n, (role, text) in enumerate(OPENING)), encoding="utf-8")
    assert api.ingest(workspace.root, [original]).messages == len(OPENING)
    shutil.copyfile(original, tmp_path / "a" / "thread-export.jsonl")
    report = api.ingest(workspace.root, [tmp_path / "a"])
    assert (report.added, report.duplicates) == (0, len(OPENING))


def test_the_same_id_said_again_with_other_words_is_another_message(workspace, tmp_path):
    chat = tmp_path / "reused.jsonl"
    chat.write_text(json.dumps({"role": "user", "content": "I live in Lyon.", "id": "m-1"}) + "\n"
                    + json.dumps({"role": "user", "content": "I work at a bakery.", "id": "m-1"}) + "\n",
                    encoding="utf-8")
    assert api.ingest(workspace.root, [chat]).messages == 2


def stamped(path: Path, turns: list[tuple[str, str, str]]) -> Path:
    """Messages with a time stamp each (a host may stamp a reply with its question's time), no session."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.writelines(json.dumps({"role": role, "content": text, "timestamp": when}) + "\n"
                          for role, text, when in turns)
    return path


FIRST_SESSION = [("user", "I live in Lisbon and work as a ceramicist.", "2026-04-03T12:41:46.092819"),
                 ("assistant", "Lovely, noted.", "2026-04-03T12:41:46.092819"),
                 ("user", "ok", "2026-04-03T12:42:24.500646"),
                 ("assistant", "Anything else?", "2026-04-03T12:42:24.500646")]
REPLAYED = "2026-04-03T20:58:31.586649"  # the time the next session's file was opened
NEXT_SESSION = [(role, text, REPLAYED) for role, text, _ in FIRST_SESSION] + [
    ("user", "I adopted a greyhound called Pixel.", "2026-04-03T20:59:02.101010"),
    ("assistant", "Hello Pixel!", "2026-04-03T20:59:02.101010")]


def test_a_session_that_opens_by_writing_the_last_ones_turns_again_adds_only_its_own(workspace, tmp_path):
    """A new user's Hermes gateway: each session's file opens with the turns of the one before it, all stamped with
    one instant; they went into history twice (and their facts into memory twice)."""
    stamped(tmp_path / "src" / "20260403_124133.jsonl", FIRST_SESSION)
    stamped(tmp_path / "src" / "20260403_205647.jsonl", NEXT_SESSION)
    report = api.ingest(workspace.root, [tmp_path / "src"])
    assert (report.messages, report.duplicates) == (len(FIRST_SESSION) + 2, len(FIRST_SESSION))
    assert contents(workspace).count("Lisbon") == 1 and contents(workspace).count("Pixel") == 1


def test_a_replay_read_in_a_later_pass_is_still_recognised_and_one_never_read_is_kept(workspace, tmp_path):
    first = stamped(tmp_path / "a" / "20260403_124133.jsonl", FIRST_SESSION)
    later = stamped(tmp_path / "b" / "20260403_205647.jsonl", NEXT_SESSION)
    alone = stamped(tmp_path / "c" / "20260405_070218.jsonl",  # a replay whose first session was never ingested
                    [("user", "I work from a studio in Porto.", "2026-04-05T07:02:18.250000"),
                     ("user", "I teach on Saturdays.", "2026-04-05T07:02:18.250000")])
    assert api.ingest(workspace.root, [alone]).messages == 2
    api.ingest(workspace.root, [first])
    assert (api.ingest(workspace.root, [later]).messages, contents(workspace).count("Pixel")) == (2, 1)


def test_a_question_and_its_reply_stamped_alike_are_no_replay(workspace, tmp_path):
    path = stamped(tmp_path / "src" / "chat.jsonl", FIRST_SESSION)
    stamped(tmp_path / "other" / "chat.jsonl", [("user", "ok", "2026-04-04T09:00:00.123456"),
                                                ("assistant", "Anything else?", "2026-04-04T09:00:00.123456")])
    assert api.ingest(workspace.root, [path]).messages == len(FIRST_SESSION)
    assert api.ingest(workspace.root, [tmp_path / "other"]).messages == 2  # said again, live: a message of its own
