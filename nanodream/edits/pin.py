"""`nanodream pin`: add or take away a line's `<!-- keep -->` marker, as one commit of the person's own.

Pinning with the command is a person's edit, never a dream's, written through the same journal as every
other change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nanodream.atomic import read_text
from nanodream.changes import FileChange
from nanodream.edits.shared import committed, through_door
from nanodream.memory.door import Door
from nanodream.pinning import PIN, Match, find_lines, is_pinned, unpinned
from nanodream.vocab import ExitCode, Outcome, Refused, Report, Trailer, format_trailers, new_run_id
from nanodream.workspace import Workspace


@dataclass
class PinReport(Report):
    """What `pin` did (docs/json.md): pinned | unpinned | nothing-to-do (already so) | refused | busy | blocked."""

    path: str = ""
    line: int = 0
    text: str = ""  # the line as it reads now
    changed: bool = False
    commit: str | None = None
    manual_commit: str | None = None
    matches: list[Match] = field(default_factory=list)  # the candidates when TEXT named several lines


def pin(workspace: Workspace, text: str, *, path: str | None = None, remove: bool = False) -> PinReport:
    """Add (or, `remove`, take away) the pin marker on the one active line holding `text`, as one commit."""
    report = PinReport(outcome=Outcome.REFUSED)
    if not " ".join(text.split()):
        report.refuse(Refused("give some text of the line to pin", exit_code=ExitCode.USAGE))
        return report
    through_door(workspace, report, lambda door: _pin(door, text, path, remove, report))
    return report


def _pin(door: Door, text: str, path: str | None, remove: bool, report: PinReport) -> None:
    workspace = door.workspace
    if path is not None:
        try:
            path = workspace.check_memory_path(path)
        except ValueError as exc:
            raise Refused(str(exc), exit_code=ExitCode.USAGE) from None
    door.settle()
    match = _one_match(workspace, text, path, report)
    report.path, report.line, report.text = match.path, match.line, match.text
    report.changed = is_pinned(match.text) == remove
    if not report.changed:
        report.outcome, report.reason = Outcome.NOTHING_TO_DO, "is not pinned" if remove else "is already pinned"
        return
    new_line = unpinned(match.text) if remove else f"{match.text.rstrip()} {PIN}"
    before = read_text(workspace.root / match.path)  # exact: CRLF and bytes that are not UTF-8 stay as they are
    lines = before.split("\n")
    lines[match.line - 1] = new_line + ("\r" if lines[match.line - 1].endswith("\r") else "")
    change = FileChange(match.path, before, "\n".join(lines))
    report.commit = committed(door, f"pin-{new_run_id()}", pin_message(match.path, new_line, remove), [change])
    report.text = new_line
    report.outcome = Outcome.UNPINNED if remove else Outcome.PINNED


def pin_message(path: str, line: str, remove: bool) -> str:
    shown = " ".join(unpinned(line).lstrip("-*+ ").split())
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    verb = "unpin" if remove else "pin"
    why = ("The line may now be consolidated and archived like any other." if remove else
           "A pinned line never leaves the active files: not archived, not dropped by a dream.")
    return "\n".join([f"{verb}: {shown} ({path})", "", why, "", *format_trailers([(Trailer.KIND, "manual")])])


def _one_match(workspace: Workspace, text: str, path: str | None, report: PinReport) -> Match:
    matches = find_lines(workspace, text, path)
    where = path or "the active memory files"
    if not matches:
        raise Refused(f"no line of {where} holds {text!r} (an archived fact is not active; move it back by hand "
                      "first)")
    if len(matches) > 1:
        report.matches = matches  # the candidates, for a person to choose from
        raise Refused(f"{len(matches)} lines of {where} hold {text!r}", "give more of the line or --file PATH",
                      ExitCode.USAGE)
    return matches[0]
