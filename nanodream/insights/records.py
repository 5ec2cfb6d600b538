"""One insight, one markdown file: `memory/insights/<name>.md`, nine front matter keys, then its prose.

    ---
    name: billing-moves-with-the-vat-rule
    status: proposed
    created: 2026-10-14
    updated: 2026-10-14
    likelihood: 0.6
    confidence: 0.5
    topics: [billing, vat, invoices]
    themes: [tax rules drive billing work]
    sources:
    - {ref: 'memory/MEMORY.md: Invoices carry the 19% VAT rate.', reason: ..., weight: 0.8, relation: supports}
    ---
    The summary, two to four sentences.

    ## What if
    ## Possible outcome
    ## Rationale
    ## Decisions        (a person's or a phase's decisions, one dated line each)

The same rules hold for a record a model proposes, one the built-in generator makes and one a person edits:
`check` says every problem at once, in words a model can act on.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from datetime import date
from typing import Any, Literal, get_args

from nanodream import boundedyaml
from nanodream.controls import holds_controls
from nanodream.vocab import Shape, as_json
from nanodream.workspace import INSIGHTS_DIR

STATUSES = ("proposed", "reinforced", "stale", "rejected", "promoted")
Relation = Literal["supports", "extends", "contradicts", "recurs", "relates"]  # how a source bears on the insight
RELATIONS: tuple[str, ...] = get_args(Relation)
KEYS = ("name", "status", "created", "updated", "likelihood", "confidence", "topics", "themes", "sources")
SOURCE_KEYS = ("ref", "reason", "weight", "relation")
# The fields a proposal gives (propose_insight's arguments); status and dates are the phase's.
PROPOSED = ("name", "summary", "what_if", "possible_outcome", "rationale", "likelihood", "confidence", "topics",
            "themes", "sources")
SECTIONS = {"what_if": "What if", "possible_outcome": "Possible outcome", "rationale": "Rationale"}
DECISIONS = "Decisions"

NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")
NAME_LIMIT = 64
TOPICS = (3, 5)
THEMES = (0, 5)
SOURCES = (2, 8)
SENTENCES = (2, 4)
SHORT_LIMIT = 80  # a topic or a theme: a word or a short phrase
TEXT_LIMIT = 1200  # one section's prose; an insight is a note, not a page
RECORD_BYTES = 64 * 1024  # a whole record file: its front matter and four sections with room for decisions
_SENTENCE_END = re.compile(r"[.!?。！？](?:['\")\]]*)(?=\s|$)")


class InsightInvalid(ValueError):
    """A record that breaks the rules; `problems` says each, so a model or a person can fix them all at once."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Source:
    """What an insight cites: `ref` (refs.py spells it), why, how much it weighs (0-1) and how it relates."""

    ref: str
    reason: str
    weight: float
    relation: str

    def to_dict(self) -> dict[str, Any]:
        return {"ref": self.ref, "reason": self.reason, "weight": self.weight, "relation": self.relation}


@dataclass(frozen=True)
class Insight:
    """One record: its front matter, its prose, and the dated decisions taken on it (docs/insights.md)."""

    json_shape = Shape(derived=("path",))

    name: str
    status: str
    created: date
    updated: date
    likelihood: float
    confidence: float
    topics: tuple[str, ...]
    themes: tuple[str, ...]
    sources: tuple[Source, ...]
    summary: str
    what_if: str
    possible_outcome: str
    rationale: str
    decisions: tuple[str, ...] = ()  # "YYYY-MM-DD decision: note", oldest first

    @property
    def path(self) -> str:
        return path_of(self.name)

    @property
    def refs(self) -> frozenset[str]:
        return frozenset(source.ref for source in self.sources)

    def decided(self, status: str, day: date, note: str = "") -> Insight:
        """This insight with `status` and one more dated line under Decisions."""
        line = f"{day.isoformat()} {status}" + (f": {one_line(note)}" if note.strip() else "")
        return replace(self, status=status, updated=day, decisions=(*self.decisions, line))

    def to_json(self) -> dict[str, Any]:
        """The record as `insights --json`, MCP and `run -o` show it: front matter keys, then its prose."""
        return as_json(self)


