"""Single-valued facts as slots: (subject, attribute) → value, so a new value replaces the old one.

"The user's timezone is Europe/Berlin" and "The user's time zone is America/Chicago now" share almost no
meaningful words, yet one must replace the other: both fill the slot (user, time zone). Word overlap cannot
see that; a slot can. Only relations that hold one value at a time are slots ("lives in", "works at",
"uses X for Y", "runs on", "X's Y is"); "prefers" or "likes" are not, a person has many preferences.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from nanodream.text.attributes import attribute_held, attribute_of, relation_of_key, unowned_value
from nanodream.text.lists import wordlist
from nanodream.text.statements import a_role, answer_language
from nanodream.text.stems import singular
from nanodream.text.structure import PERSONAL_KEYS
from nanodream.text.words import STOPWORDS, words

# Words that date a statement, or say it changed, without changing what it is about.
_TIME_WORDS = wordlist("dating-words") | wordlist("change-markers")
MAX_SUBJECT_WORDS = 5
# "runs on Sundays" says when, not where: a schedule is not the value of the "runs on" slot.
_WHEN = re.compile(r"^(?:every|each|weekdays?|weekends?|mondays?|tuesdays?|wednesdays?|thursdays?|fridays?"
                   r"|saturdays?|sundays?|\d{1,2}:\d{2}|schedule|demand|request)\b", re.IGNORECASE)

# A relation said with "is a" that holds a trade (`a_role`): the slot "works as".
_ROLE = "is a role"
_RELATION_PATTERNS = (
    ("time zone", r"^(?P<subject>.+?)(?:['’]s)?\s+(?:time\s*zone|tz)\s+(?:is|=)\s+(?P<value>.+)$"),
    # "User is in the PST time zone", "User is on Eastern time now": where ingest writes "User's time zone is PST"
    ("time zone", r"^(?P<subject>.+?)\s+is\s+(?:now\s+)?(?:in|on)\s+(?:the\s+)?(?P<value>\S+(?:\s+\S+)?)\s+"
                  r"time(?:\s*zone)?(?:\s+now)?$"),
    ("lives in", r"^(?P<subject>.+?)\s+(?:(?:now\s+)?lives|is\s+(?:now\s+)?(?:living|based))\s+in\s+(?P<value>.+)$"),
    ("lives in", r"^(?P<subject>.+?)\s+(?:(?:has|have|had)\s+)?(?:(?:just|finally|recently)\s+)?(?:moved|relocated)"
                 r"\s+(?:back\s+)?to\s+(?P<value>.+)$"),
    ("lives in", r"^(?P<subject>.+?)\s+(?:now\s+)?(?:resides|based)\s+in\s+(?P<value>.+)$"),
    ("works at", r"^(?P<subject>.+?)\s+(?:(?:now\s+)?works|is\s+(?:now\s+)?working)\s+(?:at|for)\s+(?P<value>.+)$"),
    ("works as", r"^(?P<subject>.+?)\s+(?:now\s+)?works\s+as\s+(?P<value>.+)$"),
    # "User is a QA engineer", "User is a product manager now", "User became a team lead": a trade of
    # data/roles.txt (text/statements.py `a_role`), which one holds one at a time as "works as" says it
    (_ROLE, r"^(?P<subject>.+?)\s+(?:is\s+(?:now\s+)?|(?:has\s+)?became\s+|(?:got\s+|was\s+)?promoted\s+to\s+)"
            r"(?:an?\s+)?(?P<value>[\w\s/-]+?)(?:\s+now)?$"),
    # "Our API runs on port 8080", "The API now listens on port 8081": the port is the thing's one value, as "The
    # API's port is 8081" says it
    ("has", r"^(?P<subject>.+?)\s+(?:now\s+)?(?:(?:runs|listens|is\s+(?:now\s+)?(?:running|listening|served|exposed"
            r"|reachable))\s+on|uses)\s+(?P<qualifier>port)\s+(?P<value>\d{2,5})\b.*$"),
    ("runs on", r"^(?P<subject>.+?)\s+(?:now\s+)?(?:runs|is\s+(?:now\s+)?(?:running|hosted|deployed))\s+on\s+"
                r"(?P<value>.+)$"),
    ("uses for", r"^(?P<subject>.+?)\s+(?:now\s+)?(?:uses|(?<=\bwe\s)(?:now\s+)?use)\s+(?P<value>.+?)\s+for\s+"
                 r"(?P<qualifier>.+)$"),
    ("has", r"^(?P<subject>.+?)['’]s\s+(?P<qualifier>[\w\s/-]+?)\s+(?:is|are)\s+(?P<value>.+)$"),
    # "The launch deadline is December 1", "Our staging port is 8081": a thing's one named value (`_named_value`)
    ("is", r"^(?:the|our|its|their)\s+(?P<subject>[\w\s-]{1,40}?)\s+is\s+(?:now\s+|currently\s+)?(?P<value>.+)$"),
)
_RELATIONS = tuple((name, re.compile(pattern, re.IGNORECASE)) for name, pattern in _RELATION_PATTERNS)
# How the agent answers has one language at a time (text/statements.py `answer_language`).
AGENT_SUBJECT = frozenset({"agent"})
# "Location: Lisbon", "**Employer**: Acme": a USER.md line naming one of the user's slots by a key.
_KEYED = re.compile(r"^(?P<whose>(?:the\s+)?user['’]s\s+)?\**(?P<key>[\w ]+?)\**\s*:\s*\**\s*(?P<value>\S.*)$",
                    re.IGNORECASE)
_KEYS = {"location": "lives in", "city": "lives in", "home": "lives in", "hometown": "lives in",
         "based in": "lives in", "lives in": "lives in", "employer": "works at", "company": "works at",
         "works at": "works at", "role": "works as", "job": "works as", "job title": "works as", "title": "works as",
         "time zone": "time zone", "timezone": "time zone", "tz": "time zone"}
USER_SUBJECT = frozenset({"user"})
TEAM_SUBJECT = frozenset({"we"})
# Whose a value is, when the sentence does not say ("Port is now 8081"): the one line holding the attribute decides.
UNOWNED = frozenset[str]()
# The attribute an unowned value gives, as an owned sentence would fill it (relation, qualifier).
_UNOWNED_SLOTS = {"time zone": ("time zone", frozenset()), "location": ("lives in", frozenset()),
                  "city": ("lives in", frozenset()), "port": ("has", frozenset({"port"}))}
# The person speaking of themselves: "I moved to Lisbon" fills the slot "User moved to Lisbon" does.
_FIRST_PERSON = frozenset({"i", "me", "my", "myself"})
# Whose a thing is, which does not change what it is: "Our API" is "the API".
_OWNERS = frozenset({"our", "your", "their", "its"})


@dataclass(frozen=True)
class Slot:
    subject: frozenset[str]
    relation: str
    qualifier: frozenset[str]
    value: str

    @property
    def key(self) -> tuple[frozenset[str], str, frozenset[str]]:
        """What two facts share when the later one replaces the earlier: all but the value."""
        return self.subject, self.relation, self.qualifier

    @property
    def attribute(self) -> tuple[str, frozenset[str]]:
        """What it gives a value to, whoever's it is: an unowned value ("Port is now 8081") fills the one line
        that has it."""
        return self.relation, self.qualifier


@lru_cache(maxsize=16384)  # every bullet is asked once per fact of a batch
def slot_of(text: str) -> Slot | None:
    """The slot a sentence fills, or None when it states no single-valued relation we know."""
    sentence = text.strip().rstrip(".!")
    language = answer_language(sentence)
    if language:  # "Always reply in English", "Antworte immer auf Deutsch": how the agent answers, one at a time
        return Slot(AGENT_SUBJECT, "answers in", frozenset(), language)
    unowned = unowned_value(sentence)
    if unowned is not None:
        relation, qualifier = _UNOWNED_SLOTS[unowned.key]
        return Slot(UNOWNED, relation, qualifier, unowned.value)
    for relation, match in _relations(sentence):
        subject = _key_words(match.group("subject").rsplit(",", 1)[-1])  # "Not Berlin anymore, User now lives …"
        groups = match.groupdict()
        qualifier = _key_words(groups.get("qualifier") or "")
        value = match.group("value").strip()
        if not _fills(relation, subject, value):
            return None
        if relation == "is" and "port" in subject and len(subject) > 1:  # "The API port is 8080": the API's port
            return Slot(subject - {"port"}, "has", frozenset({"port"}), value)
        if subject and len(subject) <= MAX_SUBJECT_WORDS and (qualifier or "qualifier" not in groups):
            return _keyed(Slot(subject, relation, qualifier, value), groups.get("qualifier") or "")
    said = attribute_of(sentence)  # "Ich wohne jetzt in Berlin", "我住在上海": the person's, in their language
    if said is not None:
        return Slot(USER_SUBJECT, said.relation, frozenset(), said.value)
    held = attribute_held(sentence)  # "Notre API tourne sur le port 3000": the API's port, in any language
    whose = _key_words(sentence[:held.start]) if held is not None else frozenset()
    if held is not None and whose:
        return Slot(whose, "has", frozenset({held.key}), held.value)
    return _detail(sentence, whose=True)


def _relations(sentence: str) -> Iterator[tuple[str, re.Match[str]]]:
    """Each relation a sentence's pattern says, in the order of `_RELATIONS`; "is a" only with a trade."""
    for relation, pattern in _RELATIONS:
        match = pattern.match(sentence)
        if match is None:
            continue
        if relation != _ROLE:
            yield relation, match
        elif a_role(match.group("value").strip()):
            yield "works as", match


