"""Explicit statements in the person's own language, read from one data file per language (`data/lang-<code>.toml`).

The built-in rules read what a rule can read reliably in any language: a rule addressed to the agent ("always …",
"never …", "from now on …", "remember …"), a statement about the person ("I am …", "my name is …", "I prefer …",
"call me …", and "my <detail> is …" for each of their details in data/personal-keys.txt), a stated decision ("we
decided …"), and what the person asks to remember ("remember that …": read as what it states, or a fact of the
project). Each language's file lists the words that mark them (its header says how to extend it); this module
only finds them. A statement is filed in the person's own words: the sentence as they wrote it, never translated
or restated.

`read(sentences, language)` reads one message: its statements, and whether anything else of substance is left —
which the rules cannot judge in that language, so the message waits for a model (backlog/waiting.py). Small talk
is read as nothing; pasted structure never reaches it (text/sentences.py leaves it out). `kind_of(line, language)`
tells the built-in engine where a tagged line in that language goes.

English has richer rules of its own (ingest/extractors/rules.py); its file gives what those do not read: a
"remember this" that points at the sentence before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from typing import Any

from nanodream.text.attributes import attribute_held, attribute_in, cut, said_anew, unowned_value
from nanodream.text.grammar import no_longer_so
from nanodream.text.language import language_of
from nanodream.text.lists import language_codes, language_file, phrases, wordlist
from nanodream.text.sentences import adds_to_a_file
from nanodream.text.stems import CUE_WORD, cue_words
from nanodream.text.structure import PERSONAL_KEYS, KeyValues, personal_key
from nanodream.text.words import RELATIONS, THAI, words

UNDETERMINED = "und"
RULE, PERSON, DECISION, FACT = "rule", "person", "decision", "fact"
ROLES = tuple(dict.fromkeys(role.lower() for role in phrases("roles")))
# Words that say a trade is held beside another, or no longer, not instead of it ("also a mentor").
_BESIDE = frozenset({"also", "too", "sometimes", "part-time", "former", "ex", "retired"})
# A trade is said in a few words ("senior data scientist").
_ROLE_WORDS = 5
_TOOL_WORDS = re.compile(r"`|\b(?:git|gh|grep|rg|ripgrep|pytest|npm|pnpm|yarn|pip|uv|docker|make|cli|shell|bash|"
                         r"terminal|linter|formatter|ci)\b", re.IGNORECASE)
_WORD = re.compile(r"\w+'(?=\w)|[\w-]+")  # an elided article or pronoun stands alone: "j'habite" is "j'", "habite"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_LETTER = re.compile(r"[^\W\d_]")
# A question mark at the end, or a question's closing particle typed without one: Chinese 吗, Japanese ですか/ますか,
# Korean 까요/나요 ("还记得怎么把.openclaw文件备份到GitHub吗" asks; it states nothing).
_QUESTION = re.compile(r"(?:[?？]|[吗嗎]|(?:です|ます|でしょう)か|(?:까요|나요|습니까))\s*[\"'”」』)）]*\s*[。.]?\s*$")
# Fewer letters than this (a CJK character counts three) say no statement a rule reads.
MIN_LETTERS = 12
# Fewer letters than this say nothing a model would keep ("ok", "danke", "好的"); "Tengo asma." (9) does.
TRIVIAL_LETTERS = 8
CJK_SENTENCE = 3
# In a language the rules do not read, a word or two may be all a statement takes ("اسمي أحمد", "my name is Ahmed"):
# the engine cannot tell, so what has this many letters waits for a model.
ANY_WORD = 4
# What a "remember this" may hold besides its cue, in letters: "Merk dir das bitte." still only points back.
POINTING_SLACK = 9


@dataclass(frozen=True)
class Cues:
    """A list of cues of one language, found the way its file says: a cue of several words is found word for word
    in a row; `~` after a word lets the sentence's word go on ("lieblings~": "Lieblingsfarbe"), before it lets it
    begin with more ("~주세요": "대답해주세요"). In a language written without spaces, a cue is found anywhere.

    The list is one regular expression over the sentence's words, each between spaces (or its characters, run
    together): a word's position is the number of spaces before it.
    """

    items: tuple[tuple[str, ...], ...] = ()
    characters: bool = False

    @cached_property
    def _alternatives(self) -> str:
        joiner = "" if self.characters else " "
        parts = [joiner.join(_word_pattern(word, self.characters) for word in cue) for cue in self.items]
        return "|".join(f"(?:{part})" for part in sorted(parts, key=len, reverse=True))

    @cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        return re.compile(self._alternatives) if self.items else None

    @cached_property
    def _ending(self) -> re.Pattern[str] | None:
        return re.compile(f"(?:{self._alternatives})" + ("$" if self.characters else " $")) if self.items else None

    @cached_property
    def _anchors(self) -> tuple[frozenset[str], tuple[str, ...]]:
        """A word each cue must hold: whole words (one of the sentence's words) and parts of words (found inside
        one). A sentence holding none of them needs no regular expression."""
        whole, parts = set(), set()
        for cue in self.items:
            plain = [word for word in cue if "~" not in word]
            if plain and not self.characters:
                whole.add(max(plain, key=len))
            else:
                parts.add(max((word.strip("~") for word in cue), key=len))
        return frozenset(whole), tuple(sorted(parts))

    def _may_hold(self, tokens: list[str], text: str) -> bool:
        whole, parts = self._anchors
        return not whole.isdisjoint(tokens) or any(part in text for part in parts)

    def span(self, tokens: list[str]) -> tuple[int, str, str]:
        """The earliest cue in `tokens`: where it starts (-1: nowhere), and the sentence's words before and after
        it, run together."""
        if self._pattern is None:
            return -1, "", ""
        text = _joined(tokens, self.characters)
        if not self._may_hold(tokens, text):
            return -1, "", ""
        match = self._pattern.search(text)
        if match is None:
            return -1, "", ""
        start = match.start() if self.characters else text.count(" ", 0, match.start()) - 1
        return start, text[:match.start()], text[match.end():]

    def at(self, tokens: list[str]) -> int:
        """Where the earliest cue starts in `tokens` (-1: none is there)."""
        return self.span(tokens)[0]

    def bounds(self, tokens: list[str]) -> tuple[int, int]:
        """Where the earliest cue starts and where it ends, in words (characters); (-1, -1): none is there."""
        start, _, after = self.span(tokens)
        if start < 0:
            return -1, -1
        rest = len(after) if self.characters else len(after.split())
        return start, len(tokens) - rest

    def within(self, tokens: list[str], opening: int) -> bool:
        """A cue starting among the first `opening` words (characters), or anywhere when `opening` is 0."""
        start = self.at(tokens)
        return start >= 0 and (not opening or start < opening)

    def ends(self, tokens: list[str]) -> bool:
        """Whether the sentence's last words (characters), punctuation aside, are one of the cues."""
        if self._ending is None:
            return False
        words = [token for token in tokens if _LETTER.search(token)]
        text = _joined(words, self.characters)
        return self._may_hold(words, text) and self._ending.search(text) is not None


def _joined(tokens: list[str], characters: bool) -> str:
    return "".join(tokens) if characters else " " + " ".join(tokens) + " "


def _word_pattern(word: str, characters: bool) -> str:
    """One word of a cue as a pattern: the whole word, or with `~` a word that goes on or begins with more."""
    if characters:
        return re.escape(word)
    before = r"(?<= )\S*" if word.startswith("~") else "(?<= )"
    after = r"\S*(?= )" if word.endswith("~") and len(word) > 1 else "(?= )"
    return before + re.escape(word.strip("~")) + after


@dataclass(frozen=True)
class Language:
    """One data file: the cues of each kind of statement in that language and how they are found."""

    code: str
    name: str
    characters: bool  # written without spaces: cues are found character by character
    rule: dict[str, Any] = field(default_factory=dict)
    person: dict[str, Any] = field(default_factory=dict)
    fact: dict[str, Any] = field(default_factory=dict)
    cues: dict[str, Cues] = field(default_factory=dict)

    def tokens(self, text: str) -> list[str]:
        """The sentence as cues are looked for in it: lowercase words, or characters without spaces."""
        text = text.replace("’", "'").lower()
        if self.characters:
            return [char for char in text if not char.isspace()]
        return _WORD.findall(text)

    def __getitem__(self, name: str) -> Cues:
        return self.cues[name]


