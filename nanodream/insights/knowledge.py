"""The whole knowledge base connect may search and cite, read once per run: memory lines, the archive, skills
and consumed history by session — each searched on its own, as `search_knowledge(query, where)` offers them.

Lines are the ones recall indexes (retrieval/documents.py: no headings, code or boilerplate), cited by their
text without bullet, pin or HTML-comment markers. History comes from the index (history_index.py), never from
reading history.jsonl through. `fresh` is what this run itself brought (lines it added, sessions it consumed):
an insight must cite something older.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Literal, get_args

from nanodream.insights.history_index import HistoryIndex, Session, shown
from nanodream.insights.refs import Ref, RefInvalid, line_ref, parse_ref, superseded
from nanodream.insights.terms import Rarity, named, terms
from nanodream.retrieval.documents import Document, collect, sources
from nanodream.validity import fact_of
from nanodream.versioning.gitstore import GitStore, UnknownCommit
from nanodream.workspace import ARCHIVE_DIR, CORE_FILES, Workspace

Where = Literal["memory", "archive", "skills", "history"]  # the parts of the knowledge base, searched apart
WHERE: tuple[str, ...] = get_args(Where)
PROMOTED = "insight:"  # the session key of the history entry a promoted insight appends
_COMMENT = re.compile(r"<!--.*?-->")
_ARCHIVED = re.compile(r"\(archived (\d{4}-\d{2}-\d{2})\)")


def canonical(text: str) -> str:
    """A line's text as refs cite it: without HTML-comment markers, spaces collapsed."""
    return " ".join(_COMMENT.sub(" ", text).split())


@dataclass(frozen=True)
class Item:
    """One thing that may be cited: its ref, where it lives (memory | archive | skills | history), what it says."""

    ref: str
    where: str
    text: str
    terms: frozenset[str]
    day: date | None = None  # when it was archived, said, or (an active line, a skill) last committed
    source: str = ""  # the file, skill or session it belongs to
    held_names: frozenset[str] | None = None  # a session's names, from the index; a line's are read when asked

    @property
    def names(self) -> frozenset[str]:
        """Of its terms, those that name a thing (terms.named): read only for the items a pair is scored for."""
        if self.held_names is not None:
            return self.held_names
        return named(superseded(self.text)[0] if self.where != "skills" else self.text.split(": ", 1)[-1])


@dataclass(frozen=True)
class Resolution:
    """Whether a ref names something that exists: `ref` is where it is now (a line that moved to the archive is
    cited there), `problem` why it does not resolve, `replaced_by` set when a correction superseded the line."""

    ref: str
    problem: str = ""
    superseded: bool = False
    replaced_by: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem


