"""The one place nanodream runs git: the `git` binary, in the workspace, with a scrubbed environment.

Started from a git hook or inside another repository's tooling, variables such as GIT_DIR, GIT_WORK_TREE and
GIT_INDEX_FILE would redirect every command to the wrong repository. `no_git_env` drops every GIT_*
variable but a few harmless ones, and `run_git` names the workspace's own repository explicitly.

A plain subprocess is one code path, costs `status` nothing at import, and can scrub the environment (a
wrapper that only adds variables to it cannot).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

# GIT_* variables that cannot redirect a command: git's helpers, TLS settings, tracing, and commit dates
# (a person back-dating their commits, or a test building a history of known ages).
_HARMLESS = ("GIT_EXEC_PATH", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_SSL_NO_VERIFY", "GIT_CONFIG_NOSYSTEM",
             "GIT_TRACE", "GIT_TRACE2", "GIT_TRACE2_EVENT", "GIT_TRACE2_PERF", "GIT_AUTHOR_DATE",
             "GIT_COMMITTER_DATE")


class GitError(RuntimeError):
    """A git command that failed; the message is one line: the command and git's own first line of complaint."""

    def __init__(self, args: tuple[str, ...], returncode: int, stderr: bytes) -> None:
        lines = stderr.decode("utf-8", "replace").strip().splitlines()
        reason = lines[0] if lines else f"exit status {returncode}"
        super().__init__(f"git {' '.join(args[:2])} failed: {reason}")
        self.returncode = returncode


def no_git_env(root: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without any GIT_* variable that could point git elsewhere, aimed at `root`.

    Before `git init` there is no `.git` to aim at: git then finds none and creates it where it is told.
    """
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("GIT_") or name in _HARMLESS}
    if (root / ".git").exists():
        env.update(GIT_DIR=str(root / ".git"), GIT_WORK_TREE=str(root))
    env.update(GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    env.update(extra or {})
    return env


def run_git(root: Path, *args: str, stdin: bytes | None = None, env: Mapping[str, str] | None = None,
            check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """Run `git ARGS` for the workspace at `root`; raise GitError on failure unless `check` is False."""
    done = subprocess.run(["git", *args], cwd=root, env=no_git_env(root, env), input=stdin, capture_output=True,
                          check=False)
    if check and done.returncode != 0:
        raise GitError(args, done.returncode, done.stderr)
    return done
