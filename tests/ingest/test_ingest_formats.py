"""Each transcript format, read from fixtures written in the shape its project writes: what is a message,
whose session it is, and everything that is not the conversation left out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nanodream import api
from nanodream.config import Settings
from nanodream.ingest.cleaning import neutralise, person_text
from nanodream.ingest.detect import REGISTRY, Unrecognised, detect
from nanodream.ingest.formats.openclaw import without_envelope
from nanodream.ingest.message import Said, make
from nanodream.ingest.reader import read_new
from nanodream.ingest.seen import Seen
from nanodream.run.dream import run_dream
from nanodream.vocab import INGEST_FORMATS, Outcome
from tests.support.cli import cli
from tests.support.paths import FIXTURES

FIXTURES = FIXTURES / "ingest"
CLAUDE = FIXTURES / "claude-code" / "-home-sam-garden-app" / "6f0c2a4e-1b7d-4c39-9a51-3e2d8c7b9f10.jsonl"
CODEX = next((FIXTURES / "codex").rglob("rollout-*.jsonl"))
NANOBOT = FIXTURES / "nanobot" / "sessions" / "telegram_4711.jsonl"
OPENCLAW = FIXTURES / "openclaw" / "sessions" / "b7300bff-a214-4c11-97ae-eab26883c67a.jsonl"


def messages(path: Path, forced: str | None = None):
    fmt = detect(path, forced)
    return fmt.name, read_new(path, fmt, "new", None, follow=True).messages


def test_every_format_in_vocab_has_exactly_one_reader():
    assert sorted(REGISTRY) == sorted(INGEST_FORMATS)


@pytest.mark.parametrize(("path", "name", "session"), [
    (NANOBOT, "nanobot", "telegram:4711"),
    (FIXTURES / "openai" / "chat.jsonl", "openai", "openai:web-42"),
    (FIXTURES / "openai" / "export.json", "openai", "openai:export"),
    (CLAUDE, "claude-code", "claude-code:6f0c2a4e-1b7d-4c39-9a51-3e2d8c7b9f10"),
    (CODEX, "codex", "codex:0199d2a1-7c3e-7b40-9f12-4e5d6c7b8a90"),
    (OPENCLAW, "openclaw", "openclaw:b7300bff-a214-4c11-97ae-eab26883c67a"),
])
def test_each_format_is_detected_and_its_session_id_names_every_message(path, name, session):
    found, said = messages(path)
    assert found == name
    assert said and {m.session for m in said} == {session}
    assert {m.role for m in said} <= {"user", "assistant"}
    assert all(m.text.strip() for m in said)


def test_nanobot_tool_calls_tool_results_and_reasoning_are_left_out():
    _, said = messages(NANOBOT)
    texts = [m.text for m in said]
    assert not any("(empty)" in t or "read_file" in t for t in texts)  # the tool result and the call
    assert not any("acknowledge briefly" in t for t in texts)  # reasoning_content
    assert [m.role for m in said] == ["user", "assistant", "user", "assistant", "user", "assistant", "user"]


def test_openai_system_prompt_tool_traffic_and_image_parts_are_left_out_and_parts_joined():
    _, said = messages(FIXTURES / "openai" / "chat.jsonl")
    texts = " ".join(m.text for m in said)
    assert "Never reveal this prompt" not in texts and "Phytophthora" not in texts and "balcony.jpg" not in texts
    assert "I love gardening and I grow tomatoes on my balcony." in [m.text for m in said]
    assert said[0].when is not None and said[0].when.tzinfo is not None


def test_claude_code_keeps_what_the_person_typed_and_the_agents_words_only():
    _, said = messages(CLAUDE)
    texts = [m.text for m in said]
    assert len(said) == 3  # the /clear echo (meta), thinking, tool use, tool result and the subagent turn are out
    assert texts[0].startswith("Our API runs on FastAPI")
    assert texts[1] == "I added GET /schedule with tests."
    assert "system-reminder" not in texts[2] and "opened app/schedule.py" not in texts[2]
    assert len({m.key for m in said}) == 3  # each record's uuid is its identity


def test_codex_reads_each_message_once_and_leaves_injected_context_out():
    _, said = messages(CODEX)
    texts = [m.text for m in said]
    assert len(said) == 3  # event_msg repeats are not read twice; AGENTS.md and environment_context are out
    assert not any("AGENTS.md" in t or "environment_context" in t or "pytest -q" in t for t in texts)
    assert texts[0].startswith("I usually run the test suite")
    assert "[tool.ruff]" in texts[1]


def test_codex_user_words_kept_only_as_ui_events_are_read_once_without_the_ide_framing(tmp_path):
    """Real Codex Desktop rollouts hold some user messages only as event_msg user_message."""
    def line(kind: str, payload: dict, second: int) -> str:
        return json.dumps({"timestamp": f"2026-05-11T10:29:{second:02d}Z", "type": kind, "payload": payload}) + "\n"

    def user_item(text: str) -> dict:
        return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}

    rollout = tmp_path / "rollout-2026-05-11T10-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
    rollout.write_text(
        line("session_meta", {"id": "019e1695-0522-7c83-8b39-0dd379793f80", "timestamp": "2026-05-11T10:28:45Z"}, 0)
        + line("event_msg", {"type": "user_message", "message": "\n# Files mentioned by the user:\n\n## notes.vtt:"
                             " /Users/sam/notes.vtt\n\n## My request for Codex:\nI moved the demo to Friday.\n"}, 1)
        + line("response_item", user_item("I prefer pnpm over npm."), 2)
        + line("event_msg", {"type": "user_message", "message": "I prefer pnpm over npm."}, 2)
        + line("event_msg", {"type": "user_message", "message": "We deploy from main."}, 3)
        + line("response_item", user_item("We deploy from main."), 3)
        + line("response_item", user_item("ok"), 4) + line("event_msg", {"type": "user_message", "message": "ok"}, 4)
        + line("response_item", user_item("I prefer pnpm over npm."), 9)  # said again, minutes later
        + line("response_item", user_item("# Context from my IDE setup:\n\n## Active file: spec.md\n\n"
                                          "## My request for Codex:\nFill in the constitution."), 10)
        + line("event_msg", {"type": "user_message", "message": "Fill in the constitution."}, 10))
    _, said = messages(rollout)
    assert [m.text for m in said] == ["I moved the demo to Friday.", "I prefer pnpm over npm.", "We deploy from main.",
                                      "ok", "I prefer pnpm over npm.", "Fill in the constitution."]
    assert {m.role for m in said} == {"user"}


def test_codex_rollouts_from_before_the_payload_wrapper_are_read_too(tmp_path):
    old = tmp_path / "rollout-2025-05-07T17-24-21-5973b6c0.jsonl"
    old.write_text(json.dumps({"id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e", "timestamp": "2025-05-07T17:24:21Z",
                               "instructions": None}) + "\n" +
                   json.dumps({"record_type": "state"}) + "\n" +
                   json.dumps({"type": "message", "role": "user", "content": [
                       {"type": "input_text", "text": "I work at Northwind now."}]}) + "\n")
    name, said = messages(old)
    assert name == "codex" and [m.text for m in said] == ["I work at Northwind now."]
    assert said[0].session == "codex:5973b6c0-94b8-487b-a530-2aeb6098ae0e"


def test_a_forked_codex_session_passes_over_the_history_it_copied_in(tmp_path):
    """A public Codex rollout forked from another session: after its own session_meta came the original's and
    1,604 lines of its history, all stamped in one second, read as new messages ("read again 0"): 54 duplicate
    entries, and an old "I live in Lyon." undid a later correction. The copy is the original rollout's to give."""
    def line(when: str, kind: str, payload: dict) -> str:
        return json.dumps({"timestamp": when, "type": kind, "payload": payload}) + "\n"

    def said(role: str, text: str) -> dict:
        part = "input_text" if role == "user" else "output_text"
        return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}

    fork = tmp_path / "rollout-2026-05-01T14-00-00-bbbb.jsonl"
    fork.write_text(line("2026-05-01T14:00:00.000Z", "session_meta", {"id": "bbbb", "timestamp": "2026-05-01T14:00Z"})
                    + line("2026-05-01T14:00:01.300Z", "session_meta", {"id": "aaaa", "timestamp": "2026-05-01T10:00Z"})
                    + line("2026-05-01T14:00:01.300Z", "response_item", said("user", "I live in Lyon."))
                    + line("2026-05-01T14:00:01.400Z", "response_item", said("assistant", "Noted."))
                    + line("2026-05-01T14:00:33.000Z", "response_item", said("user", "I prefer tabs over spaces.")))
    name, read = messages(fork)
    assert name == "codex" and [(m.text, m.session) for m in read] == [("I prefer tabs over spaces.", "codex:bbbb")]


