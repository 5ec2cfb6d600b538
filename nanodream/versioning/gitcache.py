"""What git already answered in this process, kept while the files that decide the answer are unchanged.

A batch asks the same questions again and again — which commit HEAD is, which memory paths the index tracks, when
each line of a file last changed — and each answer used to cost a git process. Here each answer is kept with a
stamp (inode, modification time in nanoseconds, size) of the repository files it depends on: `.git/HEAD`, the
branch's ref file, `packed-refs`, the reftable list, the index, the working file. git replaces those files by
renaming a new one into place, so any change gives a new stamp and the next question goes to git again; a
repository laid out otherwise (`.git` as a file, a ref that cannot be read) is never cached. Answers about
commits by id (a commit's tree, the paths two commits differ in) never change and need no stamp.

Two things need no git at all: HEAD's commit when `.git/HEAD` and the branch's ref file name it plainly, and the
private index a commit was built in, kept (`scratch_index`) so the next commit on top of it skips `read-tree`.
Answers about commits by id that a later run asks again — blames, the skills' change times, the last progress
commit — and that private index outlive the process in versioning/gitmemo.py (`lasting`).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TypeVar

from nanodream.versioning import gitmemo

T = TypeVar("T")
Stamp = tuple[object, ...]

_ANSWERS: dict[tuple[str, ...], tuple[Stamp, object]] = {}
_FIXED: dict[tuple[str, ...], object] = {}
_MAX_ANSWERS = 4096
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_SCRATCH: dict[str, tuple[str, TemporaryDirectory[str]]] = {}  # root -> (commit, folder whose index holds its tree)


def file_stamp(path: Path) -> tuple[int, int, int] | None:
    """(inode, mtime in ns, size) of `path`, None when it does not exist."""
    try:
        found = os.stat(path, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return found.st_ino, found.st_mtime_ns, found.st_size


def bytes_digest(data: bytes) -> str:
    """A hash of a file's bytes: the exact key for an answer about its content."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def files_stamp(root: Path, patterns: list[str]) -> Stamp:
    """Every file and folder under `patterns` (`:(exclude)` ones skipped) by path, inode, mode, size and both
    times, links not followed: any write, new file or removal gives another stamp."""
    found: list[tuple[object, ...]] = []
    folders = []
    for pattern in patterns:
        if pattern.startswith(":"):
            continue
        path = str(root / pattern.rstrip("/"))
        try:
            info = os.lstat(path)
        except OSError:
            found.append((path,))
            continue
        found.append((path, info.st_ino, info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
        if stat.S_ISDIR(info.st_mode):
            folders.append(path)
    while folders:
        try:
            entries = sorted(os.scandir(folders.pop()), key=lambda entry: entry.path)
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found.append((entry.path, info.st_ino, info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
            if stat.S_ISDIR(info.st_mode):
                folders.append(entry.path)
    return tuple(found)


def head_stamp(root: Path) -> Stamp | None:
    """What HEAD's commit depends on, or None when it cannot be told from the files (then nothing is cached).

    The texts of `.git/HEAD` and of the branch's ref file, not their times: a ref rewritten within one tick of the
    file system's clock is still told apart. A branch only in `packed-refs` is stamped by that file; a reftable
    repository is never cached."""
    git = root / ".git"
    try:
        head = (git / "HEAD").read_bytes()
    except OSError:
        return None
    if (git / "reftable").exists():
        return None
    ref_text: bytes | None = None
    if head.startswith(b"ref: "):
        ref = head[len(b"ref: "):].decode("utf-8", "replace").strip()
        if not ref.startswith("refs/") or ".." in ref.split("/"):
            return None
        try:
            ref_text = (git / ref).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            ref_text = None
        except OSError:
            return None
    return head, ref_text, file_stamp(git / "packed-refs")


def unborn(stamp: Stamp | None) -> bool:
    """HEAD names a branch that has no commit yet: no ref file and no `packed-refs` (a fresh `git init`)."""
    return (stamp is not None and isinstance(stamp[0], bytes) and stamp[0].startswith(b"ref: ")
            and stamp[1] is None and stamp[2] is None)


def head_in_files(stamp: Stamp | None) -> str | None:
    """HEAD's commit read from the stamp's own texts (`.git/HEAD`, the branch's ref file) when they name it plainly;
    None when only git can tell (a branch in packed-refs only, a symbolic chain, no commit yet)."""
    if stamp is None:
        return None
    head, ref_text = stamp[0], stamp[1]
    text = ref_text if isinstance(head, bytes) and head.startswith(b"ref: ") else head
    if not isinstance(text, bytes):
        return None
    value = text.strip().decode("ascii", "replace")
    return value if _SHA.fullmatch(value) else None


def index_file_stamp(root: Path) -> tuple[int, int, int, int] | None:
    """(inode, size, mtime, ctime in ns) of the person's index, None without one: git replaces the file by renaming
    a new one into place, and nobody sets a ctime back, so the stamp holds across processes."""
    try:
        found = os.stat(root / ".git" / "index", follow_symlinks=False)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def index_stamp(root: Path) -> Stamp | None:
    """What the person's index says, with HEAD (an answer about tracked paths may depend on both)."""
    head = head_stamp(root)
    return None if head is None else (*head, file_stamp(root / ".git" / "index"))


def kept(key: tuple[str, ...], stamp: Stamp | None, ask: Callable[[], T]) -> T:
    """The answer kept for `key` while `stamp` is unchanged; else `ask()` (kept with it when `stamp` is known)."""
    if stamp is not None:
        found = _ANSWERS.get(key)
        if found is not None and found[0] == stamp:
            return found[1]  # type: ignore[return-value]
    answer = ask()
    if stamp is not None:
        if len(_ANSWERS) >= _MAX_ANSWERS:
            _ANSWERS.clear()
        _ANSWERS[key] = (stamp, answer)
    return answer


def lasting(key: tuple[str, str, str], stamp: Stamp, ask: Callable[[], T], valid: Callable[[object], bool],
            ) -> T:
    """`kept` across processes (key: kind, root, path) for a stamp that holds across them — a commit id first, or
    an index file's with its ctime: an earlier run's answer (when `valid` takes it) before git, and git's answer
    kept for the next run."""
    found = _ANSWERS.get(key)
    if found is not None and found[0] == stamp:
        return found[1]  # type: ignore[return-value]
    kind, root, path = key
    known, answer = gitmemo.recall(Path(root), (kind, path), stamp)
    if not (known and valid(answer)):
        answer = ask()
        gitmemo.keep(Path(root), {(kind, path): (stamp, answer)})
    _ANSWERS[key] = (stamp, answer)
    return answer  # type: ignore[return-value]


def peek(key: tuple[str, ...], stamp: Stamp | None) -> tuple[bool, object]:
    """(True, answer) when an answer is kept for `key` under `stamp`, without asking anything."""
    found = _ANSWERS.get(key)
    return (True, found[1]) if stamp is not None and found is not None and found[0] == stamp else (False, None)


def at_commit(root: Path, kind: str, commit: str) -> dict[str, tuple[Stamp, object]]:
    """path → (stamp, answer) of every answer of `kind` about `root` kept at `commit` (stamps starting with it)."""
    return {key[2]: found for key, found in _ANSWERS.items()
            if len(key) == 3 and key[0] == kind and key[1] == str(root) and found[0] and found[0][0] == commit}


def persist(root: Path, commit: str, kinds: tuple[str, ...], also: tuple[tuple[str, str, str], ...] = ()) -> None:
    """Hand every answer of `kinds` kept at `commit`, and the answers kept for the keys `also`, to the next process
    (versioning/gitmemo.py), in one write."""
    answers = {(kind, path): found for kind in kinds for path, found in at_commit(root, kind, commit).items()}
    answers.update({(key[0], key[2]): _ANSWERS[key] for key in also if key in _ANSWERS})
    gitmemo.keep(root, answers)


def fixed(key: tuple[str, ...], ask: Callable[[], T]) -> T:
    """An answer that never changes (about commits by id), asked once."""
    if key not in _FIXED:
        if len(_FIXED) >= _MAX_ANSWERS:
            _FIXED.clear()
        _FIXED[key] = ask()
    return _FIXED[key]  # type: ignore[return-value]


def fixed_answer(key: tuple[str, ...]) -> tuple[bool, object]:
    """(True, answer) when a fixed answer is kept for `key` (see `fixed`), without asking anything."""
    return (True, _FIXED[key]) if key in _FIXED else (False, None)


def moved(key: tuple[str, ...], stamp: Stamp | None, sha: str) -> None:
    """HEAD was just moved to `sha` by this process: kept as the answer when the ref file says so."""
    ref_text = stamp[1] if stamp is not None else None
    if isinstance(ref_text, bytes) and ref_text.strip() == sha.encode():
        _ANSWERS[key] = (stamp, sha)


# Kinds of lasting answer about HEAD's commit itself (its message, the newest dream): a new commit always changes them.
ABOUT_HEAD = frozenset({"message", "newest"})


def carried(root: Path, parent: str, new: str, changed: list[str]) -> None:
    """A commit from `parent` to `new` that changed only `changed`: answers kept about paths it left alone at
    `parent` (keys `(kind, root, path)`, stamps that start with the commit) hold at `new` as well. A key's path
    ending in "/" is a folder: any changed path under it ends the answer."""
    for key, (stamp, answer) in list(_ANSWERS.items()):
        if len(key) != 3 or key[1] != str(root) or not stamp or stamp[0] != parent or key[0] in ABOUT_HEAD:
            continue
        path = key[2]
        touched = any(p.startswith(path) for p in changed) if path.endswith("/") else path in changed
        if not touched:
            _ANSWERS[key] = ((new, *stamp[1:]), answer)


def remember_kept(key: tuple[str, ...], stamp: Stamp | None, answer: object) -> None:
    """Keep an answer this process knows holds under `stamp` (it made the change itself); nothing without one."""
    if stamp is not None:
        _ANSWERS[key] = (stamp, answer)


def remember(key: tuple[str, ...], answer: object) -> None:
    """Keep an answer about commits by id learned another way (a commit's tree, from building it)."""
    _FIXED[key] = answer


def scratch_index(root: Path, parent: str | None) -> tuple[TemporaryDirectory[str], bool]:
    """A private index folder for building the next commit of `root`, and whether its index already holds
    `parent`'s tree (the last commit built in it, by this process or kept by an earlier one): then it needs no
    `read-tree`, and its stat data lets `add` skip every unchanged file. The caller hands it back with
    `keep_scratch` once it holds a known commit's tree."""
    found = _SCRATCH.pop(str(root), None)
    if found is not None and parent is not None and found[0] == parent:
        return found[1], True
    if found is not None:
        found[1].cleanup()
    folder = TemporaryDirectory(prefix="nanodream-index-")
    return folder, parent is not None and gitmemo.load_index(root, parent, Path(folder.name) / "index")


def keep_scratch(root: Path, commit: str, folder: TemporaryDirectory[str], *, lasting: bool = False) -> None:
    """`folder`'s index holds exactly `commit`'s tree: kept for the next commit of `root` built on it, and for the
    next process too when `lasting` (a commit just made: the next run starts from it)."""
    old = _SCRATCH.pop(str(root), None)
    if old is not None and old[1] is not folder:
        old[1].cleanup()
    _SCRATCH[str(root)] = (commit, folder)
    if lasting:
        gitmemo.save_index(root, commit, Path(folder.name) / "index")


@atexit.register
def _drop_scratch() -> None:
    """The private index folders go when the process ends (quietly: they were kept on purpose)."""
    while _SCRATCH:
        _SCRATCH.popitem()[1][1].cleanup()
