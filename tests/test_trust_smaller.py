"""The smaller holes of the third trust round: reads that never follow a link swapped in after the check,
bounded reads wherever ingest and history read, one identity per message, why/pin/forget keeping bytes and line
endings, and commit messages a terminal cannot obey."""

from __future__ import annotations

import json
import os
import sqlite3
import tracemalloc

import pytest

from nanodream import api, boundedjson
from nanodream.backlog.history import read_from
from nanodream.edits.forget import Target, forget
from nanodream.ingest import journal, writer
from nanodream.ingest.report import IngestReport, record_pass
from nanodream.ingest.seen import Seen, seen_file
from nanodream.run.dream import run_dream
from nanodream.run.records import append_record
from nanodream.vocab import RunRecord
from tests.support.cli import cli
from tests.support.memory_engine import dream
from tests.support.scripted_server import call, final
from tests.support.workspaces import entry, git, llm_settings, write_history

MiB = 1024 * 1024




def history_lines(ws) -> list[dict]:
    return [json.loads(line) for line in ws.history_file.read_text(encoding="utf-8").splitlines() if line.strip()]


# reads never follow a link, even one swapped in after the check --------------------------------------------


@pytest.mark.parametrize("swap", ["memory", ".nanodream"])
def test_a_link_swapped_in_after_the_check_is_refused_by_the_reader(workspace, tmp_path, swap):
    """A folder on the way to history.jsonl or the state files becomes a link to another tenant's after the
    workspace was checked: the reader's open refuses it instead of reading the other tenant's files."""
    other = tmp_path / "other"
    (other / "memory").mkdir(parents=True)
    (other / "memory" / "history.jsonl").write_text(json.dumps(entry(1, "[durable] The other tenant's secret."))
                                                    + "\n")
    (other / ".nanodream").mkdir()
    (other / ".nanodream" / "position.json").write_text("{}")
    write_history(workspace, [entry(1, "[durable] Our own fact.")])
    (workspace.state_dir).mkdir(exist_ok=True)
    victim = workspace.root / swap
    victim.rename(victim.with_name(f"{swap}-moved"))
    victim.symlink_to(other / swap)
    with pytest.raises(OSError):
        if swap == "memory":
            list(read_from(workspace.history_file))
        else:
            boundedjson.load_file(workspace.state_dir / "position.json")


@pytest.mark.parametrize("writer_of", ["run record", "ingest pass record"])
def test_a_link_swapped_in_after_the_check_is_refused_by_the_appenders(workspace, tmp_path, writer_of):
    """The state files nanodream appends to are opened the same way: another tenant's file is never written."""
    other = tmp_path / "other" / ".nanodream"
    (other / "ingest").mkdir(parents=True)
    workspace.state_dir.mkdir(exist_ok=True)
    workspace.state_dir.rename(workspace.root / "moved-state")
    workspace.state_dir.symlink_to(other)
    with pytest.raises(OSError):
        if writer_of == "run record":
            append_record(workspace, RunRecord(id="r1", start="2026-10-01T10:00:00Z", trigger="cli",
                                               outcome="committed"))
        else:
            record_pass(workspace, IngestReport(outcome="ingested"), "cli")
    assert sorted(p.name for p in other.rglob("*")) == ["ingest"]


# bounded reads -----------------------------------------------------------------------------------------------


def append_huge_line(path) -> None:
    with path.open("r+b") as handle:
        handle.seek(0, os.SEEK_END)
        handle.seek(handle.tell() + 200 * MiB)  # a sparse 200 MB line of NULs, then its newline
        handle.write(b"\n")


