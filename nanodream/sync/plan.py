"""What a sync will do, worked out before anything moves: the two tips, the merge, and the commit it lands.

Everything here happens in the sync's quarantine (versioning/objects.py): the person's hand edits become a commit
of theirs, the merge a commit of nanodream's with both tips as parents — objects only, no ref moves — so a sync
that stops here (a dry run, an unreachable remote, a secret) has changed nothing anywhere.

- The remote is empty, or behind: nothing to merge; this machine's memory is pushed.
- This machine is behind: the remote's memory arrives through the guards; when they took nothing out, HEAD simply
  moves to the remote's commit (no new commit, so two machines never trade empty merges), else a commit on top
  says what was left out, and is pushed.
- Both moved on: the three versions (base: the commit both share, none for unrelated histories) are merged file
  by file (versioning/merge.py) into one commit with two parents, which lands here and is pushed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nanodream import clock
from nanodream.atomic import read_bytes
from nanodream.changes import FileChange
from nanodream.engines.facts import is_change, replaced_by
from nanodream.memory import archive
from nanodream.sync.arrivals import tracked
from nanodream.sync.dates import CommitDates
from nanodream.validity import replaced_line
from nanodream.versioning.commitmsg import manual_message, sync_message
from nanodream.versioning.gitstore import GitStore
from nanodream.versioning.merge import Guard, Merged, merge_file, uncrossed
from nanodream.versioning.remote import Remote, is_ancestor, merge_base
from nanodream.vocab import Trailer

Texts = dict[str, str | None]


@dataclass
class Plan:
    """The sync, worked out: where HEAD goes, what the remote's branch becomes, and what the merge decided."""

    head: str | None  # HEAD before the sync
    ours: str | None  # this machine's tip: HEAD, or the person's hand edits committed on it
    theirs: str | None  # the remote's tip (None: an empty remote)
    target: str | None = None  # the commit HEAD moves to (None: it stays)
    push: str | None = None  # the commit the remote's branch moves to (None: no push)
    landing: list[FileChange] = field(default_factory=list)  # this machine's files: now -> after
    pushing: list[FileChange] = field(default_factory=list)  # the remote's files: now -> after the push
    proposals: list[dict[str, Any]] = field(default_factory=list)  # laid once it lands (memory/journal.py)
    archived: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    hand_edits: list[str] = field(default_factory=list)

    @property
    def merges(self) -> bool:
        """The remote's commits become part of this machine's history."""
        return self.theirs is not None and self.target is not None and self.target != self.ours


def plan(store: GitStore, remote: Remote, theirs: str | None, guard: Guard) -> Plan:
    """Work out the sync of this workspace (`store`: in the sync's quarantine) with the remote at `theirs`."""
    head = store.head_sha()
    dirty = store.dirty_paths()
    ours = head
    if dirty:  # the person's edits: their own commit, as the door makes it, but only an object for now
        files = {path: _disk(store, path) for path in dirty}
        ours = store.build_commit(head, files, manual_message(dirty, synced=True), [head] if head else [],
                                  store.user_identity())
    found = Plan(head, ours, theirs, hand_edits=list(dirty))
    if theirs is None or theirs == ours or (ours is not None and is_ancestor(store, theirs, ours)):
        found.target = ours if ours != head else None
        found.push = ours if ours is not None and ours != theirs else None
    else:
        _merge(store, remote, found, guard)
    _changes(store, found)
    return found


def _merge(store: GitStore, remote: Remote, found: Plan, guard: Guard) -> None:
    ours, theirs = found.ours, found.theirs
    assert theirs is not None
    behind = ours is None or is_ancestor(store, ours, theirs)
    base = ours if ours is None or behind else merge_base(store, ours, theirs)
    versions = _versions(store, base, ours, theirs)
    dates = CommitDates(store, base, ours, theirs)
    linked = [path for path in versions if _through_link(store, path)]
    results = [uncrossed(merge_file(path, *sides, dates, guard), *sides, dates, correction_replaces)
               for path, sides in sorted(versions.items()) if path not in linked]
    after = {result.path: result.text for result in results}
    after.update({path: versions[path][2] for path in linked})  # a shared skill here: the remote keeps its own
    found.notes += [f"{path}: a linked skill on this machine, left as it is here" for path in linked]
    after.update(_archive(store, found, results, ours or theirs, after))
    _decisions(found, results, remote)
    start = ours or theirs
    files = _differing(store, start, after)
    if behind and not _differing(store, theirs, after) and not found.proposals:
        found.target = theirs  # nothing left out, nothing decided: simply the remote's commit
        return
    parents = [ours, theirs] if ours else [theirs]
    message = sync_message(remote.name, remote.branch, theirs, _file_changes(store, start, files),
                           found.notes + found.archived)
    found.target = found.push = store.build_commit(start, _encoded(files), message, parents)


def correction_replaces(correction: str, lines: list[str], path: str) -> int | None:
    """Which of `lines` of `path` a line stated as a change ("now …", "no longer …") replaces by its subject and
    scope: the rule a dream follows (engines/facts.py), so a correction learned on one machine while the other
    learned the old value replaces it in the merge."""
    return replaced_by(correction.lstrip("-*+ ").strip(), lines, path=path) if is_change(correction) else None


