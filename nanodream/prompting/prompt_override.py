"""The dream prompt's files: the built-in prompt, the workspace override and which one is active.

Starting or dropping an override is a person's change and goes through the door: edits/prompt.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from nanodream.atomic import read_text
from nanodream.vocab import Declared
from nanodream.workspace import Workspace

OVERRIDE = "prompts/dream.md"


@dataclass(frozen=True)
class ActivePrompt:
    text: str
    source: str  # "built-in" or the workspace-relative override path


def builtin_prompt() -> str:
    return (resources.files("nanodream") / "prompts" / "dream.md").read_text(encoding="utf-8")


def active_prompt(workspace: Workspace) -> ActivePrompt:
    """The workspace's prompts/dream.md when present and non-empty, else the built-in prompt."""
    override = workspace.prompt_override
    if override.is_file() and not override.is_symlink():
        text = read_text(override)
        if text.strip():
            return ActivePrompt(text, "prompts/dream.md")
    return ActivePrompt(builtin_prompt(), "built-in")


@dataclass
class PromptInfo(Declared):
    source: str  # "built-in" or "prompts/dream.md"
    path: str  # the file the active prompt is read from
    chars: int
    lines: int
    override_state: str  # absent | active | empty | symlink | not-a-file
    override_identical_to_builtin: bool | None  # None when there is no readable override
    text: str


def prompt_info(workspace: Workspace) -> PromptInfo:
    active = active_prompt(workspace)
    state = override_state(workspace)
    identical = None
    if state in ("active", "empty"):
        identical = read_text(workspace.prompt_override) == builtin_prompt()
    builtin_file = resources.files("nanodream") / "prompts" / "dream.md"
    path = str(builtin_file) if active.source == "built-in" else str(workspace.prompt_override)
    return PromptInfo(source=active.source, path=path, chars=len(active.text),
                      lines=len(active.text.splitlines()), override_state=state,
                      override_identical_to_builtin=identical, text=active.text)


def override_state(workspace: Workspace) -> str:
    override = workspace.prompt_override
    if override.is_symlink():
        return "symlink"
    if not override.exists():
        return "absent"
    if not override.is_file():
        return "not-a-file"
    return "active" if read_text(override).strip() else "empty"
