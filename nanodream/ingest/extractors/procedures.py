"""A procedure the person states: a line naming a goal, then its steps. Told in two sessions, it becomes a skill.

The person writes "Here's how I cut a release:", "To release:", "For a release:", "Our release checklist:",
"Release steps:" or "The steps to restore a backup:", followed by a numbered, bulleted or "Step 1:" list of at
least two steps (or the steps in the same line: "1) … 2) …", "first …, then …, finally …", or three commands or
more apart by commas: "bump the version, update the changelog, tag the commit"); or "When releasing, first …,
then …", "To restore a backup, first …, then …".
Ingest files it as one line, `[durable] To <goal>: 1) … 2) …`: the builtin dream keeps it as a fact the first
time, and makes it the skill `skills/<goal>/SKILL.md` once another session tells it again (engines/builtin.py,
`_recurring`). A list for one piece of work ("To fix the login bug:", "To set this up:") is an errand, not a
procedure, and so is the repair of one thing ("To fix the flaky checkout test:").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nanodream.text.leads import procedure_goal
from nanodream.text.structure import program_line
from nanodream.text.verbs import base_verb
from nanodream.text.words import STOPWORDS

_GOAL = r"(?P<goal>[^:\n]{3,80}?)"
_LEADS = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
    rf"^(?:ok(?:ay)?,?\s+|so,?\s+)?(?:here['’]?s|here\s+is|this\s+is)\s+how\s+(?:I|we|you)\s+(?:usually\s+)?{_GOAL}\s*:",
    rf"^how\s+(?:I|we|to)\s+{_GOAL}\s*:",
    rf"^(?:the\s+)?(?:steps|way)\s+(?:to|for)\s+{_GOAL}\s*:",
    rf"^(?:in\s+order\s+)?to\s+{_GOAL}\s*:",
    rf"^for\s+an?\s+{_GOAL}\s*:",  # "For a release:"
    # "Our release checklist:", "Quick reminder of the deploy steps:", "Release process is:"
    r"^(?:.*?\b(?:of|for|on)\s+)?(?:(?:my|our|the)\s+)?(?P<goal>[\w-]+(?:\s+[\w-]+){0,2}?)\s+"
    r"(?:process|procedure|steps|checklist|workflow|routine|playbook|runbook)(?:\s+(?:is|are|goes|looks\s+like))?\s*:",
))
# "When releasing, first …, then …": a goal in its -ing form, told by the sequence after its comma.
_WHEN_DOING = re.compile(r"^when\s+(?P<goal>[a-z]+ing(?:\s+[\w-]+){0,3}?)\s*,\s*(?=(?:first|1[.)])\b)", re.IGNORECASE)
# "To restore a backup, first …, then …": a goal after "to", told by the sequence after its comma.
_TO_DO = re.compile(r"^(?:in\s+order\s+)?to\s+(?P<goal>[a-z][\w-]*(?:\s+[\w-]+){0,4}?)\s*,\s*(?=(?:first|1[.)])\b)",
                    re.IGNORECASE)
# A list's item: "- …", "1. …", "Step 1: …", or as Chinese and Japanese number one ("1、…", "1．…", "1）…").
_STEP = re.compile(r"^\s*(?:(?:[-*•+]|\d{1,2}[.)]|step\s*\d{1,2}\s*[:.)-])\s+|\d{1,2}[、．）]\s*)(?P<step>\S.*)$",
                   re.IGNORECASE)
_INLINE_NUMBERED = re.compile(r"(?:^|\s)\d{1,2}[.)]\s+")
_SEQUENCE = re.compile(r"(?:^|[,;]\s*|\s+)(?:and\s+)?(?:first(?:ly)?|then|next|after\s+that|finally|lastly),?\s+",
                       re.IGNORECASE)
_COMMA = re.compile(r"\s*[,;]\s*(?:and\s+)?")
# Steps only in commas ("bump the version, update the changelog, tag the commit"): this many at least, each a
# command (`_a_command`), so a list of things ("Docker, Kubernetes, Helm") is no procedure.
MIN_COMMA_STEPS = 3
MAX_STEP_WORDS = 12
# A goal that names no lasting task: this one piece of work, or a list's heading rather than a goal.
_ERRAND = re.compile(r"\b(?:this|that|these|those|it|here|now|today|the\s+(?:[\w-]+\s+){0,2}(?:bug|fix|issue|"
                     r"ticket|pr|error|problem))\b|^(?:next|remaining|open|following|todo|action|to-?do)\b"
                     # a repair of one thing: "fix the flaky checkout test" (not "fix a broken build": any of them)
                     r"|^(?:fix|debug|troubleshoot|repair|solve|resolve)\s+(?:the|my|our)\b",
                     re.IGNORECASE)
MIN_STEPS = 2
MAX_STEP_CHARS = 200
# Who did something: a step opening with one is a statement ("we tried Redis"), no command.
_SUBJECTS = frozenset({"i", "we", "you", "he", "she", "it", "they", "this", "that", "there"})


@dataclass(frozen=True)
class Told:
    """A procedure as the person stated it, and the lines of their message it took; `lead`: the line leading into
    it as said, in a language other than English (text/leads.py), whose words the filed line keeps."""

    goal: str
    steps: tuple[str, ...]
    lines: tuple[int, ...]
    lead: str = ""

    def line(self) -> str:
        steps = " ".join(f"{number}) {step.rstrip('.;')}" for number, step in enumerate(self.steps, start=1))
        if self.lead:
            return f"[durable] {self.lead}: {steps}"
        first = self.goal.split()[0]
        goal = self.goal if first.isupper() else self.goal[:1].lower() + self.goal[1:]  # "Release steps:"
        return f"[durable] To {goal}: {steps}"


def stated_procedures(text: str) -> list[Told]:
    """Every procedure a message states, in order."""
    lines = text.splitlines()
    found: list[Told] = []
    for index, line in enumerate(lines):
        goal, rest = _lead(line)
        said = ""
        if goal is None:
            goal, said, rest = _lead_in_another_language(line)
        if goal is None:
            continue
        steps, taken = _steps_after(lines, index) if not rest else (_inline_steps(rest), ())
        if len(steps) >= MIN_STEPS and all(len(step) <= MAX_STEP_CHARS for step in steps):
            found.append(Told(goal, tuple(steps), (index, *taken), said))
    return found


def _lead(line: str) -> tuple[str | None, str]:
    """The goal a line leads into steps with, and what follows its colon on the same line ("" when nothing)."""
    text = line.strip().strip("*").strip()
    for pattern in (*_LEADS, _WHEN_DOING, _TO_DO):
        match = pattern.match(text)
        if match is not None:
            goal = " ".join(match.group("goal").split())
            if _ERRAND.search(goal) or program_line(line):
                return None, ""
            if pattern is _WHEN_DOING:  # "releasing" is the goal "release"
                first, _, others = goal.partition(" ")
                goal = f"{base_verb(first)} {others}".strip()
            rest = text[match.end():].strip()
            if pattern is _TO_DO and not all(_a_command(step, first=True) for step in _inline_steps(rest)):
                return None, ""  # "To be honest, first I was confused, then …": no steps, a way of speaking
            return goal, rest
    return None, ""


def _lead_in_another_language(line: str) -> tuple[str | None, str, str]:
    """The goal, the lead as said and what follows its colon, for a lead in a language of text/leads.py ("So mache
    ich ein Release:", "发布流程：")."""
    lead, colon, rest = (re.split(r"\s*([:：])\s*", line.strip().strip("*").strip(), maxsplit=1) + ["", ""])[:3]
    goal = procedure_goal(lead) if colon else None
    if goal is None or program_line(line):
        return None, "", ""
    return goal.text, lead.strip("*").strip(), rest.strip()


def _steps_after(lines: list[str], index: int) -> tuple[list[str], tuple[int, ...]]:
    """The list right after the lead line (a blank line may come between them)."""
    steps: list[str] = []
    taken: list[int] = []
    for number in range(index + 1, len(lines)):
        match = _STEP.match(lines[number])
        if match is None:
            if not lines[number].strip() and not steps:
                continue
            break
        steps.append(match.group("step").strip())
        taken.append(number)
    return steps, tuple(taken)


def _inline_steps(rest: str) -> list[str]:
    """Steps written on the lead's own line: "1) … 2) …", "first …, then …, finally …", or commands apart by
    commas ("bump the version, update the changelog, tag the commit, then push the tag")."""
    if _INLINE_NUMBERED.match(rest):
        return [part.strip().rstrip(";,") for part in _INLINE_NUMBERED.split(rest) if part.strip()]
    parts = [part.strip().rstrip(".;,") for part in _SEQUENCE.split(rest) if part and part.strip()]
    steps = [step for part in parts for step in _commands_in(part)]
    if _SEQUENCE.search(rest):
        return steps
    return steps if len(steps) >= MIN_COMMA_STEPS and len(steps) > len(parts) else []


def _commands_in(part: str) -> list[str]:
    """A part of a sequence, cut at its commas when every piece is a command; else the part whole."""
    pieces = [piece.strip().rstrip(".") for piece in _COMMA.split(part) if piece.strip()]
    if len(pieces) > 1 and all(_a_command(piece, first=index == 0) for index, piece in enumerate(pieces)):
        return pieces
    return [part]


def _a_command(piece: str, *, first: bool) -> bool:
    """A step told as a command: a few words opening with a verb's base form, in lower case past the first step,
    and no number right after it ("update the changelog", "tag"; not "Kubernetes", "the formatter", "tests pass",
    "quickly", "node 20")."""
    said = piece.split()
    if not 0 < len(said) <= MAX_STEP_WORDS:
        return False
    opening = said[0]
    if not opening.isalpha() or (not first and not opening.islower()) or said[1:2] and said[1][:1].isdigit():
        return False
    word = opening.lower()
    return (word not in STOPWORDS and word not in _SUBJECTS and base_verb(word) == word
            and (not word.endswith(("ly", "s")) or word.endswith("ss")))  # "press", not "tests" or "quickly"