_LISTS = {"rule": ("cues", "first", "endings", "prohibitions", "subjects", "not_subjects", "standing", "not_standing",
                   "remember_this", "idioms", "addressed", "always", "courtesy", "every_time", "past", "not_past"),
          "reply": ("languages", "manners", "verbs", "not_after"),
          "person": ("identity", "preference", "not", "self", "mine", "is", "noun_after", "noun_not", "am"),
          "decision": ("cues", "options", "pointers", "conditions"), "fact": ("ours", "not"),
          "remember": ("that", "opens", "to", "to_later", "records", "nominalisers", "forget"),
          "scope": ("words", "things", "unless", "lasting", "reasons"),
          "small_talk": ("phrases", "lead_ins"), "user": ("names",), "agent": ("naming", "not_names"),
          "request": ("cues",), "lists": ("rules",)}


@cache
def read_languages() -> frozenset[str]:
    """The languages the built-in rules read: every language with a data file, and text too short to tell."""
    return frozenset({UNDETERMINED, *language_codes()})


# A word of a message too short for the model to place, that one language's cues use and that the model gives to
# that language alone this surely ("tengo", "wohne", "ich"; not "super" or "meeting", which English shares).
CUE_WORD_CONFIDENCE = 0.9


def cue_language(text: str) -> str:
    """The language other than English a few words are in, told by a word of its cues ("Tengo asma." is Spanish by
    "tengo"), or "": so a message the model cannot place is not read as English and consumed unread."""
    owners = _cue_word_owners()
    for word in CUE_WORD.findall(text.lower()):
        code = owners.get(word, "")
        if code and language_of(word, CUE_WORD_CONFIDENCE, min_letters=0) == code:
            return code
    return ""


@cache
def _cue_word_owners() -> dict[str, str]:
    """Each cue word one language's file alone uses (not English's, nor two languages'), and that language."""
    owners: dict[str, str] = {}
    for code, found in cue_words().items():
        for word in found:
            owners[word] = "" if word in owners else code
    return {word: code for word, code in owners.items() if code and code != "en"}


@cache
def language(code: str) -> Language | None:
    """The data file of language `code` (None: the rules do not read it)."""
    data = language_file(code)
    if data is None:
        return None
    characters = data.get("match") == "characters"
    spec = Language(code=data["code"], name=data["name"], characters=characters, rule=data.get("rule", {}),
                    person=data.get("person", {}), fact=data.get("fact", {}))
    for section, names in _LISTS.items():
        for name in names:
            items = data.get(section, {}).get(name, ())
            spec.cues[f"{section}.{name}"] = Cues(tuple(_cue(item, characters) for item in items), characters)
    return spec


@cache
def _details(characters: bool, particles: bool) -> Cues:
    """The person's details (data/personal-keys.txt) as cues: a detail may open a compound ("GitHub-Name"), and in a
    language that glues its particles to the noun (`person.particles`: "이메일은") it may go on."""
    keys = [key for key in PERSONAL_KEYS if len(key) > 1]
    forms = [f"{key}~" if particles else key for key in keys] + ([] if characters else [f"{key}-~" for key in keys])
    return Cues(tuple(_cue(form, characters) for form in forms), characters)


# A cue's words as the sentence's are cut (`_WORD`): an elided article or pronoun is a word of its own, at the end of
# a cue too ("pas d'", "c'").
_CUE_WORD = re.compile(r"~?(?:\w+'(?=\w)|\w+'(?!\S)|[\w-]+)~?")


def _cue(item: str, characters: bool) -> tuple[str, ...]:
    """A cue as it is looked for: its words (each with its `~`), or its characters."""
    text = item.replace("’", "'").lower()
    if characters:
        return tuple(char for char in text if not char.isspace())
    return tuple(_CUE_WORD.findall(text))


def is_question(sentence: str) -> bool:
    """A question, not a statement closed by a tag that asks for a nod ("Sempre me responda em português, tá?",
    "Antworte immer auf Deutsch, ok?")."""
    return bool(_QUESTION.search(sentence)) and not _TAG_QUESTION.search(sentence)


def without_tag_question(sentence: str) -> str:
    """The statement a tag asking for a nod closes ("Always use pnpm for installs, ok?": "Always use pnpm for
    installs."); any other sentence as it is."""
    tag = _TAG_QUESTION.search(sentence)
    return sentence if tag is None else tidy(sentence[:tag.start()])


# A short word after a comma, then the question mark: a tag asking for agreement ("ok?", "tá?", "beleza?",
# "d'accord ?", "n'est-ce pas ?"), not a question.
_TAG_QUESTION = re.compile(r"[,，、]\s*(?:[^\W\d_]{1,7}|d['’]accord|n['’]est-ce pas|all right)\s*[?？]\s*$")


def substance(sentence: str) -> int:
    """How much a sentence says, in letters (a CJK character counts three: it is a word more than a letter)."""
    cjk = len(_CJK.findall(sentence))
    return len(_LETTER.findall(sentence)) - cjk + 3 * cjk


def trivial(sentence: str, spec: Language) -> bool:
    """Small talk, or too short to say anything a model would keep ("Danke!", "好的", "ok, gracias"). Written in
    characters, three say a sentence ("你叫小Q": the agent's name; "我姓王": the person's): only small talk is."""
    if substance(sentence) < TRIVIAL_LETTERS and not (spec.characters and len(_CJK.findall(sentence)) >= CJK_SENTENCE):
        return True
    rest = sentence
    while (opening := spec["small_talk.phrases"].span(spec.tokens(rest)))[0] == 0:
        rest = opening[2]  # "ok, gracias, perfecto": small talk after small talk
        if not substance(rest):
            return True
    return rest != sentence and substance(rest) < TRIVIAL_LETTERS  # not "No me respondas en inglés"


# A quotation: what someone or something else said or wrote ('Im Log steht: "Immer neu starten …"', '日志上写着：
# "每次都要重启服务。"'), in any script's quotation marks.
_QUOTED = re.compile(r'"[^"\n]{2,}"|“[^”\n]{2,}”|„[^“”\n]{2,}[“”]|«[^»\n]{2,}»|「[^」\n]{2,}」|『[^』\n]{2,}』')
# What makes a quotation the person's own words to keep: a reminder ("Merk dir: "…"") before it.
_KEEPING = ("rule.standing", "rule.remember_this", "remember.that")


def statement(sentence: str, spec: Language) -> Statement | None:
    """The explicit statement a sentence makes in `spec`'s language, or None. A quotation in it is someone else's
    words, read for nothing, unless the person asks to keep it; what they say around it is read as ever."""
    sentence = without_tag_question(_without_lead_in(sentence, spec))  # "…, beleza?": a nod asked, no question
    if _mixed(sentence, spec):
        return None  # "Mi nombre es Kenneth, te vas a llamar Batista, contéstame educadamente, vivo en …": a model's
    outside = _QUOTED.sub(" ", sentence)
    if outside != sentence and substance(outside) >= ANY_WORD and not _kept_quote(sentence, outside, spec):
        found = _stated(outside, spec)
        return Statement(found.kind, tidy(sentence), found.section) if found is not None else None
    return _stated(sentence, spec)


def _without_lead_in(sentence: str, spec: Language) -> str:
    """The sentence without a word that only leads into it ("ところで、私は看護師です。": 私は看護師です。)."""
    match = _lead_in(spec.code).match(sentence)
    return sentence[match.end():] if match and match.end() < len(sentence) else sentence


@cache
def _lead_in(code: str) -> re.Pattern[str]:
    spec = language(code)
    items = sorted(language_file(code).get("small_talk", {}).get("lead_ins", ()), key=len, reverse=True)
    edge = "" if spec is not None and spec.characters else r"(?!\w)"
    joined = "|".join(re.escape(item) for item in items) or r"(?!)"
    return re.compile(rf"^\s*(?:{joined}){edge}\s*[,，、:：!！]?\s*", re.IGNORECASE)


