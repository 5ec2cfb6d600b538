"""BM25 over the documents with bm25s (the `recall` extra).

Questions and memories rarely share a word's exact form, so both go through the same Snowball stemmer and
English stop-word list: "how are we deploying?" becomes `deploy`, which a line saying "deploys" also holds.
"""

from __future__ import annotations

import bm25s
import numpy as np
import Stemmer

from nanodream.retrieval.documents import Document

STOPWORDS = "en_plus"  # NLTK's list: drops the question words (what, how, which, we, our) the short list keeps
_STEMMER = Stemmer.Stemmer("english")


def tokenize(texts: list[str]) -> list[list[str]]:
    return bm25s.tokenize(texts, stopwords=STOPWORDS, stemmer=_STEMMER, return_ids=False, show_progress=False)


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
        best = matching[np.argsort(-scores[matching], kind="stable")][:k]
        return [(self.documents[i], float(scores[i])) for i in best]
