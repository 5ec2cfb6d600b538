"""Which format a transcript is in: its first records, tried against each format in turn (most specific first).

Detection is per file, so one directory may mix formats. A file whose records fit no format is refused with
one line naming it; an empty file, or one whose first line is still being written, has no format yet.
"""

from __future__ import annotations

import codecs
import os
from pathlib import Path
from typing import Any, BinaryIO

from nanodream import boundedjson
from nanodream.ingest.formats import claude_code, codex, nanobot, openai, openclaw
from nanodream.ingest.formats.base import Format
from nanodream.vocab import INGEST_FORMATS

SAMPLE_RECORDS = 20
SAMPLE_BYTES = 8 * 1024 * 1024
MAX_LINE = boundedjson.MESSAGE_BYTES  # a transcript line longer than this is never read (tool output, a blob)

REGISTRY: dict[str, Format] = {fmt.name: fmt for fmt in (nanobot.FORMAT, codex.FORMAT, openclaw.FORMAT,
                                                          claude_code.FORMAT, openai.FORMAT)}


class Unrecognised(ValueError):
    """A file ingest cannot read; the message is one line that names it."""


def open_transcript(path: Path, *, follow: bool = True) -> BinaryIO:
    """The file for reading; `follow` False (a file found inside a source folder) refuses a symlink, so one
    swapped in after the listing is not read."""
    return os.fdopen(os.open(path, os.O_RDONLY | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)), "rb")


def is_document(path: Path, *, follow: bool = True) -> bool:
    """A whole-file JSON document (an exported array, a conversation object) rather than JSON Lines."""
    with open_transcript(path, follow=follow) as handle:
        return starts_document(handle.read(HEAD_BYTES))


HEAD_BYTES = 4096


def starts_document(head: bytes) -> bool:
    """A whole-file JSON document: an array, or an object written over many lines (its first line a lone "{"); a
    one-line object is a JSON Lines record."""
    head = head.lstrip()
    return head.startswith(b"[") or head.partition(b"\n")[0].strip() == b"{"


def detect(path: Path, forced: str | None = None, *, follow: bool = True) -> Format | None:
    """The file's format (None: nothing complete to look at yet); Unrecognised when no format fits."""
    records = _sample(path, follow)
    if not records:
        return None
    if forced is not None:
        if not REGISTRY[forced].sniff(records):
            raise Unrecognised(f"{path}: not read as {forced}, whose transcripts have {REGISTRY[forced].expects}")
        return REGISTRY[forced]
    for fmt in REGISTRY.values():
        if fmt.sniff(records):
            return fmt
    history = _prompt_history(records)
    if history:
        raise Unrecognised(f"{path}: {history}'s prompt history (what was typed, without the replies); "
                           f"ingest the sessions it lists instead ({_SESSIONS[history]}), which hold the same words")
    if _memory_history(records):
        raise Unrecognised(f"{path}: a workspace's memory/history.jsonl (entries already written for a dream), not a "
                           "transcript: dream that workspace itself (`nanodream run -w <the folder holding memory/>`)")
    if len(records) == 1 and isinstance(records[0], dict) and not _a_record(records[0]):
        raise Unrecognised(_NO_CONVERSATION.format(path=path))  # a subagent's .meta.json, a one-line settings file
    raise Unrecognised(f"{path}: not a transcript nanodream recognises (formats: {', '.join(INGEST_FORMATS)})")


def _memory_history(records: list[Any]) -> bool:
    """Entries of a workspace's history (nanobot's and nanodream's own: a cursor, a timestamp, the content), which
    ingest would only copy into another history: given to ingest, they are refused with where they belong."""
    return all(isinstance(record, dict) and isinstance(record.get("cursor"), int)
               and isinstance(record.get("content"), str) and "timestamp" in record for record in records)


# A host's log of the prompts typed into it, one line each (Claude Code's ~/.claude/history.jsonl: "display",
# "project"; Codex's ~/.codex/history.jsonl: "session_id", "ts", "text"), and where its sessions are.
_PROMPT_FIELDS = {"Claude Code": frozenset({"display", "project"}), "Codex": frozenset({"session_id", "ts", "text"})}
_SESSIONS = {"Claude Code": "~/.claude/projects", "Codex": "~/.codex/sessions"}


def _prompt_history(records: list[Any]) -> str:
    """The host whose prompt history these records are, or ""."""
    for host, fields in _PROMPT_FIELDS.items():
        if all(isinstance(record, dict) and fields <= record.keys() for record in records):
            return host
    return ""


