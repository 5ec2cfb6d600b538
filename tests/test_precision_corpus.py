"""The labelled transcript corpus and its yardstick (bench/precision.py, bench/_split.py) stay what they claim.

The split is a rule on each transcript's source, made before labelling: every folder must agree with it, so a
held-out transcript cannot drift into tuning (or back) unrecorded. Every transcript names where it came from and
is one `ingest` reads; every label is well formed. The scoring is checked on written lines made up here, so a
change to it that would count junk as kept, a keeper in the wrong file as found, or spew as fine fails here.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from bench import _split, precision
from nanodream.ingest.detect import detect

CORPUS = precision.CORPUS
FOLDERS = sorted(p for part in _split.PARTS for p in (CORPUS / part).iterdir() if p.is_dir())
NEW = [folder for folder in FOLDERS if "language" in tomllib.loads((folder / "labels.toml").read_text())["source"]]
FILES = {"USER.md", "SOUL.md", "memory/MEMORY.md", "skills"}


def labels_of(folder: Path) -> dict:
    return tomllib.loads((folder / "labels.toml").read_text(encoding="utf-8"))


def test_every_transcript_sits_in_the_part_the_split_rule_gives_it():
    assert _split.misplaced() == []
    assert str(_split.recorded()["made"]) == "2026-12-05"


def test_both_halves_hold_every_format_and_about_half_of_the_corpus():
    parts = _split.placed()
    found = {source.name: source for source in _split.sources()}
    assert len(found) >= 40
    for part in _split.PARTS:
        names = [name for name, where in parts.items() if where == part]
        assert {found[name].format for name in names} == {s.format for s in found.values()}
        assert 0.4 <= len(names) / len(found) <= 0.6
    languages = {s.language for s in found.values()}
    assert len(languages - {"en"}) >= 4


def test_the_rule_reads_the_source_only_and_a_moved_transcript_goes_to_tuning():
    sources = [_split.Source(f"t{i}", "owner/repo", f"s{i}.jsonl", "codex", "de") for i in range(4)]
    parts = _split.split(sources)
    assert sorted(parts.values()) == ["heldout", "heldout", "tuning", "tuning"]
    renamed = [_split.Source(f"x{i}", s.repository, s.path, s.format, s.language) for i, s in enumerate(sources)]
    assert sorted(_split.split(renamed).values()) == sorted(parts.values())
    held = next(name for name, part in parts.items() if part == "heldout")
    assert _split.split(sources, {held})[held] == "tuning"


def test_a_later_round_is_dealt_on_its_own_and_never_moves_an_earlier_transcript():
    first = [_split.Source(f"t{i}", "owner/repo", f"s{i}.jsonl", "nanobot", "en") for i in range(5)]
    later = [_split.Source(f"n{i}", "other/repo", f"n{i}.jsonl", "nanobot", "en", round=2) for i in range(4)]
    before = _split.split(first)
    after = _split.split(first + later)
    assert {name: after[name] for name in before} == before
    assert sorted(after[source.name] for source in later) == ["heldout", "heldout", "tuning", "tuning"]


def test_a_round_replacing_read_transcripts_is_all_held_out_and_moves_no_earlier_one():
    """Held-out transcripts read to fix a miss go to tuning; the round that replaces them keeps held-out whole."""
    first = [_split.Source(f"t{i}", "owner/repo", f"s{i}.jsonl", "codex", "ja") for i in range(4)]
    later = [_split.Source(f"n{i}", "other/repo", f"n{i}.jsonl", "codex", "ko", round=3) for i in range(3)]
    before = _split.split(first)
    after = _split.split(first + later, replacing={3})
    assert {name: after[name] for name in before} == before
    assert [after[source.name] for source in later] == ["heldout"] * 3


@pytest.mark.parametrize("folder", NEW, ids=lambda p: p.name)
def test_each_new_transcript_names_its_source_and_is_read_by_ingest(folder):
    source = labels_of(folder)["source"]
    assert re.fullmatch(r"[0-9a-f]{40}", source["commit"]) and source["repository"].count("/") == 1
    assert source["licence"] and source["made"] and source["path"]
    assert detect(folder / "transcript.jsonl").name == source["format"]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_each_label_is_well_formed(folder):
    labels = labels_of(folder)
    for item in labels.get("keep", []):
        files = item["file"] if isinstance(item["file"], list) else [item["file"]]
        assert set(files) <= FILES and item["words"] and all(word.strip() for word in item["words"])
    assert labels["never"]["words"]


def case(*keepers: precision.Keeper, never: tuple[str, ...] = ()) -> precision.Case:
    return precision.Case("made-up", (), keepers, never)


def test_a_line_holding_a_keeper_is_kept_a_keeper_elsewhere_is_misfiled_and_junk_is_junk():
    rule = precision.Keeper(("SOUL.md",), ("british spelling",), explicit=True)
    fact = precision.Keeper(("memory/MEMORY.md",), ("Firebase",))
    lines = [("USER.md", "Use British spelling in the UI."),
             ("memory/MEMORY.md", "The app stores tickets in Firebase."),
             ("memory/MEMORY.md", "(2026-02-21) File size: 37 bytes.")]
    tally = precision.score(case(rule, fact, never=("bytes",)), precision.Outcome(lines=lines, messages=10))
    assert (tally.lines, tally.kept, len(tally.misfiled), len(tally.junk)) == (3, 2, 1, 1)
    assert (tally.explicit, tally.explicit_found, tally.required, tally.required_found) == (1, 0, 2, 1)
    assert len(tally.forbidden) == 1 and tally.missed == ["made-up: explicit british spelling in SOUL.md"]


def test_a_skill_step_counts_for_a_keeper_filed_in_skills():
    procedure = precision.Keeper(("skills",), ("beat chart", "hook"))
    lines = [("skills/scenario-beats/SKILL.md", "The beat chart always begins with a hook.")]
    tally = precision.score(case(procedure), precision.Outcome(lines=lines))
    assert (tally.kept, tally.required_found, tally.misfiled) == (1, 1, [])


def test_spew_garbage_long_lines_cjk_runs_and_a_left_backlog_are_each_counted():
    lines = [("memory/MEMORY.md", 'File "pandas/_libs/parsers.pyx", line 568, in read'),
             ("memory/MEMORY.md", "x" * 301), ("USER.md", "中" * 61), ("memory/MEMORY.md", "npm ERR! missing script")]
    tally = precision.score(case(), precision.Outcome(lines=lines, pending=2, runs=3, left=4, consumed_unread=1))
    assert len(tally.spew) == 1 and len(tally.too_long) == 1 and len(tally.cjk_runs) == 1
    assert [g.rsplit("(", 1)[1] for g in tally.garbage] == ["stack frame)", "tool or installer output)"]
    assert tally.backlog_left and tally.consumed_unread_entries == 1


@pytest.mark.parametrize("line", ["User lives in Lyon with their wife.", "Always run the specs before a commit.",
                                  "Decided to use GHCR instead of Docker Hub.", "用户是前端开发，已经做了八年。"])
def test_plain_statements_carry_no_garbage_signature(line):
    assert precision.garbage_kind(line) == ""


def test_entries_left_for_a_model_count_as_consumed_unless_status_says_they_wait():
    unread = precision.unread_entries(["[permanent] User prefers tea.", "Talked about: 伊朗最新消息，北京最近有啥新闻"],
                                      {"zh": 2})
    assert unread == [1]
    gone = precision.Outcome(left=2)
    assert precision.consumed_unread(unread, consumed=2, outcome=gone) == 1
    waiting = precision.Outcome(left=2, waiting=1)
    assert precision.consumed_unread(unread, consumed=2, outcome=waiting) == 0
    assert precision.consumed_unread([], consumed=0, outcome=precision.Outcome(left=3)) == 1


def test_each_missed_explicit_keeper_says_where_it_went_without_showing_its_words():
    """The breakdown is what lets a held-out miss be read without reading the transcript: waiting for a model
    (an entry left for one holds it), read and not filed, filed in another file, said in one message that no entry
    holds as said, or in no one message."""
    waiting = precision.Keeper(("USER.md",), ("Lyon",), explicit=True)
    unfiled = precision.Keeper(("SOUL.md",), ("british spelling",), explicit=True)
    elsewhere = precision.Keeper(("SOUL.md",), ("tabs",), explicit=True)
    scattered = precision.Keeper(("USER.md",), ("nurse", "Leeds"), explicit=True)
    restated = precision.Keeper(("USER.md",), ("I cycle",), explicit=True)
    entries = ["[for a model: fr] … > J'habite à Lyon.", "Talked about: use British spelling", "I'm a nurse.",
               "I live in Leeds.", "Talked about: cycling"]
    outcome = precision.Outcome(lines=[("USER.md", "User prefers tabs.")], entries=entries, unread=[0],
                                said=["I'm a nurse.", "I live in Leeds.", "I cycle to work, it takes an hour."])
    tally = precision.score(case(waiting, unfiled, elsewhere, scattered, restated), outcome)
    assert tally.explicit_missed == {"waiting for a model": 1, "read and not filed": 1, "filed in another file": 1,
                                     "said in one message, in no entry as said": 1, "in no one message": 1}
    row = next(r for r in precision.report_rows("made-up", tally) if "missed" in r["measure"])
    assert "Lyon" not in row["measure"] and row["value"] == 5
