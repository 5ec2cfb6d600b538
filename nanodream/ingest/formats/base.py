"""What every format module provides: a sniff of a file's first records and a reader of one record."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nanodream.ingest.message import Message

Context = dict[str, Any]
FILE = "file"  # the context's key for the file's name (its stem), the session of last resort


@dataclass(frozen=True)
class Format:
    name: str
    sniff: Callable[[list[Any]], bool]  # the first records of a file (parsed JSON values) look like this format
    read: Callable[[Any, Context], list[Message]]  # one record → its messages (most records hold none)
    files: tuple[str, ...] = ("*.jsonl",)  # the file names it is kept in: what a folder source reads by default
    # Transcripts its host set aside, which a folder source passes over and counts: (file name glob, what they are)
    set_aside: tuple[tuple[str, str], ...] = ()
    expects: str = ""  # what its sniff looks for, said when a file named with --format has none of it


def session_of(context: Context, named: object = None) -> tuple[str, bool]:
    """The session a message belongs to, and whether only its file's name says so.

    A record's own session field (`named`), else the session an earlier record named (a header line), else the
    file's name. A session only the name gives is no identity: the file copied under another name would be
    another session, so such a message is identified by what was said and what came before it instead
    (message.chained).
    """
    if isinstance(named, str | int) and not isinstance(named, bool) and str(named):
        return str(named), False
    if context.get("session"):  # a header's (or the file's name, as watermarks of earlier versions kept it)
        return str(context["session"]), False
    return str(context.get(FILE, "")), True


def first_dict(records: list[Any]) -> dict[str, Any] | None:
    return next((record for record in records if isinstance(record, dict)), None)


def words_digest(text: str) -> str:
    """A short digest of what was said, for a reader that remembers a file's latest words with its watermark."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
