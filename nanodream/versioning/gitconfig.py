"""What in a repository's configuration would make git run a program, and the overrides that keep it from doing so.

Git runs commands from many places a repository configures: hooks (`.git/hooks/*`, `core.hooksPath`), the
file-system monitor (`core.fsmonitor`), filter and diff drivers bound by `.gitattributes` (`filter.<driver>.*`,
`diff.<driver>.textconv`/`command`, `diff.external`), signing and verification (`gpg.program` with
`commit.gpgSign` or `log.showSignature`), transports (`core.sshCommand`, `credential.helper`,
`remote.<name>.uploadpack`, `protocol.ext.allow`, …), the pager and the editor, and includes that can bring any
of these in. In a fleet the repository belongs to a tenant, and one of those commands would run in the worker
with the worker's rights. So nanodream never obeys them: every call carries command-line overrides
(`OVERRIDES`, plus `driver_overrides` for each filter driver named anywhere in the configuration), which beat
every configuration file, included ones too; and `status` names what a workspace asks for (`findings`).

This module only reads and judges; versioning/gitrunner.py runs git with it.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from nanodream.atomic import read_bytes

# Set on every call, from the command line: no configuration file can turn them back on.
OVERRIDES: tuple[tuple[str, str], ...] = (
    ("core.hooksPath", "/dev/null"),  # git looks for /dev/null/<hook>, which cannot exist: no hook runs
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),  # never started (output is a pipe, and `--no-pager`), spelled out anyway
    ("core.editor", ":"), ("sequence.editor", ":"),  # ":" is git's "no editor"
    ("core.askPass", ""), ("credential.helper", ""),  # an empty helper resets the list
    ("protocol.allow", "never"),  # no transport at all: ssh, ext::, remote helpers, proxies, upload-pack
    ("commit.gpgSign", "false"), ("tag.gpgSign", "false"), ("push.gpgSign", "false"),
    ("log.showSignature", "false"),  # verifying a signature runs gpg.program
    ("gc.auto", "0"), ("maintenance.auto", "false"),  # no background housekeeping (and its pre-auto-gc hook)
    ("core.untrackedCache", "false"),
)
# Added after the subcommand: textconv and external diff drivers (diff.<driver>.*, diff.external) stay off.
DIFF_FLAGS = {"log": ("--no-textconv", "--no-ext-diff"), "show": ("--no-textconv", "--no-ext-diff"),
              "diff": ("--no-textconv", "--no-ext-diff"), "blame": ("--no-textconv",)}

# What each kind of key would run, for a person reading `status`. Keys are matched in git's spelling
# (section and name lower case, a subsection as written).
_PROGRAM_KEYS: tuple[tuple[str, str], ...] = (
    (r"core\.hookspath", "hooks"),
    (r"core\.fsmonitor", "a file-system monitor"),
    (r"core\.(sshcommand|gitproxy|askpass)", "a transport or password helper"),
    (r"core\.alternaterefscommand", "a command advertising refs"),
    (r"core\.(pager|editor)|sequence\.editor|pager\..+", "a pager or an editor"),
    (r"diff\.external|diff\..+\.(textconv|command)", "a diff driver"),
    (r"filter\..+\.(clean|smudge|process)", "a filter driver"),
    (r"merge\..+\.driver", "a merge driver"),
    (r"gpg\.program|gpg\..+\.program|gpg\.ssh\.defaultkeycommand", "a signing program"),
    (r"(commit|tag|push)\.gpgsign|log\.showsignature|merge\.verifysignatures", "a signing program"),
    (r"credential\.helper|credential\..+\.helper", "a credential helper"),
    (r"remote\..+\.(uploadpack|receivepack|vcs)|protocol\.allow|protocol\..+\.allow", "a transport"),
    (r"uploadpack\.packobjectshook|receive\.procreceiverefs|hook\..+", "hooks"),
    (r"include\.path|includeif\..+\.path", "an included file (which could set any of these)"),
    (r"alias\..+", "a shell alias"),
    (r"(difftool|mergetool|man|browser)\..+\.(cmd|path)|web\.browser|guitool\..+\.cmd", "a helper program"),
    (r"instaweb\.(httpd|browser)|imap\.tunnel|interactive\.difffilter|tar\..+\.command", "a helper program"),
    (r"sendemail\.(smtpserver|sendmailcmd|tocmd|cccmd|headercmd)|submodule\..+\.update", "a helper program"),
)
_MATCHERS = tuple((re.compile(pattern + r"\Z", re.IGNORECASE), runs) for pattern, runs in _PROGRAM_KEYS)
_FALSE = frozenset({"false", "no", "off", "0", ""})
# Keys that run something only when switched on (or, for these, set to something other than their off value).
_SWITCHES = re.compile(r"(commit|tag|push)\.gpgsign|log\.showsignature|merge\.verifysignatures|core\.fsmonitor"
                       r"|pager\..+|protocol\.(.+\.)?allow|alias\..+|submodule\..+\.update", re.IGNORECASE)
_WORKSPACE_SCOPES = frozenset({"local", "worktree"})
_FILTER_KEY = re.compile(r"filter\.(.+)\.[a-z]+\Z", re.IGNORECASE)


@dataclass(frozen=True)
class ConfigEntry:
    """One line of `git config --list --show-scope --show-origin`."""

    scope: str  # system | global | local | worktree | command
    origin: str  # "file:.git/config", "command line:"
    key: str
    value: str


@dataclass(frozen=True)
class Finding:
    """Something a workspace's repository configures that would run a program; nanodream ignores it."""

    key: str  # core.fsmonitor, filter.lfs.clean, .git/hooks/pre-commit
    origin: str  # where it is set: .git/config, an included file, .git/hooks
    runs: str  # what it would run, in a person's words

    def describe(self) -> str:
        return f"{self.key} ({self.origin})"