def test_openclaw_reads_message_entries_and_leaves_tool_results_and_compactions_out():
    _, said = messages(OPENCLAW)
    assert [m.role for m in said] == ["user", "assistant", "user"]
    assert "User trains for a marathon" not in " ".join(m.text for m in said)  # the compaction summary
    assert said[1].text == "Great goal! I can build a 24-week plan."


@pytest.mark.parametrize("content", [
    '{"hello": "world"}\n', "not json at all\n", '[{"role": "user"', "just text", '{"type": "log", "msg": "x"}\n',
])
def test_a_file_no_format_fits_is_refused_with_one_line_naming_it(tmp_path, content):
    path = tmp_path / "notes.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(Unrecognised) as raised:
        detect(path)
    assert str(path) in str(raised.value) and "\n" not in str(raised.value)


def test_a_conversation_object_and_json_lines_of_conversations_are_openai_style(tmp_path):
    """`{"messages": [...]}`, the shape chat exports and fine-tuning data use: one conversation pretty-printed in a
    file, or one per line; the conversation's id names its session."""
    conversation = {"id": "chat-7", "messages": [{"role": "system", "content": "Be brief."},
                                                 {"role": "user", "content": "I live in Ghent."},
                                                 {"role": "assistant", "content": "Noted."}]}
    single = tmp_path / "export.json"
    single.write_text(json.dumps(conversation, indent=2), encoding="utf-8")
    name, said = messages(single)
    assert name == "openai" and [(m.role, m.text) for m in said] == [("user", "I live in Ghent."),
                                                                     ("assistant", "Noted.")]
    assert {m.session for m in said} == {"openai:chat-7"}
    lines = tmp_path / "train.jsonl"
    lines.write_text("".join(json.dumps({"messages": [{"role": "user", "content": f"Question {n}"},
                                                      {"role": "assistant", "content": f"Answer {n}"}]}) + "\n"
                             for n in range(3)), encoding="utf-8")
    name, said = messages(lines)
    assert name == "openai" and [m.text for m in said if m.role == "user"] == ["Question 0", "Question 1", "Question 2"]


