"""`nanodream hypotheses`: the inferred lines still marked, and a person's decision on one of them.

Dense-Mem's four decisions, each one commit of the person's own through the door: reinforce (one more
sighting; promoted when that is enough), stale (the evidence no longer holds), reject (the line goes and its
fact joins memory/rejected.md, so no dream adds it again) and promote (a plain preference now). A line is
named `PATH:LINE` (1-based, as `hypotheses list` shows it), or by its bare line number when only one core
file has a hypothesis there. Also here: marking a hypothesis stale when its evidence went away, for `forget`
and `restore`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from nanodream import clock
from nanodream.changes import FileChange
from nanodream.edits.shared import as_text, committed, on_disk, through_door
from nanodream.hypotheses import Hypothesis, asked_first, parse, with_hypothesis, without_marker
from nanodream.markdown import with_fences
from nanodream.memory.door import Door
from nanodream.rejected import fact_key, fact_text, with_rejected
from nanodream.vocab import (
    Declared,
    ExitCode,
    Outcome,
    Refused,
    Report,
    Shape,
    Trailer,
    format_trailers,
    new_run_id,
)
from nanodream.workspace import CORE_FILES, REJECTED_FILE, Workspace

DECISIONS = ("reinforce", "stale", "reject", "promote")
_REF = re.compile(r"^(?:(?P<path>[\w./-]+):)?(?P<line>\d+)$")


@dataclass(frozen=True)
class HypothesisLine(Declared):
    """One marked line of an active memory file, as a person (and `--json`) sees it."""

    json_shape = Shape(derived=("ref",))

    path: str
    line: int  # 1-based
    text: str  # the line without its markers
    count: int
    needed: int
    tone: str
    stale_since: str | None
    ask_first: bool

    @property
    def ref(self) -> str:
        return f"{self.path}:{self.line}"


def hypothesis_lines(workspace: Workspace) -> list[HypothesisLine]:
    """Every hypothesis line of the core files, in file order."""
    found = []
    for path in CORE_FILES:
        data = on_disk(workspace, path)
        text = as_text(path, data) or ""
        for number, (line, code) in enumerate(with_fences(text.split("\n")), start=1):
            hypothesis = parse(line) if not code else None
            if hypothesis is not None:
                plain = re.sub(r"^\s*[-*+]\s+", "", without_marker(line).replace("<!-- ask-first -->", "")).strip()
                found.append(HypothesisLine(path, number, plain, hypothesis.count, hypothesis.needed,
                                            str(hypothesis.tone), _day(hypothesis.stale_since), asked_first(line)))
    return found


@dataclass
class DecisionReport(Report):
    """What a decision did (docs/json.md): reinforced | promoted | stale | rejected | nothing-to-do | refused."""

    decision: str = ""
    path: str = ""
    line: int = 0
    before: str = ""  # the line as it was
    after: str | None = None  # the line as it is now; None when rejected (gone)
    commit: str | None = None
    manual_commit: str | None = None
    candidates: list[str] = field(default_factory=list)  # refs, when a bare number named several lines


def resolve(workspace: Workspace, line: str | int, decision: str, today: date | None = None) -> DecisionReport:
    """Apply one decision to the hypothesis named by `line`, as one commit; Refused shapes every refusal."""
    report = DecisionReport(outcome=Outcome.REFUSED, decision=decision)
    if decision not in DECISIONS:
        report.refuse(Refused(f"unknown decision {decision!r}; choose one of {', '.join(DECISIONS)}",
                              exit_code=ExitCode.USAGE))
        return report
    through_door(workspace, report, lambda door: _resolve(door, str(line).strip(), decision, today or clock.today(),
                                                          report))
    return report


def _resolve(door: Door, ref: str, decision: str, today: date, report: DecisionReport) -> None:
    door.settle()
    target = _target(door.workspace, ref, report)
    report.path, report.line = target.path, target.line
    before = as_text(target.path, on_disk(door.workspace, target.path)) or ""
    lines = before.split("\n")
    report.before = lines[target.line - 1]
    after = decided(report.before, decision, today)
    if after == report.before:
        report.outcome, report.reason = Outcome.NOTHING_TO_DO, f"{target.ref} is already stale"
        report.after = after
        return
    changes = [FileChange(target.path, before, "\n".join(lines[: target.line - 1] + ([] if after is None else [after])
                                                         + lines[target.line:]))]
    if after is None:
        current = as_text(REJECTED_FILE, on_disk(door.workspace, REJECTED_FILE))
        ledger, _ = with_rejected(current, [(target.path, report.before)], f"rejected hypothesis, {today.isoformat()}")
        if ledger is not None:
            changes.append(FileChange(REJECTED_FILE, current, ledger))
    report.after = after
    report.commit = committed(door, f"hypothesis-{new_run_id()}", _message(target, decision, report), changes)
    report.outcome = _outcome(decision, after)


def decided(line: str, decision: str, today: date) -> str | None:
    """The line after `decision` (None: it goes); a line that is no hypothesis is a caller's bug."""
    found = parse(line)
    if found is None:
        raise ValueError("not a hypothesis line")
    if decision == "reject":
        return None
    if decision == "promote":
        return with_hypothesis(line, None)
    if decision == "stale":
        return line if found.stale else with_hypothesis(line, Hypothesis(found.count, found.tone, today))
    return with_hypothesis(line, found.sighted(found.tone))


