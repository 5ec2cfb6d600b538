"""The builtin engine's care for skills: lessons into the skill in use, material into thin skills, families.

- A `[correction]` in a session that used a skill is appended to that skill as a `## Pitfalls` line (to the
  skills it names, else to the session's skills that share the most words with it).
- A tagged fact that names a skill that was thin when the session began goes into that skill (an instruction
  as a step, anything else as a note) instead of the core files; a one-word name must be called a skill
  (`skills/backup`, "the backup skill"), a bare "backup" is everywhere.
- Every family (FAMILY_MIN skills sharing a prefix) gets `<prefix>-guide`: one line per member saying what it
  is for, kept current as members come and go; each member's `see_also` names its guide and siblings, and
  the ten pairs of skills used together most name each other.
"""

from __future__ import annotations

import re

import yaml

from nanodream.backlog.skill_usage import SkillNames
from nanodream.engines.files import MemoryFiles
from nanodream.engines.ledger import Ledger
from nanodream.engines.routing import instructs_agent, tidy_step
from nanodream.markdown import MarkdownDoc, append_steps, numbered_steps
from nanodream.prompting.skill_signals import SkillHealth
from nanodream.skills import families, guide_name, parse_skill, set_front_matter
from nanodream.text.stems import TOPIC_STOPWORDS, singular
from nanodream.text.words import content_words, fact_key, tidy_sentence

PITFALLS = "Pitfalls"
NOTES = "Notes"
SEE_ALSO_MAX = 6
RESERVE = 2  # tool calls kept free for the rest of the session (the archive, a last core-file write)


def skill_path(name: str) -> str:
    return f"skills/{name}/SKILL.md"


class SkillWork:
    """Applies the skill rules through the builtin engine's files; notes each change in the ledger.

    What each skill looked like when the session began comes from the signals (SkillHealth.skills), so a skill
    is read through the tools only when it is about to change; every change first checks that the session's
    tool-call cap leaves room for it (a read and a write), and what does not fit waits for a later batch.
    """

    def __init__(self, files: MemoryFiles, ledger: Ledger, health: SkillHealth) -> None:
        self.files = files
        self.ledger = ledger
        self.health = health
        self.thin = {name for name, skill in health.skills.items() if skill.thin}
        self._names = SkillNames(files.skill_names())

    # lessons ---------------------------------------------------------------------------------------------

    def pitfall(self, correction: str, session: str) -> None:
        """Fold a correction into the skills the session was using when it came: those it names, else those
        sharing the most meaningful words with it; a correction sharing none with any is about something else."""
        used = sorted(self.health.usage.skills_in(session) & self.files.skill_names())
        named = sorted(self._names.found(correction) & set(used))
        for name in named or _closest(correction, {n: self._text(n) for n in used}):
            line = tidy_sentence(correction)
            if any(fact_key(b.text) == fact_key(line) for b in MarkdownDoc(self._text(name)).bullets(PITFALLS)):
                continue
            if self._room(name):
                self._write(name, _with_bullet(self._current(name), PITFALLS, line), f"pitfall added: {line}")

    def expand(self, text: str) -> bool:
        """Put a fact that names a thin skill into it; False when it names none (or there is no room left)."""
        named = [name for name in sorted(self._names.found(text, plainly=True) & self.thin) if self._room(name)]
        for name in named:
            current = self._current(name)
            line = tidy_step(text.rstrip("."))
            steps = {fact_key(step) for _, step in numbered_steps(current)}
            notes = {fact_key(b.text) for b in MarkdownDoc(current).bullets(NOTES)}
            if fact_key(line) in steps | notes:
                self.ledger.duplicates += 1
            elif instructs_agent(line):
                self._write(name, append_steps(current, [line]), "expanded with a step from the history")
            else:
                self._write(name, _with_bullet(current, NOTES, tidy_sentence(line)), "expanded with a note")
        return bool(named)

    # families and companions --------------------------------------------------------------------------------

    def upkeep(self) -> None:
        """Guides for every family, then `see_also` for every skill; only what changes is read and written."""
        for prefix, members in families(self.files.skill_names()).items():
            self._guide(prefix, members)
        links = self._links()
        for name in sorted(self.files.skill_names()):
            self._see_also(name, links.get(name, []))

    def _guide(self, prefix: str, members: list[str]) -> None:
        name = guide_name(prefix)
        lines = {member: f"- `{member}`: {self._purpose(member)}" for member in members}
        exists = name in self.files.skill_names()
        if exists and not self._stale_guide(name, members):
            return
        if not self._room(name):
            return
        if not exists:
            purpose = f"Which {prefix}-* skill to use for what, one line each."
            front = yaml.safe_dump({"name": name, "description": purpose, "see_also": members}, sort_keys=False,
                                   allow_unicode=True, width=1000, default_flow_style=None)
            body = "\n".join(lines.values())
            text = f"---\n{front}---\n\n# Which {prefix} skill when\n\n{body}\n"
            self._write(name, text, f"created for the {prefix} family ({len(members)} skills)")
            return
        current = self._current(name)
        updated = _current_guide(current, lines)
        if updated != current:
            self._write(name, updated, "updated: lists every member of the family")

    def _stale_guide(self, guide: str, members: list[str]) -> bool:
        """A member the guide does not name, or a line for one that is gone (decided without reading it)."""
        text = self._text(guide)
        listed = {m.group("name") for line in text.split("\n") if (m := _MEMBER_LINE.match(line))}
        return bool(set(members) - SkillNames(members).found(text)) or bool(listed - set(members))

    def _purpose(self, name: str) -> str:
        known = self.health.skills.get(name)
        if known is not None and not self.files.read_before(skill_path(name)):
            return known.description or "(its SKILL.md does not parse)"
        try:
            return parse_skill(skill_path(name), self._current(name)).description
        except ValueError:
            return "(its SKILL.md does not parse)"

    def _links(self) -> dict[str, list[str]]:
        """Each skill's companions: its guide and siblings, the members of a guide, and what it is used with."""
        existing = self.files.skill_names()
        links: dict[str, list[str]] = {}
        for prefix, members in families(existing).items():
            guide = guide_name(prefix)
            links.setdefault(guide, []).extend(members)
            for member in members:
                links.setdefault(member, []).extend([guide, *(m for m in members if m != member)])
        for a, b, _ in self.health.co_used:  # the pairs the model is shown: the ten used together most
            if {a, b} <= existing:
                links.setdefault(a, []).append(b)
                links.setdefault(b, []).append(a)
        return links

    def _see_also(self, name: str, wanted: list[str]) -> None:
        path = skill_path(name)
        try:
            current = list(parse_skill(path, self._text(name)).see_also)
        except ValueError:
            return  # a broken skill is the guards' to report, not ours to rewrite
        kept = [n for n in current if n in self.files.skill_names()]
        merged = list(dict.fromkeys([*kept, *wanted]))[:SEE_ALSO_MAX]
        if merged and merged != current and self._room(name):
            self._write(name, set_front_matter(self._current(name), "see_also", merged),
                        f"see_also: {', '.join(merged)}")

    # reading and writing ----------------------------------------------------------------------------------------

    def _text(self, name: str) -> str:
        """The skill as it stands: this session's text once read or written, else the signals' copy (no tool call)."""
        path = skill_path(name)
        known = self.health.skills.get(name)
        if known is not None and not self.files.read_before(path):
            return known.text
        return self.files.skill(path) or ""

    def _current(self, name: str) -> str:
        """The skill read through the tools (once): what a change is written on top of."""
        return self.files.skill(skill_path(name)) or ""

    def _room(self, name: str) -> bool:
        """Whether a change to `name` fits the session's tool-call cap: a read unless done, and its write."""
        path = skill_path(name)
        needed = (0 if self.files.read_before(path) else 1) + (0 if self.files.owes_write(path) else 1)
        if self.files.calls_left() - needed >= RESERVE:
            return True
        self.ledger.skills_deferred += 1
        return False

    def _write(self, name: str, text: str, what: str) -> None:
        self.files.set_skill(skill_path(name), text)
        self.ledger.note_skill(skill_path(name), what, changed=True)