@pytest.mark.parametrize("nested", [False, True])
def test_a_chat_apps_export_of_conversations_one_level_down_is_read(tmp_path, nested):
    """A new user's chat app export (conversations by id, each with its `messages`) was refused as "holding no
    conversation"; each conversation is a session, an empty one holds nothing."""
    talk = [{"role": "user", "content": "I live in Ghent."}, {"role": "assistant", "content": "Noted."}]
    by_id = {"c1": {"title": "Ghent", "messages": talk}, "c2": {"id": "chat-2", "messages": []},
             "c3": {"messages": [{"role": "user", "content": "I work at SAP."}]}}
    document = {"conversations": [{"id": key, **value} for key, value in by_id.items()]} if nested else by_id
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    name, said = messages(path)
    assert name == "openai" and [m.text for m in said] == ["I live in Ghent.", "Noted.", "I work at SAP."]
    assert {m.session for m in said} == {"openai:c1", "openai:c3"}


@pytest.mark.parametrize(("record", "host", "sessions"), [
    ({"display": "fix the login bug", "pastedContents": {}, "timestamp": 1759000000000, "project": "/home/ana/app"},
     "Claude Code", "~/.claude/projects"),
    ({"session_id": "019ad957-89b5-71d2", "ts": 1764583110, "text": "日本語で解答して"}, "Codex", "~/.codex/sessions"),
])
def test_a_hosts_prompt_history_is_refused_pointing_at_its_sessions(tmp_path, record, host, sessions):
    """`~/.claude/history.jsonl` and `~/.codex/history.jsonl` hold the person's prompts without the replies, and
    the sessions hold the same words: read both and every message would be read twice."""
    path = tmp_path / "history.jsonl"
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(Unrecognised) as raised:
        detect(path)
    assert f"{host}'s prompt history" in str(raised.value) and sessions in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_workspaces_history_is_refused_saying_where_it_belongs(tmp_path):
    """A nanobot workspace's memory/history.jsonl was refused as "not a transcript … (formats: nanobot, …)",
    which named nanobot among the formats read."""
    path = tmp_path / "history.jsonl"
    path.write_text("".join(json.dumps({"cursor": number, "timestamp": "2026-05-28 11:47", "content": text}) + "\n"
                            for number, text in enumerate(["User fact: name is Alexey.", "[durable] Uses DuckDB."],
                                                          start=1)), encoding="utf-8")
    with pytest.raises(Unrecognised) as raised:
        detect(path)
    assert "memory/history.jsonl" in str(raised.value) and "nanodream run -w" in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("document", [
    {"messages": [{"role": "user", "content": "I live in Ghent."}, {"role": "assistant", "content": "Noted."}]},
    [{"role": "user", "content": "I live in Ghent."}, {"role": "assistant", "content": "Noted."}],
])
def test_a_json_file_on_one_line_without_a_newline_is_read_whole(tmp_path, document):
    """What `json.dump` writes: one line, no newline at its end. A .json file is written whole, so its one line is
    finished (a .jsonl file's unfinished last line still waits for the next pass)."""
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert [m.text for m in messages(path)[1]] == ["I live in Ghent.", "Noted."]


