"""The memory's documents and their postings (bm25.py), and the tokenizer every question and document goes through.

Questions and memories rarely share a word's exact form, so both go through the same Snowball stemmer and
English stop-word list (bm25s's tokenizer, the `recall` extra): "how are we deploying?" becomes `deploy`, which a
line saying "deploys" also holds. Chinese, Japanese and Korean runs are cut into character pairs first
(text/cjk.py), so a question finds the words of a language written without spaces.
"""

from __future__ import annotations

import json
from pathlib import Path

import bm25s
import Stemmer

from nanodream import boundedjson
from nanodream.retrieval import bm25
from nanodream.retrieval.documents import Document
from nanodream.text.cjk import TOKEN_PATTERN, spaced_bigrams

STOPWORDS = "en_plus"  # NLTK's list: drops the question words (what, how, which, we, our) the short list keeps
_STEMMER = Stemmer.Stemmer("english")
_DOCUMENTS = "documents.json"


def tokenize(texts: list[str]) -> list[list[str]]:
    return bm25s.tokenize([spaced_bigrams(text) for text in texts], token_pattern=TOKEN_PATTERN, stopwords=STOPWORDS,
                          stemmer=_STEMMER, return_ids=False, show_progress=False)


class Index:
    """The documents of one state of the files and their postings: ranked alone (`search`), or with the turns'
    blocks by one score (retrieval/ranking.py)."""

    def __init__(self, documents: list[Document], postings: bm25.Postings) -> None:
        self.documents = documents
        self.postings = postings

    @classmethod
    def build(cls, documents: list[Document]) -> Index:
        return cls(documents, bm25.Postings.build(tokenize([d.indexed for d in documents])))

    def search(self, query: str, k: int) -> list[tuple[Document, float]]:
        """The `k` best documents sharing a term with `query`, best first; ties keep the files' order."""
        scored = bm25.scores([self.postings], tokenize([query])[0])
        return [(self.documents[i], float(scored[i])) for i in bm25.best(scored, k)]

    def save(self, folder: Path) -> None:
        """Write the index into the empty `folder`: the postings as .npy arrays and the documents as JSON."""
        self.postings.save(folder)
        rows = [[d.text, d.file, d.line, d.heading] for d in self.documents]
        (folder / _DOCUMENTS).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> Index:
        """Read what `save` wrote (ValueError, KeyError or OSError when it cannot be trusted).

        No pickle is involved, so a tampered folder can only fail to load. `indexed` is not kept: the postings
        hold its terms.
        """
        rows = boundedjson.load_file(folder / _DOCUMENTS)
        documents = [Document(text, file, line, heading, "") for text, file, line, heading in rows]
        postings = bm25.Postings.load(folder)
        if postings.size != len(documents):
            raise ValueError(f"{folder} holds {postings.size} indexed documents for {len(documents)} texts")
        return cls(documents, postings)
