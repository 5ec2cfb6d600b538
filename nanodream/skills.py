"""SKILL.md parsing: YAML front matter with a `name` matching its folder and a `description`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SkillInfo:
    name: str
    description: str
    body: str


def parse_skill(path: str, text: str) -> SkillInfo:
    """Parse a SKILL.md; raise ValueError with a message a model or a person can act on."""
    import frontmatter  # imported on first use: `--help` and `status` never parse a skill (bench/startup.py)
    import yaml

    folder = path.split("/")[1]
    if not text.lstrip().startswith("---"):
        raise ValueError(f"{path} must start with YAML front matter: ---\\nname: {folder}\\ndescription: ...\\n---")
    try:
        post = frontmatter.loads(text)
    except (yaml.YAMLError, ValueError) as exc:
        raise ValueError(f"{path} front matter is not valid YAML ({exc.__class__.__name__})") from None
    name = post.metadata.get("name")
    description = post.metadata.get("description")
    if name != folder:
        raise ValueError(f"{path} front matter name must be {folder!r} (the folder name), got {name!r}")
    if not isinstance(description, str) or not description.strip():
        raise ValueError(f"{path} front matter needs a non-empty description")
    if not post.content.strip():
        raise ValueError(f"{path} has front matter but no body; add the steps of the skill")
    return SkillInfo(name, description.strip(), post.content)


def skill_summary(path: str, text: str) -> str:
    """One index line for a skill, tolerant of a broken file (the index must never fail)."""
    try:
        info = parse_skill(path, text)
    except ValueError:
        return f"{path.split('/')[1]} — (invalid SKILL.md front matter) [{len(text)} chars]"
    return f"{info.name} — {info.description} [{len(text)} chars]"
