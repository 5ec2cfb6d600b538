"""Checks on the staged result; any blocking violation means nothing is applied.

Each rule names the file and the rule, never a secret. The same scanners also run inside the tools, so a
model hears about a problem while it can still fix it; this is the check that decides. A line holding a caught
secret or a hostile rule for the agent is not a reason to lose the batch: `leave_out_unsafe` takes that line
out (or redacts the secret) and reports it, whatever engine wrote it, and the rest is applied.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from nanodream.backlog.history import Batch, tagged_lines
from nanodream.changes import FileChange
from nanodream.config import Settings
from nanodream.engines.facts import batch_facts, corrects, holds, replaced_in_place
from nanodream.memory.staging import Staging
from nanodream.pinning import PIN, lost_pins
from nanodream.rejected import fact_key, fact_text
from nanodream.run import shape
from nanodream.run.parting import parted
from nanodream.safety import injection, secret_scan
from nanodream.skills import parse_skill
from nanodream.toolbox.limits import ToolLimits
from nanodream.toolbox.tools import Refusal
from nanodream.vocab import count
from nanodream.workspace import ARCHIVE_DIR, CORE_FILES, SOUL

# Tags an upstream summariser gives to facts it judged lasting; raw, untagged text is where pasted pages land.
SOUL_EVIDENCE_TAGS = ("permanent", "durable", "correction")
# Refusals an entry of the history can cause (it carries a credential, an injected instruction, a path outside
# memory): a batch refused for one of these is split to find the entry. Every other refusal says the model broke
# memory, which it does on any half of the batch.
ENTRY_CAUSED = frozenset({"reached outside memory", "secret", "injected instruction"})
CORRECTION_BESIDE = "correction beside the line it corrects"


@dataclass(frozen=True)
class Violation:
    path: str
    rule: str
    detail: str
    blocking: bool = True

    def __str__(self) -> str:
        return f"{self.path}: {self.rule} — {self.detail}"

    @property
    def entry_caused(self) -> bool:
        return self.rule in ENTRY_CAUSED


def check(staging: Staging, batch: Batch | None, settings: Settings, limits: ToolLimits,
          refusals: Iterable[Refusal] = (), *, strict_corrections: bool = True) -> list[Violation]:
    """Every rule over every changed file, plus what the session tried and was refused.

    Non-blocking violations are warnings to report; any blocking one means nothing may be applied. Lines that
    moved to the archive are not deletions, and lines a `[correction]` of the batch replaces are not losses;
    anything else a correction does not excuse. `strict_corrections`: a correction that landed beside the line
    it corrects is refused (a model's session) rather than reported (the built-in rules, which cannot be asked).
    """
    violations = [Violation("session", "reached outside memory", str(refusal), refusal.blocking)
                  for refusal in refusals]
    changes = staging.changes()
    corrections = [fact.text for fact in batch_facts(batch) if fact.is_correction] if batch is not None else []
    moved = {line.strip() for change in changes if change.path.startswith(f"{ARCHIVE_DIR}/")
             for line in _added_lines(change)}
    for change in changes:
        if change.after is None:
            violations += _check_deletion(change, changes, corrections)
        else:
            violations += _check_content(change, limits, settings)
            violations += _check_shrink(change, settings.max_shrink_ratio, corrections, moved)
            violations += [Violation(change.path, "broken structure", problem) for problem in shape.problems(change)]
            violations += _check_pins(change)
            if change.path == SOUL:
                violations += _check_soul(batch, settings.soul_policy)
    return violations + _check_corrections(staging, corrections, strict_corrections)


def _check_corrections(staging: Staging, corrections: list[str], strict: bool) -> list[Violation]:
    """A correction that is kept must have replaced the line it corrects, not landed beside it (and once it has,
    another line sharing its frame is not that line: `replaced_in_place`)."""
    found = []
    lines = [(path, line) for path in CORE_FILES for line in (staging.read(path) or "").splitlines()]
    began, now = staging.core_lines(began=True), {line for _, line in lines}
    for text in corrections:
        if not any(holds(fact_text(line), text, correction=True) for _, line in lines):
            continue
        if replaced_in_place(text, began, now):
            continue
        old = next(((path, line) for path, line in lines
                    if corrects(text, fact_text(line)) and not _other_names(text, fact_text(line))), None)
        if old is not None:
            found.append(Violation(old[0], CORRECTION_BESIDE,
                                   f"{old[1].strip()[:80]!r} is still there beside the correction {text[:80]!r}",
                                   blocking=strict))
    return found


_NAMED_THING = re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]+\b")


def _other_names(correction: str, line: str) -> bool:
    """The two name different things ('svc-0018' and 'svc-0019'): a line about another one is no line it corrects."""
    said, there = set(_NAMED_THING.findall(correction)), set(_NAMED_THING.findall(line))
    return bool(said and there and not said & there)


def _check_content(change: FileChange, limits: ToolLimits, settings: Settings) -> list[Violation]:
    assert change.after is not None
    found: list[Violation] = []
    cap = limits.cap_for(change.path)
    if len(change.after) > cap and not change.path.startswith(f"{ARCHIVE_DIR}/"):  # the archive has no cap
        found.append(Violation(change.path, "size cap", f"{len(change.after)} chars > cap {cap}"))
    if change.path.startswith("skills/"):
        try:
            parse_skill(change.path, change.after)
        except ValueError as exc:
            found.append(Violation(change.path, "invalid skill", str(exc)))
    for hit in secret_scan.scan_added(change.before, change.after):
        found.append(Violation(change.path, "secret", f"{hit}; secrets never go into memory"))
    for flag in injection.scan_added(change.before, change.after):
        found.append(Violation(change.path, "injected instruction", f"{flag}; memory holds facts, not commands",
                               blocking=settings.injection_policy == "refuse"))
    return found


def _added_lines(change: FileChange) -> set[str]:
    return set((change.after or "").splitlines()) - set((change.before or "").splitlines())


def _check_shrink(change: FileChange, max_ratio: float, corrections: list[str], moved: set[str]) -> list[Violation]:
    """Too many lines gone; a line a correction of the batch replaces does not count, nothing else is excused."""
    if not change.before:
        return []
    before_lines = [line.strip() for line in change.before.splitlines() if line.strip()]
    kept = {line.strip() for line in (change.after or "").splitlines()} | moved
    lost = [line for line in before_lines if line not in kept]
    lost = [line for line in lost if not any(corrects(text, fact_text(line)) for text in corrections)]
    if before_lines and len(lost) / len(before_lines) > max_ratio:
        excused = " the batch's corrections replace none of them;" if corrections else ""
        return [Violation(change.path, "mass deletion",
                          f"{len(lost)} of {len(before_lines)} lines removed (> {max_ratio:.0%});{excused} "
                          f"first: {lost[0][:60]!r}")]
    return []


def _check_pins(change: FileChange) -> list[Violation]:
    """A line a person pinned stays verbatim in its file; only the person unpins it."""
    dropped = lost_pins(change.before, change.after)
    if not dropped:
        return []
    return [Violation(change.path, "pinned line removed",
                      f"{count(len(dropped), 'line')} marked {PIN} changed or gone, first: {dropped[0][:80]!r}")]


def _check_deletion(change: FileChange, changes: list[FileChange], corrections: list[str]) -> list[Violation]:
    if change.path in CORE_FILES:
        return [Violation(change.path, "deleted core file", "SOUL.md, USER.md and memory/MEMORY.md always stay")]
    if change.before is None or merged_into(change, changes) is not None or _named(change.path, corrections):
        return []
    return [Violation(change.path, "skill deleted without merging",
                      "no skill written in this run carries its name, description or steps, and no [correction] "
                      "of the batch names it; merge it into another skill first")]


def _named(path: str, corrections: list[str]) -> bool:
    """A correction of the batch names the skill: it may justify dropping it."""
    name = path.split("/")[1]
    spelled = {name, name.replace("-", " ")}
    return any(spelling in text.lower() for text in corrections for spelling in spelled)


def merged_into(deleted: FileChange, changes: list[FileChange]) -> FileChange | None:
    """The skill this run wrote that took in the deleted one: it names it, repeats its description, or holds half
    its steps; None when no skill did."""
    assert deleted.before is not None
    name = deleted.path.split("/")[1]
    try:
        info = parse_skill(deleted.path, deleted.before)
        description, body = info.description.lower(), info.body
    except ValueError:
        description, body = "", deleted.before
    steps = {_norm(line) for line in body.splitlines() if len(_norm(line)) > 3 and not line.lstrip().startswith("#")}
    for other in changes:
        if other is deleted or other.after is None or not other.path.startswith("skills/"):
            continue
        text = other.after.lower()
        if re.search(rf"(?<![a-z0-9-]){re.escape(name)}(?![a-z0-9-])", text) or (description and description in text):
            return other
        kept = steps & {_norm(line) for line in other.after.splitlines()}
        if steps and len(kept) * 2 >= len(steps):
            return other
    return None


def _norm(line: str) -> str:
    """A step without list numbering or bullet, so renumbering on merge still counts as kept."""
    return re.sub(r"^\s*(?:[-*+]|\d+[.)])\s*", "", line).strip().lower()


def _check_soul(batch: Batch | None, policy: str) -> list[Violation]:
    if policy == "locked":
        return [Violation(SOUL, "soul locked", 'soul_policy = "locked": only a person edits how the agent behaves')]
    if policy == "tagged" and not _has_soul_evidence(batch):
        return [Violation(SOUL, "untrusted soul change",
                          "the batch has no [permanent], [durable] or [correction] line; untagged history "
                          'cannot change how the agent behaves (soul_policy = "tagged")')]
    return []


def _has_soul_evidence(batch: Batch | None) -> bool:
    if batch is None:
        return False
    return any(tag in SOUL_EVIDENCE_TAGS for entry in batch.entries for tag, _ in tagged_lines(entry.content))


def leave_out_unsafe(staging: Staging, settings: Settings) -> list[str]:
    """Take out of the staged files every line the session added that holds a secret (`secret_policy = "redact"`:
    redact the secret instead) or a rule that would turn the agent against its user (exfiltration, disclosure,
    remote code, concealment; with `injection_policy = "warn"` such a rule stays and is reported by `check`).

    Returns one line per finding for the run's warnings: the file and the rule, and for an agent rule the line
    itself (secrets redacted, hidden characters shown) so a person can judge it; never a secret's value.
    """
    notes: list[str] = []
    for path in staging.existing_paths():
        before, text = staging.original.get(path), staging.read(path) or ""
        if text == before:
            continue
        kept, found = _without_secrets(before, text, redact=settings.secret_policy == "redact")
        if settings.injection_policy == "refuse":
            kept, rules = _without_agent_rules(before, kept)
            found += rules
        if before is not None and _words(kept) == _words(before):
            kept = before  # what is left of the edit is the blank line around what was taken out
        if kept != text:
            staging.write(path, kept)
        notes += [f"{path}: {note}" for note in found]
    return notes


def _words(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip()]


def _without_secrets(before: str | None, text: str, *, redact: bool) -> tuple[str, list[str]]:
    if redact:
        kept, hits = secret_scan.redact(before, text)
        return kept, [f"redacted {hit}; secrets never go into memory" for hit in hits]
    kept, hits = secret_scan.without_secrets(before, text)
    return kept, [f"left out {hit}; secrets never go into memory" for hit in hits]


def _without_agent_rules(before: str | None, text: str) -> tuple[str, list[str]]:
    lines = text.splitlines(keepends=True)
    hostile: dict[int, list[str]] = {}
    for hit in injection.scan_added(before, text):
        if hit.rule in injection.AGENT_RULES:
            hostile.setdefault(hit.line, []).append(hit.rule)
    notes = [f"left out line {number}, an agent rule ({', '.join(rules)}): {injection.quoted(lines[number - 1])!r}"
             for number, rules in sorted(hostile.items())]
    return (parted(before or "", text, set(hostile))[0] if hostile else text), notes


def drop_rejected(staging: Staging, keys: frozenset[frozenset[str]]) -> list[str]:
    """Take out of the staged core files every line the session added that states a rejected fact.

    The prompt only shows an excerpt and a model may ignore it; this is what makes "never re-added" hold
    for every engine. Lines that were there before the session are left alone (a person may have re-added one).
    """
    dropped: list[str] = []
    for path in CORE_FILES if keys else ():
        text = staging.read(path)
        if text is None:
            continue
        before = Counter((staging.original.get(path) or "").split("\n"))
        kept = []
        for line in text.split("\n"):
            if before[line] > 0:
                before[line] -= 1
            elif fact_key(line) in keys:
                dropped.append(f"{path}: {fact_text(line)}")
                continue
            kept.append(line)
        if len(kept) != len(text.split("\n")):
            staging.write(path, "\n".join(kept))
    return dropped
