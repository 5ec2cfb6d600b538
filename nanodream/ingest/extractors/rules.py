"""The builtin extractor's rules: which sentences a person says about themselves and their work are facts.

Each rule looks at one sentence and either files it as one tagged fact line, in nanobot's style, or passes.
The rules, in the order they are tried:

| the person says | tag | filed as |
|---|---|---|
| "Actually, …", "Correction: …", "… no longer …", "… not anymore" | `[correction]` | the rest, restated |
| "Please always …", "Never …", "Don't …", "From now on …" (to the agent) | `[permanent]` | the rule itself |
| "Call me Sam", "My name is …", "I live in / work at / am a …", "My wife is …" | `[permanent]` | "User …" |
| "I prefer / like / love / hate …", "My favourite X is Y" | `[permanent]` | "User prefers …" |
| "We decided to …", "Let's use / go with …", "We agreed …" | `[durable]` | "Decided to …" |
| "We switched (from A) to B", "We moved to B" | `[correction]` | "Switched to B" |
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
from dataclasses import dataclass
from datetime import date

from nanodream.text.dates import absolute, day_text
from nanodream.text.person import third_person
from nanodream.text.words import content_words, tidy_sentence

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
        if re.search(r"\b\d{4}\b", text) and not text.startswith(DEFAULT_SUBJECT):
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
_HEDGE = re.compile(r"^(?:i|we)\s+(?:(?:really|just|kind of|kinda)\s+)?(?:think|guess|suppose|believe|wonder|hope|"
                    r"feel like|mean|know|see|agree|understand|bet|doubt|wish|appreciate|can'?t wait|"
                    r"love that|like that|love it|like it|love this|like this|totally agree)\b|"
                    r"^(?:i'?m|i am)\s+(?:not sure|sure|sorry|glad|so glad|happy to hear)\b", re.IGNORECASE)
_SMALL_TALK = re.compile(r"^(?:thanks?|thank you|thx|ok(?:ay)?|sure|great|cool|nice|yes|yeah|no|nope|hi|hello|hey|"
                         r"good (?:morning|night|evening)|bye|sounds good|got it|lol|haha|wow)\b", re.IGNORECASE)


def small_talk(sentence: str) -> bool:
    """Thanks, greetings, hedges: nothing to keep, not even as the chunk's gist."""
    return bool(_HEDGE.match(sentence) or _SMALL_TALK.match(sentence))


def meaningful(text: str) -> int:
    """How many words of `text` say something (not a pronoun, filler or stop word)."""
    return len({w for w in content_words(text) if w not in _FILLER and len(w) > 1})


# ------------------------------------------------------------------------------------------------ rules


_CORRECTION = re.compile(r"^(?:actually|correction|update|to be clear|scratch that|no wait|wait|sorry|oops)"
                         r"\s*[,:;!.—–-]*\s+(?P<rest>.+)$", re.IGNORECASE | re.DOTALL)
_NO_LONGER = re.compile(r"\bno longer\b|\bnot any ?more\b|\bany ?more\b|\bnot \w+ing there\b", re.IGNORECASE)


def correction(said: Said) -> Fact | None:
    match = _CORRECTION.match(said.sentence)
    if match is not None:  # what replaces the old fact is never dated: the builtin dream matches it by its words
        rest = Said(match.group("rest"), said.speaker, said.day, match.group("rest"))
        inner = _first_fact(rest, skip=(correction, statement, named_fact))
        text = inner.text if inner is not None else (rest.about() or rest.named(_capitalised(rest.sentence)))
        return Fact("correction", text) if text and meaningful(text) >= 2 else None
    if _NO_LONGER.search(said.sentence) and (text := said.about()) and meaningful(text) >= 2:
        return Fact("correction", text)
    return None


_FROM_NOW_ON = r"from now on|going forward|in (?:the )?future"  # what makes a request last
_RULE = re.compile(rf"^(?:(?:please|pls|and|also|oh and)\s*,?\s+)*(?:(?:{_FROM_NOW_ON}|in general|next time)"
                   r"\s*,?\s+)?(?:please\s+)?(?P<rule>(?:always|never|don'?t|do not|stop|avoid)\b.+)$",
                   re.IGNORECASE | re.DOTALL)
