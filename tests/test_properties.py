"""Property-based tests: the backlog reader and the restricted tools against arbitrary bytes and JSON."""

from __future__ import annotations

import atexit
import json
import re
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from nanodream.backlog.history import (
    HistoryEntry,
    drop_skip_lines,
    entry_tokens,
    iter_after,
    next_batch,
    offset_after,
    parse_line,
)
from nanodream.backlog.position import Position, from_cursor
from nanodream.config import Settings
from nanodream.memory.staging import Staging
from nanodream.toolbox.limits import ToolLimits
from nanodream.toolbox.tools import SessionAborted, ToolBox
from nanodream.workspace import CORE_FILES, PathRefused, Workspace, scaffold

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALLOWED_SKILL = re.compile(r"skills/[a-z0-9][a-z0-9-]{0,63}/SKILL\.md")  # the allowlist, written independently

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)

# history files ------------------------------------------------------------------------------------

contents = st.text(max_size=60) | st.sampled_from(["[skip] hi", "[durable] a\n[skip] b", "[correction] c", ""])
malformed_lines = st.one_of(
    st.binary(max_size=40).map(lambda b: b.replace(b"\n", b" ")),
    st.text(max_size=40).map(lambda t: t.replace("\n", " ").encode()),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.sampled_from([b"", b"   ", b"\t", b'{"cursor": 3, "timest', b'{"cursor": "3", "timestamp": "t", "content": "x"}',
                     b'{"cursor": true, "timestamp": "t", "content": "x"}', b"[1, 2]", b"\xff\xfe"]),
)


@st.composite
def history_files(draw) -> list[bytes]:
    """Lines of a history file: entries with increasing cursors, interleaved with junk of every kind."""
    cursors = sorted(draw(st.sets(st.integers(min_value=1, max_value=10_000), max_size=12)))
    lines: list[bytes] = []
    for cursor in cursors:
        lines += draw(st.lists(malformed_lines, max_size=2))
        record = {"cursor": cursor, "timestamp": "2026-10-01 10:00", "content": draw(contents)}
        if draw(st.booleans()):
            record["session_key"] = draw(st.text(max_size=10))
        lines.append(json.dumps(record, ensure_ascii=draw(st.booleans())).encode())
    lines += draw(st.lists(malformed_lines, max_size=2))
    return lines


def materialise(lines: list[bytes], trailing_newline: bool) -> Path:
    with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as handle:
        handle.write(b"\n".join(lines) + (b"\n" if trailing_newline and lines else b""))
    return Path(handle.name)


def linear_scan(lines: list[bytes], cursor: int) -> tuple[list[HistoryEntry], int, int]:
    """The reference: (entries after `cursor`, malformed lines after the last consumed entry, its end offset)."""
    parsed = [parse_line(line) for line in lines]
    assume(_increasing([e.cursor for e in parsed if e is not None]))  # junk may itself be a valid entry
    offset, position, start_index = 0, 0, 0
    for index, (line, entry) in enumerate(zip(lines, parsed, strict=True)):
        position += len(line) + 1
        if entry is not None and entry.cursor <= cursor:
            offset, start_index = position, index + 1
    after = [e for e in parsed if e is not None and e.cursor > cursor]
    malformed = sum(1 for line, e in zip(lines[start_index:], parsed[start_index:], strict=True)
                    if e is None and line.strip())
    return after, malformed, offset


def _increasing(values: list[int]) -> bool:
    return all(a < b for a, b in zip(values, values[1:], strict=False))


@PROPERTY
@given(st.one_of(st.binary(max_size=200), json_values.map(json.dumps),
                 json_values.map(lambda value: json.dumps(value).encode())))
def test_parse_line_never_raises_and_returns_well_typed_entries(line):
    entry = parse_line(line)
    if entry is not None:
        assert type(entry.cursor) is int and entry.cursor >= 1
        assert isinstance(entry.timestamp, str) and isinstance(entry.content, str)
        assert entry.session_key is None or isinstance(entry.session_key, str)


