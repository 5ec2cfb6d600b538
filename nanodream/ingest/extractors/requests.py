"""What a person's message asks of the agent: a piece of work (said at a sentence's start or end), how to do it
(a bare "don't …" after the request), the problem it is about, or one of the options the agent offered. Such
sentences say how to do this errand, not what to keep (rules.py, builtin.py).
"""

from __future__ import annotations

import re

from nanodream.ingest.extractors.spoken import without_lead_in
from nanodream.text.grammar import DO_NOT, NO, NOT, PROHIBITION, not_after

# Verbs that ask to change a thing or the way it is built ("Migrate the users table …", "Redesign the layout …"):
# opening a sentence, they ask for work, whether or not it names what it works on.
CHANGE_VERBS = (r"switch|migrate|convert|upgrade|downgrade|replace|swap|enable|disable|turn|restart|rebuild|rerun|"
                 r"revert|roll back|deploy|redesign|rewrite|redo|rework|restyle|improve|optimi[sz]e|simplify|split|"
                 r"extract|polish|tweak|adjust")


# A bare prohibition: "don't …", "avoid …", "stop …" with no "please", "always", "never" or "from now on" to make
# it stand: after a request in the same message, it says how to do that errand.
_BARE_DONT = re.compile(rf"^(?:{DO_NOT}|avoid|stop)\b", re.IGNORECASE)


def a_bare_dont(sentence: str) -> bool:
    """"Don't touch the file.", "Avoid caching.": a prohibition with nothing that makes it last."""
    return bool(_BARE_DONT.match(sentence))


# One of the options the agent offered, pointed at: "option 1", "the second one", "all", "both" — an answer to the
# agent's question, which names nothing a memory could keep ("I like the second one", "let's go with option 1").
# So is the work at hand ("any approach", "what we have here"), or a number or letter alone ("let's go with 2 and
# tweak the subhead"), whatever is said after it.
_A_CHOICE = re.compile(r"(?:(?:the|all|both)\s+)?(?:(?:option|choice|number|#)\s*\w{1,3}|all|both|either|"
                       r"(?:first|second|third|fourth|fifth|last|former|latter|other|same)"
                       r"(?:\s+(?:one|ones|option|options|choice|version|approach|idea|way))?|"
                       r"any\s+(?:of\s+(?:them|those|these)|one|approach(?:es)?|options?|ideas?|versions?)|"
                       r"what\s+(?:we|you)\s+(?:have|had|did|made|wrote|built|got|came\s+up\s+with)"
                       r"(?:\s+(?:here|so\s+far|now))?|where\s+(?:we|it|this)\s+(?:are|is|stands?)|\d{1,2}|[A-D])"
                       r"(?:\s+(?:of\s+them|of\s+those|please|then|better|best|more|most|too))?"
                       r"(?:\s*[.!]*$|\s*(?:,|;|\band\b|\bbut\b|\bthen\b|\bto\b|\bbecause\b|\bsince\b))",
                       re.IGNORECASE)
# What the person likes or chose, after the verb ("I like the second one"), and after a decision's verb ("decided
# on option 2", "decided to go with the first one").
_LIKED = re.compile(rf"^I\s+(?:(?:really|also|do|still|{DO_NOT})\s+)*(?:like|love|prefer|want|choose|pick)s?\s+"
                    r"(?P<what>.+)$", re.IGNORECASE)
_CHOSEN_LEAD = re.compile(r"^(?:on|to\s+(?:go\s+with|use|take|pick))\s+", re.IGNORECASE)


def only_a_choice(text: str) -> bool:
    return bool(_A_CHOICE.match(text.strip()))


def likes_an_option(sentence: str) -> bool:
    """"I like the second one", "I prefer option 2", "I don't like any approach", "I don't care either way": an
    answer to the agent's options or about the work at hand, no taste of the person's."""
    liked = _LIKED.match(sentence)
    return liked is not None and only_a_choice(liked.group("what")) or _INDIFFERENT.match(sentence) is not None


