"""The builtin extractor's rules: which sentences a person says about themselves and their work are facts.

Each rule looks at one sentence and either files it as one tagged fact line, in nanobot's style, or passes.
The rules, in the order they are tried:

| the person says | tag | filed as |
|---|---|---|
| "Actually, …", "Correction: …", "… no longer …", "… not anymore" | `[correction]` | the rest, restated |
| "Please always …", "Never …", "Don't …", "From now on …" (to the agent) | `[permanent]` | the rule itself |
| "Remember to … every time", "Every time you X, do Y" (to the agent) | `[permanent]` | the rule itself |
| "Call me Sam", "My name is …", "I live in / work at / am a …", "My wife is …" | `[permanent]` | "User …" |
| "I prefer / like / love / hate …", "My favourite X is Y" | `[permanent]` | "User prefers …" |
| "We decided to …", "Let's use / go with …", "We'll go with …", "We agreed …" | `[durable]` | "Decided to …" |
| "We switched (from A) to B", "We moved to B" | `[correction]` | "Switched to B" |
| "Port is now 8081", "Timezone is UTC-5" (whose, not said) | `[correction]` with "now", else `[durable]` | as said |
| "I need / have / must to …", "Remind me to …", "TODO …" | `[ephemeral]` | "Task: …" |
| "I finished / fixed / shipped …" | `[durable]` | "Finished … on <day>" (closes the task it names) |
| any other plain statement opening with "I", "my", "we" or "our" | `[durable]` | "(<day>) User …" |
| a statement that names someone or something ("Leo loved his first week at school") | `[durable]` | "(<day>) …" |

Questions, hedges ("I think", "I guess"), thanks and other small talk are never facts, though a statement
after an interjection or greeting is ("Yeah, I started pottery"); neither is a sentence with fewer than a few
meaningful words. Filler words ("you know", "haha", "really") and emoji are read out first, and relative times
made absolute (text/dates.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date

from nanodream.ingest.extractors.requests import (
    CHANGE_VERBS,
    a_bare_dont,
    a_chosen_option,
    likes_an_option,
    only_a_choice,
    opens_with_a_request,
)
from nanodream.ingest.extractors.spoken import from_a_source, plain
from nanodream.text.attributes import unowned_value
from nanodream.text.dates import absolute, day_text
from nanodream.text.grammar import (
    DO_NOT,
    NEGATIVE_PRONOUN,
    NEVER,
    NO,
    NO_LONGER,
    NOT,
    OBLIGATION,
    PROHIBITION,
    PROHIBITION_WORDS,
    WITHOUT,
    not_after,
    speech,
)
from nanodream.text.grammar import said as verbs_of_saying
from nanodream.text.kinds import forbidden_in_profile, forbidden_kind
from nanodream.text.language import language_of
from nanodream.text.lists import phrases, wordlist
from nanodream.text.person import is_adverb, third_person
from nanodream.text.sentences import SETTING_OPENERS
from nanodream.text.statements import LANGUAGE_NAMES, a_role, without_tag_question
from nanodream.text.structure import PERSONAL_KEYS
from nanodream.text.verbs import IRREGULAR_PAST, PAST_FORMS, SAME_IN_PAST, base_verb, conjugate, opens_a_command
from nanodream.text.words import STOPWORDS, content_words, tidy_sentence

DEFAULT_SUBJECT = "User"


@dataclass(frozen=True)
class Fact:
    tag: str
    text: str

    def line(self) -> str:
        return f"[{self.tag}] {tidy_sentence(self.text)}"


@dataclass(frozen=True)
class Said:
    """One sentence and what a rule needs besides it: who said it (a name, or the user) and on which day."""

    sentence: str
    speaker: str = ""
    day: date | None = None
    spoken: str = ""  # the sentence as said, before its relative times became dates
    errand: bool = False  # an earlier sentence of its message asked the agent for a piece of work

    @property
    def subject(self) -> str:
        return self.speaker or DEFAULT_SUBJECT

    def about(self, sentence: str | None = None) -> str | None:
        return third_person(sentence if sentence is not None else self.sentence, self.subject)

    def dated(self, text: str) -> str:
        """The statement as a journal line, with the day it was said in front: "(2023-05-08) User went …".

        The day also keeps a line opening with "User" out of USER.md (whose cap the archive never relieves: a
        long transcript tells many more events than preferences). A line that names its own date and does not
        open with "User" needs neither.
        """
        if _YEAR.search(text) and not text.startswith(DEFAULT_SUBJECT):
            return text
        return f"({self.day.isoformat() if self.day is not None else 'undated'}) {text}"

    def named(self, text: str) -> str:
        """A statement that names no one yet, with a named speaker in front ("Caroline: decided to …")."""
        return f"{self.speaker}: {text}" if self.speaker else text


# Words that carry no fact of their own: pronouns, fillers, feelings, and the subject words rules add.
_FILLER = frozenset({
    "i", "im", "ive", "id", "ill", "me", "my", "mine", "myself", "we", "our", "us", "you", "your", "user", "they",
    "them", "their", "so", "very", "really", "just", "too", "also", "quite", "much", "lot", "lots", "thing",
    "things", "stuff", "something", "anything", "everything", "good", "great", "nice", "fine", "okay", "ok", "yeah",
    "yes", "well",
})
_HEDGE = re.compile(r"^(?:i|we)\s+(?:(?:really|just|kind of|kinda|still)\s+)?(?:think|guess|suppose|believe|wonder|"
                    r"(?:want|need|wanna|would like|'d like) to know|"
                    r"hope|suspect|feel like|mean|know|see|agree|disagree|understand|bet|doubt|wish|appreciate|"
                    rf"{DO_NOT} (?:know|understand|think|see)|dunno|(?:'d|would) like to|{not_after('can')} wait|"
                    r"love that|like that|love it|like it|love this|like this|totally agree)\b|"
                    rf"^(?:i'?m|i am)\s+(?:{NOT} sure|sure|sorry|glad|so glad|happy to hear)\b", re.IGNORECASE)
_SMALL_TALK = re.compile(rf"^(?:thanks?|thank you|thx|ok(?:ay)?|sure|great|cool|nice|yes|yeah|{NO}|nope|hi|hello|hey|"
                         r"good (?:morning|night|evening)|bye|sounds good|got it|lol|haha|wow)\b", re.IGNORECASE)


# Words a sentence opening with thanks, "ok" or "no" holds at most to be small talk: "No worries at all", not "No
# need to roll back the .env file, but from now, NOTE that DO NOT REMOVE setting and env files …".
SMALL_TALK_WORDS = 6


def small_talk(sentence: str) -> bool:
    """Thanks, greetings, hedges: nothing to keep, not even as the chunk's gist."""
    return bool(_HEDGE.match(sentence) or _SMALL_TALK.match(sentence) and len(sentence.split()) <= SMALL_TALK_WORDS)


def meaningful(text: str) -> int:
    """How many words of `text` say something (not a pronoun, filler or stop word)."""
    return len({w for w in content_words(text) if w not in _FILLER and len(w) > 1})


# ------------------------------------------------------------------------------------------------ rules


# "Sorry", "oops", "update" and "wait" also open an apology ("sorry for the slow replies") or an errand ("update
# the changelog", "wait for the build"): they mark a correction only with a stop after them ("Sorry, I …").
_CORRECTION = re.compile(rf"^(?:(?:actually|correction|to be clear|scratch that|{NO} wait)\s*[,:;!.—–-]*|"
                         r"(?:update|wait|sorry|oops)\s*[,:;!.—–-]+)\s+(?P<rest>.+)$", re.IGNORECASE | re.DOTALL)
_APOLOGY = re.compile(r"^(?:sorry|oops)\b", re.IGNORECASE)
_NO_LONGER = re.compile(rf"\b{NO_LONGER}\b|\bany ?more\b|\b{NOT} \w+ing there\b", re.IGNORECASE)


# A thing given a new value: "The API port is now 8081", "Our staging server is now at 10.0.0.5", "The MVP is now
# due on October 20" (a value with a digit, a capital or a dot; not a share of progress, "The deploy is now at
# 80%", nor a doing, "… now passing").
_NOW_VALUE = re.compile(r"^(?:the|our)\s+(?:[\w-]+\s+){0,3}?[\w-]+\s+(?:is|are)\s+now\s+(?:at\s+|on\s+|in\s+|"
                        r"(?:due|scheduled|set|planned|expected|moved|pushed)\s+(?:on|for|to|by|at)\s+)?"
                        r"(?P<value>(?=\S*(?:\d|(?-i:[A-Z])|\w\.\w))(?!\S*%)[^\s,;]+(?:\s+[^\s,;]+){0,2}?)\s*[.!]?$",
                        re.IGNORECASE)


# A thing's value restated after an apology: "Sorry, the beta deadline is March 10" (a date, a number, a name).
_A_THINGS_VALUE = re.compile(r"^(?:the|our)\s+(?:[\w-]+\s+){0,3}?[\w-]+\s+(?:is|are)\s+(?=\S*(?:\d|(?-i:[A-Z])))",
                             re.IGNORECASE)


def correction(said: Said) -> Fact | None:
    value = _a_new_value(said)
    if value is not None:
        return value
    match = _CORRECTION.match(said.sentence)
    if match is not None:  # what replaces the old fact is never dated: the builtin dream matches it by its words
        rest = Said(match.group("rest"), said.speaker, said.day, match.group("rest"), said.errand)
        value = _a_new_value(rest)
        if value is not None:  # "Sorry, the port is now 8081": said as a correction, whatever words it has
            return replace(value, tag="correction")
        inner = _first_fact(rest, skip=(correction, statement, named_fact))
        if inner is None and _APOLOGY.match(said.sentence) and not _A_THINGS_VALUE.match(rest.sentence):
            return None  # "oops, wrong window": an apology's words, not a fact restated
        text = inner.text if inner is not None else (rest.about() or _corrected_state(rest))
        return Fact("correction", text) if text and meaningful(text) >= 2 else None
    if _NO_LONGER.search(said.sentence) and (text := said.about() or _the_teams(said)) and meaningful(text) >= 2:
        return Fact("correction", text)
    return None


# A setting changed by the person: "We changed the API port to 9090", "I bumped the Node version to 22", "The
# staging port moved to 8443", "My timezone changed to America/Chicago", "I've updated my phone number to 555-9876"
# — said as the value it now has ("The API port is now 9090"). The value is one thing ("main", "Europe/Berlin",
# "Node 22"), not a description ("to a new one", "to fix the build").
_SETTING_NAME = (r"(?:port|version|domain|url|host|hostname|endpoint|region|default\s+branch|time\s*zone|timezone|"
                 r"e-?mail(?:\s+address)?|phone(?:\s+number)?|(?:home\s+|postal\s+)?address|user\s*name|handle)")
_CHANGED_TO = re.compile(
    r"^(?:(?:I|we)(?:['’]ve|\s+have)?\s+(?:just\s+)?(?:changed|moved|switched|set|updated|bumped)\s+"
    rf"(?P<thing>(?:the|our|my)\s+(?:[\w.-]+\s+){{0,3}}?{_SETTING_NAME})|"
    rf"(?P<named>(?:(?:the|our)\s+(?:[\w.-]+\s+){{1,3}}?|my\s+(?:[\w.-]+\s+){{0,3}}?){_SETTING_NAME})\s+"
    r"(?:has\s+|was\s+)?"
    r"(?:changed|moved|switched))\s+to\s+(?!(?:a|an|the|some|something|another|one|it|that|this|what)\b)"
    r"(?P<value>(?=\S*(?:\d|(?-i:[A-Z])|\w[.@/]\w))[^\s,;]+(?:\s+[^\s,;]+){0,2}?|[^\s,;]+)\s*[.!]?$",
    re.IGNORECASE)

# A new version of a tool: "We upgraded Node to 22", "I've moved to Python 3.12" (a move to a dotted version:
# "moved to Room 5" is none) — said as the version it now has, which replaces the one line giving that tool a
# version (engines/replacing.py).
_NEW_VERSION = re.compile(
    r"^(?:I|we)(?:['’]ve|\s+have|['’]re|\s+are)?\s+(?:just\s+|finally\s+)?(?:(?:upgraded|downgraded|bumped|updated)"
    r"\s+(?P<tool>(?!(?:it|them|this|that|everything)\b)[A-Za-z][\w.+#-]*)\s+to|"
    r"(?:upgraded|downgraded|(?P<moved>moved|switched|migrated))\s+to\s+(?P<named>(?-i:[A-Z])[\w.+#-]*)|"
    # "We're on Django 5.1 now", "We use Node 22 now": the version it runs, said as how it stands
    r"(?:now\s+)?(?:on|using|use|running|run)\s+(?P<on>(?-i:[A-Z])[\w.+#-]*))"
    r"\s+v?(?P<version>\d+(?(moved)(?:\.\d+){1,2}|(?:\.\d+){0,2}))"
    r"(?:\s+(?:now|(?:in|on|since|last|this|yesterday|today)\b[^,;!?]*))?\s*[.!]?$", re.IGNORECASE)


