"""The index for the files as they are now: held in memory, else read from `.nanodream/recall/`, else built.

Keyed by the files' fingerprint, (path, mtime_ns, size) of each: a query over unchanged files reads no memory
file and rebuilds nothing, and a fresh process (`nanodream recall`, a host's first turn) loads the index the
last one saved instead of building it again (bench/README.md, Recall).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import bm25s

from nanodream import __version__
from nanodream.retrieval.documents import Fingerprint, collect, fingerprint, sources
from nanodream.retrieval.index import STOPWORDS, Index
from nanodream.workspace import Workspace

# Bump when documents or tokens change meaning: indexes saved by an older nanodream then no longer match.
FORMAT = 3  # 3: postings (bm25.py) instead of bm25s's scores
_TMP = ".tmp-"
TURNS = "turns"  # the turn store's blocks, one folder per segment (retrieval/turns.py)
_ABANDONED_AFTER = 600.0  # seconds: a temporary folder this old belongs to a save that died

_MEMORY: dict[Path, tuple[str, Index]] = {}  # workspace root → (key, index)


def index_for(workspace: Workspace) -> Index:
    """The workspace's index, rebuilt only when a file was added, removed, or changed its mtime or size.

    The files are stat'ed before they are read, so an edit landing in between leaves a stale key behind,
    and the next query rebuilds rather than trusting an index older than the files.
    """
    paths = sources(workspace)
    key = cache_key(fingerprint(workspace, paths))
    held = _MEMORY.get(workspace.root)
    if held is not None and held[0] == key:
        return held[1]
    index = _load(workspace, key)
    if index is None:
        index = Index.build(collect(workspace, paths))
        with contextlib.suppress(OSError):  # a read-only workspace still answers; it builds every time
            _save(workspace, key, index)
    _MEMORY[workspace.root] = (key, index)
    return index


def cache_key(files: Fingerprint) -> str:
    """The files' fingerprint with everything else that shapes an index, as a folder name."""
    raw = json.dumps([FORMAT, __version__, bm25s.__version__, STOPWORDS, files])
    return hashlib.sha256(raw.encode()).hexdigest()[:24]


def cache_dir(workspace: Workspace) -> Path:
    return workspace.state_dir / "recall"


def _load(workspace: Workspace, key: str) -> Index | None:
    folder = cache_dir(workspace) / key
    if not folder.is_dir():
        return None
    try:
        return Index.load(folder)
    except (OSError, ValueError, KeyError, TypeError):  # half-pruned by another process, or tampered with
        return None


def _save(workspace: Workspace, key: str, index: Index) -> None:
    root = cache_dir(workspace)
    save_into(root, key, index.save)
    prune(root, lambda name: name in (key, TURNS))


def save_into(root: Path, name: str, write: Callable[[Path], None]) -> None:
    """`write` into a temporary folder under `root`, then rename it to `name`.

    The rename is atomic, so a reader sees a whole index or none; when another process saved the same name
    first, the rename fails and its copy stays.
    """
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=_TMP, dir=root))
    try:
        write(tmp)
        tmp.rename(root / name)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


def prune(root: Path, kept: Callable[[str], bool]) -> None:
    """Drop every folder under `root` that `kept` refuses, but a temporary one another process is still writing."""
    for other in root.iterdir():
        if not kept(other.name) and (not other.name.startswith(_TMP) or _abandoned(other)):
            shutil.rmtree(other, ignore_errors=True)


def _abandoned(folder: Path) -> bool:
    try:
        return time.time() - folder.stat().st_mtime > _ABANDONED_AFTER
    except OSError:
        return False
