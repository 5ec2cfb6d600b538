"""One Settings object from nanodream.toml, then nanodream.local.toml, then NANODREAM_* environment variables,
then flags; and this machine's own settings for `sync` (`[sync]`: its name and its remote).

nanodream.toml is tracked and travels with the memory (`nanodream sync`), so whatever belongs to one machine —
its name in `Machine:` trailers, the remote it syncs with, a local model server's address — lives in
nanodream.local.toml (never tracked: the `.gitignore` allowlist leaves it out) or in the environment.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import socket
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from nanodream.atomic import read_bytes
from nanodream.vocab import BUILTIN_MODEL, numbered
from nanodream.workspace import Workspace

# A configuration file is a few kilobytes; one larger than this is not read (it cannot be a mistake worth parsing).
MAX_CONFIG_BYTES = 1024 * 1024


class ConfigError(ValueError):
    """Configuration that cannot be used; the message names the source and the key."""


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know besides the workspace itself."""

    model: str = "builtin"
    api_base: str | None = None
    api_key: str | None = None  # from NANODREAM_API_KEY or a flag only: never from nanodream.toml (it is committed)
    api_key_env: str | None = None  # the name of the environment variable that holds the key
    tool_mode: str = "auto"  # auto | native | text | structured: how the model files facts (README "Local models")
    # Tokens one answer may generate: bounds every request (a small local model can otherwise generate until its
    # context is full, for minutes). Sized for a dream's answer: a turn of edits or a new skill and a summary.
    max_tokens: int = 4096
    timeout: float = 120.0  # seconds per request: keep it above max_tokens / the server's tokens per second
    max_retries: int = 3
    retry_backoff: float = 2.0
    batch_tokens: int = 8000
    lookback_tokens: int = 1500  # budget of already-consumed history shown with `run --lookback DAYS`
    max_batches: int = 20
    max_run_tokens: int = 400_000
    max_session_tokens: int = 150_000
    max_tool_calls: int = 40
    max_cost: float | None = None
    max_file_chars: int = 24_000
    max_skill_chars: int = 12_000
    max_shrink_ratio: float = 0.5
    pressure_ratio: float = 0.9  # past this share of its cap a file is consolidated (MEMORY.md archived) down to it
    archive_after_days: int = 90  # MEMORY.md lines untouched this long move to the archive; 0 = never by age
    ephemeral_max_age_days: int = 14
    timezone: str = "UTC"
    schedule: str | None = None
    host_wait: float = 600.0  # seconds a scheduled run waits for a busy host agent before giving up
    host_poll: float = 5.0  # seconds between looks at the host's busy file
    split_after: int = 3  # consecutive failures on the same batch before it is split to find a poisoned entry
    max_cursor_jump: int = 1000  # a cursor rising by more than this between two lines is reported as an anomaly
    keep_transcripts: int = 50  # session transcripts kept under .nanodream/transcripts (0: keep none)
    # guards (docs/guards.md)
    max_repeated_failures: int = 3
    secret_policy: str = "refuse"
    injection_policy: str = "refuse"
    soul_policy: str = "tagged"
    review: str = "off"  # off | all (`review = true`) | soul: changes wait on refs/nanodream/pending (docs/review.md)
    mcp_write: bool = False  # `nanodream mcp` lists its write tools (dream, accept, restore, …) as --allow-write does
    # seconds a host's dream session (dream_begin over MCP) may sit idle before it expires and lets the workspace go
    host_session_timeout: float = 600.0
    ingest_chunk_tokens: int = 1500  # transcript tokens per history entry `nanodream ingest` writes (docs/ingest.md)
    keep_turns_mb: int = 256  # the newest MiB of ingested turns kept for recall in .nanodream/turns (0: keep none)
    # insights (docs/insights.md): the phases after the consolidation, and how many new insights a run may propose
    phases: tuple[str, ...] = ("reflect", "re-evaluate", "connect")
    max_insights: int = 3

    @property
    def offline(self) -> bool:
        return self.model == BUILTIN_MODEL

    def provider_key(self) -> str | None:
        """The API key for the provider: `api_key`, else the variable `api_key_env` names (else litellm's own)."""
        if self.api_key:
            return self.api_key
        return os.environ.get(self.api_key_env) if self.api_key_env else None