_NOW_SAID = re.compile(r"\bnow\b", re.IGNORECASE)


def _a_new_value(said: Said) -> Fact | None:
    """A thing given a new value ("The API port is now 8081"), or a value said without whose it is ("Timezone is
    UTC-5 now": the dream finds whose, engines/slots.py), told to an agent; None for any other sentence."""
    if said.speaker:
        return None
    changed = _CHANGED_TO.match(said.sentence)
    if changed is not None:
        thing = _capitalised(changed.group("thing") or changed.group("named"))
        now = f"{thing} is now {changed.group('value')}"
        if thing.lower().startswith("my "):  # the person's own: read as they would have said it
            return _first_fact(Said(f"{now}.", said.speaker, said.day, said.spoken, said.errand), skip=(correction,))
        return Fact("correction", now)
    upgraded = _NEW_VERSION.match(said.sentence)
    if upgraded is not None and upgraded.group("on") and not _NOW_SAID.search(said.sentence):
        upgraded = None  # "We use Django 4.2.": the version it runs, no new one
    if upgraded is not None:
        tool = upgraded.group("tool") or upgraded.group("named") or upgraded.group("on")
        return Fact("correction", f"The {tool} version is now "
                                  f"{upgraded.group('version')}")
    text = _capitalised(said.sentence.rstrip(".!"))
    if _NOW_VALUE.match(said.sentence):
        return Fact("correction", text)
    unowned = unowned_value(said.sentence)
    return None if unowned is None else Fact("correction" if unowned.anew else "durable", text)


def _the_teams(said: Said) -> str:
    """A statement of the person's team as said ("We are not using GoLogin anymore"), "" for any other sentence:
    what "we" do is the project's, restated in no one's name."""
    return _capitalised(said.sentence.rstrip(".!")) if _OUR.match(said.sentence) else ""


_OUR = re.compile(r"^(?:we|we['’](?:re|ve)|our)\b", re.IGNORECASE)


def _corrected_state(rest: Said) -> str:
    """What a correction says of something named, as it stands ("the staging database runs PostgreSQL 17"); ""
    for what is only so this moment ("there are 22 tasks pending", "it is the other one")."""
    sentence = _capitalised(rest.sentence)
    return rest.named(sentence) if _named_state(_NOW.sub("", sentence)) else ""


_NOW = re.compile(r"\s*\b(?:now|currently|these days|nowadays|from now on)\b", re.IGNORECASE)  # what a correction says


_FROM_NOW_ON = r"from now on|going forward(?!\s+with\b)|in (?:the )?future"  # what makes a request last
# Opening a sentence, "from now" says the same without its "on" ("From now please respond in Japanese"); further
# on it may be a time ("an hour from now"). "Going forward with the plan …" goes on with it.
_FROM_NOW_OPENING = r"from now(?:\s+on(?:wards)?)?(?!\w)|going forward(?!\s+with\b)|in (?:the )?future"
# What a standing opening goes on to foretell, not to ask: "From now on things should be way easier".
_FORETOLD = re.compile(r"^(?:things|it|everything|this|that|life|stuff)\s*(?:will|['’]ll|should|would|could|might|"
                       r"may|is\s+going\s+to|['’]s\s+going\s+to|gonna)\s+(?:\w+\s+)?(?:be|get|become|feel|look|go|work)\b",
                       re.IGNORECASE)
_PLEASE = r"(?:please|pls|kindly)"  # a courtesy opening a request, or between its setting and the request
_RULE = re.compile(rf"^(?:(?:{_PLEASE}|and|also|oh and|then|but)\s*,?\s+)*"
                   rf"(?:(?:{_FROM_NOW_OPENING}|in general|next time)\s*[,:;—–-]?\s+)?"
                   rf"(?:please\s+)?(?P<rule>(?:always|{PROHIBITION}|stop\s+\w+ing|avoid)\b.+)$",
                   re.IGNORECASE | re.DOTALL)
_FEELING = re.compile(r"(?:worry|feel|be|get|think|stress|panic|apologi[sz]e|bother|hesitate|mind)\b", re.IGNORECASE)
# A mild wish about how the agent works, said about the agent: "I'd rather you didn't use web search for …".
# … or said as what the person does not want: "I don't want you to delete the xlsx files".
_RATHER_NOT = re.compile(rf"^(?:i(?:'d| would) (?:rather|prefer(?: it if)?|like it if) you "
                         rf"(?:{not_after('did', 'do', 'would')}|{NOT}|{NEVER})|i\s+{DO_NOT}\s+want\s+you\s+to)"
                         r"\s+(?P<rule>.+)$", re.IGNORECASE | re.DOTALL)
# … or what the person would like the agent to do: "I'd love it if you used metric units".
_WOULD_LIKE = re.compile(r"^i(?:'d| would) (?:love|like|prefer|appreciate) it if you\s+(?P<always>always\s+)?"
                         r"(?P<verb>[a-z]+)\b(?P<rest>.+)$", re.IGNORECASE | re.DOTALL)
_STANDING = re.compile(rf"^(?:{_PLEASE}\s+)?(?:{_FROM_NOW_OPENING}|in general)\s*[,:;—–-]?\s+"
                       rf"(?:{_PLEASE}\s+)?(?:also\s+)?(?P<rule>.+)$", re.IGNORECASE | re.DOTALL)
_WANT_YOU = re.compile(rf"^i(?:'d| would)? (?:like|want|need) you to (?P<rule>(?:always|{NEVER}|keep|stop)\b.+)$",
                       re.IGNORECASE | re.DOTALL)
# The rule said to the agent about itself: "you will always reply with …", "you should never push to main".
# So is what the team should always do or avoid, the agent among it: "We should never push to main", "we should
# avoid using the DRA abbreviation".
_YOU_WILL = re.compile(rf"^(?:(?:you|u)(?:'ll|\s+will|\s+{OBLIGATION})|we\s+{OBLIGATION})\s+"
                       rf"(?P<rule>(?:always|{NEVER}|avoid)\b(?!\s+have\s+(?:been|\w+(?:ed|en|wn|ne))\b).+)$",
                       re.IGNORECASE | re.DOTALL)  # not a regret: "we should never have used Redis"
# How every answer should read, said as a request without "always": "please keep answers short", "no emojis in
# replies please". Plural or "your": "make the reply to Bob friendlier" is one errand, not a standing rule.
_STYLE = re.compile(rf"^(?:(?:{_PLEASE}|and|also)\s*,?\s+)*"
                    r"(?P<rule>(?:keep|make|write|give|answer|reply|respond|use"
                    rf"|skip|drop|leave out|cut|{NO}|be)\b.{{0,80}}?(?:\b(?:your\s+(?:\w+\s+)?(?:answers?|replies"
                    r"|reply|responses?|messages?|explanations?|summaries|summary|tone|wording|writing|emails?)|answers"
                    r"|replies|responses|messages|explanations|emojis|emoticons|pleasantries|small talk|jargon"
                    r"|bullet points)\b).*?)"
                    r"(?:\s*,?\s*(?:please|pls|thanks|thank you))?[.!]*$", re.IGNORECASE | re.DOTALL)
# A thing forbidden until the person says yes: "No new dependencies unless I approve them", "No force pushes
# without asking me first" (not "No idea why", "No errors in the log": nothing held back for their word).
_NO_UNLESS = re.compile(rf"^(?:{_PLEASE}\s+)?"
                        rf"(?P<rule>{NO}\s+[\w\s'-]{{2,60}}?\s+(?:unless|until|{WITHOUT})\s+"
                        r"(?:(?:I|we)\s+(?:explicitly\s+)?(?:approve|say|ask|confirm|agree|review|allow|ok|okay|sign)|"
                        r"you\s+ask|asking|checking|my\s+(?:ok|okay|approval|go-ahead|sign-off)|approval|confirmation|"
                        r"a\s+review)\b[^.!?]*)[.!]?$", re.IGNORECASE)
# A thing not wanted, said as such: "No external dependencies are desired.", "No direct pushes are allowed." (not
# "No errors in the log", "No changes are needed": how things stand, or an answer).
_NO_WANTED = re.compile(rf"^(?:{_PLEASE}\s+)?(?P<rule>{NO}\s+(?:[\w'-]+\s+){{0,4}}?[\w'-]+\s+(?:is|are)\s+"
                        r"(?:desired|wanted|allowed|permitted|welcome)\b[^.!?]*)[.!]?$", re.IGNORECASE)
# The language to speak in, asked of the whole conversation: "keep our chat in English", "Speak German with me".
_CHAT_LANGUAGE = re.compile(
    rf"^(?:(?:please|pls|let['’]?s)\s+)?(?P<rule>(?:keep|have|hold)\s+(?:our|the|this)\s+(?:chats?|conversations?)\s+"
    rf"in\s+(?:{LANGUAGE_NAMES})\b|(?:speak|talk|write)\s+(?:{LANGUAGE_NAMES})\s+(?:with|to)\s+me\b|"
    # "Post in Burmese language.", "Write all posts in Burmese": what the agent publishes, in one language
    rf"(?:always\s+)?(?:post|publish|write)\s+(?:(?:all|every|the|your|our)\s+)?(?:(?:posts?|tweets?|captions?|"
    rf"articles?|updates?|content)\s+)?in\s+(?:{LANGUAGE_NAMES})(?:\s+language)?\b)"
    r"(?:\s+(?:please|from now on|always|only))?\s*[.!]?$", re.IGNORECASE)
# The language to answer in, asked as a switch: "Switch to Chinese please", "Set your language to German", "Use
# Spanish with me": filed as the rule it is ("Reply in Chinese.").
_SWITCH_LANGUAGE = re.compile(
    rf"^(?:(?:please|pls|can you|could you)\s+)?(?:(?:switch|change)\s+(?:(?:your|the)\s+language\s+)?to|"
    rf"(?:set|change)\s+(?:your|the)\s+(?:answer\s+|reply\s+)?language\s+to|use(?=\s+\S+\s+with\s+me\b))\s+"
    rf"(?P<language>{LANGUAGE_NAMES})"
    r"(?:\s+with\s+me)?(?:\s+(?:please|from now on|always|only))?\s*[.!?]?$", re.IGNORECASE)
# A standing request asked as a question: "can you keep replies under 100 words from now on?"
_ASKED_STANDING = re.compile(rf"^(?:(?:{_FROM_NOW_ON})\s*,?\s+)?(?:can|could|would|will)\s+you\s+(?:please\s+)?"
                             rf"(?P<rule>.+?)(?:\s*,?\s*(?:{_FROM_NOW_ON}))?\s*,?\s*(?:please)?\s*\?$",
                             re.IGNORECASE | re.DOTALL)
_STANDING_WORDS = re.compile(rf"\b(?:{_FROM_NOW_ON})\b", re.IGNORECASE)
# What this time was, then what holds from now on: "…, but from now (on), note that …" (the rule is what follows).
_BUT_FROM_NOW = re.compile(rf",?\s+but\s+(?:{_FROM_NOW_ON}|from now(?!\s+on\b))\s*,?\s+"
                           r"(?:(?:please\s+)?note\s+that\s+)?"
                           r"(?P<rule>(?!(?:I|I'm|we|we're|he|she|it|it's|they|my|our|the|this|that)\b)\w.+)$",
                           re.IGNORECASE | re.DOTALL)
_IDIOMS = "|".join(re.escape(idiom).replace("'", "'?").replace(r"\ ", r"\s+")
                   for idiom in phrases("not-instructions"))
_NOT_A_RULE = re.compile(rf"^(?:{_IDIOMS})\b", re.IGNORECASE)


# Words that tie a request to this moment or this work: "don't commit this yet", "never mind that".
_DEICTIC = re.compile(r"\b(?:this|that|these|those|it|them|here|yet|now|today|at the moment|at this time|for now|"
                      r"the (?:other )?ones?|"
                      r"right away|anymore|again|previous|above|below|following|same)\b", re.IGNORECASE)


def language_switch(said: Said) -> Fact | None:
    """"Switch to Chinese please", "Set your language to German": the language to answer in, as a rule."""
    switch = _SWITCH_LANGUAGE.match(said.sentence)
    return None if switch is None else _as_rule(f"Reply in {switch.group('language')}", said)


