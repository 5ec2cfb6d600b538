"""Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.

Verified against openai/codex `codex-rs/protocol/src/protocol.rs` (`RolloutLine`: `timestamp` plus a
`RolloutItem` serialised as `{"type", "payload"}`: session_meta, response_item, compacted, turn_context,
event_msg) and `models.rs` (`ResponseItem::Message {id, role, content: [{"type": "input_text"|"output_text",
"text"}]}`; reasoning, function calls and their output are other item types). The session id is the
session_meta payload's `id`. User messages Codex injects (AGENTS.md instructions, `<environment_context>`) are
left out. Rollouts written before the `{"type", "payload"}` wrapper (a bare meta line, then bare items) are read
too. A forked or resumed session's rollout opens with its own meta, then the meta of the session it came from and
that session's history, copied in the same second with new time stamps: the copy is passed over (the original's
rollout holds it), so old statements are not read again as new ones after a later correction.

`event_msg` items of type `user_message` repeat what the person typed, for the UI (`codex-rs` persists them
beside the response items). A rollout may hold a person's words only there — real Codex Desktop rollouts were
found so — so they are read too, unless they are the pair of the same words just read as a response item (or
the other way round): the session remembers the last few user texts whose pair has not come yet. Codex's IDE
framing ("# Files mentioned by the user: … ## My request for Codex: <words>") keeps only the words after its
last heading, in both kinds of item, so the two copies still pair.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from nanodream.ingest.cleaning import joined, part_texts
from nanodream.ingest.formats.base import Context, Format, first_dict, session_of, words_digest
from nanodream.ingest.message import ROLES, Message, Said, make

ITEM_TYPES = frozenset({"session_meta", "response_item", "compacted", "turn_context", "event_msg"})
TEXT_PARTS = frozenset({"input_text", "output_text", "text"})
IDE_REQUEST = "## My request for Codex:"
RECENT_USER_TEXTS = 16  # unpaired user texts a session remembers, to read each once from either item
# How long after a fork's second session_meta the copied history is still being written (it takes well under one).
COPY_SECONDS = timedelta(seconds=2)


def sniff(records: list[Any]) -> bool:
    first = first_dict(records)
    if first is None:
        return False
    if first.get("type") in ITEM_TYPES and isinstance(first.get("payload"), dict):
        return True
    return _legacy_meta(first)


def _legacy_meta(record: dict[str, Any]) -> bool:
    """The first line of an early rollout: the session's meta without a wrapper."""
    return "id" in record and "timestamp" in record and "instructions" in record and "type" not in record


def read(record: Any, context: Context) -> list[Message]:
    if not isinstance(record, dict):
        return []
    if isinstance(record.get("payload"), dict):
        kind, item, when = record.get("type"), record["payload"], record.get("timestamp")
    elif _legacy_meta(record):
        kind, item, when = "session_meta", record, record.get("timestamp")
    else:
        kind, item, when = "response_item", record, context.get("started")
    if kind == "session_meta":
        return _meta(context, item, when)
    if _copied(context, when):
        return []  # a forked session's history, copied in: its own rollout holds it
    if kind == "event_msg" and item.get("type") == "user_message" and isinstance(item.get("message"), str):
        return _user_words(context, joined([_ide_request(item["message"])]), when, None, "event")
    if kind != "response_item" or item.get("type") != "message" or item.get("role") not in ROLES:
        return []
    text = joined(part_texts(item.get("content"), TEXT_PARTS))
    if not text:
        return []
    if item["role"] == "user":
        return _user_words(context, joined([_ide_request(text)]), when, item.get("id"), "item")
    return [_said(context, Said(item["role"], text, when, item.get("id")))]


def _meta(context: Context, item: dict[str, Any], when: Any) -> list[Message]:
    """The session's meta; a later one naming another session opens that session's history, which a fork or a
    resume copies into the new rollout at once (1,604 lines in one second), each line stamped anew."""
    named = item.get("id") if isinstance(item.get("id"), str) else None
    own, instant = context.get("session"), _instant(when)
    if own is not None and named is not None and named != own and instant is not None:
        context["copied_until"] = (instant + COPY_SECONDS).isoformat()
        return []
    if named is not None:
        context["session"] = named
    context["started"] = item.get("timestamp")
    return []


def _copied(context: Context, when: Any) -> bool:
    """A line written with the copy of another session's history (`_meta`)."""
    until, instant = context.get("copied_until"), _instant(when)
    return isinstance(until, str) and instant is not None and instant <= datetime.fromisoformat(until)


def _instant(when: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(when).replace("Z", "+00:00")) if when else None
    except ValueError:
        return None


def _user_words(context: Context, text: str, when: Any, msg_id: Any, kind: str) -> list[Message]:
    """The person's message, once: the copy of the same words in the other kind of item (`event` or `item`) is
    its pair and is not read again; the same words said again later are a message of their own."""
    if not text:
        return []
    digest = words_digest(text)
    unpaired = context.setdefault("unpaired_user", [])  # [kind, digest] read, whose pair has not come yet
    other = "item" if kind == "event" else "event"
    if [other, digest] in unpaired:
        unpaired.remove([other, digest])
        return []
    unpaired[:] = [*unpaired, [kind, digest]][-RECENT_USER_TEXTS:]
    return [_said(context, Said("user", text, when, msg_id))]


def _said(context: Context, said: Said) -> Message:
    session, by_file = session_of(context)
    return make("codex", session, said, by_file=by_file)


def _ide_request(text: str) -> str:
    """What the person asked, without the file list an IDE puts before it."""
    return text.rsplit(IDE_REQUEST, 1)[1] if IDE_REQUEST in text else text


FORMAT = Format("codex", sniff, read,
                expects='a first line of "type": "session_meta" (or a rollout item) with a "payload"')
