"""Every command's --help reads cleanly: no type placeholders on flags, no swallowed text, examples."""

from __future__ import annotations

import re

import pytest
import typer

from nanodream.cli import app
from tests.support.cli import runner


def command_paths(group: typer.Typer = app, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = [prefix]
    for info in group.registered_commands:
        paths.append((*prefix, info.name or info.callback.__name__))
    for sub in group.registered_groups:
        paths += command_paths(sub.typer_instance, (*prefix, sub.name))
    return paths


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "nanodream")
def test_help_is_clean_and_shows_examples(path):
    result = runner.invoke(app, [*path, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    text = result.output
    assert "<bool>" not in text  # a flag takes no value
    assert not re.search(r"\w \.(\s|$)|\w ,", text), text  # rich markup swallowed a [bracketed] word
    assert "Examples:" in text and "nanodream " in text.split("Examples:", 1)[1]


def test_every_command_is_covered():
    names = {p[0] for p in command_paths() if p}
    assert {"init", "run", "status", "log", "show", "restore", "pin", "slash", "schedule", "prompt",
            "quarantine", "history"} <= names
