"""Every git concern of a workspace: its own repository, commits of memory files, and progress marks."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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
CURSOR_TRAILER = re.compile(r"^Dream-Cursor: (\d+)\.\.(\d+)\s*$", re.MULTILINE)
RESET_TRAILER = re.compile(r"^Dream-Cursor-Reset: (\d+)\s*$", re.MULTILINE)
# Variables that would send a git command to another repository (set by git hooks and other tooling).
REDIRECTING_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
                         "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE")


@dataclass(frozen=True)
class CommitRef:
    sha: str
    message: str


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

    def cursor_mark(self) -> int | None:
        """The cursor implied by the newest commit carrying a cursor trailer (dream or replay-restore)."""
        if not self.head_sha():
            return None
        body = self.repo.git.log("-1", "--format=%B", "-E", "--grep=^Dream-Cursor(-Reset)?: ")
        if not body:
            return None
        body = body.strip().split("\n\n")[-1]  # trailers live in the last paragraph only
        reset = RESET_TRAILER.search(body)
        if reset:
            return int(reset.group(1))
        match = CURSOR_TRAILER.search(body)
        return int(match.group(2)) if match else None