_STANDING = re.compile(rf"^(?:(?:please|pls)\s+)?(?:{_FROM_NOW_ON}|in general)\s*,?\s+(?:please\s+)?(?P<rule>.+)$",
                       re.IGNORECASE | re.DOTALL)
_WANT_YOU = re.compile(r"^i(?:'d| would)? (?:like|want|need) you to (?P<rule>(?:always|never|keep|stop)\b.+)$",
                       re.IGNORECASE | re.DOTALL)
# How every answer should read, said as a request without "always": "please keep answers short", "no emojis in
# replies please". Plural or "your": "make the reply to Bob friendlier" is one errand, not a standing rule.
_STYLE = re.compile(r"^(?:(?:please|pls|and|also)\s*,?\s+)*(?P<rule>(?:keep|make|write|give|answer|reply|respond|use"
                    r"|skip|drop|leave out|cut|no|be)\b.{0,80}?(?:\b(?:your\s+\w+(?:\s+\w+)?|answers|replies"
                    r"|responses|messages|emojis|emoticons|pleasantries|small talk|jargon|bullet points)\b).*?)"
                    r"(?:\s*,?\s*(?:please|pls|thanks|thank you))?[.!]*$", re.IGNORECASE | re.DOTALL)
# A standing request asked as a question: "can you keep replies under 100 words from now on?"
_ASKED_STANDING = re.compile(rf"^(?:(?:{_FROM_NOW_ON})\s*,?\s+)?(?:can|could|would|will)\s+you\s+(?:please\s+)?"
                             rf"(?P<rule>.+?)(?:\s*,?\s*(?:{_FROM_NOW_ON}))?\s*,?\s*(?:please)?\s*\?$",
                             re.IGNORECASE | re.DOTALL)
_STANDING_WORDS = re.compile(rf"\b(?:{_FROM_NOW_ON})\b", re.IGNORECASE)
_NOT_A_RULE = re.compile(r"^(?:don'?t|do not)\s+(?:worry|mention it|forget\b|let me forget)", re.IGNORECASE)


def agent_rule(said: Said) -> Fact | None:
    if _NOT_A_RULE.match(said.sentence):
        return None
    match = (_RULE.match(said.sentence) or _STANDING.match(said.sentence) or _WANT_YOU.match(said.sentence)
             or _STYLE.match(said.sentence))
    return None if match is None else _as_rule(match.group("rule"))


def standing_question(sentence: str) -> Fact | None:
    """The rule a question asks for from now on ("can you answer in German from now on?"); None for any other
    question, which keeps nothing."""
    match = _ASKED_STANDING.match(sentence) if _STANDING_WORDS.search(sentence) else None
    return None if match is None else _as_rule(" ".join(_STANDING_WORDS.sub("", match.group("rule")).split()))


def _as_rule(rule: str) -> Fact | None:
    rule = _second_person(rule)
    return Fact("permanent", rule) if meaningful(rule) >= 2 else None


def _second_person(rule: str) -> str:
    """An instruction as the agent keeps it: the person is "the user" in it, the agent stays "you"."""
    for pattern, replacement in ((r"\bme\b", "the user"), (r"\bmy\b", "the user's"), (r"\bI\b", "the user")):
        rule = re.sub(pattern, replacement, rule)
    return rule[:1].upper() + rule[1:]


_SELF_NAMED = re.compile(r"^(?:i'?m|i am)\s+(?P<word>(?-i:[A-Z])[\w'-]+)\s*[.!]?$", re.IGNORECASE)  # I'm Lena, Dutch
_CALL_ME = re.compile(r"^(?:please\s+)?(?:call me|you can call me|i go by)\s+(?P<name>[\w' -]{1,40}?)\s*[.!]?$",
                      re.IGNORECASE)
