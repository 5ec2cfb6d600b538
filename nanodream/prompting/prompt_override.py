"""The dream prompt's files: the built-in prompt, the workspace override, which one is active, and starting or
dropping an override.

`prompts/dream.md` is the person's text: `init` never overwrites one with content, and `reset` refuses
to delete edits that are not yet in the memory history unless forced.
"""

from __future__ import annotations

import contextlib
from dataclasses import asdict, dataclass
from importlib import resources
from typing import Any

from nanodream.atomic import atomic_write, read_text
from nanodream.versioning.gitstate import check_writable
from nanodream.versioning.gitstore import GitStore
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


class PromptError(ValueError):
    """A prompt operation refused; the message says why and what to do instead."""


@dataclass
class PromptInfo:
    source: str  # "built-in" or "prompts/dream.md"
    path: str  # the file the active prompt is read from
    chars: int
    lines: int
    override_state: str  # absent | active | empty | symlink | not-a-file
    override_identical_to_builtin: bool | None  # None when there is no readable override
    text: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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


def init_override(workspace: Workspace) -> str:
    """Copy the built-in prompt to prompts/dream.md for editing; refuse to replace any text already there."""
    check_writable(workspace)
    state = override_state(workspace)
    if state == "active":
        raise PromptError(f"{OVERRIDE} already has content and is the active prompt; edit it, or "
                          "`nanodream prompt reset` to go back to the built-in prompt first")
    if state in ("symlink", "not-a-file"):
        raise PromptError(f"{OVERRIDE} is a {'symlink' if state == 'symlink' else 'directory or special file'}; "
                          "move it away, then run `nanodream prompt init` again")
    atomic_write(workspace.prompt_override, builtin_prompt())
    return str(workspace.prompt_override)


def reset_override(workspace: Workspace, *, force: bool = False) -> bool:
    """Remove prompts/dream.md so the built-in prompt is active; False when there was nothing to remove.

    Text that is neither the built-in prompt nor committed in the memory history would be lost for good,
    so it is only deleted with `force`.
    """
    override = workspace.prompt_override
    state = override_state(workspace)
    if state == "absent":
        return False
    check_writable(workspace)
    if state == "not-a-file":
        raise PromptError(f"{OVERRIDE} is not a file; remove it by hand")
    if state != "symlink" and not force:
        text = read_text(override)
        if text.strip() and text != builtin_prompt() and not _committed(workspace, override.read_bytes()):
            raise PromptError(f"{OVERRIDE} has edits that are not in the memory history yet and would be lost; "
                              "let a dream run commit them first, copy them elsewhere, or pass --force")
    override.unlink()
    with contextlib.suppress(OSError):  # leave the folder when it holds anything else
        override.parent.rmdir()
    return True


def _committed(workspace: Workspace, data: bytes) -> bool:
    """Whether exactly these bytes are prompts/dream.md in the last memory commit."""
    store = GitStore(workspace)
    if not store.exists or not store.head_sha():
        return False
    blob = store.tree_paths("HEAD").get(OVERRIDE)
    return blob is not None and store.blob(blob) == data