def path_of(name: str) -> str:
    return f"{INSIGHTS_DIR}/{name}.md"


def one_line(text: str) -> str:
    return " ".join(text.split())


# checking -------------------------------------------------------------------------------------------------


def check(fields: dict[str, Any], *, status: str = "proposed", created: date, updated: date | None = None,
          decisions: tuple[str, ...] = ()) -> Insight:
    """The insight `fields` describe (propose_insight's arguments), or InsightInvalid naming every problem."""
    problems: list[str] = []
    missing = [key for key in PROPOSED if key not in fields]
    if missing:
        raise InsightInvalid([f"missing {', '.join(missing)}"])
    name = _name(fields["name"], problems)
    texts = {key: _prose(key, fields[key], problems) for key in ("summary", *SECTIONS)}
    if texts["summary"] and not SENTENCES[0] <= sentences(texts["summary"]) <= SENTENCES[1]:
        problems.append(f"summary must be {SENTENCES[0]}-{SENTENCES[1]} sentences, got "
                        f"{sentences(texts['summary'])}")
    odds = [_share(key, fields[key], problems) for key in ("likelihood", "confidence")]
    topics = _phrases("topics", fields["topics"], TOPICS, problems)
    themes = _phrases("themes", fields["themes"], THEMES, problems)
    sources = _sources(fields["sources"], problems)
    if status not in STATUSES:
        problems.append(f"status must be one of {', '.join(STATUSES)}, got {status!r}")
    if problems:
        raise InsightInvalid(problems)
    return Insight(name, status, created, updated or created, odds[0], odds[1], topics, themes, sources,
                   texts["summary"], texts["what_if"], texts["possible_outcome"], texts["rationale"], decisions)


def sentences(text: str) -> int:
    """How many sentences `text` holds: its sentence ends, and a last one left without its full stop."""
    ends = list(_SENTENCE_END.finditer(text))
    tail = text[ends[-1].end():] if ends else text
    return len(ends) + (1 if tail.strip() else 0)


def statement(insight: Insight) -> str:
    """What an insight says, in one line: its summary's first sentence (what a promote appends to history)."""
    summary = one_line(insight.summary)
    end = _SENTENCE_END.search(summary)
    return summary[: end.end()] if end else summary


def _name(value: Any, problems: list[str]) -> str:
    if not isinstance(value, str) or not NAME.match(value) or len(value) > NAME_LIMIT:
        problems.append(f"name must be kebab-case (lowercase letters and digits joined by '-', at most {NAME_LIMIT} "
                        f"characters), got {_shown(value)}")
        return ""
    return value


def _prose(key: str, value: Any, problems: list[str]) -> str:
    if not isinstance(value, str) or not value.strip():
        problems.append(f"{key} must be non-empty text")
        return ""
    text = "\n".join(line.rstrip() for line in value.strip().splitlines())
    if len(text) > TEXT_LIMIT:
        problems.append(f"{key} is {len(text)} characters; keep it under {TEXT_LIMIT}")
    if any(line.lstrip().startswith("#") or line.strip() == "---" for line in text.splitlines()):
        problems.append(f"{key} must be plain prose: no headings and no '---' lines")
    problems += _unsafe(key, text)
    return text


def _unsafe(key: str, text: str) -> list[str]:
    """What an insight may never hold: control characters, a credential, an instruction aimed at the agent."""
    from nanodream.safety import injection, secret_scan  # the scanners load detect-secrets: never for `status`

    found = []
    if holds_controls(text):
        found.append(f"{key} holds control characters; write plain text")
    secrets = secret_scan.rules_hit(text)
    if secrets:
        found.append(f"{key} holds what looks like a credential ({', '.join(secrets)}); leave it out")
    hostile = injection.rules_hit(text)
    if hostile:
        found.append(f"{key} reads as an instruction to the agent ({', '.join(hostile)}); describe, do not instruct")
    return found


