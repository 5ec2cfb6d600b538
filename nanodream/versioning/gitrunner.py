"""The one place nanodream runs git: the `git` on PATH, in the workspace, with configured commands off and an
environment that carries nothing it does not need.

Three things can make a git command do more than it says, and each is closed here for every call:

- **The environment.** Started from a git hook or inside another repository's tooling, variables such as
  GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE would redirect every command to the wrong repository; and whatever
  a git child inherits, a program it starts can read — in a fleet worker, the provider's key. So a git child
  gets an allowlist (`KEPT`: PATH, HOME and a few locale and date variables), never the rest of this process's
  environment, and nanodream names the repository itself. GIT_CEILING_DIRECTORIES keeps git from finding a
  repository above the workspace.
- **The repository's configuration.** Hooks, the file-system monitor, filter and diff drivers, signing,
  transports, pager and editor are all turned off by command-line configuration (gitconfig.OVERRIDES and
  gitconfig.driver_overrides), passed as GIT_CONFIG_COUNT/KEY/VALUE: the command scope outranks every
  configuration file, included ones too, and needs no quoting of a driver's name. Diff commands also get
  --no-textconv and --no-ext-diff, and every command --no-pager.
- **Optional locks.** A reading command never takes `index.lock` to refresh the index (GIT_OPTIONAL_LOCKS=0),
  so killing one leaves nothing behind.

The overrides need the names of the filter drivers the configuration defines, so the configuration is read
once (`git config --list`, which runs nothing) and again only when a file it came from changes.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from nanodream.versioning.gitconfig import (
    DIFF_FLAGS,
    OVERRIDES,
    ConfigEntry,
    Finding,
    driver_overrides,
    findings,
    parse_listing,
)

# What a git child keeps of this process's environment: finding git and its helpers, the machine owner's own
# git configuration (HOME, XDG_CONFIG_HOME: identity, safe.directory), temporary files, time and dates (a person
# back-dating commits, a test building a history of known ages), and tracing for whoever debugs git. Nothing
# else — not a provider key, not a Redis URL, not NANODREAM_*.
KEPT = ("PATH", "HOME", "XDG_CONFIG_HOME", "TMPDIR", "TZ", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE",
        "GIT_CONFIG_NOSYSTEM", "GIT_EXEC_PATH", "GIT_TRACE", "GIT_TRACE2", "GIT_TRACE2_EVENT", "GIT_TRACE2_PERF")


Completed = subprocess.CompletedProcess[bytes]  # what a finished git command gives back


class GitError(RuntimeError):
    """A git command that failed; the message is one line: the command and git's own first line of complaint."""

    def __init__(self, args: tuple[str, ...], returncode: int, stderr: bytes) -> None:
        lines = stderr.decode("utf-8", "replace").strip().splitlines()
        reason = lines[0] if lines else f"exit status {returncode}"
        super().__init__(f"git {' '.join(args[:2])} failed: {reason}")
        self.returncode = returncode


