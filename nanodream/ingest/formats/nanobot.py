"""nanobot sessions: `<workspace>/sessions/<channel>_<chat>.jsonl`, a metadata line, then one message per line.

Verified against HKUDS/nanobot `nanobot/session/manager.py` (`SessionManager.save`/`_load`; JSONL sessions up to
the 0.4.x line, which 0.5.0 moves into SQLite): the first line is `{"_type": "metadata", "key": "<channel>:<chat>",
"created_at", "updated_at", "metadata", "last_consolidated"}`; every other line is a message `{"role", "content",
"timestamp", ...}` with `tool_calls`, `tool_call_id`, `name` or `reasoning_content` on tool traffic. nanobot rewrites
the whole file on every save, so a session file is usually read again from the start and its messages deduplicated.
"""

from __future__ import annotations

from typing import Any

from nanodream.ingest.cleaning import joined, part_texts
from nanodream.ingest.formats.base import Context, Format, session_of
from nanodream.ingest.message import ROLES, Message, Said, make

TEXT_PARTS = frozenset({"text"})


def sniff(records: list[Any]) -> bool:
    return bool(records) and isinstance(records[0], dict) and records[0].get("_type") == "metadata"


def read(record: Any, context: Context) -> list[Message]:
    if not isinstance(record, dict):
        return []
    if record.get("_type") == "metadata":
        if isinstance(record.get("key"), str) and record["key"]:
            context["key"] = record["key"]
        return []
    if record.get("_type") is not None or record.get("role") not in ROLES:
        return []  # provider state and other bookkeeping; system prompts and tool results
    text = joined(part_texts(record.get("content"), TEXT_PARTS))
    if not text:
        return []  # an assistant turn that only called tools
    if context.get("key"):
        session, by_file = context["key"], False
    else:  # without a key in its metadata, the file's name says it, as nanobot reads it: telegram_4711 → telegram:4711
        name, by_file = session_of(context)
        session = name.replace("_", ":", 1)
    return [make("nanobot", session, Said(record["role"], text, record.get("timestamp")), by_file=by_file)]


FORMAT = Format("nanobot", sniff, read, expects='a first line of "_type": "metadata"')
