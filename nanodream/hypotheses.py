"""Hypothesis lines: preferences inferred but never stated, kept marked until the evidence is enough.

A hypothesis is an ordinary bullet with a visible marker, `- Prefers short answers <!-- hypothesis: 1 of 2,
mild -->`: how many separate sightings point to it, how many its tone needs, and the tone of the person's
strongest correction. Annoyance shortens the wait: a strong correction (repeated, "I told you", "stop…", all
caps, "!!") is enough once, a mild one ("please don't…", "I'd rather…") twice, anything else three times. At
that count the marker goes and the line is a plain preference. A hypothesis whose evidence went away
(forgotten, restored away, contradicted) is marked `stale since DAY` and leaves active memory after
`archive_after_days`. A preference that lets the agent act on payments, credentials, security or sharing
personal data carries `<!-- ask-first -->` whatever its state, so an agent confirms before acting on it.

Pure text rules, shared by the engines, the person's decisions (`nanodream hypotheses`) and the prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from enum import StrEnum

from nanodream.text.grammar import NO, NOT, PROHIBITION, speech


class Tone(StrEnum):
    """How the person said it; the order is from the most to the least evidence per sighting."""

    STRONG = "strong"
    MILD = "mild"
    NEUTRAL = "neutral"


# Sightings a tone needs before the line is promoted to a plain preference.
THRESHOLD = {Tone.STRONG: 1, Tone.MILD: 2, Tone.NEUTRAL: 3}
PROMOTE_AT = THRESHOLD[Tone.NEUTRAL]
ASK_FIRST = "<!-- ask-first -->"

# `<!-- hypothesis: 2 -->` (the original form: neutral), `<!-- hypothesis: 1 of 2, mild -->`,
# `<!-- hypothesis: 2 of 3, neutral, stale since 2026-11-02 -->`.
MARKER = re.compile(
    r"\s*<!--\s*hypothesis:\s*(?P<count>\d+)(?:\s+of\s+\d+)?(?:\s*,?\s*(?P<tone>strong|mild|neutral))?"
    r"(?:\s*,?\s*stale(?:\s+since)?\s+(?P<stale>\d{4}-\d{2}-\d{2}))?\s*-->",
    re.IGNORECASE,
)
_ASK_FIRST = re.compile(r"\s*<!--\s*ask-first\s*-->", re.IGNORECASE)


@dataclass(frozen=True)
class Hypothesis:
    """What a line's marker says."""

    count: int
    tone: Tone
    stale_since: date | None = None

    @property
    def needed(self) -> int:
        return THRESHOLD[self.tone]

    @property
    def stale(self) -> bool:
        return self.stale_since is not None

    def sighted(self, tone: Tone) -> Hypothesis:
        """One more sighting, said in `tone`: the count rises, the strongest tone so far counts, it is fresh again."""
        return Hypothesis(self.count + 1, strongest(self.tone, tone))

    @property
    def due(self) -> bool:
        """Enough fresh evidence: the marker should go (a stale line keeps it until a person or new evidence acts)."""
        return self.count >= self.needed and not self.stale

    def marker(self) -> str:
        stale = f", stale since {self.stale_since.isoformat()}" if self.stale_since else ""
        return f"<!-- hypothesis: {self.count} of {self.needed}, {self.tone}{stale} -->"


def parse(line: str) -> Hypothesis | None:
    """The marker of a hypothesis line, None for a stated fact. An unreadable stale day counts as not stale."""
    match = MARKER.search(line)
    if match is None:
        return None
    tone = Tone((match.group("tone") or Tone.NEUTRAL).lower())
    try:
        stale = date.fromisoformat(match.group("stale")) if match.group("stale") else None
    except ValueError:
        stale = None
    return Hypothesis(int(match.group("count")), tone, stale)


def evidence(line: str) -> int | None:
    """The evidence count of a hypothesis line, None for a stated fact."""
    found = parse(line)
    return found.count if found is not None else None


def without_marker(line: str) -> str:
    """The line as a stated fact: the hypothesis marker (and the space before it) removed; ask-first stays."""
    return MARKER.sub("", line).rstrip()


def with_hypothesis(line: str, hypothesis: Hypothesis | None) -> str:
    """`line` carrying `hypothesis` (None, or one that is due: a plain line), an ask-first marker kept last."""
    text = _ASK_FIRST.sub("", without_marker(line)).rstrip()
    if hypothesis is not None and not hypothesis.due:
        text = f"{text} {hypothesis.marker()}"
    return f"{text} {ASK_FIRST}" if asked_first(line) else text


def marked(text: str, count: int, tone: Tone = Tone.NEUTRAL) -> str:
    """`text` written as a hypothesis with `count` sightings in `tone` (plain once that is enough)."""
    return with_hypothesis(text, Hypothesis(count, tone))


