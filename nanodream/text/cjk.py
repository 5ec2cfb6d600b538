"""Chinese, Japanese and Korean text, which does not put spaces between words, cut into searchable pieces.

A search engine that splits text at spaces sees "我喜欢猫" as one word, which no question repeats. Each run of
these scripts is cut into overlapping pairs of characters instead ("我喜 喜欢 欢猫"), as full-text search
engines do for these languages without a dictionary: a question's pairs then meet the same pairs in memory.
"""

from __future__ import annotations

import re

# Han (Chinese characters, also in Japanese), kana, Hangul syllables and jamo.
CJK_CHARS = (r"\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
             r"\uf900-\ufaff\uff66-\uff9f")
_RUN = re.compile(f"[{CJK_CHARS}]+")
# Words as a search tokenizer takes them: two or more word characters, or one CJK character standing alone.
TOKEN_PATTERN = rf"(?u)\b\w\w+\b|[{CJK_CHARS}]"


def spaced_bigrams(text: str) -> str:
    """`text` with every CJK run written as its overlapping character pairs, separated by spaces."""
    return _RUN.sub(_pairs, text) if not text.isascii() else text


def _pairs(match: re.Match[str]) -> str:
    run = match.group(0)
    if len(run) == 1:
        return f" {run} "
    return " " + " ".join(run[i:i + 2] for i in range(len(run) - 1)) + " "
