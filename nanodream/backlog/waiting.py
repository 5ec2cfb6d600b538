"""History entries the built-in engine cannot read: they wait for a model, and no run moves past them for good.

An entry waits when ingest left it for a model (its first line is `[for a model: LANG]`: the person's messages in a
language the rules do not read, or what they said beyond the explicit statements the rules filed), or, for an entry
a host wrote, when its text is in a language no file of `nanodream/text/data/lang-*.toml` describes.

A built-in run passes over such an entry: the batch it cuts leaves it out, and before the history position moves
past it the entry is recorded here (`.nanodream/waiting.json`: where it starts, its line and cursor, a key of its
fields, its language), in the same journalled step as the position (memory/transaction.py). A run with a model, or a
host's dream, takes these entries first, oldest first, before anything after the position (`next_batch`, the one
function both call), and the commit that dreams them releases them. Until then `.dream_cursor` — which nanobot
reads to decide what it may compact away and what it still shows its agent as recent history — stays before the
first waiting entry (`nanobot_cursor`), so the host keeps it too.

A record names its entry by offset and by a key of the entry's own fields, so an entry found elsewhere (a host that
compacted or rewrote history.jsonl) is followed, and one gone from the file is dropped, said so. Writers hold the
workspace lock; readers may look at any time (the file is replaced atomically).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from nanodream import boundedjson
from nanodream.atomic import atomic_write, open_binary
from nanodream.backlog import history
from nanodream.backlog.history import (
    FOR_A_MODEL,
    UNKNOWN_LANGUAGE,
    Batch,
    BatchLimits,
    DeadLetter,
    HistoryEntry,
    Position,
    Survey,
    drop_skip_lines,
    entry_at,
    entry_tokens,
    lines_backwards,
    marked_languages,
    parse_line,
    read_from,
    tagged_lines,
)
from nanodream.workspace import Workspace

# How sure the language model must be before a host's own entry waits: a terse English summary ("Task: chore 0.
# Task: chore 1.") can read as Norwegian at 0.58; real sentences in another language score above 0.97. A short one
# may score less ("Svara alltid på svenska." 0.64) and waits all the same when English is no real guess for it.
HOST_CONFIDENCE = 0.9
HOST_LEANING, ENGLISH_NOISE = 0.6, 0.05


class WaitingUnreadable(RuntimeError):
    """The record is damaged: reading on could move past an entry nobody has read."""


@dataclass(frozen=True)
class Waiting:
    """One entry waiting for a model: where it is (`offset`, `line`), the host's `cursor`, the key of its fields."""

    offset: int
    line: int
    cursor: int
    key: str
    language: str



def waiting_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "waiting.json"


