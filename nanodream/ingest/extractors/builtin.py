"""The builtin extractor: deterministic rules over what the person said, no model, no network.

Only the person's own messages are read: an assistant's words are not facts about the person. Each message's
language is told first (text/language.py). English is read by the full rules (rules.py): each sentence either
becomes one tagged fact line or is left; what is left becomes one untagged line of the chunk's gist (kept for a
model dream; the builtin dream files only tagged lines), or `[skip]` when nothing was said. In another language
with a data file (text/statements.py), the explicit statements — rules for the agent, statements about the person,
decisions — are filed in the person's own words; a message holding anything else of substance, and every message
in a language without a data file, is left whole for a model: an entry of its own that no built-in run consumes
(backlog/waiting.py), counted by language.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import date, tzinfo

from nanodream.backlog.history import GIST
from nanodream.backlog.waiting import marker_line
from nanodream.ingest.chunking import Chunk
from nanodream.ingest.extractors.base import Extraction
from nanodream.ingest.extractors.layout import led_in_as_rules, rules_led_in, without_quoted_paragraphs
from nanodream.ingest.extractors.procedures import stated_procedures
from nanodream.ingest.extractors.requests import (
    about_the_agents_manner,
    after_a_request,
    answers_an_option,
    asks,
    before_a_request,
    before_the_work_instead,
)
from nanodream.ingest.extractors.rules import DEFAULT_SUBJECT, Fact, classify, meaningful, small_talk
from nanodream.ingest.extractors.spoken import names_a_source
from nanodream.ingest.message import Message, local
from nanodream.safety.secret_scan import redacted
from nanodream.text import statements, structure
from nanodream.text.kinds import MAX_CHARS, REDACTION, forbidden_in_profile, forbidden_kind
from nanodream.text.language import (
    UNDETERMINED,
    close_second,
    east_asian_words,
    english_score,
    has_english_words,
    language_of,
)
from nanodream.text.person import owned_by, third_person
from nanodream.text.sentences import led_lists, sentences, statement_lists
from nanodream.text.verbs import known_verb

# The languages ingest's full rules read; "und" is text too short to tell ("ok", "lgtm"), read as English.
RULE_LANGUAGES = frozenset({"en", UNDETERMINED})
GIST_PARTS = 2
GIST_PART_CHARS = 90
# The tag each kind of explicit statement is filed with: rules and facts about the person last; decisions hold.
TAG_OF = {statements.RULE: "permanent", statements.PERSON: "permanent", statements.DECISION: "durable",
          statements.FACT: "durable"}
# What a line in another language may not be, whatever it says (the rest of text/kinds.py reads English).
_NEVER_IN_ANY_LANGUAGE = ("too long", "code", "a link", "a question", "a heading")


@dataclass
class _Found:
    """What the rules made of one chunk so far."""

    facts: list[str] = field(default_factory=list)
    rest: list[str] = field(default_factory=list)  # English sentences of substance that are no fact: the gist
    unread: list[tuple[str, str]] = field(default_factory=list)  # (language, message) left for a model whole


class BuiltinExtractor:
    name = "builtin"

    def __init__(self, zone: tzinfo) -> None:
        self.zone = zone

    def extract(self, chunk: Chunk) -> Extraction:
        found = _Found()
        days: list[date | None] = []  # the day each waiting message was said, beside `found.unread`
        said_by_the_agent: set[str] = set()
        asked = False  # the person's last English message asked for work, and the agent has only acknowledged it
        offered = ""  # the agent's last message, whose question the person's next one may answer
        for message in chunk.messages:
            if message.role != "user":
                said_by_the_agent.add(_normal(message.text))
                offered = message.text
                asked = asked and len(message.text) <= ACKNOWLEDGED  # after the work is shown, feedback may last
                continue
            if _normal(message.text) in said_by_the_agent:
                continue  # the agent's reply echoed back as the person's turn (a WhatsApp bridge does so)
            as_written = structure.the_persons_words(message.text)
            message = replace(message, text=without_quoted_paragraphs(
                structure.the_persons_words(as_written, chunk.recurring)))
            if not message.text.strip():
                continue  # all of it the harness's: an event, a subagent's report
            language = _language(message.text)
            if _one_detail(message, "en" if language in RULE_LANGUAGES else language, found):
                continue  # "Timezone: Asia/Shanghai", said alone: filed, nothing else to read
            waiting = len(found.unread)
            if _picks_what_was_offered(message.text, offered):
                found.unread.append(("en" if language == UNDETERMINED else language, message.text))
            else:
                asked = self._read(message, language, found, asked)
            offered = ""
            # A model reads a waiting message as written: lines it repeats from another message may be the
            # harness's, or the person's own pasted twice ("Меня зовут Лиза …" in two sessions), only it can tell.
            found.unread[waiting:] = [(language, as_written) for language, _ in found.unread[waiting:]]
            days += [local(message.when, self.zone).date() if message.when else None] * (len(found.unread) - len(days))
            _about_the_person(message, "en" if language in RULE_LANGUAGES else language, found)
        lines = list(dict.fromkeys(found.facts))  # a fact said twice in a chunk is one line
        gist = gist_line(found.rest, chunk.messages, filed=bool(lines) or bool(found.unread))
        content = "\n".join([*lines, gist] if gist else lines)
        return Extraction(content, for_model=dict(Counter(language for language, _ in found.unread)),
                          waiting=waiting_text(found.unread, self._other_days(days, chunk)))

    def _read(self, message: Message, language: str, found: _Found, asked: bool) -> bool:
        """One message of the person's, by how it is written and its language; whether it ends asking the agent
        for a piece of work (English only: `asked` says so of the message before)."""
        if structure.written_out(message.text):
            _written_out(message, language, found)
        elif language in RULE_LANGUAGES:
            return self._english(message, found, short=language == UNDETERMINED, asked=asked)
        else:
            return _other_language(message, language, found, asked=asked)
        return False

    def _other_days(self, days: list[date | None], chunk: Chunk) -> list[date | None]:
        """Each waiting message's day where it is not the entry's (the chunk's last message's): "morgen" said on
        May 10 is read from May 10, not from the day the chunk ends."""
        last = local(chunk.when, self.zone).date() if chunk.when is not None else None
        return [None if day == last else day for day in days]

    def _english(self, message: Message, found: _Found, *, short: bool, asked: bool) -> bool:
        """English, or text too short to tell (`short`: whose statements other languages' cues may read too): the
        full rules, sentence by sentence. A sentence the language model is sure is in another language (a quoted
        paragraph, a reply pasted in) is not theirs to read: the message then waits for a model too, whole; so it
        does when a sentence no rule filed is likeliest another language's ("Je regarde ça ce soir."), which a gist
        would otherwise consume unread. `asked`: the person's message before this one asked for a piece of work;
        returns whether this one ends asking for one."""
        day = local(message.when, self.zone).date() if message.when is not None else None
        text = _procedures(message.text, found)
        said = list(sentences(text))
        english = statements.language("en")
        foreign = ""
        filed: dict[int, Fact] = {}
        rest: dict[int, str] = {}
        problems = before_a_request(said)
        errands = [after or instead for after, instead in zip(after_a_request(said, asked),
                                                               before_the_work_instead(said), strict=True)]
        for index, (sentence, errand) in enumerate(zip(said, errands, strict=True)):
            other = _foreign(sentence)
            if other:
                foreign = other
                continue
            fact = _fact_of(said, index, message.speaker, day, errand=errand, problem=problems[index])
            if not has_english_words(sentence):  # "Utilise toujours TypeScript strict.": English to the model
                fact = _in_another_language(sentence, errand=errand)[0] or fact
            if fact is None and short:
                fact, code = _in_another_language(sentence, errand=errand)
                foreign = code if fact is None and code else foreign
            if fact is not None:
                filed[index] = fact
                continue
            waits, gist = _unfiled(sentence, short=short, english=english)
            if not waits and _asked_to_keep_or_forget(said, index, filed, english):
                waits, gist = "en", False  # "Remember that when I say my calendar I mean …", "forget it": a model's
            foreign = waits or foreign
            if gist:
                rest[index] = sentence
        rules_led_in(text, said, filed, rest)
        if _list_in_part(text, said, filed, rest):
            filed, rest, foreign = {}, {}, foreign or "en"
        found.facts += [fact.line() for fact in filed.values()]
        found.rest += list(rest.values())
        if foreign:
            found.unread.append((foreign, message.text))
        return any(asks(sentence) for sentence in said)


# An answer picking what the agent offered is a word or three ("remove", "确认", "the blue one").
PICK_WORDS, PICK_CHARS = 3, 24
# The agent asked: a question, or alternatives in brackets ("(remove / keep)", "(回复 是 或 否)").
_ASKED_TO_CHOOSE = re.compile(r"[?？]|[(（][^)）]*(?:[/|]|\bor\b|或)[^)）]*[)）]", re.IGNORECASE)


def _picks_what_was_offered(answer: str, offered: str) -> bool:
    """"remove" after "Remove the binding or keep it? (remove / keep)", "确认" after "请再次确认…(回复 是 或 否)": a
    word or three of the agent's question given back, which only a model that reads the question can file; not
    small talk ("ok", "ja", "可以")."""
    said = answer.strip().strip(".!。！").strip()
    if not said or len(said) > PICK_CHARS or len(said.split()) > PICK_WORDS or _small_talk_anywhere(said):
        return False
    if not _ASKED_TO_CHOOSE.search(offered):
        return False
    if said.isascii():
        return re.search(rf"(?<!\w){re.escape(said)}(?!\w)", offered, re.IGNORECASE) is not None
    return said.casefold() in offered.casefold()


def _small_talk_anywhere(said: str) -> bool:
    """Small talk in English or in any language with a data file ("ok", "ja", "可以", "có"): no answer to wait with."""
    return small_talk(said) or any(spec["small_talk.phrases"].bounds(tokens := spec.tokens(said)) == (0, len(tokens))
                                   for code in statements.read_languages()
                                   if (spec := statements.language(code)) is not None)


def _unfiled(sentence: str, *, short: bool, english: statements.Language | None) -> tuple[str, bool]:
    """What becomes of an English sentence no rule filed: the language it waits for a model in ("" when it does
    not wait), and whether it is a gist's part. An answer to the agent's options waits ("Option A": only a model
    sees what was offered), and so does feedback on how the agent talks ("You're too verbose."); a few words the
    language model is sure are another language's ("c'est bon déjà") are read in theirs; words of substance the
    model cannot place are likeliest another language's, and so are words without any of English's small ones,
    and words in Chinese, Japanese or Korean however much English is around them."""
    if answers_an_option(sentence) or about_the_agents_manner(sentence):
        return "en", False
    sure = _short_sentence_language(sentence) if short else "en"
    if sure not in RULE_LANGUAGES:
        return (sure if statements.read([sentence], sure).unread else ""), False
    if meaningful(sentence) < 3 or small_talk(sentence) or _points_back(sentence, english):
        return "", False
    other = east_asian_words(sentence) or language_of(sentence, min_confidence=0.0)  # too short for `_foreign`
    if _an_english_command(sentence):
        return "", True
    if other in RULE_LANGUAGES and not has_english_words(sentence) and english_score(sentence) < SURE_ENGLISH:
        return UNDETERMINED, False  # "Di folder download tolong kirim kesini": a few English words borrowed
    return ("", True) if other in RULE_LANGUAGES else (other, False)


# An agent's reply this short only acknowledges a request ("ok", "Sure, on it."): the person's next bare "don't …"
# still says how to do that errand; after a longer one (the work shown), it is feedback that may stand.
ACKNOWLEDGED = 200
# A sentence without English's small words is English all the same when the model is this sure of it.
SURE_ENGLISH = 0.5
# A message with this many letters that the language model cannot place is mixed, not too short to tell.
LONG_ENOUGH = 40
# A sentence of an English message this long is read as another language's only when the model is this sure.
FOREIGN_LETTERS, FOREIGN_CONFIDENCE = 20, 0.8


def _language(text: str) -> str:
    """A message's language, judged on what the person typed (a pasted log or listing is no language of theirs;
    nothing typed at all leaves nothing to read but by lines); one long enough that the model is unsure of is
    taken in its likeliest language other than English (two languages mixed), so the English rules never read a
    French or Spanish paragraph."""
    text = "\n".join(structure.typed_lines(text.splitlines()))
    if not text:
        return UNDETERMINED
    language = language_of(text)
    if language != UNDETERMINED or statements.substance(text) < LONG_ENOUGH:
        return language
    likeliest = language_of(text, min_confidence=0.0)
    return UNDETERMINED if likeliest in RULE_LANGUAGES else likeliest


def _short_sentence_language(sentence: str) -> str:
    """The language of a sentence of a message too short to tell, when the model is sure of it or of one of its
    words that a language's cues use ("Tengo asma.": "tengo"); "en" when neither is."""
    sure = language_of(sentence, FOREIGN_CONFIDENCE, min_letters=0)
    return sure if sure not in RULE_LANGUAGES else statements.cue_language(sentence) or "en"


