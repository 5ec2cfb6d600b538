"""Recall as of a day: what memory held then, plus the replaced facts that were still true that day.

The memory files come from the last commit made on or before the day (versioning/asof.py, git's clock),
corrected by the days history gives (what a later dream learned from a session of that day or before is held;
what it archived as ended by then is not), so recall as of a day agrees with `why`. The
archive on disk adds every replaced fact whose validity covers the day (validity.py, history's clock): a fact
true then that a later dream replaced, even one memory never held by then because it was dreamed late. A
replaced fact the snapshot still holds as an active line is not counted twice. The index is built in memory
and kept for the next query of the same commits, day and archive.
"""

from __future__ import annotations

from datetime import date, tzinfo

from nanodream.atomic import read_bytes
from nanodream.rejected import fact_key
from nanodream.retrieval.documents import Document, fingerprint, line_documents, skill_document, sources
from nanodream.retrieval.index import Index
from nanodream.validity import parse_validity
from nanodream.versioning.asof import Snapshot, snapshot
from nanodream.versioning.gitstore import GitStore
from nanodream.workspace import ARCHIVE_DIR, CORE_FILES, Workspace

_HELD: dict[tuple, Index] = {}
_KEEP = 8  # indexes kept in a process: a host asking about a few days in turn builds each once


def index_as_of(workspace: Workspace, day: date, zone: tzinfo) -> tuple[Index, Snapshot]:
    """The index of memory as it stood on `day`, and the snapshot it was built from."""
    taken = snapshot(GitStore(workspace), day, zone)
    archive = [path for path in sources(workspace) if path.startswith(f"{ARCHIVE_DIR}/")]
    key = (workspace.root, taken.commit, taken.head, day, fingerprint(workspace, archive))
    if key not in _HELD:
        if len(_HELD) >= _KEEP:
            _HELD.pop(next(iter(_HELD)))
        _HELD[key] = Index.build(documents_as_of(workspace, taken, archive))
    return _HELD[key], taken


def documents_as_of(workspace: Workspace, taken: Snapshot, archive: list[str]) -> list[Document]:
    """The snapshot's documents in search order (core files, skills, archive months newest first), then the
    archive's replaced facts true on the snapshot's day."""
    held: list[Document] = []
    for path in _search_order(list(taken.files)):
        text = taken.files[path]
        if path.startswith("skills/"):
            held.append(skill_document(path, text))
        else:
            held += [doc for doc in line_documents(path, text) if parse_validity(doc.text) is None]
    current = {fact_key(doc.text) for doc in held}
    for path in archive:
        text = read_bytes(workspace.root / path).decode("utf-8", errors="replace")
        for doc in line_documents(path, text):
            validity = parse_validity(doc.text)
            if validity is not None and validity.covers(taken.day) and fact_key(validity.text) not in current:
                held.append(doc)
    return held


def _search_order(paths: list[str]) -> list[str]:
    """Core files, skills, then archive months newest first: the order that breaks ties, as for today's files."""
    core = [path for path in CORE_FILES if path in paths]
    skills = sorted(path for path in paths if path.startswith("skills/"))
    months = sorted((path for path in paths if path.startswith(f"{ARCHIVE_DIR}/")), reverse=True)
    return core + skills + months
