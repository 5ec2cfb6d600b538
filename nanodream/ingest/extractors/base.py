"""What an extractor returns for one chunk, and what every extractor provides."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from nanodream.ingest.chunking import Chunk


@dataclass
class Extraction:
    content: str  # the history entry's content: tagged fact lines, maybe one untagged gist line
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    notes: list[str] = field(default_factory=list)  # what was left out of the answer, and why
    for_model: dict[str, int] = field(default_factory=dict)  # the person's messages rules left for a model, by language
    # An entry of its own for what the rules could not read, in the person's words, first line `[for a model: …]`
    # (backlog/waiting.py): no built-in run consumes it; a run with a model takes it first. "" when there is none.
    waiting: str = ""


class ExtractionFailed(RuntimeError):
    """A chunk could not be turned into content (provider down, budget spent, an answer without a fact line);
    its messages stay unread and are tried again on the next pass. The message is one line."""

    def __init__(self, reason: str, tokens_in: int = 0, tokens_out: int = 0) -> None:
        super().__init__(reason)
        self.reason, self.tokens_in, self.tokens_out = reason, tokens_in, tokens_out


class Extractor(Protocol):
    name: str

    def extract(self, chunk: Chunk) -> Extraction:
        """The chunk's content; ExtractionFailed when there is none to give."""
        ...