def _an_english_command(sentence: str) -> bool:
    """A few words opening with an English verb of instruction ("remove config files"): the model's guess for them
    is noise (Russian at 0.07), the verb is not."""
    first = sentence.split()[:1]
    return bool(first) and known_verb(first[0])


def _foreign(sentence: str) -> str:
    """The language of a sentence, or of what follows its colon ("… for context: Trabajamos con …"), that the model
    is sure is not English ("" when it is English or unsure)."""
    for part in dict.fromkeys((sentence, sentence.partition(": ")[2])):
        if statements.substance(part) < FOREIGN_LETTERS:
            continue
        language = language_of(part, min_confidence=FOREIGN_CONFIDENCE)
        if language not in RULE_LANGUAGES:
            return language
    return ""


def _written_out(message: Message, language: str, found: _Found) -> None:
    """A message longer than a person types (text/structure.py): what is read by its lines is filed — its stated
    procedures, and each list the rules read whole as statements of one kind (a typed list of rules or of facts
    about the person before any document begins: each item stands alone) — and the whole message waits for a
    model, which reads the rest."""
    rest = _procedures(message.text, found)
    found.facts += _lists_read_whole(rest, language, message.speaker) + _mostly_statements(rest, language)
    found.unread.append(("en" if language == UNDETERMINED else language, message.text))


