"""A person's (or a host's) decision on an insight: reinforce, stale, reject or promote — each one commit.

The decision sets the record's `status` and `updated` and adds a dated line under its Decisions; `reject`
takes it out of view for good (no run proposes it again, by name or by sources). `promote` writes no fact:
it appends one history entry — `[durable]` and the insight's statement (its summary's first sentence),
`session_key` `insight:<name>` — through ingest's writer (its journal, cursor numbering and refusal while the
host is mid-write), so the next dream judges it like any other history; the record then says it was
promoted. An interrupted promote never appends twice: the entry's key is kept with ingest's message keys
before the record is committed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from nanodream import clock
from nanodream.changes import FileChange
from nanodream.config import Settings, zone
from nanodream.controls import visible
from nanodream.edits.shared import as_text, committed, on_disk, through_door
from nanodream.ingest.journal import IngestJournal, IngestJournalUnreadable, recover
from nanodream.ingest.message import history_stamp
from nanodream.ingest.seen import Seen
from nanodream.ingest.writer import Entry, HistoryMidWrite, append
from nanodream.insights.knowledge import PROMOTED
from nanodream.insights.records import Insight, one_line, render, statement
from nanodream.insights.shelf import read_shelf
from nanodream.memory.door import Door
from nanodream.safety import secret_scan
from nanodream.vocab import ExitCode, Outcome, Refused, Report, Trailer, format_trailers, new_run_id
from nanodream.workspace import Workspace

DECISIONS = {"reinforce": "reinforced", "stale": "stale", "reject": "rejected", "promote": "promoted"}


@dataclass
class InsightDecisionReport(Report):
    """What a decision did (docs/json.md): the insight's status before and after, its commit, and for a promote
    the cursor of the history entry it appended."""

    name: str = ""
    decision: str = ""
    before: str = ""  # the status it had
    status: str = ""  # the status it has now
    commit: str | None = None
    history_cursor: int | None = None
    manual_commit: str | None = None
    recovered: str = ""


def decide(workspace: Workspace, settings: Settings, name: str, decision: str, note: str = "",
           today: date | None = None) -> InsightDecisionReport:
    """Apply `decision` to the insight `name` as one commit; every refusal is in the report (exit 2 for an
    unknown name or decision)."""
    report = InsightDecisionReport(outcome=Outcome.REFUSED, name=name, decision=decision)
    note = visible(secret_scan.redact(None, note)[0])  # a note is kept in a tracked file and a commit message
    if decision not in DECISIONS:
        report.refuse(Refused(f"unknown decision {decision!r}; choose one of {', '.join(DECISIONS)}",
                              exit_code=ExitCode.USAGE))
        return report
    through_door(workspace, report, lambda door: _decide(door, settings, report, note, today or clock.today()))
    return report


def _decide(door: Door, settings: Settings, report: InsightDecisionReport, note: str, today: date) -> None:
    door.settle()
    insight = _named(door, report.name)
    report.before = insight.status
    status = DECISIONS[report.decision]
    if insight.status == status:
        report.outcome, report.status = Outcome.NOTHING_TO_DO, status
        report.reason = f"{insight.name} is already {status}"
        return
    said = note
    if report.decision == "promote":
        report.history_cursor = _promote(door, settings, insight)
        said = f"{note}; " if note.strip() else ""
        said += f"appended to history as cursor {report.history_cursor}" if report.history_cursor else (
            "its history entry was appended before")
    decided = insight.decided(status, today, said)
    before = as_text(insight.path, on_disk(door.workspace, insight.path))
    change = FileChange(insight.path, before, render(decided))
    report.commit = committed(door, f"insight-{new_run_id()}", _message(decided, report.decision, note), [change])
    report.status, report.outcome = status, Outcome(status)


def _named(door: Door, name: str) -> Insight:
    shelf = read_shelf(door.workspace)
    insight = shelf.get(name)
    if insight is not None:
        return insight
    broken = next((b for b in shelf.broken if b.path.endswith(f"/{name}.md")), None)
    if broken is not None:
        raise Refused(f"{broken.path} cannot be read: {broken.problem}", "fix the file by hand, then decide",
                      ExitCode.USAGE)
    known = ", ".join(insight.name for insight in shelf.insights[:10]) or "none yet"
    raise Refused(f"no insight named {name!r} (insights: {known})", "`nanodream insights list` lists them",
                  ExitCode.USAGE)


def _promote(door: Door, settings: Settings, insight: Insight) -> int | None:
    """Append the insight's statement to history once; its cursor (None when an earlier attempt appended it)."""
    workspace = door.workspace
    seen = Seen(workspace)
    try:
        try:
            recover(workspace, seen)
        except IngestJournalUnreadable as exc:
            raise Refused(str(exc), exit_code=ExitCode.NEEDS_PERSON) from None
        promoted_before = sum(1 for line in insight.decisions if line.split(" ")[1:2] in (["promoted"], ["promoted:"]))
        key = f"{PROMOTED}{insight.name}:promoted:{promoted_before}"
        if seen.known([key]):
            return None
        said = secret_scan.redact(None, statement(insight))[0]
        entry = Entry(history_stamp(None, zone(settings.timezone)), f"[durable] {said}",
                      f"{PROMOTED}{insight.name}")
        try:
            return append(workspace, [entry], IngestJournal(0, "", [key]), seen)[0]
        except HistoryMidWrite as exc:
            raise Refused(str(exc), "try again when the host agent has finished writing", ExitCode.BUSY) from None
    finally:
        seen.close()


def _message(insight: Insight, decision: str, note: str) -> str:
    why = {"reinforce": "A person counts it as seen again.", "stale": "A person marked it stale.",
           "reject": "A person rejected it: it leaves view and is never proposed again.",
           "promote": "A person promoted it: its statement was appended to history for the next dream to judge."}
    lines = [f"insights: {decision} {insight.name}", "", why[decision]]
    if note.strip():
        lines += ["", f"Note: {one_line(note)}"]
    return "\n".join([*lines, "", *format_trailers([(Trailer.KIND, "insights"),
                                                     (Trailer.INSIGHT, f"{insight.name} {decision}")])])