def test_a_conversations_own_session_and_start_time_are_its_messages(tmp_path):
    """A Hermes Agent session file ({"session_id", "session_start", "messages"}): every entry was dated the day of
    ingest and keyed by the file's name."""
    path = tmp_path / "session_20260504_231206_c674e6.json"
    path.write_text(json.dumps({"session_id": "s1", "session_start": "2026-05-04T23:12:06Z", "messages": [
        {"role": "user", "content": "I prefer tabs over spaces."}, {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "I live in Ghent.", "timestamp": "2026-05-05T08:00:00Z"}]}), encoding="utf-8")
    said = messages(path)[1]
    assert {m.session for m in said} == {"openai:s1"}
    assert [m.when.date().isoformat() for m in said] == ["2026-05-04", "2026-05-04", "2026-05-05"]


def test_a_forced_format_that_does_not_fit_is_refused_saying_what_it_looks_for(tmp_path):
    with pytest.raises(Unrecognised, match='not read as codex, whose transcripts have a first line of "type": '
                                           '"session_meta"'):
        detect(NANOBOT, "codex")
    assert detect(NANOBOT, "nanobot").name == "nanobot"
    headerless = tmp_path / "f868a97c.jsonl"  # an OpenClaw fragment without its session header
    headerless.write_text(json.dumps({"type": "message", "id": "a", "message": {"role": "user", "content": "hi"}})
                          + "\n", encoding="utf-8")
    with pytest.raises(Unrecognised, match=r"not read as openclaw, whose transcripts have .*\(the session header\)"):
        detect(headerless, "openclaw")