# A long message in another language at least this share of whose sentences are explicit statements is the person
# telling who they are or how to work ("Ich heiße …", "Ich wohne …", one a line): not a pasted document.
MOSTLY = 0.5


def _mostly_statements(text: str, language: str) -> list[str]:
    """The statements about the person and the rules of a long message in another language, when its sentences are
    mostly such explicit statements (`MOSTLY`); none of a document in which a few sentences only look like them."""
    spec = statements.language(language)
    if language in RULE_LANGUAGES or spec is None:
        return []
    said = [sentence for sentence in sentences(text, language) if not statements.trivial(sentence, spec)]
    reading = statements.read(said, language)
    if not said or len(reading.statements) < MOSTLY * len(said):
        return []
    return [f"[{TAG_OF[each.kind]}] {each.text}" for each in reading.statements
            if each.kind in (statements.PERSON, statements.RULE) and _allowed(each.text, each.kind)]


def _lists_read_whole(text: str, language: str, speaker: str) -> list[str]:
    """The tagged lines of each list of `text` whose every item the rules read, all as one kind of statement."""
    english = language in RULE_LANGUAGES
    if not english and statements.language(language) is None:
        return []
    lines: list[str] = []
    for lead, items in led_lists(text):
        said = [each for item in items for each in sentences(item, "en" if english else language)]
        if english:
            facts = {place: fact for place, sentence in enumerate(said)
                     if (fact := classify(sentence, speaker, None, False)) is not None}
            facts = led_in_as_rules(lead, said, facts) or facts
            read = [fact.line() for fact in facts.values()]
            kinds = {fact.tag for fact in facts.values()}
        else:
            reading = statements.read(said, language)
            read = [] if reading.unread else [f"[{TAG_OF[each.kind]}] {each.text}" for each in reading.statements
                                              if _allowed(each.text, each.kind)]
            kinds = {each.kind for each in reading.statements}
        if read and len(read) == len(said) and len(kinds) == 1:
            lines += read
    return lines


