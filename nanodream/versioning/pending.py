"""The review lane's proposals: one chain of commits on refs/nanodream/pending, never on the checked-out branch.

A review run commits its dream here instead of to the files: each proposal is a commit on top of the
previous one (or of HEAD), with the usual dream message and trailers, built from object ids only, so the
branch, the index and the files stay exactly as they were. Accepting or rejecting one rebuilds the rest of
the chain on the new base; a proposal that no longer applies stays in the chain as an empty commit that
says why (`Dream-Conflict:`) and keeps the original as a second parent, so its diff is never lost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nanodream.versioning.gitstore import GitStore, MemoryCommit, UnknownCommit
from nanodream.versioning.linerevert import revert_lines
from nanodream.vocab import Declared, Shape, Trailer

PENDING_REF = "refs/nanodream/pending"
CONFLICT = Trailer.CONFLICT


@dataclass
class Proposal(Declared):
    """One pending proposal as `review --json` shows it (docs/json.md)."""

    json_shape = Shape(hidden=("sha", "source"))

    id: str
    sha: str
    run_id: str | None
    time: str
    summary: str
    files: list[dict[str, Any]]
    state: str  # pending | conflicted
    reason: str = ""
    held: str = ""  # what a run held back for a person, and why (run/holds.py); "" for an ordinary proposal
    source: str = field(default="", repr=False)  # the commit whose diff is the proposal (itself, or the original)


Change = dict[str, tuple[bytes | None, bytes | None]]  # path → (before, after)


def proposals(store: GitStore) -> list[Proposal]:
    """The pending proposals, oldest first."""
    return [_proposal(store, store.commit_info(sha)) for sha in store.chain(PENDING_REF)]


def find(store: GitStore, ref: str) -> Proposal:
    """The proposal whose short sha or run id is `ref`; UnknownCommit when none is."""
    ref = ref.strip()
    found = [p for p in proposals(store) if ref and (p.sha.startswith(ref.lower()) or p.run_id == ref)]
    if len(found) > 1:
        raise UnknownCommit(f"{ref!r} names {len(found)} proposals; give more of the id")
    if not found:
        raise UnknownCommit(f"no pending proposal {ref!r}; `nanodream review` lists them")
    return found[0]


def tip(store: GitStore) -> str | None:
    """Where the next proposal goes on top of: the chain's newest commit, else None (start from HEAD)."""
    return store.ref_sha(PENDING_REF) if store.chain(PENDING_REF) else None


def pending_view(store: GitStore, only: str | None = None) -> dict[str, str | None]:
    """Memory files as the last commit plus every pending proposal has them (`only`: that one file).

    Uncommitted hand edits are not part of it: they stay the person's, out of any proposal.
    """
    top = tip(store) or store.head_sha()
    if top is None:
        return {}
    paths = {only} if only else set(store.workspace.memory_paths()) | set(store.changed_paths("HEAD", top))
    view = {}
    for path in sorted(paths):
        data = store.file_at(top, path)
        view[path] = None if data is None else data.decode("utf-8", "replace")
    return view


def propose(store: GitStore, files: dict[str, bytes | None], message: str) -> str:
    """Add a proposal on top of the chain (or of HEAD); the branch, index and files are untouched."""
    return store.commit_on_ref(PENDING_REF, tip(store) or store.head_sha() or "HEAD", files, message)


def propose_change(store: GitStore, change: Change, message: str) -> str | None:
    """Add a proposal of `change` (path → (before, after)) laid on the chain's tip: the tip's files with what the
    change adds, whatever the proposals before it changed there. A line that no longer fits goes at the end.

    None when the tip already holds every line it adds (the same batch proposed again after a failed commit).
    """
    base = tip(store) or store.head_sha() or "HEAD"
    files: dict[str, bytes | None] = {}
    for path, (old, new) in change.items():
        current = store.file_at(base, path)
        if not set(_added(old, new)) - set((current or b"").splitlines()):
            continue
        done, conflicts = merged({path: current}, {path: (old, new)})
        files[path] = _appended(current, old, new) if conflicts else done.get(path, current)
    return store.commit_on_ref(PENDING_REF, base, files, message) if files else None


def _added(old: bytes | None, new: bytes | None) -> list[bytes]:
    had = set((old or b"").splitlines())
    return [line for line in (new or b"").splitlines() if line not in had]


