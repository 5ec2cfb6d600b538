"""A scenario is a directory: optional `files/`, `history.jsonl` or a transcript, and `expect.toml` with the
ground truth.

The format is documented in docs/eval.md. Loading validates it fully, so a typo in a corpus is an error
that names the file and the check, not a silently passing scenario.
"""

from __future__ import annotations

import contextlib
import tomllib
from dataclasses import dataclass, field
from datetime import date, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from nanodream.vocab import numbered

CHECK_KINDS = ("present", "absent", "once", "replaced", "cascade", "skill", "insight", "unchanged")
# What a temporal ask asks (LongMemEval's knowledge-update and temporal-reasoning questions): the value after
# the last change, the value before it, the value on a past date (`as_of`), a fact that depends on a changed one.
ASK_KINDS = ("current", "before", "as-of", "dependent")
DREAMS = ("once", "daily")
EXPECT_FILE = "expect.toml"
HISTORY_FILE = "history.jsonl"
# A transcript in any format `nanodream ingest` reads, ingested before the dream: one file, or a folder of them.
TRANSCRIPT_NAMES = ("transcript.jsonl", "transcript.json", "transcripts")


class ScenarioError(ValueError):
    """A scenario or corpus that cannot be used; the message names the path."""


@dataclass(frozen=True)
class Check:
    """One piece of ground truth; `text`/`file` for present/absent/once, `text` for replaced, `text`/`now` for
    cascade, `name`/`description_contains` for skill."""

    kind: str
    text: str = ""
    file: str | None = None
    name: str = ""
    description_contains: str | None = None
    now: str = ""  # cascade: the value the dependent line names once it is revised
    cites: tuple[str, ...] = ()  # insight: each text is part of one of its sources' refs
    status: str | None = None  # insight: the status it must have
    count: int | None = None  # insight: exactly this many match (None: at least one)

    @property
    def label(self) -> str:
        """How the check reads in a table and in a diff: stable, so two runs' checks line up."""
        if self.kind == "skill":
            extra = f" ({self.description_contains})" if self.description_contains else ""
            return f"skill {self.name}{extra}"
        if self.kind == "cascade":
            return f"cascade {self.text!r} → {self.now!r}"
        if self.kind == "insight":
            what = [f"named {self.name}"] if self.name else []
            what += [f"citing {', '.join(repr(text) for text in self.cites)}"] if self.cites else []
            what += [self.status] if self.status else []
            many = f" x{self.count}" if self.count is not None else ""
            return f"insight {' '.join(what)}{many}"
        if self.kind == "unchanged":
            return f"unchanged {self.file}"
        where = f" in {self.file}" if self.file else ""
        return f"{self.kind} {self.text!r}{where}"


@dataclass(frozen=True)
class Ask:
    """A question memory should still answer after the dream, and its answer (scored by coverage, not pass/fail).

    `as_of`: asked of memory as it stood on that day (recall --as-of); `kind`: a temporal question (ASK_KINDS),
    reported apart from the rest.
    """

    question: str
    answer: str
    as_of: date | None = None
    kind: str = ""


@dataclass(frozen=True)
class Scenario:
    name: str
    root: Path
    checks: tuple[Check, ...]
    description: str = ""
    max_growth_bytes: int | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    asks: tuple[Ask, ...] = ()
    daily: bool = False  # dream once per history day, each run's commits dated that day (as a nightly host would)
    allow_empty: bool = False  # run as `run --allow-empty`: an empty history explores old material

    @property
    def temporal(self) -> bool:
        """A scenario of temporal questions: scored and reported apart from the rest."""
        return any(ask.kind for ask in self.asks)

    @property
    def history(self) -> Path:
        return self.root / HISTORY_FILE

    @property
    def transcripts(self) -> list[Path]:
        """The transcript files to ingest before the dream ([] for a scenario of history alone)."""
        for name in TRANSCRIPT_NAMES:
            path = self.root / name
            if path.is_dir():
                return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json"))
            if path.is_file():
                return [path]
        return []

    @property
    def files(self) -> Path:
        return self.root / "files"


def shipped_corpus() -> Path:
    """The corpus inside the package (nanodream/eval_corpus links to the top-level eval/ in a checkout)."""
    return Path(str(resources.files("nanodream") / "eval_corpus"))


def shipped_transcripts() -> Path:
    """The shipped transcript corpus (transcripts and asks): eval/ingest/, run by `nanodream eval --transcripts`."""
    return shipped_corpus() / "ingest"


def discover(paths: list[Path]) -> list[Scenario]:
    """Each path is one scenario directory or a directory of them (sorted by name); order is kept."""
    scenarios: list[Scenario] = []
    for path in paths:
        if (path / EXPECT_FILE).is_file():
            scenarios.append(load_scenario(path))
            continue
        if not path.is_dir():
            raise ScenarioError(f"{path}: not a scenario directory or a directory of scenarios")
        found = sorted(child for child in path.iterdir() if (child / EXPECT_FILE).is_file())
        if not found:
            raise ScenarioError(f"{path}: holds no scenario (a directory with {EXPECT_FILE})")
        scenarios += [load_scenario(child) for child in found]
    names = [s.name for s in scenarios]
    if len(set(names)) != len(names):
        shared = sorted({name for name in names if names.count(name) > 1})
        raise ScenarioError(f"two scenarios share a name: {', '.join(shared)}")
    return scenarios


