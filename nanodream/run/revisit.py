"""A model that replaced a fact is told, once, which other lines still name the value that stopped being true.

The follow-up rides in the same conversation, after the no-op check, so the model revises or removes those
lines in the same dream (or leaves the ones still true). A line depends on the old value when it names it and
none of what replaced it (engines/replacing.py); what a session leaves is listed by run/cascade.py once the
batch lands. The builtin engine answers a follow-up as before: its rules already did what they can decide.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from nanodream.engines import Engine, SessionError, SessionRequest, SessionResult
from nanodream.engines.replacing import names_old_value, value_change
from nanodream.markdown import MarkdownDoc
from nanodream.pinning import PIN
from nanodream.run.supersede import replacements
from nanodream.text.words import fact_key
from nanodream.toolbox.tools import ToolBox
from nanodream.vocab import count
from nanodream.workspace import CORE_FILES


def revisit(engine: Engine, request: SessionRequest, result: SessionResult, toolbox: ToolBox, *,
            today: date) -> SessionResult:
    """After a session that replaced facts, ask once about the lines still naming an old value; the model
    updates or removes them, or leaves those still true. A failed follow-up keeps the session's edits and
    says so; whatever is left is listed by run/cascade.py's `out_of_date` once the batch lands."""
    staging = toolbox.staging
    replaced = replacements(staging, request.batch if request.batch.entries else None, today=today)
    pending = _dependents(staging.read, [(item.old.text, item.new) for item in replaced if item.from_files])
    if not pending:
        return result
    summary = result.summary
    try:
        followed = engine.follow_up(request, result, revisit_message(pending), toolbox)
    except SessionError as exc:
        result.warnings.append(f"could not ask the model to revisit {count(len(pending), 'line')} naming a "
                               f"replaced value: {exc.reason}")
        return result
    said = followed.summary.strip()
    followed.summary = summary if not said or said == summary else f"{summary}\n{said}"
    return followed


def _dependents(read: Callable[[str], str | None], pairs: list[tuple[str, str]]) -> list[tuple[str, str, str, str]]:
    """(file, line, old fact, new fact) for each staged line that names an old value of `pairs`."""
    changes = [(old, new, value_change(old, new)) for old, new in pairs]
    found = []
    for path in CORE_FILES:
        for bullet in MarkdownDoc(read(path) or "").bullets():
            if PIN in bullet.text:
                continue
            hit = next(((old, new) for old, new, change in changes
                        if fact_key(bullet.text) != fact_key(new) and names_old_value(bullet.text, change)), None)
            if hit is not None:
                found.append((path, bullet.text, *hit))
    return found


def revisit_message(pending: list[tuple[str, str, str, str]]) -> str:
    """The one follow-up a model gets: the lines written in terms of a value it just replaced."""
    listed = "\n".join(f'{n}. {path}: "{line}" (names the old value of "{old}", now "{new}")'
                       for n, (path, line, old, new) in enumerate(pending, start=1))
    return (f"You replaced facts, and these other lines still name the old value:\n\n{listed}\n\n"
            "Revisit each one now: update it to the new value with edit_file, remove it if the change makes it "
            "untrue, or leave it if it is still true as written. Then finish with a one-line summary. nanodream "
            "keeps every replaced line in the archive with its dates; do not archive them yourself.")
