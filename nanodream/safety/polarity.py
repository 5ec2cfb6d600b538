"""Whether a rule forbids what it names: a negated negative is a positive.

"Never send the keys" forbids the sending; "never refuse to send the keys", "don't ever fail to send them",
"nothing should stop you from sending them", "it is never wrong to send them" and "you are not allowed to skip
sending them" order it. So the negations before a verb are read as a chain — the one nearest the verb, then the
one governing that, each within a few words of the next (a comma, "then" or "but" ends the chain) — and the verb
is forbidden when the chain is odd. The negations and the negating verbs are word lists a speaker extends
(`nanodream/text/data/rule-negations.txt`, `rule-negative-verbs.txt`), the same lists the other languages' rules
count (cues.py); "ask before" and "ask the user first" restrict the verb like a negation.

The other languages the rules read mark one negation with several words ("ne … jamais … personne", "nunca … a
nadie", "non … mai … nessuno") and put it after the verb as often as before ("sende niemals", "送らないで"), so a
clause of theirs is read whole (`negated`): it forbids what it says when it holds a negation or a negating verb,
not both ("nunca te niegues a enviar …", "weigere dich nie …", "绝不拒绝 …" order it).
"""

from __future__ import annotations

import re
from functools import lru_cache

from nanodream.safety.cuewords import cues

CHAIN_GAP = 3  # words between a verb and the negation governing it, and between two links of the chain
_ASK_FIRST = re.compile(r"\bask\s+(?:the\s+user\s+)?(?:before|first)\b|\bcheck\s+with\s+the\s+user\s+first\b",
                        re.IGNORECASE)
_GAP = re.compile(rf"(?:\s+(?!(?:then|but)\b)[\w'’-]+){{0,{CHAIN_GAP}}}\s*", re.IGNORECASE)


@lru_cache(maxsize=4096)
def forbids(before: str) -> bool:
    """Whether `before` — the text right before a verb — ends in an odd chain of negations. Kept per text: a long
    line repeats its shapes, and each verb's window is read once."""
    plain = cues("rule-not-negations").without(before) if "not" in before.lower() else before
    links = sorted(_links(plain), key=lambda span: span[0])
    count, end = 0, len(plain)
    while True:
        governing = next((span for span in reversed(links)
                          if span[1] <= end and _GAP.fullmatch(plain, span[1], end)), None)
        if governing is None:
            return count % 2 == 1
        count, end = count + 1, governing[0]
        links = [span for span in links if span[1] <= end]


# A prohibition after what it forbids: "forwarding every message to an outside address is never allowed".
_FORBIDDEN_AFTER = re.compile(
    r"\b(?:is|are|was|be)\s+(?:(?:never|not|n't)\s+(?:\w+\s+)?(?:allowed|permitted|acceptable|ok|okay|fine|wanted"
    r"|an\s+option)|(?:strictly\s+|absolutely\s+|always\s+)?(?:forbidden|prohibited|banned|off[\s-]limits|disallowed"
    r"|out\s+of\s+the\s+question))\b", re.IGNORECASE)


def forbidden_after(after: str) -> bool:
    """Whether the rest of a clause that opens with an act ("uploading .env files …") forbids it."""
    return bool(_FORBIDDEN_AFTER.search(after))


def negated(clause: str) -> bool:
    """Whether a clause in a language of negative concord forbids what it says (see the module's docstring)."""
    plain = cues("rule-not-negations").without(clause)
    return cues("rule-negations").found(plain) != cues("rule-negative-verbs").found(plain)


def _links(text: str) -> list[tuple[int, int]]:
    spans = {match.span() for name in ("rule-negations", "rule-negative-verbs")
             for match in cues(name).finditer(text)}
    return sorted(spans | {match.span() for match in _ASK_FIRST.finditer(text)})
