"""Git's answers about commits, kept between processes in `.git/nanodream/`: what one run learned, the next reads.

A cron run asks git what the last run already knew: when each line of the core files last changed, when each skill
did, which commit last moved the history position, and it rebuilds the private index of the commit it starts from.
Each answer here is keyed by a commit id (a blame by the file's bytes too), and a commit never changes, so an
answer is never stale: a key that no longer fits is simply not asked for. The memo is only ever a saving — missing,
unreadable, too large or of another shape, it is empty, and a wrong answer planted in it could say no more than the
workspace's owner can write into their memory files anyway. Writes go through a temp file and a rename without
fsync: losing the memo in a crash costs git processes, never data. Nothing here follows a link: in a fleet the
repository is a tenant's, and a `.git/nanodream` that leads elsewhere is neither written nor cleaned; a kept index
is used only when its own checksum says git wrote it whole.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import zlib
from collections.abc import Iterator
from pathlib import Path

from nanodream import boundedjson
from nanodream.atomic import open_binary, read_bytes

Key = tuple[str, str]  # (kind, path): ("blame", "memory/MEMORY.md"), ("log", "skills/"), ("progress", "")
_MEMO = "answers.json"
_MAX_BYTES = 4 * 1024 * 1024
_KEEP = 48  # answers kept, newest last: a run needs those at HEAD; a few older ones cover a concurrent reader
_MAX_INDEX = 64 * 1024 * 1024
_WORKSPACES = 64  # memos held in memory at once
_LOADED: dict[str, dict[Key, tuple[list, object]]] = {}


def folder(root: Path) -> Path:
    return root / ".git" / "nanodream"


def recall(root: Path, key: Key, stamp: tuple) -> tuple[bool, object]:
    """(True, answer) when an earlier process kept an answer for `key` under exactly `stamp`."""
    found = _memo(root).get(key)
    if found is None or found[0] != list(stamp):
        return False, None
    return True, found[1]


_HELD_BACK: set[str] = set()  # workspaces whose memo is not written for now (`unwritten`)


@contextlib.contextmanager
def unwritten(root: Path) -> Iterator[None]:
    """Nothing is written to `root`'s memo inside (answers are still kept in memory): what only looks — a sync's
    dry run — leaves even `.git/nanodream` as it found it."""
    _HELD_BACK.add(str(root))
    try:
        yield
    finally:
        _HELD_BACK.discard(str(root))


def keep(root: Path, answers: dict[Key, tuple[tuple, object]]) -> None:
    """Keep `answers` (key → (stamp, answer)) for later processes; one write, and none when nothing is new."""
    if str(root) in _HELD_BACK:
        return
    memo = _memo(root)
    fresh = {key: ([*stamp], answer) for key, (stamp, answer) in answers.items() if memo.get(key) != ([*stamp], answer)}
    if not fresh:
        return
    for key, value in fresh.items():
        memo.pop(key, None)
        memo[key] = value
    while len(memo) > _KEEP:
        memo.pop(next(iter(memo)))
    records = [[kind, path, stamp, answer] for (kind, path), (stamp, answer) in memo.items()]
    _write(_MEMO, json.dumps({"version": 1, "answers": records}, separators=(",", ":")).encode(), root)


def _memo(root: Path) -> dict[Key, tuple[list, object]]:
    known = _LOADED.get(str(root))
    if known is None:
        if len(_LOADED) >= _WORKSPACES:  # a long-lived process (a server, a worker) visits many workspaces
            _LOADED.clear()
        known = _LOADED[str(root)] = _load(folder(root) / _MEMO)
    return known


def _load(path: Path) -> dict[Key, tuple[list, object]]:
    try:
        data = boundedjson.load_file(path, max_bytes=_MAX_BYTES)
        records = data["answers"] if isinstance(data, dict) and data.get("version") == 1 else []
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    memo: dict[Key, tuple[list, object]] = {}
    for record in records if isinstance(records, list) else []:
        if (isinstance(record, list) and len(record) == 4 and isinstance(record[0], str)
                and isinstance(record[1], str) and isinstance(record[2], list)):
            memo[(record[0], record[1])] = (record[2], record[3])
    return memo


def _write(name: str, data: bytes, root: Path, mtime_ns: int | None = None) -> None:
    """`data` as `.git/nanodream/NAME`, through a temp file and a rename in that folder; nothing when the folder
    can't be had without following a link (a tenant's link must not make a fleet worker write elsewhere)."""
    where = _folder_fd(root)
    if where is None:
        return
    temp = f".tmp-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=where)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            if mtime_ns is not None:
                os.utime(temp, ns=(mtime_ns, mtime_ns), dir_fd=where, follow_symlinks=False)
            os.replace(temp, name, src_dir_fd=where, dst_dir_fd=where)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=where)
            raise
        for old in os.listdir(where):
            if old.startswith("index-") and name.startswith("index-") and old != name:
                os.unlink(old, dir_fd=where)  # a link is removed itself, never followed
    except OSError:
        pass  # a read-only repository: the next process asks git again
    finally:
        os.close(where)


def _folder_fd(root: Path) -> int | None:
    """`.git/nanodream/` opened without following a link anywhere past the workspace (made when missing)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        git = os.open(root / ".git", flags)
    except OSError:
        return None
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir("nanodream", 0o755, dir_fd=git)
        return os.open("nanodream", flags, dir_fd=git)
    except OSError:
        return None
    finally:
        os.close(git)


