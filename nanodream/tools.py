"""The restricted toolset: exact, small, and bound to the staged copy of the memory files."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from nanodream.skills import parse_skill, skill_summary
from nanodream.staging import Staging
from nanodream.workspace import SKILL_NAME, PathRefused

REPEATED_FAILURE_LIMIT = 3

_PATH = {"type": "string", "description": "SOUL.md, USER.md, memory/MEMORY.md or skills/<name>/SKILL.md"}

TOOL_SCHEMAS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "read_file", "description": "Read the current (staged) content of one memory file.",
        "parameters": {"type": "object", "properties": {"path": _PATH}, "required": ["path"]}}},
    {"type": "function", "function": {
        "name": "list_skills", "description": "List existing skills: name, description and size.",
        "parameters": {"type": "object", "properties": {}}}},
    {"type": "function", "function": {
        "name": "edit_file",
        "description": "Replace exactly one occurrence of old_text with new_text in a memory file. "
                       "Use an empty new_text to delete. old_text must match once; add context if not.",
        "parameters": {"type": "object", "properties": {
            "path": _PATH, "old_text": {"type": "string"}, "new_text": {"type": "string"}},
            "required": ["path", "old_text", "new_text"]}}},
    {"type": "function", "function": {
        "name": "write_file",
        "description": "Create a new skill or rewrite a memory file whole. A SKILL.md needs front matter "
                       "with name (= folder) and description.",
        "parameters": {"type": "object", "properties": {"path": _PATH, "content": {"type": "string"}},
                       "required": ["path", "content"]}}},
    {"type": "function", "function": {
        "name": "delete_skill", "description": "Delete a skill that has been merged into another one.",
        "parameters": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}},
]


class SessionAborted(RuntimeError):
    """The session must stop now (cap reached, or the model is stuck repeating a failing call)."""


@dataclass(frozen=True)
class ToolLimits:
    max_tool_calls: int = 40
    max_file_chars: int = 24_000
    max_skill_chars: int = 12_000

    def cap_for(self, path: str) -> int:
        return self.max_skill_chars if path.startswith("skills/") else self.max_file_chars


class ToolError(Exception):
    """A tool call the model can correct; the message says how."""


class ToolBox:
    """Dispatches tool calls by name to handlers over a Staging; counts and bounds them."""

    def __init__(self, staging: Staging, limits: ToolLimits) -> None:
        self.staging = staging
        self.limits = limits
        self.calls = 0
        self.failures = 0
        self._last_failure: tuple[str, str] | None = None
        self._repeats = 0

    def call(self, name: str, raw_arguments: str | dict[str, Any] | None) -> str:
        """Run one tool call and return its result text; raise SessionAborted when the session must end."""
        self.calls += 1
        if self.calls > self.limits.max_tool_calls:
            raise SessionAborted(f"tool-call cap of {self.limits.max_tool_calls} reached")
        try:
            arguments = _decode_arguments(raw_arguments)
            if name not in _HANDLERS:
                raise ToolError(f"unknown tool {name!r}; use one of {', '.join(_HANDLERS)}")
            handler, parameters = _HANDLERS[name]
            result = handler(self, **_only(arguments, parameters))
        except (ToolError, PathRefused) as exc:
            self._note_failure(name, raw_arguments)
            return f"Error: {exc}"
        self._last_failure, self._repeats = None, 0
        return result

    def _note_failure(self, name: str, raw_arguments: Any) -> None:
        self.failures += 1
        key = (name, raw_arguments if isinstance(raw_arguments, str) else json.dumps(raw_arguments, sort_keys=True))
        self._repeats = self._repeats + 1 if key == self._last_failure else 1
        self._last_failure = key
        if self._repeats >= REPEATED_FAILURE_LIMIT:
            raise SessionAborted(f"the same failing {name} call was repeated {self._repeats} times")

    # handlers -------------------------------------------------------------------------------------

    def read_file(self, path: str) -> str:
        path = self._checked(path)
        content = self.staging.read(path)
        if content is None:
            raise ToolError(f"{path} does not exist; create it with write_file")
        return content if content else f"({path} is empty)"

    def list_skills(self) -> str:
        paths = self.staging.skill_paths()
        if not paths:
            return "No skills yet."
        return "\n".join(skill_summary(p, self.staging.read(p) or "") for p in paths)

    def edit_file(self, path: str, old_text: str, new_text: str) -> str:
        path = self._checked(path)
        content = self.staging.read(path)
        if content is None:
            raise ToolError(f"{path} does not exist; create it with write_file")
        if not isinstance(old_text, str) or not isinstance(new_text, str):
            raise ToolError("old_text and new_text must be strings")
        if not old_text:
            raise ToolError("old_text is empty; give the exact text to replace")
        count = content.count(old_text)
        if count == 0:
            raise ToolError(f"old_text not found in {path} (0 matches); read_file it and copy the text exactly")
        if count > 1:
            raise ToolError(f"old_text matches {count} times in {path}; include more surrounding text")
        updated = content.replace(old_text, new_text, 1)
        self._store(path, updated)
        return f"OK: edited {path} ({len(content)} -> {len(updated)} chars)"

    def write_file(self, path: str, content: str) -> str:
        path = self._checked(path)
        if not isinstance(content, str):
            raise ToolError("content must be a string")
        existed = self.staging.read(path) is not None
        self._store(path, content)
        return f"OK: {'rewrote' if existed else 'created'} {path} ({len(content)} chars)"

    def delete_skill(self, name: str) -> str:
        if not isinstance(name, str) or not SKILL_NAME.match(name):
            raise ToolError("name must be a skill folder name: lowercase letters, digits and '-'")
        path = self._checked(f"skills/{name}/SKILL.md")
        if self.staging.read(path) is None:
            raise ToolError(f"skill {name!r} does not exist; list_skills shows the existing ones")
        self.staging.delete(path)
        return f"OK: deleted skill {name}"

    # helpers --------------------------------------------------------------------------------------

    def _checked(self, path: Any) -> str:
        if not isinstance(path, str):
            raise ToolError("path must be a string")
        return self.staging.workspace.check_memory_path(path)

    def _store(self, path: str, content: str) -> None:
        cap = self.limits.cap_for(path)
        if len(content) > cap:
            raise ToolError(
                f"{path} would be {len(content)} chars, over its cap of {cap}; merge and prune instead of adding"
            )
        if path.startswith("skills/"):
            try:
                parse_skill(path, content)
            except ValueError as exc:
                raise ToolError(str(exc)) from None
        self.staging.write(path, content)


def _decode_arguments(raw: str | dict[str, Any] | None) -> dict[str, Any]:
    if raw is None or raw == "":
        return {}
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        raise ToolError("arguments were not valid JSON; send a JSON object of the tool's parameters") from None
    if not isinstance(value, dict):
        raise ToolError("arguments must be a JSON object")
    return value


def _only(arguments: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    missing = [n for n in names if n not in arguments]
    if missing:
        raise ToolError(f"missing argument(s): {', '.join(missing)}")
    return {n: arguments[n] for n in names}


_HANDLERS = {
    "read_file": (ToolBox.read_file, ("path",)),
    "list_skills": (ToolBox.list_skills, ()),
    "edit_file": (ToolBox.edit_file, ("path", "old_text", "new_text")),
    "write_file": (ToolBox.write_file, ("path", "content")),
    "delete_skill": (ToolBox.delete_skill, ("name",)),
}