# Clauses a sentence must run on for, between commas, before it may mix kinds of statement.
MIXED_CLAUSES = 3
_CLAUSE_BREAK = re.compile(r"[,，、]")


def _mixed(sentence: str, spec: Language) -> bool:
    """A run-on sentence whose comma-separated clauses state different kinds of thing — who the person is, the
    agent's name, a rule — which no one line of one file holds; a model splits it (it waits whole)."""
    clauses = [clause for clause in _CLAUSE_BREAK.split(sentence) if substance(clause) >= MIN_LETTERS]
    if len(clauses) < MIXED_CLAUSES:
        return False
    kinds = {(found.kind, found.section if found.kind == RULE else "") for clause in clauses
             if (found := _stated(clause.strip(), spec)) is not None}
    return len(kinds) > 1


def _kept_quote(sentence: str, outside: str, spec: Language) -> bool:
    """Whether the person asks to keep what they quote: a reminder before it ('Merk dir: "…"') or a file of the
    agent's to add it to ('写入AGENTS.md:"…"')."""
    return adds_to_a_file(sentence) > 0 or any(spec[name].at(spec.tokens(outside)) >= 0 for name in _KEEPING)


def _stated(sentence: str, spec: Language) -> Statement | None:
    if points_back(sentence, spec) or spec["scope.reasons"].at(spec.tokens(sentence)) == 0:
        # "Merk dir das.": says nothing of its own (`read` files the sentence before it); "Porque vivo en Madrid,
        # dame noticias locales": why something is asked, said before it
        return None
    remembered_clause = asked_to_remember(sentence, spec)
    asked = _remembered_statement(sentence, remembered_clause, spec) if remembered_clause else None
    if asked is not None:
        return asked  # "Merk dir, dass mein Geburtstag am 3. Mai ist": about the person
    kept = remembered(sentence, spec)  # "我叫小王，记住这个": what comes before the "remember this"
    if kept:
        return _what_is_kept(sentence, kept, spec)
    tokens = spec.tokens(sentence)
    standing = _standing(tokens, spec)
    if is_question(sentence) and not standing:
        return None
    unless = spec["scope.unless"].at(tokens)  # "… unless I tell you to do this": its "this" is the rule's own act
    moment = _of_the_moment(tokens[:unless] if unless >= 0 else tokens, spec, always=True)
    if moment and (not standing or _a_thing_at_hand(tokens, spec)):
        return _a_new_value(sentence, spec)  # else tied to this task, file, bug or fix: not something that lasts
    text = tidy(sentence)
    if _names_the_agent(tokens, spec):
        return Statement(RULE, text, "Identity")  # the name the person gives the agent: who the agent is
    person = _person(sentence, tokens, spec) or ("Identity" if _gives_an_attribute(sentence, spec) else "")
    if person == "Preferences" and _an_option(sentence, tokens, spec):
        return None  # "Me gusta la opción 2", "我喜欢方案2": the agent's option liked, no taste of the person's
    if person:  # "Me mudé a Barcelona", "我搬到上海了": where the person lives is theirs, however it is said
        return Statement(PERSON, text, person)
    if _rule(sentence, tokens, spec, standing):
        return Statement(RULE, text, "Tool use" if _TOOL_WORDS.search(sentence) else "Rules")
    return _of_the_project(sentence, tokens, spec)


def _standing(tokens: list[str], spec: Language) -> bool:
    """Whether the sentence holds a standing cue ("from now on", "以后") that says so: none of the language's
    `rule.not_standing` cues, and, in a script without spaces, no request in a clause before it (there "以后" is
    "after") and no name in letters or digits right before it ("maths.7z以后发": send the archive later)."""
    start = spec["rule.standing"].at(tokens)
    if start < 0 or spec["rule.not_standing"].at(tokens) >= 0:
        return False
    asked = spec["request.cues"].at(tokens) if spec.characters else -1
    if 0 <= asked < start and any(_PAUSE.match(token) for token in tokens[asked:start]):
        return False  # "帮我看一下购物车的bug，删掉商品以后总价不更新": "after" in its bug ("请你以后…" asks it)
    return not (spec.characters and start > 0 and tokens[start - 1].isascii() and tokens[start - 1].isalnum())


def _a_new_value(sentence: str, spec: Language) -> Statement | None:
    """"Ich wohne jetzt in Berlin", "Le port est maintenant 3001": a word of the moment that only says an
    attribute's value is new — the person's, or one whose owner the one line holding it tells."""
    if _gives_an_attribute(sentence, spec):
        return Statement(PERSON, tidy(sentence), "Identity")
    return _an_unowned_value(sentence, spec)


def _an_unowned_value(sentence: str, spec: Language) -> Statement | None:
    """"Der Port ist jetzt 8081" (text/attributes.py `unowned_value`), nothing of the moment once the words saying
    the value is new are passed over: a fact of the project, whose line engines/replacing.py finds."""
    if unowned_value(sentence) is None or _of_the_moment(spec.tokens(said_anew(sentence, spec.code)), spec):
        return None
    return Statement(FACT, tidy(sentence), "Project")


def _gives_an_attribute(sentence: str, spec: Language) -> bool:
    """One of the person's one-at-a-time attributes given a value (text/attributes.py: "J'habite maintenant à
    Paris"), with nothing of the moment once the words saying the value is new are passed over ("Ich wohne
    gerade im Hotel" is none)."""
    if attribute_in(sentence, spec.code) is None:
        return False
    tokens = spec.tokens(said_anew(sentence, spec.code))
    return not _of_the_moment(tokens, spec) and spec["person.not"].at(tokens) < 0


def _what_is_kept(sentence: str, kept: str, spec: Language) -> Statement | None:
    """What the clause before a "remember this" reads as, in its words; or, reading as none of the kinds, the
    sentence asked to be kept."""
    said = statement(kept, spec)
    if said is None and trivial(kept, spec):
        return None  # "Ja gut, dann merk dir das!", "好的，记住这个！": points back at what came before
    if said is not None and _object_of_the_reminder(sentence, kept, spec):
        return Statement(said.kind, tidy(sentence), said.section)  # "저는 채식주의자라는 거 기억해 줘", whole
    return said or _asked_to_keep(sentence, kept, spec, _records(sentence, spec))


def _object_of_the_reminder(sentence: str, kept: str, spec: Language) -> bool:
    """The clause ends in what makes it the reminder's object (`remember.nominalisers`), or is followed by it in
    the sentence: a fragment on its own ("저는 채식주의자라는 거" of "… 기억해 줘", "私が大阪に住んでいる" of
    "…ことを覚えておいて")."""
    nominalisers = spec["remember.nominalisers"]
    after = sentence[len(kept):] if sentence.startswith(kept) else ""
    return nominalisers.ends(spec.tokens(kept)) or bool(after) and nominalisers.at(spec.tokens(after)) == 0


def _names_the_agent(tokens: list[str], spec: Language) -> bool:
    """A naming cue for the agent, followed by a name: not by the person's own word ("你就叫小开", not "你就叫我老周吧":
    "just call me Lao Zhou"), nor by a word that joins or asks (`agent.not_names`: "Ya te había dicho cómo te
    llamas y qué personalidad tienes" speaks of the name without giving one)."""
    _, end = spec["agent.naming"].bounds(tokens)
    if end < 0:
        return False
    selves, rest = spec["person.self"], tokens[end:]
    if selves.characters:
        return not any("".join(rest).startswith("".join(item)) for item in selves.items)
    return (bool(rest) and spec["agent.not_names"].at(rest[:1]) < 0
            and not any(rest[:len(item)] == list(item) for item in selves.items))


def _of_the_project(sentence: str, tokens: list[str], spec: Language) -> Statement | None:
    """A decision ("wir haben beschlossen …"), or a fact of the project said plainly (`_ours_named`,
    `_an_unowned_value`)."""
    decided = spec["decision.cues"].at(tokens)
    if decided >= 0:
        conditional = 0 <= spec["decision.conditions"].at(tokens) < decided
        if conditional or _an_option(sentence, tokens, spec):
            return None
        return Statement(DECISION, tidy(sentence), "Decisions")
    if _ours_named(sentence, tokens, spec):
        return Statement(FACT, tidy(sentence), "Project")
    return _an_unowned_value(sentence, spec)


