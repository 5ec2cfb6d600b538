"""The memory files as the builtin engine sees them: read through the tools once, edited in memory, written back.

Every read and write goes through the same restricted tools a model gets, so the guards and the staged copy
see the builtin engine exactly as they see a model.
"""

from __future__ import annotations

from nanodream.engines.base import SessionError
from nanodream.markdown import MarkdownDoc
from nanodream.toolbox.registry import ToolResult
from nanodream.toolbox.tools import SessionAborted, ToolBox
from nanodream.workspace import CORE_FILES, STARTER_FILES


class MemoryFiles:
    """The memory files as read through the tools, edited in memory, and written back through the tools."""

    def __init__(self, toolbox: ToolBox) -> None:
        self._toolbox = toolbox
        self._original: dict[str, str | None] = {}
        self.docs: dict[str, MarkdownDoc] = {}
        for path in CORE_FILES:
            self._original[path] = self._read(path)
            # A missing or empty core file has no structure to respect: start from the scaffold's template.
            self.docs[path] = MarkdownDoc(self._original[path] or STARTER_FILES[path])
        self._skill_names = set(self._call("list_skills").value)
        self._skills: dict[str, str | None] = {}
        self._archived: list[str] | None = None

    @property
    def redacts_secrets(self) -> bool:
        """`secret_policy = "redact"`: a line holding a credential is kept with the credential replaced."""
        return self._toolbox.redact_secrets

    def archived(self) -> list[str]:
        """The archive's bullets (read once, only when a correction needs them), oldest month first."""
        if self._archived is None:
            months = self._call("list_archive").value
            self._archived = [b.text for path in months for b in MarkdownDoc(self._read(path) or "").bullets()]
        return self._archived

    def skill(self, path: str) -> str | None:
        """Current text of a skill (read once through the tools), None when it does not exist."""
        if path not in self._skills:
            exists = path.split("/")[1] in self._skill_names
            self._skills[path] = self._read(path) if exists else None
            self._original[path] = self._skills[path]
        return self._skills[path]

    def skill_names(self) -> set[str]:
        """Skills as they stand now: those the session began with, and those written since, minus none removed."""
        written = {path.split("/")[1] for path, text in self._skills.items() if text is not None}
        return self._skill_names | written

    def read_before(self, path: str) -> bool:
        """Whether the session has read (or written) this skill already: its text here is the current one."""
        return path in self._skills

    def owes_write(self, path: str) -> bool:
        """A changed skill `save` will write anyway: changing it again costs no further call."""
        text = self._skills.get(path)
        return text is not None and text != self._original.get(path)

    def calls_left(self) -> int:
        """Tool calls the session may still make, the writes `save` owes already counted."""
        owed = sum(1 for doc in self.docs.values() if doc.changed)
        owed += sum(1 for path, text in self._skills.items() if text is not None and text != self._original.get(path))
        return self._toolbox.limits.max_tool_calls - self._toolbox.calls - owed

    def original(self, path: str) -> str | None:
        """The file as it was when the session started (what the guards compare against)."""
        return self._original.get(path)

    def set_skill(self, path: str, text: str) -> None:
        self._skills[path] = text

    def save(self) -> None:
        """Write every file whose text changed, core files first, in a fixed order."""
        pending = {path: doc.render() for path, doc in self.docs.items() if doc.changed}
        pending.update({path: text for path, text in sorted(self._skills.items()) if text is not None})
        for path, text in pending.items():
            if text != self._original.get(path):
                self._call("write_file", path=path, content=text)

    def _read(self, path: str) -> str | None:
        result = self._invoke("read_file", path=path)
        if result.error == "not-found":
            return None
        return self._checked("read_file", path, result).value

    def _call(self, name: str, **arguments: str) -> ToolResult:
        return self._checked(name, arguments.get("path", name), self._invoke(name, **arguments))

    def _invoke(self, name: str, **arguments: str) -> ToolResult:
        try:
            return self._toolbox.invoke(name, **arguments)
        except SessionAborted as exc:
            raise SessionError(f"builtin engine stopped: {exc}", model_fault=True) from None

    @staticmethod
    def _checked(name: str, what: str, result: ToolResult) -> ToolResult:
        if not result.ok:
            verb = {"read_file": "read", "write_file": "save"}.get(name, f"run {name} on")
            raise SessionError(f"builtin engine could not {verb} {what}: {result.problem}")
        return result
