"""The line that leads into a procedure's steps in another language: "So mache ich ein Release:", "Para desplegar:",
"发布流程：", "リリースの手順：".

Each language file's `[procedure]` lists `leads`, the line before its colon: "…" stands for the goal ("so mache ich
…", "…流程"), a word written "~ar" for any word ending so, which is the goal's first (an infinitive: "para ~ar …"
reads "Para desplegar" and "Para hacer un release"), and `articles`, the words of a goal that do not name it
("ein", "el"), left out wherever they stand. English leads are ingest's own rules (ingest/extractors/procedures.py).
A goal of the moment ("这个bug的修复步骤", "Para hoy") is an errand's list, no procedure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from nanodream.text.lists import language_codes, language_file
from nanodream.text.statements import of_the_moment

GOAL_MARK = "…"
# A goal names a task in a few words, or characters.
MAX_GOAL_WORDS = 6
MAX_GOAL_CHARACTERS = 16
# A goal of words, in a script with spaces ("so mache ich …").
_WORDS_GOAL = r"\S+(?:\s+\S+)*?"
# A goal written against a lead's word ("…流程", "…-ablauf"), or in a script without spaces: up to its colon.
_ATTACHED_GOAL = rf"[^\s:：]{{1,{MAX_GOAL_CHARACTERS}}}?"


@dataclass(frozen=True)
class Goal:
    """What a procedure is for, in the person's words (`text`, its articles left out), and the language read."""

    text: str
    language: str


@dataclass(frozen=True)
class _Spec:
    leads: tuple[re.Pattern[str], ...]
    articles: frozenset[str]
    characters: bool


@cache
def _spec(code: str) -> _Spec | None:
    data = language_file(code)
    table = (data or {}).get("procedure", {})
    if not table.get("leads"):
        return None
    characters = data.get("match") == "characters"
    ordered = sorted(table["leads"], key=lambda lead: len(lead.replace(GOAL_MARK, "")), reverse=True)
    leads = tuple(_compiled(lead, characters) for lead in ordered)  # "…的步骤" before "…步骤": the goal unpadded
    return _Spec(leads, frozenset(word.lower() for word in table.get("articles", ())), characters)


def _compiled(lead: str, characters: bool) -> re.Pattern[str]:
    """A lead as a pattern over the whole line before its colon: its words, the goal's parts in groups; a goal
    after a "~" word may be left unsaid ("Para desplegar")."""
    joiner = r"\s*" if characters else r"\s+"
    pattern = ""
    words = lead.split()
    for number, word in enumerate(words):
        if word == GOAL_MARK:
            part = f"(?P<goal{number}>{_ATTACHED_GOAL if characters else _WORDS_GOAL})"
        elif word.startswith("~"):
            part = rf"(?P<goal{number}>\w+{re.escape(word[1:])})"
        else:
            part = _with_goal_inside(word, number)
        if number and word == GOAL_MARK and words[number - 1].startswith("~"):
            pattern += f"(?:{joiner}{part})?"
        else:
            pattern += (joiner if number else "") + part
    return re.compile(pattern, re.IGNORECASE)


def _with_goal_inside(word: str, number: int) -> str:
    """A word of the lead holding the goal at its start or end ("…-ablauf", "…流程"): the goal joined to it."""
    before, mark, after = word.partition(GOAL_MARK)
    if not mark:
        return re.escape(word)
    return f"{re.escape(before)}(?P<goal{number}>{_ATTACHED_GOAL}){re.escape(after)}"


def procedure_goal(lead: str) -> Goal | None:
    """The goal a line (its colon left out) leads into steps for, in the first language whose leads read all of it;
    None when none does, or when the goal is of the moment."""
    text = " ".join(lead.strip().strip("*").strip().split())
    for code in language_codes():
        spec = _spec(code)
        if spec is None:
            continue
        for pattern in spec.leads:
            match = pattern.fullmatch(text)
            if match is None:
                continue
            goal = _goal(match, spec)
            if goal and not of_the_moment(text, code):
                return Goal(goal, code)
    return None


def _goal(match: re.Match[str], spec: _Spec) -> str:
    """The goal's parts in order, its articles left out; "" when it is too long to name a task."""
    parts = sorted((int(name.removeprefix("goal")), part) for name, part in match.groupdict().items() if part)
    said = " ".join(part for _, part in parts)
    words = [word for word in said.split() if word.lower() not in spec.articles]
    if spec.characters:
        return "".join(words) if len("".join(words)) <= MAX_GOAL_CHARACTERS else ""
    return " ".join(words) if 0 < len(words) <= MAX_GOAL_WORDS else ""