# What numbers one of the agent's options: a digit, a letter alone, or a numeral written in characters.
_OPTION_MARK = re.compile(r"(?<![A-Za-z\d])(?:\d{1,2}|[A-Za-z])(?![A-Za-z\d])|[一二三四五六七八九十①②③④⑤]")
OPTION_REACH = 3  # how many characters away from the option's word its number may stand ("方案2", "2번 옵션")


def _an_option(sentence: str, tokens: list[str], spec: Language) -> bool:
    """A decision that names one of the agent's options by its number or letter ("Vamos con la opción 2", "就用方案
    2。", "オプションBでいこう") or points at one ("Vamos con el segundo", "就用它"): an answer to the agent, nothing
    the project decided that a reader could keep."""
    if spec["decision.pointers"].at(tokens) >= 0:
        return True
    start, before, after = spec["decision.options"].span(tokens)
    if start < 0:
        return False
    joiner = "" if spec.characters else " "
    near = before[-OPTION_REACH:] if spec.characters else joiner.join(before.split()[-1:])
    near_after = after[:OPTION_REACH] if spec.characters else joiner.join(after.split()[:1])
    return bool(_OPTION_MARK.search(near) or _OPTION_MARK.search(near_after))


# A name in a sentence: a word that opens with a capital ("Kotlin", "FastAPI"; in a language that writes every
# noun so, `fact.capitalised_nouns`, only one a common noun is never written as: "GitLab", "RDS", "S3"), or a
# Latin name among the characters of a script without capitals ("Python", "NestJS"). A bare number is none:
# "um 10 Uhr" is a plan's time.
_CAPITALISED = re.compile(r"(?<![\w-])[A-Z][\w.+#-]*")
_MARKED_NAME = re.compile(r"(?<![\w-])(?:[A-Z]\w*[A-Z]|[A-Za-z]+\d)[\w.+#-]*")
_LATIN_NAME = re.compile(r"[A-Za-z][\w.+#-]+")


def _ours_named(sentence: str, tokens: list[str], spec: Language) -> bool:
    """A fact of the project said plainly: it opens with the team's own thing (`fact.ours`: "Unser Backend",
    "我们的后端", "저희 백엔드는") and names something after it ("… ist in Kotlin geschrieben", "… 用 Python 写的"),
    with nothing of the moment (`scope.words`, `person.not`: "heute", "jetzt")."""
    start, end = spec["fact.ours"].bounds(tokens)
    if start != 0 or substance(sentence) < MIN_LETTERS or _of_the_moment(tokens, spec):
        return False
    if spec["person.not"].at(tokens) >= 0 or spec["fact.not"].at(tokens) >= 0:
        return False
    rest = sentence[len(_original(sentence, spec, end)):]
    if spec.characters:
        return _LATIN_NAME.search(rest) is not None
    rest = rest.split(None, 1)[1] if len(rest.split(None, 1)) > 1 else ""  # the thing itself is no name
    named = _MARKED_NAME if spec.fact.get("capitalised_nouns") else _CAPITALISED
    return named.search(rest) is not None or attribute_held(rest) is not None  # "… läuft auf Port 8080"


def _of_the_moment(tokens: list[str], spec: Language, *, always: bool = False) -> bool:
    """Whether a sentence is tied to one task: a word of this moment or this thing (`scope.words`: "this", "now",
    "diesmal"), or one of the work at hand (`scope.things`: "the file", "le bug") — which, in a rule that says
    `always` ("Ne modifie jamais le fichier .env"), names what the rule is about every time instead. "This
    project" (`scope.lasting`) is no moment in such a rule either ("Siempre usa TypeScript en este proyecto"); in
    anything else it points at what the line would not hold ("… arbeite abends an diesem Projekt")."""
    a_rule = always and (spec["rule.always"].at(tokens) >= 0 or spec["rule.cues"].at(tokens) >= 0)
    start, end = spec["scope.lasting"].bounds(tokens) if a_rule else (-1, -1)
    if spec["scope.words"].at(tokens[:start] + tokens[end:] if start >= 0 else tokens) >= 0:
        return True
    return spec["scope.things"].at(tokens) >= 0 and not (always and spec["rule.always"].at(tokens) >= 0)


def of_the_moment(text: str, code: str) -> bool:
    """Whether words in language `code` are tied to one task ("这个bug的修复步骤", "Para hoy"): `_of_the_moment`."""
    spec = language(code)
    return spec is not None and _of_the_moment(spec.tokens(text), spec)


def _a_thing_at_hand(tokens: list[str], spec: Language) -> bool:
    """The work at hand named ("the file", "le bug") in a sentence that does not say `always` of it: one task even
    after a standing cue ("Remember not to delete the file")."""
    return spec["scope.things"].at(tokens) >= 0 and spec["rule.always"].at(tokens) < 0


@dataclass(frozen=True)
class Statement:
    kind: str  # RULE (SOUL.md), PERSON (USER.md) or DECISION (memory/MEMORY.md)
    text: str  # the sentence in the person's words
    section: str  # the `##` section of its file


def _person(sentence: str, tokens: list[str], spec: Language) -> str:
    """The USER.md section a statement about the person goes to ("" when it is none); one saying it is no longer
    so ("Ya no vivo en Rosario", text/grammar.py `no_longer_so`) goes where it went when it was."""
    was = no_longer_so(sentence)
    if was:
        return _person(was, spec.tokens(was), spec)
    if spec["person.not"].at(tokens) >= 0:
        return "Identity" if _gives_an_attribute(sentence, spec) else ""  # "Moro agora em …": a new value
    opening = spec.person.get("opening", 0)
    for name, section in (("person.identity", "Identity"), ("person.preference", "Preferences")):
        if spec[name].within(tokens, opening):
            return section
    found = _my_detail(tokens, spec) or _a_noun_after(sentence, tokens, spec) or _a_role(tokens, spec)
    return "Identity" if found else ""


# How far a role may stand from the language's "I am": "Je suis data scientist" (right after), "私はインフラエンジニア"
# (a compound's first part between), "저는 프론트엔드 개발자" (one word between).
ROLE_GAP = {False: 2, True: 6}


def _a_role(tokens: list[str], spec: Language) -> bool:
    """"Je suis data scientist", "Soy médica", "私はインフラエンジニアです": the language's "I am" (`person.am`) at the
    opening, then soon one of data/roles.txt — a trade or study, where no article marks the noun ("je suis
    d'accord", "soy consciente", "私は大丈夫です" name none)."""
    start, end = spec["person.am"].bounds(tokens)
    if start != 0:
        return False
    role = _roles(spec.characters).at(tokens[end:])
    return 0 <= role <= ROLE_GAP[spec.characters]


def a_role(value: str) -> bool:
    """A trade one holds one at a time: a few words ending in one of data/roles.txt ("QA engineer", "product
    manager"), not one held beside another ("also a mentor") nor a state ("a big fan of engineers")."""
    said = value.lower().split()
    if not said or len(said) > _ROLE_WORDS or said[0] in _BESIDE or said[-1] in _BESIDE:
        return False
    return any(said[-len(role.split()):] == role.split() for role in ROLES)


@cache
def _roles(characters: bool) -> Cues:
    """The trades of data/roles.txt as cues; a role may close or open a word ("Backend-Developer", "개발자입니다";
    found anywhere in a language without spaces: "インフラエンジニア")."""
    forms = [form for role in ROLES for form in ((role,) if characters else (role, f"~{role}", f"{role}~"))]
    return Cues(tuple(_cue(form, characters) for form in forms), characters)