def read_document(handle: BinaryIO, path: Path) -> tuple[list[Any], bytes]:
    """A whole-file JSON document: its records and its bytes (a conversation object's `messages`, the shape
    chat exports and fine-tuning files use); Unrecognised when it is neither, too large or too deep to read."""
    handle.seek(0)
    data = handle.read(boundedjson.DOCUMENT_BYTES + 1)
    try:
        records = boundedjson.loads(data, max_bytes=boundedjson.DOCUMENT_BYTES)
    except boundedjson.JSONRefused as exc:
        if data.lstrip().startswith(b"{"):  # records pretty-printed one after another, not one conversation
            raise Unrecognised(_not_json(handle, path, 1, exc)) from None
        raise Unrecognised(f"{path}: starts like a JSON array but cannot be read: {exc}") from None
    if isinstance(records, dict) and isinstance(records.get("messages"), list):
        records = [records]  # one conversation: the formats read its messages (openai.py)
    elif isinstance(records, dict) and _conversations(records):
        records = _conversations(records)  # a chat app's export: its conversations, by id or under one key
    elif isinstance(records, dict) and _a_record(records):  # one record over several lines: JSON Lines wants one
        raise Unrecognised(_not_json(handle, path, 1, ValueError("one record over several lines")))
    elif isinstance(records, dict):  # a settings or index file beside the sessions (OpenClaw's models.json)
        raise Unrecognised(_NO_CONVERSATION.format(path=path))
    if not isinstance(records, list):
        raise Unrecognised(f"{path}: a JSON document that is not an array of messages nor an object holding them")
    return records, data


_NO_CONVERSATION = "{path}: a JSON document holding no conversation (no messages in it)"
# The fields a transcript's record has (a message's, an event's): a document of one such record is JSON Lines
# pretty-printed, not some other file.
_RECORD_FIELDS = frozenset({"role", "content", "message", "type", "text", "payload"})


def _a_record(value: dict) -> bool:
    return bool(_RECORD_FIELDS & value.keys())


def _conversations(document: dict) -> list[dict]:
    """The conversations of an export that holds them one level down: an object of them by id (`{"<id>":
    {"messages": [...]}, …}`) or a list of them under one key (`{"conversations": [...]}`); [] for any other
    document. Each conversation's `id` is its session (a conversation by id without one takes its key)."""
    values = list(document.values())
    if len(values) == 1 and isinstance(values[0], list):
        values = values[0]
    elif values and all(isinstance(value, dict) for value in values):
        values = [value if "id" in value else {**value, "id": key} for key, value in document.items()]
    held = [value for value in values if isinstance(value, dict) and isinstance(value.get("messages"), list)]
    return held if held and len(held) == len(values) else []


def _sample(path: Path, follow: bool) -> list[Any]:
    with open_transcript(path, follow=follow) as handle:
        if starts_document(handle.read(HEAD_BYTES)):
            return read_document(handle, path)[0][:SAMPLE_RECORDS]
        handle.seek(0)
        return _first_lines(handle, path)


def _first_lines(handle: BinaryIO, path: Path) -> list[Any]:
    """The first complete non-blank lines as JSON values; a line that is not JSON ends the sample (or refuses
    the file, when it is the first). No line is read past MAX_LINE bytes, however long it is."""
    records: list[Any] = []
    read = number = 0
    while raw := handle.readline(MAX_LINE + 1):
        number += 1
        read += len(raw)
        if len(raw) > MAX_LINE:
            if not records:
                raise Unrecognised(f"{path}: line {number} is longer than {MAX_LINE // (1024 * 1024)} MiB")
            break
        if number == 1:
            raw = raw.removeprefix(codecs.BOM_UTF8)  # an editor's byte-order mark opens no record
        if not records and raw.strip() and not raw.lstrip().startswith(b"{"):
            raise Unrecognised(f"{path}: line {number} is not a JSON object")
        written = raw.endswith(b"\n") or path.suffix == ".json"  # a .json file is written whole, newline or not
        if not written or len(records) >= SAMPLE_RECORDS or (records and read > SAMPLE_BYTES):
            break  # the last line may still be being written; a huge first line is still looked at
        if not raw.strip():
            continue
        try:
            records.append(boundedjson.loads(raw, max_bytes=MAX_LINE))
        except ValueError as exc:
            if not records:
                raise Unrecognised(_not_json(handle, path, number, exc)) from None
            break
    return records


def _not_json(handle: BinaryIO, path: Path, number: int, error: ValueError) -> str:
    """Why the first record is not JSON, with a hint when the file is JSON written over several lines."""
    if not isinstance(error, boundedjson.TooDeep) and number == 1 and _pretty_printed(handle):
        return (f"{path}: line 1 is not JSON on its own: the file looks like pretty-printed JSON (one record spread "
                "over several lines), but JSON Lines holds one record per line; rewrite it with `jq -c . FILE`")
    detail = f" ({error})" if isinstance(error, (boundedjson.TooDeep, boundedjson.TooLong)) else ""
    return f"{path}: line {number} is not JSON{detail}"


def _pretty_printed(handle: BinaryIO) -> bool:
    """The file's start is one JSON object written over several lines (within the sample's bytes)."""
    handle.seek(0)
    text = handle.read(SAMPLE_BYTES).decode("utf-8", "replace").lstrip()
    try:
        value, end = boundedjson.raw_decode(text)
    except ValueError:
        return False
    return isinstance(value, dict) and "\n" in text[:end]