@PROPERTY
@given(history_files(), st.integers(min_value=0, max_value=10_001), st.booleans())
def test_reader_and_bisection_agree_with_a_linear_scan(lines, cursor, trailing_newline):
    expected, malformed, offset = linear_scan(lines, cursor)
    path = materialise(lines, trailing_newline)
    try:
        counter: dict[str, int] = {}
        assert list(iter_after(path, cursor, counter)) == expected
        if cursor > 0:
            assert counter["malformed"] == malformed
            with path.open("rb") as handle:
                assert offset_after(handle, cursor, path.stat().st_size) == min(offset, path.stat().st_size)
    finally:
        path.unlink()


@PROPERTY
@given(history_files(), st.integers(min_value=0, max_value=10_001), st.integers(min_value=1, max_value=120))
def test_batches_cover_the_backlog_once_in_order_within_budget(lines, cursor, budget):
    expected, _, _ = linear_scan(lines, cursor)
    path = materialise(lines, trailing_newline=True)
    try:
        seen: list[HistoryEntry] = []
        position = from_cursor(path, cursor)
        while (batch := next_batch(path, position, budget)) is not None:
            assert len(batch.entries) == 1 or batch.estimated_tokens <= budget
            assert sum(entry_tokens(e) for e in batch.entries) == batch.estimated_tokens
            seen += batch.entries
            position = Position(batch.end_offset, batch.last_line, batch.last_cursor)
            assert batch.more_after == (len(seen) < len(expected))
        assert [e.cursor for e in seen] == [e.cursor for e in expected]
        assert [e.content for e in seen] == [drop_skip_lines(e.content)[0] for e in expected]
        assert all("[skip]" not in line.lower()[:8] for e in seen for line in e.content.splitlines())
    finally:
        path.unlink()


# the restricted tools -----------------------------------------------------------------------------

def _workspace() -> Workspace:
    ws = Workspace.at(tempfile.mkdtemp(prefix="nanodream-props-"))
    atexit.register(shutil.rmtree, ws.root, True)
    scaffold(ws.root)
    return ws


WS = _workspace()
BIG = ToolLimits.from_settings(Settings(max_tool_calls=10_000, max_file_chars=100_000, max_skill_chars=100_000,
                                        max_repeated_failures=10_000))
WRITERS = ("write_file", "edit_file", "delete_skill")


def overlapping_count(text: str, part: str) -> int:
    return sum(1 for i in range(len(text) - len(part) + 1) if text.startswith(part, i))


@st.composite
def edits(draw) -> tuple[str, str, str]:
    """(content, old_text, new_text); old_text is often cut from the content, as a model would copy it."""
    content = draw(st.text(alphabet="ab-\n ", max_size=30))
    start = draw(st.integers(min_value=0, max_value=len(content)))
    cut = content[start:start + draw(st.integers(min_value=0, max_value=6))]
    old_text = draw(st.sampled_from([cut, cut]) | st.text(alphabet="ab-\n ", max_size=5))
    return content, old_text, draw(st.text(max_size=10))


@PROPERTY
@given(edits())
@example(("aaa", "aa", "b"))  # two overlapping matches: ambiguous, not "one"
def test_edit_replaces_only_a_unique_occurrence(case):
    content, old_text, new_text = case
    box = ToolBox(Staging(WS), BIG)
    box.staging.write("memory/MEMORY.md", content)
    result = box.call("edit_file", json.dumps({"path": "memory/MEMORY.md", "old_text": old_text,
                                               "new_text": new_text}))
    staged = box.staging.read("memory/MEMORY.md")
    matches = overlapping_count(content, old_text) if old_text else 0
    if old_text and matches == 1:
        at = content.index(old_text)
        assert result.startswith("OK") and staged == content[:at] + new_text + content[at + len(old_text):]
    else:
        assert result.startswith("Error:") and staged == content
        assert "empty" in result if not old_text else f"{matches} matches" in result or f"{matches} times" in result


path_pieces = st.sampled_from([
    "skills", "memory", "SKILL.md", "USER.md", "SOUL.md", "MEMORY.md", "..", ".", "", "a", "x-y", "Bad", "\n",
    "%2e", "%2F", "\\", "~", ".git", "config", "\uff21", "\u200b", "\u0430", "history.jsonl", ".dream_cursor",
    "prompts", "dream.md", "nanodream.toml", "\x00", " ", "/",
])
paths = st.one_of(
    st.text(max_size=40),
    st.lists(path_pieces | st.text(max_size=3), min_size=1, max_size=5).map("/".join),
    st.tuples(st.text(max_size=2), st.sampled_from(list(CORE_FILES) + ["skills/ok/SKILL.md"]), st.text(max_size=2))
    .map("".join),
)


