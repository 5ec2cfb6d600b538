"""Nothing unguarded travels: what arrives from a remote, and what would leave for it.

Arriving lines pass the guards a model's edits pass (run/guards.py, run/holds.py): a credential, or an
injected instruction (the tripwires), is left out with a warning; a rule that would turn the agent against its
user — sending data away, hiding something, running fetched code — is held for review in the review lane. It is
never written into a memory file, not even commented out; the harmless lines that came with it arrive.

Leaving: every object a push would send — each commit's message and every line of every blob the remote does not
hold yet, the person's own hand edits included — goes through the secret scanner that guards commits, and every
path must be one nanodream tracks (history, its cursor and nanodream's state never travel). The first problem
stops the sync before anything is pushed: no object on the remote ever holds it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nanodream.config import Settings
from nanodream.run import holds
from nanodream.safety import injection, secret_scan
from nanodream.versioning.gitstore import GitStore
from nanodream.versioning.merge import Guard
from nanodream.versioning.remote import outgoing
from nanodream.workspace import CORE_FILES, TRACKED_PATTERNS


def arrival_guard(settings: Settings) -> Guard:
    """What may land of a line arriving from the remote: None, or (why not, whether it waits for a person)."""

    def guard(path: str, line: str) -> tuple[str, bool] | None:
        hits = secret_scan.scan_added(None, line)
        if hits:
            return f"a credential ({hits[0].rule})", False
        if path not in CORE_FILES and not path.startswith("skills/"):
            return None  # not loaded by a host: the archive, the ledger, insights, settings
        flagged = injection.scan_line(line)
        tripwires = sorted({hit.rule for hit in flagged if hit.rule not in injection.AGENT_RULES})
        if tripwires:
            return f"an injected instruction ({', '.join(tripwires)})", False
        why = [f"an agent rule ({hit.rule})" for hit in flagged if hit.rule in injection.AGENT_RULES]
        why += [reason for reason in holds.reasons(line, settings, path) if reason not in why]
        return ("; ".join(dict.fromkeys(why)), True) if why else None

    return guard


@dataclass(frozen=True)
class Leak:
    """Something that must not leave this machine: where it is, and what it is (never a secret's value)."""

    path: str
    line: int  # 0: the whole file (a path that never travels), or a commit message
    what: str
    commit: str = ""

    def __str__(self) -> str:
        where = f"{self.path} line {self.line}" if self.line else self.path
        return f"{where}: {self.what}" + (f" (commit {self.commit[:8]})" if self.commit else "")


def leak(store: GitStore, tip: str, remote_tip: str | None) -> Leak | None:
    """The first thing a push of `tip` would send that must not leave: a path nanodream does not track, or a
    credential in a new line of a file or of a commit message. None when all of it may travel."""
    out = outgoing(store, tip, remote_tip)
    for _, path in out.blobs:
        if path and not tracked(path):
            return Leak(path, 0, "never travels (only memory files are synced; history and state stay here)")
    known = _remote_lines(store, remote_tip, {path for _, path in out.blobs})
    places: dict[str, tuple[str, int]] = {}
    texts = store.blobs([sha for sha, _ in out.blobs])
    for sha, path in out.blobs:
        for number, line in enumerate(texts[sha].decode("utf-8", "surrogateescape").split("\n"), start=1):
            if line.strip() and line not in known.get(path, ()):
                places.setdefault(line, (path, number))
    found = _first_secret(places)
    if found is not None:
        return found
    for sha, message in out.commits:
        hits = secret_scan.scan_added(None, message)
        if hits:
            return Leak("the message", hits[0].line, f"a credential ({hits[0].rule})", sha)
    return None


def _first_secret(places: dict[str, tuple[str, int]]) -> Leak | None:
    """The first new line holding a credential, where it is; one scan of all of them (each distinct line once)."""
    lines = list(places)
    hits = secret_scan.scan_added(None, "\n".join(lines)) if lines else []
    if not hits:
        return None
    path, number = places[lines[hits[0].line - 1]]
    return Leak(path, number, f"a credential ({hits[0].rule})")


def _remote_lines(store: GitStore, remote_tip: str | None, paths: set[str]) -> dict[str, set[str]]:
    """The lines the remote already holds in each of `paths` (they are not leaving: they are there)."""
    if remote_tip is None:
        return {}
    there = store.tree_paths(remote_tip)
    wanted = {path: there[path] for path in paths if path in there}
    texts = store.blobs(list(wanted.values()))
    return {path: set(texts[sha].decode("utf-8", "surrogateescape").split("\n")) for path, sha in wanted.items()}


_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")


def tracked(path: str) -> bool:
    """A path nanodream tracks (and so syncs): a memory file, the archive, insights, skills, settings, prompts —
    spelled plainly, every part of it (no `..`, no hidden part: a tree made with plain git can hold anything, and a
    sync writes these files itself)."""
    if path == ".gitignore":
        return True
    if not all(_PART.match(part) for part in path.split("/")):
        return False
    return any(path == pattern if not pattern.endswith("/") else path.startswith(pattern)
               for pattern in TRACKED_PATTERNS)