def _list_in_part(text: str, said: list[str], filed: dict[int, Fact], rest: dict[int, str]) -> bool:
    """Whether the rules would file a list of the message in part — some of its items and not the others, or
    as facts of different kinds ("For every PR: 1. Always add a changelog entry. 2. Keep the diff small. 3. Tag
    me."): a list is filed whole or not at all, so the message then waits for a model whole."""
    if not filed:
        return False  # nothing filed, nothing cut
    for items in statement_lists(text):
        held = {sentence for item in items for sentence in sentences(item)}
        indexes = [index for index, sentence in enumerate(said) if sentence in held]
        kinds = {filed[index].tag if index in filed else "" for index in indexes if index in filed or index in rest}
        if filed.keys() & set(indexes) and len(kinds) > 1:
            return True
    return False


def _procedures(text: str, found: _Found) -> str:
    """File each procedure the person states (procedures.py) as one line; the rest of the message is read on."""
    told = [each for each in stated_procedures(text) if len(each.line()) <= MAX_CHARS]
    found.facts += [each.line() for each in told]
    taken = {number for each in told for number in each.lines}
    return "\n".join(line for number, line in enumerate(text.splitlines()) if number not in taken)


def _asked_to_keep_or_forget(said: list[str], index: int, filed: dict[int, Fact],
                             english: statements.Language | None) -> bool:
    """An English sentence no rule filed that asks the agent to keep something, or to forget it ("Forget that I
    live in Berlin"): unless it only points back at the sentence before it, which was filed ("Always use pnpm.
    Remember this."), it waits for a model, never a gist's words."""
    if english is None or not statements.asks_to_keep_or_forget(said[index], english):
        return False
    return not (index - 1 in filed and _points_back(said[index], english))


