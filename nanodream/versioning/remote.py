"""Where memory travels: the git remote a sync fetches from and pushes to, and what git says about the two sides.

Every command goes through the one git runner (gitrunner.run_git) with its environment and overrides; the ones
that reach the remote add only the transports gitrunner.TRANSPORT allows, and name the remote by its URL, so
nothing the repository configures for a remote (an upload-pack program, a remote helper) is used. nanodream never
runs `git merge`, `rebase`, `cherry-pick` or `pull`: it reads the three versions from here and merges them
itself (versioning/merge.py), so no merge driver or attribute a repository configures can apply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from nanodream.versioning.gitrunner import Completed, run_git
from nanodream.versioning.gitstore import GitStore, parse_line_porcelain

_CREDENTIALS = re.compile(r"(?<=://)[^/@\s]+@")
_REJECTED = ("fetch first", "non-fast-forward", "stale info", "already exists")


class NoRemote(Exception):
    """The workspace's repository has no such remote: a configuration mistake a person fixes."""


class RemoteFailed(Exception):
    """The remote could not be reached, or refused: one line, with no credential of its URL."""


class RemoteMoved(RemoteFailed):
    """The remote's branch moved while a sync merged: the push was refused, and the sync merges again."""


@dataclass(frozen=True)
class Remote:
    """A remote of the workspace's repository, and the branch both sides keep the memory on."""

    name: str
    url: str
    branch: str

    @property
    def shown(self) -> str:
        """The remote as messages say it: its name and URL, a password or token in the URL left out."""
        return f"{self.name} ({_CREDENTIALS.sub('', self.url)})"

    @property
    def tracking(self) -> str:
        """The remote-tracking ref that shows where the remote's branch was when last synced."""
        return f"refs/remotes/{self.name}/{self.branch}"


def find_remote(store: GitStore, name: str) -> Remote:
    """The remote `name` of the workspace's repository (its URL read from the configuration, which runs nothing)."""
    url = _text(run_git(store.workspace.root, "config", "--get", f"remote.{name}.url", check=False))
    if not url:
        raise NoRemote(f"no remote {name!r} in this workspace's git repository")
    if url.startswith("-"):
        raise NoRemote(f"remote {name!r} has a URL that reads as an option ({url[:40]!r})")
    branch = _text(run_git(store.workspace.root, "symbolic-ref", "--short", "-q", "HEAD", check=False)) or "main"
    return Remote(name, url, branch)


def remote_tip(store: GitStore, remote: Remote) -> str | None:
    """The commit the remote's branch is at now (None: the remote has no such branch yet, an empty remote)."""
    done = _reach(store, "ls-remote", "--heads", remote.url, f"refs/heads/{remote.branch}")
    if done.returncode != 0:
        raise RemoteFailed(f"cannot reach {remote.shown}: {_complaint(done)}")
    for line in _text(done).splitlines():
        sha, _, ref = line.partition("\t")
        if ref == f"refs/heads/{remote.branch}":
            return sha
    return None


def fetch(store: GitStore, remote: Remote, sha: str) -> None:
    """Bring the remote's commit `sha` and what it needs into the store's objects (its quarantine): no ref and no
    FETCH_HEAD are written. Nothing to do when the commit is already here."""
    if has_commit(store, sha):
        return
    done = _reach(store, "fetch", "--quiet", "--no-write-fetch-head", "--no-tags", "--no-recurse-submodules",
                  "--no-auto-gc", remote.url, sha)
    if done.returncode != 0:
        raise RemoteFailed(f"cannot fetch from {remote.shown}: {_complaint(done)}")


def push(store: GitStore, remote: Remote, sha: str) -> None:
    """Put commit `sha` on the remote's branch, only as a fast-forward (RemoteMoved when the branch moved on)."""
    done = _reach(store, "push", "--porcelain", "--quiet", "--no-verify", remote.url,
                  f"{sha}:refs/heads/{remote.branch}")
    if done.returncode == 0:
        return
    report = _text(done)
    if any(line.startswith("!") and any(word in line for word in _REJECTED) for line in report.splitlines()):
        raise RemoteMoved(f"{remote.shown} moved on while this sync merged")
    rejected = next((line.split("\t")[-1] for line in report.splitlines() if line.startswith("!")), "")
    raise RemoteFailed(f"{remote.shown} refused the push: {rejected or _complaint(done)}")


