"""The builtin engine's tidy pass (`run --tidy`): drop repeated facts and stale open tasks, nothing else.

With no history there is no new evidence, so the pass only removes what is certainly redundant or
expired: a bullet whose fact key repeats an earlier bullet of the same file (here), and a dated open task
older than `ephemeral_max_age_days` (the batch path's own pruning, in builtin.py). It never re-files,
rewrites or merges anything, and it stays within the mass-deletion guard so the tidy is never refused;
what is over that limit goes in a later tidy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nanodream.engines.routing import OPEN_TASKS
from nanodream.markdown import Bullet, MarkdownDoc, starts_item
from nanodream.text.words import fact_key
from nanodream.workspace import SOUL

# What may directly follow a bullet that is one line long: the next bullet or a heading. Anything else
# (a sub-item, a continuation line, a code block) belongs to the bullet, and its one-line fact key would
# not tell the whole of what it says.


@dataclass(frozen=True)
class Duplicate:
    path: str
    removed: str
    kept: str


@dataclass
class TidyLedger:
    """What one tidy pass removed and what it held back, for the honest summary."""

    duplicates: list[Duplicate] = field(default_factory=list)
    duplicates_kept: dict[str, int] = field(default_factory=dict)  # path → held back by the deletion guard
    soul_duplicates_left: int = 0
    soul_policy: str = ""
    tasks_pruned: list[str] = field(default_factory=list)
    tasks_kept_stale: int = 0

    def summary(self, max_age_days: int) -> str:
        parts = [text for count, text in (
            (len(self.duplicates), _count(len(self.duplicates), "duplicate") + " removed"),
            (len(self.tasks_pruned), _count(len(self.tasks_pruned), "stale task") + " pruned"),
        ) if count]
        lines = [f'- {d.path}: duplicate removed: "{d.removed}" (same fact as "{d.kept}")' for d in self.duplicates]
        lines += [f'- task pruned (older than {max_age_days} days): "{text}"' for text in self.tasks_pruned]
        lines += [f"- {path}: {_count(count, 'duplicate')} kept for now: removing more in one run would trip "
                  "the mass-deletion guard" for path, count in self.duplicates_kept.items()]
        if self.tasks_kept_stale:
            lines.append(f"- {_count(self.tasks_kept_stale, 'stale task')} kept for now: pruning more in one run "
                         "would trip the mass-deletion guard")
        if self.soul_duplicates_left:
            lines.append(f"- {SOUL}: {_count(self.soul_duplicates_left, 'duplicate')} left alone: "
                         f'soul_policy = "{self.soul_policy}" refuses {SOUL} changes in a tidy run')
        subject = ", ".join(parts) if parts else ("nothing removed" if lines else "nothing to tidy")
        return "\n".join([f"builtin tidy: {subject}", *lines])


def remove_duplicates(path: str, doc: MarkdownDoc, budget: int | None, ledger: TidyLedger) -> None:
    """Remove each repeated fact of `doc`, first ones first, keeping the guard's loss within `budget`.

    `budget` is how many more of the file's lines may go (None: no limit); what does not fit stays and
    is counted, for a later tidy.
    """
    chosen: list[tuple[Bullet, Bullet]] = []
    for duplicate, first in duplicate_bullets(doc):
        # A line identical to the one kept is not lost as the guard counts lines.
        cost = 0 if doc.lines[duplicate.index].strip() == doc.lines[first.index].strip() else 1
        if budget is not None and cost > budget:
            ledger.duplicates_kept[path] = ledger.duplicates_kept.get(path, 0) + 1
            continue
        budget = None if budget is None else budget - cost
        chosen.append((duplicate, first))
    for duplicate, _ in reversed(chosen):
        doc.remove_line(duplicate.index)
    ledger.duplicates += [Duplicate(path, duplicate.text, first.text) for duplicate, first in chosen]


def duplicate_bullets(doc: MarkdownDoc) -> list[tuple[Bullet, Bullet]]:
    """(later bullet, first bullet with the same fact key) for every repeated fact, in file order.

    Open tasks follow their own rules and are left out; so is a bullet with lines of its own below it
    (it says more than its first line), and a bullet with no words (nothing to compare).
    """
    first_by_key: dict[tuple[str, ...], Bullet] = {}
    found: list[tuple[Bullet, Bullet]] = []
    for bullet in doc.bullets():
        if (bullet.section or "").lower() == OPEN_TASKS.lower():
            continue
        key = fact_key(bullet.text)
        if not key:
            continue
        first = first_by_key.setdefault(key, bullet)
        if first is not bullet and _stands_alone(doc, bullet):
            found.append((bullet, first))
    return found


def _stands_alone(doc: MarkdownDoc, bullet: Bullet) -> bool:
    """True when nothing below the bullet's line belongs to it, not even an indented paragraph after a gap."""
    rest = doc.lines[bullet.index + 1:]
    if rest and rest[0].strip():
        return starts_item(rest[0])
    following = next((line for line in rest if line.strip()), None)
    return following is None or not following[0].isspace()


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