def _points_back(sentence: str, spec: statements.Language | None) -> bool:
    return spec is not None and statements.points_back(sentence, spec)


def _remembered(said: list[str], index: int, english: statements.Language | None) -> Fact | None:
    """An English sentence the full rules do not file, that the person asked to remember: one a "remember this"
    points back at, or "remember to always …" — a standing rule, in their words; one that ends by asking it
    ("I'm Ricardo, plz remember this"): what comes before, about the person when they speak of themselves; or
    what a "remember that …" holds: what the rules make of it, or a fact of the project in their words."""
    if english is None or _points_back(said[index], english):
        return None
    clause = statements.asked_to_remember(said[index], english)
    if clause:  # "Please remember that my birthday is May 3"
        return classify(clause) or _remembered_fact(clause, english)
    kept = statements.remembered(said[index], english)
    if kept:  # what the rules make of it, or it in their words (about the person when they speak of themselves)
        fact = classify(kept) or Fact("permanent", statements.tidy(third_person(kept, DEFAULT_SUBJECT) or kept))
        return fact if _allowed(fact.text, statements.RULE) else None
    pointed = index + 1 < len(said) and _points_back(said[index + 1], english)
    found = statements.statement(said[index], english)
    if not pointed and (found is None or found.kind != statements.RULE):
        return None
    line = statements.tidy(said[index])
    return Fact("permanent", line) if _allowed(line, statements.RULE) else None


