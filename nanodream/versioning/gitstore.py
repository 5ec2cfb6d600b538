"""Every git concern of a workspace: its own repository, commits of memory files, and progress marks."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TYPE_CHECKING, Any

from nanodream.versioning.commitmsg import commit_kind
from nanodream.vocab import Trailers
from nanodream.workspace import TRACKED_PATTERNS, Workspace


class _Gitpython:
    """gitpython, imported on first use: ~60 ms (and a `git version` run) that `status` and `--help`
    never need (bench/startup.py). `git.Repo`, `git.GitCommandError` and friends work as usual."""

    def __getattr__(self, name: str) -> Any:
        import git as module

        return getattr(module, name)


if TYPE_CHECKING:
    import git
else:
    git = _Gitpython()

DREAM_IDENTITY = ("nanodream", "nanodream@localhost")
BLAME_HEADER = re.compile(r"^([0-9a-f]{40}) \d+ \d+(?: \d+)?$")
UNCOMMITTED = "0" * 40


# One record per commit in `git log` output: a separator no commit message will contain, then fields.
_RECORD = "\x1e\x1enanodream-record:"
_FIELD = "\x1f"
_LOG_FORMAT = f"{_RECORD}%H{_FIELD}%P{_FIELD}%aI{_FIELD}%an{_FIELD}%B{_FIELD}"
# Variables that would send a git command to another repository (set by git hooks and other tooling).
REDIRECTING_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
                         "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE")


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


class UnknownCommit(ValueError):
    """A revision that does not name a commit of this workspace's memory history."""