def load_scenario(root: Path) -> Scenario:
    """Read and validate one scenario directory."""
    expect = root / EXPECT_FILE
    try:
        data = tomllib.loads(expect.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{expect}: not valid TOML ({exc})") from None
    if not (root / HISTORY_FILE).is_file() and not any((root / name).exists() for name in TRANSCRIPT_NAMES):
        raise ScenarioError(f"{root}: {HISTORY_FILE} (or a transcript: {', '.join(TRANSCRIPT_NAMES)}) is missing")
    unknown = set(data) - {*CHECK_KINDS, "ask", "name", "description", "max_growth_bytes", "settings", "dream",
                           "allow_empty"}
    if unknown:
        raise ScenarioError(f"{expect}: unknown {numbered('key', sorted(unknown))}")
    checks = tuple(_check(kind, item, expect) for kind in CHECK_KINDS for item in _tables(data, kind, expect))
    asks = tuple(_ask(item, expect) for item in _tables(data, "ask", expect))
    growth = data.get("max_growth_bytes")
    if growth is not None and (not isinstance(growth, int) or isinstance(growth, bool) or growth < 0):
        raise ScenarioError(f"{expect}: max_growth_bytes must be a non-negative integer")
    if not checks and not asks and growth is None:
        raise ScenarioError(f"{expect}: no checks")
    settings = data.get("settings", {})
    if not isinstance(settings, dict):
        raise ScenarioError(f"{expect}: [settings] must be a table")
    if data.get("dream", "once") not in DREAMS:
        raise ScenarioError(f"{expect}: dream must be one of {', '.join(DREAMS)}")
    if not isinstance(data.get("allow_empty", False), bool):
        raise ScenarioError(f"{expect}: allow_empty must be true or false")
    return Scenario(name=str(data.get("name") or root.name), root=root, checks=checks,
                    description=str(data.get("description", "")), max_growth_bytes=growth, settings=settings,
                    asks=asks, daily=data.get("dream") == "daily", allow_empty=data.get("allow_empty", False))


def _insight(item: dict[str, Any], expect: Path) -> Check:
    """[[insight]]: `cites` (texts each part of a source's ref), `name`, `status`, `count`; a name or cites."""
    cites, count = item.get("cites", []), item.get("count")
    valid = (not set(item) - {"cites", "name", "status", "count"}
             and isinstance(cites, list) and all(isinstance(text, str) and text.strip() for text in cites)
             and isinstance(item.get("name", ""), str) and isinstance(item.get("status", ""), str)
             and (count is None or (isinstance(count, int) and not isinstance(count, bool) and count >= 0))
             and (cites or item.get("name")))
    if not valid:
        raise ScenarioError(f"{expect}: [[insight]] needs `cites` (a list of texts) or a `name`, and may have "
                            "`status` and a `count` (a whole number); nothing else")
    return Check("insight", name=item.get("name", ""), cites=tuple(cites), status=item.get("status"), count=count)


def _unchanged(item: dict[str, Any], expect: Path) -> Check:
    """[[unchanged]]: a `file` whose text the run must leave as it was."""
    if set(item) != {"file"} or not isinstance(item["file"], str) or not item["file"].strip():
        raise ScenarioError(f"{expect}: [[unchanged]] needs a `file` and nothing else")
    return Check("unchanged", file=item["file"])


def _ask(item: dict[str, Any], expect: Path) -> Ask:
    answer = item.get("answer")
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        answer = str(answer)
    if (set(item) - {"question", "answer", "as_of", "kind"} or not isinstance(item.get("question"), str)
            or not item["question"].strip() or not isinstance(answer, str) or not answer.strip()):
        raise ScenarioError(f"{expect}: [[ask]] needs a non-empty `question` and `answer`, may have `as_of` and "
                            "`kind`, and nothing else")
    as_of = _day(item.get("as_of"), expect)
    kind = item.get("kind", "as-of" if as_of else "")
    if kind and kind not in ASK_KINDS:
        raise ScenarioError(f"{expect}: [[ask]] kind must be one of {', '.join(ASK_KINDS)}; got {kind!r}")
    return Ask(item["question"], answer, as_of, kind)


def _day(value: Any, expect: Path) -> date | None:
    """A TOML date (`as_of = 2026-03-01`) or a string holding one; ScenarioError for anything else."""
    if value is None or (isinstance(value, date) and not isinstance(value, datetime)):
        return value
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return date.fromisoformat(value)
    raise ScenarioError(f"{expect}: [[ask]] as_of must be a date (YYYY-MM-DD); got {value!r}")


def _tables(data: dict[str, Any], kind: str, expect: Path) -> list[dict[str, Any]]:
    items = data.get(kind, [])
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise ScenarioError(f"{expect}: {kind} must be an array of tables ([[{kind}]])")
    return items


# The keys each check takes; the others take `text` and `file`.
_KEYS = {"skill": {"name", "description_contains"}, "replaced": {"text"}, "cascade": {"text", "now"}}


def _check(kind: str, item: dict[str, Any], expect: Path) -> Check:
    if kind == "insight":
        return _insight(item, expect)
    if kind == "unchanged":
        return _unchanged(item, expect)
    allowed = _KEYS.get(kind, {"text", "file"})
    unknown = set(item) - allowed
    required = "name" if kind == "skill" else "text"
    if unknown or not isinstance(item.get(required), str) or not item[required].strip():
        raise ScenarioError(f"{expect}: [[{kind}]] needs a non-empty `{required}` and only {sorted(allowed)}")
    if kind == "skill":
        return Check(kind, name=item["name"], description_contains=item.get("description_contains"))
    if kind == "cascade":
        if not isinstance(item.get("now"), str) or not item["now"].strip():
            raise ScenarioError(f"{expect}: [[cascade]] needs a non-empty `now`: the value a revised line names")
        return Check(kind, text=item["text"], now=item["now"])
    return Check(kind, text=item["text"], file=item.get("file"))