def agent_rule(said: Said) -> Fact | None:
    turned = _BUT_FROM_NOW.search(said.sentence)
    if turned is not None:  # "No need to roll back the .env, but from now, never remove env files": the rule after
        return agent_rule(replace(said, sentence=f"From now on, {turned.group('rule')}"))
    reminder = _every_time_rule(said.sentence)  # before the idioms: "don't forget" is one, "… to X every time" not
    if reminder:
        return _as_rule(reminder, said)
    if _NOT_A_RULE.match(said.sentence) or _CALL_ME.match(said.sentence):
        return None  # "Please call me Kate from now on": the person's name, however long it lasts
    setting = _RULE_SETTING.match(said.sentence)
    if setting is not None:  # "In Python files, always use type hints": the rule, where it holds at its end
        if _one_piece_of_work(setting.group("setting")) and not _STANDING_WORDS.search(said.sentence):
            return None  # "In this file, never use tabs", "For the hotfix, …": how to do that work
        rule, where = setting.group("rule").rstrip(".!"), setting.group("setting")
        return agent_rule(replace(said, sentence=f"{rule} {where[:1].lower()}{where[1:]}."))
    wished, fact = _a_wish(said)
    if wished:
        return fact
    if (a_bare_dont(said.sentence) and not _STANDING_WORDS.search(said.sentence)
            and (said.errand or _THING_AT_HAND.search(said.sentence) and not _EVER.search(said.sentence)
                 or _holding_back(said.sentence))):
        return None  # "do not open any PRs" inside a request for work, "Don't touch the file.": this errand's
    match = (_RULE.match(said.sentence) or _STANDING.match(said.sentence) or _WANT_YOU.match(said.sentence)
             or _YOU_WILL.match(said.sentence) or _STYLE.match(said.sentence) or _NO_UNLESS.match(said.sentence)
             or _NO_WANTED.match(said.sentence) or _CHAT_LANGUAGE.match(said.sentence)
             or _STANDING_AFTER.match(said.sentence) or _NEXT_TIME.match(said.sentence)
             or _BY_DEFAULT.match(said.sentence))
    rule = None if match is None else _rule_found(match)
    return None if rule is None else _as_rule(rule, said)


def _a_wish(said: Said) -> tuple[bool, Fact | None]:
    """Whether the sentence is a wish about how the agent works, and the rule it asks for: "I'd rather you didn't
    use web search" and "I don't want you to delete the xlsx files" (not a feeling: "I don't want you to worry"),
    "I'd love it if you used metric units"."""
    rather_not = _RATHER_NOT.match(said.sentence)
    if rather_not is not None:
        rule = rather_not.group("rule")
        return True, None if _FEELING.match(rule) else _as_rule(f"Don't {rule}", said)
    wish = _WOULD_LIKE.match(said.sentence)
    if wish is None or _FEELING.match(wish.group("verb")):
        return False, None
    return True, _as_rule(f"{wish.group('always') or ''}{base_verb(wish.group('verb'))}{wish.group('rest')}", said)


def _rule_found(match: re.Match[str]) -> str | None:
    """The rule one of `agent_rule`'s patterns found, with what it replaces ("Use pnpm from now on, not npm"); None
    when what it found gives no instruction ("It will rain from now on", "Next time we'll try the other one")."""
    if match.re is _STANDING_AFTER:
        if match.group("verb").lower() not in _INSTRUCTIONS:
            return None
        return f"{match.group('rule')}, {match.group('contrast')}" if match.group("contrast") else match.group("rule")
    if match.re is _NEXT_TIME and not _a_command(match.group("rule")):
        return None
    if match.re is _STANDING and _FORETOLD.match(match.group("rule")):
        return None
    if match.re is _BY_DEFAULT:
        return match.group(0) if _a_command(match.group("rule")) else None  # not "By default, the port is 8080"
    return match.group("rule")


# Things of a kind, not this one: "code blocks are labeled …", "tests pass …" (a bare plural and its verb).
_PLURAL_SUBJECT = (r"(?!(?:the|these|those|this|that|my|our|your|its|their|all the)\b)(?:[a-z]+\s+)?[a-z]+s\s+"
                   r"(?:are|get|have|must|should|stay|pass|use|follow|include|start|end)\b")
# "Remember to …", "Make sure you …": a rule when it says it holds every time ("… to every function signature",
# "… before committing"), else the errand of the moment ("remember to push the branch").
_REMEMBER_TO = re.compile(rf"^(?:(?:{_PLEASE}|and|also)\s*,?\s+)*(?P<rule>(?:always\s+)?(?:(?:remember|"
                          rf"{DO_NOT} forget|{NEVER} forget)\s+(?:to|you)|(?:make|be) sure\s+"
                          rf"(?:to|you|that|(?=(?:all|every|each|any)\b|{_PLURAL_SUBJECT})))\s*.+)$",
                          re.IGNORECASE | re.DOTALL)
# What says a reminder holds every time: "… every function", "… before committing", "… when you bump
# dependencies" (a plural after the verb); not "when you're done", "when you finish the PR": when this errand is.
_EVERY_TIME = re.compile(rf"\b(?:every|each|any|always|whenever|{NEVER})\b|\b(?:before|after|when|while)\s+\w+ing\b|"
                         r"\bwhen(?:ever)?\s+you\s+\w+\s+(?!(?:this|these|those|its|is|was|has)\b)\w+s\b|"
                         rf"^(?:make sure|be sure)\s+(?:that\s+)?{_PLURAL_SUBJECT}", re.IGNORECASE)
# "Every time you touch the Dockerfile, pin the base image": the setting says "always", a command follows it. So
# does the person's own habit of asking ("When I ask for code, use TypeScript", "If I ask for a draft, keep it
# short"; not "When I get back, …").
_EVERY_TIME_SETTING = re.compile(rf"^(?:{_PLEASE}\s+)?(?:every\s*time|each\s+time|whenever|any\s*time|"
                                 rf"(?:when|if)\s+I\s+(?:{speech('report', 'base')}|type|write|send|share|paste)\b)\s*"
                                 r"(?:[^,.!?;:]|\.(?=\w)){1,80}[,:]\s+(?:please\s+)?(?:first\s+)?(?P<verb>[\w'’]+)\b.+$",
                                 re.IGNORECASE | re.DOTALL)  # "Whenever you back up .openclaw: first stop …"


def _every_time_rule(sentence: str) -> str:
    """The rule a reminder or an every-time setting states, in the person's words; "" for any other sentence
    ("Every time I run it, it crashes": no command after the setting)."""
    reminder = _REMEMBER_TO.match(sentence)
    if reminder is not None:
        return reminder.group("rule") if _EVERY_TIME.search(reminder.group("rule")) else ""
    setting = _EVERY_TIME_SETTING.match(sentence)
    if setting is None:
        return ""
    return sentence if _a_command(sentence[setting.start("verb"):]) else ""


# "Don't wait, restart the server now", "Don't stop, keep going", "Don't ask, just do it": a "don't" without an
# object, then the work to do, when the "don't" only holds back (`_PACING`) or the work is this one ("it", "now"):
# how to go on with this errand, not a rule ("Don't guess, ask me" is one).
_HOLD_BACK_THEN_DO = re.compile(rf"^(?:please\s+)?{DO_NOT}\s+(?P<verb>[a-z]+)(?:\s+(?:for\s+(?:me|us|it|that|them)|up"
                                r"|yet|now|here|anymore))?\s*[,;—–-]+\s*(?:(?:just|now|then|and|please)\s+)*"
                                r"(?P<command>.+)$", re.IGNORECASE)
_PACING = frozenset({"wait", "stop", "pause", "delay", "bother"})
_EVER = re.compile(r"\bever\b", re.IGNORECASE)
# The piece of work at hand, named by its article alone ("the file", "the migration file", "the function
# signature"; not "the .env file", which names one every time, nor "the test files", a kind): a bare "don't" about
# it is how to do this errand, unless it says "ever".
_THING_AT_HAND = re.compile(r"\bthe\s+(?:[a-z][a-z-]*\s+){0,2}(?:file|function|signature|method|class|migration|"
                            r"script|snippet|query|endpoint|component|module|fix|bug|patch|pr)\b")
# A rule that names one piece of work ("… for the login fix", "… in this PR") is how to do that work, not a
# standing rule, unless the person says it stands.
_GENERAL = re.compile(rf"^(?:always|{NEVER})\b", re.IGNORECASE)  # "always mention the ticket number": every time
_SCOPED = re.compile(r"\b(?:the|this|that|these|those)\s+(?:[\w-]+\s+){0,2}(?:fix|fixes|bug|bugs|issue|ticket|pr|"
                     r"pull request|patch|hotfix|task|refactor|workaround)\b", re.IGNORECASE)
# A rule after the setting it holds in: "In Python files, always …", "When you write commit messages, never …".
_RULE_SETTING = re.compile(rf"^(?!in\s+general\b|in\s+(?:the\s+)?future\b)(?P<setting>{SETTING_OPENERS}"
                           rf"[^,.!?;:]{{1,60}}),\s+(?P<rule>(?:please\s+)?(?:always|{PROHIBITION})\b.+)$",
                           re.IGNORECASE | re.DOTALL)
# A setting that lasts though it says "this": the repository or project the person works in.
_LASTING_PLACE = re.compile(r"\b(?:this|our|the)\s+(?:repo|repository|project|codebase|code base|workspace|team|"
                            r"company)\b", re.IGNORECASE)
_ONE_DAY = re.compile(r"\b(?:today|tonight|tomorrow|this (?:morning|afternoon|evening|week))\b", re.IGNORECASE)


def _one_piece_of_work(setting: str) -> bool:
    """A rule's setting that names one task, file, bug, fix or day ("in this file", "for the hotfix", "for the demo
    tomorrow"), not a kind of work or the project itself."""
    if _ONE_DAY.search(setting):
        return True
    at_hand = _DEICTIC.search(setting) or _SCOPED.search(setting) or _ONE_TASK.search(setting)
    return bool(at_hand) and not _LASTING_PLACE.search(setting)


# A setting that is one task under way: "while you fix the login page", "when you refactor the parser" (a verb of
# one piece of work and the thing it is done to; not "when you edit the README", "when you write tests").
_ONE_TASK = re.compile(r"\bwhile\s+(?:you(?:'re|\s+are)?|we(?:'re|\s+are)?)\s+(?:\w+\s+)?(?:the|my|our)\b"
                       r"|\b(?:fix|fixing|debug|debugging|refactor|refactoring|rewrite|rewriting|migrate|migrating|finish"
                       r"|finishing|work\s+on|working\s+on)\s+(?:the|my|our)\s+(?!(?:repo|repository|project|codebase)\b)",
                       re.IGNORECASE)


# A request with its standing words at the end: "use British spelling in the UI text from now on".
# … and what it replaces may follow: "Use the work address for Google Workspace from now on, not my main email."
_STANDING_AFTER = re.compile(rf"^(?:please\s+)?(?P<rule>(?P<verb>[\w']+)\b.+?)\s*,?\s+(?:{_FROM_NOW_ON})"
                             rf"(?:\s*,?\s*(?P<contrast>(?:{NOT}|instead\s+of|rather\s+than)\s+[^.!?]+?))?"
                             r"(?:\s*,?\s*please)?\s*[.!]*$", re.IGNORECASE | re.DOTALL)
_INSTRUCTIONS = wordlist("imperatives") | PROHIBITION_WORDS | {"always", "avoid", "stop", "reply", "answer"}
# What the agent does unless told otherwise: "By default, write shell scripts for bash."
_BY_DEFAULT = re.compile(rf"^(?:{_PLEASE}\s+)?by\s+default\s*[,:;—–-]?\s+(?:{_PLEASE}\s+)?(?P<rule>\w.+)$",
                         re.IGNORECASE | re.DOTALL)
# A lesson for every later time: "Next time, ask me before you refactor." (not "Next time we'll try the other one").
_NEXT_TIME = re.compile(rf"^(?:{_PLEASE}\s+)?next\s+time\s*[,:;—–-]?\s+(?:{_PLEASE}\s+)?"
                        r"(?P<rule>\w.+)$",
                        re.IGNORECASE | re.DOTALL)


def _holding_back(sentence: str) -> bool:
    """"Don't wait, restart the server now": a "don't" without an object, then a command for this errand."""
    match = _HOLD_BACK_THEN_DO.match(sentence)
    if match is None or not _a_command(match.group("command")):
        return False
    return match.group("verb").lower() in _PACING or bool(_DEICTIC.search(match.group("command")))


def _a_command(rule: str) -> bool:
    """Whether a rule opens with a verb of instruction ("ask me first", "reply in German")."""
    words = _LOWER_WORD.findall(rule.lower())
    return bool(words) and (words[0] in _INSTRUCTIONS or opens_a_command(words))


def standing_question(sentence: str) -> Fact | None:
    """The rule a question asks for from now on ("can you answer in German from now on?"); None for any other
    question, which keeps nothing."""
    match = _ASKED_STANDING.match(sentence) if _STANDING_WORDS.search(sentence) else None
    return None if match is None else _as_rule(" ".join(_STANDING_WORDS.sub("", match.group("rule")).split()))