def _outcome(decision: str, after: str | None) -> Outcome:
    if after is None:
        return Outcome.REJECTED
    if decision == "stale":
        return Outcome.STALE
    return Outcome.PROMOTED if parse(after) is None else Outcome.REINFORCED


def _target(workspace: Workspace, ref: str, report: DecisionReport) -> HypothesisLine:
    """The hypothesis `ref` names; Refused (exit 2) when it names none or, as a bare number, several."""
    match = _REF.match(ref)
    if match is None:
        raise Refused(f"{ref!r} names no line; give PATH:LINE as `nanodream hypotheses` lists them (e.g. USER.md:7)",
                      exit_code=ExitCode.USAGE)
    path, number = match.group("path"), int(match.group("line"))
    if path is not None and path not in CORE_FILES:
        raise Refused(f"{path} holds no hypotheses; they live in {', '.join(CORE_FILES)}", exit_code=ExitCode.USAGE)
    found = [h for h in hypothesis_lines(workspace) if h.line == number and path in (None, h.path)]
    if len(found) > 1:
        report.candidates = [h.ref for h in found]
        raise Refused(f"line {number} is a hypothesis in {len(found)} files", "name one: "
                      + " or ".join(report.candidates), ExitCode.USAGE)
    if not found:
        where = path or "any core file"
        raise Refused(f"line {number} of {where} is no hypothesis line", "`nanodream hypotheses` lists them",
                      ExitCode.USAGE)
    return found[0]


def _message(target: HypothesisLine, decision: str, report: DecisionReport) -> str:
    shown = target.text if len(target.text) <= 50 else target.text[:47] + "..."
    why = {"reinforce": "One more sighting counted by a person.", "stale": "A person marked its evidence stale.",
           "reject": "Removed by a person and recorded in memory/rejected.md.",
           "promote": "A person confirmed it: a plain preference now."}[decision]
    if decision == "reinforce" and report.after is not None and parse(report.after) is None:
        why += " That was enough: promoted."
    return "\n".join([f"hypothesis {decision}: {shown} ({target.ref})", "", why, "",
                      *format_trailers([(Trailer.KIND, "manual")])])


def _day(day: date | None) -> str | None:
    return day.isoformat() if day else None


# evidence that went away ----------------------------------------------------------------------------------


def stale_lines(text: str, indexes: set[int], today: date) -> str:
    """`text` with the hypothesis lines at `indexes` (0-based) marked stale since `today` (others left alone)."""
    lines = text.split("\n")
    for index in indexes:
        found = parse(lines[index]) if index < len(lines) else None
        if found is not None and not found.stale:
            lines[index] = with_hypothesis(lines[index], Hypothesis(found.count, found.tone, today))
    return "\n".join(lines)


def stale_where_reverted(before: str | None, after: str | None, today: date) -> str | None:
    """After an undo: a hypothesis whose line the undo put back to an older marker lost evidence, so it is stale."""
    if before is None or after is None:
        return after
    changed = {fact_key(line) for line in before.split("\n") if parse(line) is not None} - {
        fact_key(line) for line in after.split("\n") if line in before.split("\n")}
    lines = after.split("\n")
    hit = {index for index, line in enumerate(lines) if parse(line) is not None and fact_text(line)
           and fact_key(line) in changed}
    return stale_lines(after, hit, today) if hit else after