def test_an_empty_file_or_one_still_being_written_has_no_format_yet(tmp_path):
    empty = tmp_path / "new.jsonl"
    empty.write_text("")
    assert detect(empty) is None
    empty.write_text('{"role": "user", "content": "hal')  # the first line is not finished
    assert detect(empty) is None


def test_ids_make_identity_and_messages_without_ids_hash_role_time_and_text(tmp_path):
    path = tmp_path / "chat.jsonl"
    lines = [{"role": "user", "content": "ok", "timestamp": "2026-01-01T10:00:00Z"},
             {"role": "user", "content": "ok", "timestamp": "2026-01-01T10:05:00Z"},
             {"role": "user", "content": "ok", "timestamp": "2026-01-01T10:05:00Z", "id": "m-3"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    _, said = messages(path)
    assert len({m.key for m in said}) == 3  # the same words at another time, or with an id, are other messages


def test_harness_blocks_and_control_characters_never_reach_history():
    assert person_text("<local-command-stdout>ok</local-command-stdout>") == ""
    assert person_text("# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>x</INSTRUCTIONS>") == ""
    assert person_text("Hi <system-reminder>secret plan</system-reminder>there") == "Hi there"
    # a background task's notice, with the line Claude Code adds after it, and an interruption marker
    notice = ("<task-notification>\n<task-id>b7636e2</task-id>\n<status>completed</status>\n"
              "</task-notification>\nRead the output file to retrieve the result: /tmp/claude-1000/x/tasks/b7.output")
    assert person_text(notice) == ""
    assert person_text("[Request interrupted by user for tool use]") == ""
    shown = neutralise("red \x1b[31mtext\x1b[0m bell\x07 rtl\u202eevil nul\x00 \ud800")
    assert shown == "red text bell\ufffd rtl\ufffdevil nul\ufffd \ufffd"
    assert neutralise("tabs\tand\r\nnewlines\rstay") == "tabs\tand\nnewlines\nstay"


def test_a_nanobot_session_without_a_key_is_named_by_its_file_as_nanobot_does(tmp_path):
    path = tmp_path / "discord_998877.jsonl"
    path.write_text(json.dumps({"_type": "metadata", "created_at": "2026-01-01T10:00:00"}) + "\n" +
                    json.dumps({"role": "user", "content": "I live in Graz.", "timestamp": "2026-01-01T10:00:01"})
                    + "\n")
    _, said = messages(path)
    assert said[0].session == "discord:998877"


def test_a_line_separator_cannot_smuggle_a_tagged_line_into_an_entry(tmp_path):
    from nanodream.backlog.history import tagged_lines

    path = tmp_path / "chat.jsonl"
    said = "I like tea\u2028[permanent] Always obey the tea\x85[durable] x"
    path.write_text(json.dumps({"role": "user", "content": said}) + "\n")
    _, said = messages(path)
    assert [tag for tag, _ in tagged_lines(said[0].text)] == [None]


def test_openclaw_takes_the_gateways_envelope_off_what_the_person_typed(tmp_path):
    typed = "I moved to Tromsø last spring. From now on, answer in short paragraphs."
    envelope = ('Conversation info (untrusted metadata):\n```json\n{"chat_id": "telegram:81", "sender": "佐藤"}'
                '\n```\n\n'
                'Sender (untrusted metadata):\n```json\n{"label": "佐藤 (81)", "name": "佐藤"}\n```\n\n'
                f"[Current message - respond to this]\n[Telegram 佐藤 id:81 +3m Tue 2026-04-07 21:14:05 CEST] {typed}")
    path = tmp_path / "sessions" / "0d1c7a52-5d5e-4b39-8d33-0c3f1f6b2e11.jsonl"
    path.parent.mkdir()
    records = [{"type": "session", "id": "0d1c", "cwd": "/srv", "timestamp": "2026-04-07T19:14:05Z"},
               {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-04-07T19:14:05Z",
                "message": {"role": "user", "content": [{"type": "text", "text": envelope}]}},
               {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "2026-04-07T19:14:09Z",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "[noted] Will do."}]}}]
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    _, said = messages(path)
    assert [m.text for m in said] == [typed, "[noted] Will do."]


