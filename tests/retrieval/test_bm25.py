"""BM25 over blocks (retrieval/bm25.py): bm25s's scores for one block, one score however the documents are split."""

from __future__ import annotations

import random

import bm25s
import numpy as np
import pytest

from nanodream.retrieval import bm25
from nanodream.retrieval.index import tokenize

WORDS = ["deploy", "deploys", "deployed", "billing", "ledger", "caddy", "postgres", "user", "lives", "lisbon",
         "porto", "cat", "dog", "went", "camping", "running", "pottery", "paint", "東京", "中文"]


@pytest.fixture(scope="module")
def corpus() -> list[list[str]]:
    rng = random.Random(3)
    return tokenize([" ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 15))) for _ in range(400)])


@pytest.mark.parametrize("question", ["deploying billing", "cat cat dog", "lisbon", "nothing here at all",
                                      "user lives in porto and went camping", "東京"])
def test_one_block_scores_as_bm25s_does(corpus, question):
    reference = bm25s.BM25()
    reference.index(corpus, show_progress=False)
    terms = tokenize([question])[0]
    expected = reference.get_scores(terms) if terms else np.zeros(len(corpus))
    scored = bm25.scores([bm25.Postings.build(corpus)], terms)
    assert np.allclose(scored, expected, rtol=1e-5, atol=1e-7)
    ranked = np.argsort(-expected, kind="stable")[:np.count_nonzero(expected > 0)]
    assert list(bm25.best(scored, 10)) == list(ranked[:10])


def test_documents_split_into_blocks_score_as_one_block(corpus):
    terms = tokenize(["deploying billing cat"])[0]
    whole = bm25.scores([bm25.Postings.build(corpus)], terms)
    parts = [bm25.Postings.build(corpus[:150]), bm25.Postings.build(corpus[150:151]), bm25.Postings.build(corpus[151:])]
    assert np.allclose(bm25.scores(parts, terms), whole)


def test_documents_left_out_score_nothing_and_count_in_no_statistic(corpus):
    terms = tokenize(["lisbon pottery"])[0]
    mask = np.arange(len(corpus) - 100) % 3 == 0
    split = [bm25.Postings.build(corpus[:100]), bm25.Postings.build(corpus[100:])]
    scored = bm25.scores(split, terms, [None, mask])
    chosen = [doc for doc, kept in zip(corpus[100:], mask, strict=True) if kept]
    alone = bm25.scores([bm25.Postings.build(corpus[:100] + chosen)], terms)
    assert np.allclose(np.concatenate([scored[:100], scored[100:][mask]]), alone)
    assert not scored[100:][~mask].any()


def test_ties_keep_the_documents_order_so_the_first_block_wins():
    twins = tokenize(["The user lives in Porto.", "The user lives in Porto."])
    scored = bm25.scores([bm25.Postings.build(twins[:1]), bm25.Postings.build(twins[1:])], tokenize(["porto"])[0])
    assert scored[0] == scored[1] > 0 and list(bm25.best(scored)) == [0, 1]


def test_empty_blocks_and_questions_find_nothing():
    empty = bm25.Postings.build([])
    assert bm25.scores([empty], ["porto"]).size == 0
    some = bm25.Postings.build(tokenize(["porto"]))
    assert list(bm25.best(bm25.scores([some, empty], []))) == []
    assert list(bm25.best(bm25.scores([some], ["porto"]), -1)) == []


def test_a_saved_block_loads_as_it_was_and_a_tampered_one_is_refused(corpus, tmp_path):
    block = bm25.Postings.build(corpus)
    block.save(tmp_path)
    terms = tokenize(["camping dog"])[0]
    for mapped in (False, True):
        assert np.array_equal(bm25.scores([bm25.Postings.load(tmp_path, mapped=mapped)], terms),
                              bm25.scores([block], terms))
    np.save(tmp_path / "docs.npy", block.docs + len(corpus), allow_pickle=False)
    with pytest.raises(ValueError, match="do not fit"):
        bm25.Postings.load(tmp_path)
    np.save(tmp_path / "docs.npy", np.array([object()]), allow_pickle=True)
    with pytest.raises(ValueError):
        bm25.Postings.load(tmp_path)  # no pickle is ever loaded