# Words in quotes are a name, they point at nothing: "Whenever I say "ship it", open a PR" is no errand of "it".
_QUOTED = re.compile(r'"[^"]{1,40}"|“[^”]{1,40}”|'
                     r"'[^']{1,40}'(?!\w)")


def _as_rule(rule: str, said: Said | None = None) -> Fact | None:
    """A standing rule for the agent; None for an errand of the moment ("don't commit this yet") unless the
    person said it stands ("from now on")."""
    standing = said is not None and _STANDING_WORDS.search(said.spoken or said.sentence)
    # "always use pnpm in this repo": "this" is the project, which lasts; a quoted name points at nothing either
    lasting = _QUOTED.sub(" ", _LASTING_PLACE.sub(" ", rule))
    one_day = said is not None and _ONE_DAY.search(said.spoken or said.sentence)  # "today" is a date by now
    if not standing and (one_day or _DEICTIC.search(_THAT_CLAUSE.split(_first_clause(lasting), maxsplit=1)[0])
                         or _SCOPED.search(rule) and not _GENERAL.match(rule)):
        return None
    if _GERUND_RULE.match(rule):
        return None  # "always explaining what's the purpose": the rest of a sentence, not an instruction
    rule = _second_person(_plain_commands(rule))
    return Fact("permanent", rule) if meaningful(rule) >= 2 else None


_YEAR = re.compile(r"\b\d{4}\b")
_CHOSE = re.compile(r"\b(?:chose|picked|settled on|went with)\s*$", re.IGNORECASE)
_GERUND_RULE = re.compile(rf"^(?:always|{NEVER})\s+\w+ing\b", re.IGNORECASE)
_CLAUSE_MARK = re.compile(r"(?<!\d)[,:](?!\d)|[;—–]")  # "at 8:30", "1,000": no clause ends there
_SUBORDINATE = re.compile(r"\s(?:unless|if|when|whenever|until|because|before|after|except|while)\s", re.IGNORECASE)
# A clause a rule opens with "that": a relative one after a noun ("prefer libraries that are maintained"), or what is
# checked or said ("check that the tests pass"). Its "that" points at nothing.
_THAT_CLAUSE = re.compile(r"\s(?:that|which)\s+(?=(?:is|are|was|were|has|have|had|can|could|will|would|should|might|"
                          rf"may|must|do|does|did|need|needs|{not_after('is', 'are', 'does')}|{DO_NOT})\b)|"
                          rf"\sthat\s+(?=(?:the|a|an|all|every|each|{NO}|any|your|our|their|its|you|we|they|there|he|"
                          r"she|i)\b)", re.IGNORECASE)
_QUOTED_COMMAND = re.compile(r"`([^`/\\]{1,40})`")
_IN_A_RULE = tuple((re.compile(pattern), replacement) for pattern, replacement in (
    (r"\bI['’]m\b", "they're"), (r"\bI\s+am\b", "they are"), (r"\bI\s+was\b", "they were"), (r"\bI\b", "they"),
    (r"\bme\b", "the user"), (r"\bmy\b", "the user's")))
_WE_HAVE = re.compile(r"^we\s+(?:have|own)\s+(?P<what>.+)$", re.IGNORECASE | re.DOTALL)
_LOWER_WORD = re.compile(r"[a-z']+")
_PLURAL_TO = re.compile(r"^\S+\s+\S+s\s+to\b")
_FIRST_PERSON = re.compile(r"\b(?:I|me|my|mine|myself|I['’](?:m|ve|d|ll))\b")


def _first_clause(text: str) -> str:
    """The words before the first comma, semicolon, colon, dash or subordinate clause ("… unless I ask for
    them"): what a sentence is about, not its aside."""
    return _SUBORDINATE.split(_CLAUSE_MARK.split(text, maxsplit=1)[0], maxsplit=1)[0]


def _plain_commands(rule: str) -> str:
    """A command or a name quoted as code ("run `pnpm build` first", "I use `direnv`") as words: a memory line holds
    no backticks (a path or a flag quoted stays code)."""
    return _QUOTED_COMMAND.sub(r"\1", rule)


def _second_person(rule: str) -> str:
    """An instruction as the agent keeps it: the person is "the user" (or "they") in it, the agent stays "you"."""
    for pattern, replacement in _IN_A_RULE:
        rule = pattern.sub(replacement, rule)
    return rule[:1].upper() + rule[1:]


# "A bit", "a little": how much, not who. "I'm a bit tired" says how the person is now.
_DEGREE = r"(?:bit|little|tad|lot|bunch|few|mess|fan|idiot|fool|moron|dummy|genius)"


def _alternatives(name: str) -> str:
    """The phrases of data/<name>.txt as one regular expression's alternatives, longest first, any spacing."""
    return "|".join(re.escape(each).replace(r"\ ", r"\s+") for each in sorted(phrases(name), key=len, reverse=True))


# Who the person is in a word or two of a closed kind ("I'm vegan", "I'm originally from Spain", "I'm lactose
# intolerant": data/person-traits.txt): enough alone.
_TRAITS = _alternatives("person-traits")
_ATTRIBUTE = (r"^(?:i'?m|i am)\s+(?:(?:also|originally|still|now|currently)\s+)?"
              rf"(?:from|based in|allergic|{_TRAITS}|\d+)(?![\w-])")
# A position the person holds: "I'm the CTO of a small startup", "I'm the CTO, …" (data/positions.txt).
_POSITION = (r"^(?:i'?m|i am)\s+(?:also\s+)?the\s+(?:[\w-]+\s+){0,2}?"
             rf"(?:{_alternatives('positions')})(?:\s+(?:of|at|for)\s+|\s*(?:[,;.!]|$))")
# "My pronouns are they/them", "I use she/her pronouns": one word of substance, enough.
_PRONOUNS = r"^my\s+pronouns\s+are\b|^i\s+use\s+\S+\s+pronouns\b"
# A condition the person lives with ("I have asthma", "I also have exercise induced anaphylaxis"), up to two words
# qualifying it: data/person-conditions.txt.
_CONDITION = (r"^i(?:'ve\s+got|\s+(?:(?:also|still)\s+)?(?:have(?:\s+got)?|live\s+with|suffer\s+from))\s+"
              rf"(?!(?:a|an|the|{NO}|some|any|this|that|these|those|my|your)\b)(?:[\w'-]+\s+){{0,2}}?"
              rf"(?:{_alternatives('person-conditions')})(?![\w-])")
# A life fact that still holds, with when it began: "I've been living in Porto since 2019", "I have worked at
# Canonical since 2015" (its year is no event). Not the work at hand: "I've been working on this bug since Monday".
_ONGOING_FORM = (r"^(?:i'?ve|i have)\s+(?:been\s+)?(?:liv(?:ed|ing)\s+(?:in|with|abroad)|based\s+in|"
                 r"work(?:ed|ing)\s+(?:at|for|as|remotely|from home)|"
                 r"(?:stud(?:ied|ying)|learn(?:ed|ing|t)|taught|teaching)\s+(?!(?:the|this|that|these|those|it|"
                 r"your|my|our|a|an|some|how|what|why)\b))")
_ONGOING = re.compile(_ONGOING_FORM + r"(?:(?!\b(?:in|on|at) (?:1[89]|20)\d{2}\b).)*$", re.IGNORECASE | re.DOTALL)
# "I'm Lena", "I'm Sarah Chen" (a name of up to three capitalised words; "I'm Going Home" is none), "I'm Lena, Dutch"
_SELF_NAMED = re.compile(r"^(?:i'?m|i am)\s+(?:(?P<word>(?![\w'-]+ing\s)(?-i:[A-Z])[\w'-]+"
                         r"(?:\s+(?-i:[A-Z])[\w'-]+){0,2}"
                         r"(?:,\s+(?:a|an)\s+[\w'-]+(?:\s+[\w'.-]+){0,7})?)\s*[.!]?|"  # "I'm Dana, a nurse in Leeds"
                         r"(?P<handle>[\w'.-]+),\s+your\s+(?:human|user|owner|creator|operator|person)\b.*)$",
                         re.IGNORECASE)  # "I am arnomad, your human": a handle, named by who it is to the agent
# "Call me Sam", "Please call me Dr. Smith, everyone does", "Just call me Will from now on", "Everyone calls me
# Kat": a name (one word, more
# only capitalised; initials keep their stops), then the sentence ends or a comma, a dash, "please" or "from now
# on" says the rest. Not the telephone's
# "call me back / later / when it's done".
_CALL_BACK = (r"(?:back|later|tomorrow|tonight|today|maybe|soon|asap|anytime|sometime|again|now|first|once|when|"
              r"whenever|if|after|before|at|on|in|around|this|next)\b")
_CALL_ME = re.compile(r"^(?:(?:please|can you|could you|would you|will you|i(?:'d| would)? (?:like|want) you to)\s+)?"
                      r"(?:just\s+)?(?:call me|you can (?:just\s+)?call me|i go by|(?:but\s+)?(?:everyone|everybody|"
                      r"people|(?:my\s+)?friends|most\s+people)\s+calls?\s+me)\s+"
                      rf"(?P<name>(?!{_CALL_BACK})[\w'.-]{{1,30}}(?:\s+(?-i:[A-Z])[\w'.-]{{0,30}}){{0,3}}?)"
                      r"\s*(?:[,;(—–-].*|\s(?:from now on|going forward|from here on|instead|all the time"
                      r"|always)\b[.!?]?|\splease\b.*|[.!?]?)$",
                      re.IGNORECASE)
# Who someone is to the person, and the person's details (data/personal-keys.txt: "username", "email", "location"):
# "My <one of these> is …" says who the person is.
_FAMILY = (r"(?:wife|husband|partner|girlfriend|boyfriend|son|daughter|kids?|children|mom|mother|dad|father|parents"
           r"|sister|brother|dog|cat|pet)")
_DETAILS = "|".join(re.escape(key).replace(r"\ ", r"\s+") for key in sorted(PERSONAL_KEYS, key=len, reverse=True)
                    if key.isascii() and len(key) > 1)
_IDENTITY = re.compile(
    rf"^(?:i'?m|i am|i was|i've been|i have been)\s+(?:a|an)\s+(?!{_DEGREE}\b)\w+|"  # I'm a nurse, not "a bit tired"
    rf"{_ATTRIBUTE}|{_CONDITION}|^(?:i'?m|i am)\s+(?:learning|studying)\b|"
    rf"^(?:i'?ve|i have)\s+been\s+(?:{_TRAITS})(?![\w-])|"  # I've been vegan for five years
    rf"{_POSITION}|{_PRONOUNS}|"
    rf"{_ONGOING_FORM}|"  # I've been living in Porto since 2019
    r"^i(?:'ve|\s+have)\s+(?:(?:just|recently|finally)\s+)?(?:moved|relocated)\s+to\b|"
    # "I learned that …" is a discovery of the moment, not what the person studies
    r"^i\s+(?:(?:now|currently|still|also|just)\s+)?(?:live|work|study|teach|speak|"
    r"learn(?!(?:ed|t)\s+(?:that|how|why|what|about|from)\b)|grew up|was born|"
    r"(?:moved|relocated)(?=\s+(?:back\s+)?(?:to|abroad|here|there|away|out|from|in)\b)|"  # not "moved the meeting"
    r"started (?:a new job|working|learning|studying)|"
    r"come from|have (?:a|an|two|three|four|\d+)\b)|"
    r"^we\s+(?:have|own)\s+(?:a|an|two|three|four|\d+)\s+(?:\w+\s+)?(?:cats?|dogs?|kids|children|sons?|daughters?|"
    r"babies|baby|pets?|parrots?|rabbits?|horses?|hamsters?)\b|"
    rf"^my\s+(?:{_DETAILS}|{_FAMILY})\b(?:\s+\w+)?(?:\s+(?:is|are|was|were|'s)|['’]s)\b",
    re.IGNORECASE)
# "Heidi is my wife", "Akira is my dog": a name, then who they are to the person, said the other way round.
_NAMED_FAMILY = re.compile(r"^(?!(?:this|that|it|he|she|there|here|who|which|what)\b)"
                           rf"(?P<name>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)\s+is\s+my\s+"
                           rf"(?P<who>{_FAMILY})\s*[.!]?$", re.IGNORECASE)


# A sentence naming a time (a year, or a relative time made absolute) tells of an event, not a lasting trait;
# moving home or job is both, and belongs with where the person lives and works.
_TIMED = re.compile(r"\b(?:1[89]|20)\d{2}\b|"
                    r"\bthe (?:week|weekend|night|morning|afternoon|evening) (?:before|after|of)\b")
_MOVED = re.compile(r"^i(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)\s+to\b|"
                    r"^i\s+was\s+born\b|"  # the year of a birth is who the person is
                    r"^i\s+(?:just\s+)?started\s+(?:a\s+new\s+job|working|learning|studying)\b", re.IGNORECASE)