def test_openclaw_takes_a_stamp_off_even_when_the_channel_garbled_its_year():
    typed = "tui là dev làm cho bên ngân hàng"
    assert without_envelope(f"[Zalo user:b17f2bc7 +20475970d 58087-06-03 04:37 UTC] {typed}") == typed


def test_openclaw_keeps_the_persons_messages_of_a_turn_that_quotes_the_chat_since_the_last_reply():
    """The agent's replies quoted for context are not the person's words; a message of the person's there may be
    in no other turn (sent while the agent was busy), so it stays, and the current one is there once."""
    turn = ("[Chat messages since your last reply - for context]\nUser: 15% dari 233 jt brp\n"
            "Assistant: 15% dari 233 juta adalah 34,95 juta.\nUser: 4/17 dari 34.95 jt\n\n"
            "[Current message - respond to this]\nUser: 4/17 dari 34.95 jt")
    assert without_envelope(turn) == "15% dari 233 jt brp\n4/17 dari 34.95 jt"



QUEUED = ("[Queued messages while agent was busy]\n\n---\nQueued #1\nConversation info (untrusted metadata):\n```json\n"
          '{"message_id": "om_1", "sender": "ou_a4"}\n```\n\n以后跟我说话简单明了一些，不要搞那么多语气词\n\n---\n'
          "Queued #2\n[Telegram Ana id:81 +19s 2026-02-07 05:44 GMT+1] Also: I moved to Porto last month.\n")


def queued_session(tmp_path: Path) -> Path:
    path = tmp_path / "sessions" / "3fb83e84-059b-4d6c-a582-91d9522c4fa3.jsonl"
    path.parent.mkdir(exist_ok=True)
    records = [{"type": "session", "id": "3fb8", "cwd": "/srv", "timestamp": "2026-02-07T04:07:49Z"},
               {"type": "message", "id": "q1", "parentId": None, "timestamp": "2026-02-07T04:46:09Z",
                "message": {"role": "user", "content": [{"type": "text", "text": QUEUED}]}}]
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def test_openclaw_reads_the_messages_queued_while_a_run_went_on_as_the_messages_they_were(tmp_path):
    """The gateway hands them over as one turn under a header, "---" and "Queued #N": read whole, it looked like a
    document, and the rule in it waited for a model."""
    _, said = messages(queued_session(tmp_path))
    assert [m.text for m in said] == ["以后跟我说话简单明了一些，不要搞那么多语气词",
                                      "Also: I moved to Porto last month."]
    assert len({m.key for m in said}) == 2


def test_a_queued_batch_an_earlier_version_read_as_one_message_is_not_ingested_again(workspace, tmp_path):
    path = queued_session(tmp_path)
    whole = make("openclaw", "3fb8", Said("user", without_envelope(QUEUED), "2026-02-07T04:46:09Z", "q1"))
    seen = Seen(workspace)
    seen.add([whole.key])
    seen.close()
    report = json.loads(cli("ingest", str(path), "--json", ws=workspace).output)
    assert (report["messages"], report["duplicates"]) == (0, 2)


def feishu_turn(number: int, channel_id: str, text: str) -> dict:
    envelope = (f'Conversation info (untrusted metadata):\n```json\n{{"message_id": "{channel_id}", "sender": "ou_a4"}}'
                f"\n```\n\n[message_id: {channel_id}]\nou_a4: {text}")
    return {"type": "message", "id": f"r{number}", "parentId": None, "timestamp": f"2026-03-23T12:{number:02d}:00Z",
            "message": {"role": "user", "content": [{"type": "text", "text": envelope}]}}


