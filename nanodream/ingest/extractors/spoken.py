"""The words around what a person states that are not part of it: lead-ins and labels ("Also, …", "Quick note:
…"), spoken filler ("you know", "haha"), emoji, a name put in quotes, and a document's or a program's words named
as such ("According to the docs, …"). The rules read a sentence only once these are out (rules.py).
"""

from __future__ import annotations

import re

from nanodream.text.grammar import NO, speech, with_apostrophes

# Words that lead into a statement without being part of it ("Also, I started …", "… by the way."), labels
# that announce one ("Some context first: …", "Quick note: …"), and an interjection or greeting before it
# ("Yeah, I …", "Hey Mel, I …", which small talk would otherwise drop whole): the statement after them is the fact.
_LEAD_IN = re.compile(r"^(?:(?:also|and|but|so|oh|well|anyway|anyways|by the way|btw|plus|ps|fyi|besides|honestly|"
                      r"fun fact|oh and|guess what|for context|heads[- ]up|ugh|argh|oof|meh|sigh|phew|whew|yikes|"
                      r"for the record|for reference|fwiw|just so you know|just fyi)\b\s*[,:;!—–-]*\s*|"
                      r"(?:quick update|update|good news|big news|news)\s*[,:;!—–-]+\s*|"  # not "update the docs"
                      r"(?:you know|i mean)\s*,\s*|"
                      rf"(?:yeah|yes|yep|{NO}|nope|ok(?:ay)?|sure|wow|haha+|lol|cool|great|nice|good|perfect|fine|"
                      r"alright|awesome|excellent|wait|hmm+|ah|oh|thanks?|thank you|"
                      r"(?:hi|hey|hello|(?:good\s+)?(?:morning|afternoon|evening))(?:\s+there|\s+(?-i:[A-Z])[\w'-]+)?)"
                      r"\s*[,!.—–-]+\s+|"
                      r"(?:(?:some|a bit of|quick|one|one more|small|side|another)\s+)?"
                      r"(?:context|background|note|thing|heads[- ]up|reminder|rules?|important)(?:\s+first)?"
                      r"(?:\s*:|\s+[—–-])\s*|"  # "one more thing - don't ever …"
                      r"(?:keep in mind|remember|note to self|important)\s*:\s*|"
                      r"(?:please\s+)?(?:remember|keep in mind|note)(?:\s+that)?\s+(?=(?:my|i'm|i am)\s)|"
                      r"(?:[a-z]+\s+)?rule\s*(?:-|—|–)\s*|"  # "security rule- do not …", "golden rule — …"
                      r"(?:hi|hey|hello)\s+(?=(?:my\s+name|i['’]?m|i\s+am)\b))+",  # "hi my name is mateusz"
                      re.IGNORECASE)
_TRAIL = re.compile(r"\s*,?\s*(?:by the way|btw|too|as well|haha|lol|please|pls|plz"
                    r"|(?:it's\s+)?(?:nice|good|great|pleased)\s+to\s+meet\s+you)\s*(?=[.!]*$)", re.IGNORECASE)


def without_lead_in(sentence: str) -> str:
    """The sentence without the words that lead into it ("Also, …", "Hey Mel, …", "security rule- …")."""
    return _LEAD_IN.sub("", sentence.strip())


def names_a_source(fragment: str) -> bool:
    """Whether a sentence's opening clause, cut off at its comma ("According to the docs"), names what the
    words after it are from: a document's or a program's, not the person's."""
    return bool(_SOURCE.match(fragment)) and not fragment.rstrip().endswith((".", "!", "?"))

# What a document, a program or another model wrote, named before it: "From the docs: always call init() …",
# "The README says: …", "According to the docs, …" — their words, not a rule the person gives the agent.
_WRITTEN = (r"(?:official\s+)?(?:docs?|documentation|readme|wiki|manual|guide|spec|specification|article"
            r"|blog(?:\s+post)?|tutorial|book|website|error(?:\s+message)?|log|logs|output|warning|compiler|linter|stack\s*overflow"
            r"|chatgpt|gpt|gemini|copilot|other\s+(?:ai|model|agent))")
_SOURCE = re.compile(rf"^(?:according\s+to|as\s+per|per|copied\s+from|quot(?:e|ed|ing)(?:\s+from)?|from)\s+"
                     rf"(?:the|a|an|this|that|our|my|its|their)?\s*{_WRITTEN}\b|"
                     rf"^(?:the|a|an|this|that|our|my|its|their)?\s*{_WRITTEN}\s+"
                     rf"(?:{speech('report', 'base', 'third', 'past')}|reads|read|writes|wrote|states|stated)\b",
                     re.IGNORECASE)


def from_a_source(sentence: str) -> bool:
    """Whether a sentence gives what a document or a program says ("The README says: …"), not the person's words."""
    return bool(_SOURCE.match(sentence))


# Words said for the conversation's sake, not the fact's: interjections, "you know", intensifiers. A negation
# or a number is never among them, so the fact's meaning stays; recall scores none of them. "You know" is no
# filler where something is to be known: "I'll let you know", "do you know", "you know me very well".
_SPOKEN_FILLER = re.compile(r"(?P<before>,?)\s*\b(?P<word>(?<!\blet )(?<!\blets )(?<!\bdo )(?<!\bdid )(?<!\bif )"
                            r"you know(?!\s+(?:me|him|her|them|us|it|that|this|what|how|where|who|why|my|about)\b)"
                            r"|i mean|haha+|hehe+|lol|ugh|um+|uh|hmm+|honestly|basically|literally|actually"
                            r"|really|by the way|btw|to be honest|kind of|sort of)\b"
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


# Words a dictated sentence opens with before the person gets to it: "ok so quick thing I work as …".
_DICTATED_LEAD = re.compile(r"^(?:(?:ok(?:ay)?|so|well|um+|uh+|basically|quick thing|one thing|also|and|like|yeah|"
                            r"right|anyway)\s+)+(?=(?:I|I['’]m|my|we)\b)", re.IGNORECASE)
_LOWER_I = re.compile(r"(?<![\w'’-])i(?=(?:['’](?:m|ve|d|ll))?\b)")
# "im", "ive": "I'm", "I've" typed without the apostrophe ("id" and "ill" are words of their own).
_BARE_I = re.compile(r"(?<![\w'’-])[Ii](?P<rest>m|ve)\b")
# A name the person puts in quotes ("Call me "William"", "My name is 'Bill'"): the name, not someone's words.
_QUOTED_NAME = re.compile(r"\b(?P<naming>call me|name is|name's|i go by|i'm called|known as)\s+"
                          r"[\"'“‘«„](?P<name>[^\"'“”‘’«»\n]{1,40})[\"'”’»“]", re.IGNORECASE)

def plain(sentence: str) -> str:
    """The sentence as the rules read it: emoji, lead-ins, trailing asides and spoken filler out, a quoted name
    unquoted, "i" and "im" written "I" and "I'm"."""
    sentence = _QUOTED_NAME.sub(r"\g<naming> \g<name>", sentence)
    sentence = _LOWER_I.sub("I", _BARE_I.sub(r"I'\g<rest>", with_apostrophes(_EMOJI.sub("", sentence))).strip()
                            .strip("\"'“”").strip())
    return _DICTATED_LEAD.sub("", _without_spoken_filler(_TRAIL.sub("", _LEAD_IN.sub("", sentence))))