# Whichever of the options at hand: "I honestly don't care either way", "I don't mind which one" (not "I don't
# mind spicy food": a taste).
_INDIFFERENT = re.compile(rf"^I\s+(?:(?:honestly|really|truly|just|personally)\s+)*{DO_NOT}\s+"
                          r"(?:really\s+)?(?:care|mind)(?:\s+(?:either\s+way|which(?:ever)?(?:\s+one)?|what(?:ever)?"
                          r"(?:\s+you\s+(?:pick|choose))?|much|too\s+much))?\s*[.!]*$", re.IGNORECASE)


# What opens an answer to the agent's options before the option itself: "ok, let's go with …", "I'll take …".
_CHOOSING = re.compile(r"^(?:(?:ok(?:ay)?|yes|yeah|sure|then|so)[,.!]?\s+)*"
                       r"(?:(?:(?:let['’]?s|we['’]ll|i['’]ll|we\s+will|i\s+will|i)\s+)?"
                       r"(?:go\s+(?:with|for)|take|pick|choose|do|use|vote\s+for)\s+)?", re.IGNORECASE)
# Answers to numbered questions, each a letter: "Q1: A, Q2: B", "1) C 2) A".
_LETTERED_ANSWERS = re.compile(r"^(?:Q?\d{1,2}\s*[:.)=-]\s*[A-Da-d]\b[\s,;]*){2,}$")


def answers_an_option(sentence: str) -> bool:
    """"Option A", "Let's go with 2 and tweak the subhead", "Q1: A, Q2: B": an answer to the agent's options,
    which only a model that sees them can read."""
    text = sentence.strip()
    rest = text[_CHOOSING.match(text).end():]  # the pattern matches empty at worst
    return likes_an_option(text) or bool(_LETTERED_ANSWERS.match(text)) or bool(rest) and only_a_choice(rest)

def a_chosen_option(chosen: str) -> bool:
    """What a decision's verb chose ("on option 2", "to go with the first one") is one of the agent's options."""
    return only_a_choice(_CHOSEN_LEAD.sub("", chosen))


# A sentence asking the agent for a piece of work: a question to it, "please …", "let's …", a command verb.
_ASKS = re.compile(r"^(?:(?:ok(?:ay)?|great|good|so|and|also|now|then|first|next|alright)\s*[,.!]?\s+)*(?:"
                   rf"(?:can|could|would|will)\s+you\b|please\s+(?!always|{PROHIBITION})|let'?s\b|"
                   r"i(?:'d| would) like (?:a|an|the|you|to have)\b|i (?:want|need) you\b|"
                   r"(?:add|fix|make|show|give|write|check|run|create|update|remove|delete|change|move|review|generate|"
                   r"prepare|draft|implement|investigate|refactor|rename|look|find|explain|summari[sz]e|build|"
                   rf"open|set up|go ahead|clean up|translate|install|debug|{CHANGE_VERBS})\b)", re.IGNORECASE)


# A request the sentence ends with: "The endpoint returns stale data, please fix it." — what it asks is this errand.
_ASKS_AT_END = re.compile(rf"[,;:—–-]\s*(?:please|pls|can\s+you|could\s+you)\s+(?!always\b|{PROHIBITION})\w+[^,;]*$",
                          re.IGNORECASE)
# A request about what came just before it: "Please look into it.", "Can you fix this?"
_POINTS_BACK = re.compile(r"\b(?:it|this|that|these|them)\b", re.IGNORECASE)


def asks(sentence: str) -> bool:
    """Whether a sentence asks the agent for a piece of work, at its start or at its end."""
    plain = without_lead_in(sentence)
    return bool(_ASKS.match(plain) or _ASKS_AT_END.search(plain.rstrip(".!?")))