# "I'm in the PST time zone", "I'm on Eastern time now", "I am in UTC+2": the person's time zone, a slot.
_IN_TIME_ZONE = re.compile(
    r"^(?:i'?m|i\s+am)\s+(?:now\s+)?(?:in|on)\s+(?:the\s+)?(?P<zone>(?:UTC|GMT)\s*[+-−]\s*\d{1,2}(?::\d{2})?"
    r"|(?-i:[A-Z]{2,5})(?=\s+time\s*zone)|(?P<region>Pacific|Mountain|Central|Eastern|Atlantic|Alaska|Hawaii)"
    r"(?=\s+time\b)|(?-i:[A-Z][a-z]+/[A-Z][\w/+-]+))(?:\s+time(?:\s*zone)?)?(?:\s+now)?\s*[.!]?$", re.IGNORECASE)


# "Now living in Lisbon", "Currently based in Porto": the person's home, said without "I" (or as "I'm currently
# living in Wausau").
_NOW_LIVING = re.compile(r"^(?:(?:now|currently)\s+(?:living|based)|(?:i['’]m|i\s+am)\s+(?:now\s+|currently\s+)?living)"
                         r"\s+in\s+(?P<place>(?-i:[A-Z])[^,.;:!?]*?)\s*[.!]?$", re.IGNORECASE)
# "The company I work for is L&S Electric", "The firm I work at is Deloitte": where the person works, said of it.
_EMPLOYER_IS = re.compile(r"^the\s+(?:company|firm|organi[sz]ation|startup|agency|business|hospital|school|university"
                          r"|lab)\s+(?:I|I['’]m|I\s+am)\s+(?:work|working)\s+(?:for|at|with|in)\s+is\s+(?:now\s+)?"
                          r"(?P<employer>(?-i:[A-Z])[\w&.'’-]*(?:\s+(?-i:[A-Z&])[\w&.'’-]*)*)", re.IGNORECASE)


# "My name's Priya", "my dog's called Rex": "'s" is "is" here, not whose ("My wife's name is Ana").
_MY_IS = re.compile(rf"^(?P<whose>my\s+(?:{_DETAILS}|{_FAMILY})\b)['’]s\s+(?!\w+\s+(?:is|are|was|were)\b)",
                    re.IGNORECASE)


# "my name is mateusz and you know me very well", "My name is Ana, nice to meet you": the name, then words that
# are no part of it (a name of one word in lower case; up to three capitalised ones).
_NAME_THEN = re.compile(r"^my\s+name\s+is\s+(?P<name>(?-i:[A-Z])[\w'’.-]*(?:\s+(?-i:[A-Z])[\w'’.-]*){0,2}|[\w'’.-]+)"
                        r"(?:\s*[,;]|\s+(?:and|but)\b)\s*\S", re.IGNORECASE)

# "my name is not important", "my email is private": a detail the person does not give.
_NO_DETAIL = re.compile(rf"^my\s+(?:{_DETAILS})\s+is\s+(?:{NOT}|irrelevant|unimportant|secret|private)\b",
                        re.IGNORECASE)


# "I have a new job at SAP now", "I started a new job with Acme": where the person works, restated as such so that
# it replaces the employer before it (engines/slots.py).
_NEW_JOB = re.compile(r"^i(?:['’]ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:have|got|started|found|landed"
                      r"|accepted)\s+a\s+new\s+job\s+(?:at|with)\s+(?P<employer>(?-i:[A-Z])[^,.;:!?]*?)"
                      r"(?:\s+(?:now|today|recently))?\s*[.!]?$", re.IGNORECASE)


# "I became a team lead", "I got promoted to staff engineer": a new trade (text/statements.py `a_role`).
_NEW_ROLE = re.compile(r"^i(?:['’]ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:became|become|(?:got|been|was)"
                       r"\s+promoted\s+to)\s+(?:an?\s+)?(?P<role>[\w\s/-]+?)(?:\s+(?:now|today|recently|"
                       r"last\s+\w+|this\s+\w+))?\s*[.!]?$", re.IGNORECASE)


def _restated(said: Said) -> Fact | None:
    """Who the person is, said in a form the line restates: a name before more words ("my name is Ana, nice to
    meet you"), a home or a time zone said without "I live", a new job as where they work."""
    name_then = None if _NO_DETAIL.match(said.sentence) else _NAME_THEN.match(said.sentence)
    if name_then is not None:
        return Fact("permanent", f"{said.subject}'s name is {name_then.group('name')}")
    living = _NOW_LIVING.match(said.sentence)
    if living is not None and not said.speaker:
        return Fact("permanent", f"{said.subject} lives in {living.group('place')}")
    job = _NEW_JOB.match(said.sentence) or _EMPLOYER_IS.match(said.sentence)
    if job is not None and not said.speaker:
        return Fact("permanent", f"{said.subject} works at {job.group('employer').rstrip('.')}")
    role = _NEW_ROLE.match(said.sentence)
    text = said.about() if role is not None and a_role(role.group("role")) and not said.speaker else None
    if text:
        return Fact("permanent", text)
    zone = _IN_TIME_ZONE.match(said.sentence)
    if zone is not None:
        named = f"{zone.group('zone')} time" if zone.group("region") else zone.group("zone")
        return Fact("permanent", f"{said.subject}'s time zone is {named}")
    return None


def identity(said: Said) -> Fact | None:
    if _MY_IS.match(said.sentence):
        said = replace(said, sentence=_MY_IS.sub(r"\g<whose> is ", said.sentence, count=1))
    restated = _restated(said)
    if restated is not None:
        return restated
    family = _NAMED_FAMILY.match(said.sentence)
    if family is not None:
        said = replace(said, sentence=f"My {family.group('who').lower()} is {family.group('name')}.")
    name = _CALL_ME.match(said.sentence)
    if name is not None:
        return Fact("permanent", f"{said.subject}'s preferred name is {name.group('name').strip()}")
    named = _SELF_NAMED.match(said.sentence)
    if named is not None:
        return Fact("permanent", f"{said.subject} is {named.group('word') or named.group('handle')}")
    timed = _TIMED.search(said.sentence) and not (_MOVED.match(said.sentence) or _ONGOING.match(said.sentence))
    if not _IDENTITY.match(said.sentence) or timed or _NO_DETAIL.match(said.sentence):
        return None
    if _AT_HAND.match(said.sentence) and not _LIFE_HAD.match(said.sentence):
        return None  # "I have a bug in my code": the work at hand, not something of their life
    text = said.about() or _household(said)
    enough = 1 if _ONE_WORD_IDENTITY.match(said.sentence) else 2  # "I'm vegan", "I'm a nurse"
    return Fact("permanent", text) if text and meaningful(text) >= enough else None


_ONE_WORD_IDENTITY = re.compile(rf"{_ATTRIBUTE}|{_CONDITION}|{_PRONOUNS}|{_POSITION}|"
                                rf"^(?:i'?m|i am)\s+(?:a|an)\s+(?!{_DEGREE}\b)\w+\s*[.!]?$", re.IGNORECASE)


# What someone has that belongs to their life: family, pets, a home, a condition, a degree.
_LIFE_HAD = re.compile(r"^(?:we|i)\s+(?:still\s+|also\s+)?(?:have|has|got|'ve got|have got)\s+"
                       r"(?:a|an|two|three|four|\d+)\s+(?:[\w-]+\s+)?(?:cats?|dogs?|kids?|children|sons?|daughters?|bab(?:y|ies)|pets?|parrots?|"
                       r"rabbits?|horses?|hamsters?|fish|wife|husband|partner|girlfriend|boyfriend|brothers?|sisters?|"
                       r"twins|allerg\w*|condition|disability|degree|phd|masters|house|flat|apartment|garden|car|"
                       r"bike|job|day job|side business)\b", re.IGNORECASE)


def _household(said: Said) -> str | None:
    """"We have a cat" said by the person: their household's, "User's household has a cat"."""
    match = _WE_HAVE.match(said.sentence)
    return f"{said.subject}'s household has {match.group('what')}" if match else None


_PREFERENCE = re.compile(
    r"^i\s+(?:(?:really|much|generally|usually|also|still|absolutely|definitely|kind of|kinda|totally)\s+)*"
    rf"(?:prefer|like|love|enjoy|hate|dislike|adore|{not_after('can')} stand|{DO_NOT} like)\b|"
    r"^i'?d (?:rather|prefer)\b|^i would (?:rather|prefer)\b|"
    # "I don't want long answers", "I don't want emojis": a kind of thing, not this one nor an errand ("to …")
    rf"^i\s+(?:really\s+)?{DO_NOT}\s+want\s+(?!(?:to|you|it|this|that|these|those|them|the|a|an|my|your|our|his|her"
    r"|their|any|anything|more|him|me|us)\b)(?:[\w-]+\s+){0,3}[\w-]+\s*(?:[,;]|[.!]*$)|"
    r"^i(?:'d| would) like\s+(?:(?:short|long|plain|brief|detailed|concise)\s+)?(?!to\b|you\b|it\b|them\b|this\b|"
    r"these\b|those\b)\w+s\b|"  # "I'd like answers as short bullet lists": how every answer should be
    r"^i(?:'d| would) like\s+(?:to\s+(?:have|use|keep)\s+)?(?!(?:to|this|that|it|these|those|them|the|one)\b)"
    r"[\w.+-]+(?:\s+[\w.+-]+){0,2}\s+as\s+my\s+(?:[\w-]+\s+)?[\w-]+\s*[.!]*$|"  # "… brogrammer as my Ghostty theme"
    rf"^(?:i'?m|i am)\s+(?:a\s+(?:big\s+|huge\s+)?fan of|into|{NOT} into|{NOT} a fan of|obsessed with)\b|"
    r"^(?:i'?m|i am)\s+(?:(?:really|very|particularly|mostly|mainly|especially|deeply)\s+)?"
    r"(?:interested in|passionate about|curious about|fascinated by)\s+(?!(?:this|that|it|these|those|what|how|why|"
    r"whether|if|your|the (?:idea|answer|result|output|fix|error))\b)|"
    r"^my\s+(?:favou?rite|preferred)\s+\w+(?:\s+\w+)?\s+(?:is|are)\b",
    re.IGNORECASE)


# A liking whose object is the agent's own work: praise (or blame) for this conversation, no lasting taste.
_THE_AGENTS_WORK = re.compile(r"^\S+(?:\s+\S+){1,3}?\s+(?:everything|all|what|how|it|this|that|the way)\b[^.!?]*"
                              r"\b(?:you|you['’](?:re|ve)|your)\b", re.IGNORECASE)


def preference(said: Said) -> Fact | None:
    if not _PREFERENCE.match(said.sentence) or _TIMED.search(said.sentence) or _THE_AGENTS_WORK.match(said.sentence):
        return None
    if likes_an_option(said.sentence):
        return None
    text = said.about()
    return Fact("permanent", _agent_named(text)) if text and meaningful(text) >= 2 else None


# The person naming the agent: "your name is Hiperagi", "I'll call you Yolo", "call yourself Mina". The name
# ends the sentence, and is never a word that makes "call you" a phone call ("I'll call you back tomorrow").
_AGENT_NAME = re.compile(
    r"^(?:(?:from now on|ok(?:ay)?|so|and|also)\s*,?\s+)?(?:your\s+(?:new\s+)?name\s+(?:is|will be|shall be)|"
    r"(?:i|we)(?:'ll|\s+will|\s+want to|\s+wanna|'d like to|\s+would like to|\s+am going to|'m going to)?\s+call\s+you|"
    r"(?:i|we)(?:'m|\s+am|'re|\s+are)\s+calling\s+you|"  # "i am calling you luna"
    r"(?:please\s+)?call yourself|you(?:'re|\s+are|\s+will be|'ll be)\s+(?:called|named))\s+"
    r"(?!(?:back|later|tomorrow|again|soon|tonight|now|then|when|after|if|once|in|at|on|to|about|out|up|there|"
    r"a|an|the|my|our|this|that)\b)(?P<name>[\w'-]{2,30}(?:\s+[\w'-]{2,30})?)\s*[.!]*$",
    re.IGNORECASE)


# "You're Nebula.", "You are Max": a capitalised name alone after "you are", never a word said to the agent.
_YOU_ARE_NAMED = re.compile(r"^you(?:['’]re|\s+are|['’]ll\s+be|\s+will\s+be)\s+(?!(?:welcome|right|wrong|correct|"
                            r"amazing|awesome|great|brilliant|fine|good|done|here|back|sure|kidding|joking|ok|okay|"
                            r"the|a|an)\b)(?P<name>(?-i:[A-Z])[\w'-]{1,30})(?:\s+from\s+now\s+on)?\s*[.!]*$",
                            re.IGNORECASE)