def _remembered_fact(clause: str, english: statements.Language) -> Fact | None:
    """What an English "remember that …" holds when no rule reads it: a fact of the project in the person's words,
    any "my" of theirs said of the user ("this repo manages my dotfiles")."""
    owned = owned_by(clause, "the user") if statements.states_a_fact(clause, english) else None
    line = statements.tidy(owned) if owned else ""
    return Fact("durable", line) if line and _allowed(line, statements.FACT) else None


def _in_another_language(sentence: str, *, errand: bool) -> tuple[Fact | None, str]:
    """A message too short for the language model to tell ("Moro em Coimbra."): the other languages' cues may still
    read it, unless the model takes it for English; with the language they read it in. After a request (`errand`)
    a rule that does not say it lasts ("Kein Caching verwenden.") is left for a model with the message. A line the
    model takes for English without any of English's small words is no English ("Utilise toujours TypeScript
    strict.")."""
    for code in sorted(statements.read_languages() - RULE_LANGUAGES):
        spec = statements.language(code)
        found = statements.statement(sentence, spec) if spec is not None else None
        if found is not None and _allowed(found.text, found.kind) and spec is not None:
            if language_of(sentence) == "en" and has_english_words(sentence):
                return None, ""
            if errand and _for_the_errand(found, spec):
                return None, code
            return Fact(TAG_OF[found.kind], found.text), code
    return None, ""


def _for_the_errand(said: statements.Statement, spec: statements.Language) -> bool:
    """A rule that may be a request's only ("Kein Caching verwenden."): how to act, not saying it lasts; the name
    the person gives the agent is no such rule."""
    if said.kind != statements.RULE or said.section == "Identity":
        return False
    return not statements.says_it_lasts(said.text, spec)


def _allowed(line: str, kind: str) -> bool:
    """A line in any language passes the checks that do not depend on English: not too long, no code, a question
    or a heading, and no link in USER.md or SOUL.md."""
    check = forbidden_kind if kind in (statements.DECISION, statements.FACT) else forbidden_in_profile
    return check(line, rule=kind == statements.RULE) not in _NEVER_IN_ANY_LANGUAGE


def _about_the_person(message: Message, language: str, found: _Found) -> None:
    """A `Key: value` block about the person ("Twitter: @ada", "Wallet: 0x…"), one line per key for USER.md; any
    other such block is structure, never prose (text/structure.py)."""
    for block in _the_persons_blocks(message.text, language):
        _file_details(block, found)


def _the_persons_blocks(text: str, language: str) -> list[structure.KeyValues]:
    """The message's `Key: value` blocks about the person, their secrets set apart; none in a language the rules do
    not read (the whole message waits for a model)."""
    if statements.language(language) is None:
        return []
    blocks = [_without_secrets(block) for block in structure.key_values(text.splitlines())]
    return [block for block in blocks if statements.about_the_person(block, language)
            or language in RULE_LANGUAGES and _led_by_the_person(block)]


def _led_by_the_person(block: structure.KeyValues) -> bool:
    """A block whose lead line is the person's in any language read ("Mes infos :", "Meine Daten:"): a message
    of details has too few typed words to be told as French or German, so English's words alone would judge it."""
    return bool(block.lead) and any(statements.about_the_person(block, code)
                                    for code in sorted(statements.read_languages() - RULE_LANGUAGES))


def _one_detail(message: Message, language: str, found: _Found) -> bool:
    """A message of one `Key: value` line giving one of the person's details ("Telegram ID: 5867030229", an
    answer to the agent's question), filed as a block of one; whether it was."""
    block = structure.sole_key_value(message.text.splitlines())
    if block is None or statements.language(language) is None:
        return False
    block = _without_secrets(block)
    return bool(block.pairs) and statements.about_the_person(block, language) and _file_details(block, found)


