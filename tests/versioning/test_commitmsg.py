"""A dream commit's message: its subject is words, its change list and trailers come from what really happened."""

from __future__ import annotations

import pytest

from nanodream.changes import FileChange
from nanodream.versioning.commitmsg import DreamFacts, change_summary, dream_message, reads_as_words
from nanodream.vocab import Trailer, Trailers

USER_BEFORE = "# User\n\n## Preferences\n"
CHANGES = [FileChange("USER.md", USER_BEFORE, USER_BEFORE + "- Prefers answers in British English.\n"),
           FileChange("memory/MEMORY.md", "# Memory\n\n- Kiwi deploys with Nomad.\n",
                      "# Memory\n\n- Kiwi deploys with Kubernetes.\n- Backups run at 02:00.\n"),
           FileChange("skills/deploy/SKILL.md", None, "---\nname: deploy\n---\n1. Ship it.\n")]
FACTS = DreamFacts(run_id="run-1", model="openai/small", batch=None)


@pytest.mark.parametrize("line", ['{"facts": [{"number": 1', '[{"number": 1}]', '"summary": "filed it"',
                                  '<tool_call>{"name": "finish"', "```json", "facts: {'a': 1}", "Done.",
                                  "{{{{ ]]]] ::::"])
def test_json_markup_and_a_lone_word_do_not_read_as_words(line):
    assert not reads_as_words(line)


@pytest.mark.parametrize("line", ["Filed the preference and the backup time",
                                  "Moved kiwi's deploys from Nomad to Kubernetes (fact 3)"])
def test_sentences_read_as_words(line):
    assert reads_as_words(line)


def test_the_change_summary_says_what_the_diff_did_to_each_file():
    assert change_summary(CHANGES) == ("add 1 line to USER.md; change memory/MEMORY.md (+2 -1); "
                                       "create skills/deploy/SKILL.md")
    gone = FileChange("memory/MEMORY.md", "# Memory\n\n- a\n- b\n", "# Memory\n")
    assert change_summary([gone, FileChange("skills/old/SKILL.md", "x\n", None)]) == (
        "remove 3 lines from memory/MEMORY.md; delete skills/old/SKILL.md")


@pytest.mark.parametrize("summary", ['{"facts": [{"number": 1, "file": "USER.md", "line": "Pre',
                                     '```json\n{"summary": "x"}\n```', '  "summary": "Filed three facts",\n}'])
def test_a_summary_without_words_gives_the_subject_to_the_change_summary(summary):
    subject = dream_message(summary, CHANGES, FACTS).splitlines()[0]
    assert subject.startswith("dream: add 1 line to USER.md; change memory/MEMORY.md (+2 -1); create")
    assert len(subject) <= 72 and subject.endswith("…")


def test_a_summary_in_words_is_the_subject():
    message = dream_message("Filed the preference\n\nand more", CHANGES, FACTS)
    assert message.splitlines()[0] == "dream: Filed the preference"


def test_several_sessions_are_each_in_a_trailer_and_the_tokens_are_their_sums():
    sessions = [{"mode": "tools", "requests": 25, "tokens_in": 5753, "tokens_out": 348, "cached_tokens": 0,
                 "seconds": 1800.4},
                {"mode": "structured", "requests": 1, "tokens_in": 1529, "tokens_out": 932, "cached_tokens": 0,
                 "seconds": 121.0}]
    facts = DreamFacts(run_id="run-1", model="openai/small", batch=None, tokens_in=7282, tokens_out=1280,
                       sessions=sessions)
    trailers = Trailers.parse(dream_message("Filed the batch", CHANGES, facts))
    assert trailers.tokens == (7282, 1280) and trailers.sessions == ["tools", "structured"]
    assert trailers.get(Trailer.SESSIONS) == ("tools requests=25 in=5753 out=348 cached=0 seconds=1800; "
                                              "structured requests=1 in=1529 out=932 cached=0 seconds=121")
    one = DreamFacts(run_id="run-1", model="openai/small", batch=None, sessions=sessions[:1])
    assert Trailers.parse(dream_message("Filed the batch", CHANGES, one)).sessions == []