def git_environment(root: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a git child working on the workspace at `root` (see the module's docstring).

    Before `git init` there is no `.git` to aim at: git then finds none (not even above `root`) and creates it
    where it is told.
    """
    env = {name: os.environ[name] for name in KEPT if name in os.environ}
    if (root / ".git").exists():
        env.update(GIT_DIR=str(root / ".git"), GIT_WORK_TREE=str(root))
    env.update(GIT_CEILING_DIRECTORIES=str(root.parent), GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0",
               LC_ALL="C")
    env.update(extra or {})
    return env


# What a command that reaches a remote (`sync`'s fetch and push, `init --from`) may use, on top of the overrides:
# a path on this machine, ssh and https, and nothing else (no ext::, no remote helper a repository names); ssh is
# the person's own `ssh` with their ~/.ssh/config and agent, never a command a repository configures. A URL is
# always given on the command line, so no `remote.<name>.uploadpack` or `receivepack` of the repository applies.
TRANSPORT: tuple[tuple[str, str], ...] = (
    ("protocol.file.allow", "always"), ("protocol.ssh.allow", "always"), ("protocol.https.allow", "always"),
    ("core.sshCommand", "ssh"),
)
TRANSPORT_KEPT = ("SSH_AUTH_SOCK",)  # the person's ssh agent, for a key with a passphrase


def run_git(root: Path, *args: str, stdin: bytes | None = None, env: Mapping[str, str] | None = None,
            check: bool = True, transport: bool = False) -> Completed:
    """Run `git ARGS` for the workspace at `root`; raise GitError on failure unless `check` is False.

    `transport`: the command reaches a remote (`TRANSPORT`)."""
    # Before `git init` there is no repository configuration to read, and `init` runs no filter driver.
    overrides = [*OVERRIDES, *(TRANSPORT if transport else ()),
                 *(_guard(root).drivers if (root / ".git").exists() else ())]
    extra = {name: os.environ[name] for name in TRANSPORT_KEPT if transport and name in os.environ}
    done = _spawn(root, _argv(args), {**git_environment(root, {**extra, **(env or {})}),
                                      **_config_variables(overrides)}, stdin)
    if check and done.returncode != 0:
        raise GitError(args, done.returncode, done.stderr)
    return done


def repository_programs(root: Path) -> list[Finding]:
    """What the workspace's repository configures that would run a program (nanodream runs none of them)."""
    return list(_guard(root).findings) if (root / ".git").is_dir() else []


def _argv(args: tuple[str, ...]) -> list[str]:
    flags = DIFF_FLAGS.get(args[0], ()) if args else ()
    return ["git", "--no-pager", *args[:1], *flags, *args[1:]]


def _config_variables(pairs: list[tuple[str, str]]) -> dict[str, str]:
    variables = {"GIT_CONFIG_COUNT": str(len(pairs))}
    for index, (key, value) in enumerate(pairs):
        variables[f"GIT_CONFIG_KEY_{index}"] = key
        variables[f"GIT_CONFIG_VALUE_{index}"] = value
    return variables


def _spawn(root: Path, argv: list[str], env: dict[str, str], stdin: bytes | None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, cwd=root, env=env, input=stdin, capture_output=True, check=False)


# the configuration, read once per change ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Guard:
    signature: tuple
    drivers: tuple[tuple[str, str], ...]
    findings: tuple[Finding, ...]


_GUARDS: dict[Path, _Guard] = {}


def _guard(root: Path) -> _Guard:
    """The overrides and findings for the repository's configuration as it is now (cached while no file it came
    from, nor `.git/config`, `.git/HEAD` or the hooks folder, has changed)."""
    known = _GUARDS.get(root)
    if known is not None and known.signature == _signature(root, known.signature[0]):
        return known
    entries = _read_configuration(root)
    origins = tuple(sorted({entry.origin.removeprefix("file:") for entry in entries
                            if entry.origin.startswith("file:")}))
    guard = _Guard(_signature(root, origins), tuple(driver_overrides(entries)), tuple(findings(entries, root)))
    _GUARDS[root] = guard
    return guard


def _signature(root: Path, origins: tuple[str, ...]) -> tuple:
    watched = [root / ".git" / "config", root / ".git" / "config.worktree", root / ".git" / "HEAD",
               root / ".git" / "hooks", *(root / origin for origin in origins)]
    return (origins, *(_stat(path) for path in watched))


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


def _read_configuration(root: Path) -> list[ConfigEntry]:
    """Every configuration entry git would use here, includes followed; reading configuration runs nothing.

    A configuration git cannot read makes every other command fail too, with git's own reason: nothing to add.
    """
    env = {**git_environment(root), **_config_variables(list(OVERRIDES))}
    done = _spawn(root, ["git", "--no-pager", "config", "--list", "-z", "--show-scope", "--show-origin"], env, None)
    return parse_listing(done.stdout) if done.returncode == 0 else []
