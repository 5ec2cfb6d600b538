"""The one-at-a-time attribute a sentence in another language gives the person, from each language's `[slots]`.

"Ich wohne in München" and, later, "Ich wohne jetzt in Berlin" say where the person lives; the second replaces
the first as "User moved to Berlin" replaces "User lives in Munich" (engines/slots.py reads English itself). Each
language file's `[slots]` table lists, per attribute, the patterns that give it a value — "…" stands for the
value: "ich wohne in …", "…에 살~", "我住在…" — the words that only say a value is new (`now`: "jetzt", "现在"),
and, for a language written without spaces, the particles a value never holds (`particles`: "私は東京に住んで…"
names 東京), the words that join two clauses (`joins`: "und", "y"), so "Vivo en Madrid y trabajo en Google" is
two attributes, each its own line, and the person's "I" a clause without a subject takes from the first
(`subjects`: "Ich wohne in Berlin und arbeite bei SAP"). `[slots.keys]` names the keys of a `Key: value` line
that give the same attribute ("Wohnort: …"). A speaker extends the file; no code changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache

from nanodream.text.lists import language_codes, language_file

VALUE_MARK = "…"
# Where a value that runs to the end of its clause stops: a comma, a semicolon or a sentence's end.
_CLAUSE_END = r"(?=\s*(?:[,;:!?。，；：！？、]|\.(?:\s|$)|$))"
_PUNCTUATION = r"\s,;:.!?。，；：！？、"
# Attributes whose value is a name (a place, an employer, what the person is called): it opens with a capital,
# where the script has them ("Llámame cuando termines" gives none).
_NAMES = frozenset({"lives in", "works at", "is called"})
# The lists of a `[slots]` table that are no attribute's patterns.
_NOT_RELATIONS = frozenset({"now", "particles", "joins", "subjects"})
# A one-at-a-time value said without whose it is: "Timezone is UTC-5 now", "The port is now 8081". The value names
# one thing (a digit or a capital: "Europe/Berlin", "8081"), not a state ("Location is wrong").
_UNOWNED = re.compile(r"^(?:(?:the|our)\s+)?(?P<key>time\s*zone|tz|port|location|city)\s+"
                      r"(?:is|=|(?P<changed>(?:has\s+|was\s+)?changed\s+to))\s+"
                      r"(?P<lead>(?:now|currently)\s+)?(?P<value>(?=\S*(?:\d|(?-i:[A-Z])))[^,;]+?)"
                      r"(?P<now>\s+(?:now|currently))?\s*[.!]?$", re.IGNORECASE)


@dataclass(frozen=True)
class Attribute:
    relation: str  # "lives in", "works at", "works as", "time zone"
    value: str  # as the person wrote it


@dataclass(frozen=True)
class _Spec:
    patterns: tuple[tuple[str, re.Pattern[str]], ...]
    now: re.Pattern[str] | None
    keys: dict[str, str]
    particles: str  # what a value never ends on either ("我搬到上海了": 上海)
    joins: re.Pattern[str] | None  # where one clause may end and another start: a comma, "und", "并且"; None: unsaid
    characters: bool  # written without spaces
    subjects: tuple[str, ...]  # the person's "I" that a clause without a subject takes from the first ("ich")
    unowned: tuple[tuple[str, re.Pattern[str]], ...]  # `[slots.unowned]`: "der port ist …", whose unsaid
    named: tuple[tuple[str, re.Pattern[str]], ...]  # `[slots.named]`: "… auf Port 8080", the number after the word


@cache
def _spec(code: str) -> _Spec | None:
    data = language_file(code)
    if data is None:
        return None
    table = data.get("slots", {})
    characters = data.get("match") == "characters"
    stops = re.escape("".join(table.get("particles", ())))
    patterns = tuple((relation, _compiled(item, characters, stops))
                     for relation, items in table.items() if isinstance(items, list) and relation not in _NOT_RELATIONS
                     for item in items)
    now = table.get("now", ())
    joined = "|".join(re.escape(word) for word in sorted(now, key=len, reverse=True))
    now_pattern = re.compile(joined if characters else rf"(?<!\w)(?:{joined})(?!\w)\s*", re.IGNORECASE) if now else None
    keys = {key.lower(): relation for relation, listed in table.get("keys", {}).items() for key in listed}
    joins = _joins(table.get("joins", ()), characters)
    subjects = tuple(sorted(table.get("subjects", ()), key=len, reverse=True))
    unowned = tuple((key, _compiled(item, characters, stops))
                    for key, items in table.get("unowned", {}).items() for item in items)
    named = tuple((key, _number_after(words, characters)) for key, words in table.get("named", {}).items())
    return _Spec(patterns, now_pattern, keys, "".join(table.get("particles", ())), joins, characters, subjects,
                 unowned, named)


def _number_after(words: list[str], characters: bool) -> re.Pattern[str]:
    """A number right after one of the words naming an attribute ("Port 8080"), or, in a script without spaces,
    right before it ("3000端口")."""
    names = "|".join(r"\s*".join(map(re.escape, word.split())) for word in sorted(words, key=len, reverse=True))
    after = rf"(?:{names})\s*(?P<value>\d{{2,5}})(?!\d)"
    if characters:
        return re.compile(rf"{after}|(?<!\d)(?P<before>\d{{2,5}})\s*(?:{names})", re.IGNORECASE)
    return re.compile(rf"(?<!\w){after}", re.IGNORECASE)


def _joins(words: list[str], characters: bool) -> re.Pattern[str] | None:
    """Where a clause may end: a comma or semicolon, with or without a joining word after it, or the word alone;
    None for a language whose file does not say how its clauses join (Japanese "住んでいて、…" is no clause's end)."""
    if not words:
        return None
    alternatives = "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    alone = rf"(?:{alternatives})" if characters else rf"\s+(?:{alternatives})\s+"
    after = rf"(?:{alternatives})?" if characters else rf"(?:(?:{alternatives})\s+)?"
    return re.compile(rf"\s*[,;，；、]\s*{after}|{alone}", re.IGNORECASE)


def _compiled(item: str, characters: bool, stops: str) -> re.Pattern[str]:
    """One pattern as a regular expression: its words in a row (a `~` lets a word go on), the value where "…"
    stands — one word when it comes first, else up to the next words of the pattern or the clause's end."""
    before, _, after = item.replace("’", "'").partition(VALUE_MARK)
    parts = []
    if before.strip():
        parts.append(_words(before, characters, opening=True))
        parts.append(r"\s*" if characters or before.endswith(" ") else "")
    if not before.strip():
        value = rf"[^{_PUNCTUATION}{stops}]+" if characters else rf"(?<!\S)[^{_PUNCTUATION}]+?"
    elif after.strip():
        value = r".+?"
    else:
        value = rf"[^,;:!?。，；：！？、]+?{_CLAUSE_END}"
    parts.append(f"(?P<value>{value})")
    if after.strip():
        parts.append(r"\s*" if characters or after.startswith(" ") else "")
        parts.append(_words(after, characters, opening=False))
    return re.compile("".join(parts), re.IGNORECASE)


def _words(text: str, characters: bool, *, opening: bool) -> str:
    if characters:
        return r"\s*".join(re.escape(char) for char in text if not char.isspace())
    words = []
    for word in text.split():
        pattern = re.escape(word.strip("~"))
        words.append((r"\w*" if word.startswith("~") else "") + pattern + (r"\w*" if word.endswith("~") else ""))
    edge_before = r"(?<!\w)" if opening and not text.lstrip().startswith("~") else ""
    edge_after = "" if opening or text.rstrip().endswith("~") else r"(?!\w)"
    return edge_before + r"\s+".join(words) + edge_after


@lru_cache(maxsize=16384)  # every active line is asked once per fact of a batch
def attribute_in(sentence: str, code: str) -> Attribute | None:
    """The attribute a sentence in language `code` gives the person a value for, or None."""
    found = _matched(sentence, code)
    return found[1] if found else None


def cut(sentence: str, code: str, stands: Callable[[str], bool]) -> list[str]:
    """The sentence cut at its language's joins (`joins`) before each clause that `stands` alone, once one before
    it did; a clause without a subject of its own takes the first one's ("Ich wohne in Berlin und arbeite bei SAP"
    → "Ich arbeite bei SAP"). Words that do not stand stay with the clause before them; a sentence with fewer than
    two such clauses is returned whole."""
    spec = _spec(code)
    if spec is None or spec.joins is None:
        return [sentence]
    text = sentence.strip()
    cuts = [(match.start(), match.end()) for match in spec.joins.finditer(text)]
    pieces = [text[start:end] for start, end in zip([0] + [end for _, end in cuts], [start for start, _ in cuts]
                                                    + [len(text)], strict=True)]
    lead = _subject(text, spec)
    clauses: list[str] = []
    standing = 0
    for index, piece in enumerate(pieces):
        own = _standing_clause(piece, lead, spec, stands)
        if own and standing:
            clauses.append(own)
        elif clauses:
            clauses[-1] += text[cuts[index - 1][0]:cuts[index - 1][1]] + piece
        else:
            clauses.append(piece)
        standing += bool(own)
    return [_ended(clause, text, spec) for clause in clauses] if standing >= 2 else [sentence]


def _subject(text: str, spec: _Spec) -> str:
    """The person's "I" opening the sentence (`subjects`), which a clause without a subject of its own takes; ""
    when it opens otherwise ("Antworte immer auf Deutsch und halte dich kurz": a command's verb is no subject)."""
    if spec.characters:
        return next((word for word in spec.subjects if text.startswith(word)), "")
    first = text.split(maxsplit=1)[0] if text.split() else ""
    return first if first.lower() in spec.subjects else ""


def _standing_clause(piece: str, lead: str, spec: _Spec, stands: Callable[[str], bool]) -> str:
    """The piece as a clause of its own when it stands, alone or with the sentence's subject; ""."""
    if stands(piece):
        return piece
    carried = f"{lead}{piece}" if spec.characters else f"{lead} {piece}"
    return carried if lead and piece.strip() and stands(carried) else ""


def _ended(clause: str, sentence: str, spec: _Spec) -> str:
    """A clause as a sentence of its own: a capital where the script has them, the sentence's own stop."""
    clause = clause.strip().rstrip(".!。！")
    stop = sentence.rstrip()[-1:] if sentence.rstrip()[-1:] in ".!。！" else ("。" if spec.characters else ".")
    return clause[:1].upper() + clause[1:] + stop


def said_anew(sentence: str, code: str) -> str:
    """The sentence without the words that only say its value is new ("Ich wohne jetzt in Berlin" → "Ich wohne in
    Berlin"), as its patterns read it."""
    spec = _spec(code)
    text = sentence.replace("’", "'").strip().rstrip(".!。！")
    return spec.now.sub("", text) if spec is not None and spec.now is not None else text


def _matched(sentence: str, code: str) -> tuple[int, Attribute] | None:
    """The first pattern of `code` that gives a value, with how many of the sentence's characters its own words
    hold (the longer, the surer: "我住在…" over "…在住" in "我现在住在杭州")."""
    spec = _spec(code)
    if spec is None:
        return None
    text = said_anew(sentence, code)
    found = []
    for relation, pattern in spec.patterns:
        match = pattern.search(text)
        if match is None:
            continue
        value = match.group("value").strip().rstrip(spec.particles)
        if value and (relation not in _NAMES or not _unnamed(value)):
            found.append((len(match.group()) - len(match.group("value")), Attribute(relation, value)))
    return max(found, key=lambda match: match[0]) if found else None  # "부산으로 이사": "…으로 이사~", not "…로"


def _unnamed(value: str) -> bool:
    """A value in lower case where the script has capitals: "diesem Hotel", "una casa grande", no place's name."""
    first = value[:1]
    return first.lower() != first.upper() and first.islower()


def attribute_of(sentence: str) -> Attribute | None:
    """The attribute a sentence in any language with a `[slots]` table gives the person (a memory line does not
    say its language): the reading whose pattern holds most of the sentence."""
    found = [match for code in language_codes() if (match := _matched(sentence, code)) is not None]
    return max(found, key=lambda match: match[0])[1] if found else None


@dataclass(frozen=True)
class Unowned:
    key: str  # "time zone", "port", "location", "city"
    value: str
    anew: bool  # it says the value is new ("now")


def unowned_value(sentence: str) -> Unowned | None:
    """The value a sentence gives an attribute without naming whose it is ("Port is now 8081", "Der Port ist jetzt
    8081", "端口改成8081"), or None: memory decides whose, by the one line that holds the attribute
    (engines/slots.py)."""
    match = _UNOWNED.match(sentence.strip())
    if match is None:
        return next((found for code in language_codes() if (found := _unowned_in(sentence, code))), None)
    key = " ".join(match.group("key").lower().replace("timezone", "time zone").split())
    anew = bool(match.group("lead") or match.group("now") or match.group("changed"))
    return Unowned("time zone" if key == "tz" else key, match.group("value").strip(), anew)


# A value without its owner names one thing in a few words ("8081", "Europe/Berlin"), not a sentence's rest.
MAX_VALUE_WORDS = 3
# A value in Latin letters or digits ends where another script goes on: "8081です", "8081입니다" give 8081.
_ASCII_LEAD = re.compile(r"^(?P<value>[\x21-\x7e][\x20-\x7e]*?)\s*[^\x00-\x7f].*$")


def _unowned_in(sentence: str, code: str) -> Unowned | None:
    """A value without its owner in language `code` (`[slots.unowned]`): all of the sentence but the `now` words,
    its value a number or a name."""
    spec = _spec(code)
    if spec is None or not spec.unowned:
        return None
    text = said_anew(sentence, code)
    for key, pattern in spec.unowned:
        match = pattern.match(text)
        if match is None or match.end() < len(text.rstrip()):
            continue
        value = _ASCII_LEAD.sub(r"\g<value>", match.group("value").strip().rstrip(spec.particles))
        if re.search(r"\d|[A-Z]", value) and len(value.split()) <= MAX_VALUE_WORDS:
            plain = sentence.replace("’", "'").strip().rstrip(".!。！")
            return Unowned(key, value, anew=text != plain)
    return None


@dataclass(frozen=True)
class Held:
    key: str  # "port"
    value: str
    start: int  # where the word naming it starts: what comes before says whose


def attribute_held(sentence: str) -> Held | None:
    """An attribute a sentence gives its subject by naming it before a number ("Notre API tourne sur le port
    3000", "Unsere API läuft auf Port 8080", "API跑在3000端口"), in any language of `[slots.named]`."""
    for code in language_codes():
        spec = _spec(code)
        for key, pattern in spec.named if spec is not None else ():
            match = pattern.search(sentence)
            if match is not None:
                value = match.group("value") or match.groupdict().get("before") or ""
                return Held(key, value, match.start())
    return None


def relation_of_key(key: str) -> str:
    """The attribute a `Key: value` line's key names in some language ("Wohnort" → "lives in"); "" for none."""
    lowered = key.strip().lower()
    for code in language_codes():
        spec = _spec(code)
        if spec is not None and lowered in spec.keys:
            return spec.keys[lowered]
    return ""
