"""What never enters memory, told from a line's own words: one test shared by every path that files a fact.

Memory is loaded into every prompt the host sends, so a line is filed only when it is a complete,
self-contained statement. `forbidden_kind(line)` names the first kind it falls in, or returns "":

- a question;
- code: backticks, a file path or file name, a command-line flag, a stack trace, an assignment;
- a heading or label (it ends with a colon);
- a fragment: it ends on a word that cannot end a sentence ("the", "and", "to", …), opens in the middle of
  one, leaves a bracket open, or is a single word;
- addressed to the agent: it speaks to "you", says "please", or turns to an instruction ("…, so don't …",
  "…, so expect …") (a standing rule is restated as an instruction instead);
- too long: over `MAX_CHARS` characters, or a run of over `MAX_CJK_RUN` Chinese, Japanese or Korean characters,
  which is a pasted paragraph, not a fact.

A line about the person (it opens with "User", "The user" or a named speaker) or a rule for the agent must also
hold no link: USER.md and SOUL.md are not a bookmark list (`forbidden_in_profile`).
"""

from __future__ import annotations

import re

from nanodream.text.cjk import CJK_CHARS
from nanodream.text.grammar import NEVER
from nanodream.text.language import UNDETERMINED, language_of
from nanodream.text.lists import wordlist

# What redaction leaves in place of a secret (safety/secret_scan.py writes it, every reader recognises it).
REDACTED = "(redacted {rule})"
REDACTION = re.compile(r"\(redacted (?P<rule>[^)]*)\)")
MAX_CHARS = 300
# A run of Chinese or Japanese characters longer than this is a pasted paragraph too (a CJK character says more
# than a letter does: 60 of them are a long sentence).
MAX_CJK_RUN = 60
_CJK_RUN = re.compile(rf"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff00-\uffef]"
                      rf"{{{MAX_CJK_RUN + 1},}}")  # their punctuation ("，", "。") counts too
# A character of a script where one word may be a whole sentence ("채식주의자예요.", "I'm a vegetarian").
_CJK_CHAR = re.compile(f"[{CJK_CHARS}]")
# Words a sentence does not end on: articles, prepositions, conjunctions, possessives.
DANGLING = wordlist("dangling-words")
_QUESTION = re.compile(r"[?？][\s\"'”」』)）]*$")
_CODE = re.compile(
    r"`|"  # inline code
    r"(?<![\w.])(?:~|\.{1,2})?/[\w.-]+/|(?<![\w/])[\w.-]+/[\w.-]+\.\w{1,5}\b|"  # paths
    r"(?<![\w/:.])[\w.-]+/[\w.-]+/[\w./-]+|\b\w+\.\w{1,5}:\d+\b|"  # pandas/_libs/x · parsers.pyx:568
    r"(?<!\w)--?[a-z][\w-]*=|"  # a flag given a value
    r"\bTraceback \(most recent call last\)|\b\w+Error:|"  # stack traces
    r"\b\w+\s*(?:==|!=|:=|\+=|=>|->)|[{};]\s*$|__\w+__|"  # code
    r"\bSELECT\s.{1,80}?\sFROM\b|\b(?i:select)\s+\*\s+(?i:from)\b|"  # SQL: its keywords in capitals, or "select *"
    r"\b(?:DROP|CREATE|ALTER|TRUNCATE)\s+(?:TABLE|DATABASE|INDEX|VIEW)\b|\b(?:INSERT\s+INTO|DELETE\s+FROM)\s",
)
# A file's name, an empty call or a command's flag: code on a line of its own or with a few words ("see main.py",
# "run setup()"), and in a fact; what a rule is about in a sentence ("Never edit settings.py by hand", "Use f-strings
# instead of .format()", "Never run git push --force").
_NAMED_IN_CODE = re.compile(
    r"\b(?![A-Z][a-z\d]*\.js\b)"  # "Next.js", "Node.js", "D3.js": a product's name, not a file
    r"[\w-]+\.(?:py|js|jsx|ts|tsx|md|json|toml|ya?ml|ini|cfg|sh|txt|log|rs|go|java|rb|php|css|html|lock)\b|\w\(\)|"
    r"(?<![\w-])--[a-z][\w-]+")  # a command's flag: "Never run git push --force."
PROSE_WORDS = 4  # words of letters alone that make a line a sentence around such a name
# A rule that says it holds every time, in its first words, is a sentence however short: "Never edit config.yaml."
_OPENS_A_RULE = re.compile(rf"^(?:please\s+)?(?:always|{NEVER})\s+[^\W\d_]{{2,}}\s+\S", re.IGNORECASE)
_PROSE_WORD = re.compile(r"(?<![\w./-])[^\W\d_]{2,}(?![\w/(-]|\.\w)")
_LINK = re.compile(r"\b\w+://\S+|\bwww\.\S+")
_YOU = re.compile(r"\b(?:you|your|yours|yourself|you['’](?:re|ve|ll|d)|please)\b|"
                  r"(?:,|\bso|\bthen)\s+(?:don['’]?t|do not|never|always|expect|remember|make sure|keep in mind)\b",
                  re.IGNORECASE)
_OPENS_MID_SENTENCE = re.compile(r"^(?:[a-z]|[,;:)\]}.…-]|(?:and|or|but|so|because|which|that|who)\b)")
_WORD = re.compile(r"[\w'’-]+")


def forbidden_kind(line: str, *, rule: bool = False) -> str:
    """Why `line` may not enter memory ("a question", "code", …), or "" when it may. A `rule` for the agent may
    name a file or a call in a sentence ("Never edit settings.py by hand"): what it is about; a fact doing so
    tells of the work at hand ("User gets 151 matches in day-002.md")."""
    text = line.strip()
    if len(text) > MAX_CHARS or _CJK_RUN.search(text):
        return "too long"
    if _QUESTION.search(text):
        return "a question"
    if _CODE.search(text) or _NAMED_IN_CODE.search(text) and not (rule and _a_sentence(text)):
        return "code"
    if text.rstrip().endswith(":"):
        return "a heading"
    if _fragment(text):
        return "a fragment"
    if _YOU.search(text):
        return "addressed to the agent"
    return ""


def forbidden_in_profile(line: str, *, rule: bool = False) -> str:
    """`forbidden_kind`, and no link either: for a line bound for USER.md or SOUL.md."""
    return forbidden_kind(line, rule=rule) or ("a link" if _LINK.search(line) else "")


def _a_sentence(text: str) -> bool:
    return len(_PROSE_WORD.findall(text)) >= PROSE_WORDS or bool(_OPENS_A_RULE.match(text))


def _fragment(text: str) -> bool:
    words = _WORD.findall(text)
    cjk = len(_CJK_CHAR.findall(text))
    if len(words) + cjk < 2 or _OPENS_MID_SENTENCE.match(text) and not cjk:  # "varは使わないで…": a name opens it
        return True
    if text.count("(") != text.count(")") or text.count("[") != text.count("]") or text.count('"') % 2:
        return True
    last = words[-1]
    if "/" in text.split()[-1]:
        return False  # a value such as "she/her" or "and/or" ends it, not a dangling word
    return (last.lower() in DANGLING and last.islower() and not text.rstrip().endswith((")", '"', "”"))
            and language_of(text) in ("en", UNDETERMINED))  # "… mit Sie an.": German ends on its verb's particle