def agent_name(said: Said) -> Fact | None:
    """The name the person gives the agent, as SOUL.md keeps it: "Your name is Hiperagi"."""
    named = _AGENT_NAME.match(said.sentence) or _YOU_ARE_NAMED.match(said.sentence)
    return None if named is None else Fact("permanent", f"Your name is {named.group('name')}")


# "you" as the subject of a verb; any other "you" ("… invocations of you, Claude") keeps the line addressed.
_YOU_DO = re.compile(r"\byou\s+(?P<verb>[a-z]+)\b")
_NOT_VERBS = frozenset({"to", "and", "or", "a", "an", "the", "all", "both", "too", "first", "guys"})


def _agent_named(text: str) -> str:
    """A way of working that names the agent ("… before you generate anything") with the agent in the third
    person, as USER.md speaks of it: "… before the agent generates anything"."""
    def named(match: re.Match[str]) -> str:
        verb = match.group("verb")
        return match.group(0) if verb in _NOT_VERBS else f"the agent {conjugate(verb)}"

    return _YOU_DO.sub(named, text.replace("you're", "the agent is").replace("you are", "the agent is"))


_DECISION = re.compile(r"^(?:so\s+)?(?:we|i)(?:'ve| have)?\s+(?:finally\s+)?(?:decided|agreed|chose|settled on|"
                       r"picked|went with)\b\s*(?P<rest>.*)$|"
                       r"^(?:ok(?:ay)?,?\s+|so,?\s+|alright,?\s+)?let'?s\s+"
                       r"(?P<verb>use|go with|stick with|keep|switch to|move to|adopt)\s+(?P<thing>(?!(?:it|this|that|"
                       r"them|these|those|the same|going|on)\b).+)$",
                       re.IGNORECASE | re.DOTALL)
_SWITCH = re.compile(r"^(?:we|i)(?:'ve| have)?\s+(?:just\s+)?(?:switched|migrated|moved over|changed)\s+"
                     r"(?P<rest>(?:from\s+.+\s+)?to\s+.+)$|^we\s+(?:just\s+)?moved\s+(?P<moved>(?:from\s+.+\s+)?to\s+.+)$",
                     re.IGNORECASE | re.DOTALL)


# "We're going with X (instead of Y)": a decision said in the present; "We'll be using Tailwind, not Bootstrap",
# "I'm going to use Postgres", "I will use pnpm, not npm": the same, said of what is to come (by the person alone,
# never to get one thing done: "I'll use Google to look it up").
_GOING_WITH = re.compile(r"^(?:so\s+)?we(?:'re|\s+are)\s+(?:now\s+)?(?P<present>going|sticking|staying) with\s+"
                         r"(?P<thing>.+)$|"
                         r"^(?:so\s+)?(?P<who>we|i)(?:'ll|\s+will|(?:'re|\s+are|'m|\s+am)\s+going\s+to)\s+(?:be\s+)?"
                         r"(?P<verb>go with|use|using|stick with|stick to|switch to)\s+(?P<chosen>.+)$",
                         re.IGNORECASE | re.DOTALL)
# Part of the project said to be made in a language or with a tool: "The backend will be written in Rust".
_MADE_IN = re.compile(r"^(?:the|our)\s+(?:[\w-]+\s+){0,3}?[\w-]+\s+(?:will\s+be|is\s+going\s+to\s+be)\s+"
                      r"(?:written|built|implemented|developed|coded|made)\s+(?:in|with)\s+(?P<chosen>[^,;]+?)"
                      r"(?:[,;].*)?[.!]?$", re.IGNORECASE | re.DOTALL)
_PRESENT_CHOICE = {"going": "go with", "sticking": "stick with", "staying": "stay with"}
# A decision typed straight after an errand, with no stop between them: "commit these changes we're going with X
# instead of Y". Only after a request's verb, and never after a word that makes it the errand's object ("check
# whether we agreed …", "the notes where we decided …").
_DECISION_INSIDE = re.compile(r"^(?P<errand>.+?)\s+(?=we(?:'re|\s+are|'ve|\s+have)?\s+(?:finally\s+)?"
                              r"(?:decided|agreed|chose|settled on|going with)\b)", re.IGNORECASE | re.DOTALL)
_EMBEDDING = re.compile(r"\b(?:if|whether|that|what|where|when|why|how|which|because|since|as|after|before|"
                        r"until|once|what)\s*$", re.IGNORECASE)
# What a decision goes on to ask of the agent: "…, so mention that in the README".
_SO_ERRAND = re.compile(r",?\s+so\s+(?P<clause>[^.!]*)[.!]*$", re.IGNORECASE)


def _decision_after_errand(said: Said) -> Fact | None:
    """The decision a run-on request ends with, without the errand before it."""
    inside = _DECISION_INSIDE.match(said.sentence)
    if inside is None or _EMBEDDING.search(inside.group("errand")) or not _imperative(inside.group("errand")):
        return None
    rest = said.sentence[inside.end():]
    return decision(Said(rest, said.speaker, said.day, rest, said.errand))


# A verb in the base form before what it acts on: "Push the branch", "commit these changes", "redeploy it".
_VERB_OBJECT = re.compile(r"^(?P<verb>[a-z]+)\s+(?:the|these|this|those|that|it|them|all|my|our|a|an)\b",
                          re.IGNORECASE)


def _imperative(clause: str) -> bool:
    """True when the clause asks the agent for something: a request's opening, or a verb before its object."""
    verb_object = _VERB_OBJECT.match(clause)
    plain_verb = verb_object is not None and verb_object.group("verb").lower() not in STOPWORDS
    return bool(opens_with_a_request(clause)) or plain_verb


def _without_errand(text: str) -> str:
    """A decision without the errand it asks for next ("…, so note that in the changelog")."""
    after = _SO_ERRAND.search(text)
    if after is None:
        return text
    clause = after.group("clause")
    asks = _imperative(clause) or clause.split()[:1] and clause.split()[0].lower() in _INSTRUCTIONS
    return text[:after.start()] if asks or _DEICTIC.search(clause) else text


_PURPOSE = re.compile(r"\bto\s+(?!(?:the|a|an|my|our|this|that)\b)\w+", re.IGNORECASE)  # "… to look it up"
# What makes the person's "I'll use …" a choice for the project: a name, or what it is chosen over or for ("pnpm,
# not npm", "Postgres for the main database"); "I'll use the terminal" is how they will do one thing.
_NAMED_CHOICE = re.compile(rf"(?-i:\b[A-Z])|,?\s+(?:{NOT}|instead\s+of|rather\s+than|{WITHOUT}|for|as)\b",
                           re.IGNORECASE)


def decision(said: Said) -> Fact | None:
    made = _MADE_IN.match(said.sentence)
    if made is not None and not _DEICTIC.search(made.group("chosen")):
        return Fact("durable", said.named(_capitalised(said.sentence.rstrip(".!"))))
    going = _GOING_WITH.match(said.sentence)
    if going is not None:
        chosen = going.group("thing") or going.group("chosen")
        pointing = _DEICTIC.search(_LASTING_PLACE.sub(" ", _first_clause(chosen))) or only_a_choice(chosen)
        mine = (going.group("who") or "").lower() == "i"
        errand = mine and (_PURPOSE.search(chosen) or not _NAMED_CHOICE.search(chosen))
        if pointing or errand or _ONE_DAY.search(said.spoken or said.sentence):
            return None  # "we'll use it later", "we'll go with the old one for the demo tomorrow"
        verb = (going.group("verb") or _PRESENT_CHOICE[going.group("present").lower()]).lower().replace("using", "use")
        said = Said(f"we decided to {verb} {chosen}", said.speaker, said.day, said.spoken, said.errand)
    switch = _SWITCH.match(said.sentence)
    if switch is not None:
        rest = switch.group("rest") or switch.group("moved")
        return Fact("correction", said.named(f"Switched {_pronouns(rest, said)}"))
    match = _DECISION.match(said.sentence)
    if match is None:
        return _decision_after_errand(said)
    if a_chosen_option(match.group("thing") or match.group("rest") or ""):
        return None  # "let's go with option 1", "we picked the second one": an answer to the agent's options
    if match.group("thing"):
        if _DEICTIC.search(_LASTING_PLACE.sub(" ", _STANDING_WORDS.sub("", _first_clause(match.group("thing"))))):
            return None  # "let's keep that out of here": this piece of work; its reason may say "it" ("…, since it …")
        verb = match.group("verb").lower()
        text = f"Decided to {verb} {_pronouns(match.group('thing'), said)}"
    else:
        chose = _CHOSE.search(said.sentence[:match.start("rest")])
        rest = match.group("rest")
        on = "on " if chose and not rest.lower().startswith("to ") else ""
        text = f"Decided {on}{_pronouns(rest, said)}".strip()
    text = _without_errand(text)
    return Fact("durable", said.named(text)) if meaningful(text) >= 3 else None


_TASK = re.compile(r"^(?:(?:i|we)\s+(?:still\s+|really\s+|also\s+)?(?:need|have|got|must remember)\s+to|"
                   rf"i\s+must|remind me to|{DO_NOT} let me forget to|{DO_NOT} forget to|"
                   r"(?:todo|to-do|to do)\s*:)\s+(?P<task>.+)$", re.IGNORECASE | re.DOTALL)


def task(said: Said) -> Fact | None:
    match = _TASK.match(said.sentence)
    if match is None:
        return None
    text = said.named(f"Task: {_pronouns(match.group('task'), said)}")
    return Fact("ephemeral", text) if meaningful(match.group("task")) >= 2 else None


_DONE = re.compile(r"^(?:i|we)(?:'ve| have)?\s+(?:just\s+|finally\s+|already\s+)?(?P<verb>finished|completed|fixed|"
                   r"shipped|merged|resolved|wrapped up|submitted|launched|published|deployed|closed)\s+(?P<what>.+)$",
                   re.IGNORECASE | re.DOTALL)


def done(said: Said) -> Fact | None:
    match = _DONE.match(said.sentence)
    if match is None:
        return None
    text = f"{match.group('verb').capitalize()} {_pronouns(match.group('what'), said)}"
    if said.day is not None and not _YEAR.search(text):
        text = f"{text.rstrip('.!')} on {day_text(said.day)}"
    return Fact("durable", said.named(text)) if meaningful(match.group("what")) >= 2 else None


_PLAIN = re.compile(r"^(?:i\b|i['’]|my\b|we\b|we['’]|our\b)", re.IGNORECASE)
# The team's tool, named and nothing more: "We use Django 4.2.", "We're on Postgres 16 now.", "We deploy with
# Kamal." Two meaningful words, yet how the team's work stands.
_A_NAME = r"(?:the\s+)?[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*){0,2}"
_TEAM_TOOL = re.compile(r"^(?i:we|our\s+team)(?:['’]re\s+|\s+are\s+|\s+)(?:now\s+)?(?:(?:use|using|run|running|"
                        r"switched\s+to|moved\s+to|migrated\s+to|deploy(?:ing)?\s+(?:with|to|on)|host(?:ing)?\s+"
                        rf"(?:on|with))\s+{_A_NAME}(?:\s+v?\d[\w.]*)?|on\s+{_A_NAME}\s+v?\d[\w.]*)"
                        r"(?:\s+now)?[.!]?$")  # "on" with a version: "We're on Django 5.1", not "We are on Monday"
# … or one of the team's things, or the person's, given a named value: "Our office is in Amsterdam.", "Our stack
# is Rails.", "My editor is Neovim."
_OURS_NAMED = re.compile(rf"^(?i:our|my)\s+[\w-]+\s+(?:is|are)\s+(?:(?:in|at|on|based\s+in|hosted\s+(?:on|in))\s+)?"
                         rf"(?:an?\s+)?(?:{_A_NAME}|v?\d[\w.:/-]*)[.!]?$")