def _share(key: str, value: Any, problems: list[str]) -> float:
    number = _number(value)
    if number is None or not 0 <= number <= 1:
        problems.append(f"{key} must be a number from 0 to 1, got {_shown(value)}")
        return 0.0
    return round(number, 3)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value) if isinstance(value, int | float | str) else None
    except ValueError:
        return None
    return number if number is not None and math.isfinite(number) else None


def _phrases(key: str, value: Any, bounds: tuple[int, int], problems: list[str]) -> tuple[str, ...]:
    low, high = bounds
    if not isinstance(value, list | tuple) or not all(isinstance(item, str) and item.strip() for item in value):
        problems.append(f"{key} must be a list of {low}-{high} short strings, got {_shown(value)}")
        return ()
    phrases = tuple(dict.fromkeys(one_line(item) for item in value))
    if not low <= len(phrases) <= high:
        problems.append(f"{key} must hold {low}-{high} different entries, got {len(phrases)}")
    long = [phrase for phrase in phrases if len(phrase) > SHORT_LIMIT]
    if long:
        problems.append(f"each of {key} must be at most {SHORT_LIMIT} characters: {_shown(long[0])}")
    for phrase in phrases:
        problems += _unsafe(key, phrase)
    return phrases


def _sources(value: Any, problems: list[str]) -> tuple[Source, ...]:
    low, high = SOURCES
    if not isinstance(value, list | tuple) or not all(isinstance(item, dict) for item in value):
        problems.append(f"sources must be a list of {low}-{high} objects with {', '.join(SOURCE_KEYS)}")
        return ()
    found = [source for number, item in enumerate(value, 1) if (source := _source(number, item, problems))]
    refs = [source.ref for source in found]
    if len(set(refs)) != len(refs):
        problems.append("sources must cite different refs; each ref once")
    if not low <= len(value) <= high:
        problems.append(f"sources must hold {low}-{high} entries, got {len(value)}")
    return tuple(found)


def _source(number: int, item: dict[str, Any], problems: list[str]) -> Source | None:
    where = f"source {number}"
    unknown = sorted(set(item) - set(SOURCE_KEYS))
    missing = [key for key in SOURCE_KEYS if key not in item]
    if unknown or missing:
        problems.append(f"{where} must have exactly {', '.join(SOURCE_KEYS)}"
                        + (f" (missing {', '.join(missing)})" if missing else "")
                        + (f" (unknown {', '.join(unknown)})" if unknown else ""))
        return None
    ref, reason, relation = item["ref"], item["reason"], item["relation"]
    weight = _number(item["weight"])
    before = len(problems)
    if not isinstance(ref, str) or not ref.strip() or "\n" in ref:
        problems.append(f"{where}: ref must be one line of text, e.g. 'memory/MEMORY.md: <the line's text>'")
    elif holds_controls(ref):
        problems.append(f"{where}: ref holds control characters; cite the line's plain text")
    if not isinstance(reason, str) or not reason.strip():
        problems.append(f"{where}: reason must be non-empty text")
    if weight is None or not 0 <= weight <= 1:
        problems.append(f"{where}: weight must be a number from 0 to 1, got {_shown(item['weight'])}")
    if relation not in RELATIONS:
        problems.append(f"{where}: relation must be one of {', '.join(RELATIONS)}, got {_shown(relation)}")
    if len(problems) > before:
        return None
    problems += _unsafe(f"{where} reason", reason)
    return Source(ref.strip(), one_line(reason), round(float(weight or 0), 3), relation)


