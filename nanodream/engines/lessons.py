"""The builtin engine's lessons from corrections of the agent: anti-patterns, the hypothesis lane, ask-first.

A stated correction of conduct is filed at once as an anti-pattern in SOUL.md (replacing the rule it
contradicts, or an older anti-pattern about the same thing, in place). A reported complaint is a sighting:
its anti-pattern, or the preference it implies in USER.md, carries a hypothesis marker until as many
sightings as its tone needs (hypotheses.py), then becomes a plain line. A stated fact that says the opposite
of a hypothesis marks it stale. Whatever lets the agent act on payments, credentials, security or personal
data is marked ask-first.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from nanodream.engines.behaviour import (
    ANTI_PATTERNS,
    SAME_AVOID,
    AntiPattern,
    Said,
    about_conduct,
    anti_pattern,
    opposite,
    parse_line,
    preference_from,
    read_correction,
    same_preference,
)
from nanodream.engines.ledger import Ledger
from nanodream.hypotheses import Hypothesis, asks_first, parse, with_ask_first, with_hypothesis
from nanodream.markdown import Bullet, MarkdownDoc
from nanodream.pinning import PIN
from nanodream.text.words import content_words, fact_key, similarity, tidy_sentence
from nanodream.workspace import SOUL, USER

PREFERENCES = "Preferences"


class Lessons:
    """Files what corrections of the agent teach, into the docs the builtin engine edits."""

    def __init__(self, docs: dict[str, MarkdownDoc], ledger: Ledger, rejected: Callable[[str], bool]) -> None:
        self.docs = docs
        self.ledger = ledger
        self.rejected = rejected  # True (and counted) for a fact a person rejected

    def correction(self, text: str, day: date, domain: str = "") -> bool:
        """File a [correction] about the agent's conduct; False when it corrects a fact about the world."""
        said = read_correction(text)
        if not about_conduct(said):
            return False
        rule = anti_pattern(said.content, domain, complaint=said.reported)
        if rule is not None:
            self._anti_pattern(rule, said, day)
            return True
        preference = preference_from(said.content) if said.reported else None
        if preference is None:
            return False
        line = tidy_sentence(preference)
        self._sighting(line, said, USER, PREFERENCES, lambda b: _similar_preference(line, b))
        return True

    def held(self, text: str) -> str:
        """A stated preference or rule as it is filed: ask-first when it lets the agent act on something risky."""
        if asks_first(text):
            self.ledger.ask_first += 1
            return with_ask_first(text)
        return text

    def contradicted(self, text: str, day: date) -> None:
        """A stated fact makes every hypothesis that says the opposite stale."""
        for path, doc in self.docs.items():
            for bullet in doc.bullets():
                hypothesis = parse(bullet.text)
                if hypothesis is not None and not hypothesis.stale and opposite(text, bullet.text):
                    stale = Hypothesis(hypothesis.count, hypothesis.tone, day)
                    doc.replace_bullet(bullet.index, with_hypothesis(bullet.text, stale))
                    self.ledger.staled.append(f"{path}: {bullet.text}")

    # anti-patterns --------------------------------------------------------------------------------------

    def _anti_pattern(self, rule: AntiPattern, said: Said, day: date) -> None:
        line = rule.line()
        if said.reported:
            self._sighting(line, said, SOUL, ANTI_PATTERNS, lambda b: _same_rule(rule, b))
            return
        if self.rejected(line):
            return
        soul = self.docs[SOUL]
        same = next((b for b in soul.bullets() if _same_rule(rule, b)), None)
        if same is not None and fact_key(same.text) == fact_key(line):
            self.ledger.duplicates += 1
            return
        if same is not None:
            soul.replace_bullet(same.index, line)
        else:
            self._drop_contradicted_rule(rule, line)
            soul.add_bullet(ANTI_PATTERNS, line)
        self.ledger.anti_patterns.append(line)

    def _drop_contradicted_rule(self, rule: AntiPattern, line: str) -> None:
        """The rule that told the agent to do what it must now avoid goes (a pinned one stays: a person's call)."""
        soul = self.docs[SOUL]
        alternative = content_words(rule.instead) - content_words(rule.avoid)  # "grep" in "instead use grep"
        for bullet in reversed(soul.bullets()):
            if (parse_line(bullet.text) is None and PIN not in bullet.text and parse(bullet.text) is None
                    and similarity(rule.avoid, bullet.text) >= SAME_AVOID
                    and not alternative & content_words(bullet.text)):  # a rule already saying Y agrees
                soul.remove_line(bullet.index)
                self.ledger.note_corrected(SOUL, bullet.text, line)

    # the hypothesis lane ----------------------------------------------------------------------------------

    def _sighting(self, line: str, said: Said, path: str, section: str, matches: Callable[[Bullet], bool]) -> None:
        """One more sighting of an inferred rule or preference: raise its count, promote it when due."""
        if self.rejected(line):
            return
        doc = self.docs[path]
        found = next((b for b in doc.bullets() if matches(b)), None)
        hypothesis = parse(found.text) if found is not None else None
        if found is not None and hypothesis is None:
            self.ledger.duplicates += 1  # already a plain line: stated, or promoted earlier
            return
        seen = hypothesis.sighted(said.tone) if hypothesis is not None else Hypothesis(1, said.tone)
        # A later sighting in other words counts, but the line keeps the words it was first filed in.
        text = with_hypothesis(self.held(line) if found is None else found.text, seen)
        if found is None:
            doc.add_bullet(section, text)
        else:
            doc.replace_bullet(found.index, text)
        state = "promoted" if seen.due else f"{seen.count} of {seen.needed}, {seen.tone}"
        self.ledger.sightings.append(f'"{line}" in {path} ({state})')


def _same_rule(rule: AntiPattern, bullet: Bullet) -> bool:
    found = parse_line(bullet.text)
    return found is not None and rule.same_as(found)


def _similar_preference(line: str, bullet: Bullet) -> bool:
    return (bullet.section or "").lower() == PREFERENCES.lower() and same_preference(line, bullet.text)
