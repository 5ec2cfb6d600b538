"""An adopted history's consumed lines are indexed a bounded window per run, newest first, until all are in — with
the same entries, lines and offsets a whole pass would give, and a run never reading more than its window."""

from __future__ import annotations

import json

from nanodream.backlog import history
from nanodream.backlog.position import position_at
from nanodream.insights import history_index
from nanodream.insights.history_index import up_to_date
from tests.support.workspaces import entry, write_history


def lines_of(count: int) -> list:
    return [entry(i, f"[durable] Fact number {i} about the {'ledger' if i % 2 else 'billing'} service.",
                  f"telegram:{i % 3}") for i in range(1, count + 1)]


def consumed(workspace, count: int):
    lines = lines_of(count)
    lines.insert(count // 2, "")  # a blank line counts as a line, never as an entry
    write_history(workspace, lines)
    path = workspace.history_file
    return path, position_at(path, path.stat().st_size, count + 1, count)


def test_a_long_consumed_history_is_indexed_a_window_per_run_until_all_is_in(workspace, monkeypatch):
    path, upto = consumed(workspace, 60)
    whole = up_to_date(workspace, upto, save=False)  # one pass over everything: what the windows must add up to
    monkeypatch.setattr(history_index, "WINDOW", 1500)
    read: list[int] = []
    real = history.read_from
    monkeypatch.setattr(history_index, "read_from", lambda p, offset=0, line=0: read.append(offset) or real(
        p, offset, line))

    first = up_to_date(workspace, upto)
    assert 0 < len(first.entries) < len(whole.entries) and first.start > 0
    assert first.entries == whole.entries[-len(first.entries):]
    runs = 1
    while up_to_date(workspace, upto).start > 0:
        runs += 1
        assert runs < 20
    final = up_to_date(workspace, upto)
    assert final.entries == whole.entries and final.start == 0  # offsets, lines, sessions, terms: all the same
    assert runs == len(read) - 1 and min(read) == 0
    assert up_to_date(workspace, upto).entries == whole.entries
    assert len(read) == runs + 1  # all in: nothing more is read


def test_runs_that_consume_more_each_time_still_take_the_older_windows(workspace, monkeypatch):
    """Cron runs consume something every time: the windows further back come while the index grows forward."""
    path, upto = consumed(workspace, 40)
    monkeypatch.setattr(history_index, "WINDOW", 1500)
    assert up_to_date(workspace, upto).start > 0
    count = 40
    while (index := up_to_date(workspace, upto)).start > 0 and count < 80:
        with path.open("a") as history:  # the host appends; the run consumes it
            history.writelines(json.dumps(line) + "\n" for line in lines_of(count + 2)[count:])
        count += 2
        upto = position_at(path, path.stat().st_size, count + 1, count)
    assert index.start == 0 and count < 80
    monkeypatch.setattr(history_index, "WINDOW", 10 ** 9)
    (workspace.state_dir / "history-index.json").unlink()
    assert index.entries == up_to_date(workspace, upto, save=False).entries


def test_a_short_history_is_indexed_whole_at_once(workspace):
    _, upto = consumed(workspace, 5)
    index = up_to_date(workspace, upto)
    assert index.start == 0 and len(index.entries) == 5