def _versions(store: GitStore, base: str | None, ours: str | None,
              theirs: str) -> dict[str, tuple[str | None, str | None, str | None]]:
    """(base, ours, theirs) text of every tracked path that differs between the two tips."""
    trees = [store.tree_paths(rev) if rev else {} for rev in (base, ours, theirs)]
    paths = sorted(path for path in set(trees[1]) | set(trees[2])
                   if tracked(path) and trees[1].get(path) != trees[2].get(path))
    wanted = {tree[path] for tree in trees for path in paths if path in tree}
    blobs = store.blobs(sorted(wanted))
    base, ours_tree, theirs_tree = trees
    return {path: (_text(blobs, base.get(path)), _text(blobs, ours_tree.get(path)), _text(blobs, theirs_tree.get(path)))
            for path in paths}


def _archive(store: GitStore, found: Plan, results: list[Merged], start: str | None, after: Texts) -> Texts:
    """The older values of lines changed on both sides, into this month's archive as replaced."""
    replaced = [item for result in results for item in result.replaced]
    if not replaced:
        return {}
    day = clock.today()
    path = archive.archive_file(day)
    text = after[path] if path in after else _decoded(store.file_at(start, path) if start else None)
    moved = [(archive.section_of(after.get(item.path), item.new), replaced_line(item.old, item.until, item.new))
             for item in replaced]
    found.archived += [f"{item.path}: {item.old.strip()!r} archived until {item.until}, replaced by "
                       f"{item.new.strip()!r}" for item in replaced]
    return {path: archive.appended(text, day, moved)}


def _decisions(found: Plan, results: list[Merged], remote: Remote) -> None:
    """What waits for a person, and what was left out, from each file's merge."""
    for result in results:
        found.notes += result.notes
        for undecided in result.undecided:
            other = (result.text or "").replace(undecided.kept, undecided.other, 1)
            why = "the newer value stays" if undecided.decided else "which is newer cannot be told"
            found.proposals.append(_proposal(result.path, result.text, other,
                                             f"sync: {result.path} changed on both sides ({why})",
                                             f"Active: {undecided.kept.strip()}\nProposed: {undecided.other.strip()}"))
        if result.proposal is not None:
            found.proposals.append(_proposal(result.path, result.text, result.proposal,
                                             f"sync: {result.path} as the other side has it",
                                             "Both sides changed it; this is the version that did not stay."))
        waiting = [held for held in result.held if held.waits]
        for held in result.held:
            shown = f"{held.path}: {held.line.strip()[:120]!r} from {remote.name} ({held.reason})"
            (found.held if held.waits else found.left_out).append(shown)
        if waiting:
            text = (result.text or "").rstrip("\n")
            proposed = "\n".join([text, *(held.line for held in waiting)]) + "\n"
            trailer = "; ".join(f"{held.path}: {held.reason}" for held in waiting)
            found.proposals.append(_proposal(result.path, result.text, proposed,
                                             f"held back for review: {result.path} lines from {remote.name}",
                                             "\n".join(f"- {held.line.strip()}" for held in waiting),
                                             trailer))


def _proposal(path: str, before: str | None, after: str | None, subject: str, body: str,
              held: str = "") -> dict[str, Any]:
    trailers = f"{Trailer.KIND}: dream" + (f"\n{Trailer.HELD}: {held}" if held else "")
    return {"files": {path: [before, after]}, "message": f"{subject}\n\n{body}\n\n{trailers}\n"}


def _changes(store: GitStore, found: Plan) -> None:
    """How this machine's files and the remote's would change (a linked skill here is never written through)."""
    if found.target is not None and found.target != found.ours:
        found.landing = [change for change in _between(store, found.ours, found.target)
                         if not _through_link(store, change.path)]
    if found.push is not None:
        found.pushing = _between(store, found.theirs, found.push)


def _between(store: GitStore, old: str | None, new: str) -> list[FileChange]:
    """The tracked files two commits differ in, each as a change (one `ls-tree` each, one `cat-file`)."""
    before = {p: b for p, b in (store.tree_paths(old) if old else {}).items() if tracked(p)}
    after = {p: b for p, b in store.tree_paths(new).items() if tracked(p)}
    paths = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
    blobs = store.blobs(sorted({tree[p] for tree in (before, after) for p in paths if p in tree}))
    return [FileChange(p, _text(blobs, before.get(p)), _text(blobs, after.get(p))) for p in paths]


def _through_link(store: GitStore, path: str) -> bool:
    """A path that reaches, on this machine, a skill shared through a symbolic link (nanodream leaves it alone)."""
    return any(path == linked or path.startswith(f"{linked}/") for linked in store.workspace.linked_skills())


def _differing(store: GitStore, rev: str | None, after: Texts) -> Texts:
    """The files of `after` whose text differs from `rev`'s."""
    tree = store.tree_paths(rev) if rev else {}
    blobs = store.blobs(sorted({tree[p] for p in after if p in tree}))
    return {p: text for p, text in after.items() if _text(blobs, tree.get(p)) != text}


def _file_changes(store: GitStore, rev: str | None, files: Texts) -> list[FileChange]:
    return [FileChange(p, _decoded(store.file_at(rev, p)) if rev else None, text) for p, text in sorted(files.items())]


def _encoded(files: Texts) -> dict[str, bytes | None]:
    return {p: None if text is None else text.encode("utf-8", "surrogateescape") for p, text in files.items()}


def _text(blobs: dict[str, bytes], blob: str | None) -> str | None:
    return None if blob is None else blobs[blob].decode("utf-8", "surrogateescape")


def _decoded(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "surrogateescape")


def _disk(store: GitStore, path: str) -> bytes | None:
    try:
        return read_bytes(store.workspace.root / path)
    except OSError:  # removed by hand (or reached through a link, which nanodream never follows)
        return None