_IDENTITY = re.compile(
    r"^(?:i'?m|i am|i was|i've been|i have been)\s+(?:a|an|the)\s+\w+|"  # I'm a nurse
    r"^(?:i'?m|i am)\s+(?:from|based in|allergic|vegetarian|vegan|married|single|divorced|engaged|retired|"
    r"pregnant|\d+)\b|"
    r"^i\s+(?:(?:now|currently|still)\s+)?(?:live|work|study|teach|speak|grew up|was born|moved|"
    r"come from|have (?:a|an|two|three|four|\d+)\b)|"
    r"^my\s+(?:name|full name|pronouns|birthday|job|role|title|age|time ?zone|home|wife|husband|partner|"
    r"girlfriend|boyfriend|son|daughter|kids?|children|mom|mother|dad|father|parents|sister|brother|dog|cat|pet)"
    r"\b(?:\s+\w+)?\s+(?:is|are|was|were|'s)\b",
    re.IGNORECASE)


# A sentence naming a time (a year, or a relative time made absolute) tells of an event, not a lasting trait.
_TIMED = re.compile(r"\b(?:1[89]|20)\d{2}\b|"
                    r"\bthe (?:week|weekend|night|morning|afternoon|evening) (?:before|after|of)\b")


def identity(said: Said) -> Fact | None:
    name = _CALL_ME.match(said.sentence)
    if name is not None:
        return Fact("permanent", f"{said.subject}'s preferred name is {name.group('name').strip()}")
    named = _SELF_NAMED.match(said.sentence)
    if named is not None:
        return Fact("permanent", f"{said.subject} is {named.group('word')}")
    if not _IDENTITY.match(said.sentence) or _TIMED.search(said.sentence):
        return None
    text = said.about()
    return Fact("permanent", text) if text and meaningful(text) >= 2 else None


_PREFERENCE = re.compile(
    r"^i\s+(?:(?:really|much|generally|usually|also|still|absolutely|definitely|kind of|kinda|totally)\s+)*"
    r"(?:prefer|like|love|enjoy|hate|dislike|adore|can'?t stand|don'?t like|do not like|don'?t want|want)\b|"
    r"^i'?d (?:rather|prefer)\b|^i would (?:rather|prefer)\b|"
    r"^(?:i'?m|i am)\s+(?:a\s+(?:big\s+|huge\s+)?fan of|into|not into|not a fan of|obsessed with)\b|"
    r"^my\s+(?:favou?rite|preferred)\s+\w+(?:\s+\w+)?\s+(?:is|are)\b",
    re.IGNORECASE)


def preference(said: Said) -> Fact | None:
    if not _PREFERENCE.match(said.sentence) or _TIMED.search(said.sentence):
        return None
    text = said.about()
    return Fact("permanent", text) if text and meaningful(text) >= 2 else None


_DECISION = re.compile(r"^(?:so\s+)?(?:we|i)(?:'ve| have)?\s+(?:finally\s+)?(?:decided|agreed|chose|settled on|"
                       r"picked|went with)\b\s*(?P<rest>.*)$|"
                       r"^(?:ok(?:ay)?,?\s+|so,?\s+|alright,?\s+)?let'?s\s+"
                       r"(?P<verb>use|go with|stick with|keep|switch to|move to|try|adopt)\s+(?P<thing>.+)$",
                       re.IGNORECASE | re.DOTALL)
_SWITCH = re.compile(r"^(?:we|i)(?:'ve| have)?\s+(?:just\s+)?(?:switched|migrated|moved over|changed)\s+"
                     r"(?P<rest>(?:from\s+.+\s+)?to\s+.+)$|^we\s+(?:just\s+)?moved\s+(?P<moved>(?:from\s+.+\s+)?to\s+.+)$",
                     re.IGNORECASE | re.DOTALL)


def decision(said: Said) -> Fact | None:
    switch = _SWITCH.match(said.sentence)
    if switch is not None:
        rest = switch.group("rest") or switch.group("moved")
        return Fact("correction", said.named(f"Switched {_pronouns(rest, said)}"))
    match = _DECISION.match(said.sentence)
    if match is None:
        return None
    if match.group("thing"):
        verb = match.group("verb").lower()
        text = f"Decided to {verb} {_pronouns(match.group('thing'), said)}"
    else:
        text = f"Decided {_pronouns(match.group('rest'), said)}".strip()
    return Fact("durable", said.named(text)) if meaningful(text) >= 3 else None


