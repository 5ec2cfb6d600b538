"""`nanodream prompt init|reset`: start or drop the workspace's own dream prompt, through the door.

`prompts/dream.md` is the person's text: `init` never overwrites one with content, and `reset` refuses
to delete edits that are not yet in the memory history unless forced.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from nanodream.atomic import atomic_write, read_bytes, read_text
from nanodream.edits.shared import through_door
from nanodream.memory.door import Door
from nanodream.prompting.prompt_override import OVERRIDE, builtin_prompt, override_state
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import VERDICT, Outcome, Refused, Report, Shape
from nanodream.workspace import Workspace


@dataclass
class PromptInitReport(Report):
    """What `prompt init` did (docs/json.md): created | refused | busy | blocked."""

    json_shape = Shape(hidden=VERDICT)

    created: str | None = None  # the file written
    source: str = OVERRIDE


@dataclass
class PromptResetReport(Report):
    """What `prompt reset` did (docs/json.md): removed | nothing-to-do | refused | busy | blocked."""

    json_shape = Shape(hidden=VERDICT)

    removed: bool = False
    source: str = "built-in"


def init_override(workspace: Workspace) -> PromptInitReport:
    """Copy the built-in prompt to prompts/dream.md for editing; refuse to replace any text already there.

    The copy is the person's file from then on: the next run commits it with their edits, as theirs.
    """
    report = PromptInitReport(outcome=Outcome.REFUSED)
    through_door(workspace, report, lambda door: _init(door, report))
    return report


def _init(door: Door, report: PromptInitReport) -> None:
    override = door.workspace.prompt_override
    state = override_state(door.workspace)
    if state == "active":
        raise Refused(f"{OVERRIDE} already has content and is the active prompt; edit it, or "
                      "`nanodream prompt reset` to go back to the built-in prompt first")
    if state == "not-a-file":
        raise Refused(f"{OVERRIDE} is a directory or special file; move it away, then run `nanodream prompt init` "
                      "again")
    atomic_write(override, builtin_prompt())
    report.outcome, report.created = Outcome.CREATED, str(override)


def reset_override(workspace: Workspace, *, force: bool = False) -> PromptResetReport:
    """Remove prompts/dream.md so the built-in prompt is active (`removed` False: there was nothing to remove).

    Text that is neither the built-in prompt nor committed in the memory history would be lost for good,
    so it is only deleted with `force`.
    """
    report = PromptResetReport(outcome=Outcome.REFUSED)
    through_door(workspace, report, lambda door: _reset(door, force, report))
    return report


def _reset(door: Door, force: bool, report: PromptResetReport) -> None:
    override = door.workspace.prompt_override
    state = override_state(door.workspace)
    report.outcome = Outcome.NOTHING_TO_DO
    if state == "absent":
        return
    if state == "not-a-file":
        raise Refused(f"{OVERRIDE} is not a file; remove it by hand")
    if state != "symlink" and not force:
        text = read_text(override)
        if text.strip() and text != builtin_prompt() and not _committed(door.store, read_bytes(override)):
            raise Refused(f"{OVERRIDE} has edits that are not in the memory history yet and would be lost; "
                          "let a dream run commit them first, copy them elsewhere, or pass --force")
    override.unlink()
    with contextlib.suppress(OSError):  # leave the folder when it holds anything else
        override.parent.rmdir()
    report.outcome, report.removed = Outcome.REMOVED, True


def _committed(store: GitStore, data: bytes) -> bool:
    """Whether exactly these bytes are prompts/dream.md in the last memory commit."""
    if not store.head_sha():
        return False
    blob = store.tree_paths("HEAD").get(OVERRIDE)
    return blob is not None and store.blob(blob) == data
