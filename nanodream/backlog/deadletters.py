"""History lines that are not entries: kept by line, offset and raw text until a person acknowledges them.

A malformed line is never fatal and never silently dropped: the run reports it, `status` lists it, and it
stays here (`.nanodream/dead_letters.json`) until `nanodream history ack`. Writers hold the workspace lock.
The raw text is kept with its credentials redacted (`history.kept_raw`); a file written by an earlier version
with raw credentials is read redacted and rewritten by the next run that holds the lock.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import BinaryIO

from nanodream import boundedjson
from nanodream.atomic import atomic_write, open_binary
from nanodream.backlog.history import RAW_LIMIT, DeadLetter, kept_raw, line_fingerprint
from nanodream.workspace import Workspace


@dataclass(frozen=True)
class HeldLetter:
    line: int
    offset: int
    raw: str
    reason: str
    acknowledged: bool = False
    fingerprint: str = ""  # see history.line_fingerprint; "" in files written before redaction (see _load)


def dead_letter_file(workspace: Workspace) -> Path:
    return workspace.state_dir / "dead_letters.json"


def load_dead_letters(workspace: Workspace) -> list[HeldLetter]:
    """Every dead letter seen so far, by line; an unreadable file reads as empty (it is rebuilt by the next run)."""
    return _load(workspace)[0]


def _load(workspace: Workspace) -> tuple[list[HeldLetter], bool]:
    """(the letters, redacted; whether the file should be rewritten because it still holds raw text).

    A letter with a fingerprint was redacted when it was kept (`remember`). One without was written by an earlier
    version — raw, or already redacted — and is fingerprinted from the line history.jsonl holds at its offset when
    that line is the one it kept, then redacted; one whose line is gone gets a fingerprint nothing matches.
    """
    try:
        data = boundedjson.load_file(dead_letter_file(workspace))
        letters = [HeldLetter(**item) for item in data["letters"]]
    except FileNotFoundError:
        return [], False
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return [], False
    if all(letter.fingerprint for letter in letters):
        return letters, False
    return [letter if letter.fingerprint else _upgraded(workspace.history_file, letter) for letter in letters], True


def _upgraded(history: Path, letter: HeldLetter) -> HeldLetter:
    """A letter an earlier version kept without a fingerprint, with one, and its text redacted."""
    line = _line_at(history, letter.offset)
    shown = line.decode("utf-8", "surrogateescape")
    held = line if letter.raw in (shown, kept_raw(shown)) else letter.raw.encode("utf-8", "surrogateescape")
    return replace(letter, raw=kept_raw(letter.raw), fingerprint=line_fingerprint(held))


def _line_at(history: Path, offset: int) -> bytes:
    """What `history._dead` keeps of the line starting at `offset`: its first RAW_LIMIT bytes, no line end."""
    try:
        with open_binary(history) as handle:
            handle.seek(offset)
            chunk = handle.read(RAW_LIMIT + 2)
    except OSError:
        return b""
    return chunk.split(b"\n", 1)[0].rstrip(b"\r")[:RAW_LIMIT]


def _save(workspace: Workspace, letters: list[HeldLetter]) -> None:
    payload = {"letters": [asdict(letter) for letter in sorted(letters, key=lambda letter: letter.offset)]}
    atomic_write(dead_letter_file(workspace), json.dumps(payload, indent=1) + "\n")  # ASCII: raw bytes survive


def remember(workspace: Workspace, found: list[DeadLetter]) -> None:
    """Add newly found dead letters; one already held (same offset, same text) keeps its acknowledgement."""
    letters, stale = _load(workspace)
    held = {(letter.offset, letter.fingerprint): letter for letter in letters}
    new = [HeldLetter(d.line, d.offset, kept_raw(d.raw), d.reason, fingerprint=d.fingerprint) for d in found
           if (d.offset, d.fingerprint) not in held]
    if new or stale:
        _save(workspace, [*held.values(), *new])


def acknowledge(workspace: Workspace, lines: list[int] | None) -> tuple[list[int], list[int]]:
    """Mark the given lines (None: all) as seen by a person; returns (acknowledged, not found)."""
    letters = in_file(workspace.history_file, load_dead_letters(workspace))  # a rewritten file's are gone
    wanted = None if lines is None else set(lines)
    done = sorted({letter.line for letter in letters if wanted is None or letter.line in wanted})
    missing = sorted(set(lines or ()) - set(done))
    if done:
        _save(workspace, [HeldLetter(**{**asdict(letter), "acknowledged": True})
                          if letter.line in done else letter for letter in letters])
    return done, missing


def pending_letters(workspace: Workspace) -> list[HeldLetter]:
    """Unacknowledged dead letters that are still lines of history.jsonl (see `in_file`)."""
    waiting = [letter for letter in load_dead_letters(workspace) if not letter.acknowledged]
    return in_file(workspace.history_file, waiting)


def in_file(path: Path, letters: list[HeldLetter]) -> list[HeldLetter]:
    """The letters `path` still holds: the same bytes at the same offset, at the start of a line.

    After history.jsonl was rotated or rewritten, a held line number means another line or none at all.
    """
    if not letters:
        return []
    try:
        handle = open_binary(path)
    except (FileNotFoundError, NotADirectoryError):
        return []
    with handle:
        return [letter for letter in letters if _holds(handle, letter)]


def _holds(handle: BinaryIO, letter: HeldLetter) -> bool:
    handle.seek(max(letter.offset - 1, 0))
    before = handle.read(1) if letter.offset > 0 else b"\n"
    if before != b"\n":
        return False
    length = int(letter.fingerprint.split(":", 1)[0])  # what is kept is redacted: the fingerprint recognises it
    return line_fingerprint(handle.read(length)) == letter.fingerprint


def drop_stale(workspace: Workspace) -> list[HeldLetter]:
    """Forget the held letters history.jsonl no longer holds (it was rotated or rewritten); returns them."""
    letters = load_dead_letters(workspace)
    kept = in_file(workspace.history_file, letters)
    if len(kept) < len(letters):
        _save(workspace, kept)
    return [letter for letter in letters if letter not in kept]
