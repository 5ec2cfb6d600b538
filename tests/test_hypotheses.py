"""Hypothesis lines: written with a marker and evidence count, accepted by the guards, promoted when stated."""

from __future__ import annotations

from nanodream.config import Settings
from nanodream.hypotheses import evidence, marked, without_marker
from nanodream.prompting.prompt_override import builtin_prompt
from nanodream.run.dream import run_dream
from tests.conftest import entry, git
from tests.memory_engine import append_history, dream

USER = "USER.md"


def test_marker_round_trip():
    line = marked("Prefers short answers", 2)
    assert line == "Prefers short answers <!-- hypothesis: 2 -->"
    assert evidence(line) == 2 and evidence("Prefers tea") is None
    assert without_marker(marked(line, 3)) == "Prefers short answers"


def test_a_hypothesis_line_passes_the_guards_and_is_committed(workspace):
    report = dream(workspace, entry(1, "[durable] USER.md: Prefers short answers <!-- hypothesis: 1 -->"))
    assert report.outcome == "committed", report.reason
    assert "- Prefers short answers <!-- hypothesis: 1 -->" in (workspace.root / USER).read_text()


def test_the_builtin_engine_promotes_a_hypothesis_the_user_then_states(workspace):
    user = workspace.root / USER
    user.write_text(user.read_text() + "- User prefers dark mode <!-- hypothesis: 2 -->\n")
    append_history(workspace, entry(1, "[permanent] User prefers dark mode."))
    report = run_dream(workspace, Settings(model="builtin"))
    assert report.outcome == "committed", report.reason
    text = user.read_text()
    assert "- User prefers dark mode\n" in text and "hypothesis" not in text and text.count("dark mode") == 1
    assert "1 hypothesis line confirmed" in git(workspace, "log", "-1", "--format=%B")


def test_the_prompt_documents_the_marking():
    prompt = builtin_prompt()
    assert "<!-- hypothesis: 1 -->" in prompt and "reaches 3" in prompt and "Rejected facts" in prompt
