"""BM25 over blocks of documents indexed apart, ranked by one score.

bm25s stores each document's score already weighed by its corpus's statistics, so its index can neither grow
nor be ranked together with another one without being built again whole. Memory changes with every dream and
the turn store grows with every ingest: building both into one bm25s index each time would tokenize every turn
again. So a block here keeps only term counts (postings: per term, the documents holding it and how often), and
a query weighs them with the statistics of all the blocks it searches together — the document count, the mean
length, each term's document frequency. The formula is bm25s's default, Lucene's: idf · tf / (tf + k1 · (1 − b +
b · length / mean length)) with idf = ln(1 + (N − df + 0.5) / (df + 0.5)), k1 1.5, b 0.75. One block scores
exactly as bm25s would (a test compares them), and a memory line and a turn are compared by one score.

Terms are kept as 64-bit hashes (blake2b) in a sorted array, so a block is a handful of numpy arrays that
load without pickle, can be memory-mapped, and are looked up with a binary search.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

K1 = 1.5
B = 0.75


def term_ids(terms: Iterable[str]) -> np.ndarray:
    """Each term's 64-bit id (the first 8 bytes of its blake2b digest)."""
    return np.fromiter((int.from_bytes(hashlib.blake2b(term.encode("utf-8", "surrogatepass"), digest_size=8).digest(),
                                       "little") for term in terms), dtype=np.uint64)


@dataclass(frozen=True)
class Postings:
    """The term counts of one block of documents, numbered from 0 in their order."""

    terms: np.ndarray  # uint64 term ids, sorted
    starts: np.ndarray  # int64: the postings of terms[i] are [starts[i], starts[i + 1])
    docs: np.ndarray  # int32: the document of each posting
    counts: np.ndarray  # int32: how often the term occurs in it
    lengths: np.ndarray  # int32: each document's length in terms

    @property
    def size(self) -> int:
        return len(self.lengths)

    @classmethod
    def build(cls, tokens: Sequence[Sequence[str]]) -> Postings:
        """The postings of documents given as their terms (a term repeated counts each time)."""
        lengths = np.fromiter((len(doc) for doc in tokens), dtype=np.int32, count=len(tokens))
        local: dict[str, int] = {}
        flat = np.fromiter((local.setdefault(term, len(local)) for doc in tokens for term in doc), dtype=np.int64,
                           count=int(lengths.sum()))
        ids = term_ids(local)
        order = np.argsort(ids, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        doc_of = np.repeat(np.arange(len(tokens), dtype=np.int64), lengths)
        pairs, counts = np.unique(rank[flat] * max(len(tokens), 1) + doc_of, return_counts=True)
        term_rank = pairs // max(len(tokens), 1)
        starts = np.searchsorted(term_rank, np.arange(len(ids) + 1)).astype(np.int64)
        return cls(ids[order], starts, (pairs % max(len(tokens), 1)).astype(np.int32), counts.astype(np.int32),
                   lengths)

    def postings(self, term: np.uint64) -> tuple[np.ndarray, np.ndarray]:
        """The documents holding `term` and its count in each (empty arrays when none does)."""
        at = int(np.searchsorted(self.terms, term))
        if at == len(self.terms) or self.terms[at] != term:
            return self.docs[:0], self.counts[:0]
        start, end = int(self.starts[at]), int(self.starts[at + 1])
        return self.docs[start:end], self.counts[start:end]

    def save(self, folder: Path) -> None:
        for field in fields(self):
            np.save(folder / f"{field.name}.npy", getattr(self, field.name), allow_pickle=False)

    @classmethod
    def load(cls, folder: Path, *, mapped: bool = False) -> Postings:
        """What `save` wrote (memory-mapped when `mapped`); ValueError when the arrays do not fit together."""
        arrays = {field.name: np.load(folder / f"{field.name}.npy", allow_pickle=False,
                                      mmap_mode="r" if mapped else None) for field in fields(cls)}
        found = cls(**arrays)
        found.check()
        return found

    def check(self) -> None:
        """ValueError unless the arrays describe one consistent block (a tampered or half-written cache)."""
        shapes_fit = (len(self.starts) == len(self.terms) + 1 and len(self.docs) == len(self.counts)
                      and (len(self.starts) == 0 or int(self.starts[-1]) == len(self.docs)))
        if not shapes_fit or (len(self.docs) and not 0 <= int(self.docs.min()) <= int(self.docs.max()) < self.size):
            raise ValueError("postings whose arrays do not fit together")


def scores(blocks: Sequence[Postings], terms: Sequence[str], kept: Sequence[np.ndarray | None] | None = None,
           ) -> np.ndarray:
    """Every document's BM25 score for the query `terms`, the blocks' documents end to end.

    `kept` (one boolean mask or None per block) leaves documents out: they score 0 and count in no statistic, so
    the others rank as if only the kept ones had been indexed. A term repeated in the query counts each time.
    """
    masks = list(kept) if kept is not None else [None] * len(blocks)
    total = sum(block.size for block in blocks)
    result = np.zeros(total, dtype=np.float64)
    counted = sum(block.size if mask is None else int(mask.sum()) for block, mask in zip(blocks, masks, strict=True))
    length = sum(int(block.lengths.sum() if mask is None else block.lengths[mask].sum())
                 for block, mask in zip(blocks, masks, strict=True))
    if not counted or not length or not terms:
        return result
    average = length / counted
    for term, times in Counter(term_ids(terms).tolist()).items():
        found = [_kept(block.postings(np.uint64(term)), mask) for block, mask in zip(blocks, masks, strict=True)]
        frequency = sum(len(docs) for docs, _ in found)
        if not frequency:
            continue
        idf = np.log(1 + (counted - frequency + 0.5) / (frequency + 0.5))
        offset = 0
        for block, (docs, counts) in zip(blocks, found, strict=True):
            tf = counts.astype(np.float64)
            norm = K1 * (1 - B + B * block.lengths[docs] / average)
            result[offset + docs.astype(np.int64)] += times * idf * tf / (tf + norm)  # a doc is once per term
            offset += block.size
    return result


def _kept(found: tuple[np.ndarray, np.ndarray], mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    docs, counts = found
    if mask is None or not len(docs):
        return docs, counts
    keep = mask[docs]
    return docs[keep], counts[keep]


def best(scored: np.ndarray, k: int | None = None) -> np.ndarray:
    """The documents that share a term with the query (score > 0), best first, at most `k` of them (all when None);
    equal scores keep the documents' order, so a block searched first wins a tie."""
    matching = np.flatnonzero(scored > 0)
    order = matching[np.argsort(-scored[matching], kind="stable")]
    return order if k is None else order[:max(k, 0)]  # a negative k would count back