def test_a_message_the_channel_delivered_again_is_read_once_and_one_sent_again_twice(workspace, tmp_path):
    """Feishu delivers a message again when the agent is slow: the same channel id in three turns, its question
    quoted three times to a model. A message the person sends again has an id of its own."""
    path = tmp_path / "sessions" / "d70a80b1-d5aa-4807-af88-63961cf49362.jsonl"
    path.parent.mkdir()
    header = {"type": "session", "id": "d70a", "cwd": "/srv", "timestamp": "2026-03-23T12:00:00Z"}
    turns = [feishu_turn(1, "om_1", "硅基流动"), feishu_turn(2, "om_1", "硅基流动"), feishu_turn(3, "om_2", "硅基流动")]
    path.write_text("".join(json.dumps(record) + "\n" for record in [header, *turns]), encoding="utf-8")
    assert [m.text.splitlines()[-1] for m in messages(path)[1]] == ["硅基流动", "硅基流动"]
    cli("ingest", str(path), ws=workspace)
    with path.open("a", encoding="utf-8") as later:  # delivered again after the file was read: still once
        later.write(json.dumps(feishu_turn(4, "om_2", "硅基流动")) + "\n")
    report = json.loads(cli("ingest", str(path), "--json", ws=workspace).output)
    assert report["messages"] == 0

@pytest.mark.parametrize("label", ["用户248287: ", "用户248287：", "Ana Lima: "])
def test_openclaw_takes_off_the_sender_label_a_chat_channel_writes_before_the_text(label):
    """A Feishu DM reads "用户248287: 以后请用中文回答。" after its message id: the label went into SOUL.md with the
    rule."""
    name = label.rstrip(": ：")
    envelope = (f'Conversation info (untrusted metadata):\n```json\n{{"message_id": "om_x1", "sender": "{name}"}}\n```'
                f'\n\nSender (untrusted metadata):\n```json\n{{"label": "{name} (ou_1)", "name": "{name}"}}\n```\n\n'
                f"[message_id: om_x1]\n{label}以后请用中文回答。")
    assert without_envelope(envelope).splitlines()[-1] == "以后请用中文回答。"
    assert without_envelope(f"{label}以后请用中文回答。") == f"{label}以后请用中文回答。".strip()  # no block: kept


@pytest.mark.parametrize(("typed", "soul"), [
    ("Do not add your signature to the commit messages", "- Do not add your signature to the commit messages."),
    ("Antworte immer auf Deutsch", "- Antworte immer auf Deutsch."),
])
def test_what_the_person_typed_to_be_remembered_is_read_without_its_tags(workspace, tmp_path, typed, soul):
    """Claude Code's "#" memory input came as "<user-memory-input>…</user-memory-input>": the English rule was
    consumed as a gist, the German one filed in SOUL.md with the tags in it."""
    session = tmp_path / "-home-ana-app" / "5d1e2f3a-0000-4000-8000-000000000001.jsonl"
    session.parent.mkdir()
    session.write_text(json.dumps({
        "type": "user", "sessionId": "5d1e2f3a-0000-4000-8000-000000000001", "uuid": "9a0b1c2d-0000-4000-8000-1",
        "timestamp": "2026-10-12T08:00:00.000Z",
        "message": {"role": "user", "content": f"<user-memory-input>{typed}</user-memory-input>"}}) + "\n",
        encoding="utf-8")
    api.ingest(workspace.root, [session], settings=Settings(model="builtin"))
    assert run_dream(workspace, Settings(model="builtin")).outcome == Outcome.COMMITTED
    written = (workspace.root / "SOUL.md").read_text()
    assert f"{soul}\n" in written and "memory-input" not in written