def _closest(correction: str, texts: dict[str, str]) -> list[str]:
    """The skills sharing the most topic words with the correction; none when no skill shares one."""
    said = _topic_words(correction)
    scores = {name: len(said & _topic_words(text)) for name, text in texts.items()}
    best = max(scores.values(), default=0)
    return sorted(name for name, score in scores.items() if score == best) if best else []


def _topic_words(text: str) -> set[str]:
    """Meaningful words in a crude singular form, without the words nearly every line uses."""
    return {singular(word) for word in content_words(text) if word not in TOPIC_STOPWORDS and len(word) > 2}


def _with_bullet(text: str, section: str, line: str) -> str:
    doc = MarkdownDoc(text)
    doc.add_bullet(section, line)
    return doc.render()


_MEMBER_LINE = re.compile(r"^- `(?P<name>[a-z0-9-]+)`:")


def _current_guide(text: str, lines: dict[str, str]) -> str:
    """The guide with a line for every member (new ones after the last member line) and none for a gone one."""
    kept: list[str] = []
    last = -1
    for line in text.split("\n"):
        match = _MEMBER_LINE.match(line)
        if match is not None and match.group("name") not in lines:
            continue
        if match is not None:
            last = len(kept)
        kept.append(line)
    listed = {m.group("name") for line in kept if (m := _MEMBER_LINE.match(line))}
    named = SkillNames(lines).found(text)
    missing = [line for name, line in lines.items() if name not in listed and name not in named]
    if not missing:
        return "\n".join(kept)
    at = last + 1 if last >= 0 else len(kept) - (1 if kept and not kept[-1] else 0)
    return "\n".join([*kept[:at], *missing, *kept[at:]])
