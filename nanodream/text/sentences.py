"""The prose sentences of a message, as people write them: hard-wrapped, in lists, dictated, quoting others.

A message is read as markdown blocks first. Code fences, indented code, quoted lines ("> …", someone else's
words), headings, table rows and code-like lines are not prose and are left out. The lines of one paragraph
are one text: a terminal or an editor that wrapped a sentence does not cut it in two (a line that opens with
"I", "my" or "we" after a line without a full stop starts a new statement, as dictated lines do). Each list
item is a text of its own. A text the person pasted for the agent to read is not theirs to file either: a letter
(from a salutation line, "Hi all,", to the end) and whatever follows a first paragraph announcing it ("here's the
intro I rewrote:"). Each text is cut into sentences by sentencex (Wikimedia's rule-based segmenter,
which knows abbreviations, initials and decimals: "Dr. Okafor moved to St. Louis in 2019."), then a sentence
holding two statements of the person's ("… and I live in Rotterdam", "…; never add co-author trailers") is
cut in two, and so is a statement joined to a question by a comma ("we decided to X, does the template need
changing?") or to a standing rule with no stop between them ("please generate them please always …").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from sentencex import segment

from nanodream.text import structure
from nanodream.text.cjk import CJK_CHARS
from nanodream.text.lists import wordlist

_BULLET = re.compile(r"^\s*(?:[-*•+]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s|^\s*[=-]{3,}\s*$")
_TABLE = re.compile(r"^\s*\|.*\|\s*$")
_CODE_CHARS = frozenset("{}[]();=<>/\\`$|")
_SENTENCE_END = re.compile(r"[.!?:;)\"'”]\s*$")
# A wrapped line that starts a new statement of the person's (dictated lines carry no full stops), or a rule with
# its capital after a program's last line ("… to display a backtrace" / "Never use unwrap in library code.").
_STATEMENT_START = re.compile(r"^(?:I|i|I['’](?:m|ve|d|ll)|i['’](?:m|ve|d|ll)|[Mm]y|[Ww]e|[Oo]ur"
                              r"|Never|Always|Don['’]t|Do not|From now on|Please (?:never|always|don['’]t|do not))\b")
_PERSON = r"(?:I|I['’](?:m|ve|d|ll)|[Mm]y|[Ww]e|[Ww]e['’](?:re|ve|ll)|[Oo]ur)\b(?!\.\w)"  # "i.e." is no "I"
_STANDING = r"(?:from now on|going forward|in (?:the )?future|(?:please )?(?:always|never)\b|please don['’]?t)"
# Where one sentence holds two statements: "… and I live in Rotterdam", "I left Google, now I work at Stripe",
# "Quick note: my …", "…; never push", "…, and from now on never add co-author trailers", "My name is Ana, your
# name is Mo".
_CLAUSE = re.compile(rf"(?::\s+|;\s+|,\s+|,?\s+(?:and|but|so|because|then|also)\s+)(?=(?:now,?\s+)?{_PERSON})|"
                     rf"(?:;\s+|,\s+(?:and\s+)?|\s+and\s+)(?={_STANDING})|"
                     r";\s+(?:and|but|also)\s+|"  # "never commit .env; and the deploy runs on Fridays"
                     r"(?<=\w)\s+(?=please\s+(?:always|never|don['’]?t|do not)\b)|"
                     r",\s+(?=your\s+(?:new\s+)?[\w-]+\s+(?:is|are|will be)\b)|"  # "…, your name is Hiperagi"
                     # "My name is Tom Baker, you can call me Tom", "i am calling you luna you can call me Mati"
                     # "My name is Katherine, but call me Kat", "I'm Katherine but everyone calls me Kat"
                     r"(?:,\s+(?:but\s+)?|,?\s+(?:and|but)\s+)(?=(?:you\s+can\s+(?:just\s+)?|please\s+(?:just\s+)?|"
                     r"just\s+)?call\s+me\b|(?:everyone|everybody|people|(?:my\s+)?friends|most\s+people)\s+calls?\s+me\b)|"
                     r"(?<=\w)\s+(?=you\s+can\s+(?:just\s+)?call\s+me\b)|"
                     r",\s+(?=(?:[\w-]+\s+)?rules?\s*[-–—:]\s*\w)|"  # "I use Zoho mail, rule - never send …"
                     r",\s+(?=(?:does|do|did|is|are|was|were|can|could|should|would|will|shall|what|how|why|where|"
                     r"which|who|when)\b[^,.!?]*\?\s*$)", re.IGNORECASE)
# Where "I" gives a second one-at-a-time attribute without saying "I" again: "I live in Berlin and work at SAP",
# "I'm based in Lisbon, work as a nurse" (engines/slots.py reads each: where the person lives, where they work).
_SHARED_SUBJECT = re.compile(r"(?:,?\s+and\s+|,\s+)(?=(?:now\s+|also\s+)?(?:live|work|moved|relocated)\s+"
                             r"(?:in|at|for|as|to)\b)", re.IGNORECASE)
_I_OPENING = re.compile(r"^I(?:['’]m)?\s")
# A line that opens a letter ("Hi all,", "Dear Ana,"): what follows was written for someone else.
_SALUTATION = re.compile(r"^\s*(?:hi|hello|hey|dear|greetings|good (?:morning|afternoon|evening))\b"
                         r"[\w\s'’-]{0,30},\s*$", re.IGNORECASE)
# A first paragraph announcing the text that follows it: "here's the intro I rewrote, can you check it?".
_ANNOUNCED = re.compile(r"^\s*(?:here['’]?s|here is|here are|below is|this is)\b.*(?::|\?)\s*$", re.IGNORECASE)


def sentences(text: str, language: str = "en") -> Iterator[str]:
    """The prose sentences of a message: code, quotes, headings and code-like lines left out. In English a
    sentence holding two statements is cut in two; another language's sentences are cut by its own rules
    (sentencex knows each language's stops: "。", "！", abbreviations), never inside."""
    english = language in ("en", "und")
    for block in prose_blocks(text):
        for sentence in _segments("en" if english else language, _without_file_lead(block)):
            if english:
                parts = [part.strip() for part in _CLAUSE.split(sentence) if part and part.strip()]
                yield from _with_settings(_with_contrasts(_with_shared_subject(parts)))
            else:
                yield from (line.strip() for line in sentence.split("\n") if line.strip())


# An agent's instruction file named before a colon: "Add this to CLAUDE.md: never …", '写入AGENTS.md:"…"'.
_FILE_LEAD = re.compile(r"^(?P<lead>[^:：\n]{0,40}?(?<![a-z])(?:agents|claude|soul|gemini|user|memory)\.md\b"
                        r"[^:：\n]{0,20})[:：]\s*[\"“「]?", re.IGNORECASE)
_ADDING = wordlist("adding-words")


def adds_to_a_file(block: str) -> int:
    """Where what the person asks to add to the agent's instruction file starts ('写入AGENTS.md:"…"', "Add this to
    CLAUDE.md: never …"), or 0 when the block asks no such thing ("remove from CLAUDE.md: …" does not)."""
    lead = _FILE_LEAD.match(block)
    if lead is None or not any(word in lead.group("lead").lower() for word in _ADDING):
        return 0
    return lead.end()


def _without_file_lead(block: str) -> str:
    """The block without a lead that asks to add what follows to the agent's instruction file: what follows is
    what the person wants kept, read as any sentence of theirs."""
    return block[adds_to_a_file(block):]


# A full stop that opens a name rather than ending a sentence: ".NET", ".env", ".gitignore" after a space, or a
# relative path ("./docs/setup.md", "../scripts").
_DOT_NAME = re.compile(r"(?:^|\s)\.{1,2}$")


# A short word's full stop before "I" and a word: sentencex reads "me. I" as initials and runs on ("Summarize the PR
# for me. I'm a backend developer."); initials are capitals ("J. K. Rowling"), and "e.g. I" is no short word.
_BEFORE_I = re.compile(r"(?:^|(?<=\s))[a-z]{1,3}[.!?](?=\s+I(?:['’][a-z]+)?\s)")


def _at_i(piece: str) -> list[str]:
    """An English piece cut where a sentence ends on a short word before "I"."""
    cuts = [match.end() for match in _BEFORE_I.finditer(piece)]
    return [piece[start:end].strip() + (" " if end < len(piece) else "")
            for start, end in zip([0, *cuts], [*cuts, len(piece)], strict=True)] if cuts else [piece]


def _segments(language: str, block: str) -> Iterator[str]:
    """sentencex's sentences of `block`, except that a full stop opening a name (".NET 8", ".env", "./docs") cuts
    nothing: sentencex ends a sentence at any full stop before a capital, or a slash; and in English one does
    after a short word before "I" (`_BEFORE_I`)."""
    pending = ""
    pieces = segment(language, block)
    if language == "en":
        pieces = [part for piece in pieces for part in _at_i(piece)]
    for piece in pieces:
        if pending and (piece[:1].isalnum() or piece[:1] == "/"):
            pending += piece
        else:
            if pending:
                yield pending
            pending = piece
        if not _DOT_NAME.search(pending):
            yield pending
            pending = ""
    if pending:
        yield pending


# The setting a statement holds in, before its comma: "In Python files, always use type hints", "When you write
# commit messages, never …". It is no statement of its own: cut from what follows, the rule would hold everywhere.
SETTING_OPENERS = r"(?:in|on|for|when|whenever|while|if|after|before|during|with|within|inside|once)\b"
# … or a time that scopes what follows to now: "This time, please don't run the formatter" is no standing rule.
_SETTING = re.compile(rf"^(?:{SETTING_OPENERS}[^,.!?;:]*|(?:just\s+)?(?:this|that)\s+(?:time|once)|just\s+this\s+once"
                      r"|for\s+now|for\s+today|today|right\s+now|at\s+the\s+moment)$", re.IGNORECASE)


# "…, never npm": a contrast that borrows the verb of the rule before it ("always use pnpm").
_CONTRAST = re.compile(r"^(?:always|never)\s+(?P<first>[\w'’-]+)(?:\s+[\w'’-]+){0,2}[.!]?$", re.IGNORECASE)
_VERBS = wordlist("imperatives")


def _with_shared_subject(parts: list[str]) -> list[str]:
    """The parts of a sentence, one that gives the person several attributes cut into one per attribute, each with
    "I" ("I live in Berlin and work at SAP" → "I live in Berlin", "I work at SAP"): a correction of one replaces
    its line alone."""
    cut: list[str] = []
    for part in parts:
        pieces = _SHARED_SUBJECT.split(part) if _I_OPENING.match(part) else [part]
        cut += [pieces[0], *(f"I {piece}" for piece in pieces[1:])]
    return cut


def _with_contrasts(parts: list[str]) -> list[str]:
    """The parts of a sentence, each contrast without a verb of its own joined back to the rule it contrasts: cut
    off, "never npm" would be filed as a rule that says nothing."""
    joined: list[str] = []
    for part in parts:
        contrast = _CONTRAST.match(part)
        if joined and contrast is not None and contrast.group("first").lower() not in _VERBS:
            joined[-1] = f"{joined[-1]}, {part}"
        else:
            joined.append(part)
    return joined


def _with_settings(parts: list[str]) -> Iterator[str]:
    """The parts of a sentence, each setting joined back to the statement after it."""
    setting = ""
    for part in parts:
        if _SETTING.match(part) and not setting:
            setting = part
            continue
        yield f"{setting}, {part}" if setting else part
        setting = ""
    if setting:
        yield setting


@dataclass
class _Block:
    lines: list[str]
    bullet: bool = False
    gap_before: bool = False  # a blank line or something left out came before it


def prose_blocks(text: str) -> list[str]:
    """The message's paragraphs and list items, each one text with its wrapped lines joined. What the person pasted
    (text/structure.py: a traceback, a log, a tool's output, a diff) and `Key: value` blocks are left out; a list of
    fragments under a line ending in a colon is one text with that line ("Storing: owner, price, status")."""
    return _with_lists(_blocks(text))


def statement_lists(text: str) -> list[list[str]]:
    """The lists of a message whose items are statements, each as its items' texts: what is filed whole or not at
    all (a list of fragments is one text already, `prose_blocks`)."""
    return [items for _, items in led_lists(text)]


def led_lists(text: str) -> list[tuple[str, list[str]]]:
    """`statement_lists`, each with the line leading into it ("Rules for you:"; "" when none does)."""
    blocks = _blocks(text)
    found: list[tuple[str, list[str]]] = []
    index = 0
    while index < len(blocks):
        bullet = blocks[index].bullet
        lead = "" if bullet else _joined(blocks[index].lines)
        leads = lead.rstrip().endswith(LEAD_COLONS)
        items = [_joined(blocks[index].lines)] if bullet else []
        if bullet or leads:
            items += _items_after(blocks, index)
        if len(items) >= 2 and not all(_fragment_item(item) for item in items):
            found.append((lead if leads else "", items))
        index += len(items) + (0 if bullet else 1) if items else 1
    return found


# An item number inside a line ("…, 2. I love chocolate, 3. …"): a comma or semicolon and a space before it.
_ITEM_NUMBER = re.compile(r"(?:^\s*|[,;]?\s+)(?P<number>\d{1,2})[.)]\s+")


def _enumerated(line: str) -> list[str]:
    """A list typed on one line ("1. eggs for breakfast, 2. I love chocolate, 3. allergic to nuts"): its items as
    the lines of a list, numbered one after the other from 1; any other line as it is."""
    cuts: list[re.Match[str]] = []
    for match in _ITEM_NUMBER.finditer(line):
        if int(match.group("number")) == len(cuts) + 1 and (cuts or match.start() == 0):
            cuts.append(match)
    if len(cuts) < 2:
        return [line]
    ends = [match.start() for match in cuts[1:]] + [len(line)]
    return [f"{number}. {line[match.end():end].strip()}" for number, (match, end) in enumerate(zip(cuts, ends,
                                                                                                   strict=True), 1)]


def _blocks(text: str) -> list[_Block]:
    lines = [item for line in _own_words(text.splitlines()) for item in _enumerated(line)]
    left_out = structure.pasted(lines) | {index for block in structure.key_values(lines) for index in block.lines}
    blocks: list[_Block] = []
    current: list[str] | None = None
    fenced = gap = False
    for index, raw in enumerate(lines):
        if structure.FENCE.match(raw):
            fenced, current, gap = not fenced, None, True
        elif fenced or not raw.strip() or index in left_out or _not_prose(raw):
            current, gap = None, True
        elif _BULLET.match(raw) or current is None:
            current = [_BULLET.sub("", raw).strip()]
            blocks.append(_Block(current, bool(_BULLET.match(raw)), gap or not blocks))
            gap = False
        else:
            current.append(raw.strip())
    return blocks


# How a line leading into a list ends, in any script ("Rules:", "规则：").
LEAD_COLONS = (":", "：")


def _with_lists(blocks: list[_Block]) -> list[str]:
    """Each block as one text; a line ending in a colon takes the list of fragments right after it in."""
    texts: list[str] = []
    index = 0
    while index < len(blocks):
        lead = _joined(blocks[index].lines)
        items = _items_after(blocks, index) if lead.rstrip().endswith(LEAD_COLONS) else []
        if items and all(_fragment_item(item) for item in items):
            cjk = bool(_CJK.search(lead + "".join(items)))
            space, comma = ("", "，") if cjk else (" ", ", ")
            texts.append(f"{lead}{space}{comma.join(item.rstrip('.;,') for item in items)}")
            index += len(items) + 1
            continue
        texts.append(lead)
        index += 1
    return texts


def _items_after(blocks: list[_Block], index: int) -> list[str]:
    """The list items right after block `index` (the first may follow a blank line, the rest follow each other)."""
    items: list[str] = []
    for block in blocks[index + 1:]:
        if not block.bullet or (items and block.gap_before):
            break
        items.append(_joined(block.lines))
    return items


# A list item that is part of what its lead line says, not a statement of its own: a few words, no sentence (words
# closed by a full stop are one in any language: "- Vivo en Sevilla.", "- varは使わないでください。"; "- Python." is
# not).
_STATEMENT_OPENING = re.compile(r"^(?:I|I['’]\w+|my|we|we['’]\w+|our|you|please|always|never|don['’]?t|do not)\b",
                                re.IGNORECASE)
_SENTENCE_STOP = (".", "!", "?", "。", "！", "？")
_CJK = re.compile(f"[{CJK_CHARS}]")


def _fragment_item(item: str) -> bool:
    said = item.rstrip()
    sentence = said.endswith(_SENTENCE_STOP) and (len(said.split()) > 1 or bool(_CJK.search(said)))
    return len(item.split()) <= 6 and not _STATEMENT_OPENING.match(item) and not sentence


def _own_words(lines: list[str]) -> list[str]:
    """The message's lines before a pasted letter, an announced paste or a document (text/structure.py) begins."""
    lines = _emphasis(lines)
    lines = lines[:structure.document_start(lines)]
    for index, line in enumerate(lines):
        if _SALUTATION.match(line):
            return lines[:index]
        if index and not line.strip() and _ANNOUNCED.match(" ".join(lines[:index])):
            return lines[:index]
    return lines


def _emphasis(lines: list[str]) -> list[str]:
    """A short message's first line without a heading's marks: how a person typing in one go stresses what they say
    ("## Always ask me before running many tools"), not the title of a document they pasted (text/structure.py),
    which a second heading shows it is."""
    if not lines or not structure.MARKDOWN_HEADING.match(lines[0]) or structure.written_out("\n".join(lines)):
        return lines
    if any(structure.MARKDOWN_HEADING.match(line) for line in lines[1:]):
        return lines  # "## Installation … ## Usage": a document's sections, pasted

    return [lines[0].lstrip().lstrip("#").lstrip(), *lines[1:]]


def _not_prose(line: str) -> bool:
    return (line.startswith(("    ", "\t", ">")) or bool(_HEADING.match(line)) or bool(_TABLE.match(line))
            or _looks_like_code(line))


def _joined(lines: list[str]) -> str:
    """Wrapped lines as one text; a line opening a new statement after an unfinished one starts a sentence, and so
    does a line break between two lines of Chinese, Japanese or Korean (which end a sentence at the line's end
    without a stop: "用最简单的方法完成任务" / "不要创建新文件"), kept as the break `sentences` cuts at."""
    parts = [lines[0]]
    for before, line in zip(lines, lines[1:], strict=False):  # each line against the one before: linear time
        if _CJK_LAST.search(before) and _CJK_FIRST.match(line):
            parts.append("\n")
        elif not _SENTENCE_END.search(before) and _STATEMENT_START.match(line):
            parts.append(". ")
        else:
            parts.append(" ")
        parts.append(line)
    return "".join(parts)


_CJK_LAST = re.compile(f"[{CJK_CHARS}]$")
_CJK_FIRST = re.compile(f"^[{CJK_CHARS}]")


def _looks_like_code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and sum(char in _CODE_CHARS for char in stripped) > 0.12 * len(stripped)
