"""Words folded to one form so that "invoice" and "invoices" count as the same topic."""

from __future__ import annotations

from nanodream.text.lists import wordlist

# Words that say nothing about a topic (function words and words in nearly every history line).
TOPIC_STOPWORDS = wordlist("topic-stopwords")


def singular(word: str) -> str:
    """A crude singular form: "invoices" → "invoice", "policies" → "policy"; "class" and "status" stay."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
