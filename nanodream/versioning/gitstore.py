"""Every git concern of a workspace: its own repository, commits of memory files, and progress marks.

All git runs through `gitrunner.run_git` (one function, one scrubbed environment). Commits are built in a
temporary index, so a person's staging area is never touched and only memory paths are ever committed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from difflib import SequenceMatcher
from pathlib import Path
from tempfile import TemporaryDirectory

from nanodream import clock
from nanodream.atomic import read_bytes
from nanodream.backlog.position import fingerprint
from nanodream.config import machine_name
from nanodream.controls import visible
from nanodream.versioning import gitcache, gitmemo
from nanodream.versioning.commitmsg import commit_kind, with_machine
from nanodream.versioning.gitrunner import Completed, GitError, run_git
from nanodream.vocab import Trailer, Trailers
from nanodream.workspace import CORE_FILES, TRACKED_PATTERNS, Workspace

DREAM_IDENTITY = ("nanodream", "nanodream@localhost")
BLAME_HEADER = re.compile(r"^([0-9a-f]{40}) \d+ \d+(?: \d+)?$")
# An object name that fixes what it names: a commit id, or a path in a commit (or its parent) named by id.
_SHA_NAME = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?(?:\^?:.+)?$")
UNCOMMITTED = "0" * 40
_COMMIT_ID = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?\Z")
PROGRESS_LOOKBACK = 200  # commits with progress trailers searched past accepted proposals (beyond: none found)
_PROGRESS = re.compile(r"^Dream-(Cursor|Cursor-Reset|Position): ", re.MULTILINE)  # what `progress_trailers` greps
_SKILLS = "skills/"
_TEXTS: dict[tuple[str, str, str | None], bytes] = {}  # (root, path, digest) -> the bytes a kept blame is about


# One record per commit in `git log` output: a separator no commit message will contain, then fields.
_RECORD = "\x1e\x1enanodream-record:"
_FIELD = "\x1f"
_LOG_FORMAT = f"{_RECORD}%H{_FIELD}%P{_FIELD}%aI{_FIELD}%an{_FIELD}%B{_FIELD}"


@dataclass(frozen=True)
class FileStat:
    """Lines added and removed in one file by one commit; None for both when git sees it as binary."""

    path: str
    added: int | None
    removed: int | None


@dataclass(frozen=True)
class MemoryCommit:
    """A commit of the memory repository with what its message and its real diff say."""

    sha: str
    parents: tuple[str, ...]
    time: str
    author: str
    message: str
    files: tuple[FileStat, ...]

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0]

    @property
    def trailers(self) -> Trailers:
        return Trailers.parse(self.message)

    @property
    def kind(self) -> str:
        return commit_kind(self.message)


@dataclass(frozen=True)
class LineOrigin:
    """Where a line of today's file was last changed: the commit, the file's name then, the line's number then."""

    sha: str
    path: str  # a line may have moved from another file (MEMORY.md into the archive)
    line: int


class UnknownCommit(ValueError):
    """A revision that does not name a commit of this workspace's memory history."""


