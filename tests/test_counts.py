"""Counts in messages agree with their numbers: one helper for every noun, no "(s)", no "1 entry are"."""

from __future__ import annotations

import re

import pytest

from nanodream.cli import app
from nanodream.vocab import count, count_entries, numbered
from tests.support.cli import runner
from tests.support.memory_engine import dream
from tests.support.paths import REPO
from tests.support.workspaces import entry, write_history

SOURCE = REPO / "nanodream"


@pytest.mark.parametrize("number,expected", [(0, "0 lines"), (1, "1 line"), (2, "2 lines")])
def test_count_agrees_with_its_number(number, expected):
    assert count(number, "line") == expected
    assert count_entries(number) == expected.replace("lines", "entries").replace("line", "entry")


def test_numbered_agrees_with_how_many_it_names():
    assert numbered("line", [4]) == "line 4" and numbered("line", [4, 9]) == "lines 4, 9"
    assert numbered("entry", [1, 2], "entries") == "entries 1, 2"


def test_no_message_counts_with_a_parenthesised_plural():
    """`line(s)` is what a count looks like when it skipped the helper; none is left in the package."""
    found = [f"{path.relative_to(SOURCE)}:{number}"
             for path in SOURCE.rglob("*.py")
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if re.search(r"\w\(s\)", line) and not line.lstrip().startswith("#")]
    assert found == []


def test_forgetting_one_entry_is_said_in_the_singular(workspace):
    dream(workspace, entry(1, "[permanent] USER.md: Has a sister in Oslo", session_key="private"))
    for args in (["--dry-run"], []):
        result = runner.invoke(app, ["forget", "--session", "private", *args, "-w", str(workspace.root)])
        assert result.exit_code == 0, result.output
        said = result.stdout
        assert "1 history entry:" in said and "1 line taught" in said, said
        assert not re.search(r"\b1 \w+ (are|were)\b|\(s\)|entr\(", said), said


def test_acknowledging_lines_says_what_happened_in_plain_words(workspace):
    write_history(workspace, [entry(1, "[durable] a"), "bad {", "worse {"])
    dream(workspace)
    both = runner.invoke(app, ["history", "ack", "2", "3", "9", "-w", str(workspace.root)])
    assert both.exit_code == 0
    assert both.output.splitlines()[0] == "acknowledged lines 2, 3"
    assert "nothing acknowledged for line 9" in both.output and "none" not in both.output
    none = runner.invoke(app, ["history", "ack", "7", "-w", str(workspace.root)])
    assert none.exit_code == 2 and not none.output.startswith("acknowledged")