def _a_noun_after(sentence: str, tokens: list[str], spec: Language) -> bool:
    """"Ich bin Softwareentwickler bei SAP": a `person.noun_after` cue at the opening, then a capitalised word — a
    noun, in a language that capitalises them ("Ich bin gespannt" is no noun) — that is no subject word and no
    `person.noun_not` one ("Ich bin Ihnen dankbar", "Ich bin Montag nicht da")."""
    start, end = spec["person.noun_after"].bounds(tokens)
    if start != 0 or end >= len(tokens) or spec.characters:
        return False
    word = list(_WORD.finditer(sentence.replace("’", "'")))[end].group()  # as written: its capital
    after = tokens[end:end + 1]
    return (word[:1].isupper() and not word.isupper() and _subject(after, spec) < 0
            and spec["person.noun_not"].at(after) < 0)


# How far a detail's verb may stand from the detail: "Meine E-Mail-Adresse für die Arbeit ist …" (three words),
# "私のメールアドレスは" (five characters).
DETAIL_GAP = {False: 3, True: 6}


def _my_detail(tokens: list[str], spec: Language) -> bool:
    """"My e-mail is …", "我的生日是…", "제 이메일은 …": one of the person's details given its value — the detail
    near the opening, its verb (`person.is`) soon after, and a value after the verb (or before it, where the
    verb closes the clause: "dass mein Geburtstag am 3. Mai ist")."""
    start, mine_end = spec["person.mine"].bounds(tokens)
    opening = spec.person.get("opening", 0)
    if start < 0 and spec.person.get("bare_detail"):
        start = mine_end = 0  # "誕生日は6月3日です": a language that leaves the "my" unsaid, the detail first
    if start < 0 or opening and start >= opening:
        return False
    particles = bool(spec.person.get("particles"))
    detail = _details(spec.characters, particles).bounds(tokens[mine_end:])  # "my" right before the detail
    if detail[0] != 0:
        return False
    end = mine_end + detail[1]
    after = end - 1 if particles else end  # "이메일은": the verb is the detail's own ending
    verb_start, verb_end = spec["person.is"].bounds(tokens[after:])
    if verb_start < 0 or verb_start > DETAIL_GAP[spec.characters]:
        return False
    value = tokens[after:after + verb_start] + tokens[after + verb_end:]  # "dass mein Geburtstag am 3. Mai ist"
    return any(_LETTER.search(token) or token.isdigit() for token in value)


def _rule(sentence: str, tokens: list[str], spec: Language, standing: bool) -> bool:
    """An instruction for the agent: no subject of a statement before it, no idiom at its opening, and a cue near
    the opening (with a command's ending, in a language that needs one; not right after "is": "X ist immer …"), a
    prohibition's ending, or a standing cue ("from now on", "remember")."""
    opening = spec.rule.get("opening", 3)
    if _how_to_answer(sentence, tokens, spec):
        return True  # before the idioms: "Sempre me responda em português" asks how to answer
    if _every_time_command(sentence, tokens, spec):
        return True  # "Chaque fois que tu crées un fichier, mets un en-tête …"
    if spec["rule.idioms"].within(tokens, opening) or _cue_alone(tokens, spec):
        return False
    cue = _rule_cue(tokens, spec)
    if spec["rule.addressed"].within(tokens, opening) and (standing or cue >= 0 or spec["rule.always"].at(tokens) >= 0):
        return True  # "I need you to always …": the person asks it of the agent, whatever the subject
    subject = _subject(tokens, spec)
    if standing:
        return _stands_as_a_rule(tokens, spec, subject)
    if spec["rule.prohibitions"].ends(tokens):
        return subject < 0
    if not 0 <= _uncourteous(tokens, cue, spec) < opening or 0 <= subject < cue:
        return False
    if (not spec.characters and cue > 0 and spec["person.is"].at(tokens[cue - 1:cue]) == 0
            and not spec["request.cues"].ends(tokens)):
        return False  # "Maximalgebühr ist immer abhängig vom Parkplatz", "팀장님은 항상 탭을 쓰세요": said of someone;
        # "코드 주석은 항상 영어로 작성해 주세요" asks it ("주세요": please do)
    if _tells_what_happened(tokens, spec):
        return False
    return not spec.rule.get("needs_ending") or spec["rule.endings"].ends(tokens)


def _rule_cue(tokens: list[str], spec: Language) -> int:
    """Where the sentence's rule cue stands (-1: none): a `rule.cues` one, or a `rule.first` one opening it, courtesy
    aside — "Luôn viết test …" ("always write tests"), where the same word after a verb says "right away" ("Làm
    luôn đi")."""
    cue = spec["rule.cues"].at(tokens)
    first = spec["rule.first"].at(tokens)
    return cue if cue >= 0 or first < 0 or _uncourteous(tokens, first, spec) != 0 else first


def _cue_alone(tokens: list[str], spec: Language) -> bool:
    """"都要。" ("both"): in a language without spaces, a sentence of nothing but cues and courtesy asks nothing (in
    one with spaces a cue may be the command: "Duz mich bitte")."""
    return spec.characters and not any(_LETTER.search(token) for token in _without(
        tokens, spec, "rule.cues", "rule.standing", "rule.always", "rule.courtesy"))


def _tells_what_happened(tokens: list[str], spec: Language) -> bool:
    """"Nunca entendí …", "Sempre achei …", "Nie habe ich verstanden …": never or always, then a verb that tells
    what happened (`rule.past`), or, opening the sentence, a verb and its subject (`rule.subject_after_verb`) — a
    statement of the person's, which a command never is."""
    start, end = spec["rule.cues"].bounds(tokens)
    if start < 0 or spec.characters:
        return False
    verb = tokens[end:end + 1]
    if spec["rule.past"].at(verb) == 0 and spec["rule.not_past"].at(verb) != 0:
        return True
    opens = _uncourteous(tokens, start, spec) == 0  # "Lösche niemals Branches, es sei denn …": the verb came first
    return opens and bool(spec.rule.get("subject_after_verb")) and spec["rule.subjects"].at(
        tokens[end + 1:end + 2]) == 0


# What sets a clause apart: a comma, in any script.
_PAUSE = re.compile(r"[,，、;；]")


def _every_time_command(sentence: str, tokens: list[str], spec: Language) -> bool:
    """A setting addressed to the agent that says every time (`rule.every_time`: "Chaque fois que tu …", "每次你
    …的时候"), at the opening, then a pause and a clause that opens with no subject of its own: a command ("…,
    mets un en-tête", "…, 关键字都用大写"), not what happens then ("…, ça plante", "…, 它就崩溃")."""
    if spec["rule.every_time"].bounds(_without_courtesy(tokens, spec))[0] != 0:
        return False
    after = _PAUSE.split(sentence, maxsplit=1)
    said = spec.tokens(after[1]) if len(after) > 1 else []
    return bool(said) and spec["rule.subjects"].bounds(said)[0] != 0 and not is_question(sentence)


def _uncourteous(tokens: list[str], position: int, spec: Language) -> int:
    """Where the word at `position` stands, courtesy words before it not counted: "Por favor usa siempre …" holds
    its "siempre" as near the opening as "Usa siempre …" does."""
    before = tokens[:max(position, 0)]
    return position - (len(before) - len(_without_courtesy(before, spec)))


def _without_courtesy(tokens: list[str], spec: Language) -> list[str]:
    """The words without the language's courtesy words ("por favor", "お願いします"): no request of the person's."""
    return _without(tokens, spec, "rule.courtesy")


def _without(tokens: list[str], spec: Language, *lists: str) -> list[str]:
    """The words without any cue of the named lists, wherever they stand."""
    rest = list(tokens)
    for name in lists:
        while (found := spec[name].bounds(rest))[0] >= 0:
            del rest[found[0]:found[1]]
    return rest


