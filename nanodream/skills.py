"""SKILL.md parsing: YAML front matter with a `name` matching its folder and a `description`; skill families.

Optional front matter keys nanodream understands: `see_also` (related skills: siblings, co-used, complements),
`created` and `last_used` (kept across a merge: the earliest and the latest). A family is the skills whose
names share the part before the first `-` (`mcp-email`, `mcp-calendar`, `mcp-weather`); once it has
FAMILY_MIN members it gets a guide skill, `<prefix>-guide`, saying which one to use when.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from typing import Any

from nanodream import boundedyaml
from nanodream.boundedyaml import YAMLRefused

FAMILY_MIN = 3
GUIDE_SUFFIX = "-guide"
SEE_ALSO = "see_also"
_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*:")


@dataclass(frozen=True)
class SkillInfo:
    name: str
    description: str
    body: str
    see_also: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)


def parse_skill(path: str, text: str) -> SkillInfo:
    """Parse a SKILL.md; raise ValueError with a message a model or a person can act on.

    Parsed once per text: a batch reads every skill for its signals and again for the knowledge its insight
    phases search, and YAML is most of what 1,000 skills cost a batch."""
    parsed = _parsed(path, text)
    if isinstance(parsed, str):
        raise ValueError(parsed)
    return replace(parsed, metadata=dict(parsed.metadata))  # the caller's own dict: the kept one never changes


@functools.lru_cache(maxsize=2048)
def _parsed(path: str, text: str) -> SkillInfo | str:
    try:
        return _parse(path, text)
    except ValueError as refused:
        return str(refused)


def _parse(path: str, text: str) -> SkillInfo:
    folder = path.split("/")[1]
    if not text.lstrip().startswith("---"):
        raise ValueError(f"{path} must start with YAML front matter: ---\\nname: {folder}\\ndescription: ...\\n---")
    try:
        metadata, content = _front_matter(text)
    except YAMLRefused as exc:
        raise ValueError(f"{path} front matter is refused: {exc}") from None
    name = metadata.get("name")
    description = metadata.get("description")
    if name != folder:
        raise ValueError(f"{path} front matter name must be {folder!r} (the folder name), got {_shown(name)}")
    if not isinstance(description, str) or not description.strip():
        raise ValueError(f"{path} front matter needs a non-empty description")
    if not content.strip():
        raise ValueError(f"{path} has front matter but no body; add the steps of the skill")
    see_also = metadata.get(SEE_ALSO, [])
    if not isinstance(see_also, list) or not all(isinstance(item, str) for item in see_also):
        raise ValueError(f"{path} front matter {SEE_ALSO} must be a list of skill names, e.g. [mcp-email, mcp-guide]")
    return SkillInfo(name, description.strip(), content, tuple(see_also), dict(metadata))


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter's keys (none when it is not a mapping or has no closing '---') and the body, split as
    python-frontmatter splits them, read by the one bounded YAML reader."""
    import frontmatter  # imported on first use: `--help` and `status` never parse a skill (bench/startup.py)

    stripped = text.strip()
    try:
        front, content = frontmatter.YAMLHandler().split(stripped)
    except ValueError:
        return {}, stripped
    metadata = boundedyaml.loads(front)
    return (metadata if isinstance(metadata, dict) else {}), content.strip()


def _shown(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def skill_summary(path: str, text: str) -> str:
    """One index line for a skill, tolerant of a broken file (the index must never fail)."""
    try:
        info = parse_skill(path, text)
    except ValueError:
        return f"{path.split('/')[1]} — (invalid SKILL.md front matter) [{len(text)} chars]"
    also = f" (see also: {', '.join(info.see_also)})" if info.see_also else ""
    return f"{info.name} — {info.description}{also} [{len(text)} chars]"


def set_front_matter(text: str, key: str, value: object) -> str:
    """`text` with one front matter key set (or added before the closing `---`), every other byte kept.

    A value spread over several lines (a block list) is replaced whole. `text` must have front matter.
    """
    import yaml

    lines = text.split("\n")
    end = lines.index("---", 1) if lines and lines[0] == "---" and "---" in lines[1:] else None
    if end is None:
        raise ValueError("the skill has no front matter to set a key in")
    rendered = yaml.safe_dump({key: value}, default_flow_style=True, sort_keys=False, allow_unicode=True,
                              width=1000).strip().removeprefix("{").removesuffix("}")
    start = next((i for i in range(1, end) if (m := _KEY_LINE.match(lines[i])) and m.group(1) == key), None)
    if start is None:
        return "\n".join([*lines[:end], rendered, *lines[end:]])
    stop = start + 1
    while stop < end and (lines[stop].startswith((" ", "\t", "- ")) or not lines[stop].strip()):
        stop += 1
    return "\n".join([*lines[:start], rendered, *lines[stop:]])


# families ---------------------------------------------------------------------------------------------------


def family_prefix(name: str) -> str | None:
    """The family a skill name belongs to: what comes before its first `-`; None for a one-word name."""
    prefix, dash, rest = name.partition("-")
    return prefix if dash and rest else None


def guide_name(prefix: str) -> str:
    return f"{prefix}{GUIDE_SUFFIX}"


def is_guide(name: str) -> bool:
    prefix = family_prefix(name)
    return prefix is not None and name == guide_name(prefix)


def families(names: list[str] | tuple[str, ...] | set[str]) -> dict[str, list[str]]:
    """Prefix → its members (sorted, the guide left out), for every prefix shared by FAMILY_MIN skills or more."""
    grouped: dict[str, list[str]] = {}
    for name in sorted(names):
        prefix = family_prefix(name)
        if prefix is not None and not is_guide(name):
            grouped.setdefault(prefix, []).append(name)
    return {prefix: members for prefix, members in grouped.items() if len(members) >= FAMILY_MIN}
