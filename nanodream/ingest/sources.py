"""Which files a source names: the file itself, or the transcripts under a folder, never through a symlink.

A source path may lie outside the workspace (that is the point); it is only ever read. Its own symlink is
followed, because the configuration named it; below it, nothing is: a linked folder or file inside a source
could lead anywhere, so it is passed over and said so. nanodream's own state folders are never read, so a
dream's session transcript can never come back as history.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from nanodream.config import IngestSource
from nanodream.ingest.detect import REGISTRY
from nanodream.ingest.formats.base import Format

SKIPPED_DIRS = frozenset({".nanodream", ".git"})


class SourceMissing(FileNotFoundError):
    """The configured or named path does not exist (or cannot be listed); the message names it."""


@dataclass
class Listing:
    files: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # one line each: a symlink passed over, and why


def list_files(source: IngestSource) -> Listing:
    """The files to read for `source`, sorted; a named file is read whatever its name."""
    path = source.path
    if _inside_state(path):
        return Listing(skipped=[f"{path}: nanodream's own state is never ingested"])
    if path.is_file():
        return Listing([path])
    if not path.is_dir():
        raise SourceMissing(f"{path}: no such file or folder")
    listing = Listing()
    for folder, dirs, names in os.walk(path, onerror=_raise, followlinks=False):
        here = Path(folder)
        links = {name for name in dirs if (here / name).is_symlink()}
        listing.skipped += [f"{here / name}: a symlinked folder inside a source is not followed"
                            for name in sorted(links)]
        dirs[:] = sorted(set(dirs) - links - SKIPPED_DIRS)
        _take(source, [here / name for name in sorted(names)], listing)
    return listing


def _take(source: IngestSource, candidates: list[Path], listing: Listing) -> None:
    aside: dict[str, int] = {}
    for candidate in candidates:
        if not wanted(candidate.relative_to(source.path).as_posix(), source):
            kind = _set_aside(candidate.name, source)
            if kind:
                aside[kind] = aside.get(kind, 0) + 1
            continue
        if candidate.is_symlink():
            listing.skipped.append(f"{candidate}: a symlink inside a source is not followed")
        elif candidate.is_file():
            listing.files.append(candidate)
    if candidates:
        listing.skipped += [f"{candidates[0].parent}: {kind}: {count} passed over (name one to read it)"
                            for kind, count in aside.items()]


def _set_aside(name: str, source: IngestSource) -> str:
    """What a file its format's host set aside is ("" for any other file), unless `include` asks for it."""
    if source.include:
        return ""
    return next((kind for fmt in _formats(source.format) for glob, kind in fmt.set_aside if fnmatch(name, glob)), "")


def wanted(relative: str, source: IngestSource) -> bool:
    """Matched by an include glob and by no exclude glob. A glob without "/" matches the file's name; one with
    "/" its path below the source. Without `include`, every file the source's format is kept in (any format's,
    when the format is detected): `*.jsonl`, and `*.json` for OpenAI's exported arrays."""
    include = source.include or default_include(source.format)
    return any(_matches(relative, p) for p in include) and not any(_matches(relative, p) for p in source.exclude)


def default_include(fmt: str | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(glob for each in _formats(fmt) for glob in each.files))


def _formats(fmt: str | None) -> list[Format]:
    """The format a source names, or every format when it names none (detected per file)."""
    return [REGISTRY[fmt]] if fmt in REGISTRY else list(REGISTRY.values())


def _matches(relative: str, pattern: str) -> bool:
    return fnmatch(relative, pattern) if "/" in pattern else fnmatch(relative.rsplit("/", 1)[-1], pattern)


def _inside_state(path: Path) -> bool:
    return any(part == ".nanodream" for part in path.parts)


def _raise(error: OSError) -> None:
    raise SourceMissing(f"{error.filename}: {error.strerror or error}") from None