class GitStore:
    """The workspace's own repository, driven through the git binary with a scrubbed environment."""

    def __init__(self, workspace: Workspace, objects: Path | None = None) -> None:
        """`objects`: a quarantine — a folder git writes new objects into instead of the repository's own (which it
        still reads): what a sync fetches and builds stays out of the repository until the sync succeeds."""
        self.workspace = workspace
        self._synced: tuple[str | None, str] | None = None  # the last commit whose index entries this store moved
        self.objects = objects
        self._env = quarantined(workspace, objects) if objects is not None else {}

    @property
    def environment(self) -> dict[str, str]:
        """What this store adds to every git command's environment (its quarantine's folders, if any)."""
        return dict(self._env)

    @property
    def machine(self) -> str:
        """The name of this machine, which every commit this store makes carries (`Machine:`)."""
        return machine_name(self.workspace)

    # running git ----------------------------------------------------------------------------------

    def _git(self, *args: str, env: dict[str, str] | None = None, stdin: bytes | None = None) -> str:
        """Output of a git command as text, without its final newline; GitError when it fails."""
        out = self._run(*args, env=env, stdin=stdin).stdout.decode("utf-8", "surrogateescape")
        return out[:-1] if out.endswith("\n") else out

    def _run(self, *args: str, env: dict[str, str] | None = None, stdin: bytes | None = None,
             check: bool = True) -> Completed:
        return run_git(self.workspace.root, *args, env={**self._env, **(env or {})}, stdin=stdin, check=check)

    def _read(self, *args: str) -> str | None:
        """Output of a read-only git command, or None when it fails (no repository, no such revision)."""
        try:
            return self._git(*args)
        except GitError:
            return None

    # repository -----------------------------------------------------------------------------------

    @property
    def exists(self) -> bool:
        return (self.workspace.root / ".git").exists()

    def init(self, branch: str = "main") -> None:
        """`git init` the workspace on `branch` (the first commit is the transaction's: memory/transaction.py)."""
        run_git(self.workspace.root, "init", "-q", f"--initial-branch={branch}", str(self.workspace.root))

    # state ----------------------------------------------------------------------------------------

    def _pathspecs(self, tracked: set[str] | None = None) -> list[str]:
        """Tracked patterns that exist on disk or in the index (git refuses pathspecs matching nothing), without
        the linked skills: nanodream commits nothing through a link, and leaves a shared skill as it is."""
        linked = self.workspace.linked_skills()
        specs = []
        for pattern in TRACKED_PATTERNS:
            if pattern == "skills/" and linked == ["skills"]:
                continue
            if not (self.workspace.root / pattern).exists():  # only then does the index decide (one `ls-files`)
                if tracked is None:
                    tracked = self._tracked() if self.head_sha() else set()
                if not any(p == pattern.rstrip("/") or p.startswith(pattern) for p in tracked):
                    continue
            specs.append(pattern)
        if "skills/" in specs:
            specs += [f":(exclude){path}" for path in linked]
        return specs

    def _tracked(self) -> set[str]:
        """The paths the person's index tracks (asked again only when the index or HEAD changed)."""
        root = self.workspace.root
        stamp = gitcache.index_file_stamp(root)
        if stamp is None:
            return set()  # no index file: git tracks nothing (a fresh `git init`)
        return set(gitcache.lasting(("ls-files", str(root), ""), stamp,
                                    lambda: sorted(p for p in self._git("ls-files", "-z").split("\0") if p),
                                    _valid_paths))

    def dirty_paths(self) -> list[str]:
        """Memory files whose working copy differs from the last commit, untracked ones included."""
        specs = self._pathspecs()
        if not specs:
            return []
        root = self.workspace.root
        index = gitcache.index_stamp(root)
        stamp = None if index is None else (*index, gitcache.files_stamp(root, specs))

        def ask() -> list[str]:
            # Ignored files count too (a memory file is committed with -f): `!!` entries, each file on its own.
            out = self._git("status", "--porcelain", "-z", "--untracked-files=all", "--ignored=traditional", "--",
                            *specs)
            return sorted(set(_status_paths(out)))
        return list(gitcache.kept(("status", str(root)), stamp, ask))

    def head_sha(self) -> str | None:
        """HEAD's commit (None before the first): asked again only when a file that decides it changed."""
        root = self.workspace.root
        stamp = gitcache.head_stamp(root)
        if gitcache.unborn(stamp):
            return None
        return gitcache.head_in_files(stamp) or gitcache.kept(
            ("HEAD", str(root)), stamp, lambda: self._read("rev-parse", "--verify", "-q", "HEAD"))

    def tree_of(self, commit: str) -> str:
        """The tree id of `commit` (a commit id never changes its tree: asked once)."""
        return gitcache.fixed(("tree", commit), lambda: self._git("rev-parse", f"{commit}^{{tree}}"))

    def head_message(self) -> str:
        """HEAD's message ("" without a commit); a commit's message never changes, so a later process (`status`)
        reads it from `.git/nanodream/` instead of asking git again."""
        head = self.head_sha() if self.exists else None
        if not head:
            return ""
        return gitcache.lasting(("message", str(self.workspace.root), ""), (head,),
                                lambda: self._read("log", "-1", "--format=%B", head) or "",
                                lambda answer: isinstance(answer, str))

    def newest(self, kind: str) -> MemoryCommit | None:
        """The newest commit of `kind` in HEAD's history (`log`'s record of it), kept between processes by HEAD's id:
        `status` shows the last dream without a `git log` while nothing was committed since."""
        head = self.head_sha() if self.exists else None
        if not head:
            return None
        found = gitcache.lasting(("newest", str(self.workspace.root), kind), (head,),
                                 lambda: [_commit_record(c) for c in self.memory_commits(1, kind=kind)],
                                 _valid_records)
        return _from_record(found[0]) if found else None

    # writing --------------------------------------------------------------------------------------

    def commit(self, message: str, author: tuple[str, str]) -> str | None:
        """Commit every memory file as it is on disk; None when there is nothing to commit.

        The commit is built in a temporary index from HEAD plus the memory paths, so nothing else — not the
        person's staged files, not `history.jsonl` — can reach it. The person's index entries of the committed
        files then follow the commit (`sync_index`); when another git process holds the index they cannot,
        and the transaction keeps that step pending until they can.
        """
        parent = self.head_sha()
        root = self.workspace.root
        tracked_key = ("ls-files", str(root), "")
        index = gitcache.index_file_stamp(root)
        known_tracked, tracked = (True, []) if index is None else gitcache.peek(tracked_key, index)
        before = _read_files(root, CORE_FILES)
        folder, tree, changes = self._build_tree(parent)
        if parent and (changes == (set(), set()) if changes is not None else tree == self.tree_of(parent)):
            gitcache.keep_scratch(root, parent, folder)
            return None
        cleaned = _cleaned(with_machine(message, self.machine))
        try:
            sha = self._commit_tree(tree, [parent] if parent else [], cleaned, author)
            self._git("update-ref", "-m", _reflog_message(message), "HEAD", sha, parent or "")
        except BaseException:
            folder.cleanup()
            raise
        gitcache.keep_scratch(root, sha, folder, lasting=True)
        gitcache.remember(("tree", sha), tree)
        gitcache.moved(("HEAD", str(root)), gitcache.head_stamp(root), sha)
        if changes is not None:  # what the commit added and removed: its diff, or (the first commit) its files
            gitcache.remember(("diff", parent, sha) if parent else ("names", sha), sorted(changes[0] | changes[1]))
        changed = self.changed_paths(parent, sha) if parent else self._tree_names(sha)
        if parent:
            gitcache.carried(root, parent, sha, changed)
        self._learn(parent, sha, cleaned, changed, before)
        if self.sync_index(parent, sha):
            self._synced = (parent, sha)
            if changes is not None and known_tracked:  # the index now tracks what the commit added, not what it removed
                now = (set(tracked) - changes[1]) | changes[0]  # type: ignore[call-overload]
                gitcache.remember_kept(tracked_key, gitcache.index_file_stamp(root), sorted(now))
        gitcache.persist(root, sha, ("progress", "log", "blame"), also=(tracked_key,))
        return sha

    def _learn(self, parent: str | None, sha: str, message: str, changed: list[str],
               before: dict[str, bytes | None]) -> None:
        """What git would now answer about `sha`, worked out from the answers at `parent` and what the commit
        changed, kept for the rest of this run (and handed to the next one by `commit`): the last progress
        commit, each skill's last change, the age of every line of the core files it committed."""
        root = self.workspace.root
        known, previous = gitcache.peek(("progress", str(root), ""), (parent,)) if parent else (True, None)
        if _PROGRESS.search(message) and Trailer.ACCEPTED not in Trailers.parse(message).values:
            gitcache.remember_kept(("progress", str(root), ""), (sha,), message)
        elif known:
            gitcache.remember_kept(("progress", str(root), ""), (sha,), previous)
        when = gitmemo.commit_time(root, sha)
        if when is not None:
            logged = gitcache.at_commit(root, "log", parent) if parent else {_SKILLS: ((), {})}
            for prefix, (_, times) in logged.items():
                updated = {**times, **{path: when for path in changed if path.startswith(prefix)}}  # type: ignore[dict-item]
                gitcache.remember_kept(("log", str(root), prefix), (sha,), updated)
            after = _read_files(root, [path for path in CORE_FILES if path in changed])
            blamed = gitcache.at_commit(root, "blame", parent) if parent else {}
            for path, data in after.items():
                if data is None or data != before.get(path):
                    continue  # removed, or written again while the commit was built: git is asked
                if path in blamed:  # its blame at the parent, and the bytes that blame was about
                    stamp, old_times = blamed[path]
                    old = b"" if old_times is None else _TEXTS.get((str(root), path, stamp[1]))  # type: ignore[index]
                elif parent is None:
                    old, old_times = b"", []
                else:
                    continue
                if old is None or len(_lines(old)) != len(old_times or []):
                    continue
                times = shifted_times(_lines(old), old_times or [], _lines(data), when)
                digest = gitcache.bytes_digest(data)
                _remember_text((str(root), path, digest), data)
                gitcache.remember_kept(("blame", str(root), path), (sha, digest), times)

    def _tree_names(self, commit: str) -> list[str]:
        """Every path in `commit` (asked once per commit id)."""
        return list(gitcache.fixed(("names", commit), lambda: [
            p for p in self._git("ls-tree", "-r", "-z", "--name-only", commit).split("\0") if p]))

    def _build_tree(self, parent: str | None) -> tuple[TemporaryDirectory[str], str, tuple[set[str], set[str]] | None]:
        """The tree of `parent` with every memory file as it is on disk, built in a private index (kept between
        commits: `gitcache.scratch_index`), and the paths it adds and removes (None: not told, ask git)."""
        folder, ready = gitcache.scratch_index(self.workspace.root, parent)
        index = {"GIT_INDEX_FILE": str(Path(folder.name) / "index")}
        try:
            if not ready:
                Path(index["GIT_INDEX_FILE"]).unlink(missing_ok=True)
                if parent:
                    self._git("read-tree", parent, env=index)
            specs = self._pathspecs()
            # --verbose names each path whose entry changed: the commit's own diff, without asking git again.
            staged = self._git("add", "-A", "-f", "--verbose", "--", *specs, env=index) if specs else ""
            tree = self._git("write-tree", env=index)
        except BaseException:
            folder.cleanup()
            raise
        return folder, tree, _added_and_removed(staged)

    def commit_on_ref(self, ref: str, parent: str, files: dict[str, bytes | None], message: str,
                      extra_parent: str | None = None) -> str:
        """A commit of `parent`'s tree with `files` replaced (None: removed), put on `ref`.

        Built in a temporary index from object ids only: HEAD, the person's index and the files on disk are
        never touched (the review lane keeps its proposals this way). `extra_parent` keeps a commit reachable.
        """
        sha = self.build_commit(parent, files, message, (parent, *((extra_parent,) if extra_parent else ())))
        self._git("update-ref", "-m", _reflog_message(message), ref, sha)
        return sha

    def build_commit(self, base: str | None, files: dict[str, bytes | None], message: str,
                     parents: Sequence[str], author: tuple[str, str] = DREAM_IDENTITY) -> str:
        """A commit object of `base`'s tree (None: an empty one) with `files` replaced (None: removed), whose
        parents are `parents`; no ref moves. Objects go where this store writes them (its quarantine, if any)."""
        with TemporaryDirectory(prefix="nanodream-index-") as tmp:
            index = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
            if base is not None:
                self._git("read-tree", base, env=index)
            for path, data in sorted(files.items()):
                if data is None:
                    self._git("update-index", "--force-remove", "--", path, env=index)
                else:
                    blob = self._git("hash-object", "-w", "--stdin", stdin=data)
                    self._git("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=index)
            tree = self._git("write-tree", env=index)
        return self._commit_tree(tree, list(parents), _cleaned(with_machine(message, self.machine)), author)

    def move_head(self, new: str, old: str | None, message: str) -> None:
        """Point the branch HEAD names at `new`, only while it is still at `old` (git refuses otherwise)."""
        self._git("update-ref", "-m", _reflog_message(message), "HEAD", new, old or "")
        gitcache.moved(("HEAD", str(self.workspace.root)), gitcache.head_stamp(self.workspace.root), new)

    def ref_sha(self, ref: str) -> str | None:
        if self._surely_absent(ref):
            return None  # no git process to say so (`status` asks for the review lane's ref every time)
        return self._read("rev-parse", "--verify", "-q", f"{ref}^{{commit}}") or None

    def _surely_absent(self, ref: str) -> bool:
        """A `refs/…` name that neither a loose ref file nor packed-refs holds, in a repository laid out plainly
        (`.git` a folder, no reftable); anything else is left to git."""
        git = self.workspace.root / ".git"
        if not ref.startswith("refs/") or ".." in ref or not git.is_dir() or git.is_symlink():
            return False
        if (git / "reftable").exists() or (git / ref).exists():
            return False
        try:
            packed = read_bytes(git / "packed-refs", 64 * 1024 * 1024)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        return f" {ref}\n".encode() not in packed

    def set_ref(self, ref: str, sha: str | None) -> None:
        """Point `ref` at `sha`, or delete it."""
        if sha is None:
            self._read("update-ref", "-d", ref)
        else:
            self._git("update-ref", ref, sha)

    def chain(self, ref: str) -> list[str]:
        """The commits of `ref` not on HEAD, oldest first, following first parents only."""
        if self.ref_sha(ref) is None:
            return []
        out = self._git("rev-list", "--reverse", "--first-parent", ref, "^HEAD")
        return out.split() if out else []

    def file_at(self, rev: str, path: str) -> bytes | None:
        """The bytes of `path` in `rev`, or None when it has no such file."""
        done = self._run("cat-file", "blob", f"{rev}:{path}", check=False)
        return done.stdout if done.returncode == 0 else None

    def changed_paths(self, old: str, new: str) -> list[str]:
        """The paths two revisions differ in (asked once per pair of commit ids; a name like HEAD every time)."""
        def ask() -> list[str]:
            out = self._git("diff", "--name-only", "-z", "--no-renames", old, new, "--")
            return [p for p in out.split("\0") if p]
        if _COMMIT_ID.match(old) and _COMMIT_ID.match(new):
            return list(gitcache.fixed(("diff", old, new), ask))
        return ask()

    def _commit_tree(self, tree: str, parents: list[str], cleaned: str, author: tuple[str, str]) -> str:
        name, email = author
        identity = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
                    "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email, **_dated_now()}
        flags = [arg for parent in parents for arg in ("-p", parent)]
        return self._git("commit-tree", "--no-gpg-sign", tree, *flags, env=identity,
                         stdin=cleaned.encode("utf-8", "surrogateescape"))

    def sync_index(self, old: str | None, new: str, *, stale_only: bool = False) -> bool:
        """Point the person's index entries of the files `new` changed since `old` at `new`; others stay.

        `stale_only` moves only entries that still stage `old`'s text (a retry must not undo what the person
        staged since). False when another git process holds the index: nothing moved, try again later. Asked
        again for the commit this store just made and synced, it has nothing left to move.
        """
        if (old, new) == self._synced:
            return True
        changed = self.changed_paths(old, new) if old else self._tree_names(new)
        if stale_only and changed:
            before = self.tree_paths(old) if old else {}
            staged = self._index_blobs(changed)
            changed = [p for p in changed if staged.get(p) == before.get(p)]
        if not changed:
            return True
        return self._run("reset", "-q", new, "--", *changed, check=False).returncode == 0

    def _index_blobs(self, paths: list[str]) -> dict[str, str]:
        """The blob id the person's index holds for each of `paths` (absent: not in the index)."""
        out = self._read("ls-files", "-s", "-z", "--", *paths) or ""
        entries = (record.split("\t", 1) for record in out.split("\0") if "\t" in record)
        return {path: meta.split()[1] for meta, path in entries}

    def parent_of(self, sha: str) -> str | None:
        return self._read("rev-parse", "--verify", "-q", f"{sha}^") or None

    def user_identity(self) -> tuple[str, str]:
        """The person's configured git identity, for commits of their own hand edits."""
        name = self._read("config", "--get", "user.name") or "workspace owner"
        email = self._read("config", "--get", "user.email") or "owner@localhost"
        return name, email

    # progress marks ---------------------------------------------------------------------------------

    def progress_trailers(self) -> Trailers | None:
        """The trailers of the newest commit that moved this workspace's history position (a dream or a replaying
        restore); another machine's, merged in by a sync, moved its own history, never this one (`made_here`)."""
        head = self.head_sha()
        if not head:
            return None

        def ask() -> str | None:
            # An accepted review proposal carries its dream's trailers but moved nothing when it landed: skip it.
            out = self._git("log", "-z", "-n", str(PROGRESS_LOOKBACK), "--format=%B", "-E",
                            f"--grep={_PROGRESS.pattern}", head)
            return next((body for body in filter(None, out.split("\0"))
                         if Trailer.ACCEPTED not in (trailers := Trailers.parse(body)).values
                         and made_here(self.workspace, trailers)), None)
        body = gitcache.lasting(("progress", str(self.workspace.root), ""), (head,), ask,
                                lambda answer: answer is None or isinstance(answer, str))
        return None if body is None else Trailers.parse(body)

    # line history -----------------------------------------------------------------------------------

    def line_times(self, path: str) -> list[int | None] | None:
        """When each line of the working-tree file last changed (committer epoch seconds; None = not committed).

        One `git blame` per file, whatever its length. None when git cannot blame the file at all
        (no repository or no commit yet, or a file it has never tracked): all of it is new to git.
        """
        head = self.head_sha() if self.exists else None
        if not head:
            return None
        root = str(self.workspace.root)
        data = _read_files(self.workspace.root, [path])[path]
        working = None if data is None else gitcache.bytes_digest(data)
        if data is not None:
            _remember_text((root, path, working), data)  # what a commit of this file works its next blame out from
        times = gitcache.lasting(("blame", root, path), (head, working), lambda: self._blamed(path), _valid_times)
        return None if times is None else list(times)

    def _blamed(self, path: str) -> list[int | None] | None:
        out = self._read("blame", "--line-porcelain", "--", path)
        return None if out is None else parse_line_porcelain(out)

    def line_origin(self, path: str, number: int, ignored: Sequence[str] = ()) -> LineOrigin | None:
        """The commit that last changed line `number` of the working file, following moves within and across
        files, passing over the `ignored` commits; None while the line is not committed (or git never tracked
        the file)."""
        # -M/-C at 8 characters: git's defaults (20/40) miss a short fact moved to the archive.
        skip = [arg for sha in ignored for arg in ("--ignore-rev", sha)]
        out = self._read("blame", "--porcelain", "-M8", "-C8", *skip, "-L", f"{number},{number}", "--", path)
        if not out:
            return None
        lines = out.split("\n")
        sha, original = lines[0].split(" ")[:2]
        if sha == UNCOMMITTED:
            return None
        name = next((line[len("filename "):] for line in lines if line.startswith("filename ")), path)
        return LineOrigin(sha, name, int(original))

    def line_origins(self, path: str, numbers: Sequence[int]) -> dict[int, LineOrigin | None]:
        """`line_origin` for many lines of one working file from ONE `git blame` (a `-L` per line); a line not
        committed (or a file git never tracked) maps to None. Kept for the next run while HEAD and the file's
        bytes are the same (versioning/gitmemo.py), as the blames of the core files are."""
        wanted = sorted(set(numbers))
        head = self.head_sha() if self.exists else None
        data = _read_files(self.workspace.root, [path])[path]
        if not wanted or not head or data is None:
            return dict.fromkeys(wanted)
        stamp = (head, gitcache.bytes_digest(data), ",".join(map(str, wanted)))
        found = gitcache.lasting(("origins", str(self.workspace.root), path), stamp,
                                 lambda: self._origins(path, wanted), _valid_origins)
        origins = {int(number): LineOrigin(*origin) if origin else None for number, origin in found.items()}
        return {number: origins.get(number) for number in wanted}

    def _origins(self, path: str, numbers: list[int]) -> dict[str, list | None]:
        ranges = [arg for number in numbers for arg in ("-L", f"{number},{number}")]
        out = self._read("blame", "--line-porcelain", "-M8", "-C8", *ranges, "--", path)
        return parse_origins(out or "", numbers)

    def line_commits(self, path: str, rev: str | None = None) -> list[str | None]:
        """The commit of every line of the working file (or of the file at commit `rev`), following moves (None:
        not committed); one blame."""
        out = self._read("blame", "--line-porcelain", "-M8", "-C8", *([rev] if rev else []), "--", path)
        return parse_blame_shas(out) if out is not None else []

    def last_change_times(self, prefix: str) -> dict[str, int]:
        """Committer time (epoch seconds) of the newest commit touching each file under `prefix`.

        One `git log` for the whole folder, however many files it holds; {} without a commit yet.
        """
        head = self.head_sha() if self.exists else None
        if not head:
            return {}
        return dict(gitcache.lasting(("log", str(self.workspace.root), prefix), (head,),
                                     lambda: self._change_times(head, prefix), _valid_change_times))

    def _change_times(self, head: str, prefix: str) -> dict[str, int]:
        out = self._git("log", "--format=@%ct", "--name-only", "--no-renames", head, "--", prefix)
        times: dict[str, int] = {}
        when = 0
        for line in out.splitlines():
            if line.startswith("@"):  # a commit's time; the paths it touched follow (none start with @)
                when = int(line[1:])
            elif line:
                times.setdefault(line, when)  # newest first: the first time seen is the last change
        return times

    # reading history --------------------------------------------------------------------------------

    def memory_commits(self, limit: int | None = None, *, rev: str = "HEAD", kind: str | None = None,
                       ) -> list[MemoryCommit]:
        """Commits newest first with their messages and per-file line counts, from ONE `git log` call.

        One process however many commits are listed: `log` stays fast on a long-lived workspace.
        `kind` narrows to dream, manual or restore commits by their Dream-Kind trailer.
        """
        if not self.exists or not self.head_sha():
            return []
        args = ["-z", "--numstat", "--no-renames", f"--format={_LOG_FORMAT}"]
        if limit is not None:
            args.append(f"--max-count={limit}")
        if kind is not None:
            args += ["-E", f"--grep=^Dream-Kind: {re.escape(kind)}[[:space:]]*$"]
        commits = _parse_log(self._git("log", *args, rev, "--"))
        return [c for c in commits if kind is None or c.kind == kind]

    def resolve_commit(self, ref: str) -> str:
        """The full sha of `ref` when it names a commit in the history of HEAD, else UnknownCommit."""
        if not self.exists or not self.head_sha():
            raise UnknownCommit("this workspace has no memory commits yet")
        if not ref or ref.startswith("-"):
            raise UnknownCommit(f"{ref!r} is not a commit")
        sha = self._read("rev-parse", "--verify", "-q", "--end-of-options", f"{ref}^{{commit}}")
        if sha is None:
            raise UnknownCommit(f"no commit {ref!r} in this workspace's memory history")
        if self._read("merge-base", "--is-ancestor", sha, "HEAD") is None:
            raise UnknownCommit(f"{ref} is not in the current memory history (HEAD does not contain it)")
        return sha

    def commit_info(self, sha: str) -> MemoryCommit:
        return _parse_log(self._git("log", "-1", "-z", "--numstat", "--no-renames", f"--format={_LOG_FORMAT}",
                                    sha, "--"))[0]

    def commit_diff(self, sha: str) -> str:
        """The commit's patch against its first parent (against nothing for the first commit)."""
        out = self._run("show", "--format=", "--patch", "--no-renames", "--no-color", "--no-ext-diff", sha,
                        "--").stdout
        return out.decode("utf-8", "surrogateescape")

    def tree_paths(self, rev: str) -> dict[str, str]:
        """Every file path at `rev` with its blob id (asked once per commit id: a commit never changes)."""
        def ask() -> dict[str, str]:
            paths = {}
            for record in self._git("ls-tree", "-r", "-z", "--full-tree", rev).split("\0"):
                if record:
                    meta, path = record.split("\t", 1)
                    paths[path] = meta.split()[2]
            return paths
        if _COMMIT_ID.match(rev):
            return dict(gitcache.fixed(("tree-paths", rev), ask))
        return ask()

    def blob(self, blob_id: str) -> bytes:
        return self._run("cat-file", "blob", blob_id).stdout

    def blobs(self, blob_ids: Sequence[str]) -> dict[str, bytes]:
        """Many blobs by id from ONE `git cat-file --batch`: a whole tree's files cost one process."""
        if not blob_ids:
            return {}
        out = self._run("cat-file", "--batch", stdin="".join(f"{b}\n" for b in blob_ids).encode()
                      ).stdout
        found, at = {}, 0
        for blob_id in blob_ids:
            end = out.index(b"\n", at)
            size = int(out[at:end].split()[2])
            found[blob_id] = out[end + 1:end + 1 + size]
            at = end + 1 + size + 1  # the content is followed by a newline
        return found

    def read_objects(self, names: Sequence[str]) -> dict[str, bytes | None]:
        """Many objects by name (`<sha>`, `<rev>:<path>`) from ONE `git cat-file --batch`: a commit's raw text, a
        file's bytes; None for a name that names nothing (a file its commit did not have, the first commit's
        parent). Answers about commits by id are kept for the process: such an object never changes."""
        root = str(self.workspace.root)
        found: dict[str, bytes | None] = {}
        for name in dict.fromkeys(names):
            known, answer = gitcache.fixed_answer(("object", root, name))
            if known:
                found[name] = answer  # type: ignore[assignment]
        asked = [name for name in dict.fromkeys(names) if name not in found and "\n" not in name]
        if asked:
            out = run_git(self.workspace.root, "cat-file", "--batch",
                          stdin="".join(f"{name}\n" for name in asked).encode()).stdout
            for name, data in zip(asked, _batch_objects(out, len(asked)), strict=True):
                found[name] = data
                if _SHA_NAME.match(name):
                    gitcache.remember(("object", root, name), data)
        return {name: found.get(name) for name in names}

    def first_commit_adding(self, text: str, paths: Sequence[str]) -> tuple[str, str] | None:
        """The oldest commit that added `text` to one of `paths`, with its committer date (ISO 8601); None when
        none did. One `git log -S` (the commits that change how often the text occurs), oldest first."""
        if not text or not self.exists or not self.head_sha():
            return None
        out = self._read("log", "--reverse", "--format=%H %cI", f"-S{text}", "HEAD", "--", *paths)
        first = out.splitlines()[0].split(" ") if out else []
        return (first[0], first[1]) if len(first) == 2 else None

    def commit_before(self, moment: datetime) -> tuple[str, str] | None:
        """The newest commit of HEAD's history whose committer date is at or before `moment`, with that date
        (ISO 8601); None when there is none (or no commit at all). One `git log`."""
        if not self.exists or not self.head_sha():
            return None
        out = self._git("log", "-1", "--format=%H %cI", f"--before={moment.isoformat()}", "HEAD", "--")
        return (out.split(" ")[0], out.split(" ")[1]) if out else None


TRAVELLED = "travelled"  # in the state folder: this repository holds commits another machine made (docs/sync.md)


def travelled(workspace: Workspace) -> bool:
    """Whether this workspace's memory has taken in commits from elsewhere (`init --from`, a sync)."""
    return (workspace.state_dir / TRAVELLED).exists()


def made_here(workspace: Workspace, trailers: Trailers) -> bool:
    """Whether a commit's history trailers (its range, its position) are about this workspace's history.jsonl.

    History never travels: a dream merged in from another machine consumed that machine's history, and its byte
    offsets name other bytes here. A commit that records its history's fingerprint is checked against this
    file — whichever machine made it: fleet workers and a laptop whose host name changes dream one history under
    several names; one that only names its machine is checked by name; one from before either counts as this
    workspace's own until the memory has travelled.
    """
    recorded, position = trailers.get(Trailer.HISTORY), trailers.position
    if recorded and position is not None:
        try:
            return fingerprint(workspace.history_file, position) == recorded
        except OSError:
            return False
    if trailers.machine is not None:
        return trailers.machine == machine_name(workspace)
    return not travelled(workspace)


def quarantined(workspace: Workspace, objects: Path) -> dict[str, str]:
    """The environment that makes git write new objects into `objects` while it reads the repository's own too."""
    return {"GIT_OBJECT_DIRECTORY": str(objects),
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(workspace.root / ".git" / "objects")}


def shifted_times(old: list[bytes], old_times: list[int | None], new: list[bytes], when: int) -> list[int | None]:
    """The blame of `new` committed at `when` on top of `old` (blamed `old_times`; None: not committed then):
    a line the commit kept keeps its time, every other line is the commit's — git's blame, worked out from the
    diff (any repeated line's match may differ from git's; the ages of the text are the same)."""
    times: list[int | None] = [when] * len(new)
    for tag, i1, i2, j1, _ in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            times[j1:j1 + i2 - i1] = [when if t is None else t for t in old_times[i1:i2]]
    return times


def _lines(data: bytes) -> list[bytes]:
    """Lines as git blames them: split at \n, no empty line after the last newline."""
    lines = data.split(b"\n")
    return lines[:-1] if lines and lines[-1] == b"" else lines


def _read_files(root: Path, paths: Sequence[str]) -> dict[str, bytes | None]:
    found: dict[str, bytes | None] = {}
    for path in paths:
        try:
            found[path] = (root / path).read_bytes()
        except OSError:
            found[path] = None
    return found


def _remember_text(key: tuple[str, str, str | None], data: bytes) -> None:
    if len(_TEXTS) >= 64:
        _TEXTS.clear()
    _TEXTS[key] = data


def _commit_record(commit: MemoryCommit) -> list:
    return [commit.sha, list(commit.parents), commit.time, commit.author, commit.message,
            [[f.path, f.added, f.removed] for f in commit.files]]


def _from_record(record: list) -> MemoryCommit:
    sha, parents, time, author, message, files = record
    return MemoryCommit(sha, tuple(parents), time, author, message, tuple(FileStat(*f) for f in files))


def _valid_records(answer: object) -> bool:
    try:
        return isinstance(answer, list) and all(_from_record(record) is not None for record in answer)
    except (TypeError, ValueError):
        return False


def _valid_times(answer: object) -> bool:
    return answer is None or (isinstance(answer, list)
                               and all(t is None or (isinstance(t, int) and not isinstance(t, bool)) for t in answer))


def _valid_paths(answer: object) -> bool:
    return isinstance(answer, list) and all(isinstance(path, str) for path in answer)


def _valid_change_times(answer: object) -> bool:
    return isinstance(answer, dict) and all(isinstance(k, str) and type(v) is int for k, v in answer.items())


def _cleaned(message: str) -> str:
    """The message as committed: control and bidi characters (a model's summary, a reason, a memory line) become
    visible escapes, so `git log` in a terminal shows `\x1b]0;…` instead of obeying it; then stripped as
    `git commit` does."""
    return stripspace(visible(message)) or "\n"


def _added_and_removed(verbose: str) -> tuple[set[str], set[str]] | None:
    """The paths `git add --verbose` reports as added and as removed; None when a line does not read as one
    (a path with a newline in it): then the caller asks git for the diff instead."""
    added: set[str] = set()
    removed: set[str] = set()
    for line in filter(None, verbose.split("\n")):
        verb, _, quoted = line.partition(" ")
        if verb not in ("add", "remove") or len(quoted) < 2 or quoted[0] != "'" or quoted[-1] != "'":
            return None
        (added if verb == "add" else removed).add(quoted[1:-1])
    return added, removed


def _status_paths(porcelain: str) -> list[str]:
    """Paths from `git status --porcelain -z` (a rename's source, which follows as its own field, skipped)."""
    paths = []
    entries = porcelain.split("\0")
    index = 0
    while index < len(entries):
        entry = entries[index]
        index += 1
        if not entry:
            continue
        status, path = entry[:2], entry[3:]
        if "R" in status or "C" in status:
            index += 1
        paths.append(path)
    return paths


def _parse_log(output: str) -> list[MemoryCommit]:
    """Split `git log -z --numstat --format=_LOG_FORMAT` output into commits."""
    commits = []
    for record in output.split(_RECORD)[1:]:
        head, _, stats = record.rpartition(_FIELD)
        sha, parents, time, author, message = head.split(_FIELD, 4)
        files = []
        for line in stats.split("\0"):
            line = line.strip("\n")
            if not line:
                continue
            added, removed, path = line.split("\t", 2)
            files.append(FileStat(path, None if added == "-" else int(added), None if removed == "-" else int(removed)))
        commits.append(MemoryCommit(sha, tuple(parents.split()), time, author, message.strip("\n"), tuple(files)))
    return commits


def parse_blame_shas(out: str) -> list[str | None]:
    """The commit of each line from `git blame --line-porcelain` (None: not committed yet)."""
    shas: list[str | None] = []
    for line in out.splitlines():
        match = BLAME_HEADER.match(line)
        if match:
            shas.append(None if match.group(1) == UNCOMMITTED else match.group(1))
    return shas


def parse_origins(out: str, numbers: list[int]) -> dict[str, list | None]:
    """Line number → [sha, path then, line then] from `git blame --line-porcelain -L n,n …` (in line order); None
    for an uncommitted line. Keys are strings: the answer is kept as JSON."""
    origins: dict[str, list | None] = {}
    sha, original, final, name = "", 0, 0, ""
    for line in out.split("\n"):
        header = BLAME_HEADER.match(line)
        if header:
            sha, original, final = header.group(1), int(line.split(" ")[1]), int(line.split(" ")[2])
        elif line.startswith("filename "):
            name = line[len("filename "):]
        elif line.startswith("\t") and final in numbers:
            origins[str(final)] = None if sha == UNCOMMITTED else [sha, name, original]
    return origins


def _valid_origins(answer: object) -> bool:
    return isinstance(answer, dict) and all(
        isinstance(key, str) and key.isdigit() and (value is None or (
            isinstance(value, list) and len(value) == 3 and isinstance(value[0], str) and isinstance(value[1], str)
            and isinstance(value[2], int))) for key, value in answer.items())


def _batch_objects(out: bytes, expected: int) -> list[bytes | None]:
    """The objects of a `git cat-file --batch` answer, in the order asked; None for one it says is missing."""
    found: list[bytes | None] = []
    at = 0
    while len(found) < expected:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        if len(header) != 3 or not header[2].isdigit():  # "<name> missing" (or ambiguous)
            found.append(None)
            at = end + 1
            continue
        size = int(header[2])
        found.append(out[end + 1:end + 1 + size])
        at = end + 1 + size + 1  # the content is followed by a newline
    return found


def parse_line_porcelain(out: str) -> list[int | None]:
    """Per final line, the committer time of the commit blamed for it (None for uncommitted lines)."""
    times: list[int | None] = []
    sha, when = "", None
    for line in out.split("\n"):
        if line.startswith("\t"):
            times.append(None if sha == UNCOMMITTED else when)
            continue
        header = BLAME_HEADER.match(line)
        if header:
            sha, when = header.group(1), None
        elif line.startswith("committer-time "):
            when = int(line.split(" ", 1)[1])
    return times


def stripspace(message: str) -> str:
    """`message` cleaned as `git stripspace` (and so `git commit`) cleans it, without a process: trailing blanks
    (space, tab, CR: git's own notion of whitespace) cut from every line, runs of empty lines made one, empty
    lines at both ends dropped, each line ended by a newline ("" when nothing is left)."""
    lines: list[str] = []
    gap = False
    for line in message.split("\n"):
        line = line.rstrip(" \t\r")
        if not line:
            gap = True
            continue
        if gap and lines:
            lines.append("")
        gap = False
        lines.append(line)
    return "".join(f"{line}\n" for line in lines)


def _dated_now() -> dict[str, str]:
    """A commit's dates come from the one clock (nanodream/clock.py), unless the person back-dates it with
    git's own variables."""
    moment = clock.now().isoformat(timespec="seconds")
    return {name: moment for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE") if name not in os.environ}


def _reflog_message(message: str) -> str:
    """The subject as `git reflog` shows it: control and bidi characters as visible escapes, like the commit's."""
    lines = visible(message).splitlines()
    return f"nanodream: {lines[0] if lines else ''}"