@dataclass
class Knowledge:
    workspace: Workspace
    items: dict[str, list[Item]]  # where → items
    history: HistoryIndex
    fresh: frozenset[str] = frozenset()  # refs of what this run brought
    sessions: dict[str, Session] = field(default_factory=dict)
    _rarity: dict[str, Rarity] = field(default_factory=dict, repr=False)
    _lines: dict[str, list[Item]] | None = field(default=None, repr=False)

    @classmethod
    def read(cls, workspace: Workspace, history: HistoryIndex, fresh: Iterable[str] = ()) -> Knowledge:
        items: dict[str, list[Item]] = {where: [] for where in WHERE}
        dated = _Dates(GitStore(workspace))
        for document in collect(workspace, sources(workspace)):
            item = _item(document.file, document.text, document.heading)
            if item is not None:
                items[item.where].append(replace(item, day=item.day or dated.day_of(document)))
        sessions = history.sessions()
        items["history"] = _sessions(sessions)
        return cls(workspace, items, history, frozenset(fresh), sessions)

    def everything(self) -> list[Item]:
        return [item for where in WHERE for item in self.items[where]]

    def rarity(self, where: str = "") -> Rarity:
        """How rare each term is among the items of `where` ('' for the whole knowledge base), counted once."""
        if where not in self._rarity:
            found = self.items[where] if where else self.everything()
            self._rarity[where] = Rarity(item.terms for item in found)
        return self._rarity[where]

    def search(self, query: str, where: str, k: int) -> list[tuple[Item, float]]:
        """The `k` items of `where` that best share the query's terms, best first (ties keep file order)."""
        wanted = terms(query)
        rarity = self.rarity(where)
        scored = [(item, rarity.score(wanted, item.terms)) for item in self.items[where]]
        ranked = sorted((pair for pair in scored if pair[1] > 0), key=lambda pair: -pair[1])
        return ranked[:k]

    def said(self, item: Item, query: str = "") -> str:
        """What an item says, as a search shows it; for a session, its entry that best matches `query`."""
        if item.where != "history":
            return item.text
        session = self.sessions.get(item.source)
        entries = session.recent if session is not None else []
        wanted = terms(query)
        best = max(entries, key=lambda e: len(wanted & set(e.terms)), default=None)
        return shown(self.workspace, best) if best is not None else ""

    def is_fresh(self, ref: str) -> bool:
        """Whether `ref` cites what this run brought (a commit by any prefix of its sha)."""
        if ref in self.fresh:
            return True
        return ref.startswith("commit:") and any(other.startswith(ref) for other in self.fresh)

    # resolving refs ---------------------------------------------------------------------------------------

    def resolve(self, ref: str) -> Resolution:
        try:
            parsed = parse_ref(ref)
        except RefInvalid as exc:
            return Resolution(ref, str(exc))
        if parsed.kind == "line":
            return self._line(parsed)
        if parsed.kind == "skill":
            known = any(item.source == parsed.target for item in self.items["skills"])
            return Resolution(ref, "" if known else f"there is no skill {parsed.target!r}")
        if parsed.kind == "session":
            known = parsed.target in self.sessions
            return Resolution(ref, "" if known else f"no consumed history entry has session key {parsed.target!r}")
        return self._commit(parsed)

    def _line(self, ref: Ref) -> Resolution:
        cited = superseded(canonical(ref.target))[0]
        found = self._by_text().get(cited) or self._by_text().get(fact_of(cited), [])
        if not found:
            return Resolution(ref.spelled(), f"no line of memory or the archive reads {ref.target!r} (forgotten, "
                                             "restored away or reworded)")
        here = [item for item in found if item.source == ref.file] or found
        plain = [item for item in here if superseded(item.text)[1] is None]
        item = (plain or here)[0]
        mark = superseded(item.text)[1]
        if mark is not None and not plain:
            return Resolution(item.ref, superseded=True, replaced_by=mark.replaced_by)
        return Resolution(item.ref)

    def _by_text(self) -> dict[str, list[Item]]:
        """Memory and archive lines by their text without a superseded mark, built on the first resolve."""
        if self._lines is None:
            self._lines = {}
            for item in self.items["memory"] + self.items["archive"]:
                self._lines.setdefault(superseded(item.text)[0], []).append(item)
        return self._lines

    def _commit(self, ref: Ref) -> Resolution:
        try:
            sha = GitStore(self.workspace).resolve_commit(ref.target)
        except UnknownCommit as exc:
            return Resolution(ref.spelled(), str(exc))
        return Resolution(ref.spelled()) if sha else Resolution(ref.spelled(), "not a commit")


@dataclass
class _Dates:
    """When an active line or a skill was last committed (git blame, one per core file; one `git log` for the
    skills): what dates material the archive's headings do not, so exploring reaches old active lines too."""

    store: GitStore
    lines: dict[str, list[int | None]] = field(default_factory=dict)
    skills: dict[str, int] | None = None

    def day_of(self, document: Document) -> date | None:
        if document.file in CORE_FILES:
            if document.file not in self.lines:
                self.lines[document.file] = self.store.line_times(document.file) or [] if self.store.exists else []
            times = self.lines[document.file]
            return _utc_day(times[document.line - 1] if document.line <= len(times) else None)
        if document.file.startswith("skills/"):
            if self.skills is None:
                self.skills = self.store.last_change_times("skills/") if self.store.exists else {}
            return _utc_day(self.skills.get(document.file))
        return None


def _utc_day(epoch: int | None) -> date | None:
    return datetime.fromtimestamp(epoch, UTC).date() if epoch is not None else None


def _item(file: str, text: str, heading: str) -> Item | None:
    if file in CORE_FILES or file.startswith(f"{ARCHIVE_DIR}/"):
        cited = canonical(text)
        if not cited:
            return None
        where = "memory" if file in CORE_FILES else "archive"
        return Item(line_ref(file, cited), where, cited, terms(superseded(cited)[0]), _archived(heading), file)
    name = file.split("/")[1]
    return Item(f"skill:{name}", "skills", f"{name}: {text}", terms(f"{name.replace('-', ' ')} {text}"), None, name)


@lru_cache(maxsize=1024)
def _archived(heading: str) -> date | None:
    """The day a line was archived, from its section's heading ("Project (archived 2026-03-04)")."""
    found = _ARCHIVED.search(heading)
    return _day(found.group(1)) if found else None


def _sessions(sessions: dict[str, Session]) -> list[Item]:
    """A session is one item; a promoted insight's own entry (`insight:<name>`) is not material to connect."""
    return [Item(f"session:{key}", "history", key, frozenset(session.terms), _day(session.day) if session.day else None,
                 key, frozenset(session.names)) for key, session in sessions.items() if not key.startswith(PROMOTED)]


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None
