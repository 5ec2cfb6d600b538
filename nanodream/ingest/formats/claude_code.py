"""Claude Code project transcripts: `~/.claude/projects/<project>/<session-id>.jsonl`.

Each line is a record with a `type`. `user` and `assistant` records carry `message` (`{"role", "content"}` in
the Anthropic Messages shape: a string, or parts of type text, thinking, tool_use, tool_result, image), `uuid`
(the record's stable id), `sessionId`, `timestamp`, `isSidechain` (a subagent's turn) and `isMeta` (text the
harness adds). Other types (`summary`, `system`, `file-history-snapshot`, ...) are bookkeeping. Anthropic
documents where the files live, not their fields; this follows the records Claude Code 2.x writes, as public
readers of the format describe them.

Claude Code writes a conversation's earlier turns again into the same file (after a resume or a rewind): with
new `uuid`s and one time stamp for the whole burst. A turn written in the same instant as the record before it,
saying what the file already said, is such a copy and is passed over; the words of the file's latest turns are
remembered with its watermark, so a copy in a later pass is caught too.
"""

from __future__ import annotations

from typing import Any

from nanodream.ingest.cleaning import joined, part_texts
from nanodream.ingest.formats.base import Context, Format, session_of, words_digest
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


SAID = "said"  # the context's key for the words of the file's latest turns
LAST_WRITTEN = "written"  # … and for the time stamp of its last turn record
SAID_WINDOW = 256  # a copy repeats a conversation's turns, well inside this many


def read(record: Any, context: Context) -> list[Message]:
    if not isinstance(record, dict) or not _is_turn(record):
        return []
    burst = record.get("timestamp") is not None and record.get("timestamp") == context.get(LAST_WRITTEN)
    context[LAST_WRITTEN] = record.get("timestamp")
    if any(record.get(k) for k in _NOT_CONVERSATION):
        return []
    message = record["message"]
    role = message.get("role", record["type"])
    text = joined(part_texts(message.get("content"), TEXT_PARTS))
    if role not in ROLES or not text:
        return []  # a turn that only called tools, returned a tool result or thought
    if _said_again(f"{role}\0{text}", context) and burst:
        return []  # a copy of an earlier turn (every turn's words are remembered, copy or not)
    named = record.get("sessionId") if isinstance(record.get("sessionId"), str) else None
    session, by_file = session_of(context, named)
    said = Said(role, text, record.get("timestamp"), record.get("uuid"))
    return [make("claude-code", session, said, by_file=by_file)]


FORMAT = Format("claude-code", sniff, read,
                expects='lines with "type": "user" or "assistant", a "message" and a "sessionId"')


def _said_again(words: str, context: Context) -> bool:
    """Whether the file's latest turns already said `words`; they are remembered either way (the latest
    `SAID_WINDOW`)."""
    digest = words_digest(words)
    said = context.setdefault(SAID, [])
    if digest in said:
        return True
    said.append(digest)
    del said[:-SAID_WINDOW]
    return False