# What goes wrong: a sentence saying so reports a problem ("… renders blank pages", "… times out under load").
_GOES_WRONG = re.compile(rf"\b(?:fail(?:s|ed|ing)?|crash(?:es|ed|ing)?|broken|breaks|errors?|blank|stale|wrong|hangs?"
                         rf"|freez(?:es|ing)|times?\s+out|timeouts?|slow|leaks?|missing|empty|bug(?:gy|s)?"
                         rf"|{not_after('does', 'do', 'is', 'are', 'can', 'will', 'did')}\s+\w+)\b", re.IGNORECASE)


def before_a_request(sentences: list[str]) -> list[bool]:
    """For each sentence of a message, whether it reports a problem the next one asks to work on ("The invoice PDF
    renders blank pages. Please look into it."): what the errand is about, not a fact to keep. A fact the request
    only builds on stays one ("The staging server runs Debian 12. Can you check if it needs an upgrade?")."""
    return [index + 1 < len(sentences) and bool(_GOES_WRONG.search(sentences[index])) and asks(sentences[index + 1])
            and bool(_POINTS_BACK.search(sentences[index + 1])) for index in range(len(sentences))]


def after_a_request(sentences: list[str], asked: bool = False) -> list[bool]:
    """For each sentence of a message, whether an earlier one asked the agent for a piece of work (`asked`: the
    person's message before this one did): a bare "don't …" after it says how to do that errand ("… make a branch
    for each. do not open any PRs.", or "Avoid caching responses." sent right after "please fix it"), one before
    it stands on its own ("Don't use emojis in commit messages. Can you add …?")."""
    flags = []
    for sentence in sentences:
        flags.append(asked)
        asked = asked or asks(sentence)
    return flags


# What leads into the work to do in place of what a bare "don't" held back: "just …", "we only need to …".
_WORK_INSTEAD = re.compile(rf"^(?:(?:{NO}|ok|so|but),?\s+)?(?:(?:we|i|you)\s+)?(?:just|only)\s+"
                           r"(?:(?:need|want|have)\s+(?:to\s+)?)?", re.IGNORECASE)
_INSTEAD = re.compile(r"\binstead\b", re.IGNORECASE)


def before_the_work_instead(sentences: list[str]) -> list[bool]:
    """For each sentence of a message, whether it is a bare "don't …" the next one answers with the work to do in
    its place ("Do not change source files. Update the tests instead.", "… DO NOT CHANGE SOURCE FILES, we only need
    to update the tests"): how to do that errand, not a rule. "Don't use npm. Use pnpm instead." asks for no work:
    it stands."""
    return [index + 1 < len(sentences) and bool(a_bare_dont(without_lead_in(sentences[index])))
            and _the_work_instead(sentences[index + 1]) for index in range(len(sentences))]


def _the_work_instead(sentence: str) -> bool:
    """"Update the tests instead.", "we only need to update the tests": a request for work in place of another."""
    lead = _WORK_INSTEAD.match(sentence)
    return (lead is not None or bool(_INSTEAD.search(sentence))) and asks(sentence[lead.end():] if lead else sentence)

def opens_with_a_request(clause: str) -> bool:
    """Whether a clause opens asking the agent for work ("please …", "can you …", "fix …")."""
    return bool(_ASKS.match(clause))


# Feedback on how the agent talks, or leave to do something its own way: "You're too verbose.", "Feel free to use a
# few emojis.", "You can use some emojis when you talk", "But not too many emojis!!!". How it should change
# (be shorter? how many?) only a model reading the exchange can put as a rule.
_MANNER = re.compile(r"^(?:(?:but|and|also|ok(?:ay)?|please)[,\s]+)*(?:you(?:['’]re|\s+are)\s+(?:(?:way|much|a\s+bit"
                     r"|a\s+little|far|kind\s+of)\s+)?(?:too|overly)\s+\w+|feel\s+free\s+to\b|you\s+(?:can|may)"
                     rf"\s+(?:use|add|include|be|write|speak|talk|answer|reply)\b|{NOT}\s+too\s+(?:many|much)\b)",
                     re.IGNORECASE)


def about_the_agents_manner(sentence: str) -> bool:
    return bool(_MANNER.match(sentence.strip()))
