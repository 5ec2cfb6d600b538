"""What the builtin engine did to one batch, and the honest summary that becomes the commit message."""

from __future__ import annotations

from dataclasses import dataclass, field

from nanodream.workspace import CORE_FILES

SUBJECT_LIMIT = 60


@dataclass(frozen=True)
class Change:
    path: str
    old: str
    new: str


@dataclass
class Ledger:
    """Counts and changes in the order they happened; `summary()` renders them."""

    skipped_lines: int = 0
    added: dict[str, int] = field(default_factory=dict)
    folded: dict[str, int] = field(default_factory=dict)  # earlier batches' lines moved into a skill, by file
    refined: list[Change] = field(default_factory=list)
    corrected: list[Change] = field(default_factory=list)
    corrections_as_new: list[str] = field(default_factory=list)
    superseded: list[Change] = field(default_factory=list)  # lines that only restated a replaced fact: gone with it
    skills: list[tuple[str, str, bool]] = field(default_factory=list)
    tasks_opened: list[str] = field(default_factory=list)
    tasks_updated: list[str] = field(default_factory=list)
    tasks_resolved: list[str] = field(default_factory=list)
    tasks_unmatched: list[str] = field(default_factory=list)
    tasks_pruned: list[str] = field(default_factory=list)
    tasks_kept_stale: int = 0
    duplicates: int = 0
    rejected: int = 0
    promoted: int = 0  # hypothesis lines a stated fact confirmed (marker removed)
    anti_patterns: list[str] = field(default_factory=list)  # anti-pattern lines added or corrected in SOUL.md
    sightings: list[str] = field(default_factory=list)  # inferred preferences seen, with their count and tone
    staled: list[str] = field(default_factory=list)  # hypothesis lines a stated fact contradicted
    ask_first: int = 0  # lines filed with <!-- ask-first -->
    skills_deferred: int = 0  # skill changes left for a later batch: the tool-call cap had no room
    withheld: int = 0
    withheld_secrets: list[str] = field(default_factory=list)  # "<file>: withheld a fact holding a credential (…)"
    redacted: int = 0  # facts filed with their credential redacted (secret_policy = "redact")
    withheld_injection: int = 0
    withheld_rules: list[str] = field(default_factory=list)  # "<file>: withheld an agent rule (<kinds>): '<line>'"
    untagged: int = 0
    not_memory: list[str] = field(default_factory=list)  # tagged lines of a kind memory never keeps, and the kind
    declined: dict[str, str] = field(default_factory=dict)  # a tagged line that changed nothing → why
    kept_as: dict[str, str] = field(default_factory=dict)  # a tagged line that changed memory → in what form

    def kept_out(self) -> tuple[int, ...]:
        """The counts of lines kept out of memory, in the order of `_KEPT_OUT`."""
        return tuple(len(value) if isinstance(value, list) else value
                     for value in (getattr(self, name) for name, _ in _KEPT_OUT))

    def progress(self) -> tuple[int, ...]:
        """The counts of changes made to memory, in the order of `_FILED`."""
        return tuple(_size(getattr(self, name)) for name, _ in _FILED)

    def how_filed(self, before: tuple[int, ...]) -> str:
        """In what form the line taken since `before` changed memory; "" when it changed nothing."""
        return next((how for (_, how), old, new in zip(_FILED, before, self.progress(), strict=True) if new > old), "")

    def why_kept_out(self, before: tuple[int, ...]) -> str:
        """Why the line taken since `before` changed nothing; "" when it changed memory."""
        return next((why for (_, why), old, new in zip(_KEPT_OUT, before, self.kept_out(), strict=True)
                     if new > old), "")

    def note_added(self, path: str) -> None:
        self.added[path] = self.added.get(path, 0) + 1

    def note_folded(self, path: str, *, this_batch: bool) -> None:
        """A procedure's line moved into the skill it became: one this batch added is no longer added; an older
        one is said to have moved, so the summary names every file the commit changes."""
        if this_batch:
            self.added[path] -= 1
            if not self.added[path]:
                del self.added[path]
        else:
            self.folded[path] = self.folded.get(path, 0) + 1

    def note_refined(self, path: str, old: str, new: str) -> None:
        self.refined.append(Change(path, old, new))

    def note_corrected(self, path: str, old: str, new: str) -> None:
        self.corrected.append(Change(path, old, new))

    def note_skill(self, path: str, what: str, *, changed: bool) -> None:
        self.skills.append((path, what, changed))

    @property
    def filed(self) -> int:
        return sum(self.added.values()) + len(self.refined)

    @property
    def changed_skills(self) -> list[str]:
        return sorted({path for path, _, changed in self.skills if changed})

    def subject(self) -> str:
        """First line, at most 60 characters: the numbers a reviewer checks first."""
        parts = [_count(self.filed, "fact") + " filed"]
        optional = [
            (len(self.corrected), _count(len(self.corrected), "correction")),
            (len(self.anti_patterns), _count(len(self.anti_patterns), "anti-pattern")),
            (len(self.tasks_resolved), _count(len(self.tasks_resolved), "task") + " resolved"),
            (len(self.tasks_pruned), _count(len(self.tasks_pruned), "task") + " pruned"),
            (len(self.tasks_opened) + len(self.tasks_updated),
             _count(len(self.tasks_opened) + len(self.tasks_updated), "task") + " tracked"),
            (len(self.changed_skills), _count(len(self.changed_skills), "skill") + " updated"),
        ]
        parts += [text for count, text in optional if count]
        while len("builtin: " + ", ".join(parts)) > SUBJECT_LIMIT and len(parts) > 1:
            parts.pop()
        return "builtin: " + ", ".join(parts)

    def summary(self, max_age_days: int) -> str:
        lines = [self.subject()]
        lines += self._file_lines()
        lines += [f"- {path}: {what}" for path, what, _ in self.skills]
        lines += [f'- corrected in {c.path}: "{c.old}" → "{c.new}"' for c in self.corrected]
        lines += [f'- went with it from {c.path}: "{c.old}"' for c in self.superseded]
        lines += [f'- correction with no similar fact, filed as new: "{text}"' for text in self.corrections_as_new]
        lines += [f'- refined in {c.path}: "{c.old}" → "{c.new}"' for c in self.refined]
        lines += [f'- anti-pattern in SOUL.md: "{text}"' for text in self.anti_patterns]
        lines += [f"- inferred preference {text}" for text in self.sightings]
        lines += [f'- hypothesis contradicted, marked stale: "{text}"' for text in self.staled]
        lines += [f'- task opened: "{text}"' for text in self.tasks_opened]
        lines += [f'- task updated: "{text}"' for text in self.tasks_updated]
        lines += [f'- task resolved: "{text}"' for text in self.tasks_resolved]
        lines += [f'- task marked done but not open, nothing removed: "{text}"' for text in self.tasks_unmatched]
        lines += [f'- task pruned (older than {max_age_days} days): "{text}"' for text in self.tasks_pruned]
        if self.tasks_kept_stale:
            lines.append(f"- {_count(self.tasks_kept_stale, 'stale task')} kept for now: pruning more in one batch "
                         "would trip the mass-deletion guard")
        counts = [
            (self.duplicates, _count(self.duplicates, "duplicate") + " skipped (already in memory)"),
            (self.promoted, _count(self.promoted, "hypothesis line") + " confirmed by a stated fact (marker removed)"),
            (self.rejected, _count(self.rejected, "fact") + " skipped: a person rejected it (memory/rejected.md)"),
            (self.ask_first, _count(self.ask_first, "line") + " marked ask-first (payments, credentials, security "
             "or personal data)"),
            (self.skills_deferred, _count(self.skills_deferred, "skill change") + " left for a later batch (the "
             "session's tool-call cap)"),
            (self.withheld, _count(self.withheld, "line") + " withheld: looks like a secret"),
            (self.redacted, _count(self.redacted, "line") + " filed with its credential redacted"),
            (self.withheld_injection,
             _count(self.withheld_injection, "line") + " withheld: reads like instructions aimed at the agent"),
            (self.untagged, _count(self.untagged, "untagged line") + " not filed: the gist of what else was said "
             "(history keeps it for recall)"),
            (len(self.not_memory), _count(len(self.not_memory), "tagged line") + " not filed: "
             + ", ".join(sorted(set(self.not_memory))) + " (never memory)"),
            (self.skipped_lines, _count(self.skipped_lines, "[skip] line") + " dropped before the session"),
        ]
        lines += [f"- {text}" for count, text in counts if count]
        if len(lines) == 1:
            lines.append("- nothing in this batch matched a rule")
        return "\n".join(lines)

    def _file_lines(self) -> list[str]:
        """One line per core file that changed: added, refined and corrected facts."""
        lines = []
        for path in CORE_FILES:
            parts = [
                (self.added.get(path, 0), "added"),
                (sum(1 for c in self.refined if c.path == path), "refined"),
                (sum(1 for c in self.corrected if c.path == path), "corrected"),
                (self.folded.get(path, 0), "moved into a skill"),
            ]
            shown = [f"{count} {label}" for count, label in parts if count]
            if shown:
                lines.append(f"- {path}: {', '.join(shown)}")
        return lines