def entry_key(entry: HistoryEntry) -> str:
    """What identifies an entry wherever its line moves: its own fields, not its bytes (a host may re-serialise);
    its `[skip]` lines aside, so the entry of a batch (which has none left) has its stored line's key."""
    content = drop_skip_lines(entry.content)[0]
    fields_ = json.dumps([entry.cursor, entry.timestamp, entry.session_key, content], ensure_ascii=False)
    return hashlib.sha256(fields_.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def marker_line(languages: list[str] | tuple[str, ...]) -> str:
    """The first line of an entry left for a model (ingest writes it; `marked_languages` reads it)."""
    named = ", ".join(sorted(set(languages))) or UNKNOWN_LANGUAGE
    return (f"{FOR_A_MODEL}: {named}] What the person said that the built-in rules do not read, in their own words "
            "(each line quoted):")


def unread_language(content: str) -> str:
    """Why the built-in engine cannot read an entry: the language it is in ('' when the rules read it). Ingest's
    marker says so at no cost (all `status` looks for: `marked_languages`); a host's entry is asked the language
    model (text/language.py), which only a run loads.
    """
    marked = marked_languages(content)
    if marked is not None:
        return ", ".join(marked)
    text = " ".join(line for tag, line in tagged_lines(drop_skip_lines(content)[0]))
    if not text.strip():
        return ""
    from nanodream.text.language import UNDETERMINED, english_score, language_of  # loads fastText: only a run asks
    from nanodream.text.statements import read_languages

    language = language_of(text, min_confidence=HOST_CONFIDENCE)
    if language == UNDETERMINED and english_score(text) < ENGLISH_NOISE:
        language = language_of(text, min_confidence=HOST_LEANING)
    return "" if language in read_languages() else language


# the record ---------------------------------------------------------------------------------------------------


def load_waiting(workspace: Workspace) -> list[Waiting]:
    """Every waiting entry, in file order; a missing record means none."""
    path = waiting_file(workspace)
    try:
        data = boundedjson.load_file(path)
    except FileNotFoundError:
        return []
    except (ValueError, UnicodeDecodeError):
        raise WaitingUnreadable(f"{path} is unreadable; fix it, or move it away to let runs go on (the entries it "
                                "named then wait no more: a model run will not read them)") from None
    known = {f.name for f in fields(Waiting)}
    try:
        items = [Waiting(**{k: v for k, v in item.items() if k in known}) for item in data["entries"]]
    except (KeyError, TypeError):
        raise WaitingUnreadable(f"{path} does not hold a list of waiting entries") from None
    return sorted(items, key=lambda item: item.offset)


def save_waiting(workspace: Workspace, items: list[Waiting]) -> None:
    path = waiting_file(workspace)
    if not items and not path.exists():
        return
    payload = {"entries": [asdict(item) for item in sorted(items, key=lambda item: item.offset)]}
    atomic_write(path, json.dumps(payload, indent=1, ensure_ascii=False) + "\n")


def as_waiting(entry: HistoryEntry, language: str) -> Waiting:
    return Waiting(entry.offset, entry.line, entry.cursor, entry_key(entry), language)


def settle_waiting(workspace: Workspace, added: list[dict], released: list[str]) -> None:
    """Record the entries a position is about to pass (`added`, as `asdict(Waiting)`) and forget those a commit
    dreamed (`released`, by key): the one write, made right before the position moves (memory/transaction.py)."""
    if not added and not released:
        return
    items = load_waiting(workspace)
    gone = set(released)
    kept = {item.key: item for item in items if item.key not in gone}
    for record in added:
        item = Waiting(**record)
        kept.setdefault(item.key, item)
    if list(kept.values()) != items:  # a model's batch that met none of them writes nothing
        save_waiting(workspace, list(kept.values()))


@dataclass
class Found:
    """The recorded entries as history.jsonl holds them now: those the position has passed, each with its entry, and
    the records whose entry is gone (a host cut it away) or moved (a host rewrote the file)."""

    entries: list[tuple[Waiting, HistoryEntry]] = field(default_factory=list)
    current: list[Waiting] = field(default_factory=list)  # every record still naming an entry, where it is now
    lost: list[Waiting] = field(default_factory=list)
    moved: bool = False


def locate(workspace: Workspace, before: Position) -> Found:
    """The recorded entries the position has passed, oldest first, each found in the file: at its offset while its
    key matches, else wherever one pass over the file finds it. A record at or after the position is an
    interrupted write's: its entry is read there in order anyway. Nothing is written (`refresh` saves moves)."""
    items = load_waiting(workspace)
    found_at = {item.key: entry for item in items
                if (entry := entry_at(workspace.history_file, item.offset, item.line)) is not None
                and entry_key(entry) == item.key}
    missing = {item.key for item in items} - set(found_at)
    if missing:
        found_at |= _find_keys(workspace.history_file, missing)
    found = Found()
    for item in items:
        entry = found_at.get(item.key)
        if entry is None:
            found.lost.append(item)
            continue
        if entry.offset != item.offset:
            item, found.moved = replace(item, offset=entry.offset, line=entry.line), True
        found.current.append(item)
        if entry.offset < before.offset:
            found.entries.append((item, entry))
    return found


def _find_keys(path: Path, keys: set[str]) -> dict[str, HistoryEntry]:
    found: dict[str, HistoryEntry] = {}
    for item in read_from(path):
        if isinstance(item, HistoryEntry) and (key := entry_key(item)) in keys:
            found.setdefault(key, item)
    return found


def refresh(workspace: Workspace, found: Found) -> None:
    """Keep what `locate` learned: records follow their moved entries, and those naming none are dropped."""
    if found.moved or found.lost:
        save_waiting(workspace, found.current)


def count_waiting(workspace: Workspace, before: Position, after: Survey | None = None) -> Counter[str]:
    """How many entries wait for a model, by the languages each is in ("de, zh" for an entry holding both): those
    recorded before the position (the record alone, no file read) and, given the survey of what follows it, those
    ingest marked there. A host's entry in a language the rules do not read is only known once a run has read it
    (that needs the language model)."""
    found = Counter(item.language for item in load_waiting(workspace) if item.offset < before.offset)
    if after is not None:
        found.update(after.waiting)
    return found


def by_language(entries: Counter[str]) -> Counter[str]:
    """`count_waiting`'s tally per language: an entry in two languages counts for each."""
    found: Counter[str] = Counter()
    for languages, number in entries.items():
        for language in languages.split(", "):
            found[language] += number
    return found


# nanobot's cursor -----------------------------------------------------------------------------------------------


def nanobot_cursor(workspace: Workspace, position: Position) -> int:
    """What `.dream_cursor` holds: the cursor of the last entry before the first one still waiting (nanobot keeps
    and shows every entry after it), else the position's own. An unreadable record holds nothing back."""
    try:
        first = next((item for item in load_waiting(workspace) if item.offset < position.offset), None)
    except WaitingUnreadable:
        return position.cursor
    if first is None:
        return position.cursor
    return min(position.cursor, _cursor_before(workspace.history_file, first.offset))


def _cursor_before(path: Path, offset: int) -> int:
    """The cursor of the last entry ending at or before `offset` (0 when none)."""
    try:
        handle = open_binary(path)
    except FileNotFoundError:
        return 0
    with handle:
        for line in lines_backwards(handle, offset):
            entry = parse_line(line) if line else None
            if entry is not None:
                return entry.cursor
    return 0


# the next batch -------------------------------------------------------------------------------------------------


def next_batch(workspace: Workspace, start: Position, budget_tokens: int, excluded: frozenset[int] = frozenset(), *,
               reads_everything: bool, limits: BatchLimits | None = None) -> Batch | None:
    """The next batch to dream, the same way for a run and for a host's dream session.

    For an engine that reads everything (a model, a host agent): the entries waiting for a model first, oldest
    first, as a batch of their own (`Batch.waiting`); once none is left, the history after `start`. For the built-in
    engine: the history after `start` without the entries it cannot read; those the batch's span passes over are
    in `Batch.passed`, for the position's step to record before it moves. `excluded` entries (by offset: quarantined,
    forgotten, suspects of this run, waiting entries already tried) are left out either way, and `limits` bound it.
    """
    path = workspace.history_file
    limits = limits or BatchLimits()
    if reads_everything:
        waiting = _waiting_batch(workspace, start, budget_tokens, excluded, limits.max_entries)
        return waiting if waiting is not None else history.next_batch(path, start, budget_tokens, excluded,
                                                                      limits=limits)
    return history.next_batch(path, start, budget_tokens, excluded, unread_language, limits=limits)


def unread_rest(workspace: Workspace, start: Position, excluded: frozenset[int] = frozenset()
                ) -> list[tuple[HistoryEntry, str]]:
    """The entries after `start` with the language each is in, when the built-in rules can read none of them and a
    host wrote one: a built-in run with nothing left to read records them and moves past them, so `status` counts
    them as waiting (a host's entry in such a language is only known to a run, which loads the language model;
    ingest's marker `status` reads itself, so entries all marked stay where they are). [] otherwise: when one of
    them can be read, the next batch moves past the rest."""
    found = []
    for item in read_from(workspace.history_file, start.offset, start.line):
        if isinstance(item, DeadLetter) or item.offset in excluded:
            continue
        language = unread_language(item.content)
        if not language:
            return []
        found.append((item, language))
    return found if any(marked_languages(item.content) is None for item, _ in found) else []


def _waiting_batch(workspace: Workspace, start: Position, budget_tokens: int, excluded: frozenset[int],
                   max_entries: int | None) -> Batch | None:
    """The oldest recorded entries that fit the budget, each read at its offset (a batch costs what it holds); when
    the host moved history, the rest are found by their keys in one pass (`locate`)."""
    entries: list[HistoryEntry] = []
    used = 0
    for entry in _recorded(workspace, start, excluded):
        cleaned = replace(entry, content=drop_skip_lines(entry.content)[0])
        cost = entry_tokens(cleaned)
        if entries and (used + cost > budget_tokens or len(entries) == max_entries):
            return Batch(entries, more_after=True, waiting=True)
        entries.append(cleaned)
        used += cost
    return Batch(entries, waiting=True) if entries else None


def _recorded(workspace: Workspace, start: Position, excluded: frozenset[int]) -> Iterator[HistoryEntry]:
    taken: set[str] = set()
    for item in load_waiting(workspace):
        if item.offset >= start.offset or item.offset in excluded:
            continue
        entry = entry_at(workspace.history_file, item.offset, item.line)
        if entry is None or entry_key(entry) != item.key:
            yield from (found for record, found in locate(workspace, start).entries
                        if record.key not in taken and found.offset not in excluded)
            return
        taken.add(item.key)
        yield entry