def parse_listing(output: bytes) -> list[ConfigEntry]:
    """`git config --list -z --show-scope --show-origin`: scope NUL origin NUL key[NL value] NUL, repeated."""
    fields = output.decode("utf-8", "surrogateescape").split("\0")
    entries = []
    for index in range(0, len(fields) - 2, 3):
        scope, origin, pair = fields[index:index + 3]
        key, _, value = pair.partition("\n")
        entries.append(ConfigEntry(scope, origin, key, value))
    return entries


def runs_a_program(entry: ConfigEntry) -> str:
    """What the entry would run ('' when it runs nothing): a switch only when it is on, a key when it is set."""
    for matcher, runs in _MATCHERS:
        if matcher.match(entry.key):
            return "" if _switched_off(entry) else runs
    return ""


def _switched_off(entry: ConfigEntry) -> bool:
    if not _SWITCHES.match(entry.key):
        return False
    value = entry.value.strip().lower()
    if entry.key.lower().startswith("alias."):
        return not value.startswith("!")  # only a shell alias runs a program
    if entry.key.lower().startswith("submodule."):
        return not value.startswith("!")
    if entry.key.lower().startswith("protocol."):
        return value == "never"
    if entry.key.lower().startswith("pager."):
        return value in _FALSE or value in ("true", "yes", "on", "1")  # a boolean only pages (not run: a pipe)
    return value in _FALSE


def findings(entries: Iterable[ConfigEntry], root: Path) -> list[Finding]:
    """What the workspace's own configuration (local and worktree scope, included files too) asks git to run,
    and the hooks its repository holds; the machine's own (system, global) configuration is not the workspace's."""
    found = [Finding(entry.key, _shown_origin(entry.origin, root), runs) for entry in entries
             if entry.scope in _WORKSPACE_SCOPES and (runs := runs_a_program(entry))]
    return found + hooks(root)


def hooks(root: Path) -> list[Finding]:
    """Executable files in `.git/hooks` (git's samples end in .sample and are not executable)."""
    folder = root / ".git" / "hooks"
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    return [Finding(f".git/hooks/{entry.name}", ".git/hooks", "a hook") for entry in entries
            if not entry.name.endswith(".sample") and _executable(entry)]


def _executable(entry: os.DirEntry) -> bool:
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISLNK(info.st_mode) or (stat.S_ISREG(info.st_mode) and bool(info.st_mode & 0o111))


def file_findings(root: Path) -> list[Finding]:
    """`findings` from the workspace's own configuration files read directly, without starting git: what a
    fleet's sweep can afford for every due workspace. Every key the workspace sets is in these files, an include
    among them (itself a finding); an odd spelling this reader misses is still never obeyed (the overrides), and
    the job checks again through git."""
    entries = []
    for name in ("config", "config.worktree"):
        try:
            text = read_bytes(root / ".git" / name, 1024 * 1024).decode("utf-8", "replace")
        except OSError:
            continue
        entries += [ConfigEntry("local", f".git/{name}", key, value) for key, value in _keys(text)]
    return findings(entries, root)


_SECTION = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)\Z', re.DOTALL)
_KEY = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?\Z", re.DOTALL)


def _keys(text: str) -> list[tuple[str, str]]:
    """(section[.subsection].name, value) for each variable of a git configuration file, as git spells keys."""
    found, section = [], ""
    for line in _joined(text):
        header = _SECTION.match(line)
        if header:
            name, sub, line = header.group(1).lower(), header.group(2), header.group(3)
            if sub is None and "." in name:  # the old [section.subsection] spelling
                name, _, sub = name.partition(".")
            section = f"{name}.{sub}" if sub is not None else name
        variable = _KEY.match(line) if section and line.strip() and line.lstrip()[0] not in "#;" else None
        if variable:
            found.append((f"{section}.{variable.group(1).lower()}", _value(variable.group(2))))
    return found


def _joined(text: str) -> list[str]:
    """Lines with git's backslash continuations joined."""
    return re.sub(r"\\\r?\n", "", text).splitlines()


def _value(raw: str | None) -> str:
    if raw is None:
        return "true"  # a bare key is a boolean set to true
    value = re.split(r'\s[#;]', raw, maxsplit=1)[0].strip() if '"' not in raw else raw.strip()
    return value.strip('"')


def driver_overrides(entries: Iterable[ConfigEntry]) -> list[tuple[str, str]]:
    """Empty commands for every filter driver the configuration defines, in any scope: `.gitattributes` can bind
    a driver to any path, and git runs its clean filter on `add`, `status` and `blame` of the working tree."""
    names = sorted({match.group(1) for entry in entries if entry.scope != "command"
                    and (match := _FILTER_KEY.match(entry.key))})
    return [(f"filter.{name}.{part}", value) for name in names
            for part, value in (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))]


def _shown_origin(origin: str, root: Path) -> str:
    path = origin.removeprefix("file:")
    for prefix in (f"{root}{os.sep}", f"{os.path.realpath(root)}{os.sep}"):
        if path.startswith(prefix):
            return path[len(prefix):]
    return path
