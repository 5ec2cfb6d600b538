"""The run, declared: every batch takes these passes, in this order, then the run its phases once; nothing else
decides the order.

Adding a pass is one entry here (and its step: a function of the BatchWork returning a PassResult). The
"One run" diagram of docs/architecture.md is generated from this list (`python -m nanodream.run.pipeline
docs/architecture.md` rewrites it between its markers; tests/run/test_pipeline.py fails when they disagree).
"""

from __future__ import annotations

import sys
from pathlib import Path

from nanodream.memory import archive
from nanodream.run import askfirst, confirmations, guards, holds, merges, supersede
from nanodream.run.accounting import unaccounted_reason
from nanodream.run.apply import apply, preview
from nanodream.run.cutoff import cut_off
from nanodream.run.passes import DONE, BatchWork, Pass, PassResult
from nanodream.run.phases import connect_phase, record_phase, reevaluate_phase, reflect_phase
from nanodream.run.pressure import relieve
from nanodream.run.session import ledger_keys, session
from nanodream.vocab import Outcome
from nanodream.workspace import SOUL


def _keep_dates(work: BatchWork) -> PassResult:
    merges.keep_dates(work.staging)
    return DONE


def _ask_first(work: BatchWork) -> PassResult:
    askfirst.mark_ask_first(work.staging)
    return DONE


def _rejected(work: BatchWork) -> PassResult:
    dropped = guards.drop_rejected(work.staging, ledger_keys(work.ctx))
    return PassResult(warnings=tuple(f"left out a rejected fact: {line}" for line in dropped))


def _unsafe(work: BatchWork) -> PassResult:
    return PassResult(warnings=tuple(guards.leave_out_unsafe(work.staging, work.ctx.settings)))


def _superseded(work: BatchWork) -> PassResult:
    # A SOUL.md change waiting for review is not applied yet: its replaced lines stay where they are.
    held_back = (SOUL,) if work.ctx.review == "soul" else ()
    supersede.keep_replaced(work.staging, work.ctx.store, work.batch, today=work.ctx.day, held_back=held_back,
                            rejected=ledger_keys(work.ctx))
    return DONE


def _hold(work: BatchWork) -> PassResult:
    held = holds.hold_back(work.staging, work.ctx.settings)
    work.held = held if held.lines else None
    return PassResult(warnings=tuple(str(line) for line in held.lines))


def _pressure(work: BatchWork) -> PassResult:
    ctx, batch = work.ctx, work.batch
    mentioned = [entry.content for entry in batch.entries] if batch else ()
    relief = relieve(work.staging, ctx.store, ctx.settings, ctx.limits, today=ctx.day, mentioned=mentioned)
    work.confirmed = relief.confirmed
    return PassResult(failure=relief.failure, capacity=True) if relief.problems else DONE


def _guards(work: BatchWork) -> PassResult:
    """A refusal an entry can cause (a secret, an injection) fails the batch so a split can find the entry; one
    only the model causes (a rewrite, a wrapper, broken structure) holds the batch: every half would fail too."""
    ctx = work.ctx
    violations = guards.check(work.staging, work.batch, ctx.settings, ctx.limits, work.toolbox.refusals,
                              strict_corrections=not ctx.settings.offline)
    warnings = tuple(str(v) for v in violations if not v.blocking)
    blocking = [v for v in violations if v.blocking]
    if not blocking:
        return PassResult(warnings=warnings)
    failure = "guard refused the result: " + "; ".join(str(v) for v in blocking)
    if any(v.entry_caused for v in blocking):
        return PassResult(warnings=warnings, failure=failure)
    return PassResult(warnings=warnings, failure=f"{failure} — the model's edits broke memory; see `nanodream "
                                                "model check`", failed_as=Outcome.MODEL_NO_OP)


def _accounting(work: BatchWork) -> PassResult:
    """A batch whose first entry has an unaccounted fact fails whole, nothing applied (the cut-off pass has already
    narrowed a batch whose open fact comes later to the entries before it)."""
    if work.batch is None or work.account.first_open_entry() != 0:
        return DONE
    return PassResult(failure=unaccounted_reason(work.toolbox, work.account), failed_as=Outcome.MODEL_NO_OP)


def _confirmations(work: BatchWork) -> PassResult:
    present = (work.staging.read(archive.SOURCE) or "").split("\n")
    confirmations.record(work.ctx.workspace, work.confirmed, work.ctx.day, present=present)
    return DONE


