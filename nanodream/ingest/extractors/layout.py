"""What a message's layout says, before its sentences are read: a list's lead line, a paragraph quoted whole.

A list led in as rules for the agent ("Ground rules going forward:") makes each item that tells the agent what to
do a rule though it says no "always"; a paragraph that is all one quotation after the person's words is someone
else's (a pasted answer asked about), unless the person asks to keep it.
"""

from __future__ import annotations

import re

from nanodream.engines.routing import instructs_agent, route_fact
from nanodream.ingest.extractors.rules import Fact
from nanodream.text import statements
from nanodream.text.sentences import adds_to_a_file, led_lists, sentences
from nanodream.workspace import SOUL


def rules_led_in(text: str, said: list[str], filed: dict[int, Fact], rest: dict[int, str]) -> None:
    """File as rules the items of each list of a message led in as rules for the agent (`led_in_as_rules`): `said`
    are its sentences, `filed` what the rules made of them and `rest` those a gist would take, both by index."""
    for lead, items in led_lists(text):
        held = {sentence for item in items for sentence in sentences(item)}
        indexes = [index for index, sentence in enumerate(said) if sentence in held]
        told = led_in_as_rules(lead, [said[index] for index in indexes],
                               {place: filed[index] for place, index in enumerate(indexes) if index in filed})
        for place, fact in told.items():
            filed[indexes[place]] = fact
            rest.pop(indexes[place], None)


def led_in_as_rules(lead: str, said: list[str], facts: dict[int, Fact]) -> dict[int, Fact]:
    """A list led in as rules for the agent ("Ground rules going forward:", English's `lists.rules`), its sentences
    `said` and what the rules filed of them (`facts`, by place): each is a rule when every one is a rule filed so or
    one that tells the agent what to do ("- ask before deleting anything": the lead says it lasts), else {}."""
    english = statements.language("en")
    if english is None or english["lists.rules"].at(english.tokens(lead)) < 0:
        return {}
    told: dict[int, Fact] = {}
    for place, sentence in enumerate(said):
        fact = facts.get(place)
        if fact is None and instructs_agent(sentence):
            fact = Fact("permanent", sentence)
        elif fact is None or route_fact(fact.text).path != SOUL:
            return {}
        told[place] = fact
    return told


# A paragraph that is all one quotation, in any script's quotation marks (a stop may close it outside them).
_QUOTATION = re.compile(r'^\s*(?:"[^"]+"|“[^”]+”|„[^“”]+[“”]|«[^»]+»|「[^」]+」|『[^』]+』)\s*[.。!！]?\s*$')
_PARAGRAPHS = re.compile(r"\n[ \t]*\n")


def without_quoted_paragraphs(text: str) -> str:
    """The message without a paragraph that is all one quotation after the person's own words ("ChatGPT said this,
    is it right?\n\n"Great question! … always …""): someone else's words, as a quotation inside a sentence is —
    unless what comes before asks to keep it or add it to an instruction file ("Remember this:", "Add to
    CLAUDE.md:"). A model reads the message as written if it waits."""
    paragraphs = _PARAGRAPHS.split(text)
    kept = paragraphs[:1]
    for before, paragraph in zip(paragraphs, paragraphs[1:], strict=False):
        if _QUOTATION.match(paragraph) and not _keeps_what_follows(before):
            continue
        kept.append(paragraph)
    return "\n\n".join(kept)


def _keeps_what_follows(paragraph: str) -> bool:
    """Whether a paragraph asks to keep what follows it, in any language read, or to add it to a file."""
    if adds_to_a_file(paragraph):
        return True
    return any(statements.asks_to_keep_or_forget(paragraph, spec) for code in sorted(statements.read_languages())
               if (spec := statements.language(code)) is not None)