def _fills(relation: str, subject: frozenset[str], value: str) -> bool:
    """Whether `value` is one the relation holds one at a time: not a schedule ("runs on Sundays"), a move to no
    place ("User moved to a new team"), a state ("The API is fast") or one of many things a person is ("The user
    is German")."""
    if relation == "runs on":
        return not _WHEN.match(value)
    if relation == "lives in":
        return _a_place(value)
    return relation != "is" or (_named_value(value) and subject != USER_SUBJECT)


def _a_place(value: str) -> bool:
    """A value that can be where someone lives: a name ("New York", "the Netherlands", "上海"), not a thing said
    in lower case ("a new team", "a management role") nor one named after a place ("the Berlin office")."""
    name = re.sub(r"^the\s+", "", value, flags=re.IGNORECASE)
    first, last = name[:1], (name.split() or [""])[-1][:1]
    return bool(first) and not first.islower() and not first.isdigit() and (name == value or not last.islower())


def _named_value(value: str) -> bool:
    """A value that names one thing: a number, a date or a name ("8081", "December 1", "Postgres 16"), not a list
    ("Ana and Bob") or a description."""
    return (value[:1].isdigit() or value[:1].isupper()) and not re.search(r",|\band\b|\bor\b", value)


def same_slot(a: str, b: str) -> bool:
    """Both sentences fill the same slot (with any values): the later one replaces the earlier."""
    left, right = slot_of(a), slot_of(b)
    return left is not None and right is not None and left.key == right.key