def _reach(store: GitStore, *args: str) -> Completed:
    return run_git(store.workspace.root, *args, env=store.environment, check=False, transport=True)


def default_branch(root: Path, url: str) -> str:
    """The branch a remote's HEAD names (`main` when it names none: an empty remote); RemoteFailed when the remote
    cannot be reached. Runs before the workspace has a repository of its own."""
    done = run_git(root, "ls-remote", "--symref", url, "HEAD", check=False, transport=True)
    if done.returncode != 0:
        raise RemoteFailed(f"cannot reach {_CREDENTIALS.sub('', url)}: {_complaint(done)}")
    for line in _text(done).splitlines():
        if line.startswith("ref: refs/heads/") and line.endswith("\tHEAD"):
            return line[len("ref: refs/heads/"):-len("\tHEAD")]
    return "main"


def add_remote(store: GitStore, name: str, url: str) -> None:
    """Name the workspace's memory remote (what `sync` reaches by default)."""
    run_git(store.workspace.root, "remote", "add", name, url)


# the two sides ----------------------------------------------------------------------------------------------


def has_commit(store: GitStore, sha: str) -> bool:
    return _run(store, "cat-file", "-e", f"{sha}^{{commit}}").returncode == 0


def merge_base(store: GitStore, ours: str, theirs: str) -> str | None:
    """The newest commit both histories hold (None: unrelated histories, which merge from nothing)."""
    return _text(_run(store, "merge-base", ours, theirs)) or None


def is_ancestor(store: GitStore, older: str, newer: str) -> bool:
    return _run(store, "merge-base", "--is-ancestor", older, newer).returncode == 0


def line_times(store: GitStore, rev: str, path: str) -> list[int | None]:
    """When each line of `path` at `rev` was last changed (committer epoch seconds), by one blame."""
    done = _run(store, "blame", "--line-porcelain", rev, "--", path)
    return parse_line_porcelain(_text(done)) if done.returncode == 0 else []


def last_change(store: GitStore, base: str | None, tip: str, path: str) -> int | None:
    """When `path` last changed between `base` and `tip` (committer epoch seconds); None when it did not."""
    span = f"{base}..{tip}" if base else tip
    out = _text(_run(store, "log", "-1", "--format=%ct", span, "--", path))
    return int(out) if out.isdigit() else None


@dataclass
class Outgoing:
    """Every object a push of `tip` would send: commits (with their messages) and blobs (with a path each)."""

    commits: list[tuple[str, str]] = field(default_factory=list)
    blobs: list[tuple[str, str]] = field(default_factory=list)  # (blob id, path it is first seen at)


def outgoing(store: GitStore, tip: str, remote_tip: str | None) -> Outgoing:
    """The objects `tip` holds that `remote_tip` does not: what would leave this machine."""
    exclude = ["--not", remote_tip] if remote_tip else []
    listed = [line.partition(" ") for line in _text(_run(store, "rev-list", "--objects", tip, *exclude)).splitlines()]
    paths = {sha: path for sha, _, path in listed if sha}
    kinds = _kinds(store, list(paths))
    found = Outgoing()
    found.blobs = [(sha, path) for sha, path in paths.items() if kinds.get(sha) == "blob"]
    log = _text(_run(store, "log", "-z", "--format=%H%n%B", tip, *exclude))
    found.commits = [(record.partition("\n")[0], record.partition("\n")[2]) for record in log.split("\0")
                     if record.strip()]
    return found


def _kinds(store: GitStore, ids: list[str]) -> dict[str, str]:
    if not ids:
        return {}
    out = _text(_run(store, "cat-file", "--batch-check=%(objectname) %(objecttype)", stdin="\n".join(ids) + "\n"))
    return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)


def _run(store: GitStore, *args: str, stdin: str | None = None) -> Completed:
    return run_git(store.workspace.root, *args, env=store.environment, check=False,
                   stdin=None if stdin is None else stdin.encode())


def _text(done: Completed) -> str:
    return done.stdout.decode("utf-8", "surrogateescape").strip()


def _complaint(done: Completed) -> str:
    lines = [line.strip() for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    line = next((line for line in lines if line.lower().startswith(("fatal", "error"))), lines[0] if lines else "")
    return _CREDENTIALS.sub("", line.removeprefix("fatal: ").removeprefix("error: ")) or f"exit {done.returncode}"