def _appended(current: bytes | None, old: bytes | None, new: bytes | None) -> bytes | None:
    """`current` with the lines `new` has and `old` had not, at its end."""
    added = [line + b"\n" for line in _added(old, new)]
    text = current or b""
    if text and not text.endswith(b"\n"):
        text += b"\n"
    return text + b"".join(added)


def change_of(store: GitStore, proposal: Proposal, only: str | None = None) -> Change:
    """What the proposal changes, file by file (`only`: that one file)."""
    parent = store.commit_info(proposal.source).parents[0]
    paths = store.changed_paths(parent, proposal.source)
    return {p: (store.file_at(parent, p), store.file_at(proposal.source, p)) for p in paths if only in (None, p)}


def merged(current: dict[str, bytes | None], change: Change) -> tuple[dict[str, bytes | None], list[str]]:
    """`change` applied onto `current` (path → bytes now), keeping what changed since; conflicts named."""
    result, conflicts = {}, []
    for path, (old, new) in sorted(change.items()):
        ours = current.get(path)
        if ours == old:
            result[path] = new
        elif ours == new:
            continue
        elif None in (ours, old, new):
            conflicts.append(f"{path}: {'deleted' if ours is None else 'changed'} since the proposal was made")
        else:
            done = revert_lines(ours, old, new)  # undoing new→old is applying old→new
            if done.result is None:
                conflicts.append(f"{path}: " + "; ".join(done.conflicts).replace("edited since", "changed since"))
            else:
                result[path] = done.result
    return result, conflicts


def rebuild(store: GitStore, keep: list[tuple[Proposal, Change]]) -> None:
    """Lay `keep` (proposals and the part of each still wanted) again on HEAD, in order; conflicts kept, marked."""
    base = store.head_sha() or "HEAD"
    store.set_ref(PENDING_REF, None)
    for proposal, change in keep:
        if not change:
            continue
        current = {path: store.file_at(base, path) for path in change}
        files, conflicts = merged(current, change)
        message = without_conflict(store.commit_info(proposal.sha).message)
        if conflicts:
            message = message.rstrip("\n") + f"\n{CONFLICT}: " + "; ".join(conflicts) + "\n"
            base = store.commit_on_ref(PENDING_REF, base, {}, message, extra_parent=proposal.source)
        else:
            base = store.commit_on_ref(PENDING_REF, base, files, message)


def restack(store: GitStore) -> bool:
    """Lay the chain again on HEAD when the branch moved since it was built (hand edits, accepted proposals)."""
    chain = proposals(store)
    if not chain or store.commit_info(chain[0].sha).parents[0] == store.head_sha():
        return False
    rebuild(store, [(p, change_of(store, p)) for p in chain])
    return True


def _proposal(store: GitStore, commit: MemoryCommit) -> Proposal:
    reason = _trailer(commit.message, CONFLICT)
    source = commit.parents[1] if reason and len(commit.parents) > 1 else commit.sha
    stats = commit.files if source == commit.sha else store.commit_info(source).files
    return Proposal(id=commit.sha[:8], sha=commit.sha, run_id=commit.trailers.get(Trailer.RUN), time=commit.time,
                    summary=commit.subject.removeprefix("dream: "),
                    files=[{"path": f.path, "added": f.added, "removed": f.removed} for f in stats],
                    state="conflicted" if reason else "pending", reason=reason, source=source,
                    held=_trailer(commit.message, Trailer.HELD))


def _trailer(message: str, name: str) -> str:
    """A trailer the Trailer vocabulary does not list (the review lane's own), "" when absent."""
    last = message.strip().split("\n\n")[-1]
    return next((line.split(": ", 1)[1] for line in last.splitlines() if line.startswith(f"{name}: ")), "")


def without_conflict(message: str) -> str:
    return "\n".join(line for line in message.split("\n") if not line.startswith(f"{CONFLICT}: "))


def accepted_message(proposal: Proposal, message: str) -> str:
    """The proposal's message as it lands on the branch: marked accepted, so it never counts as progress.

    The history position moved when the proposal was made; a later replay must not be undone by it.
    """
    return without_conflict(message).rstrip("\n") + f"\n{Trailer.ACCEPTED}: {proposal.sha}\n"
