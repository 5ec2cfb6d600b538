"""OpenClaw transcripts: `~/.openclaw/agents/<agentId>/sessions/<sessionId>.jsonl`.

Verified against openclaw/openclaw `docs/reference/session-management-compaction.md` ("Transcript structure"):
the first line is the session header `{"type": "session", "id", "cwd", "timestamp"}`, then entries with `id` and
`parentId`; `message` entries hold user, assistant and toolResult messages (`{"role", "content": [parts]}`),
and `compaction`, `branch_summary`, `custom` and `custom_message` entries are the agent's own bookkeeping.
"""

from __future__ import annotations

from typing import Any

from nanodream.ingest.cleaning import joined, part_texts
from nanodream.ingest.formats.base import Context, Format, first_dict
from nanodream.ingest.message import ROLES, Message, Said, make

TEXT_PARTS = frozenset({"text"})


def sniff(records: list[Any]) -> bool:
    first = first_dict(records)
    return first is not None and first.get("type") == "session" and "id" in first and (
        "cwd" in first or "version" in first)


def read(record: Any, context: Context) -> list[Message]:
    if not isinstance(record, dict):
        return []
    if record.get("type") == "session":
        if isinstance(record.get("id"), str):
            context["session"] = record["id"]
        return []
    message = record.get("message")
    if record.get("type") != "message" or not isinstance(message, dict) or message.get("role") not in ROLES:
        return []
    text = joined(part_texts(message.get("content"), TEXT_PARTS))
    if not text:
        return []
    when = record.get("timestamp", message.get("timestamp"))
    return [make("openclaw", context["session"], Said(message["role"], text, when, record.get("id")))]


FORMAT = Format("openclaw", sniff, read)