def _stands_as_a_rule(tokens: list[str], spec: Language, subject: int) -> bool:
    """A sentence with a standing cue is a rule unless a subject of a statement stands before the cue ("Ich werde
    ab jetzt …") or where the language puts it after the cue (`rule.standing_subject`, courtesy words aside:
    "Désormais, le build est lent", "Ab jetzt ist der Build langsamer"). Elsewhere an article opens the object of
    a command ("Désormais, écris les messages en anglais", "Ab jetzt bitte die Commits auf Englisch schreiben"),
    and a rule cue right after it makes it one ("Künftig immer die Tests laufen lassen"). A language without that
    setting, or without spaces, takes any subject word for one; so does a reminder (a standing cue that opens a
    `remember.that` one: "Merk dir: die Tests laufen mit pytest" states a fact)."""
    at = spec.rule.get("standing_subject")
    start, end = spec["rule.standing"].bounds(tokens)
    reminder = (_a_reminder(tokens[start:end], spec)  # "Merk dir: die Tests laufen …"
                and spec["remember.to"].at(tokens[end:end + 1]) != 0  # not "N'oublie pas de vérifier …": a command
                and spec["remember.to_later"].at(tokens[end:]) < 0)  # nor "Vergiss nicht, … kurz zu erklären"
    if at is None or spec.characters or reminder:
        return subject < 0
    if 0 <= subject < start:
        return False
    after = tokens[end:]
    courtesy = spec["rule.courtesy"].bounds(after)
    after = after[courtesy[1]:] if courtesy[0] == 0 else after
    return spec["rule.cues"].at(after) == 0 or not _subject_at(after, at, spec)


# How far apart a verb of answering and the language it names may be: "antworte mir bitte auf Deutsch" (two words),
# "请用中文和我对话" (two characters); further apart, the words between are an errand's object ("reply to the email
# from the landlord in German").
REPLY_GAP = {False: 2, True: 4}
# What a request for a manner of answering may hold besides the verb and the manner, in letters (characters, where
# a language has no spaces): "bitte immer", "要", "にしてください"; more is an errand ("…, mir kurz, ob das geht").
MANNER_SLACK = {False: 12, True: 8}
# A colon and words after it: what the answer asked for is to answer ("简单回答：1+1等于几").
_ANSWER_ASKED = re.compile(r"[:：]\s*[^\W_]")


# Languages by their English names (data/language-names.txt), longest first: what an English rule names as the
# language to answer in ("Reply in German", "keep our chat in English", "Speak Spanish with me").
LANGUAGE_NAMES = "|".join(sorted(wordlist("language-names"), key=len, reverse=True))
_ENGLISH_ANSWERS_IN = re.compile(
    r"^(?:(?:always|please|only)\s+)*(?:(?:reply|answer|respond|speak|talk|write|keep\s+(?:our|the)\s+(?:chats?|"
    r"conversations?))\s+(?:to\s+(?:the\s+user|me|them)\s+)?(?:(?:always|only)\s+)?in\s+"
    rf"(?P<value>(?:(?:British|American|Brazilian|European|Simplified|Traditional)\s+)?(?:{LANGUAGE_NAMES}))\b"
    r"(?:\s+(?:only|always|from now on|going forward))?"
    rf"|(?:speak|talk|write)\s+(?P<spoken>{LANGUAGE_NAMES})\s+(?:with|to)\s+(?:me|the\s+user))$", re.IGNORECASE)


def answer_language(sentence: str) -> str:
    """The language a rule asks every answer in, as its words say it ("German" of "Reply to the user in German",
    "auf deutsch" of "Antworte immer auf Deutsch", "中文" of "以后都用中文回答"); "" for any other sentence, and for
    a rule that asks more ("中文对话，用最简单的方法完成任务") (engines/slots.py: one language at a time)."""
    english = _ENGLISH_ANSWERS_IN.match(sentence.strip().rstrip(".!"))
    if english is not None:
        return english.group("value") or english.group("spoken")
    tokenised: dict[bool, list[str]] = {}  # words or characters: the same for every language matched alike
    for code in sorted(read_languages() - {"en", UNDETERMINED}):
        spec = language(code)
        if spec is None:
            continue
        if spec.characters not in tokenised:
            tokenised[spec.characters] = spec.tokens(sentence)
        tokens = tokenised[spec.characters]
        asked = spec["reply.languages"].bounds(tokens)
        if asked[0] < 0 or spec["reply.verbs"].at(tokens) < 0 or not _only_the_language(tokens, spec):
            continue
        found = statement(sentence, spec)
        if found is not None and found.kind == RULE:
            said = tokens[asked[0]:asked[1]]
            return "".join(said) if spec.characters else " ".join(said)
    return ""


def _only_the_language(tokens: list[str], spec: Language) -> bool:
    """Whether a rule asking for answers in a language asks nothing else ("Antworte ab jetzt immer auf Deutsch",
    not "中文对话，用最简单的方法完成任务", whose other half a newer language must not take away): besides the verb,
    the language and the words of a rule's form (always, from now on, courtesy, a command's ending), a few
    letters at most."""
    rest = _without(tokens, spec, "reply.verbs", "reply.languages", "rule.standing", "rule.always", "rule.cues",
                    "rule.courtesy")
    ending = spec["rule.endings"].bounds(rest) if spec.rule.get("needs_ending") else (-1, -1)
    if ending[0] >= 0:
        del rest[ending[0]:ending[1]]
    return sum(len(_LETTER.findall(token)) for token in rest) <= MANNER_SLACK[spec.characters]


def _how_to_answer(sentence: str, tokens: list[str], spec: Language) -> bool:
    """How the person wants every answer: in a language ("한글로 답변해줘", "schreibe alles auf Deutsch", "中文对话") or
    in a manner ("Antworte kurz und knapp", "回答要简洁", "短く答えてください") — how the agent speaks to them from
    then on, a rule without "always". A verb of answering (`reply.verbs`) next to a language (`reply.languages`)
    or a manner (`reply.manners`), not named as a thing (`reply.not_after`: "your answer in Spanish"), and no
    subject of a statement before the verb unless the person addresses the agent ("I want you to …"). A manner
    is the whole request: "Antworte mir kurz, ob das geht" asks one answer of this moment; so does one before a
    colon and what it is to answer ("简单回答：1+1等于几"), unless it says it is always so."""
    verb = spec["reply.verbs"].bounds(tokens)
    if verb[0] < 0 or _ANSWER_ASKED.search(sentence) and spec["rule.always"].at(tokens) < 0:
        return False
    for name in ("reply.languages", "reply.manners"):
        how = spec[name].bounds(tokens)
        if how[0] < 0:
            continue
        gap = how[0] - verb[1] if verb[0] < how[0] else verb[0] - how[1]
        if gap > REPLY_GAP[spec.characters] or spec["reply.not_after"].ends(tokens[:min(verb[0], how[0])]):
            continue  # "your answer in Spanish", "你的中文回答": an answer spoken of, not asked for
        if name == "reply.manners" and not _only_a_manner(tokens, spec, verb, how):
            continue
        subject = _subject(tokens, spec)
        return not 0 <= subject < verb[0] or spec["rule.addressed"].within(tokens, spec.rule.get("opening", 3))
    return False


def _only_a_manner(tokens: list[str], spec: Language, verb: tuple[int, int], how: tuple[int, int]) -> bool:
    """Whether a request for a manner of answering is the whole sentence: besides the verb and the manner, a few
    letters ("bitte immer", "してください") and no subject or scope word ("Antworte mir kurz, ob das geht",
    "简单回答一下这个问题": one answer of this moment)."""
    rest = _without_courtesy([token for index, token in enumerate(tokens)
                              if not (verb[0] <= index < verb[1] or how[0] <= index < how[1])], spec)
    letters = sum(len(_LETTER.findall(token)) for token in rest)
    return letters <= MANNER_SLACK[spec.characters] and _subject(rest, spec) < 0 and not _of_the_moment(tokens, spec)


def _subject_at(tokens: list[str], position: int, spec: Language) -> bool:
    """Whether a subject word stands at `position`, one inside a `rule.not_subjects` phrase not counting ("sprich
    mich …": whom the command is for)."""
    return _subject(tokens[:position + 1], spec) == position


def _subject(tokens: list[str], spec: Language) -> int:
    """Where the first subject of a statement stands (-1: none). A subject word inside a `rule.not_subjects` phrase
    is none: the person a request is for ("以后跟我说话简单明了一些": "talk to me"), or a word that only begins like one
    ("那么多": "so many")."""
    masked = list(tokens)
    while (found := spec["rule.not_subjects"].bounds(masked))[0] >= 0:
        masked[found[0]:found[1]] = ["\0"] * (found[1] - found[0])
    return spec["rule.subjects"].at(masked)


