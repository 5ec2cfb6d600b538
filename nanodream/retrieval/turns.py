"""The turn store (backlog/turns.py) as recall searches it: one block of postings per segment.

A segment closed past its size never changes again, so its block is built once; an ingest changes only the open
segment (or starts a new one), and the next query reads and tokenizes that one alone. A block is kept under
`.nanodream/recall/turns/` keyed by its segment's (name, inode, size, mtime_ns) and memory-mapped when loaded,
and in a host's process it stays loaded while that key holds. Beside its postings a block keeps where each
turn's line starts (a hit reads that one line, never the segment), its line number, and the day it was said
(recall as of a day leaves later turns out).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import bm25s
import numpy as np

from nanodream import __version__
from nanodream.backlog import turns as store
from nanodream.retrieval import bm25
from nanodream.retrieval.cache import FORMAT, TURNS, cache_dir, prune, save_into
from nanodream.retrieval.index import STOPWORDS, tokenize
from nanodream.workspace import Workspace

_WHERE = ("offsets", "lines", "days")  # the arrays a block keeps beside its postings


@dataclass(frozen=True)
class Block:
    """One segment's turns, indexed: postings, and per turn its line's offset and number and its day (ordinal)."""

    segment: Path
    postings: bm25.Postings
    offsets: np.ndarray  # int64
    lines: np.ndarray  # int32
    days: np.ndarray  # int32: date.toordinal() of the day it was said

    def said_by(self, day: date) -> np.ndarray:
        """Which turns were said on `day` or before."""
        return np.asarray(self.days) <= day.toordinal()

    def turn(self, doc: int) -> store.Turn | None:
        """The turn `doc`, read from its segment (None when it is gone since the block was read)."""
        return store.turn_at(self.segment, int(self.offsets[doc]))

    def save(self, folder: Path) -> None:
        self.postings.save(folder)
        for name in _WHERE:
            np.save(folder / f"{name}.npy", getattr(self, name), allow_pickle=False)

    @classmethod
    def load(cls, segment: Path, folder: Path) -> Block:
        """What `save` wrote, memory-mapped; ValueError when its arrays do not fit together."""
        postings = bm25.Postings.load(folder, mapped=True)
        where = [np.load(folder / f"{name}.npy", allow_pickle=False, mmap_mode="r") for name in _WHERE]
        if any(len(array) != postings.size for array in where):
            raise ValueError(f"{folder}: {postings.size} indexed turns, not as many places")
        return cls(segment, postings, *where)

    @classmethod
    def build(cls, segment: Path) -> Block:
        said = list(store.read_segment(segment))
        postings = bm25.Postings.build(tokenize([stored.turn.shown for stored in said]))
        return cls(segment, postings,
                   np.fromiter((stored.offset for stored in said), dtype=np.int64, count=len(said)),
                   np.fromiter((stored.line for stored in said), dtype=np.int32, count=len(said)),
                   np.fromiter((_ordinal(stored.turn.day) for stored in said), dtype=np.int32, count=len(said)))


_HELD: dict[Path, tuple[str, Block]] = {}  # segment → (key, block), for a host's process


def blocks(workspace: Workspace) -> list[Block]:
    """The store's blocks, oldest segment first: held, else loaded from the cache, else built (and saved)."""
    root = cache_dir(workspace) / TURNS
    found: list[Block] = []
    names: set[str] = set()
    for segment in store.segments(workspace):
        key = _key(segment)
        names.add(key)
        held = _HELD.get(segment)
        if held is None or held[0] != key:
            held = (key, _loaded(segment, root / key) or _built(segment, root, key))
            _HELD[segment] = held
        found.append(held[1])
    for segment in [path for path in _HELD if path.parent == store.turns_dir(workspace)]:
        if _HELD[segment][0] not in names:
            del _HELD[segment]
    if root.is_dir():
        with contextlib.suppress(OSError):
            prune(root, names.__contains__)
    return found


def _key(segment: Path) -> str:
    """The block's folder name: the segment's name and a hash of its stat and of what shapes the tokens."""
    st = os.stat(segment, follow_symlinks=False)
    raw = json.dumps([FORMAT, __version__, bm25s.__version__, STOPWORDS, st.st_ino, st.st_size, st.st_mtime_ns])
    return f"{segment.stem}-{hashlib.sha256(raw.encode()).hexdigest()[:24]}"


def _loaded(segment: Path, folder: Path) -> Block | None:
    if not folder.is_dir():
        return None
    try:
        return Block.load(segment, folder)
    except (OSError, ValueError):  # half-pruned by another process, or tampered with
        return None


def _built(segment: Path, root: Path, key: str) -> Block:
    block = Block.build(segment)
    with contextlib.suppress(OSError):  # a read-only workspace still answers; it builds every time
        save_into(root, key, block.save)
    return block


def _ordinal(day: str) -> int:
    try:
        return date.fromisoformat(day).toordinal()
    except ValueError:
        return 0  # a day nanodream did not write: counted as long ago
