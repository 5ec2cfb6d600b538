"""What recall searches: each memory line a document with its heading path, each skill one document.

Lines come from the core files and the archive months; headings, code blocks, blank lines and the scaffold's
boilerplate (the sentence under each file's title) are not memories, so they are never documents.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from nanodream.atomic import read_bytes
from nanodream.markdown import is_heading, with_fences
from nanodream.pinning import PIN
from nanodream.workspace import ARCHIVE_DIR, ARCHIVE_INTROS, CORE_FILES, STARTER_FILES, PathRefused, Workspace

# Lines the scaffold or the archive writes to say what a file is for: matching them would answer no question.
BOILERPLATE = frozenset(
    line.strip() for text in (*STARTER_FILES.values(), *ARCHIVE_INTROS) for line in text.splitlines()
    if line.strip() and not is_heading(line)
)

TURN = "turn"  # a hit's source when it is a turn of the turn store (retrieval/turns.py), not a memory line

# The files' identity for the cache: (path, mtime_ns, size) of each, in search order.
Fingerprint = tuple[tuple[str, int, int], ...]


@dataclass(frozen=True)
class Document:
    """One searchable unit: `text` is what a hit shows, `indexed` what BM25 sees (a line with its headings)."""

    text: str
    file: str
    line: int  # 1-based
    heading: str
    indexed: str


def sources(workspace: Workspace) -> list[str]:
    """Workspace-relative paths to search: core files, skills, then archive months newest first.

    The order breaks ties between equal scores, so an active line wins over an archived one.
    """
    paths = workspace.memory_paths()
    folder = workspace.root / ARCHIVE_DIR
    if folder.is_dir() and not folder.is_symlink():
        for name in sorted((p.name for p in folder.glob("*.md")), reverse=True):
            try:
                paths.append(workspace.check_memory_path(f"{ARCHIVE_DIR}/{name}", archive=True))
            except PathRefused:  # not a month file, or reached through a symlink
                continue
    return [p for p in paths if (workspace.root / p).is_file()]


def fingerprint(workspace: Workspace, paths: list[str]) -> Fingerprint:
    """Cheap identity of the files' current contents: a stat per file, no reading."""
    stats = ((path, os.stat(workspace.root / path)) for path in paths)
    return tuple((path, st.st_mtime_ns, st.st_size) for path, st in stats)


def collect(workspace: Workspace, paths: list[str]) -> list[Document]:
    """Every document of `paths`, in their order."""
    documents: list[Document] = []
    for path in paths:
        text = read_bytes(workspace.root / path).decode("utf-8", errors="replace")  # never through a link
        if path in CORE_FILES or path.startswith(f"{ARCHIVE_DIR}/"):
            documents.extend(line_documents(path, text))
        else:
            documents.append(skill_document(path, text))
    return documents


def line_documents(path: str, text: str) -> list[Document]:
    """A document per line that holds a memory, each with the headings above it (levels 2+: `#` is the title)."""
    found: list[Document] = []
    headings: list[tuple[int, str]] = []
    lines = [line.rstrip("\r") for line in text.split("\n")]  # split on \n only: numbers as editors show them
    for number, (line, code) in enumerate(with_fences(lines), start=1):
        if code:
            continue
        if is_heading(line):
            level = len(line) - len(line.lstrip("#"))
            headings = [(lvl, title) for lvl, title in headings if lvl < level]
            headings.append((level, line.lstrip("#").strip()))
            continue
        text = shown(line)
        if text and line.strip() not in BOILERPLATE:
            heading = " > ".join(title for lvl, title in headings if lvl > 1)
            found.append(Document(text, path, number, heading, f"{heading}\n{text}"))
    return found


def skill_document(path: str, text: str) -> Document:
    """A skill as one document: name, description and body; a hit shows its description, headed by its name."""
    from nanodream.skills import parse_skill

    name = path.split("/")[1]
    try:
        info = parse_skill(path, text)
        description, body = info.description, info.body
    except ValueError:  # a broken front matter is still worth finding: search the whole file
        description, body = "", text
    # Name and description twice: they say what the skill is for, the body says how, in many more words.
    summary = f"{name}\n{description}"
    return Document(description or name, path, 1, name, f"{summary}\n{summary}\n{body}")


def shown(line: str) -> str:
    """The line as a host would inject it: no list marker, no pin marker, no surrounding space."""
    text = line.replace(PIN, "").strip()
    for marker in ("- ", "* ", "+ "):
        if text.startswith(marker):
            return text[len(marker):].strip()
    return text