def asks_for_work(sentence: str, spec: Language) -> bool:
    """A sentence asking the agent for a piece of work: a question, or a request's words (`request.cues`: "kannst
    du", "帮我", "てください")."""
    return is_question(sentence) or spec["request.cues"].at(spec.tokens(sentence)) >= 0


def says_it_lasts(sentence: str, spec: Language) -> bool:
    """Whether a rule says it holds from now on ("ab jetzt", "以后"), every time ("immer", "nunca", "毎回") or is to
    be remembered: without one, a bare "N'utilise pas de cache." said with a request may be that errand's only."""
    tokens = spec.tokens(sentence)
    return any(spec[cues].at(tokens) >= 0 for cues in ("rule.standing", "rule.always", "rule.remember_this"))


def points_back(sentence: str, spec: Language) -> bool:
    """A sentence that only says to remember the one before it ("Merk dir das.", "这个要牢记"), not one that ends by
    asking to remember what it says itself ("I'm Ricardo, remember this": `remembered`)."""
    start, before, after = spec["rule.remember_this"].span(spec.tokens(sentence))
    return start >= 0 and substance(before + after) <= POINTING_SLACK and not remembered(sentence, spec)


def asks_to_keep_or_forget(sentence: str, spec: Language) -> bool:
    """Whether a sentence asks the agent to keep something, or to forget it, in words a reader cannot mistake
    ("remember that …", "save this to your memory", "forget that I live in Berlin"; one word alone, "important",
    is too common); a question asks nothing. What no rule files of such a sentence is for a model to read: the
    person asked for it to stay, or to go, which the rules cannot do."""
    if is_question(sentence):
        return False
    tokens = spec.tokens(sentence)
    for cue in (spec["remember.that"], spec["rule.remember_this"], spec["remember.forget"]):
        start, end = cue.bounds(tokens)
        if start >= 0 and end - start >= (3 if spec.characters else 2):
            return True
    return False


def asked_to_remember(sentence: str, spec: Language) -> str:
    """What a sentence asks the agent to remember, in the person's words: "mein Geburtstag am 3. Mai ist" of
    "Bitte merk dir, dass mein Geburtstag am 3. Mai ist" (`remember.that` near the opening, no subject before it:
    not "I remember that …"); "" for any other sentence, and for a question."""
    tokens = spec.tokens(sentence)
    start, end = spec["remember.that"].bounds(tokens)
    if start < 0:
        start, end = _reminder_before_colon(sentence, tokens, spec)
    if start < 0 or start >= spec.rule.get("opening", 3) or _subject(tokens[:start], spec) >= 0:
        return ""
    return "" if is_question(sentence) else sentence[len(_original(sentence, spec, end)):].strip(" ,，、:：")


def _a_reminder(cue: list[str], spec: Language) -> bool:
    """Whether a standing cue's words ask to remember: they open a `remember.that` cue ("merk dir" of "merk dir
    dass"), where "ab jetzt" does not."""
    return any(list(item[:len(cue)]) == cue for item in spec["remember.that"].items)


def _reminder_before_colon(sentence: str, tokens: list[str], spec: Language) -> tuple[int, int]:
    """Where a reminder cue stands that a colon closes ("Merk dir: die Produktionsdatenbank läuft auf …",
    "N'oublie pas : …"): a colon says "that" as well. A reminder is a standing cue that opens a `remember.that`
    one. (-1, -1) for any other sentence, and in a language without spaces, whose reminders take a thing too."""
    start, end = spec["rule.standing"].bounds(tokens)
    if start < 0 or spec.characters or not _a_reminder(tokens[start:end], spec):
        return -1, -1
    return (start, end) if _original(sentence, spec, end).rstrip().endswith((":", "：")) else (-1, -1)


def _remembered_statement(sentence: str, clause: str, spec: Language) -> Statement | None:
    """The sentence as what its remembered clause states (about the person, a rule, a decision), or as a fact of
    the project (`states_a_fact`)."""
    found = statement(clause, spec)
    if found is not None:
        return Statement(found.kind, tidy(sentence), found.section)
    paused = _PAUSE_BEFORE.search(sentence[:len(sentence) - len(clause)].rstrip()) is not None
    fact = states_a_fact(clause, spec) or paused and _plain_fact(clause, spec)  # "记住，测试环境的地址是 …"
    return _a_fact_kept(sentence, clause, spec) if fact else None  # "Merk dir, dass ich in Wien wohne": theirs


def _a_fact_kept(sentence: str, clause: str, spec: Language) -> Statement:
    """The sentence as a fact the person asks to keep: about them when its clause opens with them as its subject
    (a `person.self` word that is no `person.mine` one: "ich", "je", "私が", "내가", not "mein", "私の") — what it
    states is theirs, however its verb stands ("dass ich in Wien wohne"); else a fact of the project."""
    tokens = spec.tokens(clause)
    if spec["person.self"].bounds(tokens)[0] == 0 and spec["person.mine"].bounds(tokens)[0] != 0:
        return Statement(PERSON, tidy(sentence), "Identity")
    return Statement(FACT, tidy(sentence), "Project")


# A pause after a "remember" cue: in a language with no word for "that" (Chinese), it sets a clause apart.
_PAUSE_BEFORE = re.compile(r"[,，、:：]$")


def _records(sentence: str, spec: Language) -> bool:
    """Whether a "remember this" asks to note something down (`remember.records`: "记录一下", "notier dir das"),
    which keeps a fact, not a rule."""
    return spec["remember.records"].at(spec.tokens(sentence)) >= 0


def _asked_to_keep(sentence: str, said: str, spec: Language, record: bool) -> Statement:
    """A sentence whose words `said` the person asks to keep, whole: a fact of the project when they ask to note it
    down (`record`: "tsla10股，454价格，长线。记录一下") or state one with the language's "is" ("운영 DB는 RDS에
    있다는 거 기억해 둬"), a rule in their words otherwise ("Bei Tabellen alle Seiten anschauen, merk dir das") — the
    whole sentence, so it reads as the same kind wherever it is read."""
    if record:
        return Statement(FACT, tidy(sentence), "Project")
    if _plain_fact(said, spec):
        return _a_fact_kept(sentence, said, spec)  # "내가 부산에 산다는 거 기억해 줘": theirs
    return Statement(RULE, tidy(sentence), "Tool use" if _TOOL_WORDS.search(sentence) else "Rules")


def _plain_fact(clause: str, spec: Language) -> bool:
    """Whether a clause the person asks to remember states something of a thing with its language's "is"
    (`person.is`: "운영 DB는 RDS에 있다는", "测试环境的地址是 test.example.cn", "Der Server ist in Frankfurt"): the
    "is", at least two words (characters) after it, enough said, and nothing of the moment. Not "주석 다는 거"
    (adding comments), whose only "is"-like ending is the verb's own."""
    tokens = spec.tokens(clause)
    start, end = spec["person.is"].bounds(tokens)
    if start < 0 or len(tokens) - end < 2 or substance(clause) < MIN_LETTERS:
        return False
    return not _of_the_moment(tokens, spec) and spec["person.not"].at(tokens) < 0


def states_a_fact(clause: str, spec: Language) -> bool:
    """Whether a remembered clause is a fact of its own: it opens with the person's, the team's or a named thing's
    words (`remember.opens`: not "er", "il", "it", "他", whom only the conversation knows; "this project" lasts),
    says enough, and points at nothing of the moment."""
    tokens = spec.tokens(clause)
    start, end = spec["remember.opens"].bounds(tokens)
    if start != 0 or substance(clause) < MIN_LETTERS:
        return False
    rest = tokens[end:]  # "this project …" lasts: the opening is no scope word
    return not _of_the_moment(rest, spec) and spec["person.not"].at(rest) < 0


@dataclass
class Reading:
    """What the rules read in one message: its statements, and whether something else of substance is left."""

    statements: list[Statement] = field(default_factory=list)
    unread: bool = False
    asks: bool = False  # a sentence it leaves asks the agent for a piece of work (`asks_for_work`)