class GitStore:
    """The workspace's own repository, driven through the git binary with a pinned environment."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._repo: git.Repo | None = None

    # repository -----------------------------------------------------------------------------------

    @property
    def exists(self) -> bool:
        return (self.workspace.root / ".git").exists()

    @property
    def repo(self) -> git.Repo:
        if self._repo is None:
            self._repo = git.Repo(self.workspace.root)
            self._pin_environment(self._repo)
        return self._repo

    def _pin_environment(self, repo: git.Repo) -> None:
        """Point every git call at this workspace, whatever GIT_* variables the caller left around.

        Started from a git hook or another repository's tooling, GIT_DIR, GIT_INDEX_FILE and friends
        would redirect commands to the wrong repository; gitpython can only add variables, so each
        redirecting one is set to this workspace's own value.
        """
        git_dir = repo.git_dir
        common_dir = repo.common_dir
        pinned = {
            "GIT_DIR": git_dir,
            "GIT_WORK_TREE": str(self.workspace.root),
            "GIT_INDEX_FILE": f"{git_dir}/index",
            "GIT_OBJECT_DIRECTORY": f"{common_dir}/objects",
            "GIT_COMMON_DIR": common_dir,
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": "",
            "GIT_NAMESPACE": "",
            "GIT_TERMINAL_PROMPT": "0",
        }
        repo.git.update_environment(**pinned)

    def ensure_repo(self) -> bool:
        """Create the repository with a first commit of the memory files; True when it was created."""
        if self.exists:
            return False
        root = self.workspace.root
        git.Repo.init(root, initial_branch="main",
                      env={"GIT_DIR": str(root / ".git"), "GIT_WORK_TREE": str(root),
                           "GIT_INDEX_FILE": str(root / ".git" / "index"), "GIT_COMMON_DIR": str(root / ".git"),
                           "GIT_OBJECT_DIRECTORY": str(root / ".git" / "objects")})
        self.commit("init: start versioning agent memory\n\nCreated by nanodream init.", DREAM_IDENTITY)
        return True

    # state ----------------------------------------------------------------------------------------

    def _pathspecs(self) -> list[str]:
        """Tracked patterns that exist on disk or in the index (git refuses pathspecs matching nothing)."""
        tracked = set(self.repo.git.ls_files("-z").split("\0")) if self.head_sha() else set()
        specs = []
        for pattern in TRACKED_PATTERNS:
            on_disk = (self.workspace.root / pattern).exists()
            in_index = any(p == pattern.rstrip("/") or p.startswith(pattern) for p in tracked)
            if on_disk or in_index:
                specs.append(pattern)
        return specs

    def dirty_paths(self) -> list[str]:
        """Memory files whose working copy differs from the last commit, untracked ones included."""
        specs = self._pathspecs()
        if not specs:
            return []
        out = self.repo.git.status("--porcelain", "-z", "--untracked-files=all", "--ignored=no", "--", *specs)
        paths = []
        entries = out.split("\0")
        index = 0
        while index < len(entries):
            entry = entries[index]
            index += 1
            if not entry:
                continue
            status, path = entry[:2], entry[3:]
            if "R" in status or "C" in status:
                index += 1  # the rename source follows as its own field
            paths.append(path)
        forced = self.repo.git.ls_files("-z", "--others", "--ignored", "--exclude-standard", "--", *specs)
        paths += [p for p in forced.split("\0") if p]
        return sorted(set(paths))

    def head_sha(self) -> str | None:
        return self._read("rev-parse", "--verify", "-q", "HEAD")

    def head_message(self) -> str:
        return self._read("log", "-1", "--format=%B") or ""  # fails (so "") when there is no commit yet

    def _read(self, *args: str) -> str | None:
        """Output of a read-only git command (None when it fails), run without gitpython.

        `status` only reads HEAD; going through the git binary directly keeps gitpython's import off its
        path (bench/startup.py). The environment is pinned to this workspace like `repo`'s.
        """
        root = self.workspace.root
        env = {k: v for k, v in os.environ.items() if k not in REDIRECTING_VARIABLES}
        env.update(GIT_DIR=str(root / ".git"), GIT_WORK_TREE=str(root), GIT_TERMINAL_PROMPT="0")
        done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True,
                              encoding="utf-8", errors="replace", check=False)
        if done.returncode != 0:
            return None
        return done.stdout[:-1] if done.stdout.endswith("\n") else done.stdout  # as gitpython returns it

    # writing --------------------------------------------------------------------------------------

    def commit(self, message: str, author: tuple[str, str]) -> str | None:
        """Stage every memory file and commit; None when there is nothing to commit."""
        specs = self._pathspecs()
        if specs:
            self.repo.git.add("-A", "-f", "--", *specs)
        if self.head_sha() and not self.repo.git.diff("--cached", "--name-only"):
            return None
        name, email = author
        identity = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
                    "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
        self.repo.git.commit("--no-verify", "--no-gpg-sign", "--allow-empty", "-q", "--cleanup=whitespace",
                             "-m", message, env=identity)
        return self.head_sha()

    def user_identity(self) -> tuple[str, str]:
        """The person's configured git identity, for commits of their own hand edits."""
        reader = self.repo.config_reader()
        name = reader.get_value("user", "name", default="") or "workspace owner"
        email = reader.get_value("user", "email", default="") or "owner@localhost"
        return str(name), str(email)

    # progress marks ---------------------------------------------------------------------------------

    def progress_trailers(self) -> Trailers | None:
        """The trailers of the newest commit that moved the history position (a dream or a replaying restore)."""
        if not self.head_sha():
            return None
        body = self.repo.git.log("-1", "--format=%B", "-E", "--grep=^Dream-(Cursor|Cursor-Reset|Position): ")
        return Trailers.parse(body) if body else None

    # line history -----------------------------------------------------------------------------------

    def line_times(self, path: str) -> list[int | None] | None:
        """When each line of the working-tree file last changed (committer epoch seconds; None = not committed).

        One `git blame` per file, whatever its length. None when git cannot blame the file at all
        (no repository or no commit yet, or a file it has never tracked): all of it is new to git.
        """
        if not self.exists or not self.head_sha():
            return None
        try:
            out = self.repo.git.blame("--line-porcelain", "--", path)
        except git.GitCommandError:
            return None
        return parse_line_porcelain(out)


    def last_change_times(self, prefix: str) -> dict[str, int]:
        """Committer time (epoch seconds) of the newest commit touching each file under `prefix`.

        One `git log` for the whole folder, however many files it holds; {} without a commit yet.
        """
        if not self.exists or not self.head_sha():
            return {}
        out = self.repo.git.log("--format=@%ct", "--name-only", "--no-renames", "HEAD", "--", prefix)
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
        commits = _parse_log(self.repo.git.log(*args, rev, "--"))
        return [c for c in commits if kind is None or c.kind == kind]

    def resolve_commit(self, ref: str) -> str:
        """The full sha of `ref` when it names a commit in the history of HEAD, else UnknownCommit."""
        if not self.exists or not self.head_sha():
            raise UnknownCommit("this workspace has no memory commits yet")
        if not ref or ref.startswith("-"):
            raise UnknownCommit(f"{ref!r} is not a commit")
        try:
            sha = self.repo.git.rev_parse("--verify", "-q", "--end-of-options", f"{ref}^{{commit}}")
        except git.GitCommandError:
            raise UnknownCommit(f"no commit {ref!r} in this workspace's memory history") from None
        try:
            self.repo.git.merge_base("--is-ancestor", sha, "HEAD")
        except git.GitCommandError:
            raise UnknownCommit(f"{ref} is not in the current memory history (HEAD does not contain it)") from None
        return sha

    def commit_info(self, sha: str) -> MemoryCommit:
        return _parse_log(self.repo.git.log("-1", "-z", "--numstat", "--no-renames",
                                            f"--format={_LOG_FORMAT}", sha, "--"))[0]

    def commit_diff(self, sha: str) -> str:
        """The commit's patch against its first parent (against nothing for the first commit)."""
        return self.repo.git.show("--format=", "--patch", "--no-renames", "--no-color", "--no-ext-diff", sha, "--",
                                  strip_newline_in_stdout=False)

    def tree_paths(self, rev: str) -> dict[str, str]:
        """Every file path at `rev` with its blob id."""
        out = self.repo.git.ls_tree("-r", "-z", "--full-tree", rev)
        paths = {}
        for record in out.split("\0"):
            if record:
                meta, path = record.split("\t", 1)
                paths[path] = meta.split()[2]
        return paths

    def blob(self, blob_id: str) -> bytes:
        return self.repo.git.cat_file("blob", blob_id, stdout_as_string=False, strip_newline_in_stdout=False)

    def three_way_merge(self, ours: bytes, base: bytes, theirs: bytes) -> bytes | None:
        """Merge the change base→theirs into ours with `git merge-file`; None when they conflict."""
        with TemporaryDirectory(prefix="nanodream-merge-") as tmp:
            names = []
            for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
                (Path(tmp) / name).write_bytes(data)
                names.append(str(Path(tmp) / name))
            status, merged, stderr = self.repo.git.merge_file(
                "-p", "-q", *names, with_extended_output=True, with_exceptions=False, stdout_as_string=False,
                strip_newline_in_stdout=False)
        if status == 0:
            return merged
        if 0 < status < 128:
            return None
        raise git.GitCommandError(["git", "merge-file"], status, stderr)


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