def measured(read):
    """What `read()` returns, and the most memory Python held meanwhile."""
    tracemalloc.start()
    try:
        return read(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_sparse_ten_gigabyte_transcript_is_skipped_in_bounded_memory(workspace, tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    huge = folder / "sparse.jsonl"
    with huge.open("wb") as handle:
        handle.truncate(10 * 1024 * MiB)  # ten gigabytes of nothing, no newline: one endless line
    (folder / "good.jsonl").write_text(json.dumps({"role": "user", "content": "I live in Lyon.",
                                                   "timestamp": "2026-10-01T10:00:00Z"}) + "\n")
    done, peak = measured(lambda: cli("ingest", str(folder), "--json", ws=workspace))
    assert done.exit_code == 0, done.output
    [source] = json.loads(done.output)["sources"]
    assert any("sparse.jsonl" in line and "longer than" in line for line in source["skipped"])
    assert "Lyon" in workspace.history_file.read_text(encoding="utf-8")
    assert peak < 80 * MiB, peak


def test_a_transcript_line_over_the_limit_is_passed_over_in_chunks(workspace, tmp_path, monkeypatch):
    from nanodream.ingest import detect, reader

    monkeypatch.setattr(reader, "MAX_LINE", 1000)
    monkeypatch.setattr(detect, "MAX_LINE", 1000)
    chat = tmp_path / "chat.jsonl"
    lines = [{"role": "user", "content": "I live in Lyon.", "timestamp": "2026-10-01T10:00:00Z"},
             {"role": "user", "content": "x" * 5000, "timestamp": "2026-10-01T10:01:00Z"},
             {"role": "user", "content": "I work at Acme.", "timestamp": "2026-10-01T10:02:00Z"}]
    chat.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = cli("ingest", str(chat), "--json", ws=workspace)
    assert done.exit_code == 0, done.output
    text = workspace.history_file.read_text(encoding="utf-8")
    assert "Lyon" in text and "Acme" in text and "xxxxx" not in text


def test_the_last_cursor_is_found_behind_a_huge_line_in_bounded_memory(workspace):
    write_history(workspace, [entry(7, "[durable] The host wrote this.")])
    append_huge_line(workspace.history_file)
    tail, peak = measured(lambda: writer.tail_of(workspace.history_file))
    assert tail.last_cursor == 7 and not tail.needs_newline
    assert peak < 8 * MiB, peak


def test_an_interrupted_ingest_is_recovered_behind_a_huge_host_line_in_bounded_memory(workspace, tmp_path,
                                                                                     monkeypatch):
    """The pass died after its append and before its state; the host then wrote a 200 MB line. Recovery finds
    the pass's bytes whole a block at a time, and adds nothing twice."""
    source = tmp_path / "chat.jsonl"
    source.write_text(json.dumps({"role": "user", "content": "I live in Lyon.",
                                  "timestamp": "2026-10-01T10:00:00Z"}) + "\n")

    def killed(self, workspace, seen):
        raise KeyboardInterrupt

    monkeypatch.setattr(journal.IngestJournal, "settle", killed)
    with pytest.raises(KeyboardInterrupt):
        api.ingest(workspace.root, [source])
    monkeypatch.undo()
    append_huge_line(workspace.history_file)
    said, peak = measured(lambda: journal.recover(workspace, Seen(workspace)))
    assert "finished an interrupted ingest" in said
    assert peak < 16 * MiB, peak
    assert api.ingest(workspace.root, [source]).added == 0


# one identity per message ------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt, record", [
    ("openai", lambda text, minute: {"role": "user", "content": text, "id": "msg-1", "session": "s1",
                                     "timestamp": f"2026-10-01T10:{minute:02d}:00Z"}),
    ("claude-code", lambda text, minute: {
        "type": "user", "uuid": "u-1", "sessionId": "c1", "timestamp": f"2026-10-01T10:{minute:02d}:00Z",
        "message": {"role": "user", "content": text}}),
])
def test_two_messages_sharing_a_reused_id_are_both_ingested_once(workspace, tmp_path, fmt, record):
    chat = tmp_path / "chat.jsonl"
    said = [("I live in Lyon.", 0), ("I work at Acme as a gardener.", 5)]
    chat.write_text("".join(json.dumps(record(text, minute)) + "\n" for text, minute in said))

    first = json.loads(cli("ingest", str(chat), "--format", fmt, "--json", ws=workspace).output)
    assert first["messages"] == 2
    text = workspace.history_file.read_text(encoding="utf-8")
    assert "Lyon" in text and "Acme" in text

    rewritten = json.dumps(record("I have a dog called Rex.", 9)).replace('"u-1"', '"u-2"').replace('"msg-1"', '"m2"')
    chat.write_text(rewritten + "\n" + chat.read_text())  # rewritten from the start: every line read again
    again = json.loads(cli("ingest", str(chat), "--format", fmt, "--json", ws=workspace).output)
    assert (again["messages"], again["duplicates"]) == (1, 2)
    assert "Rex" in workspace.history_file.read_text(encoding="utf-8")


def test_a_message_an_earlier_version_recorded_by_id_alone_is_still_recognised(workspace, tmp_path):
    import hashlib

    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"role": "user", "content": "I live in Lyon.", "id": "m-9", "session": "s1"}) + "\n")
    seen_file(workspace).parent.mkdir(parents=True, exist_ok=True)
    legacy = hashlib.sha256(b"openai\0openai:s1\0id\0m-9").hexdigest()[:32]
    with sqlite3.connect(seen_file(workspace)) as db:
        db.execute("CREATE TABLE seen (key TEXT PRIMARY KEY) WITHOUT ROWID")
        db.execute("INSERT INTO seen VALUES (?)", (legacy,))
    report = json.loads(cli("ingest", str(chat), "--json", ws=workspace).output)
    assert report["added"] == 0 and report["duplicates"] == 1


