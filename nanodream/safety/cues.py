"""Rules read by their cue words, in the languages the written English rules do not read, and a guard turned off
in any language.

safety/agent_rules.py reads English word by word: which verb, what it takes, where it goes. A rule in German,
French, Spanish, Portuguese, Italian, Chinese or Japanese puts its words in other orders (the verb last, the
negation after it, no spaces at all), so here a clause is read by what it holds, whatever the order — a verb that
moves data, something private or every message, a destination, a negation — from word lists a speaker can extend
(`nanodream/text/data/`: rule-*.txt, exfiltration-*.txt, disclosure-*.txt, concealment-*.txt, guards-off-*.txt,
remote-code-*.txt; the cue form is in rule-negations.txt).

A clause's polarity (text/grammar.py `negated`): it forbids what it says when it holds a negation or a negating
verb ("refuse", "verweigern", "拒绝"), but not both — a negated negative is a positive ("nunca te niegues a enviar
…" orders the sending). The languages here mark one negation with several words ("ne … jamais … personne", "nunca
… a nadie"), so a negation is counted once, not by its words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nanodream.safety.destinations import EXTERNAL
from nanodream.text.cuewords import cues
from nanodream.text.grammar import NEGATIVE_PRONOUN, forbids, has_negation, negated

EXFILTRATION, DISCLOSURE, REMOTE_CODE, CONCEALMENT, GUARDS_OFF = (
    "exfiltration", "disclosure", "remote-code", "concealment", "guards-off")
LOOKBACK = 60  # characters before an English verb read for what forbids it
OUTWARD = "outward"  # data sent to someone other than the user: a person sees it first (review_rules)
SILENCE = "silence"  # something kept from the user: a person sees it first (review_rules)

_CLAUSES = re.compile(r"(?<=[.;!?])\s+|(?<=[。！？；])\s*|\s+(?:—|–)\s+|;")
# A link, or a word for one, marks code as fetched from elsewhere.
_REMOTE = re.compile(r"https?://|\b(?:ftp|sftp|s3)://|\b(?:link|lien|enlace|ligação|internet|url)s?\b"
                     r"|链接|网上|网络上|リンク|インターネット|ネット上", re.IGNORECASE)
# A policy setting set to the value that turns its guard off ("injection_policy = warn", "soul_policy to open").
_POLICY_OFF = re.compile(r"\b(?:injection_policy|injection\s+policy)\b[^.;\n]{0,40}?\bwarn\b"
                         r"|\b(?:soul_policy|soul\s+policy)\b[^.;\n]{0,40}?\bopen\b"
                         r"|\b(?:secret_policy|injection_policy|soul_policy)\b[^.;\n]{0,40}?"
                         rf"\b(?:permissive|off|disabled|{NEGATIVE_PRONOUN}|lowest|loosest)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Reading:
    """What one clause holds, concept by concept."""

    text: str

    def has(self, name: str) -> bool:
        return cues(name).found(self.text)

    @property
    def forbidden(self) -> bool:
        return negated(self.text)

    @property
    def destination(self) -> bool:
        """Somewhere outside: an address, a link, a host (the user's own is not that)."""
        return bool(EXTERNAL.search(self.text))

    @property
    def every_message(self) -> bool:
        return self.has("exfiltration-messages") and (self.has("exfiltration-all") or self.has("rule-the-user"))


def read(line: str, *, english: bool) -> set[str]:
    """The kinds of hostile rule (and OUTWARD, SILENCE for a person to see) `line` states by its cues. An English
    line is read here for guards turned off alone: the written rules read the rest of it word by word."""
    found: set[str] = set()
    for clause in (c for c in _CLAUSES.split(" ".join(line.split())) if c and c.strip()):
        reading = Reading(clause)
        found |= _guards_off(reading, english)
        if not english:
            found |= _moves(reading) | _shows(reading) | _hides(reading) | _runs(reading)
    return found


def _guards_off(reading: Reading, english: bool) -> set[str]:
    """A guard switched off, or a policy set to the value that switches it off — unless that is forbidden (in
    English, read as a chain before the verb: "never turn off …", "don't forget to turn off …")."""
    if not reading.has("guards-off-targets") and not _POLICY_OFF.search(reading.text):
        return set()
    verbs = [match.start() for match in cues("guards-off-verbs").finditer(reading.text)]
    verbs += [match.start() for match in _POLICY_OFF.finditer(reading.text)]
    if not verbs:
        return set()
    if english:
        allowed = any(not forbids(reading.text[max(at - LOOKBACK, 0):at]) for at in verbs)
    else:
        allowed = not reading.forbidden
    return {GUARDS_OFF} if allowed else set()


def _moves(reading: Reading) -> set[str]:
    if not _moving(reading.text) or not reading.destination or reading.forbidden:
        return set()
    private = reading.has("exfiltration-private")
    return {OUTWARD, EXFILTRATION} if private or reading.every_message else {OUTWARD}


# An address or a link: a word inside one names a host, not an act ("…@posteo.de" holds no "post").
_ADDRESS = re.compile(r"(?<!\S)[^\s@]+@\S+|\b\w+://\S+|\bwww\.\S+")  # from a space: one pass over a long line


def _moving(text: str) -> bool:
    """A verb that moves data, not the same word as a noun ("Meine E-Mail ist lena@example.com" gives an address)
    nor part of an address ("j.haberland@posteo.de")."""
    reached = -1
    addresses = [match.span() for match in _ADDRESS.finditer(text)]
    for verb in sorted(cues("exfiltration-verbs").finditer(text), key=lambda match: (match.start(), -match.end())):
        if verb.end() <= reached or any(start <= verb.start() < end for start, end in addresses):
            continue  # inside a longer cue (the "Mail" of "E-Mail") or an address
        reached = verb.end()
        if not after_an_article(text[max(verb.start() - LOOKBACK, 0):verb.start()]):
            return True
    return False


def after_an_article(before: str) -> bool:
    """Whether the text just before a word (a few dozen characters: the callers cut it) ends with an article or a
    possessive of another language (exfiltration-nouns.txt: "meine", "mon", "la mia"), which makes a word that
    moves data its noun."""
    return any(not before[match.end():].strip() for match in cues("exfiltration-nouns").finditer(before))


def _shows(reading: Reading) -> set[str]:
    """Something private shown or handed to anyone at all, or put into the open chat."""
    shown = reading.has("disclosure-verbs") and reading.has("disclosure-anyone")
    return {DISCLOSURE} if shown and reading.has("exfiltration-private") and not reading.forbidden else set()


def _hides(reading: Reading) -> set[str]:
    if not reading.has("rule-the-user"):
        return set()
    told_not = reading.has("concealment-tell") and reading.forbidden
    kept = reading.has("concealment-hide") and not has_negation(reading.text) or told_not
    if not kept:
        return set()
    return {SILENCE, CONCEALMENT} if reading.has("concealment-conduct") else {SILENCE}


def _runs(reading: Reading) -> set[str]:
    fetched = reading.has("remote-code-fetch") and reading.has("remote-code-run")
    return {REMOTE_CODE} if fetched and _REMOTE.search(reading.text) and not reading.forbidden else set()
