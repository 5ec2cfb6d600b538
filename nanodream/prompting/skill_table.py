"""The skills as a person sees them (`nanodream skills`, the page): the same facts the dream is shown.

One row per skill: uses in the last 30 days, last use, the skills it is used with, whether it is at risk
(used in a troubled sitting of the last 30 days), thin or unused, its family and its see_also.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from nanodream import clock
from nanodream.config import Settings, zone
from nanodream.memory.staging import Staging
from nanodream.prompting.signals import SkillSignal, skill_overview
from nanodream.prompting.skill_signals import SkillHealth
from nanodream.skills import families, family_prefix, is_guide
from nanodream.toolbox.limits import ToolLimits
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import Declared
from nanodream.workspace import Workspace


@dataclass(frozen=True)
class SkillRow(Declared):
    name: str
    description: str | None  # None when its front matter does not parse
    uses: int  # sessions in the last 30 days
    last_used: str | None  # YYYY-MM-DD
    co_used: list[str]  # skills used in the same sessions, most shared first
    at_risk: bool
    thin: bool
    unused: bool
    family: str | None  # the prefix of its family (FAMILY_MIN skills or more), guides included
    see_also: list[str]
    chars: int


def skill_rows(workspace: Workspace, settings: Settings, today: date | None = None) -> list[SkillRow]:
    """Every skill of the workspace as it is on disk, by name; reads the host's files, writes only their cache."""
    staging = Staging(workspace)
    skills, health = skill_overview(staging, GitStore(workspace), settings, ToolLimits.from_settings(settings), None,
                                    today or clock.today(zone(settings.timezone)))
    grouped = families([s.name for s in skills])
    return [_row(skill, health, grouped) for skill in skills]


def _row(skill: SkillSignal, health: SkillHealth, grouped: dict[str, list[str]]) -> SkillRow:
    use = health.uses[skill.name]
    pairs = health.usage.co_used(limit=None)
    partners = [b if a == skill.name else a for a, b, _ in pairs if skill.name in (a, b)]
    prefix = family_prefix(skill.name)
    family = prefix if prefix in grouped and (skill.name in grouped[prefix] or is_guide(skill.name)) else None
    return SkillRow(skill.name, skill.description, use.uses, use.last_used.isoformat() if use.last_used else None,
                    partners, use.at_risk, skill.thin, use.unused, family, list(skill.see_also),
                    skill.size.chars)
