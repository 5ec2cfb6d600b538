"""Where things live in a workspace, which files the dream may touch, and how to scaffold one."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePosixPath

# The three core memory files, spelled once.
SOUL, USER, MEMORY = "SOUL.md", "USER.md", "memory/MEMORY.md"
CORE_FILES = (SOUL, USER, MEMORY)
# `\Z`, not `$`: `$` also matches before a trailing newline, which let "skills/x/SKILL.md\n" through.
SKILL_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}\Z")
SKILL_PATH = re.compile(r"^skills/([^/]+)/SKILL\.md\Z")
# The characters a memory path may be spelled with; anything else (%, \\, spaces, controls, look-alike
# Unicode) is refused before any other check, so no decoding or normalisation can ever change its meaning.
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*")
PROTECTED_PATHS = ("nanodream.toml", "memory/history.jsonl")
PROTECTED_DIRS = ("prompts",)

# Tracked by the workspace's git repository; everything else (history, cursor, state) is ignored.
TRACKED_PATTERNS = (SOUL, USER, MEMORY, "memory/archive/", "memory/rejected.md", "memory/insights/", "skills/",
                    "prompts/", "nanodream.toml", ".gitignore")
# Facts still true but no longer hot, moved out of memory/MEMORY.md under pressure: tracked, never loaded by default.
ARCHIVE_DIR = "memory/archive"
ARCHIVE_RULE = "!/memory/archive/"
ARCHIVE_PATH = re.compile(r"^memory/archive/\d{4}-\d{2}\.md\Z")
# The line under an archive month's title; here, not in memory/archive.py, because recall skips it as boilerplate.
# Facts a person undid or rejected (see rejected.py): tracked, written by restore, never by the dream's tools.
REJECTED_FILE = "memory/rejected.md"
REJECTED_RULE = "!/memory/rejected.md"
# Connections a run proposed between what it learned and what was known (nanodream/insights/): tracked like the
# archive, never loaded by hosts as facts, never counted against a file's cap.
INSIGHTS_DIR = "memory/insights"
INSIGHTS_RULE = "!/memory/insights/"
ARCHIVE_INTRO = ("Facts no longer hot, moved out of memory/MEMORY.md to keep it under its cap, and facts no longer "
                 "true, each marked with the day it stopped being true (until) and what replaced it. Not loaded by "
                 "default; searchable, and in git.")
# What archive months written before replaced facts were kept there say under their title.
ARCHIVE_INTROS = (ARCHIVE_INTRO, "Facts still true but no longer hot, moved out of memory/MEMORY.md to keep it "
                                 "under its cap. Not loaded by default; searchable, and in git.")

GITIGNORE = """\
# nanodream versions only the agent's memory files; everything else stays out of git.
/*
!/.gitignore
!/SOUL.md
!/USER.md
!/nanodream.toml
!/memory/
/memory/*
!/memory/MEMORY.md
!/memory/archive/
!/memory/rejected.md
!/memory/insights/
!/skills/
!/prompts/
"""

STARTER_FILES = {
    "SOUL.md": "# Soul\n\nHow the agent behaves: rules, guardrails and tool-use strategy.\n\n## Rules\n",
    "USER.md": "# User\n\nWho the user is: identity, preferences and communication style.\n\n## Preferences\n",
    "memory/MEMORY.md": (
        "# Memory\n\nProject context: goals, architecture, decisions and infrastructure.\n\n## Project\n"
    ),
    "memory/history.jsonl": "",
}


class PathRefused(ValueError):
    """A path the dream's tools may not touch; the message tells the model what is allowed.

    `reaches_out` separates an attempt to leave the memory files (absolute, `..`, encoded, look-alike
    characters, git's or nanodream's own files, symlinks) from a plain name that is merely not a memory
    file (`MEMORY.md` without `memory/`), which a confused model corrects on the next call.
    """

    def __init__(self, message: str, *, reaches_out: bool = False) -> None:
        super().__init__(message)
        self.reaches_out = reaches_out


@dataclass(frozen=True)
class Workspace:
    """Paths of one agent workspace (nanobot-compatible layout).

    The root's parent is canonical (absolute, every link on the way resolved): nanodream's reads refuse a link at
    any component of a path (atomic.open_plain), so the only links they can meet are the workspace folder itself
    (followed only by `Workspace.at`, a person naming their workspace) and links inside it.
    """

    root: Path

    def __post_init__(self) -> None:
        absolute = Path(os.path.abspath(self.root))
        object.__setattr__(self, "root", Path(os.path.realpath(absolute.parent)) / absolute.name
                           if absolute.name else absolute)

    @classmethod
    def at(cls, path: str | Path) -> Workspace:
        return cls(Path(path).expanduser().resolve())

    @property
    def history_file(self) -> Path:
        return self.root / "memory" / "history.jsonl"

    @property
    def cursor_file(self) -> Path:
        return self.root / "memory" / ".dream_cursor"

    @property
    def config_file(self) -> Path:
        return self.root / "nanodream.toml"

    @property
    def prompt_override(self) -> Path:
        return self.root / "prompts" / "dream.md"

    @property
    def state_dir(self) -> Path:
        """Unversioned run state: lock, journal, run records, transcripts."""
        return self.root / ".nanodream"

    @property
    def lock_file(self) -> Path:
        return self.state_dir / "dream.lock"

    @property
    def journal_file(self) -> Path:
        return self.state_dir / "journal.json"

    @property
    def runs_file(self) -> Path:
        return self.state_dir / "runs.jsonl"

    @property
    def missing(self) -> bool:
        """No workspace here yet (as opposed to a broken one): `init` is the way forward."""
        return not self.root.exists() or (self.root.is_dir() and not any(
            (self.root / marker).exists() for marker in ("SOUL.md", "USER.md", "memory")))

    def problem(self) -> str | None:
        """Why this directory is not an agent workspace, or None when it is one."""
        if not self.root.is_dir():
            return f"{self.root} is a file, not a workspace directory" if self.root.exists() else (
                f"no workspace at {self.root}")
        if not any((self.root / marker).exists() for marker in ("SOUL.md", "USER.md", "memory")):
            return f"{self.root} is not an agent workspace (no SOUL.md, USER.md or memory/)"
        return self._misplaced()

    def _misplaced(self) -> str | None:
        """A file where a folder belongs or the other way round (links: nanodream/layout.py, exit 78)."""
        expected = [(self.root / rel, True) for rel in CORE_FILES]
        expected += [(self.history_file, True), (self.lock_file, True), (self.state_dir, False)]
        for path, is_file in expected:
            if path.exists() and path.is_file() != is_file:
                return f"{path} is not a {'file' if is_file else 'directory'}; move it away"
        return None

    def memory_paths(self) -> list[str]:
        """Workspace-relative paths of every memory file that exists now, core files first.

        A file reached through a symlink anywhere on its way (a linked `memory/` or skill folder) is left
        out, so its outside content is never staged, shown to the model or written back.
        """
        paths = [p for p in CORE_FILES if _is_plain_file(self.root, p)]
        skills_dir = self.root / "skills"
        if skills_dir.is_dir() and not skills_dir.is_symlink():
            # One stat per skill: a run asks this several times a batch, and a workspace may hold 1,000 skills.
            paths += [f"skills/{child.name}/SKILL.md" for child in _skill_folders(skills_dir)
                      if SKILL_NAME.match(child.name) and not child.is_symlink()
                      and child.is_dir(follow_symlinks=False) and _is_regular(os.path.join(child.path, "SKILL.md"))]
        return paths

    def linked_skills(self) -> list[str]:
        """Skills reached through a symbolic link — `skills/` itself, a skill's folder, or its SKILL.md — which
        nanodream leaves alone: people share skills between agents this way, and a dream neither reads, writes,
        indexes nor commits through a link (it could lead into another agent's files)."""
        skills_dir = self.root / "skills"
        if skills_dir.is_symlink():
            return ["skills"]
        if not skills_dir.is_dir():
            return []
        linked = []
        for child in _skill_folders(skills_dir):
            if child.is_symlink():
                linked.append(f"skills/{child.name}")
            elif child.is_dir(follow_symlinks=False) and os.path.islink(os.path.join(child.path, "SKILL.md")):
                linked.append(f"skills/{child.name}/SKILL.md")
        return linked

    def check_memory_path(self, path: str, *, archive: bool = False) -> str:
        """Return `path` if the dream may read or write it, else raise PathRefused saying why.

        With `archive`, a month of the archive (`memory/archive/YYYY-MM.md`) passes too (for reading).

        Only exact, plain spellings pass: anything that would need normalising, decoding or following a
        link to mean a memory file is refused, and flagged as reaching out of the memory files.
        """
        if not isinstance(path, str) or not path.strip():
            raise PathRefused("path is empty; use SOUL.md, USER.md, memory/MEMORY.md or skills/<name>/SKILL.md",
                              reaches_out=True)
        shown = shown_value(path)
        if path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", path):
            raise PathRefused(f"{shown} is absolute; paths are relative to the workspace, e.g. USER.md",
                              reaches_out=True)
        parts = PurePosixPath(path).parts
        if (not parts or not _PLAIN_PATH.fullmatch(path) or ".." in parts or "." in parts
                or str(PurePosixPath(path)) != path):
            raise PathRefused(f"{shown} is not a plain workspace path; write it like skills/<name>/SKILL.md",
                              reaches_out=True)
        if any(part.startswith(".") for part in parts) or path in PROTECTED_PATHS or parts[0] in PROTECTED_DIRS:
            raise PathRefused(f"{shown} is nanodream's or git's own file; the dream may only touch memory files",
                              reaches_out=True)
        skill = SKILL_PATH.fullmatch(path)
        if path not in CORE_FILES and not skill and not (archive and ARCHIVE_PATH.fullmatch(path)):
            raise PathRefused(
                f"{shown} is outside the memory files; allowed: SOUL.md, USER.md, memory/MEMORY.md, "
                "skills/<name>/SKILL.md"
            )
        if skill and not SKILL_NAME.fullmatch(skill.group(1)):
            raise PathRefused(f"skill name {skill.group(1)!r} must be lowercase letters, digits and '-'")
        current = self.root
        for part in parts:
            current = current / part
            if current.is_symlink():
                if skill:  # a linked skill is someone's shared skill, not an escape: the model picks another name
                    raise PathRefused(f"{shown} goes through a symlink: a linked skill, which nanodream leaves "
                                      "alone; file this in another skill or in memory/MEMORY.md")
                raise PathRefused(f"{shown} goes through a symlink; symlinked memory files are not allowed",
                                  reaches_out=True)
        return path


def shown_value(value: object, limit: int = 80) -> str:
    """A model-supplied value as it may appear in messages and logs: quoted, escaped and cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "…" + text[-3:]


def _skill_folders(skills_dir: Path) -> list[os.DirEntry[str]]:
    """The entries of `skills/` by name (a DirEntry knows whether it is a link without another system call)."""
    with os.scandir(skills_dir) as entries:
        return sorted(entries, key=lambda entry: entry.name)


def _is_regular(path: str) -> bool:
    """A regular file at `path` itself, not a link to one."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_plain_file(root: Path, rel: str) -> bool:
    """A regular file reached from `root` without following any symlink."""
    current = root
    for part in PurePosixPath(rel).parts:
        current = current / part
        if current.is_symlink():
            return False
    return current.is_file()


def scaffold(root: Path, *, example: bool = False) -> list[str]:
    """Create the workspace layout without overwriting anything; return the paths created."""
    created: list[str] = []
    if root.exists() and not root.is_dir():
        raise NotADirectoryError(f"{root} is a file, not a directory; choose another path for the workspace")
    root.mkdir(parents=True, exist_ok=True)
    sources: dict[str, bytes] = {rel: text.encode() for rel, text in STARTER_FILES.items()}
    sources[".gitignore"] = GITIGNORE.encode()
    if example:
        sources.update(_example_files())
    for rel, data in sorted(sources.items()):
        target = root / rel
        if target.exists() or target.is_symlink():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        created.append(rel)
    (root / "skills").mkdir(exist_ok=True)
    return created


def _example_files() -> dict[str, bytes]:
    """The shipped example workspace, read from package data so it works from an installed wheel."""
    base = resources.files("nanodream") / "workspace_example"
    files: dict[str, bytes] = {}

    def walk(node, prefix: str) -> None:
        for child in node.iterdir():
            rel = f"{prefix}{child.name}"
            if child.is_dir():
                if child.name != "__pycache__":
                    walk(child, rel + "/")
            else:
                files[rel] = child.read_bytes()

    walk(base, "")
    return files