_FIELDS = {f.name: f for f in fields(Settings)}


def coerce_setting(name: str, value: Any, source: str) -> Any:
    """Convert a raw TOML or environment value to the field's type, with a message naming the source.

    An integer setting takes whole numbers only (TOML integers, or digits in a variable): never a float, so
    neither `1.5` nor `1e400` (infinity) slips through as something else.
    """
    kind = str(_FIELDS[name].type)
    if value is None or (isinstance(value, str) and value == "" and "None" in kind):
        return None
    try:
        if kind.startswith("tuple"):
            return _names(value)
        if kind.startswith("bool"):
            return _boolean(value)
        if kind.startswith("int"):
            return _whole_number(value)
        if kind.startswith("float"):
            return _finite_number(value)
        if name == "review" and isinstance(value, bool | str):  # `review = true` means every change waits
            value = _REVIEW_WORDS.get(str(value).lower(), value)
        if not isinstance(value, str):
            raise ValueError
        return value
    except (TypeError, ValueError, OverflowError):
        wanted = {"int": "a whole number", "float": "a number", "tuple[str,": "a list of names"}.get(
            kind.split(" ")[0], kind.split(" ")[0])
        raise ConfigError(f"{source}: {name} must be {wanted}, got {value!r}") from None


def _names(value: Any) -> tuple[str, ...]:
    """A TOML list of strings, or its spelling in a variable or flag: names separated by commas."""
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return tuple(item.strip() for item in value)
    raise ValueError


def _whole_number(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError
    return int(value)  # a string of digits; "1.5", "1e400", "inf" raise


def _finite_number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError
    number = float(value)  # an integer too large for a float raises OverflowError
    if not math.isfinite(number):
        raise ValueError
    return number


def _boolean(value: Any) -> bool:
    """A TOML boolean, or its spelling in an environment variable (true/false, 1/0, yes/no, on/off)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _BOOLEAN_WORDS:
        return _BOOLEAN_WORDS[value.strip().lower()]
    raise ValueError


def load_settings(workspace: Workspace, overrides: dict[str, Any] | None = None,
                  environ: dict[str, str] | None = None) -> Settings:
    """Merge the sources (the local file over the shared one); unknown keys and wrong types are errors, not silent
    defaults. A mistake in this machine's `[sync]` table is one too, whatever the command."""
    values: dict[str, Any] = {}
    values.update(read_settings_file(workspace.config_file))
    env = os.environ if environ is None else environ
    local = _local_tables(workspace)
    if "api_key" in local.settings:
        raise ConfigError(f"{LOCAL_CONFIG}: api_key is never read from a file; put the key in an environment variable "
                          "and name it: api_key_env = \"MY_KEY\"")
    values.update(settings_table(local.settings, LOCAL_CONFIG))
    _sync_from(local.sync, env)
    for name in _FIELDS:
        raw = env.get(f"NANODREAM_{name.upper()}")
        if raw is not None:
            values[name] = coerce_setting(name, raw, f"NANODREAM_{name.upper()}")
    for name, value in (overrides or {}).items():
        if value is not None:
            values[name] = coerce_setting(name, value, f"--{name.replace('_', '-')}")
    return build_settings(values)


def build_settings(values: dict[str, Any]) -> Settings:
    """Settings from already coerced values, checked against the rules (the fleet layers its own sources)."""
    settings = Settings(**values)
    _validate(settings)
    return settings


def read_settings_file(path: Path) -> dict[str, Any]:
    """The settings a workspace's nanodream.toml sets ({} without one); bad TOML, unknown keys and api_key refused."""
    if not path.is_file():
        return {}
    data = read_toml(path, path.name)
    table = data.get("nanodream", data)
    shared_sync(data, path.name)
    flat = {key: value for key, value in table.items() if key not in (INGEST_KEY, SYNC_KEY, *SECTIONS)}
    for name, keys in SECTIONS.items():
        flat.update(_section(table.get(name), name, keys, path.name))
    return settings_table(flat, path.name)


# Tables of nanodream.toml whose keys are settings of their own (`[mcp]` host_session_timeout = 300).
SECTIONS = {"mcp": ("host_session_timeout",)}


def _section(section: Any, name: str, keys: tuple[str, ...], source: str) -> dict[str, Any]:
    """The settings one `[name]` table sets ({} without it); anything but those keys is refused."""
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise ConfigError(f"{source}: {name} must be a table ([{name}]) holding {', '.join(keys)}")
    unknown = sorted(set(section) - set(keys))
    if unknown:
        raise ConfigError(f"{source} [{name}]: {unknown_names(unknown, keys)}")
    return section


# this machine's own: nanodream.local.toml and [sync] ---------------------------------------------------------

LOCAL_CONFIG = "nanodream.local.toml"
SYNC_KEY = "sync"
SYNC_KEYS = ("machine", "remote")
DEFAULT_REMOTE = "origin"
MACHINE_LIMIT = 64
_REMOTE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,99}\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


