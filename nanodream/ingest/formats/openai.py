"""OpenAI-style chat messages: JSON Lines of `{"role", "content"}`, one JSON array of them, or conversations
`{"messages": [...]}` (a file of one, or JSON Lines of many as fine-tuning data holds them; a conversation's
`session`, `id`, `session_id` or `conversation_id` is the session of its messages, and its `session_start`,
`started_at`, `created_at` or `create_time` the time of those without their own — as a Hermes Agent session file
holds them).

`content` is a string or a list of parts (`{"type": "text"|"input_text"|"output_text", "text": ...}`, the
Chat Completions and Responses shapes); `timestamp` (ISO 8601 or Unix seconds/milliseconds), `session`, `name`
(a named speaker) and `id` (a stable message id) are optional. Without `session`, the file is the session.
`system`, `developer`, `tool` and `function` messages and assistant tool calls are left out.
"""

from __future__ import annotations

from typing import Any

from nanodream.ingest.cleaning import joined, part_texts
from nanodream.ingest.formats.base import Context, Format, session_of
from nanodream.ingest.message import ROLES, Message, Said, make

CHAT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
TEXT_PARTS = frozenset({"text", "input_text", "output_text"})


def sniff(records: list[Any]) -> bool:
    """Chat messages at the top level of each record, or in its `messages` (Claude Code nests one under
    `message`)."""
    records = [each for record in records for each in _in_conversation(record)[0]]
    messages = [r for r in records if isinstance(r, dict) and r.get("role") in CHAT_ROLES and "content" in r]
    return bool(messages) and not any(isinstance(r, dict) and ("_type" in r or "payload" in r) for r in records)


_SESSION_KEYS = ("session", "id", "session_id", "conversation_id")
_START_KEYS = ("session_start", "started_at", "created_at", "create_time")


def _in_conversation(record: Any) -> tuple[list[Any], Any, Any]:
    """The messages a record holds (itself, or a conversation's `messages`), the conversation's session and when
    it started."""
    if isinstance(record, dict) and isinstance(record.get("messages"), list) and "role" not in record:
        return record["messages"], _first(record, _SESSION_KEYS), _first(record, _START_KEYS)
    return [record], None, None


def _first(record: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((record[key] for key in keys if record.get(key) is not None), None)


def read(record: Any, context: Context) -> list[Message]:
    held, session, started = _in_conversation(record)
    return [message for each in held for message in _message(each, context, session, started)]


def _message(record: Any, context: Context, conversation: Any, started: Any) -> list[Message]:
    if not isinstance(record, dict) or record.get("role") not in ROLES:
        return []
    text = joined(part_texts(record.get("content"), TEXT_PARTS))
    if not text:
        return []
    session, by_file = session_of(context, record.get("session", conversation))
    speaker = record.get("name") if isinstance(record.get("name"), str) else ""
    when = record.get("timestamp", record.get("created_at", started))
    return [make("openai", session, Said(record["role"], text, when, record.get("id"), speaker), by_file=by_file)]


FORMAT = Format("openai", sniff, read, files=("*.jsonl", "*.json"),  # JSON Lines, or one exported array
                expects='chat messages with a "role" and "content", or a conversation\'s "messages"')
