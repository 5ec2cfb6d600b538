"""The dream prompt: the active one, what the next session would send, the override created or reset."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nanodream.api.acting import WorkspaceLike, action, settings_for, workspace_at
from nanodream.api.reports import (
    PromptReport,
    RenderedReport,
)
from nanodream.vocab import Outcome

if TYPE_CHECKING:
    from nanodream.config import Settings
    from nanodream.edits.prompt import PromptInitReport, PromptResetReport


@action()
def prompt(where: WorkspaceLike) -> PromptReport:
    """Which dream prompt is active, where it comes from, and its text."""
    from nanodream.prompting.prompt_override import prompt_info

    return PromptReport(info=prompt_info(workspace_at(where)))


@action()
def rendered_prompt(where: WorkspaceLike, settings: Settings | None = None, *, tidy: bool = False) -> RenderedReport:
    """The next session's request; when a run would send none, the reason (exit 0: nothing is wrong)."""
    from nanodream.prompting.prompt import NothingToSend, render_next_request

    workspace = workspace_at(where)
    try:
        return RenderedReport(request=render_next_request(workspace, settings or settings_for(workspace),
                                                          tidy=tidy))
    except NothingToSend as exc:
        return RenderedReport(outcome=Outcome.NOTHING_TO_DO, reason=str(exc))


@action()
def prompt_init(where: WorkspaceLike) -> PromptInitReport:
    """Copy the built-in prompt to prompts/dream.md for editing; text already there is never replaced."""
    from nanodream.edits.prompt import init_override

    return init_override(workspace_at(where))


@action()
def prompt_reset(where: WorkspaceLike, *, force: bool = False) -> PromptResetReport:
    """Remove prompts/dream.md so the built-in prompt is used again; uncommitted edits only with `force`."""
    from nanodream.edits.prompt import reset_override

    return reset_override(workspace_at(where), force=force)
