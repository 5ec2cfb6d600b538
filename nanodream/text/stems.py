"""Words folded to one form so that "invoice" and "invoices" count as the same topic."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from nanodream.text.lists import language_codes, language_file, wordlist

# A word a language file's cue is made of: three letters or more ("eu", Portuguese's "I", is also the EU).
CUE_WORD = re.compile(r"[^\W\d_]{3,}")


def cue_words() -> dict[str, frozenset[str]]:
    """Each language's words of its file's cues, for the languages written with spaces ("ich", "wohne", "immer",
    "meine"): how a statement is said in that language, never what it is about. Two letters are left out: "eu" is
    Portuguese's "I" and the EU."""
    return {code: frozenset(word.lower() for item in _items(data) for word in CUE_WORD.findall(item))
            for code in language_codes() for data in [language_file(code) or {}] if data.get("match") != "characters"}


def _cue_words() -> frozenset[str]:
    """The other languages' cue words: English's own cues name things a topic may be about ("server", "repo");
    topic-stopwords.txt holds its function words; "bug", "app": a German file's loanwords are English topics."""
    found = cue_words()
    return frozenset().union(*(words for code, words in found.items() if code != "en")) - found.get("en", frozenset())


def _items(table: Any) -> Iterator[str]:
    if isinstance(table, dict):
        for value in table.values():
            yield from _items(value)
    elif isinstance(table, list):
        yield from (item for item in table if isinstance(item, str))


# Words that say nothing about a topic (function words and words in nearly every history line), in every language
# with a data file.
TOPIC_STOPWORDS = wordlist("topic-stopwords") | _cue_words()


def singular(word: str) -> str:
    """A crude singular form: "invoices" → "invoice", "policies" → "policy"; "class" and "status" stay."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
