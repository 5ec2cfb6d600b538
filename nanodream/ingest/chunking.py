"""Messages grouped by session and cut into chunks by a token budget and by day, only ever between two messages.

One chunk becomes one history entry, so every message lands in exactly one entry; a message larger than the
budget is a chunk of its own. Chunks are ordered by when they were said, so a later correction is read after
the fact it corrects — also across sessions: a session that goes on for days is cut where its day changes, so
what it said on May 1 is read before another session's correction of May 5, not after it with its last day.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from nanodream.backlog.history import estimate_tokens
from nanodream.ingest.message import Message, local
from nanodream.text.structure import recurring_lines

MESSAGE_OVERHEAD_TOKENS = 4  # the role and time a message is shown with


@dataclass
class Chunk:
    session: str
    messages: list[Message] = field(default_factory=list)
    # Lines the harness wrote into many of the person's turns read in this pass (text/structure.recurring_lines).
    recurring: frozenset[str] = frozenset()

    @property
    def when(self) -> datetime | None:
        """When its last timed message was said (what the entry's timestamp says)."""
        return next((m.when for m in reversed(self.messages) if m.when is not None), None)


def message_tokens(message: Message) -> int:
    return MESSAGE_OVERHEAD_TOKENS + estimate_tokens(message.text)


def session_chunks(messages: list[Message], budget_tokens: int, zone: tzinfo) -> list[Chunk]:
    """Chunks of at most `budget_tokens` per session, oldest first (undated ones after, in reading order); each
    knows the lines that recur across the person's messages of the pass, the harness's."""
    by_session: dict[str, list[Message]] = {}
    for message in messages:
        by_session.setdefault(message.session, []).append(message)
    recurring = recurring_lines([message.text for message in messages if message.role == "user"])
    chunks = [chunk for said in by_session.values() for chunk in _cut(said, budget_tokens, recurring, zone)]
    undated = datetime.max

    def order(chunk: Chunk) -> datetime:
        return local(chunk.when, zone).replace(tzinfo=None) if chunk.when is not None else undated

    return sorted(chunks, key=order)


def _cut(messages: list[Message], budget: int, recurring: frozenset[str], zone: tzinfo) -> list[Chunk]:
    chunks: list[Chunk] = []
    used = 0
    for message in messages:
        cost = message_tokens(message)
        if not chunks or (chunks[-1].messages and (used + cost > budget or _another_day(chunks[-1], message, zone))):
            chunks.append(Chunk(message.session, recurring=recurring))
            used = 0
        chunks[-1].messages.append(message)
        used += cost
    return chunks


def _another_day(chunk: Chunk, message: Message, zone: tzinfo) -> bool:
    """The message was said on another day than the chunk's last dated one (an undated message goes on it)."""
    return (message.when is not None and chunk.when is not None
            and local(message.when, zone).date() != local(chunk.when, zone).date())