# the private index a commit was built in -------------------------------------------------------------------------


def save_index(root: Path, commit: str, index: Path) -> None:
    """A copy of the private index that holds exactly `commit`'s tree (its modification time kept, so git's own
    check for racily clean entries still holds), replacing the copy of any earlier commit."""
    try:
        with open_binary(index) as source:
            data, mtime = source.read(_MAX_INDEX + 1), os.fstat(source.fileno()).st_mtime_ns
    except OSError:
        return
    if len(data) <= _MAX_INDEX:
        _write(f"index-{commit}", data, root, mtime)


def load_index(root: Path, commit: str, index: Path) -> bool:
    """Write the kept private index of `commit` to `index`; False when there is none, or it is not an index git
    wrote whole (its checksum): then the caller builds one with `read-tree`."""
    try:
        with open_binary(folder(root) / f"index-{commit}") as source:
            data, mtime = source.read(_MAX_INDEX + 1), os.fstat(source.fileno()).st_mtime_ns
    except OSError:
        return False
    if not _whole_index(data):
        return False
    index.write_bytes(data)
    os.utime(index, ns=(mtime, mtime))
    return True


def _whole_index(data: bytes) -> bool:
    """A git index file as git writes it: `DIRC`, and its content's hash as its last bytes (SHA-1 or SHA-256)."""
    if len(data) > _MAX_INDEX or not data.startswith(b"DIRC"):
        return False
    return any(len(data) > size and getattr(hashlib, name)(data[:-size]).digest() == data[-size:]
               for name, size in (("sha1", 20), ("sha256", 32)))


# a commit's own time, without git --------------------------------------------------------------------------------


def commit_time(root: Path, sha: str) -> int | None:
    """The committer time (epoch seconds) of `sha` read from its loose object — where git puts a commit it just
    made; None when it is packed or reads as anything but a commit."""
    try:
        raw = zlib.decompress(read_bytes(root / ".git" / "objects" / sha[:2] / sha[2:], 1024 * 1024))
    except (OSError, zlib.error, ValueError):
        return None
    header, _, body = raw.partition(b"\0")
    if not header.startswith(b"commit "):
        return None
    for line in body.split(b"\n"):
        if not line:
            break
        if line.startswith(b"committer "):
            parts = line.rsplit(b" ", 2)
            return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None
    return None