def strongest(*tones: Tone) -> Tone:
    return min(tones, key=lambda tone: THRESHOLD[tone])


# tone ------------------------------------------------------------------------------------------------------

# Any reference to having said it before, or words of annoyance: one sighting is enough.
_SAID_BEFORE = speech("repeat", "past")  # "told", "said", "asked", "mentioned"
_REPEATED = re.compile(
    rf"\b(?:again|(?:i|we)(?:'ve|\s+have)?\s+(?:already\s+)?{_SAID_BEFORE}|as\s+(?:i|we)\s+"
    rf"{_SAID_BEFORE}|how\s+many\s+times|for\s+the\s+(?:last|second|third|\w+th)\s+time|"
    rf"once\s+more|repeated(?:ly)?|keeps?\s+(?:doing|making|using|forgetting)|still\s+(?:doing|{NOT})|"
    r"annoyed|annoying|frustrat\w*|irritat\w*|angry|angrily|furious|fed\s+up|snapped|exasperat\w*|"
    r"stop\s+\w+ing)\b|(?:^|[\"'“‘:]\s*)stop\b",
    re.IGNORECASE,
)
_POLITE = re.compile(
    r"\b(?:please|pls|i'?d\s+(?:rather|prefer)|i\s+would\s+(?:rather|prefer)|(?:would|could)\s+you|"
    r"would\s+be\s+(?:nice|better|great)|if\s+possible|if\s+you\s+can|maybe|perhaps|gently|politely|"
    rf"mildly|kindly|a\s+(?:bit|little)|slightly|would\s+you\s+mind|rather\s+{NOT}|prefer\s+{NOT})\b",
    re.IGNORECASE,
)
_CAPS_WORD = re.compile(r"\b[A-Z][A-Z']{2,}\b")
# Upper-case words that are names, not shouting.
_ACRONYMS = frozenset({
    "API", "APIS", "URL", "URLS", "SSH", "CLI", "PDF", "CSV", "JSON", "YAML", "TOML", "HTML", "HTTP", "HTTPS",
    "SQL", "AWS", "GCP", "DNS", "TLS", "SSL", "VPN", "CPU", "GPU", "RAM", "UTC", "CET", "EUR", "USD", "GBP",
    "README", "TODO", "FAQ", "ETA", "ASAP", "LLM", "MCP", "IDE", "SDK", "JWT", "UUID", "EOD", "PST", "EST",
})


def tone_of(text: str) -> Tone:
    """Strong for repetition or emphasis, mild for a polite or hedged request, neutral otherwise."""
    shouted = any(word.rstrip("'") not in _ACRONYMS for word in _CAPS_WORD.findall(text))
    if "!!" in text or shouted or _REPEATED.search(text):
        return Tone.STRONG
    return Tone.MILD if _POLITE.search(text) else Tone.NEUTRAL


# ask first -------------------------------------------------------------------------------------------------

_RISKY = re.compile(
    r"\b(?:pay|pays|paid|paying|payments?|invoices?|purchas\w*|buy|buys|buying|bought|credit\s+cards?|"
    r"bank\s+(?:accounts?|cards?|details|transfers?)|banking|transfers?\s+(?:money|funds)|wire\s+transfers?|"
    r"money|refunds?|subscri\w*|billing|bills?|spend\w*|checkout|passwords?|passphrases?|credentials?|"
    r"(?:access|auth|api|bearer|github|gitlab|npm)\s+tokens?|api\s+keys?|ssh\s+keys?|secrets?|2fa|mfa|otp|"
    r"logins?|log\s+in|sign\s+in|vault|keychain|security|firewall|permissions?|sudo|root\s+access|"
    r"encrypt\w*|share|shares|sharing|shared|forward\w*|publish\w*|personal\s+(?:data|details|information)|"
    r"contacts|contact\s+(?:list|details|info\w*)|(?:home|postal|street|mailing|email)\s+address(?:es)?|"
    r"phone\s+numbers?|location|health|medical)\b",
    re.IGNORECASE,
)
# A line that forbids rather than allows: it lets the agent do nothing, so there is nothing to ask about.
_FORBIDS = re.compile(rf"^\s*(?:[-*+]\s+)?(?:{PROHIBITION}|avoid|{NO}\b|{NOT}\b)", re.IGNORECASE)


def asks_first(text: str) -> bool:
    """A preference or rule that touches payments, credentials, security or sharing personal data, and allows
    something (a prohibition needs no confirmation)."""
    plain = _ASK_FIRST.sub("", without_marker(text))
    return bool(_RISKY.search(plain)) and not _FORBIDS.match(plain)


def asked_first(line: str) -> bool:
    return bool(_ASK_FIRST.search(line))


def with_ask_first(line: str) -> str:
    """The line with its ask-first marker (once)."""
    return line if asked_first(line) else f"{line.rstrip()} {ASK_FIRST}"
