"""OpenClaw transcripts: `~/.openclaw/agents/<agentId>/sessions/<sessionId>.jsonl`.

Verified against openclaw/openclaw `docs/reference/session-management-compaction.md` ("Transcript structure"):
the first line is the session header `{"type": "session", "id", "cwd", "timestamp"}`, then entries with `id` and
`parentId`; `message` entries hold user, assistant and toolResult messages (`{"role", "content": [parts]}`),
and `compaction`, `branch_summary`, `custom` and `custom_message` entries are the agent's own bookkeeping.

The gateway wraps what arrives from a channel in an envelope for the model (docs.openclaw.ai, "Date and time"
and "Messages"): labelled metadata blocks ("Conversation info (untrusted metadata):" and "Sender (untrusted
metadata):", each a fenced JSON object), history wrappers ("[Chat messages since your last reply - for
context]", "[Current message - respond to this]") and a "[<channel> <sender> <weekday> <date> <time> <zone>]"
stamp before the text. None of it is the person's: it is taken off, so the rules read the words they typed (and
tell their language by those words, not by a sender's name in the metadata). A turn quoting the chat since the
agent's last reply keeps the person's messages there, not the agent's replies ("Assistant: …"). What the person
sent while a run was going arrives as one turn ("[Queued messages while agent was busy]", then "---" and "Queued
#N" before each message): each is read as the message it was. A message a channel delivers again (the same
channel id in its envelope) is read once.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from nanodream.ingest.cleaning import joined, part_texts
from nanodream.ingest.formats.base import Context, Format, first_dict, session_of
from nanodream.ingest.message import ROLES, Message, Said, make

TEXT_PARTS = frozenset({"text"})
# "Sender (untrusted metadata):", and the chat the gateway quotes for context ("Chat history since last reply
# (untrusted, for context):", "Replied message (untrusted, for context):"): a fenced block of what others said.
_METADATA = re.compile(r"^[^\n]{0,60}\((?:un)?trusted(?: metadata|, for context)\):[ \t]*\n+```[\w-]*\n.*?\n```"
                       r"[ \t]*\n?", re.MULTILINE | re.DOTALL)
_WRAPPER = re.compile(r"^\[(?:Chat messages since your last reply|Current message)\b[^\]\n]*\][ \t]*\n?", re.MULTILINE)
# The stamp's year can run past four digits (a channel's clock read in the wrong unit: "58087-06-03").
_STAMP = re.compile(r"^\[[^\]\n]{0,80}?\b\d{4,6}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(?::\d{2})?[^\]\n]{0,40}\][ \t]*",
                    re.MULTILINE)


# A turn that quotes the chat since the agent's last reply, then the message it answers: "[Chat messages since
# your last reply - for context]\nUser: …\nAssistant: …\n\n[Current message - respond to this]\nUser: …". The
# agent's replies quoted there are not the person's words, nor is the "User:" label.
_QUOTED_REPLY = re.compile(r"^Assistant:[^\n]*\n?", re.MULTILINE)
_SPEAKER_LABEL = re.compile(r"^User:[ \t]*", re.MULTILINE)
# The sender a metadata block names ("sender": "用户248287", "name": "Ana"): a chat channel writes the same name
# before the text ("用户248287: 以后请用中文回答。"), the channel's label, not the person's words.
_SENDER = re.compile(r'"(?:sender|name)"\s*:\s*"(?P<name>[^"\n]{1,60})"')


def without_envelope(text: str) -> str:
    """The person's words with the gateway's metadata blocks, history wrappers, time stamps and the sender's label
    a block names taken off; of a
    turn that quotes the chat since the agent's last reply, the person's messages without the agent's replies
    (one the person sent while the agent was busy may be in no other turn)."""
    senders = {match.group("name") for block in _METADATA.finditer(text) for match in _SENDER.finditer(block.group())}
    text = _METADATA.sub("", text)
    for sender in sorted(senders, key=len, reverse=True):
        text = re.sub(rf"^{re.escape(sender)}[ \t]*[:：][ \t]*", "", text, flags=re.MULTILINE)
    if _WRAPPER.search(text):
        text = _SPEAKER_LABEL.sub("", _QUOTED_REPLY.sub("", text))
        text = "\n".join(dict.fromkeys(line for line in text.splitlines()))  # the current message quoted twice
    return _STAMP.sub("", _WRAPPER.sub("", text)).strip()


# The gateway's turn for the messages that arrived while a run was going: a header, then each message after "---"
# and "Queued #N", with its own envelope.
_QUEUED = re.compile(r"\A\s*\[Queued messages while agent was busy\][ \t]*\n")
_QUEUED_ITEM = re.compile(r"^-{3,}[ \t]*\n+Queued #\d+[ \t]*\n", re.MULTILINE)


def _queued(batch: str) -> list[str]:
    """The messages of a queued batch, each with its envelope."""
    return [item for item in _QUEUED_ITEM.split(_QUEUED.sub("", batch)) if item.strip()]


def _new(items: list[str], context: Context) -> list[str]:
    """The items a channel delivers for the first time ("" in place of one it delivered before, so the others keep
    their numbers)."""
    return ["" if _redelivered(item, context) else item for item in items]


# The channel's id of a message, in the envelope's metadata ("message_id": "om_x1…") or on a line of its own
# ("[message_id: om_x1…]"): a channel that delivers a message again (Feishu does, when the agent is slow to
# answer) writes the same id into each turn.
_CHANNEL_ID = re.compile(r'"message_id"\s*:\s*"(?P<json>[^"\n]+)"|^\[message_id: (?P<line>[^\]\n]+)\]', re.MULTILINE)
DELIVERED = "delivered"  # the context's key for the channel ids of the session's latest messages
REDELIVERY_WINDOW = 64  # a message delivered again comes within minutes, well inside this many messages


def _redelivered(text: str, context: Context) -> bool:
    """Whether every channel id in a turn of the person's belongs to a message this session already had (a
    delivery again, not a message again); the ids are remembered, the latest `REDELIVERY_WINDOW`."""
    ids = [match.group("json") or match.group("line") for match in _CHANNEL_ID.finditer(text)]
    if not ids:
        return False
    seen = context.setdefault(DELIVERED, [])
    if all(each in seen for each in ids):
        return True
    seen.extend(each for each in dict.fromkeys(ids) if each not in seen)
    del seen[:-REDELIVERY_WINDOW]
    return False


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
    when, record_id = record.get("timestamp", message.get("timestamp")), record.get("id")
    session, by_file = session_of(context)
    if message["role"] != "user":
        reply = Said(message["role"], text, when, record_id)
        return [make("openclaw", session, reply, by_file=by_file)] if text else []
    if not _QUEUED.match(text):
        said = "" if _redelivered(text, context) else without_envelope(text)
        return [make("openclaw", session, Said("user", said, when, record_id), by_file=by_file)] if said else []
    # Versions before this one read a batch as one message: its identity then is still recognised, so a file read
    # again from the start does not bring the batch in twice.
    whole = make("openclaw", session, Said("user", without_envelope(text), when, record_id), by_file=by_file)
    return [replace(make("openclaw", session, Said("user", said, when, f"{record_id}#{n}"), by_file=by_file),
                    legacy_keys=(whole.key, *whole.legacy_keys))
            for n, said in enumerate(map(without_envelope, _new(_queued(text), context)), 1) if said]


# A session /reset archived keeps its transcript beside the new one as "<session-id>.jsonl.reset.<time>".
# A session deleted from OpenClaw's list keeps its transcript as "<session-id>.jsonl.deleted.<time>": the person
# put it away, so a folder source passes over it (and says how many); named on its own, it is read. (Its
# "<session-id>.trajectory.jsonl.deleted.<time>" beside it is a trace, no transcript: session ids end in hex.)
DELETED = ("*[0-9a-f].jsonl.deleted.*", "transcripts OpenClaw keeps for sessions deleted from its list")
FORMAT = Format("openclaw", sniff, read, files=("*.jsonl", "*.jsonl.reset.*"), set_aside=(DELETED,),
                expects='a first line of "type": "session" with an "id" (the session header)')