_TASK = re.compile(r"^(?:(?:i|we)\s+(?:still\s+|really\s+|also\s+)?(?:need|have|got|must remember)\s+to|"
                   r"(?:i|we)\s+(?:must|should)|remind me to|don'?t let me forget to|don'?t forget to|"
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
    if said.day is not None and not re.search(r"\b\d{4}\b", text):
        text = f"{text.rstrip('.!')} on {day_text(said.day)}"
    return Fact("durable", said.named(text)) if meaningful(match.group("what")) >= 2 else None


_PLAIN = re.compile(r"^(?:i\b|i['’]|my\b|we\b|we['’]|our\b)", re.IGNORECASE)


def statement(said: Said) -> Fact | None:
    """Any other plain statement about the person (or their team): dated, in the third person."""
    if not _PLAIN.match(said.sentence) or meaningful(said.sentence) < 3:
        return None
    text = said.about()
    if text is None:  # "we" and "our": the team speaks; keep its words, say who reported them
        return Fact("durable", said.named(said.sentence))
    return Fact("durable", said.dated(text))


# What opens a request or a remark to the agent rather than a statement about the world.
_REQUEST = re.compile(r"^(?:can|could|would|will|shall|should|please|let|let's|lets|add|fix|make|show|tell|give|"
                      r"write|help|check|run|try|use|create|update|remove|delete|change|move|put|look|find|explain|"
                      r"read|work on|implement|continue|start|install|deploy|investigate|debug|refactor|rename|"
                      r"summari[sz]e|analy[sz]e|review|research|prepare|compare|translate|draft|generate|websearch|"
                      r"send|book|remind|ping|list|print|clean up|set up|look up|figure out|"
                      r"you|your|that|there|here|what|how|why|when|where|who|which|yes|no|sure|thanks?)\b"
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
    return Fact("durable", said.dated(said.named(sentence)))


def _pronouns(text: str, said: Said) -> str:
    """The person's pronouns inside a task or decision, pointing at them ("call my mom" → "call User's mom")."""
    owner = f"{said.subject}'s"
    for pattern, replacement in ((r"\bmy\b", owner), (r"\bme\b", said.subject), (r"\bmyself\b", said.subject)):
        text = re.sub(pattern, replacement, text, flags=re.IGNORECASE)
    return text


RULES: tuple[Callable[[Said], Fact | None], ...] = (correction, agent_rule, task, done, decision, identity,
                                                    preference, statement, named_fact)


def _first_fact(said: Said, skip: tuple[Callable[[Said], Fact | None], ...] = ()) -> Fact | None:
    for rule in RULES:
        if rule in skip:
            continue
        fact = rule(said)
        if fact is not None:
            return fact
    return None


# Words that lead into a statement without being part of it ("Also, I started …", "… by the way."), labels
# that announce one ("Some context first: …", "Quick note: …"), and an interjection or greeting before it
# ("Yeah, I …", "Hey Mel, I …", which small talk would otherwise drop whole): the statement after them is the fact.
_LEAD_IN = re.compile(r"^(?:(?:also|and|but|so|oh|well|anyway|anyways|by the way|btw|plus|ps|fyi|besides|honestly|"
                      r"quick update|update|fun fact|oh and|guess what|good news|big news|news)\b\s*[,:;!—–-]*\s*|"
                      r"(?:you know|i mean)\s*,\s*|"
                      r"(?:yeah|yes|yep|no|nope|ok(?:ay)?|sure|wow|haha+|lol|cool|great|nice|thanks?|thank you|"
                      r"(?:hi|hey|hello|(?:good\s+)?(?:morning|afternoon|evening))(?:\s+(?-i:[A-Z])[\w'-]+)?)"
                      r"\s*[,!.—–-]+\s+|"
                      r"(?:(?:some|a bit of|quick|one|one more|small|side|another)\s+)?"
                      r"(?:context|background|note|thing|heads[- ]up|reminder)(?:\s+first)?\s*:\s*)+",
                      re.IGNORECASE)
_TRAIL = re.compile(r"\s*,?\s*(?:by the way|btw|too|as well|haha|lol)\s*(?=[.!]*$)", re.IGNORECASE)


# A short time or place phrase before the person speaks of themselves: "From November I'll be …".
_SETTING = re.compile(r"^(?P<setting>(?i:from|since|in|on|at|by|after|before|during|until|next|last|this|every|"
                      r"yesterday|today|tomorrow|tonight|recently|lately|now|nowadays|these days|currently|still)"
                      r"\b[^,.!?]{0,40}?),?\s+"
                      r"(?P<rest>(?:I|I['’](?:m|ve|d|ll)|[Mm]y|[Ww]e|[Oo]ur)\b.+)$", re.DOTALL)
# What follows "so" or "because" when it is advice to the agent, not part of the fact: "…, so keep that in mind".
_ASIDE = re.compile(r",?\s+(?:so|because|which means)\s+(?=[^,]*\b(?:you|your|please|keep|remember|include|plan|"
                    r"make sure|open|tag|add|use|check|send|book|remind|tell|ask|let me know)\b)[^.!]*",
                    re.IGNORECASE)


# Words said for the conversation's sake, not the fact's: interjections, "you know", intensifiers. A negation
# or a number is never among them, so the fact's meaning stays; recall scores none of them.
_SPOKEN_FILLER = re.compile(r"(?P<before>,?)\s*\b(?P<word>you know|i mean|haha+|hehe+|lol|ugh|um+|uh|hmm+|honestly|"
                            r"basically|literally|actually|really|by the way|btw|to be honest|kind of|sort of)\b"
                            r"(?!['’-])\s*(?P<after>,?)(?P<end>\s*[.!]*$)?", re.IGNORECASE)
# What "kind of" follows when it hedges a verb ("I kind of run the shop"), not when it names a kind ("a new kind of").
_HEDGED = frozenset({"i", "we", "you", "he", "she", "they", "it", "i'm", "we're", "it's", "is", "am", "are", "was",
                     "were", "just", "really"})


def _unfilled(match: re.Match[str]) -> str:
    """A filler word out, unless it opens the sentence ("Actually, …" is a correction) or "kind of" names a kind;
    one comma beside it stays when a clause still follows, none when it stood between two ("X, you know, Y")."""
    before = match.string[:match.start()].split()
    if not before or match.group("word").lower() in ("kind of", "sort of") and before[-1].lower() not in _HEDGED:
        return match.group(0)
    one_comma = bool(match.group("before")) != bool(match.group("after"))
    return ", " if one_comma and match.group("end") is None else " "


def _without_spoken_filler(sentence: str) -> str:
    return " ".join(_SPOKEN_FILLER.sub(_unfilled, sentence).replace(" ,", ",").split())


# Emoji and emoticons: tone, not content ("I adopted a cat 😻", "see you then :)"); out before the rules read.
_EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]+|"
                    r"(?<!\S)(?:[:;=]-?[)(DPp]|xD|<3)(?!\S)")


