"""The builtin extractor: deterministic rules over what the person said (rules.py), no model, no network.

Only the person's own messages are read: an assistant's words are not facts about the person. Each message's
language is told first (text/language.py): the rules are written for English, so a message in another language
is left whole for a model, and counted by language. Each sentence either becomes one tagged fact line or is
left; what is left becomes one untagged line of the chunk's gist (kept for a model dream; the builtin dream
files only tagged lines), or `[skip]` when nothing was said.
"""

from __future__ import annotations

from collections import Counter
from datetime import tzinfo

from nanodream.ingest.chunking import Chunk
from nanodream.ingest.extractors.base import Extraction
from nanodream.ingest.extractors.rules import after_a_request, classify, meaningful, small_talk
from nanodream.ingest.message import Message, local
from nanodream.text.language import UNDETERMINED, language_of
from nanodream.text.sentences import sentences

# The languages the rules read; "und" is text too short to tell ("ok", "lgtm"), read as English.
RULE_LANGUAGES = frozenset({"en", UNDETERMINED})
GIST_PARTS = 2
GIST_PART_CHARS = 90


class BuiltinExtractor:
    name = "builtin"

    def __init__(self, zone: tzinfo) -> None:
        self.zone = zone

    def extract(self, chunk: Chunk) -> Extraction:
        facts: list[str] = []
        rest: list[str] = []
        for_model: Counter[str] = Counter()
        for message in chunk.messages:
            if message.role != "user":
                continue
            language = language_of(message.text)
            if language not in RULE_LANGUAGES:
                for_model[language] += 1
                rest.append(message.text)
                continue
            day = local(message.when, self.zone).date() if message.when is not None else None
            said = list(sentences(message.text))
            for sentence, errand in zip(said, after_a_request(said), strict=True):
                fact = classify(sentence, message.speaker, day, errand)
                if fact is not None:
                    facts.append(fact.line())
                elif meaningful(sentence) >= 3 and not small_talk(sentence):
                    rest.append(sentence)
        lines = list(dict.fromkeys(facts))  # a fact said twice in a chunk is one line
        gist = gist_line(rest, chunk.messages, filed=bool(lines))
        return Extraction("\n".join([*lines, gist] if gist else lines), for_model=dict(for_model))


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
