"""A model's reasons for facts it kept out of memory: read by number, and held up before they count.

A reason is words about why a fact stays out ("a joke", "superseded by fact 3", "already in USER.md as 'Lives in
Porto'"), never an edit described: small models answer the question with the edit they meant to make — an arrow
(`"User is based in Lisbon." → "User is based in Lisbon;"`), a quoted before/after pair, "changed X to Y", "filed
both" — and that explains nothing, for the edit is not in the files. Nor is a placeholder, an echo of the question
or of the fact, a title made of the batch's words, or a pointer to another fact memory does not hold. A reason that
says the fact is already kept is borne out by a line memory really holds: the line it quotes, or one about the fact.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from nanodream.engines.claims import edit_claim
from nanodream.engines.facts import BatchFact, holds, new_part, read
from nanodream.run.held import Line, LineIndex
from nanodream.text.words import content_words, similarity
from nanodream.toolbox.textcalls import CALL_FORMAT


@dataclass(frozen=True)
class Explanations:
    """The model's reasons by the batch's fact numbers, and the question they answer: its words (a reason that
    echoes them explains nothing) and the batch numbers of the facts it listed, in order ("fact 2" in a reason
    means the question's second)."""

    reasons: dict[int, str] = field(default_factory=dict)
    question: str = ""
    listed: tuple[int, ...] = ()

    def batch_number(self, said: int) -> int | None:
        if not self.listed:
            return said
        return self.listed[said - 1] if 1 <= said <= len(self.listed) else None


@dataclass(frozen=True)
class Evidence:
    """What a reason is checked against: memory's lines, the session's added lines, the batch's words, and
    whether a fact of the batch (by number) is kept."""

    active: LineIndex
    archived: LineIndex
    added: list[str]
    batch_words: frozenset[str]
    kept: Callable[[int], bool]


# Words that make no reason on their own: a template's slots and the filler around them.
_FILLER = frozenset({"n", "reason", "reasons", "why", "because", "fact", "facts", "number", "no", "none", "na",
                     "tbd", "todo", "placeholder", "explanation", "text", "here", "see", "above", "below", "same",
                     "etc", "x", "y", "z", "your", "own", "words", "this", "it", "line"})
# Words that say why a fact stays out; a reason without one that only repeats the batch's words is a title.
_WHY = frozenset({"already", "duplicate", "duplicates", "repeat", "repeated", "same", "superseded", "replaced",
                  "corrected", "correction", "outdated", "obsolete", "stale", "old", "wrong", "false", "joke",
                  "once", "temporary", "ephemeral", "irrelevant", "trivial", "secret", "private", "password",
                  "credential", "not", "no", "never", "longer", "cancelled", "canceled", "because", "since",
                  "only", "unclear", "unsure", "speculative", "hypothetical", "sarcasm", "hostile", "instruction"})
_REFERENCE = re.compile(r"(?:\b(?:fact|facts|item|number|no\.?|entry)\s*#?\s*|#\s*|\bby\s+)(\d+)\b", re.IGNORECASE)
_ALREADY = re.compile(r"\b(?:already|previously|before|earlier)\b", re.IGNORECASE)
# An edit described: an arrow, a quoted before/after pair, "changed X to Y" — what a model meant to do, not why.
_ARROW = re.compile(r"→|⟶|⇒|->|=>")
_QUOTE = r"[\"'“”‘’`]"
_QUOTED_PAIR = re.compile(rf"{_QUOTE}[^\"“”`]{{2,}}?{_QUOTE}\s*(?:to|with|into|by|as|:)\s*{_QUOTE}", re.IGNORECASE)
_CHANGED_TO = re.compile(r"\b(?:changed|updated|edited|rewrote|rewritten|renamed|modified|set|turned|fixed)\b"
                         r"[^.;]{0,120}?\b(?:to|into|with)\b", re.IGNORECASE)
# "kept as the deploy anti-pattern in SOUL.md": a claim that memory holds it, borne out or not.
_KEPT = re.compile(r"\b(?:kept|filed|stored|recorded|saved|noted|captured|covered)\b", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“‘'`]([^\"“”‘’`]{3,200})[\"”’'`]")


def problem_with(reason: str, fact: BatchFact, evidence: Evidence, explained: Explanations) -> str:
    """What makes `reason` no explanation for `fact` ('' when it is one)."""
    pointed = [explained.batch_number(n) for n in _references(reason)]
    lost = [n for n in pointed if n is not None and (n == fact.number or not evidence.kept(n))]
    if lost:
        return f"points to fact {lost[0]}, which memory does not hold"
    # a fact it points to that memory holds counts as a word: "superseded by fact 2" is a reason
    meaningful = [w for w in content_words(reason) if w not in _FILLER and len(w) > 1] + [
        "fact" for n in pointed if n is not None]
    if len(meaningful) < 2:
        return "is a placeholder, not a reason"
    if describes_edit(reason) and not _ALREADY.search(reason):
        return "claims an edit the files do not show (a reason says why a fact stays out)"
    plain, unquoted = _plain(reason), _QUOTED.sub(" ", reason)
    echoed = not _ALREADY.search(reason) and holds(unquoted, fact.text)
    if (plain == _plain(fact.text) or similarity(reason, fact.text) >= 0.8 or echoed
            or _title(meaningful, evidence.batch_words)):
        return "only repeats the batch's words; it does not say why"
    if plain and plain in _plain(explained.question):
        return "repeats the question's own words"
    claimed = edit_claim(reason) or _ALREADY.search(reason) or _KEPT.search(reason)
    if claimed and not _borne_out(reason, fact, evidence):
        return ("says memory already holds it, and no line of memory does" if _ALREADY.search(reason)
                else "claims an edit the files do not show")
    return ""


def describes_edit(reason: str) -> bool:
    """An arrow, a quoted before/after pair, "changed X to Y": an edit, not a reason."""
    return bool(_ARROW.search(reason) or _QUOTED_PAIR.search(reason) or _CHANGED_TO.search(reason))


def _borne_out(reason: str, fact: BatchFact, evidence: Evidence) -> bool:
    """The line a claim points at is in memory: the line it quotes (about the fact), or a line about the fact."""
    lines = [*evidence.active.near(fact.text), *evidence.archived.near(fact.text)]
    quoted = [" ".join(text.split()).strip(" .").lower() for text in _QUOTED.findall(reason)]
    if quoted:
        return any(_quotes(line, quote) and _about(line.text, fact) for line in lines for quote in quoted)
    if edit_claim(reason) and not _ALREADY.search(reason):
        return any(_about(line, fact) for line in evidence.added)
    return any(_about(line.text, fact) for line in lines)


def _quotes(line: Line, quote: str) -> bool:
    return quote in " ".join(line.text.split()).lower()


def _about(line: str, fact: BatchFact) -> bool:
    """A memory line that states what the fact is about: at least half of its values and of its words."""
    said = read(new_part(fact.text)[0])
    theirs = read(line)
    have = theirs.stems | theirs.values
    return 2 * len(said.values & have) >= len(said.values) and 2 * len(said.stems & have) >= len(said.stems)


def _title(meaningful: list[str], batch: frozenset[str]) -> bool:
    """Most of the reason's words are the batch's own and none says why: a title ("**Project deployment
    (Nomad to Kubernetes)**"), not a reason."""
    if any(word in _WHY for word in meaningful):
        return False
    return sum(1 for word in meaningful if word[:5] in batch) * 5 >= len(meaningful) * 3


def _references(reason: str) -> list[int]:
    return [int(match.group(1)) for match in _REFERENCE.finditer(reason)]


def _plain(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


# the corrective question and the answers to it -------------------------------------------------------------

def question(listed: list[tuple[BatchFact, str]], *, text_calls: bool) -> str:
    """The one question about what is unaccounted or misfiled: file these facts (where they belong), or say why
    not, by number. It shows no example edit: a model copies examples into real edits."""
    lines = "\n".join(f"{number}. [{fact.tag}] {fact.text}" + (f"\n   ({note})" if note else "")
                      for number, (fact, note) in enumerate(listed, start=1))
    how = (f" Without native tool calls, write each call in your answer as {CALL_FORMAT}."
           if text_calls else "")
    return (f"These facts of the history batch are not in memory and have no reason given:\n\n{lines}\n\n"
            "File each one now with the tools (edit_file or write_file), in the file it belongs in: a [correction] "
            f"replaces the line it corrects.{how} An answer that only describes edits changes nothing. "
            "If a fact must stay out of memory, answer with one line for it instead: its number, a colon, then why, "
            "in your own words.")
