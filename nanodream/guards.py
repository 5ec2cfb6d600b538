"""Checks on the staged result; any violation means nothing is applied."""

from __future__ import annotations

import re
from dataclasses import dataclass

from nanodream.history import Batch
from nanodream.skills import parse_skill
from nanodream.staging import FileChange, Staging
from nanodream.tools import ToolLimits


@dataclass(frozen=True)
class Violation:
    path: str
    rule: str
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.rule} — {self.detail}"


SECRET_PATTERNS: dict[str, re.Pattern[str]] = {
    "aws-access-key": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "github-token": re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b"),
    "private-key-block": re.compile(r"-----BEGIN (?:[A-Z ]+ )?PRIVATE KEY-----"),
    "api-key": re.compile(r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}|xox[abpr]-[A-Za-z0-9-]{10,})\b"),
    "password-in-url": re.compile(r"[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]{3,}@", re.IGNORECASE),
    "assigned-secret": re.compile(
        r"(?i)\b(?:api[_-]?key|secret|token|password|passwd)\b\s*[:=]\s*['\"]?[A-Za-z0-9_\-+/=]{16,}"
    ),
}


def check(staging: Staging, batch: Batch | None, limits: ToolLimits, max_shrink_ratio: float) -> list[Violation]:
    """Every rule over every changed file; an empty list means the result may be applied."""
    violations: list[Violation] = []
    justified = batch is not None and batch.has_correction
    for change in staging.changes():
        violations += _check_change(change, limits, max_shrink_ratio, justified)
    return violations


def _check_change(change: FileChange, limits: ToolLimits, max_shrink_ratio: float,
                  justified: bool) -> list[Violation]:
    found: list[Violation] = []
    if change.after is None:
        return found
    cap = limits.cap_for(change.path)
    if len(change.after) > cap:
        found.append(Violation(change.path, "size cap", f"{len(change.after)} chars > cap {cap}"))
    if change.path.startswith("skills/"):
        try:
            parse_skill(change.path, change.after)
        except ValueError as exc:
            found.append(Violation(change.path, "invalid skill", str(exc)))
    for rule in secret_rules_hit(_added_text(change)):
        found.append(Violation(change.path, "secret", f"content matches {rule}; secrets never go into memory"))
    if change.before and not justified:
        before_lines = [line for line in change.before.splitlines() if line.strip()]
        kept = set(line.strip() for line in change.after.splitlines())
        lost = sum(1 for line in before_lines if line.strip() not in kept)
        if before_lines and lost / len(before_lines) > max_shrink_ratio:
            found.append(Violation(
                change.path, "mass deletion",
                f"{lost} of {len(before_lines)} lines removed (> {max_shrink_ratio:.0%}) "
                "without a [correction] in the batch",
            ))
    return found


def secret_rules_hit(text: str) -> list[str]:
    """Names of the secret rules that match (never the matched text itself)."""
    return [name for name, pattern in SECRET_PATTERNS.items() if pattern.search(text)]


def _added_text(change: FileChange) -> str:
    before = set((change.before or "").splitlines())
    return "\n".join(line for line in (change.after or "").splitlines() if line not in before)
