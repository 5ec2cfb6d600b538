"""The batch's tagged facts, and what it means for a memory line to keep one, or for a correction to replace one.

Every engine, the accounting after a session, the guards and structured mode share these, so "kept" means one
thing: a line keeps a fact when it says the same thing about the same subject — the same polarity ("is not
allergic" keeps nothing of "is allergic"; "must never ask" nothing of "must always ask"), the same kind of modal,
the same claim ("might be allergic", "was allergic", "rarely drinks" keep nothing of "is allergic", "drinks"),
every value of the fact (names, numbers, dates, versions, identifiers), and its meaningful words — up to a third
of a longer fact's words may go unsaid, and words may be said another way ("is based in" for "lives in") — and
the line adds no name or number the fact, its context and what memory already held do not have. The file and
the section a line stands in are part of what it says: "Prefers dark mode" in USER.md keeps "User prefers dark
mode", "Leads the payments team" under a heading "Sam" keeps "Sam now leads the payments team". A line of several
clauses keeps a fact when one of its clauses does.

A `[correction]` is kept by a line that says its new part ("Project kiwi now deploys with Kubernetes, not Nomad"
is kept by "Project kiwi deploys with Kubernetes on host atlas"). Which line a correction replaces is decided once,
in engines/replacing.py (`corrects` here asks it): the same subject and scope, never a rule about something else.
A fact stated as a change ("moved X from A to B", "switched to B", "no longer A, now B", "X is now B", "not A but
B") is a correction whatever its tag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from nanodream.backlog.history import FACT_TAGS, Batch, fact_lines
from nanodream.engines.replacing import (
    Candidate,
    explicit_old_value,
    find_replaced,
    old_value_span,
    relations_in_subject,
    starts_predicate,
    stem,
)
from nanodream.engines.routing import instructs_agent, parse_procedure, parse_untitled_procedure, route_fact
from nanodream.engines.slots import slot_of, user_slot
from nanodream.text.grammar import MODALS, NO_LONGER, NOT, is_positive, modality, no_longer_so, plain_words
from nanodream.text.kinds import REDACTION
from nanodream.text.lists import phrases, wordlist
from nanodream.text.sentences import sentences
from nanodream.text.words import NEGATIONS, STOPWORDS, claims_alike, fact_key, words
from nanodream.validity import is_replaced
from nanodream.workspace import SOUL, USER

# Words a file implies about its lines ("User prefers X" is kept in USER.md as "Prefers X"), or that only say who
# a rule is for; they are never what a fact is about.
_SUBJECT_WORDS = frozenset({"user", "users", "agent", "assistant", "project"})
# Words that date a statement, or say it changed, without being part of what it says.
_TIME_WORDS = wordlist("dating-words") | wordlist("change-markers") | frozenset({"again"})
# Words that weigh nothing in what a statement is about ("pays the bill each month" says "pays the bill monthly").
_LIGHT = frozenset({"each", "every", "all", "both", "any", "some", "very", "really", "just", "please", "then", "first",
                    "through", "before", "after", "during", "via", "over", "under", "across", "within", "about"})
# A fact stated as a change, whatever its tag ("We're on Django 5.1 now": how it stands since).
_CHANGE = re.compile(
    r"\b(?:moved|switched|migrated|changed|upgraded|downgraded|transferred|relocated)\b[^.;]*\b(?:from|to|onto)\b"
    rf"|\bswitched\s+(?:over\s+)?to\b|\b{NO_LONGER}\b|(?:\b(?:is|are|was)|['’](?:re|s))\s+now\b|\bnow\s*[.!]?$"
    rf"|\b{NOT}\s+[^,.;]+,?\s+but\s+\w|\binstead\s+of\b|\breplaced\s+\w[^.;]*\b(?:with|by)\b|\bnow\s+(?:lives|works|uses)"
    rf"|,\s*{NOT}\s+\w",
    re.IGNORECASE)
# An archived line marked as replaced (`until …`, "replaced by …") no longer holds its fact.
_REPLACED_MARK = re.compile(r"<!--[^>]*\b(?:until|replaced\s+by)\b|\(\s*until\s+\d{4}-\d{2}-\d{2}|\breplaced by\b",
                            re.IGNORECASE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_THEN = re.compile(r"\s*(?:[,;]\s*(?:and\s+)?then\b|\s+and\s+then\b|\s+then\b|;)\s*", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"\s*(?:;|\s[—–]\s|\s-\s)\s*")
_TOKEN = re.compile(r"`[^`]+`|[\w./:@+#-]+")
# A value that is a name or identifier whatever its case: a digit, code punctuation inside, or mixed case.
_IDENTIFIER = re.compile(r"\d|\w[./:@_#+-]\w|[a-z][A-Z]")
# Words that may open an order before its verb.
_OPENERS = frozenset({"always", "never", "please", "do", "don", "t", "not", "just", "also"})
# Capitalised words that open a sentence without naming anything.
_NOT_NAMES = (STOPWORDS | _SUBJECT_WORDS | _TIME_WORDS | frozenset(MODALS) | wordlist("adverbs")
              | wordlist("imperatives") | wordlist("auxiliaries") | NEGATIONS
              | frozenset({"i", "we", "my", "our", "you", "your", "he", "she", "they", "it", "this", "that", "there",
                           "when", "if", "after", "before", "every", "each", "all", "no", "yes", "do", "does", "don"}))


@dataclass(frozen=True)
class BatchFact:
    """One tagged fact of a batch: its number in the batch (from 1), tag, text (tags stripped) and entry."""

    number: int
    tag: str
    text: str
    entry: int  # index of its entry in the batch

    @property
    def is_correction(self) -> bool:
        """Tagged `[correction]`, or stated as a change ("moved from A to B", "is now B")."""
        return self.tag == "correction" or is_change(self.text)


def batch_facts(batch: Batch, tags: tuple[str, ...] = FACT_TAGS) -> list[BatchFact]:
    """The batch's lines tagged with one of `tags`, in history order, each text once (its first entry), numbered
    as the session's history shows them (backlog/history.py)."""
    return [BatchFact(number, line.tag, line.text, line.entry)
            for number, line in enumerate(fact_lines(batch, tags), start=1)]


