"""The index for the files as they are now, held in memory while they stay unchanged.

Keyed by the files' fingerprint, (path, mtime_ns, size) of each: a query over unchanged files reads no memory
file and rebuilds nothing.
"""

from __future__ import annotations

from pathlib import Path

from nanodream.retrieval.documents import Fingerprint, collect, fingerprint, sources
from nanodream.retrieval.index import Index
from nanodream.workspace import Workspace

_MEMORY: dict[Path, tuple[Fingerprint, Index]] = {}  # workspace root → (fingerprint, index)


def index_for(workspace: Workspace) -> Index:
    """The workspace's index, rebuilt only when a file was added, removed, or changed its mtime or size.

    The files are stat'ed before they are read, so an edit landing in between leaves a stale fingerprint
    behind, and the next query rebuilds rather than trusting an index older than the files.
    """
    paths = sources(workspace)
    current = fingerprint(workspace, paths)
    held = _MEMORY.get(workspace.root)
    if held is not None and held[0] == current:
        return held[1]
    index = Index.build(collect(workspace, paths))
    _MEMORY[workspace.root] = (current, index)
    return index