@dataclass(frozen=True)
class SyncSettings:
    """How this machine syncs: the name its commits carry (`Machine:`), and the git remote it syncs with."""

    machine: str
    remote: str = DEFAULT_REMOTE


@dataclass(frozen=True)
class _LocalTables:
    settings: dict[str, Any]
    sync: dict[str, Any]


def _local_tables(workspace: Workspace) -> _LocalTables:
    """nanodream.local.toml: settings (top level or [nanodream]) and the [sync] table; both empty without one."""
    path = workspace.root / LOCAL_CONFIG
    if not path.is_file():
        return _LocalTables({}, {})
    data = read_toml(path, LOCAL_CONFIG)
    sync = data.get(SYNC_KEY, {})
    if not isinstance(sync, dict):
        raise ConfigError(f"{LOCAL_CONFIG}: {SYNC_KEY} must be a table ([{SYNC_KEY}])")
    table = data.get("nanodream", {key: value for key, value in data.items() if key != SYNC_KEY})
    if not isinstance(table, dict):
        raise ConfigError(f"{LOCAL_CONFIG}: nanodream must be a table ([nanodream])")
    return _LocalTables(table, sync)


def sync_settings(workspace: Workspace, environ: Mapping[str, str] | None = None) -> SyncSettings:
    """This machine's `[sync]`: NANODREAM_SYNC_* over nanodream.local.toml over nanodream.toml's shared `remote`;
    the machine defaults to the host name. ConfigError names the source and the key."""
    shared = read_toml(workspace.config_file, workspace.config_file.name) if workspace.config_file.is_file() else {}
    return _sync_from(_local_tables(workspace).sync, os.environ if environ is None else environ,
                      shared_sync(shared, workspace.config_file.name))


