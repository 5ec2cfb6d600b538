"""Recall over memory and the turns ingest kept, by one score: what only a transcript said is still found."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

import nanodream
from nanodream import api
from nanodream.backlog import turns as store
from nanodream.cli import app
from nanodream.retrieval import cache, ranking
from nanodream.retrieval import turns as blocks
from nanodream.retrieval.api import recall, recall_apart, recall_as_of
from nanodream.workspace import Workspace
from tests.support.cli import runner

MEMORY = """\
# Memory

- Leo starts school on Thursday.

## Home
- The boiler was serviced in March 2026.
"""


def said(path: Path, lines: list[tuple[str, str, str]], session: str = "kitchen") -> Path:
    """(role, text, ISO time) messages of one session, OpenAI-style."""
    with path.open("a", encoding="utf-8") as handle:
        for role, text, when in lines:
            handle.write(json.dumps({"role": role, "content": text, "timestamp": when, "session": session}) + "\n")
    return path


@pytest.fixture
def home(workspace: Workspace, tmp_path: Path) -> Workspace:
    (workspace.root / "memory/MEMORY.md").write_text(MEMORY, encoding="utf-8")
    chat = said(tmp_path / "chat.jsonl", [
        ("user", "Where did we leave it? The spare key is under the blue flowerpot by the shed.",
         "2026-10-11T09:00:00Z"),
        ("assistant", "Noted.", "2026-10-11T09:00:30Z"),
        ("user", "The plumber Ana comes on the 14th to look at the boiler.", "2026-10-12T18:00:00Z"),
    ])
    assert api.ingest(workspace.root, [chat]).added >= 1
    return workspace


def test_a_turn_is_kept_without_the_lines_a_harness_wrote_into_it(workspace, tmp_path):
    """A channel's "[message_id: 21]" and an event line are the harness's; a turn that is nothing else is not kept."""
    chat = said(tmp_path / "chat.jsonl", [
        ("user", "The spare key is under the blue flowerpot.\n[message_id: 21]", "2026-10-11T09:00:00Z"),
        ("user", "System: [2026-10-11 09:01:00 UTC] Exec completed (code 0) :: spare key script",
         "2026-10-11T09:01:00Z"),
    ])
    api.ingest(workspace.root, [chat])
    kept = [hit.text for hit in recall(workspace, "spare key", k=5) if hit.source == "turn"]
    assert kept == ["The spare key is under the blue flowerpot."]


def test_an_answer_only_a_turn_holds_is_found_with_where_and_when_it_was_said(home):
    [first, *rest] = recall(home, "where is the spare key?", k=3)
    assert first.text == "Where did we leave it? The spare key is under the blue flowerpot by the shed."
    assert (first.source, first.session, first.said_on, first.speaker) == ("turn", "openai:kitchen", "2026-10-11",
                                                                           "user")
    assert first.heading == "said on 2026-10-11 in openai:kitchen"
    assert first.file == ".nanodream/turns/000001.jsonl" and first.line == 1
    assert rest == []  # nothing else shares a word with the question


def test_memory_and_turns_share_one_score(home):
    hits = recall(home, "when does the plumber Ana come to look at the boiler?", k=5)
    assert [hit.source for hit in hits] == ["turn", "memory"]
    assert hits[0].score > hits[1].score  # a better-matching turn ranks above a memory line
    assert hits[0].text.startswith("The plumber Ana") and hits[1].text.startswith("The boiler was serviced")


def test_memory_wins_a_tie_and_a_turn_that_repeats_it_takes_no_place(home, tmp_path):
    said(tmp_path / "more.jsonl", [("user", "Leo starts school on Thursday.", "2026-10-13T08:00:00Z")])
    api.ingest(home.root, [tmp_path / "more.jsonl"])
    memory = cache.index_for(home)
    ranked = list(ranking.rank(memory, blocks.blocks(home), "when does Leo start school?"))
    assert ranked[0].memory is not None and ranked[1].block is not None
    assert ranked[0].score == pytest.approx(ranked[1].score)
    assert [(hit.source, hit.text) for hit in recall(home, "when does Leo start school?")] == [
        ("memory", "Leo starts school on Thursday.")]


def test_as_of_a_day_a_turn_said_later_is_no_answer(home):
    def found(day: date) -> list[str]:
        return [hit.text for hit in recall_as_of(home, "plumber Ana", day, k=5)[0]]

    assert found(date(2026, 10, 11)) == []
    assert found(date(2026, 10, 12)) == ["The plumber Ana comes on the 14th to look at the boiler."]
    assert found(date(2030, 1, 1)) == found(date(2026, 10, 12))


def test_the_cli_shows_a_turn_as_said_and_json_stays_a_list_with_text(home):
    shown = runner.invoke(app, ["recall", "spare key flowerpot", "-w", str(home.root), "-k", "1"])
    assert shown.exit_code == 0, shown.output
    assert shown.output.splitlines()[0].endswith("said on 2026-10-11 in openai:kitchen · user")
    listed = runner.invoke(app, ["recall", "spare key flowerpot", "-w", str(home.root), "-k", "1", "--json"])
    [hit] = json.loads(listed.output)
    assert hit["text"].startswith("Where did we leave it?") and hit["source"] == "turn"
    assert api.recall(home, "spare key flowerpot", 1).hits[0].said_on == "2026-10-11"  # the MCP tool's answer


def test_a_forgotten_session_is_no_longer_recalled(home):
    assert recall(home, "spare key flowerpot")
    assert api.forget(home.root, api.Target("openai:kitchen")).turns == 3  # every speaker's
    assert recall(home, "spare key flowerpot") == []


def test_turns_are_never_hypotheses_and_never_crowd_them_out(home):
    (home.root / "USER.md").write_text("# User\n\n- Probably keeps keys under flowerpots <!-- hypothesis: 1 -->\n",
                                       encoding="utf-8")
    facts, guesses = recall_apart(home, "keys flowerpot", k=1)
    assert [hit.source for hit in facts] == ["turn"]
    assert [hit.text for hit in guesses] == ["Probably keeps keys under flowerpots"]


def test_a_conversation_recaller_returns_a_turn_once(home):
    recaller = nanodream.Recaller(home)
    assert [hit.source for hit in recaller.new_hits("spare key flowerpot", k=1)] == ["turn"]
    assert recaller.new_hits("spare key flowerpot", k=1) == []


def test_a_blocks_index_is_built_once_and_an_ingest_rebuilds_only_the_open_segment(home, tmp_path, monkeypatch):
    monkeypatch.setattr(store, "SEGMENT_BYTES", 100)  # every pass starts a segment of its own
    recall(home, "spare key")
    built: list[str] = []
    real = blocks.Block.build

    def counted(segment):
        built.append(segment.name)
        return real(segment)

    monkeypatch.setattr(blocks.Block, "build", counted)
    blocks._HELD.clear()  # a fresh process: the saved blocks are loaded, none is built
    assert recall(home, "spare key") and built == []
    said(tmp_path / "later.jsonl", [("user", "The bike is chained at the north gate.", "2026-10-14T10:00:00Z")])
    api.ingest(home.root, [tmp_path / "later.jsonl"])
    assert recall(home, "where is the bike chained?")[0].text == "The bike is chained at the north gate."
    assert built == ["000002.jsonl"]
    saved = sorted(path.name.split("-")[0] for path in (cache.cache_dir(home) / cache.TURNS).iterdir())
    assert saved == ["000001", "000002"]


def test_a_damaged_saved_block_is_built_again(home):
    recall(home, "spare key")
    [folder] = (cache.cache_dir(home) / cache.TURNS).iterdir()
    (folder / "offsets.npy").write_bytes(b"not an array")
    blocks._HELD.clear()
    assert recall(home, "spare key")[0].source == "turn"


def test_memory_alone_without_a_store_answers_as_before(workspace):
    (workspace.root / "memory/MEMORY.md").write_text(MEMORY, encoding="utf-8")
    assert [hit.source for hit in recall(workspace, "boiler")] == ["memory"]
    assert not store.turns_dir(workspace).exists()


def test_a_hit_that_repeats_those_above_takes_no_place_but_memory_lines_always_do():
    from nanodream.retrieval.api import Hit

    def hit(text: str, source: str) -> Hit:
        return Hit(text, "f", 1, "", 1.0, source=source)

    turn = hit("My mother is coming to stay with us from 10 April for three weeks after her operation.", "turn")
    restated = hit("User's mother is coming to stay from 10 April for three weeks.", "memory")
    archived = hit("User's mother is coming to stay from 10 April for three weeks.", "archive")
    other = hit("She will stay with my sister Beatriz in Gaia instead.", "turn")
    echo = hit("Your mother is coming to stay for three weeks after her operation.", "turn")
    assert ranking.distinct([turn, restated, echo, other], 3) == [turn, other]
    assert ranking.distinct([restated, archived, turn, other], 3) == [restated, archived, other]
    assert ranking.distinct([restated, archived, echo, other], 2) == [restated, archived]


def test_the_cli_shows_the_opening_of_a_long_turn_and_json_all_of_it(workspace, tmp_path):
    """A pasted page recalled as a turn would fill the terminal: its opening is shown, and how much more there is."""
    page = "The spare key is under the blue flowerpot. " + "Filler words of a pasted page. " * 200
    api.ingest(workspace.root, [said(tmp_path / "chat.jsonl", [("user", page, "2026-10-11T09:00:00Z")])])
    shown = runner.invoke(app, ["recall", "spare key", "-w", str(workspace.root), "-k", "1"]).output
    assert "The spare key is under the blue flowerpot." in shown and "more characters: --json" in shown
    assert len(shown) < 1000
    listed = runner.invoke(app, ["recall", "spare key", "-w", str(workspace.root), "-k", "1", "--json"]).output
    assert json.loads(listed)[0]["text"].startswith("The spare key") and len(json.loads(listed)[0]["text"]) > 5000
