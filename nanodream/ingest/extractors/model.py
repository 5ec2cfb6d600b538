"""The model extractor: the extraction prompt and one chunk, through the same provider path as a dream.

Same settings, retries with backoff, per-request token budget and cost accounting as a dream session
(engines/llm.py); no tools. The answer is held to honesty rules before anything of it is written: only
tagged fact lines and one gist line are kept, a fact whose words the conversation does not contain is
dropped as invented, and an answer with no usable line at all (prose, an apology, nothing) fails the chunk,
so its messages are read again on the next pass instead of being lost.
"""

from __future__ import annotations

import re
from datetime import tzinfo

from nanodream.backlog.history import CHARS_PER_TOKEN, TAG_LINE
from nanodream.config import Settings
from nanodream.engines.base import ProviderMisconfigured, SessionError
from nanodream.ingest.chunking import Chunk
from nanodream.ingest.extractors.base import Extraction, ExtractionFailed
from nanodream.ingest.message import local
from nanodream.prompting.prompt import HISTORY_FRAMING
from nanodream.safety.injection import reveal_hidden
from nanodream.safety.secret_scan import redacted
from nanodream.text.dates import MONTHS
from nanodream.text.kinds import forbidden_in_profile, forbidden_kind
from nanodream.text.words import content_words, tidy_sentence
from nanodream.vocab import ExitCode, Refused

# Share of a fact's meaningful words the conversation must contain (dates and numbers may be worked out).
SUPPORT_SHARE = 0.5
_ABOUT_USER = re.compile(r"^(?:the\s+)?user(?:['’]s)?\b", re.IGNORECASE)
_QUOTE_TAG = re.compile(r"</?\s*transcript\s*>", re.IGNORECASE)
_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_FREE = frozenset({"user", "users", "person", "decided", "task", "now", "prefers", "on", "in"}) | frozenset(MONTHS)


class ModelExtractor:
    def __init__(self, settings: Settings, prompt: str, zone: tzinfo) -> None:
        self.settings, self.prompt, self.zone = settings, prompt, zone
        self.name = settings.model
        self._engine = None

    def extract(self, chunk: Chunk) -> Extraction:
        if self._engine is None:
            from nanodream.engines.llm import LLMEngine  # litellm only on this path

            try:
                self._engine = LLMEngine(self.settings)
            except ProviderMisconfigured as exc:  # a person's to fix: said at once, nothing appended
                raise Refused(f"configuration: {exc}", exit_code=ExitCode.USAGE) from None
        limit = self.settings.ingest_chunk_tokens * CHARS_PER_TOKEN
        try:
            result = self._engine.answer(self.prompt, render_chunk(chunk, self.zone, limit))
        except SessionError as exc:
            raise ExtractionFailed(exc.reason, exc.tokens_in, exc.tokens_out) from None
        lines, notes = honest_lines(result.summary, chunk)
        if not lines:
            raise ExtractionFailed("the model answered without a single tagged fact line (prose, or nothing); "
                                   "these messages are tried again next time", result.tokens_in, result.tokens_out)
        return Extraction("\n".join(lines), result.tokens_in, result.tokens_out, result.cost, notes)


def render_chunk(chunk: Chunk, zone: tzinfo, limit: int) -> str:
    """The chunk as quoted, untrusted data: credentials redacted, hidden characters shown, its closing tag
    inside a message unable to end the quote early. A message longer than `limit` characters (a pasted log)
    is cut there, so one message can never make every request for its chunk too large to send."""
    lines = [f"# Conversation chunk: session {chunk.session}, {len(chunk.messages)} messages "
             f"{HISTORY_FRAMING.replace('consolidate', 'extract facts from')}", "<transcript>"]
    for message in chunk.messages:
        when = f"{local(message.when, zone):%Y-%m-%d %H:%M} " if message.when is not None else ""
        who = message.speaker or message.role
        text = message.text if len(message.text) <= limit else (
            f"{message.text[:limit]} … [{len(message.text) - limit} more characters not shown]")
        text = _QUOTE_TAG.sub(lambda m: m.group(0).replace("<", "&lt;"), reveal_hidden(text))
        lines.append(f"[{when}{who}] {redacted(text)}")
    lines.append("</transcript>")
    return "\n".join(lines)


def honest_lines(answer: str, chunk: Chunk) -> tuple[list[str], list[str]]:
    """The lines of the answer worth writing, and one note per kind of line left out."""
    said = _stems(" ".join(message.text for message in chunk.messages))
    facts: list[str] = []
    gist: list[str] = []
    invented = prose = never = 0
    for raw in answer.splitlines():
        line = _LIST_MARK.sub("", raw).strip().strip("`").strip()
        if not line:
            continue
        tag = TAG_LINE.match(line)
        if tag is None:
            if gist or not supported(line, said):
                prose += 1
            else:
                gist.append(line)
        elif tag.group(1).lower() == "skip":
            facts.append(line)
        elif not supported(line[tag.end():], said):
            invented += 1
        elif never_memory(tag.group(1).lower(), line[tag.end():].strip()):
            never += 1
        else:
            facts.append(line)
    notes = [f"left out {what}: {count}" for count, what in (
        (invented, "fact lines the conversation does not support"), (prose, "untagged lines beyond one gist"),
        (never, "fact lines of a kind memory never keeps (a question, code, a fragment …)")) if count]
    if never and not facts:  # the model wrote only what memory never keeps: nothing worth keeping, not a failure
        facts = ["[skip] every fact line the model wrote was of a kind memory never keeps"]
    return ([*facts, *gist] if facts else []), notes


def never_memory(tag: str, text: str) -> bool:
    """The same test the builtin rules' facts pass (text/kinds.py): a line about the user holds no code, link or
    "you"; a rule for the agent may speak to it; a task's subject need not be a sentence."""
    if tag == "ephemeral":
        return False
    if text.rstrip().endswith(":"):
        return True  # a heading
    text = tidy_sentence(text)  # as it would be filed
    if _ABOUT_USER.match(text):
        return bool(forbidden_in_profile(text))
    kind = forbidden_kind(text, rule=tag == "permanent")
    return bool(kind) and not (tag == "permanent" and kind == "addressed to the agent")


def supported(text: str, said: set[str]) -> bool:
    """Most of the line's meaningful words appear in the conversation (numbers and month names aside)."""
    words = {w for w in _stems(text) if not w.isdigit() and w not in _FREE}
    return not words or len(words & said) >= SUPPORT_SHARE * len(words)


def _stems(text: str) -> set[str]:
    return {_stem(word) for word in content_words(text)}


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
