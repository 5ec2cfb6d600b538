"""Crash-safe file writes that keep what they do not mean to change: the file's mode and its exact bytes.

A reader sees the old bytes or the new ones, never a torn mix. Text is decoded with `surrogateescape`, so a
byte that is not UTF-8 survives a read → write round trip unchanged instead of becoming U+FFFD.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO

ENCODING = "utf-8"
ERRORS = "surrogateescape"
# Surrogates other than the escapes of undecodable bytes (U+DC80..U+DCFF): no file and no commit can hold them.
_UNWRITABLE = re.compile("[\ud800-\udc7f\udd00-\udfff]")
_READ_BLOCK = 1024 * 1024


def writable(text: str) -> str:
    """`text` as it can be written: a stray surrogate (a model's or a host's `\\ud83d`) becomes U+FFFD."""
    return _UNWRITABLE.sub("\ufffd", text) if _UNWRITABLE.search(text) else text


def is_writable(text: str) -> bool:
    return _UNWRITABLE.search(text) is None


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write `data` to `path` through a fsynced temp file and an atomic rename.

    An existing file keeps its permission bits; a new one gets what the umask gives any new file (the temp
    file's private 0600 must not leak into a memory file the host agent or a person reads).
    """
    payload = data.encode(ENCODING, ERRORS) if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_for(path)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    fsync_dir(path.parent)


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def fsync_dir(directory: Path) -> None:
    """Persist a rename or unlink in `directory` (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_text(path: Path) -> str:
    """Read a text file exactly as stored: no newline translation, undecodable bytes kept as surrogates.

    A link anywhere on its path is never followed (see `open_plain`), even one that appeared after the workspace
    was checked.
    """
    with open(open_plain(path), encoding=ENCODING, errors=ERRORS, newline="") as handle:
        return handle.read()


def read_bytes(path: Path, limit: int | None = None) -> bytes:
    """The file's bytes (at most `limit` of them), through `open_plain`.

    Read a block at a time: `read(limit)` would allocate the whole limit (64 MiB for a state file) up front,
    however small the file."""
    with open_binary(path) as handle:
        if limit is None:
            return handle.read()
        blocks: list[bytes] = []
        left = limit
        while left > 0 and (block := handle.read(min(left, _READ_BLOCK))):
            blocks.append(block)
            left -= len(block)
        return b"".join(blocks)


def append_bytes(path: Path, data: bytes) -> None:
    """Append `data` with one O_APPEND write (concurrent writers never interleave it), through `open_plain`."""
    fd = open_plain(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def open_binary(path: Path) -> BinaryIO:
    """The file open for reading bytes, through `open_plain`."""
    return os.fdopen(open_plain(path), "rb")


# Traversal without read permission where the platform allows it (a folder on the way may be search-only).
_WALK = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_plain(path: Path, flags: int = os.O_RDONLY, mode: int = 0o644) -> int:
    """A file descriptor for `path` that refuses to follow a symbolic link at ANY component of it (ELOOP/ENOTDIR).

    Each folder is opened relative to the one before it with O_NOFOLLOW, from `/` down, so a link swapped in
    after a check — a workspace's `memory/` or `.nanodream/` turned into a link to another tenant's — is refused
    at the moment of the open, not merely at the check. Workspaces have canonical roots (Workspace resolves its
    root when made), so the only links this can meet are ones inside a workspace.

    An error names the whole path (not the component or descriptor it met), and a folder where a file was
    expected is IsADirectoryError at the open, not an error of the first read naming a descriptor.
    """
    try:
        fd = _open_each(Path(os.path.abspath(path)).parts, flags, mode)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    if not flags & os.O_DIRECTORY and stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    return fd


def _open_each(parts: tuple[str, ...], flags: int, mode: int) -> int:
    folder = os.open(parts[0], _WALK)
    try:
        for part in parts[1:-1]:
            inner = os.open(part, _WALK, dir_fd=folder)
            os.close(folder)
            folder = inner
        return os.open(parts[-1], flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=folder)
    finally:
        os.close(folder)
