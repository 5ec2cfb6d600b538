"""Consumed history indexed by session: what runs consume is added as they consume it; an adopted history's older
lines are indexed by idle runs, a bounded share each, newest first, until all are in — with the same sessions a
whole pass would give, and a run that consumes never reading what it did not consume."""

from __future__ import annotations

import json

from nanodream.backlog import history
from nanodream.backlog.position import position_at
from nanodream.config import Settings
from nanodream.insights import history_index
from nanodream.insights.history_index import RECENT, backfill, index_file, up_to_date
from nanodream.run.dream import run_dream
from tests.support.workspaces import entry, write_history


def lines_of(count: int, first: int = 1) -> list:
    return [entry(i, f"[durable] Fact number {i} about the {'ledger' if i % 2 else 'billing'} service on Host{i}.",
                  f"telegram:{i % 3}", day=1 + i % 28) for i in range(first, first + count)]


def consumed(workspace, count: int):
    lines = lines_of(count)
    lines.insert(count // 2, "")  # a blank line counts as a line, never as an entry
    write_history(workspace, lines)
    path = workspace.history_file
    return path, position_at(path, path.stat().st_size, count + 1, count)


def reads(monkeypatch) -> list[int]:
    """The offsets the index reads history.jsonl from."""
    read: list[int] = []
    real = history.read_from
    monkeypatch.setattr(history_index, "read_from", lambda p, offset=0, line=0: read.append(offset) or real(
        p, offset, line))
    return read


def whole_pass(workspace, upto, monkeypatch) -> history_index.HistoryIndex:
    with monkeypatch.context() as patch:
        patch.setattr(history_index, "FIRST_BYTES", 10 ** 9)
        return up_to_date(workspace, upto, save=False)


def test_a_long_consumed_history_waits_for_idle_runs_which_index_it_a_share_at_a_time(workspace, monkeypatch):
    path, upto = consumed(workspace, 60)
    whole = whole_pass(workspace, upto, monkeypatch)
    assert set(whole.sessions()) == {"telegram:0", "telegram:1", "telegram:2"}
    monkeypatch.setattr(history_index, "FIRST_BYTES", 1000)
    read = reads(monkeypatch)

    first = up_to_date(workspace, upto)  # a run that consumes: it indexes nothing it did not consume
    assert first.sessions() == {} and first.start == upto.offset and read == []
    shares = 0
    while backfill(workspace, upto, budget=1500):
        shares += 1
        assert shares < 20
    final = up_to_date(workspace, upto)
    assert final.start == 0 and shares == len(read) > 2 and read == sorted(read, reverse=True) and read[-1] == 0
    assert final.sessions() == whole.sessions()  # terms, names, days, newest entries: all the same
    assert not backfill(workspace, upto, budget=1500) and len(read) == shares  # all in: nothing more is read


def test_runs_that_consume_add_only_what_they_consumed(workspace, monkeypatch):
    path, upto = consumed(workspace, 40)
    monkeypatch.setattr(history_index, "FIRST_BYTES", 1000)
    up_to_date(workspace, upto)
    read = reads(monkeypatch)
    with path.open("a") as handle:  # the host appends; the run consumes it
        handle.writelines(json.dumps(line) + "\n" for line in lines_of(3, 41))
    grown = up_to_date(workspace, position_at(path, path.stat().st_size, 44, 43))
    assert read == [upto.offset]  # from where it stopped, never further back
    assert sum(len(s.recent) for s in grown.sessions().values()) == 3 and grown.start == upto.offset


def test_a_short_history_is_indexed_whole_at_once(workspace):
    _, upto = consumed(workspace, 5)
    index = up_to_date(workspace, upto)
    assert index.start == 0 and sum(len(s.recent) for s in index.sessions().values()) == 5


def test_the_index_grows_with_sessions_and_words_not_with_lines(workspace, monkeypatch):
    """A session keeps its words and its RECENT newest entries: a thousand lines of the same three sessions and a
    few words are no bigger an index than a hundred."""
    monkeypatch.setattr(history_index, "FIRST_BYTES", 10 ** 9)
    sizes = []
    for count in (100, 1000):
        write_history(workspace, [entry(i, f"[durable] The ledger service answers on Host{i % 7}.", f"tg:{i % 3}")
                                  for i in range(1, count + 1)])
        path = workspace.history_file
        index_file(workspace).unlink(missing_ok=True)
        index = up_to_date(workspace, position_at(path, path.stat().st_size, count, count))
        assert all(len(session.recent) == RECENT for session in index.sessions().values())
        assert index.sessions()["tg:1"].recent[-1].line == max(i for i in range(1, count + 1) if i % 3 == 1)
        sizes.append(index_file(workspace).stat().st_size)
    assert abs(sizes[1] - sizes[0]) < 200, sizes


def test_a_rewritten_history_is_indexed_again(workspace):
    path, upto = consumed(workspace, 6)
    assert "telegram:1" in up_to_date(workspace, upto).sessions()
    write_history(workspace, [entry(1, "[durable] Something else entirely.", "cli:other")])
    again = up_to_date(workspace, position_at(path, path.stat().st_size, 1, 1))
    assert set(again.sessions()) == {"cli:other"}


def test_an_idle_run_backfills_and_a_run_that_consumes_does_not(workspace, monkeypatch):
    path, upto = consumed(workspace, 30)
    workspace.cursor_file.write_text("30\n")  # adopted: nanobot's own Dream consumed it all
    monkeypatch.setattr(history_index, "FIRST_BYTES", 1000)
    monkeypatch.setattr(history_index, "IDLE_BYTES", 10 ** 9)
    with path.open("a") as handle:
        handle.write(json.dumps(entry(31, "[durable] Uses Go.", "cli:new")) + "\n")
    assert run_dream(workspace, Settings(model="builtin")).outcome == "committed"
    index = up_to_date(workspace, position_at(path, path.stat().st_size, 32, 31))
    assert set(index.sessions()) == {"cli:new"} and index.start > 0  # the run consumed one entry: that is all
    idle = run_dream(workspace, Settings(model="builtin"))
    assert idle.outcome == "nothing-to-do" and any("indexed older consumed history" in n for n in idle.notices)
    index = up_to_date(workspace, position_at(path, path.stat().st_size, 32, 31))
    assert index.start == 0 and set(index.sessions()) == {"cli:new", "telegram:0", "telegram:1", "telegram:2"}
    assert not any("indexed" in n for n in run_dream(workspace, Settings(model="builtin")).notices)


def test_ingests_own_labels_are_no_words_of_a_session(workspace):
    """Connect proposed an insight "talked" (topics "talked", "built", "line", "model") linking two sessions by the
    marker of what waits for a model and the gist's label, which every such entry holds."""
    from nanodream.backlog.waiting import marker_line

    waiting = marker_line(["zh"]) + "\n> 你还在么？部署脚本跑不起来"
    write_history(workspace, [entry(1, f"Talked about: deploy script\n{waiting}", "openclaw:a", day=1),
                              entry(2, f"Talked about: config file\n{waiting}", "openclaw:b", day=2)])
    path = workspace.history_file
    index = up_to_date(workspace, position_at(path, path.stat().st_size, 3, 2), save=False)
    words = set().union(*(session.terms for session in index.sessions().values()))
    assert {"deploy", "config"} <= words
    assert not words & {"talked", "built", "rules", "model", "quoted"}, words
