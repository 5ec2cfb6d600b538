"""Corrections of how the agent behaves, read by transparent text rules: anti-patterns and complaints.

A `[correction]` that states a rule for the agent in a negative or either-or shape ("Don't use search_files
for content search, use grep"; "Never send an email without confirming the recipient"; "Use grep instead of
search_files") becomes one anti-pattern line, `Don't <X> — instead <Y> (<domain>)`, or `Don't <X>: <reason>`
when no alternative is given. A `[correction]` that reports the person's complaint about the agent (a quote,
or "User complained / told the agent / was annoyed …") is a sighting for the hypothesis lane: its rule (an
anti-pattern when it has that shape, else a preference in the person's words) is promoted after as many
sightings as its tone needs (see hypotheses.py). Everything else is a correction of a fact about the world.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nanodream.engines.routing import CONDITIONAL_CLAUSE, IMPERATIVES, instructs_agent
from nanodream.hypotheses import Tone, tone_of
from nanodream.text.grammar import DO_NOT, NEVER, NO, NOT, OBLIGATION, WITHOUT, not_after, speech
from nanodream.text.stems import singular
from nanodream.text.verbs import PAST_FORMS, base_verb
from nanodream.text.words import content_words, jaccard, similarity

ANTI_PATTERNS = "Anti-patterns"
DONT = "Don't"  # how an anti-pattern line opens, and how one is read back (parse_line)
# A line naming the agent's conduct without an instruction shape still is about it when it speaks of these.
_CONDUCT_WORDS = frozenset({
    "agent", "assistant", "you", "your", "answer", "answers", "reply", "replies", "response", "responses",
    "message", "messages", "summary", "summaries", "explanation", "explanations", "tone", "bullet", "bullets",
    "emoji", "emojis", "paragraph", "paragraphs", "wording", "format", "formatting", "language", "output",
})

# what was said -------------------------------------------------------------------------------------------------

_SUBJECT = r"(?:(?i:the\s+)?(?i:user|person|owner|human|client)|(?!Agent\b|Assistant\b|The\b)[A-Z][a-z]+)"
_SPEECH = (
    rf"(?i:{speech('report', 'third', 'past')}|(?:was|is|got|gets|seemed|became)\s+(?:\w+\s+)?"
    r"(?:annoyed|frustrated|upset|irritated|angry|unhappy|displeased|fed\s+up))"
)
_REPORT = re.compile(rf"^{_SUBJECT}\s*(?:\([^)]*\)\s*|,[^,]*,\s*)?(?i:has\s+|had\s+)?(?:\w+ly\s+)?(?i:again\s+)?"
                     rf"(?P<verb>{_SPEECH})\b\s*(?P<rest>.*)$", re.DOTALL)
# Reporting verbs that make a line a request or a complaint to the agent, whatever it is about.
_ASKING = re.compile(rf"^(?:{speech('request', 'third', 'past')}|was|is|got|gets|seemed|became)\b", re.IGNORECASE)
_QUOTE = re.compile(r"[\"“„«](?P<quote>[^\"”“«»]{3,})[\"”»]")
# What may stand before a quote that reports the person's words: nothing, or who said it and how.
_BEFORE_QUOTE = re.compile(rf"^(?:|.*\b{_SPEECH}.*|{_SUBJECT}\s*:?)\s*[:,]?\s*$", re.IGNORECASE | re.DOTALL)
_TO_YOU = re.compile(r"^you\s+(?!(?:must|should|shall|need|have\s+to|may|can|are\s+to)\b)", re.IGNORECASE)
_LEAD_IN = re.compile(
    r"^(?:(?:again|once\s+more|twice|repeatedly|angrily|politely|firmly|gently|please|kindly)\b[\s,]*|"
    r"(?:to|at|with)\s+(?:the\s+)?(?:agent|assistant)\b[\s,]*|"
    rf"(?:the\s+)?(?:agent|assistant)\b(?=[\s,]+(?:please|kindly|again|to|{NOT}|that)\b|\s*:)|"
    r"that\b|about\b|because\b|when\b|since\b|[:,;—–-]+)\s*",
    re.IGNORECASE,
)
# Words a complaint wraps its point in: they say how, not what.
_FLUFF = re.compile(
    rf"^(?:(?:i\s+(?:have\s+|'ve\s+)?(?:already\s+)?{speech('addressed', 'past')}\s+you"
    r"(?:\s+(?:before|already|this|twice))?|"
    rf"as\s+i\s+{speech('repeat', 'past')}(?:\s+you)?(?:\s+before)?|for\s+the\s+\w+\s+time|seriously|please|pls|"
    rf"ugh|{NO}(?=\s*[,.!:;—–-])|again|okay|ok|look|hey|honestly|i\s+said|listen)\b[\s,.!:;—–-]*)+",
    re.IGNORECASE,
)
_TRAILING = re.compile(r"(?:[\s,]*\b(?:again|please|already|for\s+once|next\s+time|from\s+now\s+on)\b)*[\s.!?,;:]*$",
                       re.IGNORECASE)


@dataclass(frozen=True)
class Said:
    """A correction as the person meant it: the point, whether it was reported, and in which tone."""

    content: str
    reported: bool  # a quote or a paraphrase of the person's complaint: evidence, not a stated rule
    tone: Tone
    asking: bool = False  # reported as a request or a complaint ("asked for …", "complained that …")


def read_correction(text: str) -> Said:
    """The point of a [correction] line, told apart from its wrapping ("User said: '…'", "I told you…")."""
    first = _QUOTE.search(text)
    if first is not None and _BEFORE_QUOTE.match(text[: first.start()]):
        return Said(clean(" ".join(m.group("quote") for m in _QUOTE.finditer(text))), True, tone_of(text))
    report = _REPORT.match(text.strip())
    if report is None:  # "You keep …" speaks to the agent in the person's voice; "You must …" states a rule
        spoken = _TO_YOU.match(text.strip()) is not None
        return Said(clean(text), spoken, tone_of(text))
    content, previous = report.group("rest"), None
    while previous != content:
        previous, content = content, _LEAD_IN.sub("", content.strip(), count=1)
    content = re.sub(rf"^{NOT}\s+to\s+", "don't ", re.sub(r"^to\s+", "", content, flags=re.I), flags=re.I)
    return Said(clean(content), True, tone_of(text), bool(_ASKING.match(report.group("verb"))))


# A mild wish that the agent not do something, said in other words: "I'd rather you didn't paste whole logs",
# "I'd prefer it if you didn't …", "would you mind not pasting …", "could you maybe stop adding …", "whether the
# agent could perhaps not …". Its point is a "don't": read as one, its tone stays mild.
_WISH_NOT = re.compile(
    r"^(?:i['’]?d|i\s+would)\s+(?:rather|prefer(?:\s+it)?(?:\s+if)?|like\s+it\s+if)\s+(?:you|the\s+agent)\s+"
    rf"(?:{not_after('did', 'do', 'would')}|{NOT}|{NEVER})\s+|"
    r"^(?:would|could|can)\s+(?:you|the\s+agent)\s+(?:please\s+)?(?:mind\s+)?(?:maybe\s+|perhaps\s+|possibly\s+)?"
    rf"(?:{NOT}|stop|avoid)\s+|"
    r"^(?:whether|if)\s+(?:you|the\s+agent)\s+(?:could|would|might)\s+(?:please\s+)?(?:maybe\s+|perhaps\s+)?"
    rf"(?:{NOT}|stop|avoid)\s+",
    re.IGNORECASE,
)
_HEDGES = re.compile(rf"\b(?:maybe|perhaps|possibly|kindly|just)\s+(?=(?:stop|{NOT}|avoid|{DO_NOT})\b)", re.IGNORECASE)


def clean(content: str) -> str:
    """The point without its emphasis: "I told you, stop pasting logs!!" → "stop pasting logs"; a mild wish
    ("I'd rather you didn't paste whole logs") → "don't paste whole logs"."""
    content = _TRAILING.sub("", _FLUFF.sub("", " ".join(content.split())))
    wish = _WISH_NOT.match(content)
    if wish is not None:
        rest = content[wish.end():]
        words = rest.split(maxsplit=1)
        verb = base_verb(words[0]) if words and words[0].lower().endswith("ing") else (words[0] if words else "")
        content = f"don't {' '.join([verb, *words[1:]])}"
    content = _HEDGES.sub("", content)
    if content == content.upper():  # shouted: said again in plain case
        return content.lower()
    first = content.split(maxsplit=1)[0] if content else ""
    return content if first.isupper() and len(first) > 1 else content[:1].lower() + content[1:]


def about_conduct(said: Said) -> bool:
    """A correction of how the agent behaves, not of a fact about the world."""
    if anti_pattern(said.content, complaint=said.reported) is not None:
        return True
    if not said.reported:
        return False
    return said.asking or instructs_agent(said.content) or bool(content_words(said.content) & _CONDUCT_WORDS)


# anti-patterns ----------------------------------------------------------------------------------------------

_NEGATIVE = re.compile(
    rf"^(?:(?:the\s+)?(?:agent|assistant|you)\s+(?:(?:should|must|shall)\s+{NEVER}"
    rf"|{not_after('should', 'must', 'shall', 'may', 'can', 'need')}|(?:is|are)\s+{NOT}\s+to)"
    rf"|(?:please\s+)?{DO_NOT}(?:\s+ever)?|{NEVER}|stop|quit|avoid|{NO}\s+(?:more|longer))\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
# "For HTTP checks the agent should …", "In this repo, never …": where a rule applies, not what it says.
_SCOPE = re.compile(r"^(?:for|in|on|during|with)\s+[^,]{1,60}?(?:,\s*|\s+(?=(?:the\s+)?(?:agent|assistant|you)\b))",
                    re.IGNORECASE)
_AGENT_OUGHT = re.compile(rf"^(?:the\s+)?(?:agent|assistant|you)\s+{OBLIGATION}(?:\s+always)?\s+(?!{NOT}\b|{NEVER}\b)",
                          re.IGNORECASE)
_INSTEAD_OF = re.compile(
    rf"^(?:always\s+)?(?P<verb>\w+)\s+(?P<y>.+?)(?:,\s*|\s+)(?:instead\s+of|rather\s+than|and\s+{NOT}|{NOT}|over)\s+"
    r"(?P<x>.+)$",
    re.IGNORECASE,
)
_DID_INSTEAD = re.compile(
    r"^(?:the\s+)?(?:agent|assistant|you)\s+(?:(?:kept|keeps|keep)\s+)?(?P<verb>\w+)\s+(?P<x>.+?)\s+"
    r"(?:instead\s+of|rather\s+than)\s+(?P<y>.+)$",
    re.IGNORECASE,
)
_DID = re.compile(r"^(?:the\s+)?(?:agent|assistant|you)\s+(?:(?:kept|keeps|keep)\s+)?(?P<verb>\w+(?:ed)|"
                  + "|".join(sorted(PAST_FORMS, key=len, reverse=True)) + r")\s+(?P<x>.+)$", re.IGNORECASE)
_SEPARATOR = r"\s*(?:[,;:]|—|–|\s-\s)\s*"
_ALTERNATIVE = re.compile(
    rf"^(?P<x>.+?)(?:{_SEPARATOR}(?:and\s+|but\s+)?(?:instead|rather)\b[,:]?\s*|{_SEPARATOR}(?=.+\s(?:instead|rather)"
    rf"[\s.!]*$)|{_SEPARATOR}(?:and\s+|but\s+|just\s+)?"
    r"(?=(?:always|use|try|prefer|ask|check|confirm|run|call|search|write|send|wait|keep|put|read|link|show|reply|"
    r"answer|go|pick|choose|stick|default|switch|tell|mention|say|summari[sz]e|attach|open|do)\b)|\s+but\s+|"
    r"\s+(?:instead|rather)\s*,?\s+)(?P<y>.+)$",
    re.IGNORECASE,
)
_REASON = re.compile(rf"^(?P<x>.+?)(?:{_SEPARATOR}|\s+)(?:(?:because|since|as)\b\s*(?P<r>.+)|"
                     r"(?P<said>(?:it|they|that|this)(?:['’]s|['’]re|\s+is|\s+are|\s+was|\s+were|\s+makes?)\b.+))$",
                     re.IGNORECASE)
# After a colon or a dash, what is not an alternative is the reason: "Don't force-push: it rewrites history".
_SAID_WHY = re.compile(r"^(?P<x>.+?)\s*(?::|—|–|\s-\s)\s*(?P<said>.+)$")
_INSTEAD_END = re.compile(r"\s+(?:instead|rather)[\s.!]*$", re.IGNORECASE)
_WITHOUT = re.compile(rf"\b{WITHOUT}\s+(?P<gerund>\w+ing)\s+(?P<object>.+)$", re.IGNORECASE)
_DOMAINS = (
    ("search", {"search", "searching", "grep", "rg", "ripgrep", "find", "search_files", "lookup", "look"}),
    ("email", {"email", "emails", "mail", "inbox", "recipient", "recipients", "cc", "bcc", "newsletter"}),
    ("git", {"git", "commit", "commits", "branch", "push", "merge", "rebase", "main", "pull", "pr"}),
    ("files", {"file", "files", "folder", "folders", "directory", "delete", "rm"}),
    ("shell", {"shell", "command", "commands", "terminal", "bash", "sudo", "script", "scripts"}),
    ("tests", {"test", "tests", "pytest", "ci", "coverage"}),
    ("deploys", {"deploy", "deploys", "release", "production", "prod", "staging", "server", "restart"}),
    ("calendar", {"calendar", "meeting", "meetings", "invite", "invites", "schedule"}),
    ("answers", {"answer", "answers", "reply", "replies", "response", "responses", "summary", "summaries",
                 "bullet", "bullets", "emoji", "emojis", "paragraph", "paragraphs", "english", "tone", "words"}),
    ("chat", {"chat", "message", "messages", "slack", "telegram", "paste", "logs", "log"}),
    ("data", {"database", "sql", "migration", "migrations", "table", "tables", "query", "queries"}),
    ("payments", {"pay", "payment", "payments", "invoice", "invoices", "bank", "money"}),
    ("credentials", {"password", "passwords", "token", "tokens", "key", "keys", "secret", "secrets"}),
)
_ANTI_LINE = re.compile(rf"^{re.escape(DONT)}\s+(?P<x>.+?)(?:\s+—\s+instead\s+(?P<y>.+?)\s+\((?P<domain>[^()]+)\)"
                        r"|:\s+(?P<r>.+?))\s*(?:<!--.*)?$", re.IGNORECASE)


@dataclass(frozen=True)
class AntiPattern:
    avoid: str
    instead: str = ""
    reason: str = ""
    domain: str = ""

    def line(self, default_reason: str = "the user corrected this") -> str:
        """`Don't <X> — instead <Y> (<domain>)`, or `Don't <X>: <reason>` when there is no alternative."""
        if self.instead:
            return f"{DONT} {self.avoid} — instead {self.instead} ({self.domain or 'general'})"
        return f"{DONT} {self.avoid}: {self.reason or default_reason}"

    def same_as(self, other: AntiPattern) -> bool:
        """The same thing to avoid, in other words: the newer line replaces the older one in place."""
        return similarity(self.avoid, other.avoid) >= SAME_AVOID


SAME_AVOID = 0.5


def anti_pattern(content: str, domain: str = "", *, complaint: bool = False) -> AntiPattern | None:
    """The anti-pattern a correction states, or None when it has no negative or either-or shape.

    A `complaint` (the person's words, reported) may also just say what the agent did ("you pasted the
    whole log again"): that is what to avoid.
    """
    content = _AGENT_OUGHT.sub("", _SCOPE.sub("", content.strip().rstrip(".!")))
    if not _EITHER_OR_WORDS.search(content):  # "you keep using X instead of Y" is read as what the agent did
        content = _KEEPS_DOING.sub("stop ", content)  # "you keep pasting logs" asks the agent to stop
    condition = CONDITIONAL_CLAUSE.match(content)  # "When searching code, use rg rather than grep"
    rest = content[condition.end():] if condition else content
    found = (_negative(rest) or _either_or(rest) or _instead_of_first(rest) or _did_should(rest)
             or (_did(rest) if complaint else None))
    if found is None or not content_words(found.avoid):
        return None
    avoid = f"{found.avoid} {condition.group(0).strip(' ,').lower()}" if condition else found.avoid
    return AntiPattern(avoid, found.instead, found.reason, domain_of(found, domain))


def _negative(content: str) -> AntiPattern | None:
    match = _NEGATIVE.match(content)
    if match is None:
        return None
    rest = match.group("rest")
    words = rest.split(maxsplit=1)
    verb = words[0].lower() if words else ""
    if verb.endswith("ing"):  # "stop pasting logs", "avoid using X"
        rest = " ".join([base_verb(words[0]), *words[1:]])
    elif content.lower().startswith("no ") and verb not in IMPERATIVES:
        return None  # "no more emojis" names a thing, not a deed: a preference (see preference_from)
    if (alternative := _ALTERNATIVE.match(rest)) is not None:
        avoid, instead = _trimmed(alternative.group("x")), _trimmed(_INSTEAD_END.sub("", alternative.group("y")))
        return AntiPattern(avoid, _with_verb(instead, avoid))
    if (reason := _REASON.match(rest) or _SAID_WHY.match(rest)) is not None:
        why = reason.groupdict().get("r") or reason.group("said")
        return AntiPattern(_trimmed(reason.group("x")), reason=_trimmed(why))
    if (without := _WITHOUT.search(rest)) is not None:
        done_first = re.sub(r"\s+(?:first|beforehand|before)$", "", _trimmed(without.group("object")), flags=re.I)
        first = f"{base_verb(without.group('gerund'))} {done_first} first"
        return AntiPattern(_trimmed(rest), first)
    return AntiPattern(_trimmed(rest))


def _either_or(content: str) -> AntiPattern | None:
    """"Use grep instead of search_files", "Use grep, not search_files" (an imperative verb first)."""
    match = _INSTEAD_OF.match(content)
    if match is None or match.group("verb").lower() not in IMPERATIVES:
        return None
    verb = match.group("verb").lower()
    return AntiPattern(f"{verb} {_trimmed(match.group('x'))}", f"{verb} {_trimmed(match.group('y'))}")


_EITHER_OR_WORDS = re.compile(r"\b(?:instead\s+of|rather\s+than)\b", re.IGNORECASE)
_KEEPS_DOING = re.compile(r"^(?:the\s+)?(?:agent|assistant|you)\s+(?:keeps?|kept)\s+(?:on\s+)?(?=\w+ing\b)",
                          re.IGNORECASE)
_INSTEAD_OF_FIRST = re.compile(r"^instead\s+of\s+(?P<x>.+?),\s*(?P<y>.+)$", re.IGNORECASE)
_DID_SHOULD = re.compile(
    r"^(?:the\s+)?(?:agent|assistant|you)\s+(?P<verb>\w+)\s+(?P<x>.+?)\s*[;,.:—–]\s*(?:but\s+)?(?:it|the\s+agent|"
    r"agent|you|the\s+assistant)\s+should(?:\s+have)?\s+(?P<y>.+)$",
    re.IGNORECASE,
)


def _instead_of_first(content: str) -> AntiPattern | None:
    """"Instead of search_files, use grep": the alternative lends its verb to what to avoid."""
    match = _INSTEAD_OF_FIRST.match(content)
    if match is None:
        return None
    instead = _trimmed(match.group("y"))
    verb = instead.split(maxsplit=1)[0].lower() if instead else ""
    x = _trimmed(match.group("x")).split(maxsplit=1)
    if x and x[0].lower().endswith("ing"):  # "Instead of guessing the time zone, ask"
        return AntiPattern(" ".join([base_verb(x[0]), *x[1:]]), instead)
    return AntiPattern(f"{verb} {' '.join(x)}" if verb in IMPERATIVES else " ".join(x), instead)


def _did_should(content: str) -> AntiPattern | None:
    """A stated correction of what the agent did: "The agent used search_files; it should have used grep"."""
    match = _DID_SHOULD.match(content)
    if match is None or base_verb(match.group("verb")) == match.group("verb").lower():
        return None  # "the agent needs …" is no past deed
    instead = _trimmed(match.group("y"))
    words = instead.split(maxsplit=1)
    if words:
        instead = " ".join([base_verb(words[0]), *words[1:]])
    return AntiPattern(f"{base_verb(match.group('verb'))} {_trimmed(match.group('x'))}", instead)


def _did(content: str) -> AntiPattern | None:
    """A complaint about what the agent did: "the agent used search_files instead of grep", "you pasted logs"."""
    match = _DID_INSTEAD.match(content)
    if match is not None:
        verb = base_verb(match.group("verb"))
        return AntiPattern(f"{verb} {_trimmed(match.group('x'))}", f"{verb} {_trimmed(match.group('y'))}")
    match = _DID.match(content)
    if match is None:
        return None
    return AntiPattern(f"{base_verb(match.group('verb'))} {_trimmed(match.group('x'))}")


def _trimmed(text: str) -> str:
    return _TRAILING.sub("", text.strip().strip("\"'“”")).strip()


def _with_verb(instead: str, avoid: str) -> str:
    """"grep" after "use search_files" reads "use grep": an alternative without a verb borrows the avoided one."""
    first = instead.split(maxsplit=1)[0].lower() if instead else ""
    avoid_verb = avoid.split(maxsplit=1)[0].lower() if avoid else ""
    if first in IMPERATIVES or first.endswith("ing") or not avoid_verb or avoid_verb not in IMPERATIVES:
        return instead
    return f"{avoid_verb} {instead}"


def domain_of(found: AntiPattern, fallback: str = "") -> str:
    """The area an anti-pattern is about, from its words (search, email, git, …), else `fallback`, else general."""
    said = set(re.findall(r"[\w_]+", f"{found.avoid} {found.instead}".lower()))
    scored = [(len(said & words), -rank, name) for rank, (name, words) in enumerate(_DOMAINS)]
    best = max(scored)
    return best[2] if best[0] else (fallback or "general")


def parse_line(line: str) -> AntiPattern | None:
    """An anti-pattern line read back (its bullet, markers and trailing dot aside), None for any other line."""
    text = re.sub(r"^\s*[-*+]\s+", "", line).strip()
    match = _ANTI_LINE.match(text.rstrip("."))
    if match is None:
        return None
    return AntiPattern(match.group("x"), match.group("y") or "", match.group("r") or "", match.group("domain") or "")


# complaints without a rule's shape -------------------------------------------------------------------------

_FOR = re.compile(r"^for\s+(?P<np>.+)$", re.IGNORECASE)
_COULD_YOU = re.compile(r"^(?:whether|if)\s+(?:the\s+agent|the\s+assistant|it|you)\s+(?:could|would|can|might)\s+"
                        r"(?:please\s+)?(?!be\b)(?P<deed>.+)$", re.IGNORECASE)
_COULD_BE = re.compile(r"^(?:(?:it\s+)?would\s+be\s+(?:nice|better|great|good)\s+)?(?:whether|if|that|when)\s+"
                       r"(?:the\s+|your\s+)?(?P<np>.+?)\s+(?:(?:could|can|would|might|should)\s+be|were|was)\s+"
                       r"(?:a\s+(?:bit|little)\s+|more\s+|slightly\s+|much\s+)?(?P<adj>.+)$", re.IGNORECASE)
_I_PREFER = re.compile(r"^(?:i|they|he|she)(?:['’]d|\s+would)?\s+(?:rather|prefer|like|love|want)(?:\s+(?:to\s+)?have)?"
                       r"\s+(?P<x>.+)$", re.IGNORECASE)
_I_DISLIKE = re.compile(rf"^i\s+{DO_NOT}\s+(?:want|like)\s+(?P<x>.+)$|^i\s+(?:hate|dislike)\s+(?P<y>.+)$",
                        re.IGNORECASE)
_NO = re.compile(rf"^{NO}\s+(?:more\s+)?(?P<np>.+)$", re.IGNORECASE)
_STATEMENT = re.compile(r"\b(?:is|are|was|were|seems?|looks?|feels?|gets?|got)\b", re.IGNORECASE)


def preference_from(content: str) -> str | None:
    """A complaint in the person's words as a preference line, None when nothing usable is left.

    "keep answers short" → "Wants the agent to keep answers short"; "for shorter answers" or "I'd rather have
    shorter answers" → "Prefers shorter answers"; "I hate emojis" → "Dislikes emojis"; "no emojis" → "Doesn't
    want emojis"; "the answers are too long" → "Dislikes it when the answers are too long"; "long answers" →
    "Dislikes long answers".
    """
    if "?" in content:
        return None  # a question says what bothered the person, not what they want
    content = _trimmed(content)
    if not content_words(content):
        return None
    if (asked := _COULD_YOU.match(content)) is not None:  # "if the agent could use metric units"
        return f"Wants the agent to {_trimmed(asked.group('deed'))}"
    if (hedged := _COULD_BE.match(content)) is not None:  # "whether answers could be a bit shorter"
        return f"Prefers {_trimmed(hedged.group('adj'))} {_trimmed(hedged.group('np'))}"
    if (wanted := _FOR.match(content) or _I_PREFER.match(content)) is not None:
        return f"Prefers {_trimmed(wanted.group(wanted.lastgroup or 1))}"
    if (unwanted := _I_DISLIKE.match(content)) is not None:
        return f"Dislikes {_trimmed(unwanted.group('x') or unwanted.group('y'))}"
    if (unwanted := _NO.match(content)) is not None:
        return f"Doesn't want {_trimmed(unwanted.group('np'))}"
    if instructs_agent(content):
        return f"Wants the agent to {content[:1].lower() + content[1:]}"
    if _STATEMENT.search(content):
        return f"Dislikes it when {content}"
    return f"Dislikes {content}"


# opposites ------------------------------------------------------------------------------------------------

_POLARITY = re.compile(rf"\b(?:{NOT}|{NO}|{NEVER}|{not_after('do', 'does')}|avoid|dislikes?|hates?|stop)\b",
                       re.IGNORECASE)
_POLARITY_WORDS = frozenset({"not", "no", "never", "dont", "don", "doesnt", "doesn", "t", "avoid", "dislike",
                             "dislikes", "hate", "hates", "stop", "like", "likes", "wants", "want", "prefers",
                             "prefer", "agent", "user", "it", "when"})
OPPOSITE_SHARE = 0.6
SAME_PREFERENCE = 0.5


# Words that frame a preference rather than name it: "Wants the agent to keep answers short" is about answers.
_FRAMING = _POLARITY_WORDS | {"wants", "want", "agent", "keep", "have", "be", "more", "less", "please",
                              "always", "doesnt", "doesn", "dont"}


# The few words complaints about answers use most, folded to one: "replies too long" is "shorter answers".
_SYNONYMS = {word: canon for canon, words in (
    ("short", {"short", "shorter", "brief", "briefer", "concise", "terse", "succinct", "compact"}),
    ("answer", {"answer", "answers", "reply", "replies", "response", "responses"}),
) for word in words}
_TOO_LONG = re.compile(r"\btoo\s+(?:long|lengthy|verbose|wordy)\b", re.IGNORECASE)


def _about(text: str, ignored: frozenset[str]) -> set[str]:
    """What a preference is about: its words folded to one form, "too long" read as its opposite, "short"."""
    folded = _TOO_LONG.sub("short", text)
    return {singular(_SYNONYMS.get(word, word)) for word in content_words(folded) - ignored}


def _polarity(text: str) -> int:
    """1 when the line says it the negative way round (dislikes, never, too long …), else 0."""
    return (len(_POLARITY.findall(text)) + len(_TOO_LONG.findall(text))) % 2


def same_preference(a: str, b: str) -> bool:
    """The same preference in other words: most of what it is about shared, and said the same way round."""
    return jaccard(_about(a, _FRAMING), _about(b, _FRAMING)) >= SAME_PREFERENCE and _polarity(a) == _polarity(b)


def opposite(a: str, b: str) -> bool:
    """Two lines about the same thing with opposite polarity ("Dislikes bullet points" / "Likes bullet points")."""
    same_thing = jaccard(_about(a, _POLARITY_WORDS), _about(b, _POLARITY_WORDS)) >= OPPOSITE_SHARE
    return same_thing and _polarity(a) != _polarity(b)
