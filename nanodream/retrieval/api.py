"""The host's side of recall: `recall()` for one question, `Recaller` for a conversation that should not
see the same memory twice, `recall_apart()` for hosts that must not mistake an inferred line for a fact."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, tzinfo
from importlib import import_module
from itertools import islice
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, TypeVar

from nanodream.hypotheses import evidence, without_marker
from nanodream.retrieval.documents import TURN, Document
from nanodream.validity import parse_validity
from nanodream.vocab import Declared
from nanodream.workspace import ARCHIVE_DIR, Workspace

if TYPE_CHECKING:
    from nanodream.retrieval.index import Index
    from nanodream.retrieval.ranking import Found, Ranking
    from nanodream.versioning.asof import Snapshot

_Hit = TypeVar("_Hit", bound="Hit")
INSTALL_HINT = "recall needs the recall extra: pip install 'nanodream[recall]'"
EXTRA_MODULES = ("bm25s", "Stemmer", "numpy", "scipy")  # the extra's packages and what they pull in


class RecallUnavailable(RuntimeError):
    """bm25s or PyStemmer is not installed; the message says how to install them."""


@dataclass(frozen=True)
class Hit(Declared):
    """One memory that matches: its text, where it lives (`line` is 1-based), its heading path, its BM25 score.

    For a skill, `text` is its description, `heading` its name and `line` 1. `until` is the day a replaced
    fact stopped being true (an archived line in the until-form, validity.py), None for a current one. A turn
    of the transcripts ingest read (`source` "turn") lives in the turn store (`file` its segment); its
    `heading` says where and when it was said ("said on 2023-05-08 in openai:web-42"), and `session`,
    `said_on` and `speaker` say it apart.
    """

    text: str
    file: str
    line: int
    heading: str
    score: float
    until: str | None = None
    source: str = "memory"  # memory (the active files) | skill | archive | turn
    session: str | None = None  # a turn's session key
    said_on: str | None = None  # a turn's day, YYYY-MM-DD
    speaker: str | None = None  # who said a turn: a named speaker, else user or assistant

    to_dict = Declared.to_json  # the name docs/recall.md gives hosts (`nanodream.Hit`)


@dataclass(frozen=True)
class HypothesisHit(Hit):
    """A matching hypothesis line: `text` without its marker, `evidence` how often history pointed its way."""

    evidence: int = 0


def recall_apart(workspace: Workspace | str | Path, query: str, k: int = 5) -> tuple[list[Hit], list[HypothesisHit]]:
    """The `k` best stated facts (memory lines, archived lines and turns said) and, apart, the `k` best
    hypotheses matching `query` (each best first).

    A hypothesis (`<!-- hypothesis: N -->`) is a preference the dream inferred and the user never stated;
    a host that presents one as memory would tell the user a guess as if they had said it.
    """
    ws = _workspace(workspace)
    return _apart(ws, _ranking(ws, _index_module().index_for(ws), query), k)


def recall_as_of(workspace: Workspace | str | Path, query: str, day: date, k: int = 5, zone: tzinfo = UTC, *,
                 turns: bool = True) -> tuple[list[Hit], list[HypothesisHit], Snapshot]:
    """As `recall_apart`, over memory as it stood on `day` (retrieval/asof.py) and the turns said by then, and
    the snapshot it read: the last commit on or before the day's end in `zone`, None when memory had no commit by
    then. `turns=False`: memory alone."""
    ws = _workspace(workspace)
    index, taken = _index_module("nanodream.retrieval.asof").index_as_of(ws, day, zone)
    return (*_apart(ws, _ranking(ws, index, query, day, turns=turns), k), taken)


def _ranking(workspace: Workspace, index: Index, query: str, by: date | None = None, *, turns: bool = True,
             ) -> Ranking:
    blocks = import_module("nanodream.retrieval.turns").blocks(workspace) if turns else []
    return _ranking_module().rank(index, blocks, query, by)


def _ranking_module() -> ModuleType:
    return import_module("nanodream.retrieval.ranking")


def _apart(workspace: Workspace, ranking: Ranking, k: int) -> tuple[list[Hit], list[HypothesisHit]]:
    facts = (_hit(workspace, found) for found in ranking if found.memory is None or evidence(found.memory.text) is None)
    guesses = (_guess(found.memory, found.score) for found in ranking.in_memory()
               if found.memory is not None and evidence(found.memory.text) is not None)
    return _ranking_module().distinct(_present(facts), k), _first(k, guesses)


def _guess(doc: Document, score: float) -> HypothesisHit:
    return HypothesisHit(without_marker(doc.text), doc.file, doc.line, doc.heading, score,
                         evidence=evidence(doc.text) or 0)


def recall(workspace: Workspace | str | Path, query: str, k: int = 5, *, turns: bool = True) -> list[Hit]:
    """The `k` memories and turns that best match `query`, best first; [] when none shares a word with it.
    `turns=False`: memory alone (what consolidation kept, as eval measures it)."""
    ws = _workspace(workspace)
    ranking = _ranking(ws, _index_module().index_for(ws), query, turns=turns)
    return _ranking_module().distinct(_present(_hit(ws, found) for found in ranking), k)


def _present(hits: Iterator[_Hit | None]) -> Iterator[_Hit]:
    """The hits that are still there (a turn forgotten since the index was read is not)."""
    return (found for found in hits if found is not None)


def _first(k: int, hits: Iterator[_Hit | None]) -> list[_Hit]:
    return list(islice(_present(hits), max(k, 0)))


def _hit(workspace: Workspace, found: Found) -> Hit | None:
    if found.memory is not None:
        return hit(found.memory, found.score)
    block = found.block
    turn = block.turn(found.doc) if block is not None else None
    if block is None or turn is None:
        return None
    return Hit(turn.shown, block.segment.relative_to(workspace.root).as_posix(), int(block.lines[found.doc]),
               turn.said, found.score, source=TURN, session=turn.session, said_on=turn.day,
               speaker=turn.speaker or turn.role)


def hit(doc: Document, score: float) -> Hit:
    """A document as a hit, with the day it stopped being true when it is a replaced fact."""
    archived = doc.file.startswith(f"{ARCHIVE_DIR}/")
    validity = parse_validity(doc.text) if archived else None
    source = "archive" if archived else "skill" if doc.file.startswith("skills/") else "memory"
    return Hit(doc.text, doc.file, doc.line, doc.heading, score, validity.until.isoformat() if validity else None,
               source=source)


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