# why, pin and forget keep bytes and line endings -------------------------------------------------------------


def crlf_user_file(ws) -> bytes:
    data = (b"# User\r\n\r\n## Preferences\r\n- Runs the Caf\xe9 R\xf6sti stall.\r\n"
            b"- Prefers short answers.\r\n- Walks to work.\r\n")
    (ws.root / "USER.md").write_bytes(data)
    git(ws, "add", "USER.md")
    git(ws, "-c", "user.name=p", "-c", "user.email=p@p", "commit", "-qm", "by hand", "--no-verify")
    return data


def test_pin_and_unpin_keep_every_other_byte_and_the_crlf(workspace):
    before = crlf_user_file(workspace)
    pinned = cli("pin", "short answers", ws=workspace)
    assert pinned.exit_code == 0, pinned.output
    after = (workspace.root / "USER.md").read_bytes()
    assert after == before.replace(b"- Prefers short answers.\r\n", b"- Prefers short answers. <!-- keep -->\r\n")
    assert cli("pin", "--remove", "short answers", ws=workspace).exit_code == 0
    assert (workspace.root / "USER.md").read_bytes() == before


def test_why_reads_a_file_with_bytes_that_are_not_utf8(workspace):
    crlf_user_file(workspace)
    for query in ("short answers", "Walks to work", "USER.md:5"):
        done = cli("why", query, ws=workspace)
        assert done.exit_code == 0, (query, done.output)
        assert "Traceback" not in done.output


def test_forget_keeps_every_other_byte_and_the_crlf(workspace):
    crlf_user_file(workspace)
    dream(workspace, entry(1, "[permanent] USER.md: Has a sister in Oslo", session_key="private"))
    with_fact = (workspace.root / "USER.md").read_bytes()
    assert b"- Has a sister in Oslo\r\n" in with_fact  # the dream took the file's dominant ending

    report = forget(workspace, Target(session="private"))

    assert report.outcome == "forgotten", report.reason
    assert (workspace.root / "USER.md").read_bytes() == with_fact.replace(b"- Has a sister in Oslo\r\n", b"")


# commit messages a terminal cannot obey ----------------------------------------------------------------------


# Apart, so that no run of them reads as one password-shaped token (the scanner would redact that whole). An
# OSC title sequence reads as a credential to the learned second opinion, so a person's line carries the others.
SCREEN = " \x1b[2J \x1b[31m \u202eevil\u2066 \x9b2J"
CONTROLS = " \x1b]0;owned\x07" + SCREEN


def test_control_and_bidi_characters_in_a_summary_never_reach_a_commit_raw(workspace, serve):
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    server = serve([call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
                         new_text="## Project\n- The API is written in Go.\n"),
                    final(f"Filed{CONTROLS} the API's language")])
    assert run_dream(workspace, llm_settings(server)).outcome == "committed"
    message = git(workspace, "log", "-1", "--format=%B")
    assert not any(char in message for char in "\x1b\x07\x9b\u202e\u2066")
    assert "\\x1b[2J" in message and "\\u202eevil" in message  # shown, not obeyed
    reflog = git(workspace, "reflog", "-1")  # the subject again, as the reflog keeps it
    assert "Filed" in reflog and not any(char in reflog for char in "\x1b\x07\x9b\u202e\u2066")


@pytest.mark.parametrize("mark", ["\u200f", "\u200e", "\u061c", "\u2067", "\u2069", "\u200b", "\u2060",
                                  "\ufeff", "\U000e0041"])
def test_a_bidi_or_invisible_format_mark_in_a_summary_is_escaped_in_the_commit_and_reflog(workspace, serve, mark):
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    server = serve([call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
                         new_text="## Project\n- The API is written in Go.\n"),
                    final(f"Filed {mark}the API's{mark} language")])
    assert run_dream(workspace, llm_settings(server)).outcome == "committed"
    for shown in (git(workspace, "log", "-1", "--format=%B"), git(workspace, "reflog", "-1")):
        assert mark not in shown and "Filed \\u" in shown.replace("\\U", "\\u"), shown


def test_a_memory_line_with_escapes_pinned_by_a_person_is_shown_not_obeyed_in_the_commit(workspace):
    user = workspace.root / "USER.md"
    user.write_text(user.read_text() + f"- Likes tea{SCREEN}\n")
    assert cli("pin", "Likes tea", ws=workspace).exit_code == 0
    messages = git(workspace, "log", "--format=%B")
    assert "\x1b" not in messages and "\u202e" not in messages and "\\x1b" in messages