def is_change(text: str) -> bool:
    """Whether a fact is stated as a change of value, so that it replaces the line holding the old one."""
    return bool(_CHANGE.search(text))


def marked_replaced(line: str) -> bool:
    """An archived line that says it stopped being true: the archive's until-form (validity.py, `from` day
    included), or a mark a model wrote in its own words (`until` a date, "replaced by" its successor)."""
    return is_replaced(line) or bool(_REPLACED_MARK.search(line))


def new_part(text: str) -> tuple[str, frozenset[str]]:
    """A fact without the value it replaces, and that value's words: ("Project kiwi now deploys with Kubernetes",
    {"nomad"}) for "Project kiwi now deploys with Kubernetes, not Nomad"."""
    old = explicit_old_value(text)
    if not old:
        return text, frozenset()
    start, end = old_value_span(text)
    said = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(f"{text[:start]} {text[end:]}".split())).strip(" ,;")
    return said, frozenset(set(words(old)) - STOPWORDS - set(words(said)))


# reading a statement ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """What a statement says, as compared: whether it is negated, its modal, its meaningful words (stems, without
    negations, modals, dating words or whom it is about), and its values (names, numbers, identifiers)."""

    positive: bool
    modality: str
    stems: frozenset[str]
    values: frozenset[str]


@lru_cache(maxsize=32768)
def read(text: str) -> Reading:
    plain = plain_words(text)
    stems = frozenset(stem(w) for w in plain if w not in STOPWORDS and w not in _SUBJECT_WORDS
                      and w not in _TIME_WORDS and w not in MODALS and w not in _LIGHT)
    # "Ich bin kein Vegetarier mehr" is no more positive than "is no longer vegetarian" (text/grammar.py)
    return Reading(is_positive(text) and not no_longer_so(text), modality(text), stems, values_of(text))


# Words said another way: each line of data/synonyms.tsv is one meaning.
_SYNONYMS = {stem(word.lower()): index for index, row in enumerate(phrases("synonyms")) for word in row.split()}


def values_of(text: str) -> frozenset[str]:
    """The names, numbers and identifiers a statement gives, as stems: what a restatement must keep (a secret's
    redaction mark names none)."""
    found: set[str] = set()
    tokens = _TOKEN.findall(_COMMENT.sub(" ", REDACTION.sub(" ", text)))
    for position, token in enumerate(tokens):
        bare = token.strip("`.,:;")
        if not bare:
            continue
        named = token.startswith("`") or _IDENTIFIER.search(bare) or (
            bare[:1].isupper() and (position or _names_its_subject(bare, tokens)))
        if named:
            found |= {stem(w) for w in words(bare) if w not in STOPWORDS and w not in _SUBJECT_WORDS
                      and w not in _NOT_NAMES}
    return frozenset(found)


def _names_its_subject(first: str, tokens: list[str]) -> bool:
    """A capitalised first word is a name when it is the whole subject of its sentence ("Sam now leads…", "Ana
    runs…"), not a plural or a verb that opens it ("Backups run…", "Tag it")."""
    lower = first.lower()
    if lower in _NOT_NAMES or lower.endswith("s") or len(tokens) < 2:
        return False
    return starts_predicate(tokens[1].strip("`.,:;").lower(), lower)


def clauses(text: str) -> list[str]:
    """The statement's clauses: its sentences, cut at semicolons and dashes."""
    return [part for sentence in sentences(text) for part in _CLAUSE_BREAK.split(sentence) if words(part)]


# keeping ---------------------------------------------------------------------------------------------------


def context_of(path: str, heading: str = "") -> str:
    """The words a line of `path` under `heading` says without writing them."""
    implied = {USER: "user", SOUL: "agent"}.get(path, "")
    return f"{implied} {heading}".strip()


def holds(line: str, fact: str, *, correction: bool = False, context: str = "") -> bool:
    """The memory line `line` keeps `fact` (a correction: its new part, without the value it replaces).

    `context`: what the line says without writing it (its file's subject, its heading: `context_of`). A line may
    say more than the fact (a date, the host it runs on): structured mode, which writes a line per fact, refuses
    that (`says_more`); a line a model wrote among others keeps the fact all the same.
    """
    if fact_key(line) == fact_key(fact):
        return True
    said = new_part(fact)[0] if correction else fact
    if not read(said).stems:
        return False
    parts = clauses(line)
    # a fact of one clause is kept by one clause of the line: read whole, a line's clauses could cancel each
    # other's negations ("no allergy to X; allergic to nothing")
    units = parts if len(parts) > 1 and len(clauses(said)) < 2 else [line]
    # a line in the correction's own form says its new part: "deploys with Kubernetes (not Nomad)"
    return any(_keeps(new_part(unit)[0], said, context) for unit in units)


def _keeps(unit: str, fact: str, context: str) -> bool:
    theirs, ours = read(unit), read(fact)
    if not claims_alike(unit, fact) or relations_in_subject(unit) != relations_in_subject(fact):
        return False  # "used to live in Berlin", "might live in Berlin", "User's sister lives in Berlin"
    if theirs.positive != ours.positive or (theirs.modality and ours.modality and theirs.modality != ours.modality):
        return False
    implied = read(context).stems | values_of(context) if context else frozenset()
    have = theirs.stems | theirs.values | implied
    if not all(_has(have, value) for value in ours.values):
        return False
    if _same_slot_value(unit, fact, context):
        return True
    missing = [word for word in ours.stems if not _has(have, word)]
    extra = theirs.stems - ours.stems - implied
    unmatched = [word for word in missing if not _said_otherwise(word, extra)]
    if not unmatched:
        return True
    # A third of a longer fact's words may go unsaid, but not be swapped for another ("the search db" is not "the
    # billing db").
    swapped = [word for word in extra if not _has(ours.stems, word) and not _said_otherwise(word, ours.stems)]
    return not swapped and len(unmatched) <= len(ours.stems) // 3 and not set(unmatched) & ours.values


def _has(words_: frozenset[str], word: str) -> bool:
    """`word` is among `words_`, or a form of one ("deployment" and "deploy", "preference" and "prefer")."""
    if word in words_:
        return True
    return len(word) >= 5 and any(len(other) >= 5 and other[:5] == word[:5] for other in words_)


def _said_otherwise(word: str, others: frozenset[str]) -> bool:
    meaning = _SYNONYMS.get(word)
    return meaning is not None and any(_SYNONYMS.get(other) == meaning for other in others)


def _same_slot_value(unit: str, fact: str, context: str) -> bool:
    """Both fill one single-valued slot with the same value ("Lives in Porto" in USER.md, "User is based in
    Porto")."""
    about_user = "user" in words(context)
    left = user_slot(unit) if about_user else slot_of(unit)
    right = slot_of(fact) or (user_slot(fact) if about_user else None)
    return (left is not None and right is not None and left.key == right.key
            and read(left.value).stems == read(right.value).stems)


def belongs_in(fact: str) -> str | None:
    """The file a fact belongs in: USER.md for the person, SOUL.md for a rule for the agent, MEMORY.md for the
    work (engines/routing.py decides, for the built-in engine too); None for a procedure, which is a skill's."""
    if parse_procedure(fact) or parse_untitled_procedure(fact):
        return None
    return route_fact(fact).path


def ordered(line: str, fact: str) -> bool:
    """Whether `line` turns the statement `fact` into an order for the agent: it instructs the agent, or it opens
    with the fact's own verb in command form ("Order spare parts from Rotor…" for "Spare parts are ordered from
    Rotor…"). A statement of fact is never kept by such a line in SOUL.md, the file of rules the agent obeys."""
    if instructs_agent(fact):
        return False
    if instructs_agent(line):
        return True
    opening = [word for word in words(line) if word not in _OPENERS][:1]
    first = words(fact)[:1]
    return bool(opening) and opening != first and stem(opening[0]) in read(fact).stems and stem(
        opening[0]) not in _subject_stems(fact)


def _subject_stems(fact: str) -> frozenset[str]:
    return frozenset(stem(word) for word in words(fact)[:2])


def known_values(texts: list[str]) -> frozenset[str]:
    """Every name and number of `texts` (memory as it stood before a session): what a new line may carry."""
    return frozenset(value for text in texts for line in text.split("\n") for value in read(line).values)


def says_more(line: str, fact: str, *, known: frozenset[str] = frozenset()) -> str:
    """The part of `line` that is not `fact` (text beyond the fact is no part of it): a clause that does not keep
    the fact, or a name or number it adds; '' when the line says the fact and nothing else."""
    parts = clauses(line)
    extra = [part for part in parts if not _keeps(part, fact, "")] if len(parts) > 1 else []
    if extra and any(_keeps(part, fact, "") for part in parts):
        return extra[0]
    added = read(line).values - read(fact).values - read(fact).stems - known
    return ", ".join(sorted(added))


def corrects(correction: str, line: str, *, path: str = "") -> bool:
    """The correction replaces what `line` (of the file `path`) says: the same subject and scope, a changed value
    (engines/replacing.py decides, for every caller)."""
    return replaced_by(correction, [line], path=path) == 0


def replaced_by(correction: str, lines: list[str], *, path: str = "") -> int | None:
    """Which of `lines` (of the file `path`) the correction replaces, by its index; None: none of them. One pass
    over them all, as a dream looks for the line a correction replaces; a line that already says the correction
    is not replaced by it."""
    found = find_replaced(correction, [Candidate(path, index, line.lstrip("-*+ ").strip())
                                       for index, line in enumerate(lines)], frames=True, where="")
    if found is None or holds(lines[found.candidate.index], correction, correction=True, context=context_of(path)):
        return None
    return found.candidate.index


def replaced_in_place(correction: str, began: list[str], now: set[str]) -> bool:
    """Whether a correction took the place of the line it corrects: the line of the files the batch began from
    (`began`) it replaces is no longer among the lines `now`. Another line that only shares its frame is then not
    the one it corrects ("… uses sqlc to generate database code" beside "… uses PostgreSQL 16 as its primary
    database", once that replaced "… uses MySQL 8 as its primary database")."""
    index = replaced_by(correction, began)
    return index is not None and began[index] not in now


def procedure_held(text: str, skills: dict[str, str], lines: list[str]) -> bool:
    """A procedure fact ("Procedure x: 1) … 2) …", "To x: 1) …") that memory holds: every step is kept by a line
    (a skill's steps, in any numbering and wording), or the skill it names keeps every step."""
    found = parse_procedure(text) or parse_untitled_procedure(text)
    if found is None:
        return False
    steps = [part for step in found.steps for part in _sub_steps(step)]
    skill = skills.get(found.name)
    if skill is not None and all(any(holds(line, step) for line in _steps(skill)) for step in steps):
        return True
    return all(any(holds(line, step) for line in lines) for step in steps)


def _sub_steps(step: str) -> list[str]:
    """"run make test, then tag" → ["run make test", "tag"]: a step told as several."""
    return [part for part in _THEN.split(step) if words(part)]


def _steps(skill: str) -> list[str]:
    """A skill's lines as steps: list markers and numbering gone."""
    return [re.sub(r"^\s*(?:[-*+]|\d+[.)])\s*", "", line) for line in skill.splitlines() if words(line)]
