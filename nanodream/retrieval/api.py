"""The host's side of recall: `recall()` for one question, `Recaller` for a conversation that should not
see the same memory twice, `recall_apart()` for hosts that must not mistake an inferred line for a fact."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, tzinfo
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from nanodream.hypotheses import evidence, without_marker
from nanodream.retrieval.documents import Document
from nanodream.validity import parse_validity
from nanodream.vocab import Declared
from nanodream.workspace import ARCHIVE_DIR, Workspace

if TYPE_CHECKING:
    from nanodream.retrieval.index import Index
    from nanodream.versioning.asof import Snapshot

INSTALL_HINT = "recall needs the recall extra: pip install 'nanodream[recall]'"
EXTRA_MODULES = ("bm25s", "Stemmer", "numpy", "scipy")  # the extra's packages and what they pull in


class RecallUnavailable(RuntimeError):
    """bm25s or PyStemmer is not installed; the message says how to install them."""


@dataclass(frozen=True)
class Hit(Declared):
    """One memory that matches: its text, where it lives (`line` is 1-based), its heading path, its BM25 score.

    For a skill, `text` is its description, `heading` its name and `line` 1. `until` is the day a replaced
    fact stopped being true (an archived line in the until-form, validity.py), None for a current one.
    """

    text: str
    file: str
    line: int
    heading: str
    score: float
    until: str | None = None

    to_dict = Declared.to_json  # the name docs/recall.md gives hosts (`nanodream.Hit`)


@dataclass(frozen=True)
class HypothesisHit(Hit):
    """A matching hypothesis line: `text` without its marker, `evidence` how often history pointed its way."""

    evidence: int = 0


def recall_apart(workspace: Workspace | str | Path, query: str, k: int = 5) -> tuple[list[Hit], list[HypothesisHit]]:
    """The `k` best stated facts and, apart, the `k` best hypotheses matching `query` (each best first).

    A hypothesis (`<!-- hypothesis: N -->`) is a preference the dream inferred and the user never stated;
    a host that presents one as memory would tell the user a guess as if they had said it.
    """
    return _apart(_index_module().index_for(_workspace(workspace)), query, k)


def recall_as_of(workspace: Workspace | str | Path, query: str, day: date, k: int = 5, zone: tzinfo = UTC,
                 ) -> tuple[list[Hit], list[HypothesisHit], Snapshot]:
    """As `recall_apart`, over memory as it stood on `day` (retrieval/asof.py), and the snapshot it read: the
    last commit on or before the day's end in `zone`, None when memory had no commit by then."""
    index, taken = _index_module("nanodream.retrieval.asof").index_as_of(_workspace(workspace), day, zone)
    return (*_apart(index, query, k), taken)


def _apart(index: Index, query: str, k: int) -> tuple[list[Hit], list[HypothesisHit]]:
    facts: list[Hit] = []
    guesses: list[HypothesisHit] = []
    for doc, score in index.search(query, len(index.documents)):
        count = evidence(doc.text)
        if count is None and len(facts) < k:
            facts.append(hit(doc, score))
        elif count is not None and len(guesses) < k:
            guesses.append(HypothesisHit(without_marker(doc.text), doc.file, doc.line, doc.heading, score,
                                         evidence=count))
        if len(facts) >= k and len(guesses) >= k:
            break
    return facts, guesses


def recall(workspace: Workspace | str | Path, query: str, k: int = 5) -> list[Hit]:
    """The `k` memories that best match `query`, best first; [] when none shares a word with it."""
    index = _index_module().index_for(_workspace(workspace))
    return [hit(doc, score) for doc, score in index.search(query, k)]


def hit(doc: Document, score: float) -> Hit:
    """A document as a hit, with the day it stopped being true when it is a replaced fact."""
    validity = parse_validity(doc.text) if doc.file.startswith(f"{ARCHIVE_DIR}/") else None
    return Hit(doc.text, doc.file, doc.line, doc.heading, score, validity.until.isoformat() if validity else None)


class Recaller:
    """Recall for one conversation: each memory is returned once, since the host already holds what it injected.

    Memories are told apart by their words (case and spacing aside), so a line that moved to the archive or
    to another line number since is still known.
    """

    def __init__(self, workspace: Workspace | str | Path) -> None:
        self.workspace = _workspace(workspace)
        self._seen: set[str] = set()

    def new_hits(self, query: str, k: int = 5) -> list[Hit]:
        """Up to `k` best matches of `query` not returned by this Recaller before."""
        fresh: list[Hit] = []
        for hit in recall(self.workspace, query, k + len(self._seen)):  # at most len(_seen) are known
            if len(fresh) == k:
                break
            if _key(hit) not in self._seen:
                self._seen.add(_key(hit))
                fresh.append(hit)
        return fresh


def _key(hit: Hit) -> str:
    return " ".join(hit.text.split()).casefold()


def _workspace(workspace: Workspace | str | Path) -> Workspace:
    return workspace if isinstance(workspace, Workspace) else Workspace.at(workspace)


def _index_module(name: str = "nanodream.retrieval.cache") -> ModuleType:
    """The module `name` (it imports bm25s), or RecallUnavailable when that extra (bm25s, PyStemmer) is missing."""
    try:
        return import_module(name)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in EXTRA_MODULES:
            raise
        raise RecallUnavailable(INSTALL_HINT) from exc