def _without_details(text: str, language: str) -> str:
    """The message without its `Key: value` blocks about the person, which `_about_the_person` files whole: a
    message of nothing else has nothing left for a model ("名字：陈晨 / 邮箱：…" was filed and waited too)."""
    filed = {number for block in _the_persons_blocks(text, language) for number in block.lines}
    return "\n".join(line for number, line in enumerate(text.splitlines()) if number not in filed)


def _without_secrets(block: structure.KeyValues) -> structure.KeyValues:
    """The block without its secrets ("Password: …", a token): nothing said of the person, they neither make the
    rest of the block someone's details nor stop it from being the person's."""
    pairs = [(key, value) for key, value in block.pairs
             if redacted(f"{key}: {value}") == f"{key}: {value}" and not REDACTION.search(value)]
    return replace(block, pairs=tuple(pairs))


def _file_details(block: structure.KeyValues, found: _Found) -> bool:
    """The block's details, one USER.md line per key; whether any was filed."""
    values: dict[str, list[str]] = {}  # "Email: …" twice in one block: two values of one detail, one line
    keys: dict[str, str] = {}
    for key, value in block.pairs:
        keys.setdefault(key.lower(), key)
        values.setdefault(key.lower(), []).append(value)
    lines = [f"{DEFAULT_SUBJECT}'s {keys[key]}: {'; '.join(said)}" for key, said in values.items()]
    filed = [f"[permanent] {line}" for line in lines if _allowed(line, statements.PERSON)]
    found.facts += filed
    return bool(filed)


def _other_language(message: Message, language: str, found: _Found, *, asked: bool) -> bool:
    """A message in another language: its explicit statements filed in its words; anything else of substance
    leaves the whole message for a model. A short message told as a language without a data file ("Me llamo
    Carlos Etxeberria." taken for Catalan by its name) is read in one that states all of it, if one does; one told as
    a language whose rules leave some of it unread ("Me chamo Rodrigo." taken for Spanish), in one that states all
    of it as who the person is.

    A rule that does not say it lasts ("N'utilise pas de cache.") beside a request ("Peux-tu corriger le bug de
    connexion ?"), or in the message after one the agent only acknowledged (`asked`), may be that errand's only: it
    waits with the message, for a model to judge. A procedure it states ("So mache ich ein Release: 1. …") is
    filed as the English ones are, the rest read on. Returns whether this message asks for a piece of work."""
    rest = _procedures(message.text, found)
    if not rest.strip():
        return False
    message = replace(message, text=rest)
    if statements.language(language) is None:
        language = _stated_whole(message.text) or language
    said = list(sentences(message.text, language))
    reading = statements.read(said, language)
    if reading.unread and (told := _stated_whole(message.text, who=True) or _stated_in(close_second(message.text),
                                                                                         message.text)):
        # "Me chamo Rodrigo." told as Spanish; "Sempre rode o formatador …", Spanish 0.54 and Portuguese 0.41
        language, said = told, list(sentences(message.text, told))
        reading = statements.read(said, language)
    spec = statements.language(language)
    if not said and statements.substance(_without_details(message.text, language)) >= statements.TRIVIAL_LETTERS:
        found.unread.append((language, message.text))  # all of it quoted or laid out as a document: a model reads it
        return False
    in_part = _read_in_part(message.text, language)
    kept = [each for each in reading.statements if _allowed(each.text, each.kind) and each.text not in in_part]
    if (reading.asks or asked) and spec is not None:
        kept = [each for each in kept if not _for_the_errand(each, spec)]
    found.facts += [f"[{TAG_OF[each.kind]}] {each.text}" for each in kept]
    if reading.unread or len(kept) < len(reading.statements):
        found.unread.append((language, message.text))
    return reading.asks