def classify(sentence: str, speaker: str = "", day: date | None = None) -> Fact | None:
    """The fact a sentence states, or None for questions, hedges, small talk and sentences about others."""
    sentence = _EMOJI.sub("", sentence).strip().strip("\"'“”").strip()
    sentence = _without_spoken_filler(_TRAIL.sub("", _LEAD_IN.sub("", sentence)))
    if sentence.endswith("?"):
        return standing_question(sentence)
    if not sentence or small_talk(sentence) and not _STYLE.match(sentence):
        return None
    if not 2 <= len(sentence.split()) <= 60:
        return None
    spoken, sentence = sentence, absolute(sentence, day)
    setting = _SETTING.match(sentence)
    if setting is not None:  # said about oneself after all: the setting goes to the end
        rest = setting.group("rest").rstrip(".!")
        sentence = f"{rest} {setting.group('setting')[:1].lower()}{setting.group('setting')[1:]}."
    fact = _first_fact(Said(sentence, speaker, day, spoken))
    if fact is None or fact.tag == "permanent" and fact.text.startswith(("Always", "Never", "Don't", "Do not")):
        return fact  # a rule for the agent keeps its reasons
    return Fact(fact.tag, _without_filler(_ASIDE.sub("", fact.text)))


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _without_filler(text: str) -> str:
    """The fact without trailing asides that say nothing of their own (", so that's done", ", she cried")."""
    parts = text.rstrip(".!").split(", ")
    while len(parts) > 1 and len(parts[-1].split()) <= 4 and meaningful(parts[-1]) < 2:
        parts.pop()
    return ", ".join(parts)
