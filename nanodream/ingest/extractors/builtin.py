"""The builtin extractor: deterministic rules over what the person said (rules.py), no model, no network.

Only the person's own messages are read: an assistant's words are not facts about the person. Each sentence
either becomes one tagged fact line or is left; what is left becomes one untagged line of the chunk's gist
(kept for a model dream; the builtin dream files only tagged lines), or `[skip]` when nothing was said.
"""

from __future__ import annotations

from datetime import tzinfo

from nanodream.ingest.chunking import Chunk
from nanodream.ingest.extractors.base import Extraction
from nanodream.ingest.extractors.rules import classify, meaningful, small_talk
from nanodream.ingest.message import Message, local
from nanodream.text.sentences import sentences

GIST_PARTS = 2
GIST_PART_CHARS = 90


class BuiltinExtractor:
    name = "builtin"

    def __init__(self, zone: tzinfo) -> None:
        self.zone = zone

    def extract(self, chunk: Chunk) -> Extraction:
        facts: list[str] = []
        rest: list[str] = []
        for message in chunk.messages:
            if message.role != "user":
                continue
            day = local(message.when, self.zone).date() if message.when is not None else None
            for sentence in sentences(message.text):
                fact = classify(sentence, message.speaker, day)
                if fact is not None:
                    facts.append(fact.line())
                elif meaningful(sentence) >= 3 and not small_talk(sentence):
                    rest.append(sentence)
        lines = list(dict.fromkeys(facts))  # a fact said twice in a chunk is one line
        gist = gist_line(rest, chunk.messages, filed=bool(lines))
        return Extraction("\n".join([*lines, gist] if gist else lines))


def gist_line(rest: list[str], messages: list[Message], *, filed: bool) -> str:
    """One untagged line of what else the person talked about; `[skip]` when nothing at all is worth keeping."""
    if rest:
        return "Talked about: " + "; ".join(_shortened(part) for part in rest[:GIST_PARTS])
    if filed:
        return ""
    if not any(message.role == "user" for message in messages):
        return "[skip] only the assistant spoke"
    return "[skip] small talk"


def _shortened(text: str) -> str:
    text = " ".join(text.split()).rstrip(".")
    if len(text) <= GIST_PART_CHARS:
        return text
    return text[:GIST_PART_CHARS].rsplit(" ", 1)[0] + "…"
