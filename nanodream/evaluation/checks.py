"""Scoring the memory a run left behind against a scenario's checks: each check passes or fails.

Text is matched case-insensitively with runs of whitespace folded, so a check states a fact, not a layout.
The archive's replaced lines (the until-form, validity.py) say what was true before, not what memory holds
now: `present` and `absent` look past them, and `replaced` looks only at them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nanodream import boundedyaml
from nanodream.evaluation.scenario import Check, Scenario
from nanodream.insights.records import Insight
from nanodream.insights.shelf import read_shelf
from nanodream.validity import is_replaced
from nanodream.vocab import Declared, Shape, count
from nanodream.workspace import CORE_FILES, Workspace

ARCHIVE_DIR = "memory/archive"


@dataclass(frozen=True)
class Memory:
    """The memory files of a workspace: active ones (core files and skills) and the archive, by relative path."""

    active: dict[str, str]
    archive: dict[str, str]
    flagged: tuple[str, ...] = ()  # active lines listed as maybe out of date (run/cascade.py)
    insights: tuple[Insight, ...] = ()  # kept apart from memory: never counted in its size

    @classmethod
    def read(cls, root: Path) -> Memory:
        from nanodream.run.cascade import out_of_date

        active = {path: _read(root / path) for path in CORE_FILES if (root / path).is_file()}
        active.update({p.relative_to(root).as_posix(): _read(p) for p in sorted(root.glob("skills/*/SKILL.md"))})
        archive = {p.relative_to(root).as_posix(): _read(p) for p in sorted((root / ARCHIVE_DIR).glob("*.md"))}
        workspace = Workspace.at(root)
        return cls(active, archive, tuple(item.text for item in out_of_date(workspace)),
                   tuple(read_shelf(workspace).insights))

    @property
    def current_archive(self) -> dict[str, str]:
        """The archive without its replaced lines: the facts it holds that are still true."""
        return {path: _without_replaced(text) for path, text in self.archive.items()}

    @property
    def replaced(self) -> str:
        """Every replaced line of the archive, one per line."""
        return "\n".join(line for text in self.archive.values() for line in text.splitlines() if is_replaced(line))

    @property
    def size(self) -> int:
        """Bytes of every memory file, archive included: what `max_growth_bytes` measures."""
        return sum(len(text.encode()) for text in (*self.active.values(), *self.archive.values()))


@dataclass(frozen=True)
class CheckResult(Declared):
    json_shape = Shape(renamed=(("label", "check"),))

    kind: str
    label: str
    passed: bool
    detail: str


def score_checks(scenario: Scenario, before: Memory, after: Memory) -> list[CheckResult]:
    """Every check of the scenario, in file order, then the growth limit when it has one."""
    results = [_unchanged(check, before, after) if check.kind == "unchanged" else evaluate(check, after)
               for check in scenario.checks]
    if scenario.max_growth_bytes is not None:
        grown = after.size - before.size
        results.append(CheckResult("max_growth_bytes", f"max_growth_bytes {scenario.max_growth_bytes}",
                                   grown <= scenario.max_growth_bytes, f"grew {grown} bytes"))
    return results


def evaluate(check: Check, memory: Memory) -> CheckResult:
    if check.kind == "skill":
        return _skill(check, memory)
    if check.kind == "cascade":
        return _cascade(check, memory)
    if check.kind == "insight":
        return _insight(check, memory)
    needle = fold(check.text)
    if check.kind == "present":
        places = _places(check.file, memory, with_archive=True)
        found = [path for path, text in places.items() if needle in fold(text)]
        passed, detail = bool(found), (f"found in {', '.join(found)}" if found else "not found")
    elif check.kind == "absent":
        places = _places(check.file, memory, with_archive=True)
        found = [path for path, text in places.items() if needle in fold(text)]
        passed, detail = not found, (f"found in {', '.join(found)}" if found else "absent")
    elif check.kind == "replaced":
        passed = needle in fold(memory.replaced)
        detail = "archived as replaced" if passed else "no replaced line holds it"
    else:  # once: duplicates are about what the agent reads, so the archive does not count
        found = sum(fold(text).count(needle) for text in _places(check.file, memory, with_archive=False).values())
        passed, detail = found == 1, f"appears {count(found, 'time')}"
    return CheckResult(check.kind, check.label, passed, detail)


def fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _places(file: str | None, memory: Memory, *, with_archive: bool) -> dict[str, str]:
    """One named active file, or all memory (the archive too when asked)."""
    if file is not None:
        return {file: memory.active[file]} if file in memory.active else {}
    return {**memory.active, **(memory.current_archive if with_archive else {})}


def _cascade(check: Check, memory: Memory) -> CheckResult:
    """A line depending on a changed fact is revised (names the new value), gone with the old fact (archived as
    replaced), or listed as maybe out of date: never left silently as it was."""
    needle, now = fold(check.text), fold(check.now)
    lines = [line for path in CORE_FILES for line in memory.active.get(path, "").splitlines() if needle in fold(line)]
    if any(now in fold(line) for line in lines):
        passed, detail = True, "revised"
    elif any(needle in fold(line) for line in memory.flagged):
        passed, detail = True, "listed as maybe out of date"
    elif not lines and needle in fold(memory.replaced):
        passed, detail = True, "archived with the fact it depended on"
    else:
        passed, detail = False, "left as it was, unflagged" if lines else "not found"
    return CheckResult(check.kind, check.label, passed, detail)


def _insight(check: Check, memory: Memory) -> CheckResult:
    """How many insights have the name, status and cited refs the check asks for: that many, or at least one."""
    wanted = [fold(text) for text in check.cites]
    found = [insight.name for insight in memory.insights
             if (not check.name or insight.name == check.name) and (not check.status or insight.status == check.status)
             and all(any(text in fold(ref) for ref in insight.refs) for text in wanted)]
    passed = len(found) == check.count if check.count is not None else bool(found)
    shown = ", ".join(f"{i.name} ({i.status})" for i in memory.insights) or "none"
    return CheckResult("insight", check.label, passed, f"{count(len(found), 'match')} (insights: {shown})")


def _unchanged(check: Check, before: Memory, after: Memory) -> CheckResult:
    file = check.file or ""
    same = before.active.get(file) == after.active.get(file)
    return CheckResult("unchanged", check.label, same, "unchanged" if same else "changed")


def _skill(check: Check, memory: Memory) -> CheckResult:
    path = f"skills/{check.name}/SKILL.md"
    text = memory.active.get(path)
    if text is None:
        skills = sorted(p.split("/")[1] for p in memory.active if p.startswith("skills/"))
        return CheckResult("skill", check.label, False, f"no such skill (skills: {', '.join(skills) or 'none'})")
    description = _description(text)
    if check.description_contains and fold(check.description_contains) not in fold(description):
        return CheckResult("skill", check.label, False, f"description is {description!r}")
    return CheckResult("skill", check.label, True, "exists")


def _description(text: str) -> str:
    """The `description` of a SKILL.md's front matter, '' when it has none or it does not parse."""
    if not text.startswith("---"):
        return ""
    try:
        front = boundedyaml.loads(text.split("---", 2)[1])
    except (boundedyaml.YAMLRefused, IndexError):
        return ""
    return str(front.get("description", "")) if isinstance(front, dict) else ""


def _without_replaced(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not is_replaced(line))


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")
