"""The fleet config file: what every job uses, the quotas, and which workspace keys a tenant may set.

A workspace's nanodream.toml belongs to its tenant. In a fleet job the worker's own settings come from this
file, and of the workspace's file only the keys in `workspace_keys` apply: by default none that choose the
model, its endpoint, the variable a key is read from, or what a run may spend. Otherwise a tenant could point
a worker at its own `api_base` (or name another variable in `api_key_env`) and collect the worker's keys.
The worker's NANODREAM_* environment variables are not read in fleet jobs either: this file is the one
place an operator looks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from nanodream.config import (
    ConfigError,
    Settings,
    build_settings,
    range_problem,
    read_settings_file,
    read_toml,
    settings_table,
    unknown_names,
)
from nanodream.vocab import numbered
from nanodream.workspace import Workspace

# Keys a workspace may set in fleet jobs unless the fleet config says otherwise: how its memory is kept and
# when it dreams. Spelled out, so a setting added to nanodream later is not open to tenants by accident.
DEFAULT_WORKSPACE_KEYS = (
    "schedule", "timezone", "max_file_chars", "max_skill_chars", "pressure_ratio", "archive_after_days",
    "max_shrink_ratio", "ephemeral_max_age_days", "split_after", "keep_transcripts", "max_cursor_jump",
    "max_repeated_failures", "secret_policy", "injection_policy", "soul_policy",
)
DAY = 86_400


@dataclass(frozen=True)
class FleetConfig:
    """One fleet config file, parsed and checked; `settings` holds nanodream settings every job uses."""

    settings: dict[str, Any] = field(default_factory=dict)
    workspace_keys: tuple[str, ...] = DEFAULT_WORKSPACE_KEYS
    max_runs_per_day: int | None = None  # dreams that reached the model, per workspace and UTC day
    max_cost_per_day: float | None = None  # dollars per workspace and UTC day; an unknown cost counts as 0
    lock_ttl: float = 60.0  # seconds a workspace's Redis lock outlives its last heartbeat
    heartbeat: float = 15.0  # seconds between refreshes of that lock
    job_timeout: int = 3600  # seconds before RQ stops a job (a dream longer than this is cut off)
    keep_finished: int = DAY  # seconds RQ keeps a finished job (counted by `fleet status`)
    keep_failed: int = 7 * DAY  # seconds RQ keeps a failed job and its reason
    paths: dict[str, str] = field(default_factory=dict)  # path prefix as enqueued → prefix on this machine

    def local_path(self, path: str) -> Path:
        """Where a workspace enqueued as `path` lives on this machine (shared storage mounted elsewhere)."""
        for prefix in sorted(self.paths, key=len, reverse=True):
            if path == prefix or path.startswith(prefix.rstrip("/") + "/"):
                return Path(self.paths[prefix] + path[len(prefix.rstrip("/")):])
        return Path(path)


_FLEET_KEYS = frozenset(f.name for f in fields(FleetConfig)) - {"settings", "paths"}

# numeric fleet key → (whole number?, (smallest, largest, whether the smallest itself is allowed))
_NUMBERS: dict[str, tuple[bool, tuple[float, float, bool]]] = {
    "max_runs_per_day": (True, (0, 10**6, True)),  # None (the default): no quota
    "max_cost_per_day": (False, (0, 10**9, True)),
    "lock_ttl": (False, (1, DAY, True)),
    "heartbeat": (False, (0, 3_600, False)),
    "job_timeout": (True, (1, 7 * DAY, True)),
    "keep_finished": (True, (0, 365 * DAY, True)),
    "keep_failed": (True, (1, 365 * DAY, True)),
}


def _number_problem(key: str, value: Any) -> str:
    """What is wrong with a numeric fleet value ('' when nothing): its type, infinity, or its range."""
    whole, bounds = _NUMBERS[key]
    if value is None and FleetConfig.__dataclass_fields__[key].default is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, int if whole else int | float):
        return f"{key} must be {'a whole number' if whole else 'a number'}, got {value!r}"
    if not math.isfinite(value):
        return f"{key} must be a number, got {value!r}"
    return range_problem(key, value, bounds, whole)


def _list_problem(key: str, value: Any) -> str:
    if isinstance(value, list) and all(isinstance(k, str) for k in value):
        return ""
    return f"{key} must be a list of names, got {value!r}"


def load_fleet_config(path: Path | None) -> FleetConfig:
    """The config at `path`, or the defaults without one; ConfigError names the file, table and key."""
    if path is None:
        return FleetConfig()
    try:
        data = read_toml(path, path.name, follow=True)
    except FileNotFoundError:
        raise ConfigError(f"fleet config {path} does not exist") from None
    except OSError as exc:
        raise ConfigError(f"fleet config {path}: cannot be read ({exc})") from None
    except ConfigError as exc:
        raise ConfigError(f"fleet config {path} cannot be read: {exc}") from None
    unknown = sorted(set(data) - {"settings", "fleet", "paths"})
    if unknown:
        raise ConfigError(f"{path.name}: {unknown_names(unknown, ['settings', 'fleet', 'paths'], 'table')}")
    return FleetConfig(settings=_settings(data.get("settings", {}), path.name), paths=_paths(data, path.name),
                       **_fleet_values(data.get("fleet", {}), path.name))


def _settings(table: dict[str, Any], name: str) -> dict[str, Any]:
    if "api_key" in table:
        raise ConfigError(f"{name} [settings]: api_key is not allowed in a file; name the environment variable "
                          "that holds it: api_key_env = \"PROVIDER_KEY\"")
    values = settings_table(table, f"{name} [settings]")
    build_settings(values)  # the same rules as any run, reported now rather than in every job
    return values


def _fleet_values(table: dict[str, Any], name: str) -> dict[str, Any]:
    unknown = sorted(set(table) - _FLEET_KEYS)
    if unknown:
        raise ConfigError(f"{name} [fleet]: {unknown_names(unknown, sorted(_FLEET_KEYS))}")
    for key, value in table.items():
        problem = _number_problem(key, value) if key in _NUMBERS else _list_problem(key, value)
        if problem:
            raise ConfigError(f"{name} [fleet]: {problem}")
    values = dict(table)
    if "workspace_keys" in values:
        values["workspace_keys"] = _workspace_keys(values["workspace_keys"], name)
    if values.get("heartbeat", FleetConfig.heartbeat) * 2 > values.get("lock_ttl", FleetConfig.lock_ttl):
        raise ConfigError(f"{name} [fleet]: heartbeat must be at most half of lock_ttl, so one late beat "
                          "does not lose the lock")
    return values


def _workspace_keys(keys: list[str], name: str) -> tuple[str, ...]:
    known = {f.name for f in fields(Settings)} - {"api_key"}
    unknown = sorted(set(keys) - known)
    if unknown:
        raise ConfigError(f"{name} [fleet]: workspace_keys names unknown {numbered('setting', unknown)}")
    return tuple(keys)


def _paths(data: dict[str, Any], name: str) -> dict[str, str]:
    table = data.get("paths", {})
    if not all(isinstance(k, str) and k.startswith("/") and isinstance(v, str) and v.startswith("/")
               for k, v in table.items()):
        raise ConfigError(f"{name} [paths]: each entry maps an absolute path prefix to one: \"/srv/a\" = \"/mnt/a\"")
    return dict(table)


def job_settings(workspace: Workspace, config: FleetConfig) -> tuple[Settings, list[str]]:
    """The settings a fleet job runs with, and the workspace's keys it ignored (not in `workspace_keys`)."""
    own = read_settings_file(workspace.config_file)
    ignored = sorted(key for key in own if key not in config.workspace_keys)
    values = {**config.settings, **{key: value for key, value in own.items() if key in config.workspace_keys}}
    return build_settings(values), ignored
