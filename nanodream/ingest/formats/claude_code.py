"""Claude Code project transcripts: `~/.claude/projects/<project>/<session-id>.jsonl`.

Each line is a record with a `type`. `user` and `assistant` records carry `message` (`{"role", "content"}` in
the Anthropic Messages shape: a string, or parts of type text, thinking, tool_use, tool_result, image), `uuid`
(the record's stable id), `sessionId`, `timestamp`, `isSidechain` (a subagent's turn) and `isMeta` (text the
harness adds). Other types (`summary`, `system`, `file-history-snapshot`, ...) are bookkeeping. Anthropic
documents where the files live, not their fields; this follows the records Claude Code 2.x writes, as public
readers of the format describe them.
"""

from __future__ import annotations

from typing import Any

from nanodream.ingest.cleaning import joined, part_texts
from nanodream.ingest.formats.base import Context, Format, session_of
from nanodream.ingest.message import ROLES, Message, Said, make

TEXT_PARTS = frozenset({"text"})
# Records that are not the person or the agent talking: subagents, harness notes, summaries, tool output.
_NOT_CONVERSATION = ("isSidechain", "isMeta", "isCompactSummary", "isVisibleInTranscriptOnly", "toolUseResult")


def sniff(records: list[Any]) -> bool:
    return any(isinstance(r, dict) and (_is_turn(r) or (r.get("type") == "summary" and "leafUuid" in r))
               for r in records)


def _is_turn(record: dict[str, Any]) -> bool:
    return record.get("type") in ROLES and isinstance(record.get("message"), dict) and (
        "sessionId" in record or "uuid" in record)


def read(record: Any, context: Context) -> list[Message]:
    if not isinstance(record, dict) or not _is_turn(record) or any(record.get(k) for k in _NOT_CONVERSATION):
        return []
    message = record["message"]
    role = message.get("role", record["type"])
    text = joined(part_texts(message.get("content"), TEXT_PARTS))
    if role not in ROLES or not text:
        return []  # a turn that only called tools, returned a tool result or thought
    named = record.get("sessionId") if isinstance(record.get("sessionId"), str) else None
    session, by_file = session_of(context, named)
    said = Said(role, text, record.get("timestamp"), record.get("uuid"))
    return [make("claude-code", session, said, by_file=by_file)]


FORMAT = Format("claude-code", sniff, read,
                expects='lines with "type": "user" or "assistant", a "message" and a "sessionId"')
