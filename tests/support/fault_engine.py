"""In-process engines for fault-injection tests: deterministic, no model, no litellm import."""

from __future__ import annotations

import json

from nanodream.backlog.history import tagged_lines
from nanodream.config import Settings
from nanodream.engines.base import SessionError, SessionRequest, SessionResult
from nanodream.toolbox.tools import ToolBox

FILES = ("SOUL.md", "USER.md", "memory/MEMORY.md")
SKILL = "skills/facts/SKILL.md"
SKILL_HEAD = "---\nname: facts\ndescription: Every fact the dream has filed, in order\n---\n\n"
SETTINGS = Settings(model="fault-engine", batch_tokens=1)  # one entry per batch: many commits to crash between


class AppendEngine:
    """Appends every fact of the batch to all three core files and to one skill, through the real tools.

    Four files change per batch, so a crash can land between any two of them; each fact appears once per
    consumption, so a lost or doubly consumed entry shows up in the files.
    """

    name = "fault-engine"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def run(self, request: SessionRequest, toolbox: ToolBox) -> SessionResult:
        facts = [text for entry in request.batch.entries for _, text in tagged_lines(entry.content)]
        for path in (*FILES, SKILL):
            current = toolbox.staging.read(path) or SKILL_HEAD
            added = "".join(f"- {fact}\n" for fact in facts)
            result = toolbox.call("write_file", json.dumps({"path": path, "content": current + added}))
            if not result.startswith("OK"):
                raise SessionError(f"fault engine could not write {path}: {result}")
        return SessionResult(summary=f"Filed {len(facts)} facts", cost=0.0)


class RefusingEngine:
    """Fails every session: a run with it does recovery and nothing else."""

    name = "refusing-engine"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def run(self, request: SessionRequest, toolbox: ToolBox) -> SessionResult:
        raise SessionError("refusing engine: recovery check only")