def _read_in_part(text: str, language: str) -> set[str]:
    """The statements of each list in another language the rules read in part ("- Nunca uses var." beside an item
    they cannot read): a list is filed whole or not at all, so the message waits for a model with all of it."""
    held: set[str] = set()
    for items in statement_lists(text):
        reading = statements.read([each for item in items for each in sentences(item, language)], language)
        if reading.unread:
            held |= {each.text for each in reading.statements}
    return held


def _fact_of(said: list[str], index: int, speaker: str, day: date | None, *, errand: bool,
             problem: bool) -> Fact | None:
    """What sentence `index` of a message states; a fact of the project is none when the request after it is
    about it (`problem`: "The invoice PDF renders blank pages. Please look into it." — the errand's problem)."""
    if index and names_a_source(said[index - 1]):
        return None  # "According to the docs, always call init first.": the docs' words
    fact = classify(said[index], speaker, day, errand) or _remembered(said, index, statements.language("en"))
    return None if fact is not None and fact.tag == "durable" and problem else fact


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


# A message this short may be told as the wrong language by a name in it; a longer one is told right.
MISTOLD_LETTERS = 60


def _stated_whole(text: str, *, who: bool = False) -> str:
    """The read language whose cues state every sentence of a short message, or "". `who`: only as who the person
    is ("Me chamo Rodrigo."), which a name told as another language mistells; "Nunca entendí …", which Portuguese's
    rules would take for a rule, stays Spanish and unread."""
    if statements.substance(text) > MISTOLD_LETTERS:
        return ""
    return next((code for code in sorted(statements.read_languages() - RULE_LANGUAGES)
                 if _stated_in(code, text, who=who)), "")


def _stated_in(code: str, text: str, *, who: bool = False) -> str:
    """`code` when its rules state every sentence of `text` (`who`: each as who the person is), else ""."""
    if code not in statements.read_languages() or code in RULE_LANGUAGES:
        return ""
    reading = statements.read(list(sentences(text, code)), code)
    whole = bool(reading.statements) and not reading.unread
    return code if whole and (not who or all(each.kind == statements.PERSON for each in reading.statements)) else ""


def gist_line(rest: list[str], messages: list[Message], *, filed: bool) -> str:
    """One untagged line of what else the person talked about; `[skip]` when nothing at all is worth keeping."""
    if rest:
        return GIST + "; ".join(_shortened(part) for part in rest[:GIST_PARTS])
    if filed:
        return ""
    if not any(message.role == "user" for message in messages):
        return "[skip] only the assistant spoke"
    return "[skip] small talk"


# A message left for a model is kept whole up to this many characters (a chunk holds one longer message alone).
WAITING_MESSAGE_CHARS = 6000


def waiting_text(unread: list[tuple[str, str]], days: list[date | None] | None = None) -> str:
    """The entry a model reads what the rules could not: ingest's marker, then each message in the person's words,
    every line quoted (so no line of theirs reads as a tag), messages apart by a blank line; a message said on
    another day than the entry's after a line that says which (`days`, beside `unread`)."""
    if not unread:
        return ""
    blocks = []
    for (_, text), day in zip(unread, days or [None] * len(unread), strict=True):
        kept = text if len(text) <= WAITING_MESSAGE_CHARS else text[:WAITING_MESSAGE_CHARS].rstrip() + " …"
        said = [f"(said on {day.isoformat()})"] if day is not None else []
        blocks.append("\n".join([*said, *(f"> {line}".rstrip() for line in kept.strip().splitlines())]))
    return marker_line([language for language, _ in unread]) + "\n" + "\n\n".join(blocks)


def _shortened(text: str) -> str:
    text = " ".join(text.split()).rstrip(".")
    if len(text) <= GIST_PART_CHARS:
        return text
    return text[:GIST_PART_CHARS].rsplit(" ", 1)[0] + "…"
