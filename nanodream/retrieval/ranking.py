"""Memory lines, skills, archived lines and the turns ingest kept, ranked together by one BM25 score.

Memory comes first among the blocks, so at an equal score a memory line (or an archived one) wins over a turn:
what a dream kept is the better-read form of what was said. An answer only the transcript holds is still found in
the top k (`nanodream eval` measures recall against keeping every turn: it must not fall below it).

A memory line is often a turn restated ("User's mother is coming to stay …" beside "my mother is coming to stay
…"); shown both, the k places hold one thing twice and the next thing said is pushed out. So `distinct` passes
over a turn three quarters of whose terms the hits above it already show, and a memory line that repeats turns
above it the same way; memory lines among themselves are never passed over (an active line and the same words
archived are both answers).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Protocol, TypeVar

import numpy as np

from nanodream.retrieval import bm25
from nanodream.retrieval.documents import TURN, Document
from nanodream.retrieval.index import Index, tokenize
from nanodream.retrieval.turns import Block


class Shown(Protocol):
    """What `distinct` reads of a hit."""

    text: str
    source: str


_Hit = TypeVar("_Hit", bound=Shown)


@dataclass(frozen=True)
class Found:
    """One ranked document: a memory document, or a turn of a block (`doc` its number there)."""

    score: float
    memory: Document | None = None
    block: Block | None = None
    doc: int = 0


@dataclass(frozen=True)
class Ranking:
    """Every document sharing a term with a question, best first (`order`: positions over the blocks end to end,
    memory's first)."""

    memory: Index
    said: list[Block]
    scored: np.ndarray
    order: np.ndarray
    bounds: np.ndarray  # where each block starts in the positions, and where the last ends

    def __iter__(self) -> Iterator[Found]:
        return (self._found(int(at)) for at in self.order)

    def in_memory(self) -> Iterator[Found]:
        """The memory documents alone, best first (a hypothesis is looked for there only)."""
        return (self._found(int(at)) for at in self.order[self.order < self.bounds[1]])

    def _found(self, at: int) -> Found:
        which = int(np.searchsorted(self.bounds, at, side="right")) - 1
        doc = at - int(self.bounds[which])
        if which == 0:
            return Found(float(self.scored[at]), memory=self.memory.documents[doc])
        return Found(float(self.scored[at]), block=self.said[which - 1], doc=doc)


def rank(memory: Index, said: list[Block], query: str, by: date | None = None) -> Ranking:
    """Rank memory and the turns for `query`; with `by`, turns said after that day are left out (and count in no
    statistic: the store as it stood then)."""
    blocks = [memory.postings, *(block.postings for block in said)]
    kept = [None, *(block.said_by(by) if by is not None else None for block in said)]
    scored = bm25.scores(blocks, tokenize([query])[0], kept)
    return Ranking(memory, said, scored, bm25.best(scored), np.cumsum([0, *(block.size for block in blocks)]))


REPEATS = 0.75  # a hit with at least this share of its terms already shown above it adds nothing worth a place


def distinct(hits: Iterable[_Hit], k: int) -> list[_Hit]:
    """The first `k` of `hits` (best first) that do not repeat the hits taken above them (the module says how).

    A hit's terms are read only once a turn is in play: an answer from memory alone is never tokenized again.
    """
    taken: list[_Hit] = []
    terms: dict[int, set[str]] = {}  # a taken hit's terms, by its place in `taken`
    said: set[str] = set()  # the terms the turns taken show

    def of(at: int) -> set[str]:
        if at not in terms:
            terms[at] = set(tokenize([taken[at].text])[0])
        return terms[at]

    for hit in hits:
        if len(taken) >= k:
            break
        turn = hit.source == TURN
        taken.append(hit)
        if not turn and not said:
            continue
        mine = of(len(taken) - 1)
        shown = set().union(*(of(at) for at in range(len(taken) - 1))) if turn else said
        if mine and len(mine & shown) >= REPEATS * len(mine):
            taken.pop()
            terms.pop(len(taken), None)
        elif turn:
            said |= mine
    return taken
