"""Which active line a new fact replaces, what value changed, and which other lines still name the old value.

A correction rarely repeats the line it corrects: "Project kiwi now deploys with Kubernetes, not Nomad."
replaces "Project kiwi deploys with Nomad on host atlas."; "User moved to Porto." replaces USER.md's "Lives in
Lisbon.". A line is found by its subject and the value that changed, by three rules, strongest first:

1. the same slot (slots.py): one subject and a single-valued relation, whatever the value;
2. the old value named outright — "not X", "instead of X", "rather than X", "no longer … X", "… X anymore",
   "from X to Y", "replaced X with Y", "left X", "stopped using X" — in a line that shares more of the sentence;
3. for a `[correction]` only, the same frame: more than half of its meaningful words (two at least) are in the
   line, and each says something the other does not (a changed value, not a refinement).

A `[correction]` giving a named thing a new version ("We bumped the Python version to 3.12", text/versions.py)
replaces the one line giving that thing a version, over a frame: "Our backend runs on Python 3.11" becomes "Our
backend runs on Python 3.12". With two such lines (the backend's Python, the scripts'), which one is unknown.

A USER.md line is about the user whether or not it says so. Words are compared by stem ("deploys" = "deployed",
"invoices" = "invoice"), and words that only date a sentence ("now", "no longer") are not part of its frame.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from nanodream.engines.slots import UNOWNED, USER_SUBJECT, Slot, slot_of, user_slot
from nanodream.hypotheses import parse as hypothesis
from nanodream.pinning import PIN
from nanodream.text.grammar import (
    MODALS,
    NEGATORS,
    NO,
    NOT,
    OBLIGATION,
    PROHIBITION,
    expanded,
    no_longer_so,
    not_after,
    plain_words,
    same_polarity,
)
from nanodream.text.lists import wordlist
from nanodream.text.stems import singular
from nanodream.text.verbs import PAST_FORMS, THIRD_PERSON, base_verb
from nanodream.text.versions import version_of, versions_in
from nanodream.text.words import RELATIONS, STOPWORDS, covers, fact_key, words
from nanodream.validity import split_dated
from nanodream.workspace import USER

# Words that date a statement or say it changed, without being part of what it states.
FILLER = wordlist("dating-words") | wordlist("change-markers")
# A phrase of words; "." and ":" only inside a word ("Fly.io", "9:30", "5.7"), where they end no sentence.
_WORD_CHARS = r"(?:[^,;!?()\s.:]|[.:](?=\w))+"
_PHRASE = rf"{_WORD_CHARS}(?:\s+{_WORD_CHARS})*?"
_PHRASE_END = r"(?=\s+(?:and|but|for|because|since|in\s+favou?r\s+of|anymore|any\s+more)\b|[,;!?()]|[.:](?!\w)|$)"
# Each pattern names the old value (`old`) and the words to cut for the fact's new part (`cut`).
_OLD_VALUE = tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
    rf"(?P<cut>(?:,|—|–|\(|;)\s*(?:and\s+|but\s+)?{NOT}\s+(?P<old>{_PHRASE}){_PHRASE_END}\)?)",
    rf"(?P<cut>\b(?:instead\s+of|rather\s+than)\s+(?P<old>{_PHRASE}){_PHRASE_END})",
    rf"(?P<cut>\b{NO}\s+longer\s+(?:\w+\s+)(?P<old>{_PHRASE}){_PHRASE_END})",
    rf"(?P<cut>\b{not_after('does', 'do', 'is', 'are')}\s+(?:\w+\s+)?"
    rf"(?P<old>{_PHRASE})\s+any\s*more\b)",
    rf"\b(?:moved|switched|migrated|changed|went|upgraded|downgraded|transferred|converted|relocated|shifted)\b"
    rf"[^,.;:!?()]*?(?P<cut>\bfrom\s+(?P<old>{_PHRASE}))\s+(?:to|onto|into)\s+",
    rf"(?P<cut>\b{NOT}\s+(?P<old>{_PHRASE}),?\s+but)\s+\w",
    rf"^\s*(?P<cut>(?:{PROHIBITION}|stop)\s+(?P<old>[^—–;:]+?)\s*(?:[—–;:]|\s-)+\s*(?:instead\b\s*,?\s*)?)\w",
    rf"\breplaced\s+(?P<cut>(?P<old>{_PHRASE}))\s+(?:with|by)\s+",
    rf"(?<!the\s)(?<!on\s)(?<!to\s)\b(?:left|quit|stopped\s+using|dropped|retired|abandoned|gave\s+up(?:\s+on)?"
    rf"|moved\s+(?:away\s+from|off(?:\s+of)?)|switched\s+away\s+from|got\s+rid\s+of)\s+(?P<cut>(?P<old>{_PHRASE}))"
    rf"{_PHRASE_END}",
))
_LEADING = re.compile(r"^(?:(?:at|in|on|with|for|from|to|via|using|by|the|a|an)\s+)+", re.IGNORECASE)
_DISTINCT = re.compile(r"\d|[A-Z]|[/._:@-]\w")  # a name or an identifier: a capital, a digit, code punctuation
_CODE = re.compile(r"\d|[/._:@-]\w|\w[A-Z]")  # an identifier whatever its first letter: "GitHub", "k8s", "a.b"

SLOT, NAMED, FRAME = 3, 2, 1  # the rules, strongest first
_CLAUSE = re.compile(r"\s*(?:;|\s[—–]\s)\s*|(?<=[a-z0-9])\.\s+(?=[A-Z])")
_COMMA = re.compile(r"\s*[,，、]\s*")
_COPULA = re.compile(r"^(?P<subject>[^,;:]+?)\s+(?:is|are)\s+(?:now\s+|currently\s+)?(?P<value>[^,;]+?)\.?$",
                     re.IGNORECASE)
_VALUE = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w.-]*|\S*\d\S*")
_RULE = re.compile(rf"^(?:(?:the\s+)?(?:agent|assistant|you)\s+(?:{OBLIGATION}|may|can|is\s+to|will)\b"
                   rf"|(?:always|{PROHIBITION}|please)\b|(?:"
                   + "|".join(sorted(wordlist("imperatives"))) + r")\b)", re.IGNORECASE)
_PREDICATE = (wordlist("auxiliaries") | frozenset(MODALS) | NEGATORS
              | frozenset({"is", "are", "am", "be", "has", "have", "does", "do", "will", "would", "gets", "got"}))
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "its", "their",
                          "his", "her", "every", "each", "all", "some", "any", "of", "for", "in", "on", "to", "with"})
_IMPERATIVES = wordlist("imperatives")
_BASE_VERBS = _IMPERATIVES | wordlist("e-verbs")
_ADVERBS = wordlist("adverbs")
# Who a statement is about when that is the user or the agent: no subject of its own.
_NOBODY = frozenset({"user", "users", "agent", "assistant", "project", "i", "we", "you"})


@dataclass(frozen=True)
class Candidate:
    """An active line a new fact might replace: its file, its index there, its text (without the bullet)."""

    path: str
    index: int
    text: str


@dataclass(frozen=True)
class Change:
    """The value that stopped being true and the one that took its place, as the words that identify each."""

    old: tuple[str, ...]
    new: tuple[str, ...]


@dataclass(frozen=True)
class Match:
    """The line a fact replaces, by which rule, and the value that changed (what dependent lines name)."""

    candidate: Candidate
    rule: int
    change: Change
    # The line to write instead of the fact, when the fact did not say whose its value is ("Port is now 8081" for
    # "Our API runs on port 8080": "Our API runs on port 8081"); "" to write the fact as said.
    restated: str = ""


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    return singular(base_verb(word))


# The people and animals in someone's life: a statement whose subject names one is about them, not the user.
_RELATIONS = frozenset(stem(word) for word in RELATIONS)


@lru_cache(maxsize=16384)  # every line is compared with every fact of a batch
def stems(text: str) -> frozenset[str]:
    """The meaningful words of `text` by stem, without the words that only date or negate a change."""
    return frozenset(stem(w) for w in words(text) if w not in STOPWORDS and w not in FILLER)


def explicit_old_value(text: str) -> str:
    """The old value a sentence names outright ("…, not Nomad" → "Nomad"); "" when it names none."""
    match = _old_value_match(text)
    return _LEADING.sub("", match.group("old").strip()) if match else ""


def old_value_span(text: str) -> tuple[int, int]:
    """Where the words naming the old value stand in `text` ("…, not Nomad": ", not Nomad"); (0, 0) for none."""
    match = _old_value_match(text)
    return match.span("cut") if match else (0, 0)


def _old_value_match(text: str) -> re.Match[str] | None:
    for pattern in _OLD_VALUE:
        match = pattern.search(text)
        if match is not None and stems(match.group("old")):
            return match
    return None


def find_replaced(text: str, candidates: Sequence[Candidate], *, prefer: str = "", frames: bool = False,
                  where: str = "") -> Match | None:
    """The candidate `text` replaces, or None. `frames`: rule 3 too (for a `[correction]`); `where`: the file
    `text` is in, when it is a line of one (USER.md: about the user). A pinned line is never replaced; a line
    `text` says all of is refined, not replaced, and is left to the caller. A statement of several clauses
    ("User moved to New York; timezone is UTC-5.") replaces by its best clause, each read with the subject of
    the first when it names none of its own."""
    # the day a line was stated is no part of its fact: "(2026-05-01) The launch deadline is June 1."
    undated = [replace(candidate, text=split_dated(candidate.text)[1]) for candidate in candidates]
    best: tuple[tuple[int, float, int, int], Match] | None = None
    for clause in _clauses(text):
        found = _best(clause, text, undated, prefer, frames, where)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    if best is None:
        return None
    held = next(position for position, candidate in enumerate(undated) if candidate is best[1].candidate)
    return replace(best[1], candidate=candidates[held])  # the caller's own line: callers find it by identity


def _best(clause: str, text: str, candidates: Sequence[Candidate], prefer: str, frames: bool,
          where: str) -> tuple[tuple[int, float, int, int], Match] | None:
    new = Candidate(where, -1, clause)
    named_old = explicit_old_value(clause)
    old_stems = stems(named_old)
    own = _about(new) - old_stems
    old_stems = _names_in(named_old) or old_stems  # "its books in Moneybird": Moneybird names the old value
    if (owner := _owner(new, candidates)) is not None:
        return owner
    best: tuple[tuple[int, float, int, int], Match] | None = None
    for order, candidate in enumerate(candidates):
        theirs = _about(candidate)
        named = bool(old_stems) and old_stems <= theirs  # "X instead of Y" says all of "Y" yet replaces it
        if PIN in candidate.text or _same_words(text, candidate.text) or (covers(text, candidate.text) and not named):
            continue
        rule = _rule(new, candidate, old_stems, own, theirs, frames)
        if not rule:
            continue
        shared = len(own & theirs) / len(own | theirs) if own | theirs else 0.0
        rank = (rule, shared, int(candidate.path == prefer), -order)
        if best is None or rank > best[0]:
            best = (rank, Match(candidate, rule, value_change(candidate.text, text, about_user=_is_user(candidate))))
    versioned = _new_version(clause, candidates) if frames else None
    if versioned is not None and (best is None or best[0][0] <= FRAME):
        return versioned
    return best or _sole_holder(new, text, candidates, old_stems)


def _new_version(clause: str, candidates: Sequence[Candidate]) -> tuple[tuple[int, float, int, int], Match] | None:
    """The one line giving a thing the correction gives a new version ("We bumped the Python version to 3.12" for
    "Our backend runs on Python 3.11"), rewritten with the new version; None when no line or two lines give that
    thing a version (which service's Python?)."""
    for name, new in versions_in(clause).items():
        holding = [(candidate, old) for candidate in candidates
                   if (old := version_of(candidate.text, name)) is not None and not is_rule(candidate.text)]
        if len(holding) != 1 or PIN in holding[0][0].text or holding[0][1].version == new.version:
            continue
        candidate, old = holding[0]
        restated = f"{candidate.text[:old.start]}{new.version}{candidate.text[old.end:]}"
        change = Change((f"{old.name} {old.version}",), (f"{new.name} {new.version}",))
        return (NAMED, 1.0, 1, 0), Match(candidate, NAMED, change, restated)
    return None


def _sole_holder(new: Candidate, text: str, candidates: Sequence[Candidate],
                 old: frozenset[str]) -> tuple[tuple[int, float, int, int], Match] | None:
    """A change said without a subject ("Switched from Postgres to MySQL"): the one line naming its old value
    (no rule for the agent, none pinned) is the line it replaces; with two, which one is unknown, so none."""
    if not old or _subject_words(new.text):
        return None
    holding = [candidate for candidate in candidates
               if old <= _about(candidate) and PIN not in candidate.text and not is_rule(candidate.text)]
    if len(holding) != 1:
        return None
    held = holding[0]
    return (NAMED, 0.0, 0, 0), Match(held, NAMED, value_change(held.text, text, about_user=_is_user(held)))


def _owner(new: Candidate, candidates: Sequence[Candidate]) -> tuple[tuple[int, float, int, int], Match] | None:
    """The one line holding the attribute a value without an owner fills ("Timezone is UTC-5 now"), rewritten
    with the new value; None when the fact names its owner, or when no line or two lines hold the attribute
    (which API's port?)."""
    slot = _slot(new)
    if slot is None or slot.subject != UNOWNED:
        return None
    holding = [(candidate, theirs) for candidate in candidates
               if (theirs := _slot(candidate)) is not None and theirs.attribute == slot.attribute]
    if len(holding) != 1 or PIN in holding[0][0].text:
        return None
    candidate, theirs = holding[0]
    restated = candidate.text.replace(theirs.value, slot.value, 1) if theirs.value in candidate.text else ""
    change = Change(_distinct(theirs.value.split()), _distinct(slot.value.split()))
    return (SLOT, 1.0, 1, 0), Match(candidate, SLOT, change, restated)


def _clauses(text: str) -> list[str]:
    """The statement, then each of its clauses when it has several; a clause that fills no slot on its own is read
    with the first clause's subject ("timezone is UTC-5" → "User timezone is UTC-5"). A part after a comma is a
    clause when it fills a slot of its own: "Ich bin nach New York gezogen, meine Zeitzone ist jetzt UTC-5" gives
    where the person lives and their time zone."""
    parts = [part.strip(" .。") for whole in _CLAUSE.split(text) for part in _comma_clauses(whole) if stems(part)]
    if len(parts) < 2:
        return [text]
    lead = " ".join(words(parts[0])[: len(_subject_words(parts[0])) or 1])
    carried = [f"{lead} {part}" if _owned(slot_of(f"{lead} {part}")) and not _owned(slot_of(part)) else part
               for part in parts[1:]]
    return [text, parts[0], *carried]


def _comma_clauses(part: str) -> list[str]:
    """`part`, or its comma-separated pieces when at least two fill a slot of their own (a place's "Portland,
    Oregon" is one value)."""
    pieces = _COMMA.split(part)
    if len(pieces) < 2 or sum(_owned(slot_of(piece.strip(" .。"))) for piece in pieces) < 2:
        return [part]
    return pieces


def _owned(slot: Slot | None) -> bool:
    return slot is not None and slot.subject != UNOWNED


def slots_in(text: str, *, about_user: bool = False) -> list[Slot]:
    """Every single-valued attribute a line gives a value to, clause by clause ("User moved to New York; timezone
    is UTC-5." gives where the user lives and their time zone); a USER.md line is about the user."""
    found = []
    for clause in _clauses(text):
        slot = user_slot(clause) if about_user else slot_of(clause)
        if slot is not None and slot.key not in {known.key for known in found}:
            found.append(slot)
    return found


def _rule(new: Candidate, candidate: Candidate, old: frozenset[str], own: frozenset[str], theirs: frozenset[str],
          frames: bool) -> int:
    """Which rule makes `candidate` the line `new` replaces (0: none). Past the slot rule, both must be about the
    same subject; a rule for the agent is replaced only by one that names its old value or says it negated — two
    rules about different things (staging and production, git branches and docker volumes) both stand."""
    left, right = _slot(new), _slot(candidate)
    if left is not None and right is not None and left.key == right.key:
        return SLOT
    if not same_subject(new.text, candidate.text, about_user=_is_user(candidate)):
        return 0
    if old and old <= theirs and own & theirs:
        return NAMED
    if old and not old & theirs:
        return 0  # it names what changed ("instead of cron"): a line that never said so is not the one it corrects
    if _negated(new.text, candidate.text) and hypothesis(candidate.text) is None:
        return NAMED  # a guess contradicted goes stale instead (hypotheses.py)
    if not frames:
        return 0
    if is_rule(new.text) or is_rule(candidate.text):
        return FRAME if _values_changed(new.text, candidate.text) else 0
    if _same_copula_subject(new.text, candidate.text):
        return FRAME
    shared = own & theirs
    if len(shared) >= 2 and 2 * len(shared) > len(own) and own - theirs and theirs - own - old:
        return FRAME
    return 0


def same_subject(a: str, b: str, *, about_user: bool = False) -> bool:
    """Both statements are about the same thing: the words naming each one's subject (those before its verb) are
    words of the other ("Project kiwi deploys…" and "Project kiwi's deploy target…"; not "the billing db…" and
    "the search db…"). A rule for the agent, or a USER.md line, names no subject of its own."""
    mine, theirs = _subject_words(a), _subject_words(b)
    if relations_in_subject(a) != relations_in_subject(b):
        return False  # "User's wife works at Bosch" is not about the user, nor "my sister's city" about mine
    all_mine = stems(a) | (USER_SUBJECT if about_user else frozenset())
    all_theirs = stems(b) | (USER_SUBJECT if about_user else frozenset())
    return mine <= all_theirs or theirs <= all_mine  # "the standup" is "the daily standup"


@lru_cache(maxsize=16384)
def _subject_words(text: str) -> frozenset[str]:
    """The stems of the words before a statement's first verb; none when it opens with a verb or has none."""
    found: list[str] = []
    tokens = words(expanded(text))
    for index, word in enumerate(tokens):
        if starts_predicate(word, tokens[index - 1] if index else ""):
            return frozenset(stem(w) for w in found if w not in STOPWORDS and w not in _NOBODY)
        found.append(word)
    return frozenset()


def relations_in_subject(text: str) -> frozenset[str]:
    """The people (or animals) of someone's life a statement's subject names ("User's wife…" → {wife}): two
    statements whose subjects name different ones are about different beings."""
    return _subject_words(text) & _RELATIONS


def starts_predicate(word: str, before: str) -> bool:
    """A word that starts a statement's predicate: a form of be/have/do, a modal, a negation, a dating word, an
    irregular verb form, an imperative, or — after a word that is no article — a word in -s or -ed."""
    if word in _PREDICATE or word in FILLER or word in PAST_FORMS or word in THIRD_PERSON.values():
        return True
    if not before:
        return word in _IMPERATIVES or word in _ADVERBS
    if before in _DETERMINERS:
        return False
    if word in _BASE_VERBS:  # "Summaries use…", "Backups run…"
        return True
    return (word.endswith("s") and not word.endswith(("ss", "us", "is"))) or word.endswith("ed")


def is_rule(text: str) -> bool:
    """A standing rule for the agent ("Always ask…", "Never run…", "Agent must not…"), not a fact about a thing."""
    return bool(_RULE.match(text.strip().lstrip("-*+ ").strip()))


def _negated(new: str, old: str) -> bool:
    """The same statement, negated or with the other kind of modal ("Agent may now run migrations" for "Agent
    must not run migrations"), or said to be no longer so in another language ("Ya no vivo en Rosario" for
    "Vivo en Rosario": text/grammar.py `no_longer_so`)."""
    left, right = read_words(new), read_words(old)
    if left == right and bool(left) and not same_polarity(new, old):
        return True
    was = no_longer_so(new)
    return bool(was) and read_words(was) == right and bool(right)


@lru_cache(maxsize=16384)
def read_words(text: str) -> frozenset[str]:
    """The stems a statement says, without negations, modals or whom it is about."""
    return frozenset(stem(w) for w in plain_words(text)
                     if w not in STOPWORDS and w not in FILLER and w not in MODALS and w not in _NOBODY)


def _values_changed(new: str, old: str) -> bool:
    """The same words around other names or numbers ("reply in under 250 words" for "… under 100 words"): a
    rule's value changed, not another rule."""
    left, right = read_words(new), read_words(old)
    mine, theirs = _values(new), _values(old)
    return bool(left - mine) and left - mine == right - theirs and mine != theirs and same_polarity(new, old)


def _names_in(phrase: str) -> frozenset[str]:
    """The names and numbers of a phrase (not a sentence: its first word is a name when it is capitalised)."""
    return frozenset(stem(w) for w in words(" ".join(re.findall(r"\b[A-Z][\w.-]*|\S*\d\S*", phrase))))


def _values(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words(" ".join(_VALUE.findall(text))))


def _same_copula_subject(new: str, old: str) -> bool:
    """"The port is now 8081" and "The port is 8080": one subject, said to be two things."""
    left, right = _COPULA.match(new.strip()), _COPULA.match(old.strip().lstrip("-*+ "))
    return (left is not None and right is not None and stems(left.group("subject")) == stems(right.group("subject"))
            and bool(stems(left.group("subject"))))


def _slot(line: Candidate) -> Slot | None:
    return user_slot(line.text) if _is_user(line) else slot_of(line.text)


def _about(candidate: Candidate) -> frozenset[str]:
    """The candidate's stems; a USER.md line is about the user even when it does not name them."""
    found = stems(candidate.text)
    return found | USER_SUBJECT if _is_user(candidate) else found


def _is_user(candidate: Candidate) -> bool:
    return candidate.path == USER


def _same_words(a: str, b: str) -> bool:
    """The same fact in other order, case or markers ("no longer" included: that is a change)."""
    return fact_key(a) == fact_key(b)


def value_change(old: str, new: str, *, about_user: bool = False) -> Change:
    """What changed from line `old` to line `new`."""
    return Change(_changed(old, new, about_user), _changed(new, old, about_user))


def _changed(old: str, new: str, about_user: bool) -> tuple[str, ...]:
    """The words of `old`'s value that `new` changed: the value `new` names as the old one, else the slot's old
    value, else the words of `old` that `new` dropped; the distinctive ones (names, identifiers) when it has any."""
    named = explicit_old_value(new)
    if named and stems(named) <= stems(old):
        return _distinct(named.split())
    slot = user_slot(old) if about_user else slot_of(old)
    if slot is not None and slot_of(new) is not None:
        return _distinct(slot.value.split(",")[0].split())
    dropped = stems(old) - stems(new) - USER_SUBJECT  # the user is who a fact is about, never its value
    tokens = re.findall(r"[\w./:@-]+", old)
    kept = [(w, index == 0) for index, w in enumerate(tokens) if stems(w) and stems(w) <= dropped]
    return _distinct([w for w, _ in kept], opening=bool(kept) and kept[0][1])


def _distinct(tokens: list[str], *, opening: bool = False) -> tuple[str, ...]:
    """The words of a value that identify it: names and identifiers when it has some, else its longer words.
    `opening`: the first token opens a sentence, so its capital says nothing."""
    tokens = [w.strip(".,;:") for w in tokens]
    found = [(w, index == 0 and opening) for index, w in enumerate(tokens) if w and stems(w) - USER_SUBJECT]
    named = [w for w, first in found if (_CODE if first else _DISTINCT).search(w)]
    return tuple(dict.fromkeys(named or [w for w, _ in found if len(w) >= 4]))


def names_old_value(line: str, change: Change) -> bool:
    """Whether `line` names the value that stopped being true (one of its words) and none of what replaced it:
    a line written in terms of the old value, not yet revised."""
    held = stems(line)
    return _names(held, change.old) and not _names(held, change.new)


def _names(held: frozenset[str], value: Sequence[str]) -> bool:
    return any(stems(word) and stems(word) <= held for word in value)


def restates(old: Candidate, line: Candidate, change: Change) -> bool:
    """Whether `line` only repeats part of the replaced line `old`, in terms of its old value: untrue with it."""
    return names_old_value(line.text, change) and _about(line) <= _about(old)
