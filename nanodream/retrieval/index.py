"""BM25 over the documents with bm25s (the `recall` extra), and the index's form on disk.

Questions and memories rarely share a word's exact form, so both go through the same Snowball stemmer and
English stop-word list: "how are we deploying?" becomes `deploy`, which a line saying "deploys" also holds.
Chinese, Japanese and Korean runs are cut into character pairs first (text/cjk.py), so a question finds the
words of a language written without spaces.
"""

from __future__ import annotations

import json
from pathlib import Path

import bm25s
import numpy as np
import Stemmer

from nanodream import boundedjson
from nanodream.retrieval.documents import Document
from nanodream.text.cjk import TOKEN_PATTERN, spaced_bigrams

STOPWORDS = "en_plus"  # NLTK's list: drops the question words (what, how, which, we, our) the short list keeps
_STEMMER = Stemmer.Stemmer("english")
_DOCUMENTS = "documents.json"


def tokenize(texts: list[str]) -> list[list[str]]:
    return bm25s.tokenize([spaced_bigrams(text) for text in texts], token_pattern=TOKEN_PATTERN, stopwords=STOPWORDS,
                          stemmer=_STEMMER, return_ids=False, show_progress=False)


class Index:
    """The documents of one state of the files, ranked for a query by BM25."""

    def __init__(self, documents: list[Document], bm25: bm25s.BM25 | None) -> None:
        self.documents = documents
        self._bm25 = bm25

    @classmethod
    def build(cls, documents: list[Document]) -> Index:
        if not documents:  # bm25s cannot index nothing; an empty index simply finds nothing
            return cls(documents, None)
        bm25 = bm25s.BM25()
        bm25.index(tokenize([d.indexed for d in documents]), show_progress=False)
        return cls(documents, bm25)

    def search(self, query: str, k: int) -> list[tuple[Document, float]]:
        """The `k` best documents sharing a term with `query`, best first; ties keep the files' order."""
        terms = tokenize([query])[0]
        if self._bm25 is None or not terms:
            return []
        scores = self._bm25.get_scores(terms)
        matching = np.flatnonzero(scores > 0)
        best = matching[np.argsort(-scores[matching], kind="stable")][:max(k, 0)]  # a negative k would count back
        return [(self.documents[i], float(scores[i])) for i in best]

    def save(self, folder: Path) -> None:
        """Write the index into the empty `folder`: bm25s's own files (JSON and .npy) and the documents as JSON."""
        if self._bm25 is not None:
            self._bm25.save(str(folder), show_progress=False)
        rows = [[d.text, d.file, d.line, d.heading] for d in self.documents]
        (folder / _DOCUMENTS).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> Index:
        """Read what `save` wrote (ValueError, KeyError or OSError when it cannot be trusted).

        No pickle is involved, so a tampered folder can only fail to load. `indexed` is not kept: the index
        holds its terms.
        """
        rows = boundedjson.load_file(folder / _DOCUMENTS)
        documents = [Document(text, file, line, heading, "") for text, file, line, heading in rows]
        bm25 = bm25s.BM25.load(str(folder), allow_pickle=False) if documents else None
        if bm25 is not None and bm25.scores["num_docs"] != len(documents):
            raise ValueError(f"{folder} holds {bm25.scores['num_docs']} scored documents for {len(documents)} texts")
        return cls(documents, bm25)
