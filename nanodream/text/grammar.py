r"""The grammar nanodream reads: negation, prohibition, obligation, condition, speech and filler, in one place.

Ingest's rules, the builtin engine, the guards and the accounting all ask what a sentence negates, forbids, asks
for, makes conditional or reports; they take the words for it from here, so each is spelled once, in a data file a
person can read and extend: `negations.tsv` (the negating words by kind), `negated-auxiliaries.tsv` ("won't" is
"will not"), `modal-words.tsv`, `antonyms.tsv` (a word that says its partner negated), and the other languages'
negations and negating verbs the guards count (`rule-negations.txt`, `rule-negative-verbs.txt`,
`rule-not-negations.txt`).

- Fragments to compose patterns from (`rf"^{DO_NOT}\s+(?P<rest>.+)"`): regex source without groups that capture
  or `\b` of its own, written for re.IGNORECASE — NEGATION, NOT, NEVER, NO, NEGATIVE_PRONOUN, WITHOUT,
  CONTRACTED_NOT, `not_after(*auxiliaries)`, DO_NOT, PROHIBITION, and `alternation(words)` for a list of the
  caller's own.
- Word sets: NEGATORS, NEGATED_FORMS, MODALS.
- Two readings of negation over the same lists. A statement's polarity: its words with the negation taken out
  (`plain_words`), whether it is negated (`is_positive`: the parity of its negations, so "User is not allergic"
  says the opposite of "User is allergic"), its modal (`modality`: an obligation or a permission). A rule's
  negation scope (`forbids`): the negations right before a verb read as a chain, so "never send" forbids the
  sending and "never refuse to send" orders it; `forbidden_after` ("sending X is never allowed"); `negated` for a
  clause in a language of negative concord ("ne … jamais … personne" is one negation); `has_negation`.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from nanodream.text.cuewords import Cues, cues
from nanodream.text.lists import language_codes, language_file, table, wordlist
from nanodream.text.words import words

# words ----------------------------------------------------------------------------------------------------------

_NEGATIONS = table("negations")
_AUXILIARIES = {auxiliary: tuple(forms.split()) for auxiliary, forms in table("negated-auxiliaries")}


def _of_kind(*kinds: str) -> tuple[str, ...]:
    return tuple(word for word, kind in _NEGATIONS if kind in kinds)


# Tokens a contraction leaves behind when it is not expanded first ("don't" read as "don" + "t").
_ARTEFACTS = frozenset(_of_kind("token"))
# Every word that negates what it stands in, one word each: "not", "never", "without", "avoid", "except" …
NEGATORS = frozenset(word for word, _ in _NEGATIONS if " " not in word) - _ARTEFACTS
# A word that says its partner, negated ("disabled" → "enabled"), and the partner.
NEGATED_FORMS = {negative: positive for positive, negative in table("antonyms")}
MODALS = {word: kind for word, kind in table("modal-words")}

# fragments ------------------------------------------------------------------------------------------------------


def _spelled(phrase: str) -> str:
    """A phrase as a pattern: its words in a row (any whitespace between them), an apostrophe straight, curly or
    left out ("don't" also finds "don’t" and "dont")."""
    return r"\s+".join(re.escape(word).replace("'", "['’]?") for word in phrase.split())


def alternation(phrases: tuple[str, ...] | frozenset[str] | list[str]) -> str:
    """One group that matches any of `phrases`, the longest first ("no one" before "no")."""
    return "(?:" + "|".join(_spelled(phrase) for phrase in sorted(set(phrases), key=lambda p: (-len(p), p))) + ")"


NOT = alternation(_of_kind("particle"))
NEVER = alternation(_of_kind("adverb"))
NO = alternation(_of_kind("determiner"))
NEGATIVE_PRONOUN = alternation(_of_kind("pronoun"))
WITHOUT = alternation(_of_kind("preposition"))
# Any word that negates the clause it stands in ("no", "not", "never", "nothing", "without", "zero" …).
NEGATION = alternation(_of_kind("particle", "adverb", "determiner", "pronoun", "correlative", "preposition",
                                "number"))
# The "not" a contraction ends in: "doesn't", "isn’t" (a caller puts what may stand before it).
CONTRACTED_NOT = r"n['’]t"


def _negated_forms(auxiliary: str) -> tuple[str, ...]:
    """Every way to write `auxiliary` negated: "should not", "shouldn't"; "can not", "can't", "cannot"."""
    return (f"{auxiliary} not", *_AUXILIARIES.get(auxiliary, ()))


def not_after(*auxiliaries: str) -> str:
    """One group for the auxiliaries negated, in every spelling: `not_after("must", "should")` finds "must not",
    "mustn't", "should not", "shouldn’t", "shouldnt"."""
    return alternation([form for auxiliary in auxiliaries for form in _negated_forms(auxiliary)])


# A negated auxiliary typed without its apostrophe ("cant", "isnt", "didnt"), and its form with one.
_UNMARKED = {form.replace("'", ""): form for forms in _AUXILIARIES.values() for form in forms if "'" in form}
_UNMARKED_WORD = re.compile(rf"\b(?:{'|'.join(sorted(_UNMARKED, key=len, reverse=True))})\b", re.IGNORECASE)


def with_apostrophes(text: str) -> str:
    """`text` with each negated auxiliary typed without its apostrophe written with one ("i cant log in" → "i can't
    log in"), so a rule that reads "can't" reads it whatever the keyboard: never "User cants log in"."""
    def marked(match: re.Match[str]) -> str:
        form = _UNMARKED[match.group(0).lower()]
        return form[:1].upper() + form[1:] if match.group(0)[:1].isupper() else form

    return _UNMARKED_WORD.sub(marked, text)


DO_NOT = not_after("do")
# What opens an order not to do something: "never …", "don't …", "do not …"; as single words ("never", "don't",
# "dont"), for a reader that looks at an order's first word.
PROHIBITION = f"(?:{NEVER}|{DO_NOT})"
PROHIBITION_WORDS = frozenset({*_of_kind("adverb"), *(form.replace("'", mark) for form in _AUXILIARIES["do"]
                                                       for mark in ("'", "’", ""))})

# A state that ended: "no longer", "not any more".
NO_LONGER = rf"(?:{NO}\s+longer|{NOT}\s+any\s*more)"
# What makes a sentence an obligation: "must", "should", "have to" … (MODAL_OBLIGATION: the modals alone).
OBLIGATION = alternation([phrase for phrase, _ in table("obligations")])
MODAL_OBLIGATION = alternation([phrase for phrase, kind in table("obligations") if kind == "modal"])
# What opens a condition: "when", "if", "unless", "before" …
CONDITION = alternation(wordlist("conditions"))

# speech ---------------------------------------------------------------------------------------------------------

_FORMS = ("base", "third", "past", "participle", "gerund")
_SPEECH = tuple((dict(zip(_FORMS, row[:5], strict=True)), frozenset(row[5].split())) for row in table("speech-verbs"))


def said(kind: str, *forms: str) -> frozenset[str]:
    """The verbs of saying of `kind` (speech-verbs.tsv) in `forms` (base, third, past, participle, gerund):
    `said("repeat", "past")` → {"said", "told", "asked", "mentioned"}."""
    return frozenset(verb[form] for verb, kinds in _SPEECH if kind in kinds for form in forms) - {"-"}


def speech(kind: str, *forms: str) -> str:
    """`said(kind, *forms)` as one group for a pattern: `speech("repeat", "past")` finds "told", "said" …"""
    return alternation(said(kind, *forms))


# readings of a statement ----------------------------------------------------------------------------------------

# Contractions whose auxiliary is not their first letters ("won't" is "will not", "can't" "can not"), or written as
# one word ("cannot"); any other "n't" is " not" after its auxiliary ("doesn't" → "does not").
_IRREGULAR = {form: auxiliary for auxiliary, forms in _AUXILIARIES.items() for form in forms
              if not form.lower().startswith(f"{auxiliary}n'")}
_CONTRACTION = re.compile(rf"\b(?P<irregular>{alternation(tuple(_IRREGULAR))})\b|{CONTRACTED_NOT}\b", re.IGNORECASE)
_APOSTROPHES = re.compile("['’]")
_UNCONTRACTED = {_APOSTROPHES.sub("", form).lower(): auxiliary for form, auxiliary in _IRREGULAR.items()}
# "not only X but Y" says X.
_NOT_ONLY = re.compile(rf"\b{NOT}\s+(?:only|just|merely)\b", re.IGNORECASE)


def expanded(text: str) -> str:
    """The text with contractions of "not" written out: "don't" → "do not", "can't" → "can not"."""
    def full(match: re.Match[str]) -> str:
        irregular = match.group("irregular")
        return f"{_UNCONTRACTED[_APOSTROPHES.sub('', irregular).lower()]} not" if irregular else " not"
    return _CONTRACTION.sub(full, text)


@lru_cache(maxsize=16384)
def _reading(text: str) -> tuple[tuple[str, ...], bool]:
    """The words without negations (negated forms as their partners), and whether the statement is positive."""
    plain, negations = [], 0
    for word in words(_NOT_ONLY.sub(" ", expanded(text))):
        if word in NEGATORS:
            negations += 1
        elif word in NEGATED_FORMS:
            negations += 1
            plain.append(NEGATED_FORMS[word])
        elif word not in _ARTEFACTS:
            plain.append(word)
    return tuple(plain), negations % 2 == 0


def plain_words(text: str) -> tuple[str, ...]:
    """The statement's words with its negations taken out: "is not allergic" → ("is", "allergic")."""
    return _reading(text)[0]


def is_positive(text: str) -> bool:
    """Whether the statement holds what its plain words say (an even number of negations)."""
    return _reading(text)[1]


def modality(text: str) -> str:
    """"must" for an obligation, "may" for a permission, "" when the statement uses no modal word."""
    kinds = {MODALS[word] for word in plain_words(text) if word in MODALS}
    return kinds.pop() if len(kinds) == 1 else ""


def same_polarity(a: str, b: str) -> bool:
    """Both statements are negated alike and, when both use a modal, the same kind of modal."""
    left, right = modality(a), modality(b)
    return is_positive(a) == is_positive(b) and (not left or not right or left == right)


# no longer, in other languages ------------------------------------------------------------------------------------

# Where a language's words saying "no longer" stand apart, the statement's own words between them ("kein … mehr").
_KEPT = "…"


@cache
def _no_longer() -> tuple[tuple[re.Pattern[str], bool, frozenset[str]], ...]:
    """Each language's `[negation] no_longer` phrases as patterns (the words between their parts in groups), with
    whether the language is written without spaces and the words it elides before a vowel (`elides`)."""
    found = []
    for code in language_codes():
        data = language_file(code) or {}
        table_of, characters = data.get("negation", {}), data.get("match") == "characters"
        gap = r"\s*" if characters else r"\s+"
        for phrase in sorted(table_of.get("no_longer", ()), key=len, reverse=True):
            parts = [gap.join(map(re.escape, part.split())) for part in phrase.split(_KEPT)]
            between = [f"(?P<k{number}>.+?)" for number in range(len(parts) - 1)]
            body = "".join(part + (f"{gap}{between[n]}{gap}" if n < len(between) else "")
                           for n, part in enumerate(parts)).replace(f"'{gap}", "'")
            edges = ("", "") if characters else (r"(?<!\w)", r"(?!\w)")
            found.append((re.compile(f"{edges[0]}{body}{edges[1]}", re.IGNORECASE), characters,
                          frozenset(table_of.get("elides", ()))))
    return tuple(found)


@lru_cache(maxsize=16384)  # asked of every line a fact is compared with
def no_longer_so(sentence: str) -> str:
    """What a statement in another language says is no longer so, said as when it was ("Ich bin kein Vegetarier
    mehr" → "Ich bin Vegetarier", "Ya no vivo en Rosario" → "vivo en Rosario", "我已经不住在北京了" → "我住在北京");
    "" when it says no such thing in any language's `[negation] no_longer`."""
    for pattern, characters, elides in _no_longer():
        match = pattern.search(sentence)
        if match is None:
            continue
        kept = ("" if characters else " ").join(part for name, part in sorted(match.groupdict().items()) if part)
        said = f"{sentence[:match.start()]}{kept}{sentence[match.end():]}" if characters else " ".join(
            f"{sentence[:match.start()]} {kept} {sentence[match.end():]}".split())
        said = re.sub(r"\s+(?=[.,;:!?])", "", _elided(said, elides).strip())
        return said[:1].upper() + said[1:] if sentence[:1].isupper() else said
    return ""


def _elided(text: str, elides: frozenset[str]) -> str:
    """"Je habite" as French writes it, "J'habite": a word the language elides before a vowel."""
    if not elides:
        return text
    pattern = rf"(?<!\w)({alternation(sorted(elides))})\s+(?=[aeiouhàâéèêîôûœ])"
    return re.sub(pattern, lambda match: match.group(1)[:-1] + "'", text, flags=re.IGNORECASE)


# readings of a rule ---------------------------------------------------------------------------------------------

CHAIN_GAP = 3  # words between a verb and the negation governing it, and between two links of the chain
_ASK_FIRST = re.compile(r"\bask\s+(?:the\s+user\s+)?(?:before|first)\b|\bcheck\s+with\s+the\s+user\s+first\b",
                        re.IGNORECASE)
_GAP = re.compile(rf"(?:\s+(?!(?:then|but)\b)[\w'’-]+){{0,{CHAIN_GAP}}}\s*", re.IGNORECASE)


def _english_negations() -> tuple[str, ...]:
    """The English negations as cues of rule-negations.txt's form: the words that negate a clause, and every
    negated auxiliary with its apostrophe straight, curly or left out."""
    negating = _of_kind("particle", "adverb", "determiner", "pronoun", "correlative")
    forms = [form for auxiliary in _AUXILIARIES for form in _AUXILIARIES[auxiliary]]
    return (*negating, *(spelling for form in forms
                         for spelling in {form, form.replace("'", "’"), form.replace("'", "")}))


@cache
def _negation_cues() -> Cues:
    """Every language's negations: rule-negations.txt, and the English ones of this module's tables."""
    return cues("rule-negations", _english_negations())


def _without_idioms(text: str) -> str:
    """The text without phrases that hold a negation's word but negate nothing ("not only", "不断")."""
    return cues("rule-not-negations").without(text)


@lru_cache(maxsize=4096)
def forbids(before: str) -> bool:
    """Whether `before` — the text right before a verb — ends in an odd chain of negations.

    The negations before a verb are read as a chain — the one nearest the verb, then the one governing that, each
    within CHAIN_GAP words of the next (a comma, "then" or "but" ends the chain) — so "never send" forbids the
    sending and "never refuse to send", "don't ever fail to send", "nothing should stop you from sending" order it.
    A link is a negation of any language, a negating verb (rule-negative-verbs.txt: "refuse", "fail", "stop") or
    "ask before"/"ask the user first", which restricts the verb like a negation. Kept per text: a long line repeats
    its shapes, and each verb's window is read once."""
    plain = _without_idioms(before) if "not" in before.lower() else before
    links = sorted(_links(plain), key=lambda span: span[0])
    count, end = 0, len(plain)
    while True:
        governing = next((span for span in reversed(links)
                          if span[1] <= end and _GAP.fullmatch(plain, span[1], end)), None)
        if governing is None:
            return count % 2 == 1
        count, end = count + 1, governing[0]
        links = [span for span in links if span[1] <= end]


def _links(text: str) -> list[tuple[int, int]]:
    spans = {match.span() for found in (_negation_cues(), cues("rule-negative-verbs"))
             for match in found.finditer(text)}
    return sorted(spans | {match.span() for match in _ASK_FIRST.finditer(text)})


# The person's say-so a prohibition waits for: "… without asking me", "… unless the user approves", "… until I say
# go", "… without my explicit approval". What it names is the one the rule protects.
_CONSENT = re.compile(
    rf"\s*,?\s*\b(?:{WITHOUT}|unless|until|before)\s+(?:first\s+)?(?:asking|checking\s+with|consulting|getting|"
    r"(?:my|the\s+user['’]s|their|your)\s+(?:explicit\s+|written\s+)?(?:approval|permission|consent|ok|okay|"
    r"go-ahead|sign-off)|(?:I|the\s+user|they)\s+(?:say|says|said|approve|approves|confirm|confirms|agree|agrees|"
    r"give|gives|ok|okay|tell|tells)\b)[^.;!?]*", re.IGNORECASE)


# Telling the person first, what a prohibition asks for: "Never restart the server without telling me" — kept
# informed, not kept in the dark ("Delete the logs without telling the user" has no prohibition before it).
_TOLD_FIRST = re.compile(
    rf"\s*,?\s*\b{WITHOUT}\s+(?:first\s+)?(?:telling|informing|notifying|alerting|warning|letting\s+(?:me|the\s+user"
    r"|them|him|her)\s+know)\b[^.;!?]*", re.IGNORECASE)


def without_consent(rule: str) -> str:
    """A rule without the say-so it waits for ("Don't push to main without asking the user." → "Don't push to
    main.") or the telling it asks for ("Never deploy without telling the user first." → "Never deploy."): a guard
    for the person, who it names only to be asked or told."""
    rule = _CONSENT.sub("", rule)
    told = _TOLD_FIRST.search(rule)
    return rule[:told.start()] + rule[told.end():] if told and forbids(rule[:told.start()]) else rule


# A prohibition after what it forbids: "forwarding every message to an outside address is never allowed".
_FORBIDDEN_AFTER = re.compile(
    rf"\b(?:is|are|was|be)\s+(?:(?:{NEVER}|{NOT}|{CONTRACTED_NOT})\s+(?:\w+\s+)?(?:allowed|permitted|acceptable|ok"
    r"|okay|fine|wanted|an\s+option)|(?:strictly\s+|absolutely\s+|always\s+)?(?:forbidden|prohibited|banned"
    r"|off[\s-]limits|disallowed|out\s+of\s+the\s+question))\b", re.IGNORECASE)


def forbidden_after(after: str) -> bool:
    """Whether the rest of a clause that opens with an act ("uploading .env files …") forbids it."""
    return bool(_FORBIDDEN_AFTER.search(after))


def negated(clause: str) -> bool:
    """Whether a clause in a language of negative concord forbids what it says.

    The languages the guards read by their cues mark one negation with several words ("ne … jamais … personne",
    "nunca … a nadie", "non … mai … nessuno") and put it after the verb as often as before ("sende niemals",
    "送らないで"), so the clause is read whole: it forbids what it says when it holds a negation or a negating verb,
    not both ("nunca te niegues a enviar …", "weigere dich nie …", "绝不拒绝 …" order it)."""
    plain = _without_idioms(clause)
    return _negation_cues().found(plain) != cues("rule-negative-verbs").found(plain)


def has_negation(text: str) -> bool:
    """Whether `text` holds a negation of any language (a phrase like "not only" aside)."""
    return _negation_cues().found(_without_idioms(text))
