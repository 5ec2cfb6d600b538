"""Reading what was already read, again, for something new: newest first, a bounded number of bytes per call.

When a skill appears, its uses lie in history nanodream has long passed; on a workspace adopted with a large
history, everything does. Reading all of it at once would make one run cost what the history costs. Instead a
caller keeps a frontier (`below`) and asks for at most `budget` more bytes each time: the newest part comes first,
since that is what the last 30 or 90 days of signals need, and the rest follows over later calls.

`Prefilter` finds, at the speed of `bytes.find`, the few lines that can hold one of some words at all, so only
those are decoded and read word by word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from nanodream.atomic import open_binary
from nanodream.backlog.history import MAX_LINE_BYTES

BLOCK = 4 * 1024 * 1024
MANY_ANCHORS = 24  # beyond this many words a find per word costs more than reading every line


def whole_lines_end(path: Path) -> int:
    """Just past the last newline: lines beyond it may still be being written, so they are never kept."""
    try:
        with open_binary(path) as handle:
            end = handle.seek(0, 2)
            while end > 0:
                start = max(0, end - 64 * 1024)
                handle.seek(start)
                cut = handle.read(end - start).rfind(b"\n")
                if cut >= 0:
                    return start + cut + 1
                end = start
    except OSError:
        return 0
    return 0


def whole_lines_before(path: Path, below: int, budget: int) -> Iterator[tuple[int, bytes]]:
    """Chunks of whole lines ending at byte `below` and going back, newest first: (start, bytes) each, with `start`
    at a line's start — the caller's next frontier once it has used the chunk.

    About `budget` bytes are read (a chunk is never cut short); past it the generator stops. A line too long for
    any reader to keep (over MAX_LINE_BYTES: a dead letter) comes as an empty chunk at its start, read past
    whatever the budget, so a frontier never stops inside a line.
    """
    try:
        handle = open_binary(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    with handle:
        end, spent = below, 0
        while end > 0 and spent < budget:
            start = max(0, end - BLOCK)
            handle.seek(start)
            data = handle.read(end - start)
            spent += len(data)
            if start == 0:
                yield 0, data
                return
            first = data.find(b"\n")
            if 0 <= first < len(data) - 1:
                end = start + first + 1
                yield end, data[first + 1:]
                continue
            line_start, read = _start_of_line(handle, start)  # the line that ends at `end` began before the block
            spent += read
            keep = end - line_start <= MAX_LINE_BYTES + 2
            handle.seek(line_start)
            chunk = handle.read(end - line_start) if keep else b""
            end = line_start
            yield end, chunk


def _start_of_line(handle: BinaryIO, inside: int) -> tuple[int, int]:
    """Where the line holding byte `inside - 1` starts, found backwards in blocks; and the bytes read to find it."""
    end, read = inside, 0
    while end > 0:
        start = max(0, end - BLOCK)
        handle.seek(start)
        data = handle.read(end - start)
        read += len(data)
        cut = data.rfind(b"\n")
        if cut >= 0:
            return start + cut + 1, read
        end = start
    return 0, read


# Text that lowercases or decodes to an ASCII letter, digit or bracket though its bytes are not one: a JSON escape
# of an ASCII character, and the two characters whose lowercase is ASCII (U+0130 İ → "i̇", U+212A Kelvin → "k").
_DISGUISED = re.compile(rb"\\u00[2-7]|\\u0130|\\u212a|\xc4\xb0|\xe2\x84\xaa", re.IGNORECASE)
_ESCAPE = re.compile(rb"\\(?:u[0-9a-f]{4}|.)")  # in ASCII-lowercased bytes
_RAW_WORD = re.compile(rb"[a-z0-9]+")


class Prefilter:
    """The lines of a chunk (each with its offset in it) that may name one of `names` — every word of the name in
    the line once it is decoded and lowercased — or that contain one of the strings `also` (lowercase ASCII).

    Never misses one. A line's ASCII-lowercased bytes, with JSON escapes read as separators, split into at least
    the words the decoded line holds (an escape or a non-ASCII character only ever cuts a word further), so a line
    whose bytes lack a word of every name names none; a line with anything that could decode or lowercase into an
    ASCII letter is always kept. Up to MANY_ANCHORS names, lines are first found by one word of each with
    `bytes.find`; beyond, every line's words are looked at.
    """

    def __init__(self, names: Iterable[str], also: Iterable[str] = ()) -> None:
        self.by_anchor: dict[bytes, list[frozenset[bytes]]] = {}
        for name in set(names):
            option = frozenset(word.encode("ascii") for word in name.split("-"))
            self.by_anchor.setdefault(max(sorted(option), key=len), []).append(option)
        self.anchors = sorted(self.by_anchor)
        self.also = sorted({text.encode("ascii") for text in also})
        self.everything = len(self.anchors) > MANY_ANCHORS

    def lines(self, data: bytes) -> list[tuple[int, bytes]]:
        lowered = data.lower()
        kept = set(_line_starts(lowered, self.also))
        kept |= {lowered.rfind(b"\n", 0, match.start()) + 1 for match in _DISGUISED.finditer(data)}
        maybe = _every_line_start(lowered) if self.everything else _line_starts(lowered, self.anchors)
        kept |= {start for start in maybe if start not in kept and self._may_name(lowered, start)}
        return [(start, data[start:_line_end(data, start)]) for start in sorted(kept)]

    def _may_name(self, lowered: bytes, start: int) -> bool:
        words = set(_RAW_WORD.findall(_ESCAPE.sub(b" ", lowered[start:_line_end(lowered, start)])))
        return any(option <= words for anchor in words.intersection(self.by_anchor)
                   for option in self.by_anchor[anchor])


def _line_starts(lowered: bytes, anchors: Iterable[bytes]) -> set[int]:
    """Where each line holding one of `anchors` starts."""
    starts: set[int] = set()
    for anchor in anchors:
        at = lowered.find(anchor)
        while at >= 0:
            starts.add(lowered.rfind(b"\n", 0, at) + 1)
            end = lowered.find(b"\n", at)
            at = lowered.find(anchor, end) if end >= 0 else -1
    return starts


def _every_line_start(data: bytes) -> list[int]:
    starts = [0]
    at = data.find(b"\n")
    while at >= 0:
        starts.append(at + 1)
        at = data.find(b"\n", at + 1)
    return starts


def _line_end(data: bytes, start: int) -> int:
    end = data.find(b"\n", start)
    return len(data) if end < 0 else end