# How many letters what comes before a "remember this" must say to be a statement of its own ("I'm Sam" does,
# "ok" and "bitte" do not).
REMEMBERED_LETTERS = 6
# What may stand between a statement and the "remember this" that closes it ("I'm Ricardo, remember this"), and
# the stop or comma a one-word cue needs before it.
_BEFORE_CUE = re.compile(r"[\s,，、;；:：—–-]+$")
_COMMA_BEFORE = re.compile(r"[,，、;；:：—–-]\s*$")


def remembered(sentence: str, spec: Language) -> str:
    """What a sentence that ends by asking to remember it holds, in the person's words: "I'm Ricardo" of "I'm
    Ricardo, plz remember this", "我叫小王" of "我叫小王，记住这个" ("" for any other sentence). A one-word cue
    ("important") counts only after a stop or a comma, so "Speed is important" asks nothing."""
    tokens = spec.tokens(sentence)
    start, end = spec["rule.remember_this"].bounds(tokens)
    if start <= 0 or any(_LETTER.search(token) for token in tokens[end:]):
        return ""
    before = _original(sentence, spec, start)
    short = end - start < (3 if spec.characters else 2)
    if short and not _COMMA_BEFORE.search(before):
        return ""
    before = _BEFORE_CUE.sub("", before)
    if substance(before) < REMEMBERED_LETTERS or spec["rule.remember_this"].at(spec.tokens(before)) >= 0:
        return ""  # "ok, remember that", "this is important, remember that": pointing back, nothing of its own
    return before


def _original(sentence: str, spec: Language, count: int) -> str:
    """The sentence as written, up to its `count`-th token (a word, or a character in a language without spaces)."""
    if spec.characters:
        seen = 0
        for position, char in enumerate(sentence):
            if not char.isspace():
                if seen == count:
                    return sentence[:position]
                seen += 1
        return sentence
    matches = list(_WORD.finditer(sentence.replace("’", "'")))
    return sentence[:matches[count].start()] if count < len(matches) else sentence


def read(sentences: list[str], code: str) -> Reading:
    """Read one message's prose sentences in language `code`: what it states outright, and whether anything else
    of substance is left for a model. A language without a data file reads nothing: all of it is left."""
    spec = language(code)
    if spec is None:
        return Reading(unread=any(substance(sentence) >= ANY_WORD for sentence in sentences))
    pointing = [points_back(sentence, spec) for sentence in sentences]
    reading = Reading()
    for index, sentence in enumerate(sentences):
        if pointing[index]:
            continue
        if _leads_in(sentences, index):  # "以后注意：" before its list says nothing of its own: its items say it
            reading.unread = reading.unread or substance(sentence) >= LEAD_LETTERS  # "Pour celui-là tu peux …:"
            continue
        found = statement(sentence, spec)
        if found is None and index + 1 < len(sentences) and pointing[index + 1]:  # "…. Remember this."
            found = _asked_to_keep(sentence, sentence, spec, _records(sentences[index + 1], spec))
        if found is not None:
            reading.statements += _one_per_clause(found, sentence, spec)
        elif not trivial(sentence, spec):
            reading.unread = True
            reading.asks = reading.asks or asks_for_work(sentence, spec)
    return reading


# A line leading into what follows says this much at most ("Quelques règles pour toi :", "先介绍一下我自己："); a longer
# one asks or says something of its own, which a model reads.
LEAD_LETTERS = 40


def _leads_in(sentences: list[str], index: int) -> bool:
    """A line leading into what follows ("Cosas sobre mí:", "Règles :"): it says nothing of its own."""
    return sentences[index].rstrip().endswith((":", "：")) and index + 1 < len(sentences)


def _one_per_clause(found: Statement, sentence: str, spec: Language) -> list[Statement]:
    """A statement of who the person or the agent is whose clauses each say something of their own, as one
    statement per clause: "Vivo en Madrid y trabajo en Google" (two attributes: a later "Ahora vivo en Sevilla"
    replaces one line and keeps the other), "Tu t'appelles Max et je m'appelle Sarah" (the agent's name for
    SOUL.md, the person's for USER.md); whole unless each clause is read as such a statement and the cut serves
    (`_worth_cutting`)."""
    if not _who(found):
        return [found]
    clauses = cut(sentence, spec.code, lambda clause: _who(statement(clause, spec)))
    read = [statement(clause, spec) for clause in clauses]
    if len(read) >= 2 and all(_who(each) for each in read) and _worth_cutting(clauses, read, spec):
        return [each for each in read if each is not None]
    return [found]


def _worth_cutting(clauses: list[str], read: list[Statement | None], spec: Language) -> bool:
    """Cut only where a reader gains: the clauses go to different files (the agent's name, the person's), or one
    gives an attribute a later value replaces ("Me llamo Sarah y vivo en Madrid": the move keeps the name)."""
    return (len({each.kind for each in read if each is not None}) > 1
            or any(attribute_in(clause, spec.code) is not None for clause in clauses))


def _who(said: Statement | None) -> bool:
    """A statement of who the person is or what they are like, or of the agent's name."""
    return said is not None and (said.kind == PERSON or said.section == "Identity")


def about_the_person(block: KeyValues, code: str) -> bool:
    """Whether a `Key: value` block says who the person is: every key a personal one (data/personal-keys.txt), or
    half of them and a lead line in which the person speaks of themselves ("My details:", "Über mich:")."""
    keys = [key.lower() for key, _ in block.pairs]
    personal = sum(personal_key(key) for key in keys)
    spec = language(code)
    lead = spec.tokens(block.lead) if spec is not None else []
    if set(words(block.lead)) & RELATIONS:
        return False  # "My manager's details:", "Customer:": someone else's
    speaks_of_self = spec is not None and bool(block.lead) and spec["person.self"].at(lead) >= 0
    if personal == len(keys):
        # a block under a line of its own ("Please draft a reply to this customer:") is whoever that line names
        return not block.lead or speaks_of_self or (spec is not None and trivial(block.lead, spec))
    return speaks_of_self and 2 * personal >= len(keys)


@lru_cache(maxsize=8192)  # the engine asks where a line goes many times in one batch
def kind_of(line: str, code: str) -> Statement | None:
    """Where a tagged line in language `code` goes: a statement of one of the three kinds, or about the person
    when it opens with how the language names them ("der Benutzer …", "用户 …"); None: project memory."""
    spec = language(code)
    if spec is None:
        return None
    found = statement(line, spec)
    if found is not None:
        return found
    if spec["user.names"].at(spec.tokens(line)) == 0:
        return Statement(PERSON, tidy(line), "Preferences")
    return None


_OPENING_QUOTES, _CLOSING_QUOTES = '"“「『', '"”」』'


def _without_a_stray_quote(text: str) -> str:
    """The text without a quotation mark at either end that has no partner in it: what is left of a quote the
    sentence was cut from ('不要创建新文件，除非我告诉你这么做"')."""
    marks = sum(text.count(mark) for mark in set(_OPENING_QUOTES + _CLOSING_QUOTES))
    if marks % 2 == 0:
        return text
    if text[:1] in _OPENING_QUOTES:
        return text[1:].lstrip()
    return text[:-1].rstrip() if text[-1:] in _CLOSING_QUOTES else text


def tidy(sentence: str) -> str:
    """The sentence as a memory line: single-spaced, its first letter capitalised (not in a script without
    capitals, where a Latin word opening it is a name as written: "mainブランチには…"), closed by a full stop in its
    script ("。" after Chinese or Japanese; none after Thai, which ends a sentence with a space), its words
    untouched."""
    text = _without_a_stray_quote(" ".join(sentence.split()).strip())
    if not text:
        return text
    if not (_CJK.search(text) or THAI.search(text)):
        text = text[0].upper() + text[1:]
    if text[-1] in ".!?。！？…" or THAI.search(text):
        return text
    chinese_or_japanese = _CJK.search(text) and not _HANGUL.search(text)
    return text + ("。" if chinese_or_japanese else ".")
