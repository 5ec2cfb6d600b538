"""Pinned lines: a person's `<!-- keep -->` marker keeps a line in the active files, whatever fills up.

The marker is visible in the file, so a person can pin by hand as well as with `nanodream pin TEXT`; the
pressure step never moves a pinned line, the tools refuse to drop or archive one, and the guards refuse a
result that lost one. Pinning with the command is one commit of its own (a person's edit, never a dream's),
written through the same journal as every other change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nanodream.markdown import with_fences
from nanodream.vocab import ExitCode, Trailer, format_trailers, new_run_id
from nanodream.workspace import CORE_FILES, Workspace

PIN = "<!-- keep -->"


def is_pinned(line: str) -> bool:
    return PIN in line


def pinned_lines(text: str | None) -> list[str]:
    """The pinned lines of `text`, stripped (how the checks compare them)."""
    return [line.strip() for line in (text or "").splitlines() if is_pinned(line)]


def lost_pins(before: str | None, after: str | None) -> list[str]:
    """Pinned lines of `before` that `after` no longer holds verbatim."""
    kept = {line.strip() for line in (after or "").splitlines()}
    return [line for line in pinned_lines(before) if line not in kept]


@dataclass
class Match:
    path: str
    line: int  # 1-based
    text: str


@dataclass
class PinReport:
    path: str
    line: int
    text: str  # the line as it reads now
    changed: bool
    commit: str | None = None
    manual_commit: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "text": self.text, "changed": self.changed,
                "commit": self.commit, "manual_commit": self.manual_commit}


class PinError(Exception):
    """Why nothing was pinned, with the exit code that says so; `matches` lists candidates when ambiguous."""

    def __init__(self, reason: str, code: int = ExitCode.FAILED, matches: list[Match] | None = None) -> None:
        super().__init__(reason)
        self.reason, self.code, self.matches = reason, code, matches or []


def find_lines(workspace: Workspace, text: str, path: str | None = None) -> list[Match]:
    """Lines of the active memory files (or of `path`) holding `text`, case aside; headings and code excluded."""
    needle = " ".join(text.split()).lower()
    paths = [path] if path else [*CORE_FILES, *sorted(_skill_paths(workspace))]
    found = []
    for rel in paths:
        file = workspace.root / rel
        if not file.is_file() or file.is_symlink():
            continue
        lines = file.read_text(encoding="utf-8").splitlines()
        body = _front_matter_end(lines)
        for number, (line, code) in enumerate(with_fences(lines), start=1):
            if number > body and not code and line.strip() and not line.lstrip().startswith("#") and \
                    needle in " ".join(line.split()).lower():
                found.append(Match(rel, number, line))
    return found


def _front_matter_end(lines: list[str]) -> int:
    """How many leading lines are a skill's front matter (YAML, where a marker would change a value)."""
    if not lines or lines[0].strip() != "---":
        return 0
    return next((number for number, line in enumerate(lines[1:], start=2) if line.strip() == "---"), 0)


def pin(workspace: Workspace, text: str, *, path: str | None = None, remove: bool = False) -> PinReport:
    """Add (or, `remove`, take away) the pin marker on the one active line holding `text`, as one commit."""
    from nanodream.run import apply
    from nanodream.run.lock import WorkspaceBusy, workspace_lock
    from nanodream.run.staging import FileChange
    from nanodream.versioning.gitstate import NeedsPerson
    from nanodream.versioning.gitstore import GitStore

    if not " ".join(text.split()):
        raise PinError("give some text of the line to pin", ExitCode.USAGE)
    if path is not None:
        try:
            path = workspace.check_memory_path(path)
        except ValueError as exc:
            raise PinError(str(exc), ExitCode.USAGE) from None
    store = GitStore(workspace)
    try:
        with workspace_lock(workspace):
            prepared = apply.prepare(workspace, store)
            match = _one_match(workspace, text, path)
            new_line = _unpinned(match.text) if remove else f"{match.text.rstrip()} {PIN}"
            report = PinReport(match.path, match.line, match.text, changed=is_pinned(match.text) == remove,
                               manual_commit=prepared.manual_commit)
            if not report.changed:
                return report
            before = (workspace.root / match.path).read_text(encoding="utf-8")
            lines = before.split("\n")
            lines[match.line - 1] = new_line
            change = FileChange(match.path, before, "\n".join(lines))
            message = pin_message(match.path, new_line, remove)
            report.commit = apply.apply(workspace, store, apply.journal_for(f"pin-{new_run_id()}", message, [change]))
            report.text = new_line
            return report
    except WorkspaceBusy as exc:
        raise PinError(str(exc), ExitCode.BUSY) from None
    except NeedsPerson as exc:
        raise PinError(f"{exc.reason} ({exc.hint})" if exc.hint else exc.reason, ExitCode.NEEDS_PERSON) from None


def pin_message(path: str, line: str, remove: bool) -> str:
    shown = " ".join(_unpinned(line).lstrip("-*+ ").split())
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    verb = "unpin" if remove else "pin"
    why = ("The line may now be consolidated and archived like any other." if remove else
           "A pinned line never leaves the active files: not archived, not dropped by a dream.")
    return "\n".join([f"{verb}: {shown} ({path})", "", why, "", *format_trailers([(Trailer.KIND, "manual")])])


def _one_match(workspace: Workspace, text: str, path: str | None) -> Match:
    matches = find_lines(workspace, text, path)
    where = path or "the active memory files"
    if not matches:
        raise PinError(f"no line of {where} holds {text!r} (an archived fact is not active; move it back by hand "
                       "first)")
    if len(matches) > 1:
        raise PinError(f"{len(matches)} lines of {where} hold {text!r}; give more of the line or --file PATH",
                       ExitCode.USAGE, matches)
    return matches[0]


def _unpinned(line: str) -> str:
    return line.replace(f" {PIN}", "").replace(PIN, "").rstrip()


def _skill_paths(workspace: Workspace) -> list[str]:
    folder = workspace.root / "skills"
    return [f"skills/{p.parent.name}/SKILL.md" for p in folder.glob("*/SKILL.md")] if folder.is_dir() else []