def statement(said: Said) -> Fact | None:
    """Any other plain statement about the person (or their team), in the third person.

    Between people (a named speaker: both sides of the conversation are people) every such statement is
    news worth a dated journal line. In what a person tells an agent, most are about the moment ("I read the
    readme", "we are getting confused"): only lasting ones are kept, a habit ("I go climbing every Saturday")
    for USER.md and how the team's work stands ("Our API runs on port 8080", "We use WeasyPrint for PDFs").
    """
    team_tool = _TEAM_TOOL.match(said.sentence) is not None or _OURS_NAMED.match(said.sentence) is not None
    if not _PLAIN.match(said.sentence) or meaningful(said.sentence) < 3 and not team_tool or _NO_DETAIL.match(
            said.sentence):
        return None  # "my name is not important": no name given
    if likes_an_option(said.sentence):
        return None
    text = said.about()
    if said.speaker:
        return Fact("durable", said.named(said.sentence) if text is None else said.dated(text))
    if _DEICTIC.search(_NOW.sub("", _first_clause(said.spoken or said.sentence))) or _AT_HAND.match(said.sentence):
        return None  # "now" says how things stand ("We use MultiLogin now"); "this", "it" point at the moment
    fault = _A_FAULT.search(said.sentence) and (text is None or text.startswith(said.subject))
    if _ATTACHED.search(said.sentence) or len(said.sentence.split()) > LASTING_WORDS or fault:
        return None  # points at a screenshot, runs on through a spec of the work at hand, or tells its problem
        # ("My laptop has a bug", "I also see an error with …"): the work at hand, not who the person is
    if not (_lasting(said.sentence) or team_tool):  # what happened: a life event is placed in time, a step is not
        if _unreal(said.sentence) or _THOUGHT_OR_WISH.match(said.sentence):
            return None  # "In such cases, I'd draft a reminder": what would happen; "I had a thought last night",
            # "Now I want to …": for this conversation — neither a habit nor an event
        if _PLAN.search(said.spoken or said.sentence) and _DAYS_AHEAD.search(said.spoken or said.sentence):
            return None  # "Tomorrow I'm flying to Denver": the coming days' plan, told to an agent, is no memory
        return Fact("durable", said.dated(text or said.sentence)) if _placed_in_time(said) else None
    if text is not None and text.startswith(said.subject):
        return Fact("permanent", text)
    return Fact("durable", text or said.sentence)


# Something going wrong: said of the person's things, it is the problem they bring to the agent, not who they are.
_A_FAULT = re.compile(r"\b(?:bugs?|errors?|exceptions?|crash(?:es|ed|ing)?|broken|fail(?:s|ed|ing|ure)|hangs|freezes"
                      rf"|glitch(?:es)?|{not_after('does', 'do', 'did')}\s+work|{NOT}\s+working"
                      r"|(?:is|are|looks?|seems?|feels?)\s+(?:\w+\s+){0,2}(?:off|wonky|slow|laggy|janky|flaky|buggy|"
                      r"glitchy|sluggish|weird|messed\s+up|a\s+mess))\b", re.IGNORECASE)  # "My config is a bit off"
# An amount of money, or a count of what is open, left or to do: how things stand this minute, never for good.
_A_COUNT = (r"(?:[$€£¥]\s?)?\d[\d.,]*\s*(?:k\b\s*)?(?:(?-i:[A-Z]{3,5})\b|euros?|dollars?|bucks|pounds|credits?|"
            r"(?:\w+\s+)?(?:in\s+(?:my|our|the)\s+)?(?:account|wallet|balance|bank)|open|unread|pending|failing|new|"
            r"left|remaining)|(?:\d+|one|two|three|four|five|a\s+couple\s+of)\s+[\w-]+\s+(?:to\s+\w+|left)\b")
# How long a plain statement of how things stand with the person can be: "I work nights at a hospital in Leeds"
# is short; forty words of "I want to view the step, the status, the rate …" is a spec of the work at hand.
LASTING_WORDS = 25
# What points at something shown with the message: "[Image #2]", "see the screenshot", "attached".
_ATTACHED = re.compile(r"\[(?:image|pasted text|file)\b[^\]]{0,20}\]|\bscreenshots?\b|\battached\b", re.IGNORECASE)
# What the person brings up for the work at hand, told to an agent: "we have a lot of information about …",
# "we have a bug where …", or how much of something there is right now: "I have 300 euros in my account", "We have
# 12 open tickets", "we only have one file to change" (their household, "we have two cats", is read by `identity`).
_AT_HAND = re.compile(r"^(?:my|our)\s+(?:next|first|immediate)\s+(?:move|step|steps|task)\b|"  # "My next move is to …"
                      r"^(?:we|i)\s+(?:still\s+|also\s+|only\s+|just\s+|now\s+|currently\s+)?"
                      r"(?:have|has|got|'ve got|have got)\s+(?:(?:a|an|some|lots|"
                      rf"loads|plenty|many|several|multiple|numerous|various|so many|too many|{NO}|a few|tons|"
                      r"quite a few|a bunch|more|other|another|few)\b|"
                      rf"(?:only\s+|just\s+|about\s+|around\s+)?{_A_COUNT})",
                      re.IGNORECASE)
_WHEN = re.compile(r"\b(?:(?:1[89]|20)\d{2}|january|february|march|april|june|july|august|september|october|"
                   r"november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|spring|summer|autumn|"
                   rf"fall|winter|christmas|easter|(?-i:May)(?!\s+(?:be|have|{NOT}|need|want|also)\b))\b",
                   re.IGNORECASE)  # "I may have typos": a verb, not the month


# What is still to come, in the person's words ("I'm flying", "we'll ship", "I'm going to"), and a day soon ahead:
# the plan of a few days. A life change further off stays an event ("From November I'll be a data engineer").
_PLAN = re.compile(r"\b(?:I['’]m|I\s+am|we['’]re|we\s+are)\s+(?:\w+ly\s+)?\w+ing\b|\b(?:I|we)(?:['’]ll|\s+will)\b",
                   re.IGNORECASE)
_DAYS_AHEAD = re.compile(r"\b(?:tomorrow|tonight|later today|this\s+(?:weekend|evening|afternoon|morning|week)|"
                         r"next\s+(?:time|week|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
                         r"(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?:\s+(?:morning|"
                         r"afternoon|evening|night))?)\b", re.IGNORECASE)


# A thought the person had, or a wish, with when: for this conversation, no event ("I had a thought last night.",
# "Now I want to do a loading state on the transactions list.").
_THOUGHT_OR_WISH = re.compile(r"^(?:I|we)\s+(?:(?:had|got|came\s+up\s+with)\s+(?:a|an|one|another|some|two)\s+"
                              r"(?:\w+\s+)?(?:thoughts?|ideas?|questions?|look|dream|realization|epiphany|hunch|"
                              r"feeling|concern)\b|"
                              r"(?:want|wanted|need|needed|would\s+like|'d\s+like|am\s+trying|'m\s+trying)\s+to\b)",
                              re.IGNORECASE)


def _placed_in_time(said: Said) -> bool:
    """True when the person said when it happened ("last autumn", "in March", "yesterday"), in the statement's own
    clause: "I explain the TGR issue, let's plan on Wednesday" dates the plan, not the statement."""
    own = _first_clause(said.sentence)  # as the rules read it: relative times made dates, a setting moved to its end
    return _first_clause(said.spoken or said.sentence) != own or bool(_WHEN.search(own))


# What says a "have" is of something just done, whatever verb follows (typed wrong too: "I have accidentally make …").
_JUST_DONE = frozenset({"just", "already", "accidentally", "mistakenly", "finally", "recently"})
# How often something is done: a habit, not an event.
_HABIT = re.compile(r"\b(?:every|each)\s+(?:day|week|month|morning|evening|night|weekend|monday|tuesday|wednesday|"
                    r"thursday|friday|saturday|sunday)\b|\bon\s+(?:weekends|mondays|tuesdays|wednesdays|thursdays|"
                    r"fridays|saturdays|sundays)\b|\b(?:daily|weekly|twice a \w+|once a \w+|usually|regularly|most "
                    r"(?:days|evenings|mornings|weekends))\b", re.IGNORECASE)
_OWNER = re.compile(r"^(?:i|we|my|our)\b\s*", re.IGNORECASE)
_NOT_LASTING = frozenset({"will", "would", "should", "could", "might", "can", "must", "may", "shall", "need", "'ll",
                          "'d", "recall", "remember", "realise", "realize", "notice", "imagine", "assume", "expect",
                          "hear", "didn't", "won't", "wouldn't", "couldn't", "shouldn't", "can't", "cannot", "wasn't",
                          "weren't", "needs", "want", "wanted", "wants", "think", "thought", "feel", "felt", "guess",
                          "hope", "wonder", "suppose", "suspect", "believe", "was", "were", "had", "did", "got", "am",
                          "are", "'re", "'m", "'ve", "been", "being", "tried", "try", "trying", "going", "gonna",
                          "just", "haven't", "hasn't", "reckon", "reckons", "figure"})
# What the person does in the conversation itself, unless they say it is a habit: "I explain the TGR issue", "I
# share with ProBIM the IFC files" (not "I tell my students to read every day").
_CONVERSING = (verbs_of_saying("report", "base", "third") | verbs_of_saying("disclose", "base", "third")
               | {"share", "shares", "send", "sends", "show", "shows", "attach", "attaches", "paste", "pastes",
                  "forward", "forwards", "describe", "describes"})


# The verbs of what would or might be: a statement made with one tells no event and no state.
_UNREAL = frozenset({"would", "'d", "could", "might"})


def _unreal(sentence: str) -> bool:
    """True when the person's verb says what would, could or might be ("I'd draft it", "we could move to Go")."""
    words = _LOWER_WORD.findall(_OWNER.sub("", sentence, count=1).replace("’", "'").lower())
    verb = next((word for word in words if not is_adverb(word)), "")
    return _OWNER.match(sentence) is not None and verb in _UNREAL


_DOING = re.compile(r"^(?:\w+\s+)?\w+ing\b")
_IN_USE = frozenset({"using", "running", "hosting"})


# A verb's present "-s" ("runs", "calls"), not a noun's "-ss" or "-us" ("My boss called me", "the status").
_PRESENT_S = re.compile(r"^\w{3,}(?<![su])s$")


def _lasting(sentence: str) -> bool:
    """True when the statement's verb is in the present simple: how things stand, not what happened just now,
    what someone thinks or wants, or what will be."""
    owner = _OWNER.match(sentence)
    pronoun = owner is not None and owner.group(0).strip().lower() in ("i", "we")
    busy = owner is not None and owner.group(0).strip().lower() == "i"  # "we have been running X": how it stands
    words = _LOWER_WORD.findall(_OWNER.sub("", sentence, count=1).replace("’", "'").lower())[:6]
    for index, word in enumerate(words):
        if (is_adverb(word) or word == "not") and word not in _NOT_LASTING:
            continue
        after = next((later for later in words[index + 1:] if not is_adverb(later)), "")
        next_word = words[index + 1] if index + 1 < len(words) else ""
        if word in ("have", "has") and (after.endswith("ed") or after in PAST_FORMS or next_word in _JUST_DONE
                                        or not _JUST_DONE.isdisjoint(words[index + 2:])):
            return False  # "we have (recently) produced …", "I have set everything up", "I have run it": just done;
            # "i have install canvas-lms already": so, the participle typed wrong
        if busy and word in ("have", "'ve") and after == "been" and _DOING.match(" ".join(words[index + 2:])):
            return False  # "I've been learning the deploy scripts": what they are busy with (life: `identity`)
        if word in ("do", "does", "don't", "doesn't") and after in ("not", "need", "want", "have", "think"):
            continue  # "do not need to …": what the next word says
        if not busy and word in ("are", "'re") and after in _IN_USE and _NAMED.search(sentence):
            return True  # "we're using MultiLogin", "we are running Debian 12": what the team's work runs on
        if word in _NOT_LASTING or word in IRREGULAR_PAST or word.endswith("ed"):
            return False
        if (word in SAME_IN_PAST or busy and word in _CONVERSING) and not _HABIT.search(sentence):
            return False  # "I read the readme", "I explain the issue": what happened, unless it happens every week
        if pronoun or word in ("is", "are", "has", "have", "does", "do") or _PRESENT_S.search(word):
            return True
    return False


# What opens a request or a remark to the agent rather than a statement about the world.
_REQUEST = re.compile(r"^(?:can|could|would|will|shall|should|please|let|let's|lets|add|fix|make|show|tell|give|"
                      r"write|help|check|run|try|use|create|update|remove|delete|change|move|put|look|find|explain|"
                      r"read|work on|implement|continue|start|install|deploy|investigate|debug|refactor|rename|"
                      r"summari[sz]e|analy[sz]e|review|research|prepare|compare|translate|draft|generate|websearch|"
                      r"suggest|propose|recommend|brainstorm|outline|evaluate|assess|estimate|verify|"
                      rf"send|book|remind|ping|list|print|clean up|set up|look up|figure out|{CHANGE_VERBS}|"
                      rf"you|your|that|there|here|what|how|why|when|where|who|which|yes|{NO}|sure|thanks?)\b"
                      r"(?!\s+(?:\w+\s+)?(?:is|are|was|were|has|have|had)\b)",  # "Read replicas are …": a statement
                      re.IGNORECASE)
# A name, a number, a version or a host: what makes a sentence about the world worth keeping.
_NAMED = re.compile(r"(?<=\s)(?-i:[A-Z])[\w&'’-]+|\d|\b\w+\.\w{2,}\b")


def named_fact(said: Said) -> Fact | None:
    """A statement about someone or something in the person's world that names it ("Leo loved his first week at
    school", "Staging lives at staging.example.app"): dated, in the speaker's words, with who said it."""
    sentence = said.sentence
    if _REQUEST.match(sentence) or not _NAMED.search(said.spoken or sentence) or meaningful(sentence) < 3:
        return None  # a date worked out from "today" names nothing: the sentence must name something itself
    if not said.speaker and not _named_state(sentence):
        return None  # told to an agent: only how things stand, about something named ("Staging lives at …")
    return Fact("durable", said.dated(said.named(sentence)))


