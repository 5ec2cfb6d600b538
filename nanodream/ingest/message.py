"""One message as every format hands it over: who said it, what, when, in which session, and its identity.

The identity (`key`) is what makes ingest exactly-once whatever happens to the files: a hash of the session,
role, timestamp, speaker and text, and of the format's message id where it has one. A file rewritten from the
start is read again and every message whose key was seen before is passed over. The id alone is not an
identity: a host that reuses an id for a different message (another text, another time) would lose it.

A session only the file's name gives (an OpenAI-style file without a `session` field) is no identity either: a
copy under another name would be another session, every message new again. Such a message is identified by its
content (its id too, when it has one) and by the identity of the message before it in the file (`chained`): a copy,
renamed or moved, yields the same keys; one appended to since yields them too, then new ones for its new tail;
the same short words in another conversation follow other words, so they are another message.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import UTC, datetime, tzinfo
from typing import Any

from nanodream import clock

ROLES = ("user", "assistant")


@dataclass(frozen=True)
class Message:
    role: str  # "user" or "assistant": every other role (system, tool, developer) is left out by the formats
    text: str  # already cleaned: harness blocks removed, control characters neutralised
    session: str  # the history session_key: the source's session id (nanobot key, Claude Code sessionId, ...)
    key: str
    when: datetime | None = None
    speaker: str = ""  # a named speaker (an OpenAI `name`), '' for the usual person-and-agent pair
    legacy_keys: tuple[str, ...] = ()  # keys versions before this one recorded: still recognised, never recorded
    content_key: str = ""  # what was said, by whom, when, without the session: set when only a file name gives it
    words_key: str = ""  # what was said and by whom alone, set with `content_key`: a replay's words (in_a_burst)


@dataclass(frozen=True)
class Said:
    """A message as a format found it, before it has an identity."""

    role: str
    text: str
    when: object = None  # whatever the source wrote: ISO 8601 text, Unix seconds or milliseconds
    msg_id: object = None  # the format's stable message id, when it has one
    speaker: str = ""


def session_key(fmt: str, session: str) -> str:
    """A history entry's `session_key`: nanobot's own key as its consolidator writes it; any other tool's session
    id after its format's name, so two tools' ids can never meet ("claude-code:6f0c…", "codex:0199…")."""
    return session if fmt == "nanobot" else f"{fmt}:{session}"


def make(fmt: str, session: str, said: Said, *, by_file: bool = False) -> Message:
    """The Message with its identity: a hash of what was said, when and by whom, with the format's message id.

    `by_file`: only the file's name gives `session`, so it is no identity: the message then carries `content_key`
    (what was said, with its id when it has one), and the reader chains it to the message before it (`chained`).
    """
    session = session_key(fmt, session)
    when = "" if said.when is None else said.when
    said_basis = f"{said.role}\0{when}\0{said.speaker}\0{said.text}"
    legacy: tuple[str, ...] = ()
    if said.msg_id not in (None, ""):
        legacy = (_digest(f"{fmt}\0{session}\0id\0{said.msg_id}"),)
        said_basis = f"{said_basis}\0id\0{said.msg_id}"
    content = _digest(f"{fmt}\0content\0{said_basis}") if by_file else ""
    words = _digest(f"{fmt}\0words\0{said.role}\0{said.speaker}\0{said.text}") if by_file else ""
    return Message(said.role, said.text, session, _digest(f"{fmt}\0{session}\0{said_basis}"),
                   parse_when(said.when), said.speaker, legacy, content, words)


PREVIOUS = "previous"  # a file's context key: the identity of its last message identified by content


def chained(message: Message, context: dict[str, Any]) -> Message:
    """`message` identified by its content and the message before it in its file, when only the file's name gives
    its session (its key as earlier versions made it is kept as `legacy_key`, so what they ingested is still
    recognised); any other message as it is. `context` is the file's and carries the chain from pass to pass."""
    if not message.content_key:
        return message
    key = _digest(f"{context.get(PREVIOUS, '')}\0{message.content_key}")
    context[PREVIOUS] = key
    return replace(message, key=key, legacy_keys=(message.key, *message.legacy_keys))


def in_a_burst(messages: list[Message]) -> list[Message]:
    """The messages of a file written in one instant, to the fraction of a second, with two of the person's among
    them: no one sends two messages at once (a host may stamp a turn's reply with its question's time), a harness
    writing earlier turns again does (Hermes' gateway opens a session's file with the turns of the one before it,
    each stamped with the time of the copy)."""
    runs: list[list[Message]] = []
    for message in messages:
        if runs and message.when is not None and runs[-1][0].when == message.when:
            runs[-1].append(message)
        else:
            runs.append([message])
    return [message for run in runs if run[0].when is not None and run[0].when.microsecond
            and sum(each.role == "user" for each in run) >= 2 for message in run]


def _digest(basis: str) -> str:
    return hashlib.sha256(basis.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def parse_when(value: object) -> datetime | None:
    """An ISO 8601 text ('Z' allowed) or a Unix time in seconds or milliseconds; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and value.strip():
        text = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            return None
    return None


def local(moment: datetime, zone: tzinfo) -> datetime:
    """The moment on the person's clock: an aware time converted, a naive one (local already) kept as it is."""
    return moment.astimezone(zone) if moment.tzinfo is not None else moment


def history_stamp(moment: datetime | None, zone: tzinfo) -> str:
    """The `timestamp` of a history entry: "YYYY-MM-DD HH:MM" on the person's clock (now when unknown)."""
    return f"{local(moment or clock.now(), zone):%Y-%m-%d %H:%M}"