def shared_sync(data: dict[str, Any], source: str) -> dict[str, Any]:
    """nanodream.toml's `[sync]`: it travels to every machine, so it may name the remote they share, never a
    machine (that is each machine's own: nanodream.local.toml or NANODREAM_SYNC_MACHINE)."""
    table = data.get(SYNC_KEY, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: {SYNC_KEY} must be a table ([{SYNC_KEY}])")
    if "machine" in table:
        raise ConfigError(f"{source} [{SYNC_KEY}] machine: {source} travels to every machine that syncs; a machine's "
                          f"name is its own: put it in {LOCAL_CONFIG} (never tracked) or set NANODREAM_SYNC_MACHINE")
    unknown = sorted(set(table) - {"remote"})
    if unknown:
        raise ConfigError(f"{source} [{SYNC_KEY}]: {unknown_names(unknown, ('remote',))}")
    return table


def _sync_from(table: dict[str, Any], env: Mapping[str, str], shared: dict[str, Any] | None = None) -> SyncSettings:
    unknown = sorted(set(table) - set(SYNC_KEYS))
    if unknown:
        raise ConfigError(f"{LOCAL_CONFIG} [{SYNC_KEY}]: {unknown_names(unknown, SYNC_KEYS)}")
    values = {key: (f"nanodream.toml [{SYNC_KEY}] {key}", value) for key, value in (shared or {}).items()}
    values.update({key: (f"{LOCAL_CONFIG} [{SYNC_KEY}] {key}", table[key]) for key in SYNC_KEYS if key in table})
    values.update({key: (f"NANODREAM_SYNC_{key.upper()}", env[f"NANODREAM_SYNC_{key.upper()}"])
                   for key in SYNC_KEYS if f"NANODREAM_SYNC_{key.upper()}" in env})
    machine = _machine(*values["machine"]) if "machine" in values else host_machine()
    remote = _remote(*values["remote"]) if "remote" in values else DEFAULT_REMOTE
    return SyncSettings(machine, remote)


def _machine(source: str, value: Any) -> str:
    name = value.strip() if isinstance(value, str) else ""
    if not name or len(name) > MACHINE_LIMIT or _CONTROL.search(name):
        raise ConfigError(f"{source} must be a name of 1 to {MACHINE_LIMIT} characters on one line (it goes into "
                          f"every commit's Machine: trailer), got {value!r}")
    return name


def _remote(source: str, value: Any) -> str:
    if not isinstance(value, str) or not _REMOTE_NAME.match(value):
        raise ConfigError(f"{source} must be the name of a git remote (letters, digits, . _ / -), got {value!r}")
    return value


def host_machine() -> str:
    """The host name, as a machine's default name (`unknown-machine` when the system has none fit to use)."""
    name = socket.gethostname().strip()
    return name if name and len(name) <= MACHINE_LIMIT and not _CONTROL.search(name) else "unknown-machine"


def machine_name(workspace: Workspace) -> str:
    """The name this machine's commits carry; never fails (a broken local file is said by every command that loads
    settings, so a commit made anyway falls back to the host name)."""
    try:
        return sync_settings(workspace).machine
    except (ConfigError, OSError):
        return host_machine()


def settings_table(table: dict[str, Any], source: str) -> dict[str, Any]:
    """Coerce a table of settings read from a file; `source` names the file (and table) in messages."""
    if "api_key" in table:
        raise ConfigError(f"{source}: api_key is not allowed here (this file is committed to the memory's git "
                          "history); put the key in an environment variable and name it: api_key_env = \"MY_KEY\" "
                          "(NANODREAM_API_KEY and the provider's usual variable work too)")
    unknown = sorted(set(table) - set(_FIELDS))
    if unknown:
        raise ConfigError(f"{source}: {unknown_names(unknown, _FIELDS)}")
    for name, kind, wanted in _TOML_ONLY:  # a file has real lists and integers: their spelling as text is a mistake
        if name in table and (not isinstance(table[name], kind) or isinstance(table[name], bool)):
            raise ConfigError(f"{source}: {name} must be {wanted}, got {table[name]!r}")
    return {name: coerce_setting(name, value, source) for name, value in table.items()}


_TOML_ONLY = (("max_insights", int, "a whole number from 1 to 50"),
              ("phases", list, "a list of reflect, re-evaluate, connect"))


def unknown_names(unknown: list[str], known: tuple[str, ...] | list[str], noun: str = "key") -> str:
    """"unknown key modle (did you mean model?)", or the whole known list when a name is near none of them."""
    near = {name: difflib.get_close_matches(name, known, n=1, cutoff=0.6) for name in unknown}
    said = [f"{name} (did you mean {near[name][0]}?)" if near[name] else name for name in unknown]
    listed = "" if all(near.values()) else f"; known: {', '.join(known)}"
    return f"unknown {numbered(noun, said)}{listed}"


def read_toml(path: Path, shown: str, *, follow: bool = False) -> dict[str, Any]:
    """A TOML file's tables; ConfigError (naming `shown`) when it is not TOML, too large, or nested too deeply
    (tomllib recurses per level: RecursionError is not a TOMLDecodeError). A workspace's file is read without
    following a link anywhere on its path; `follow` reads one a person named (the fleet config)."""
    try:
        data = path.read_bytes()[:MAX_CONFIG_BYTES + 1] if follow else read_bytes(path, MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{shown}: larger than {MAX_CONFIG_BYTES // 1024} KiB; not a configuration file")
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{shown}: not valid TOML ({exc})") from None
    except RecursionError:
        raise ConfigError(f"{shown}: not valid TOML (nested too deeply)") from None


INGEST_KEY = "ingest"  # [[ingest]] tables: transcript sources, not settings
SOURCE_KEYS = ("path", "format", "include", "exclude", "roles")
SOURCE_ROLES = ("user", "assistant")


@dataclass(frozen=True)
class IngestSource:
    """One [[ingest]] table: transcripts that `run` (and `ingest` without paths) turns into history first."""

    path: Path  # absolute (relative ones are the workspace's); its own symlink is followed, none below it
    format: str | None = None  # None: detected per file
    include: tuple[str, ...] = ()  # globs; a pattern without "/" matches file names (default: the format's files)
    exclude: tuple[str, ...] = ()
    roles: tuple[str, ...] = SOURCE_ROLES


def ingest_sources(workspace: Workspace) -> list[IngestSource]:
    """The workspace's [[ingest]] tables in file order ([] without any); ConfigError naming the table and key."""
    path = workspace.config_file
    if not path.is_file():
        return []
    data = read_toml(path, path.name)
    tables = data.get(INGEST_KEY, data.get("nanodream", {}).get(INGEST_KEY, []))
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ConfigError(f"{path.name}: ingest must be an array of tables ([[ingest]])")
    return [_source(table, workspace.root, f"{path.name} [[ingest]] #{n}") for n, table in enumerate(tables, 1)]


def _source(table: dict[str, Any], root: Path, where: str) -> IngestSource:
    from nanodream.vocab import INGEST_FORMATS

    unknown = sorted(set(table) - set(SOURCE_KEYS))
    if unknown:
        raise ConfigError(f"{where}: {unknown_names(unknown, SOURCE_KEYS)} (a source takes {', '.join(SOURCE_KEYS)})")
    raw = table.get("path")
    if not isinstance(raw, str) or not raw.strip():
        raise ConfigError(f"{where}: path must be a non-empty string")
    fmt = table.get("format")
    if fmt is not None and fmt not in INGEST_FORMATS:
        raise ConfigError(f"{where}: format must be one of {', '.join(INGEST_FORMATS)}; got {fmt!r}")
    include, exclude, roles = (_strings(table, key, where) for key in ("include", "exclude", "roles"))
    if table.get("roles") is not None and (not roles or set(roles) - set(SOURCE_ROLES)):
        raise ConfigError(f"{where}: roles must list some of {', '.join(SOURCE_ROLES)}; got {list(roles)!r}")
    absolute = Path(os.path.abspath(root / Path(raw).expanduser()))
    return IngestSource(absolute, fmt, include, exclude, roles if table.get("roles") is not None else SOURCE_ROLES)


def _strings(table: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise ConfigError(f"{where}: {key} must be a list of non-empty strings")
    return tuple(value)


def zone(name: str) -> ZoneInfo:
    """The IANA time zone `name`; ValueError with advice when there is no such zone."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r}; use an IANA name like UTC or Europe/Berlin") from None


DAY = 86_400
# numeric setting → (smallest, largest, whether the smallest itself is allowed). The ceilings are far past any
# real use and keep every value inside what the arithmetic downstream can hold (dates, sleeps, backoffs).
RANGES: dict[str, tuple[float, float, bool]] = {
    "batch_tokens": (0, 10**9, False), "lookback_tokens": (0, 10**9, False),
    "max_run_tokens": (0, 10**12, False), "max_session_tokens": (0, 10**12, False),
    "max_batches": (0, 10**6, False), "max_tool_calls": (0, 10**6, False), "max_tokens": (0, 10**7, False),
    "max_file_chars": (0, 10**9, False), "max_skill_chars": (0, 10**9, False),
    "max_cursor_jump": (0, 10**15, False), "max_retries": (0, 20, True), "keep_transcripts": (0, 10**6, True),
    "archive_after_days": (0, 36_500, True), "ephemeral_max_age_days": (0, 36_500, True),
    "split_after": (1, 10**6, True), "max_repeated_failures": (1, 10**6, True),
    "timeout": (0, DAY, False), "retry_backoff": (0, 3_600, True), "host_wait": (0, 7 * DAY, True),
    "host_poll": (0, 3_600, False), "max_cost": (0, 10**9, True),
    "max_shrink_ratio": (0, 1, False), "pressure_ratio": (0, 1, False), "ingest_chunk_tokens": (0, 10**9, False),
    "keep_turns_mb": (0, 10**6, True),
    "max_insights": (1, 50, True), "host_session_timeout": (0, DAY, False),
}


def range_problem(name: str, value: float, bounds: tuple[float, float, bool], whole: bool) -> str:
    """What is wrong with `value` for `name` given `bounds` (see RANGES); '' when nothing is."""
    low, high, inclusive = bounds
    if (low <= value if inclusive else low < value) and value <= high:
        return ""
    kind = "a whole number" if whole else "a number"
    span = f"from {low} to {high}" if inclusive else f"greater than {low} and at most {high}"
    return f"{name} must be {kind} {span}, got {value!r}"


# setting → (holds for a valid value, what it must be)
_RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "model": (lambda v: bool(v.strip()), "a litellm model string or builtin, not empty"),
    "api_key_env": (lambda v: v is None or v.isidentifier(), "the name of an environment variable"),
}


def _validate(settings: Settings) -> None:
    try:
        zone(settings.timezone)
    except ValueError as exc:
        raise ConfigError(f"timezone: {exc}") from None
    for name, bounds in RANGES.items():
        value = getattr(settings, name)
        problem = "" if value is None else range_problem(name, value, bounds, str(_FIELDS[name].type) == "int")
        if problem:
            raise ConfigError(problem)
    for name, (valid, requirement) in _RULES.items():
        value = getattr(settings, name)
        if not valid(value):
            raise ConfigError(f"{name} must be {requirement}, got {value!r}")
    for name, allowed in POLICY_CHOICES.items():
        if getattr(settings, name) not in allowed:
            raise ConfigError(f"{name} must be one of {', '.join(allowed)}; got {getattr(settings, name)!r}")
    unknown = [phase for phase in settings.phases if phase not in PHASES]
    if unknown or len(set(settings.phases)) != len(settings.phases):
        raise ConfigError(f"phases must list some of {', '.join(PHASES)} (each once); got {list(settings.phases)!r}")


PHASES = ("reflect", "re-evaluate", "connect")  # after the consolidation, in this order (docs/insights.md)
POLICY_CHOICES = {
    "secret_policy": ("refuse", "redact"),
    "injection_policy": ("refuse", "warn"),
    "soul_policy": ("open", "tagged", "locked"),
    "review": ("off", "all", "soul"),
    "tool_mode": ("auto", "native", "text", "structured"),
}
_REVIEW_WORDS = {"true": "all", "false": "off"}
_BOOLEAN_WORDS = {"true": True, "1": True, "yes": True, "on": True, "false": False, "0": False, "no": False,
                  "off": False}