# What a statement about the world opens with when it names nothing a later reader could find: a pronoun (or
# the person, whose statements are read by the other rules), or a word that stands for what was just said ("The
# goal is to determine …": whose goal?).
_UNNAMED_SUBJECT = re.compile(r"^(?:it|its|it's|this|that|these|those|there|here|he|she|they|them|which|what|"
                              rf"some|all|both|each|one|{NEGATIVE_PRONOUN}|everything|something|i|i'm|my|we|our|re|"
                              r"the\s+(?:main\s+)?(?-i:goal|idea|plan|point|aim|purpose|problem|issue|reason|thing|"
                              r"question|task|difference|catch|trick|hope)s?)\b", re.IGNORECASE)


# "now" before a verb in the present ("The API now listens on …"), not before "is" ("The deploy is now at 80%").
_NOW_DOES = re.compile(r"\bnow\s+(?!(?:is|are|was|were|has|have)\b)[a-z]+s\b")


def _named_state(sentence: str) -> bool:
    """A statement of how something named stands, told to an agent: four words or more, a named subject, no
    pointing at the moment ("this", "that"), and a verb in the present ("Staging lives at …", "Ines reviews …")."""
    words = sentence.split()
    named = words[0][:1].isupper() or len(words) > 1 and words[0] == "the" and words[1][:1].isupper()  # typed in
    if len(words) < 4 or not named or _UNNAMED_SUBJECT.match(sentence):  # lower case: "the API now listens on …"
        return False
    if _FIRST_PERSON.search(sentence):
        return False  # "… surprises me": the person speaking of themselves, which the other rules read
    first = _first_clause(sentence)
    if _DEICTIC.search(_NOW.sub("", first) if _NOW_DOES.search(first) else first):
        return False  # "now" before a verb says how things stand: "The API now listens on port 8081"
    if _PLURAL_TO.search(sentence):
        return False  # "Spawn sub-agents to write …": an errand whose verb the rules do not know
    if not set(re.findall(r"[a-z']+", sentence.lower())) & STOPWORDS and language_of(sentence, 0.0) != "en":
        return False  # no English word joins it, likeliest another language: "Dili sa ianjames.ormo na calendar"
    return _lasting(sentence.split(" ", 1)[-1])


def _pronouns(text: str, said: Said) -> str:
    """The person's pronouns inside a task or decision, pointing at them ("call my mom" → "call User's mom")."""
    owner = f"{said.subject}'s"
    for pattern, replacement in zip(_MY_ME_MYSELF, (owner, said.subject, said.subject), strict=True):
        text = pattern.sub(replacement, text)
    return text


_MY_ME_MYSELF = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (r"\bmy\b", r"\bme\b", r"\bmyself\b"))


RULES: tuple[Callable[[Said], Fact | None], ...] = (correction, agent_name, language_switch, agent_rule, task, done,
                                                    decision, identity, preference, statement, named_fact)


def _first_fact(said: Said, skip: tuple[Callable[[Said], Fact | None], ...] = ()) -> Fact | None:
    for rule in RULES:
        if rule in skip:
            continue
        fact = rule(said)
        if fact is not None:
            return fact
    return None


# A short lead before a colon, then a rule that says always or never: the rule is what is filed.
RULE_LEAD_CHARS = 40
_RULE_AFTER_LEAD = re.compile(rf"(?:please\s+)?(?:(?:always|{PROHIBITION})\s+(?!\w+(?:ed|s)\b)\w|(?:{_FROM_NOW_ON})\b)",
                              re.IGNORECASE)
_AGAIN = re.compile(r"\bdo\s+(?:this|that|it)\s+again\b", re.IGNORECASE)  # a reproach points at no task
# A lead that announces a rule for the agent: "New rule:", "Remember a new rule for me:", "Add this rule:".
_NAMES_A_RULE = re.compile(r"^(?:(?:please\s+)?(?:remember|add|note|save|here(?:'s| is))\s+(?:a|an|this|the|one)?\s*"
                           r"(?:new\s+|standing\s+|house\s+|golden\s+)?rule(?:\s+for\s+(?:me|you|us))?|"
                           r"(?:a\s+|one\s+)?(?:new|standing|house|golden)\s+rule|rule)\s*$", re.IGNORECASE)


def _a_rule_lead(lead: str) -> bool:
    """A few words that lead into a rule ("Lesson learned", "Don't do this again"): not a log's label ("Error"),
    nor a setting for one piece of work ("For this task"), which makes the rule that task's."""
    return (len(lead) <= RULE_LEAD_CHARS and len(lead.split()) >= 2
            and not _one_piece_of_work(_AGAIN.sub(" ", lead)))


# A short time or place phrase before the person speaks of themselves: "From November I'll be …", "Lately, I …".
# A preposition's phrase holds no clause of its own ("In the morning when I wake up …": what follows "when" is
# that clause, not the statement); an adverb is the setting alone ("still have when I try …" is no setting); a
# preposition with nothing after it sets nothing ("before we start, a bit about me" is no "… before").
_SETTING = re.compile(r"^(?P<setting>(?i:(?:from|since|in|on|at|by|after|before|during|until|next|last|this|every)"
                      r"\b(?:(?!\b(?:when|whenever|if|once|while|where|because|that|as soon as)\b)[^,.!?]){1,40}?|"
                      r"yesterday|today|tomorrow|tonight|recently|lately|now|nowadays|these days|currently|still)),?\s+"
                      r"(?P<rest>(?:I|I['’](?:m|ve|d|ll)|[Mm]y|[Ww]e|[Oo]ur)\b.+)$", re.DOTALL)
# What follows "so" or "because" when it is advice to the agent, not part of the fact: "…, so keep that in mind";
# and the same advice after a comma alone ("…, keep that in mind when suggesting recipes").
_ASIDE = re.compile(r",?\s+(?:so|because|which means)\s+(?=[^,]*\b(?:you|your|please|keep|remember|include|plan|"
                    r"make sure|open|tag|add|use|check|send|book|remind|tell|ask|let me know)\b)[^.!]*"
                    r"|,\s+(?:please\s+)?(?:keep|bear)\s+(?:that|this|it)\s+in\s+mind\b[^.!]*",
                    re.IGNORECASE)


def classify(sentence: str, speaker: str = "", day: date | None = None, errand: bool = False) -> Fact | None:
    """The fact a sentence states, or None for questions, hedges, small talk, sentences about others and any
    kind of line that never enters memory (text/kinds.py)."""
    fact = _classified(sentence, speaker, day, errand)
    if fact is None:
        return None
    line = tidy_sentence(fact.text)
    profile = fact.tag == "permanent"  # bound for USER.md or SOUL.md
    rule = profile and not line.startswith((speaker or DEFAULT_SUBJECT, "The user"))
    check = forbidden_in_profile if profile else forbidden_kind
    kind = check(line, rule=rule) or ("a heading" if fact.text.rstrip().endswith(":") else "")
    return None if kind and not (rule and kind == "addressed to the agent") else fact


def _after_its_lead(sentence: str) -> tuple[str, Fact | None]:
    """The sentence to read without the lead before its colon, when the lead only leads into a rule ("Don't do
    this again: never commit files with API keys."); and the rule itself when the lead announces one, whatever
    its words ("New rule: no external visitors on Fridays after 3pm.")."""
    lead, colon, rule = sentence.partition(": ")
    if colon and _NAMES_A_RULE.match(lead) and not _one_piece_of_work(lead):
        return rule, _as_rule(rule)
    if colon and _a_rule_lead(lead) and _RULE_AFTER_LEAD.match(rule):
        return rule, None
    return sentence, None


def _classified(sentence: str, speaker: str, day: date | None, errand: bool) -> Fact | None:
    sentence = plain(sentence)
    if from_a_source(sentence):
        return None  # "The README says: always run make setup first": its words, not the person's rule
    sentence, announced = _after_its_lead(sentence)
    if announced is not None:
        return announced
    if sentence.endswith("?"):
        return _asked(sentence, speaker, day, errand)
    if not sentence or small_talk(sentence) and not (_STYLE.match(sentence) or _NO_UNLESS.match(sentence)
                                                     or _NO_WANTED.match(sentence)):
        return None  # "No emojis in replies", "No new dependencies unless I approve them": a "no" that forbids
    if not 2 <= len(sentence.split()) <= 60:
        return None
    spoken, sentence = sentence, absolute(sentence, day)
    setting = None if _every_time_rule(sentence) else _SETTING.match(sentence)  # "Every time I push, run …": a rule
    if setting is not None:  # said about oneself after all: the setting goes to the end
        rest = _capitalised(setting.group("rest").rstrip(".!"))  # "Next time we'll …": "We'll … next time."
        sentence = f"{rest} {setting.group('setting')[:1].lower()}{setting.group('setting')[1:]}."
    fact = _first_fact(Said(sentence, speaker, day, spoken, errand))
    if fact is None or _a_rule(fact, speaker):
        return fact  # a rule for the agent keeps its reasons and its command ("…, summarize it")
    text = _ASIDE.sub("", fact.text)
    if fact.text.startswith(speaker or DEFAULT_SUBJECT):
        text = _own_clause(text)
    if text != fact.text and meaningful(text) < 2 and not _ONE_WORD_IDENTITY.match(sentence):
        return None  # "I ask, because it seems …": what is left once the reason is out says nothing ("I'm vegan" does)
    return Fact(fact.tag, _plain_commands(_without_filler(text)))  # "I use `direnv`": a name, not code


def _asked(sentence: str, speaker: str, day: date | None, errand: bool) -> Fact | None:
    """A sentence ending in a question mark: a rule asked with a nod after it ("Always use pnpm for installs,
    ok?"), or a question; a statement with a nod after it is dictation's filler ("Then we have the platform,
    okay?"), as it was."""
    untagged = without_tag_question(sentence)
    if untagged != sentence:
        fact = _classified(untagged, speaker, day, errand)
        if fact is not None and _a_rule(fact, speaker):
            return fact
    return standing_question(sentence)


def _a_rule(fact: Fact, speaker: str) -> bool:
    """A rule for the agent: a lasting line, not one about the person ("User …")."""
    return fact.tag == "permanent" and not fact.text.startswith((speaker or DEFAULT_SUBJECT, "The user"))


# What a fact about the person goes on to say about the moment: a consequence ("…, so expect short bursts",
# "…, so most of the teams will get these in the evening", "…, please keep sentences short") or a step of this
# work ("… and mostly work on this").
_CONSEQUENCE = re.compile(r"(?:,?\s+(?:so|which means|that way|and so)\s+(?!(?:much|many|far|long|well|often|far)\b)|"
                          r",\s+(?:so\s+)?please\s+).*$", re.IGNORECASE | re.DOTALL)
_CONJUNCT = re.compile(r"\s+and\s+(?!(?:I|we|my|our)\b)", re.IGNORECASE)


# A comma, then what may open an instruction: ", give them the adequate level of detail", ", keep it short".
_AFTER_A_COMMA = re.compile(r",\s+(?:(?:so|and|please|pls)\s+)*(?=[a-z])")


def _own_clause(text: str) -> str:
    """A fact about the person without what it means for the moment: what lasts is the fact itself."""
    text = _CONSEQUENCE.sub("", text)
    command = next((found for found in _AFTER_A_COMMA.finditer(text) if _a_command(text[found.end():])), None)
    text = text[:command.start()] if command is not None else text  # "…, keep it short": the agent's instruction
    parts = _CONJUNCT.split(text)
    while len(parts) > 1 and _DEICTIC.search(parts[-1]):
        parts.pop()
    text = " and ".join(parts)
    head, *subordinate = _SUBORDINATE.split(text, maxsplit=1)
    return head if subordinate and _DEICTIC.search(subordinate[0]) else text


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


# Who someone is, said after their name: "User is Dana, a nurse" (not "…, a bit").
_APPOSITION = re.compile(rf"^(?:a|an)\s+(?!{_DEGREE}\b)\w+$", re.IGNORECASE)


def _without_filler(text: str) -> str:
    """The fact without a trailing aside that says nothing of its own (", so that's done", ", she cried"). A list is
    kept whole: more than one short part at the end ("…: owner, price, status") are its items, not an aside."""
    parts = text.rstrip(".!").split(", ")
    kept = list(parts)
    while len(kept) > 1 and len(kept[-1].split()) <= 4 and meaningful(kept[-1]) < 2 and not _APPOSITION.match(kept[-1]):
        kept.pop()
    if len(parts) - len(kept) > 1 or ":" in parts[0]:
        return ", ".join(parts)
    return ", ".join(kept)
