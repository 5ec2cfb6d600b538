"""When history last restated each line of memory/MEMORY.md: what makes a line hot besides git blame.

A durable fact the user repeats leaves the file unchanged, so git blame keeps its first date; without a
record of the restatement, `archive_after_days` would archive a fact confirmed last week. The record is
nanodream's own state (`.nanodream/confirmed.json`: normalised line → ISO day), kept only for lines still in
the file, written after a batch is applied. Losing it costs nothing but precision: ages fall back to blame.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import date

from nanodream import boundedjson
from nanodream.atomic import atomic_write
from nanodream.workspace import Workspace


def line_key(line: str) -> str:
    """What identifies a line across runs: its words, case and spacing aside."""
    return " ".join(line.lower().split())


def load(workspace: Workspace) -> dict[str, date]:
    try:
        raw = boundedjson.load_file(workspace.state_dir / "confirmed.json")
        return {key: date.fromisoformat(day) for key, day in raw.items()}
    except FileNotFoundError:
        return {}
    except (ValueError, TypeError, AttributeError, UnicodeDecodeError):
        return {}  # a damaged record only costs precision (see the module docstring)


def record(workspace: Workspace, confirmed: Iterable[str], day: date, present: Iterable[str]) -> None:
    """Note that the lines `confirmed` were restated on `day`; forget lines no longer `present` in the file."""
    keep = {line_key(line) for line in present}
    before = load(workspace)
    known = {key: when for key, when in before.items() if key in keep}
    fresh = {line_key(line) for line in confirmed} & keep
    if not fresh and known == before:
        return
    known.update(dict.fromkeys(fresh, day))
    workspace.state_dir.mkdir(exist_ok=True)
    atomic_write(workspace.state_dir / "confirmed.json",
                 json.dumps({key: when.isoformat() for key, when in sorted(known.items())}, indent=0) + "\n")