PASSES: tuple[Pass, ...] = (
    Pass("session", "prompting/, engines/", "one session (llm.py, its structured mode structured.py, or "
         "builtin.py) edits a staged copy through the tools of toolbox/registry.py; run/accounting.py asks once "
         "about tagged facts neither kept nor explained, run/revisit.py once to revisit lines naming a value it "
         "replaced", session),
    Pass("cut-off", "run/cutoff.py", "the entries from the first with an unaccounted fact wait, and the lines the "
         "session wrote for their facts wait with them: a commit holds only what its consumed entries taught",
         cut_off),
    Pass("keep-dates", "run/merges.py", "a skill merged into another hands it its created and last_used dates",
         _keep_dates),
    Pass("ask-first", "run/askfirst.py", "a new rule allowing risky actions carries <!-- ask-first -->", _ask_first),
    Pass("rejected", "run/guards.py", "lines stating a fact of memory/rejected.md are left out", _rejected),
    Pass("unsafe", "run/guards.py", "lines holding a secret or a hostile rule for the agent are left out",
         _unsafe),
    Pass("hold", "run/holds.py", "a new line that sends data away or keeps something from the user waits in the "
         "review lane, with the line its change replaced", _hold),
    Pass("superseded", "run/supersede.py", "a line the batch replaced moves to the archive marked `until` the day "
         "it stopped being true, and what replaced it", _superseded),
    Pass("pressure", "run/pressure.py", "no active file stays over its cap: consolidate, archive cold lines",
         _pressure),
    Pass("guards", "run/guards.py", "injection, SOUL policy, deletion (a correction excuses only the line it "
         "corrects), structure (run/shape.py), a correction beside its old line, size caps, skills: refuse or warn",
         _guards),
    Pass("accounting", "run/accounting.py", "a batch whose first entry has a fact neither kept nor explained "
         "applies nothing", _accounting),
    Pass("preview", "run/apply.py", "each change and what the summary claims the diff does not show; a model's "
         "summary that is not words or names a value memory does not hold gives way to the change summary "
         "(run/summaries.py); a dry run ends here", preview),
    Pass("apply", "run/apply.py", "door.change() → memory/transaction.py: journal → atomic writes → commit → "
         "position + .dream_cursor → forget journal", apply),
    Pass("confirmations", "run/confirmations.py", "lines the batch restated count as hot for pressure",
         _confirmations),
    # once, after the last batch: the insight phases (run/phases.py; `phases` setting, `run --phases`)
    Pass("reflect", "insights/reflect.py", "memory's health: lines near their archive date, lines that disagree, "
         "decisions waiting, dead letters", reflect_phase, once=True),
    Pass("re-evaluate", "insights/reevaluate.py", "an insight history mentions again is reinforced; one whose "
         "source is gone or superseded goes stale", reevaluate_phase, once=True),
    Pass("connect", "insights/", "new insights linking this run's material to older knowledge: generator.py "
         "(builtin) or a conversation of its own over tools.py", connect_phase, once=True),
    Pass("insights", "run/phases.py", "one commit of memory/insights/ alone, its tokens and cost in its own "
         "trailers", record_phase, once=True),
)
BATCH_PASSES = tuple(each for each in PASSES if not each.once)
RUN_PASSES = tuple(each for each in PASSES if each.once)


# The "One run" diagram ------------------------------------------------------------------------------------

BEGIN = "<!-- one-run diagram: generated from nanodream/run/pipeline.py; do not edit by hand -->"
END = "<!-- end of the generated diagram -->"
_HEAD = """\
 nanodream run · /dream · the scheduler · the page · the MCP server
        │            (commands/, slash.py, serve/, mcp/ parse and render)
        ▼
 api/ ─ run(): settings, the host-busy wait (scheduling/), then run_dream
        │      dream_begin(): the same run_dream for one batch on a thread, its engine the host's calls (run/hosted.py)
        ▼
 run/dream.py ─ attempt(): enter the door ─ interrupt handling ─ one-line failures ─ run record
        │            memory/door.py: lock, git sane, recover, hand edits      run/records.py
        ▼
 backlog/ ─ resume the position ─ survey (dead letters, cursor anomalies) ─ next batch
        │      (cut to what one session can finish, smaller after a cap stopped one: run/sizing.py;
        │       a failing batch is split and a poisoned entry quarantined: run/poison.py, backlog/quarantine.py)
        ▼
 run/batch.py ─ dream_batch(): the one path every batch takes, the passes of run/pipeline.py in order
        │      (tool_mode auto: a batch a tools session failed as model-no-op runs them once more in structured mode)
        │"""


_ONCE = """\
        ▼
 run/dream.py ─ once, after the last batch (not after a failure, nor with nothing to do): run_phases()
        │"""


def diagram(passes: tuple[Pass, ...] = PASSES) -> str:
    """The fenced diagram docs/architecture.md shows, one line per pass (a long one wraps under its name)."""
    lines = [BEGIN, "```", _HEAD, *_branches([each for each in passes if not each.once])]
    once = [each for each in passes if each.once]
    if once:
        lines += [_ONCE, *_branches(once)]
    lines += ["```", END]
    return "\n".join(lines)


def _branches(passes: list[Pass]) -> list[str]:
    lines: list[str] = []
    for number, each in enumerate(passes):
        branch = "└─" if number == len(passes) - 1 else "├─"
        lines += _wrapped(f"        {branch} {each.name} ─ {each.unit}: {each.does}",
                          "        " + ("   " if branch == "└─" else "│  ") + " " * (len(each.name) + 3))
    return lines


def _wrapped(line: str, indent: str, width: int = 116) -> list[str]:
    """`line` cut at spaces to fit `width`, later pieces under `indent`."""
    out: list[str] = []
    while len(line) > width and " " in line[len(indent):width]:
        cut = line.rindex(" ", len(indent), width)
        out.append(line[:cut])
        line = indent + line[cut + 1:]
    return [*out, line]


def rewrite(page: str) -> str:
    """`page` with the text between the diagram's markers replaced by the current diagram."""
    start, end = page.index(BEGIN), page.index(END) + len(END)
    return page[:start] + diagram() + page[end:]


if __name__ == "__main__":  # regenerate the diagram: python -m nanodream.run.pipeline docs/architecture.md
    if len(sys.argv) > 1:
        target = Path(sys.argv[1])
        target.write_text(rewrite(target.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        print(diagram())