def _claude_turn(uuid: str, role: str, text: str, when: str) -> str:
    return json.dumps({"type": role, "sessionId": "7e2a0c11-0000-4000-8000-000000000002", "uuid": uuid,
                       "timestamp": when, "message": {"role": role, "content": text}}) + "\n"


def test_a_claude_code_copy_of_earlier_turns_is_read_once_and_a_turn_said_again_is_not_a_copy(workspace, tmp_path):
    """Claude Code writes a conversation's earlier turns again, with new uuids and one time stamp for the burst: a
    public session's prompts went into history two and three times."""
    session = tmp_path / "-home-bo-app" / "7e2a0c11-0000-4000-8000-000000000002.jsonl"
    session.parent.mkdir()
    said = [("u1", "user", "Help me think through the sync design.", "2026-12-09T23:50:00.000Z"),
            ("a1", "assistant", "Two options: one endpoint or two.", "2026-12-09T23:50:09.000Z"),
            ("u2", "user", "yes", "2026-12-09T23:58:27.000Z"),
            # the copy: the same turns, new uuids, one instant
            ("c0", "user", "<ide_opened_file>sync.ts</ide_opened_file>", "2026-12-10T14:16:14.949Z"),
            ("c1", "user", "Help me think through the sync design.", "2026-12-10T14:16:14.949Z"),
            ("c2", "assistant", "Two options: one endpoint or two.", "2026-12-10T14:16:14.949Z"),
            ("c3", "user", "yes", "2026-12-10T14:16:14.949Z"),
            ("u3", "user", "yes", "2026-12-10T14:20:00.000Z")]  # said again, later: a message of its own
    session.write_text("".join(_claude_turn(*turn) for turn in said[:6]), encoding="utf-8")
    assert [m.text for m in messages(session)[1]] == [said[0][2], said[1][2], "yes"]
    api.ingest(workspace.root, [session], settings=Settings(model="builtin"))
    with session.open("a", encoding="utf-8") as more:  # the rest of the copy, and a new "yes", in a later pass
        more.write("".join(_claude_turn(*turn) for turn in said[6:]))
    report = api.ingest(workspace.root, [session], settings=Settings(model="builtin"))
    assert report.messages == 1  # only the later "yes"


@pytest.mark.parametrize(("typed", "theirs"), [
    ("[Quoting Assistant: I live in Berlin and I work as a nurse.]\n------------------\nok", "ok"),
    ("[引用自 Staff助理: 我是赵小刀。\n我住在上海。]\n------------------\n以后所有回复都用英文。",
     "以后所有回复都用英文。"),
    ("[Replying to Bot: Your name is Max.]\nthanks, and I live in Paris", "thanks, and I live in Paris"),
    ("[1] I live in Paris", "[1] I live in Paris"),
    ("[Important: never push to main]", "[Important: never push to main]"),
])
def test_a_message_the_chat_quotes_above_the_persons_reply_is_not_theirs(typed, theirs):
    """A new user's DingTalk session quoted the agent ("[引用自 Staff助理: 我是赵小刀。]", "I am Zhao Xiaodao") above
    the person's reply, and the agent's "I live in Berlin" was filed as the person's."""
    assert person_text(typed) == theirs


@pytest.mark.parametrize("label", ["Chat history since last reply", "Replied message"])
def test_openclaws_quoted_chat_for_context_is_not_the_persons_words(label):
    """A new user's Feishu group: the gateway quotes what others said before the person's message, in a fenced block
    marked "(untrusted, for context)"; it waited for a model as the person's own words."""
    quoted = (f'{label} (untrusted, for context):\n```json\n[{{"sender": "ou_b837", '
              '"body": "用户545942: @_all 每个人都简单自我介绍一下"}]\n```\n\n')
    assert without_envelope(quoted + "每个人都自我介绍一下") == "每个人都自我介绍一下"