def _keyed(slot: Slot, attribute: str) -> Slot:
    """"The user's employer is X" fills the slot "works at" as "The user works at X" does."""
    key = " ".join(word for word in attribute.lower().split() if word not in _TIME_WORDS)  # "current employer"
    if slot.relation == "has" and key in _KEYS:
        return Slot(slot.subject, _KEYS[key], frozenset(), slot.value)
    return slot


@lru_cache(maxsize=16384)
def user_slot(text: str) -> Slot | None:
    """The slot of a USER.md line, which is about the user even when it does not say so ("Lives in Lisbon",
    "Location: Lisbon")."""
    found = slot_of(text) or _detail(text.strip().rstrip("."), whose=False)
    if found is not None:
        return Slot(USER_SUBJECT, found.relation, found.qualifier, found.value) if found.subject == UNOWNED else found
    lowered = text.strip()[:1].lower() + text.strip()[1:]
    return slot_of(f"The user {lowered}")


def _detail(sentence: str, *, whose: bool) -> Slot | None:
    """The slot of one of the person's details given by its key ("Pronouns: they/them" fills the slot "The user's
    pronouns are …" does; "User's Wohnort: Hamburg" is where the user lives, in any language of
    data/personal-keys.txt or of a language's `[slots.keys]`, not "Likes: tea"); `whose`: only when the line says
    it is the user's."""
    keyed = _KEYED.match(sentence)
    if keyed is None or (whose and not keyed.group("whose")):
        return None
    key, value = keyed.group("key").strip().lower(), keyed.group("value").strip()
    relation = _KEYS.get(key) or relation_of_key(key)  # "Wohnort: Hamburg" is where the user lives
    if relation:
        return Slot(USER_SUBJECT, relation, frozenset(), value)
    if key in PERSONAL_KEYS:
        return Slot(USER_SUBJECT, "has", _key_words(key), value)
    return None


def _key_words(text: str) -> frozenset[str]:
    """Meaningful words with plurals folded, so "favourite editors" and "favourite editor" are one attribute; the
    person speaking ("I", "my") is the user."""
    said = words(text)
    if said and set(said) <= _FIRST_PERSON:
        return USER_SUBJECT
    if said == ["we"]:
        return TEAM_SUBJECT  # "We use Jenkins for CI": the team's, which no other line's subject names
    return frozenset(singular(w) for w in said if w not in STOPWORDS and w not in _TIME_WORDS and w not in _OWNERS)