def _shown(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "…" + text[-3:]


# the file -------------------------------------------------------------------------------------------------


def render(insight: Insight) -> str:
    """The record's file: front matter with exactly the nine keys, then summary, sections and decisions."""
    import yaml

    front = {"name": insight.name, "status": insight.status, "created": insight.created,
             "updated": insight.updated, "likelihood": insight.likelihood, "confidence": insight.confidence,
             "topics": list(insight.topics), "themes": list(insight.themes),
             "sources": [source.to_dict() for source in insight.sources]}
    head = yaml.dump(front, Dumper=_plain_dumper(), sort_keys=False, allow_unicode=True, width=1000,
                     default_flow_style=False)
    parts = ["---", head.rstrip("\n"), "---", insight.summary, ""]
    for key, title in SECTIONS.items():
        parts += [f"## {title}", getattr(insight, key), ""]
    if insight.decisions:
        parts += [f"## {DECISIONS}", *(f"- {line}" for line in insight.decisions), ""]
    return "\n".join(parts)


def _plain_dumper():
    import yaml

    class Plain(yaml.SafeDumper):
        """Safe YAML without anchors: two equal dates are written out twice, as a person would."""

        def ignore_aliases(self, data: Any) -> bool:
            return True

    return Plain


def parse(name: str, text: str) -> Insight:
    """The record in `text` (the file of insight `name`), or InsightInvalid saying what is wrong with it; a record
    longer than RECORD_BYTES, or whose front matter is refused by the bounded YAML reader (an alias bomb, a
    nesting too deep), is invalid before any of it is read."""
    if len(text) > RECORD_BYTES:
        raise InsightInvalid([f"the file is longer than a record may be ({RECORD_BYTES} characters); not read"])
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0] != "---" or "---" not in lines[1:]:
        raise InsightInvalid(["must start with YAML front matter between '---' lines"])
    end = lines.index("---", 1)
    try:
        front = boundedyaml.loads("\n".join(lines[1:end]))
    except boundedyaml.YAMLRefused as exc:
        raise InsightInvalid([f"front matter is refused: {exc}"]) from None
    if not isinstance(front, dict) or set(front) != set(KEYS):
        keys = sorted(front) if isinstance(front, dict) else []
        raise InsightInvalid([f"front matter must have exactly the keys {', '.join(KEYS)}; has {', '.join(keys)}"])
    if front["name"] != name:
        raise InsightInvalid([f"front matter name must be {name!r} (the file's name), got {front['name']!r}"])
    body = _body(lines[end + 1:])
    days = [_day(front[key]) for key in ("created", "updated")]
    if None in days:
        raise InsightInvalid(["created and updated must be dates (YYYY-MM-DD)"])
    fields = {**{key: front[key] for key in KEYS if key in PROPOSED}, **body}
    return check(fields, status=front["status"], created=days[0], updated=days[1],
                 decisions=tuple(body.get("decisions", ())))


def _body(lines: list[str]) -> dict[str, Any]:
    """The summary (before the first heading), each section's text, and the Decisions lines."""
    titles = {title: key for key, title in SECTIONS.items()}
    found: dict[str, list[str]] = {"summary": []}
    current = "summary"
    for line in lines:
        if line.startswith("## "):
            title = line[3:].strip()
            current = titles.get(title, "decisions" if title == DECISIONS else f"unknown:{title}")
            found.setdefault(current, [])
            continue
        found[current].append(line)
    body: dict[str, Any] = {key: "\n".join(text).strip() for key, text in found.items() if key != "decisions"}
    body["decisions"] = [line[2:].strip() for line in found.get("decisions", []) if line.startswith("- ")]
    unknown = [key.split(":", 1)[1] for key in body if key.startswith("unknown:")]
    if unknown:
        raise InsightInvalid([f"unknown section {unknown[0]!r}; the sections are "
                              f"{', '.join([*SECTIONS.values(), DECISIONS])}"])
    return body


def _day(value: Any) -> date | None:
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        return None
