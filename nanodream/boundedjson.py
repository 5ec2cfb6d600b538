"""The one JSON reader: every document nanodream parses is bounded in size and in depth before it is parsed.

History lines, transcripts, a model's tool arguments and the calls it writes as text, MCP messages and
nanodream's own state files can all be written by someone else. Python's parser recurses once per nesting
level, so one line nested a few thousand levels deep raises RecursionError — which is not a ValueError, and
used to escape every `except ValueError` and wedge `run`, `status` and the fleet. Here a document too long
or too deep is refused as `JSONRefused`, a ValueError like any other malformed JSON, before the parser sees it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from nanodream.atomic import read_bytes

# Deeper than any document nanodream reads or writes (a transcript record nests about six levels).
MAX_DEPTH = 64
# Byte limits by kind of document; every caller names the one it reads.
LINE_BYTES = 1024 * 1024  # a history line, a run record, a usage record
MESSAGE_BYTES = 16 * 1024 * 1024  # a transcript line, an MCP message, a model's tool arguments
STATE_BYTES = 64 * 1024 * 1024  # nanodream's own files: journal, watermarks, quarantine, position
DOCUMENT_BYTES = 256 * 1024 * 1024  # a whole transcript exported as one JSON array

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')  # unrolled: one C loop per run of plain characters
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')  # a string (skipped whole) or a bracket
_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


class JSONRefused(ValueError):
    """A document that is not JSON, or is longer or deeper than nanodream reads; the message says which."""


class TooLong(JSONRefused):
    """Longer than the reader's limit: never read whole."""


class TooDeep(JSONRefused):
    """Nested deeper than the reader's limit: never handed to the parser."""


class NotUTF8(JSONRefused):
    """Bytes that are not UTF-8: no text to parse."""


def loads(data: str | bytes | bytearray, *, max_bytes: int, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads(data)` for UTF-8 text, refused (JSONRefused) when longer than `max_bytes` or nested deeper than
    `max_depth`.

    Bytes are decoded as json.loads decodes them (a BOM forgiven, escaped surrogates let through), but through
    C's fast path and one raw decode: on a never-consumed backlog of a million lines this is a third of `status`.
    """
    if len(data) > max_bytes:
        raise TooLong(f"longer than {_size(max_bytes)} ({len(data)} bytes)")
    text = _text(data).strip(_WHITESPACE)
    check_depth(text, max_depth)
    try:
        value, end = _DECODER.raw_decode(text)
    except RecursionError:  # a guard only: the depth check keeps the parser far from the stack's limit
        raise TooDeep(f"nested deeper than {max_depth} levels") from None
    except ValueError as exc:
        raise JSONRefused(f"not valid JSON ({exc})") from None
    if end != len(text):
        raise JSONRefused("not valid JSON (extra data after the value)")
    return value


bounded_loads = loads  # the name the host API exports it under (nanodream.api.bounded_loads)


def raw_decode(text: str, index: int = 0, *, max_depth: int = MAX_DEPTH) -> tuple[Any, int]:
    """The JSON value starting at `text[index]` and where it ends (JSONDecoder.raw_decode), depth-bounded.

    For JSON embedded in prose (calls a model wrote as text), whose length the caller bounds: only the value's
    own brackets count, not the prose after it.
    """
    depth = 0
    for token in _TOKEN.finditer(text, index):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth > max_depth:
                raise TooDeep(f"nested deeper than {max_depth} levels")
        elif char in "]}":
            depth -= 1
        if depth <= 0:
            break
    try:
        return _DECODER.raw_decode(text, index)
    except RecursionError:
        raise TooDeep(f"nested deeper than {max_depth} levels") from None
    except ValueError as exc:
        raise JSONRefused(f"not valid JSON ({exc})") from None


def load_file(path: Path, *, max_bytes: int = STATE_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON document in the file at `path`, read without following a link anywhere on its path.

    FileNotFoundError when it is missing (OSError when a link or anything else stops the open); JSONRefused when
    it is longer than `max_bytes` (only that much is ever read), not UTF-8, not JSON, or too deep.
    """
    return loads(read_bytes(path, max_bytes + 1), max_bytes=max_bytes, max_depth=max_depth)


def plain(value: Any) -> Any:
    """`value` as JSON gives it back (tuples as lists, other objects as their str): for values nanodream made."""
    return json.loads(json.dumps(value, default=str))


def check_depth(text: str, max_depth: int = MAX_DEPTH) -> None:
    """JSONRefused when brackets outside strings nest deeper than `max_depth` (or never close).

    Linear passes in C: most documents have fewer brackets than the limit and need no pass at all; a deeper
    one loses its innermost empty pairs per pass, and what is left after `max_depth` passes is too deep.
    """
    if text.count("[") + text.count("{") <= max_depth:
        return
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(max_depth):
        brackets, removed = _INNERMOST.subn("", brackets)
        if not brackets:
            return
        if not removed:
            break
    raise TooDeep(f"nested deeper than {max_depth} levels")


def _text(data: str | bytes | bytearray) -> str:
    if isinstance(data, str):
        return data
    try:
        text = bytes(data).decode("utf-8", "surrogatepass")  # as json.loads decodes bytes
    except UnicodeDecodeError as exc:
        raise NotUTF8(f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    return text[1:] if text.startswith("\ufeff") else text


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"
