"""What every format module provides: a sniff of a file's first records and a reader of one record."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nanodream.ingest.message import Message

Context = dict[str, Any]


@dataclass(frozen=True)
class Format:
    name: str
    sniff: Callable[[list[Any]], bool]  # the first records of a file (parsed JSON values) look like this format
    read: Callable[[Any, Context], list[Message]]  # one record → its messages (most records hold none)
    files: tuple[str, ...] = ("*.jsonl",)  # the file names it is kept in: what a folder source reads by default


def first_dict(records: list[Any]) -> dict[str, Any] | None:
    return next((record for record in records if isinstance(record, dict)), None)
