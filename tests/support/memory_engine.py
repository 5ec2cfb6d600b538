"""An in-process engine that files history lines literally, through the real restricted tools.

A history line `[durable] memory/MEMORY.md: Uses postgres 16` appends `- Uses postgres 16` to that file;
`[correction] memory/MEMORY.md: old => new` replaces a line in place. Because it re-adds whatever it reads,
a test can tell for sure whether a run read a batch again.
"""

from __future__ import annotations

import json
import re

from nanodream.backlog.history import tagged_lines
from nanodream.config import Settings
from nanodream.engines.base import SessionError, SessionRequest, SessionResult
from nanodream.toolbox.tools import ToolBox
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import Workspace
from tests.support.workspaces import entry, git

_FACT = re.compile(r"^(SOUL\.md|USER\.md|memory/MEMORY\.md): (.+)$")


class LiteralEngine:
    name = "literal"

    def __init__(self, settings: Settings | None = None) -> None:
        self.batches: list[tuple[int, int]] = []

    def run(self, request: SessionRequest, toolbox: ToolBox) -> SessionResult:
        self.batches.append((request.batch.first_cursor, request.batch.last_cursor))
        notes, declined, filed = [], {}, {}
        for item in request.batch.entries:
            for tag, text in tagged_lines(item.content):
                match = _FACT.match(text)
                if tag != "skip" and not match:
                    declined[text] = "not a FILE: fact line; the literal engine files only those"
                if tag == "skip" or not match:
                    continue
                path, fact = match.groups()
                if " => " in fact:
                    old, new = fact.split(" => ", 1)
                    result = toolbox.call("edit_file", {"path": path, "old_text": f"- {old}\n",
                                                        "new_text": f"- {new}\n"})
                else:
                    current = toolbox.call("read_file", {"path": path})
                    result = toolbox.call("write_file", {"path": path, "content": current + f"- {fact}\n"})
                if not result.startswith("OK"):
                    raise SessionError(f"gave up after a refused tool call: {result}")
                notes.append(f"{path}: {fact}")
                filed[text] = f"'{fact}' in {path}"  # its line is the fact without the FILE: prefix
        return SessionResult(summary="Filed " + "; ".join(notes) if notes else "Nothing to keep",
                             tokens_in=100 * len(request.batch.entries), tokens_out=10, declined=declined,
                             filed=filed)

    def follow_up(self, request: SessionRequest, result: SessionResult, message: str,
                  toolbox: ToolBox) -> SessionResult:
        """Literal filing answers the accounting's question the same way twice."""
        return result


def dream_settings(**overrides) -> Settings:
    return Settings(model="literal", **overrides)


def append_history(ws: Workspace, *items: dict) -> None:
    with ws.history_file.open("a", encoding="utf-8") as handle:
        for item in items:
            handle.write(json.dumps(item) + "\n")


def dream(ws: Workspace, *items: dict, engine: LiteralEngine | None = None):
    """Append `items` to the history and run one dream over them with the literal engine."""
    from nanodream.run.dream import run_dream

    append_history(ws, *items)
    engine = engine or LiteralEngine()
    report = run_dream(ws, dream_settings(), engine_factory=lambda settings: engine)
    assert report.outcome in ("committed", "no-change", "nothing-to-do"), report.reason
    return report


def build_history(ws: Workspace) -> dict[str, str]:
    """Three dreams with a hand edit in between; returns their shas by name.

    a (#1..#2): MEMORY += postgres, USER += tea · manual: SOUL rule · b (#3..#4): MEMORY += Fridays ·
    c (#5): USER += Lyon
    """
    shas = {}
    dream(ws, entry(1, "[durable] memory/MEMORY.md: Uses postgres 16"), entry(2, "[permanent] USER.md: Prefers tea"))
    shas["a"] = git(ws, "rev-parse", "HEAD")
    soul = ws.root / "SOUL.md"
    soul.write_text(soul.read_text() + "- Hand rule: never deploy on Sundays.\n")
    dream(ws, entry(3, "[durable] memory/MEMORY.md: Deploys on Fridays"), entry(4, "[skip] thanks"))
    shas["manual"] = git(ws, "rev-parse", "HEAD~1")
    shas["b"] = git(ws, "rev-parse", "HEAD")
    dream(ws, entry(5, "[permanent] USER.md: Lives in Lyon"))
    shas["c"] = git(ws, "rev-parse", "HEAD")
    assert GitStore(ws).commit_info(shas["manual"]).kind == "manual"
    return shas
