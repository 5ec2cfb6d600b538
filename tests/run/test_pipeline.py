"""The run's passes are one declared list: the order runs as declared, a new pass is one entry, and the
architecture page's diagram is generated from the list."""

from __future__ import annotations

from dataclasses import replace

import pytest

from nanodream.backlog.history import read_cursor
from nanodream.config import Settings
from nanodream.run import batch as batch_module
from nanodream.run.dream import run_dream
from nanodream.run.passes import DONE, BatchWork, Pass, PassResult
from nanodream.run.pipeline import BATCH_PASSES, BEGIN, END, PASSES, diagram, rewrite
from nanodream.run.records import read_records
from tests.support.paths import REPO
from tests.support.workspaces import entry, snapshot, write_history

PAGE = REPO / "docs" / "architecture.md"
FACT = "The billing service runs on Hetzner in Falkenstein."


def test_the_one_run_diagram_is_generated_from_the_declared_passes():
    page = PAGE.read_text(encoding="utf-8")
    shown = page[page.index(BEGIN):page.index(END) + len(END)]
    assert shown == diagram(), "regenerate: python -m nanodream.run.pipeline docs/architecture.md"
    assert [line for line in shown.splitlines() if "─ session ─" in line or "─ apply ─" in line]


def test_regenerating_replaces_only_the_marked_diagram():
    page = f"# Title\n\nbefore\n\n{BEGIN}\nstale\n{END}\n\nafter\n"
    assert rewrite(page) == f"# Title\n\nbefore\n\n{diagram()}\n\nafter\n"


def test_each_pass_is_named_once_and_the_consolidation_ends_by_landing_its_commit():
    names = [each.name for each in PASSES]
    assert len(names) == len(set(names))
    assert names[0] == "session"
    assert names.index("unsafe") < names.index("guards") < names.index("apply")


def _with(monkeypatch: pytest.MonkeyPatch, extra: Pass, before: str) -> None:
    """The declared list with `extra` inserted before the pass named `before`: adding a pass is one entry."""
    passes = batch_module.BATCH_PASSES
    at = [each.name for each in passes].index(before)
    monkeypatch.setattr(batch_module, "BATCH_PASSES", (*passes[:at], extra, *passes[at:]))


def test_a_pass_added_to_the_list_runs_at_its_place_over_the_staged_result(workspace, monkeypatch):
    seen: list[str] = []

    def count_lines(work: BatchWork) -> PassResult:
        seen.append(work.staging.read("memory/MEMORY.md") or "")
        return PassResult(warnings=("counted the staged lines",))

    _with(monkeypatch, Pass("count", "tests", "counts lines", count_lines), before="apply")
    write_history(workspace, [entry(1, f"[durable] {FACT}")])
    report = run_dream(workspace, Settings())

    assert report.outcome == "committed", report.reason
    assert len(seen) == 1 and FACT in seen[0]  # after the session, before the commit
    assert "counted the staged lines" in report.batches[0].warnings
    assert "counted the staged lines" in read_records(workspace)[-1].warnings


def test_a_pass_that_fails_the_batch_is_the_last_to_run_and_nothing_lands(workspace, monkeypatch):
    write_history(workspace, [entry(1, f"[durable] {FACT}")])
    before = snapshot(workspace)
    ran: list[str] = []
    steps = {each.name: each for each in BATCH_PASSES}
    watched = tuple(replace(each, step=lambda work, each=each: (ran.append(each.name), each.step(work))[1])
                    for each in BATCH_PASSES)
    monkeypatch.setattr(batch_module, "BATCH_PASSES", watched)
    _with(monkeypatch, Pass("refuse", "tests", "refuses", lambda work: PassResult(failure="refused by a test")),
          before="guards")

    report = run_dream(workspace, Settings())

    assert report.outcome == "failed" and report.reason == "refused by a test"
    assert ran == list(steps)[:list(steps).index("guards")]  # the passes before the refusing one
    assert snapshot(workspace) == before
    assert read_cursor(workspace.cursor_file) == 0


def test_a_pass_that_ends_the_batch_keeps_its_outcome(workspace, monkeypatch):
    write_history(workspace, [entry(1, f"[durable] {FACT}")])
    before = snapshot(workspace)
    _with(monkeypatch, Pass("stop", "tests", "ends", lambda work: PassResult(ends=True)), before="apply")

    report = run_dream(workspace, Settings())

    assert report.batches[0].outcome == "no-change" and report.batches[0].changes  # seen, not applied
    assert snapshot(workspace) == before
    assert DONE.stops is False
