"""Question checks: how much of each answer recall can still give back, beside keeping the whole transcript.

An `[[ask]]` is scored by the share of its answer's content words (stemmed, stop words out, as recall
tokenizes) found in the top-k hits `recall` returns for its question after ingest and the dream: memory (active
files and archive) and the turns ingest kept, by one score (with `as_of`, memory as it stood that day and the
turns said by then). The same figure over the transcript's own turns (or, for a scenario of history alone, its
entries; with `as_of`, those of that day or before), each a document ranked by the same BM25, is the "keep
everything" baseline; recall must not fall below it. Beside both, memory alone (recall without the turns) says
what consolidation kept, and memory's size beside the transcript's what that cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, tzinfo
from pathlib import Path
from typing import Any

from nanodream.evaluation.scenario import Ask, ScenarioError
from nanodream.vocab import Declared, Shape
from nanodream.workspace import Workspace

DEFAULT_K = 5


@dataclass(frozen=True)
class Turn:
    """One message of the transcript, as the baseline keeps it: with its speaker's name, as a transcript
    shows it ("Pieter: I'm a teacher"), so keeping everything is not judged without who said what."""

    text: str
    session: str
    speaker: str = ""
    day: date | None = None  # when it was said, for an `as_of` ask's baseline (None: always counted)

    @property
    def shown(self) -> str:
        return f"{self.speaker}: {self.text}" if self.speaker else self.text


@dataclass
class AskResult(Declared):
    json_shape = Shape(rounded=(("coverage", 4), ("baseline", 4), ("memory", 4)))

    question: str
    answer: str
    coverage: float  # share of the answer's words in recall's top-k hits (memory and the turns ingest kept)
    baseline: float  # the same over the transcript's top-k turns
    kind: str = ""  # a temporal question's kind (scenario.ASK_KINDS), "" for the rest
    as_of: str | None = None  # YYYY-MM-DD: asked of memory as it stood that day
    memory: float = 0.0  # the same share over memory's top-k lines alone (no turns)


@dataclass
class AskScores:
    asks: list[AskResult] = field(default_factory=list)
    memory_bytes: int = 0  # what the dream added to memory (archive included)
    transcript_bytes: int = 0  # the text of the transcript's turns

    @property
    def coverage(self) -> float:
        return sum(a.coverage for a in self.asks) / len(self.asks) if self.asks else 0.0

    @property
    def baseline(self) -> float:
        return sum(a.baseline for a in self.asks) / len(self.asks) if self.asks else 0.0

    @property
    def memory_coverage(self) -> float:
        return sum(a.memory for a in self.asks) / len(self.asks) if self.asks else 0.0

    @property
    def memory_share(self) -> float | None:
        return self.memory_bytes / self.transcript_bytes if self.transcript_bytes else None

    def metrics(self) -> dict[str, Any]:
        share = self.memory_share
        return {"ask_coverage": round(self.coverage, 4), "baseline_coverage": round(self.baseline, 4),
                "memory_coverage": round(self.memory_coverage, 4),
                "memory_bytes": self.memory_bytes, "transcript_bytes": self.transcript_bytes,
                "memory_share": None if share is None else round(share, 4),
                "asks": [a.to_json() for a in self.asks]}


def transcript_turns(paths: list[Path]) -> list[Turn]:
    """Every user and assistant message of the transcript files, in the formats ingest reads."""
    from nanodream.ingest.detect import detect
    from nanodream.ingest.reader import read_new

    turns: list[Turn] = []
    for path in paths:
        fmt = detect(path)
        if fmt is not None:
            turns += [Turn(m.text, m.session, m.speaker)
                      for m in read_new(path, fmt, "new", None, follow=True).messages]
    return turns


def history_turns(path: Path) -> list[Turn]:
    """Every entry of a history file as one turn, with its day: what keeping all of history would give back."""
    from nanodream.backlog.history import HistoryEntry, entry_day, read_from

    if not path.is_file():
        return []
    real = path.resolve()  # a corpus file, not a workspace's: the packaged corpus is a link in a checkout
    return [Turn(item.content, item.session_key or "", "", entry_day(item.timestamp)) for item in read_from(real)
            if isinstance(item, HistoryEntry)]


def score_asks(asks: tuple[Ask, ...], workspace: Workspace, turns: list[Turn], k: int,
               zone: tzinfo = UTC) -> list[AskResult]:
    """Each ask against recall (memory and the turns ingest kept; as of its day when it has one, the day ending in
    `zone`), against memory alone, and against the turns said by then (the same BM25 over each turn)."""
    recall, index_for_turns, tokenize = _retrieval()
    from nanodream.retrieval.api import recall_as_of

    def found(ask: Ask, said: bool) -> str:
        hits = (recall_as_of(workspace, ask.question, ask.as_of, k, zone, turns=said)[0] if ask.as_of
                else recall(workspace, ask.question, k, turns=said))
        return " ".join(hit.text for hit in hits)

    baselines = {day: index_for_turns([turn for turn in turns if day is None or turn.day is None or turn.day <= day])
                 for day in {ask.as_of for ask in asks}}
    results = []
    for ask in asks:
        wanted = set(tokenize([ask.answer])[0])
        kept = " ".join(doc.text for doc, _ in baselines[ask.as_of].search(ask.question, k))
        results.append(AskResult(ask.question, ask.answer, _share(wanted, found(ask, True), tokenize),
                                 _share(wanted, kept, tokenize), ask.kind,
                                 ask.as_of.isoformat() if ask.as_of else None,
                                 _share(wanted, found(ask, False), tokenize)))
    return results


def _share(wanted: set[str], text: str, tokenize) -> float:
    if not wanted:
        return 1.0
    return len(wanted & set(tokenize([text])[0])) / len(wanted)


def _retrieval():
    """recall, a BM25 index over turns, and recall's tokenizer; ScenarioError when the recall extra is missing."""
    from nanodream.retrieval.api import INSTALL_HINT, recall
    from nanodream.retrieval.documents import Document

    try:
        from nanodream.retrieval.index import Index, tokenize
    except ModuleNotFoundError:
        raise ScenarioError(f"asks are scored with recall, and {INSTALL_HINT}") from None

    def index_for_turns(turns: list[Turn]) -> Index:
        return Index.build([Document(t.shown, t.session, n, "", t.shown) for n, t in enumerate(turns, start=1)])

    return recall, index_for_turns, tokenize