@PROPERTY
@given(paths)
@example("skills/x/SKILL.md\n")
@example("skills/abc\n/SKILL.md")
def test_path_check_accepts_nothing_outside_the_allowlist(path):
    try:
        accepted = WS.check_memory_path(path)
    except PathRefused:
        return
    assert accepted == path
    assert path in CORE_FILES or ALLOWED_SKILL.fullmatch(path)
    assert (WS.root / path).resolve().is_relative_to(WS.root)


tool_names = st.sampled_from(["read_file", "list_skills", "edit_file", "write_file", "delete_skill"]) | json_values
arguments = st.one_of(
    st.fixed_dictionaries({}, optional={"path": paths | json_values, "content": st.text(max_size=50) | json_values,
                                        "old_text": st.text(max_size=10) | json_values,
                                        "new_text": st.text(max_size=10) | json_values,
                                        "name": st.text(max_size=10) | json_values}).map(json.dumps),
    json_values.map(json.dumps),
    st.text(max_size=40),
)


@PROPERTY
@given(st.lists(st.tuples(tool_names, arguments), min_size=1, max_size=6))
def test_any_tool_call_is_answered_and_staging_stays_inside_the_allowlist(calls):
    box = ToolBox(Staging(WS), ToolLimits.from_settings(Settings(max_tool_calls=10_000, max_repeated_failures=10_000)))
    for name, raw in calls:
        before = dict(box.staging.current)
        try:
            result = box.call(name, raw)
        except SessionAborted:  # the only way a call may end the session
            break
        assert isinstance(result, str) and result
        if result.startswith("Error:"):
            assert box.staging.current == before  # a refused call changes nothing
    for path in box.staging.current:
        assert path in CORE_FILES or ALLOWED_SKILL.fullmatch(path), path
    assert all(refusal.blocking == (refusal.tool in WRITERS) for refusal in box.refusals)


def cursor_upgrade_reference(path: Path, cursor: int) -> tuple[int, int, int]:
    """(offset, line, cursor) of the upgrade from `.dream_cursor`, line by line: stop before the first entry whose
    cursor is above `cursor`; the cursor is that of the last entry before it."""
    offset = line = last = 0
    data = path.read_bytes()
    pieces = [piece + b"\n" for piece in data.split(b"\n")[:-1]] + ([data.rsplit(b"\n", 1)[-1]] if data else [])
    for number, raw in enumerate(filter(None, pieces), start=1):
        entry = parse_line(raw) if raw.strip() else None
        if entry is not None and entry.cursor > cursor:
            break
        offset, line, last = offset + len(raw), number, entry.cursor if entry is not None else last
    return offset, line, last or cursor


usual_lines = st.one_of(
    st.builds(lambda c: json.dumps({"cursor": c, "timestamp": "2026-10-01 10:00", "content": "x"}).encode(),
              st.integers(1, 60)),
    st.builds(lambda c, d: b'{"cursor": %d, "timestamp": "t", "content": "y", "cursor": %d}' % (c, d),
              st.integers(1, 60), st.integers(1, 60)),
    st.builds(lambda c: b'{"cursor": %d, "timestamp": 5, "content": "not an entry"}' % c, st.integers(1, 60)),
    st.builds(lambda c: b'{"cursor": %d, "timestamp": "t", "content": "\\"cursor\\""}' % c, st.integers(1, 60)),
    malformed_lines,
)


@PROPERTY
@given(st.lists(usual_lines, max_size=30), st.integers(min_value=1, max_value=61), st.booleans(),
       st.sampled_from([8, 64, 1024]))
def test_the_upgrade_from_a_cursor_passes_over_blocks_exactly_where_reading_every_line_would_stop(
        lines, cursor, trailing_newline, block):
    from nanodream.backlog import position as module

    path = materialise(lines, trailing_newline)
    try:
        with_blocks = module._FAST_BLOCK
        module._FAST_BLOCK = block
        try:
            found = from_cursor(path, cursor)
        finally:
            module._FAST_BLOCK = with_blocks
        assert (found.offset, found.line, found.cursor) == cursor_upgrade_reference(path, cursor)
    finally:
        path.unlink()
