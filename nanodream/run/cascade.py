"""When a fact changes, the lines written in terms of its old value are revised or flagged, never left silently.

A dependent line names the value that stopped being true (engines/replacing.py: the old value's names and
identifiers, "Nomad" of "deploys with Nomad on host atlas") and none of what replaced it. Naming is the rule
because it is what a person can check at a glance and what no line written after the change does by accident;
a line merely about the same subject ("Prefers tea") is not made untrue by a move.

- In the dream that replaces the fact: the builtin engine drops a dependent that said nothing beyond the old
  fact (it is archived with it); a model is told, once, which lines still name the old value
  (run/revisit.py).
- After it: `out_of_date` lists every active line still naming the old value of a replaced fact in the
  archive, as "may be out of date since <fact> changed on <date>" — `status` shows it and a reflection pass
  can call it. A line stops being listed when it is revised, removed, pinned by a person (their call), or when
  the old value becomes true again (a later replacement names it as its successor).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from nanodream.atomic import read_bytes
from nanodream.markdown import with_fences
from nanodream.pinning import PIN
from nanodream.rejected import fact_text
from nanodream.text.words import fact_key
from nanodream.validity import Validity, parse_validity
from nanodream.workspace import ARCHIVE_DIR, ARCHIVE_PATH, CORE_FILES, Workspace

if TYPE_CHECKING:
    from nanodream.engines.replacing import Change

MAX_LISTED = 100  # out-of-date lines `status` shows; a workspace with more has a bigger problem to read first


@dataclass(frozen=True)
class OutOfDate:
    """An active line that names the old value of a fact that changed."""

    file: str
    line: int  # 1-based
    text: str
    fact: str  # the fact that changed, as it was
    changed_on: str  # YYYY-MM-DD: the day it stopped being true
    replaced_by: str  # what replaced it ("" when nothing did)

    @property
    def message(self) -> str:
        return f'{self.file}:{self.line}: may be out of date since "{self.fact}" changed on {self.changed_on}'

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "message": self.message}


def out_of_date(workspace: Workspace, limit: int = MAX_LISTED) -> list[OutOfDate]:
    """Active lines still naming the old value of a replaced fact of the archive, newest change first.

    Reads the archive months and the three core files; no git, no model.
    """
    replaced = _replaced_facts(workspace)
    if not replaced:
        return []  # nothing replaced, nothing to check: `status` does not load the rules that would check it
    changes = _latest_changes(replaced)
    found: list[OutOfDate] = []
    for path in CORE_FILES:
        file = workspace.root / path
        if not file.is_file() or file.is_symlink():
            continue
        lines = read_bytes(file).decode("utf-8", errors="replace").split("\n")
        for number, (line, code) in enumerate(with_fences(lines), start=1):
            fact = fact_text(line) if not code and line.lstrip().startswith(("- ", "* ", "+ ")) else ""
            if not fact or PIN in line:
                continue
            hit = next(((v, change) for v, change in changes if _depends(fact, v, change)), None)
            if hit is not None:
                validity = hit[0]
                found.append(OutOfDate(path, number, fact, validity.text, validity.until.isoformat(),
                                       validity.successor))
    found.sort(key=lambda item: item.changed_on, reverse=True)
    return found[:limit]


def _depends(fact: str, validity: Validity, change: Change) -> bool:
    from nanodream.engines.replacing import names_old_value

    return fact_key(fact) != fact_key(validity.successor) and names_old_value(fact, change)


def _replaced_facts(workspace: Workspace) -> list[Validity]:
    folder = workspace.root / ARCHIVE_DIR
    if not folder.is_dir() or folder.is_symlink():
        return []
    found = []
    for path in sorted(folder.glob("*.md")):
        if path.is_symlink() or not ARCHIVE_PATH.fullmatch(f"{ARCHIVE_DIR}/{path.name}"):
            continue
        for line in read_bytes(path).decode("utf-8", errors="replace").splitlines():
            validity = parse_validity(line)
            if validity is not None:
                found.append(validity)
    return found


def _latest_changes(facts: list[Validity]) -> list[tuple[Validity, Change]]:
    """Each replaced fact with its change, newest first, without those whose old value became true again."""
    from nanodream.engines.replacing import names_old_value, value_change

    facts = sorted(facts, key=lambda v: v.until, reverse=True)
    changes = [(v, value_change(v.text, v.successor)) for v in facts]
    kept = []
    for index, (validity, change) in enumerate(changes):
        later = [other for other, _ in changes[:index] if other.until > validity.until]
        if not any(names_old_value(other.successor, change) for other in later):
            kept.append((validity, change))
    return kept