# Ledger fields counting lines kept out of memory, and how the accounting words each reason.
_KEPT_OUT = (
    ("duplicates", "already in memory"),
    ("rejected", "a person rejected it (memory/rejected.md)"),
    ("withheld", "withheld: it looks like a secret"),
    ("withheld_injection", "withheld: it reads like instructions aimed at the agent"),
    ("tasks_unmatched", "it marks a task done that is not open"),
    ("not_memory", "not a line memory keeps (a question, a heading, a fragment, or code in USER.md)"),
)


# Ledger fields recording changes to memory, and how the accounting words each form a line took.
_FILED = (
    ("added", "a line of its own"),
    ("refined", "a sharper version of a line"),
    ("corrected", "the line it corrects, replaced"),
    ("corrections_as_new", "a line of its own (nothing similar to correct)"),
    ("anti_patterns", "an anti-pattern in SOUL.md"),
    ("skills", "a change to a skill"),
    ("sightings", "a sighting of an inferred preference"),
    ("staled", "a stale mark on the hypothesis it contradicts"),
    ("promoted", "a confirmed hypothesis line"),
    ("ask_first", "an ask-first line"),
)


def _size(value: int | list | dict) -> int:
    return value if isinstance(value, int) else sum(value.values()) if isinstance(value, dict) else len(value)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
