"""The text layer (nanodream/text/): word lists and verb tables as data, and the functions every floor reads
sentences and words with."""

from __future__ import annotations

import pytest

from nanodream.text import lists
from nanodream.text.stems import singular
from nanodream.text.verbs import base_verb, conjugate
from nanodream.text.words import covers, fact_key, similarity


def test_every_data_file_says_what_it_is_for_and_tables_have_even_rows():
    for path in sorted(lists.DATA.iterdir()):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# "), f"{path.name} must open with a comment saying what it is for"
        if path.suffix == ".tsv":
            widths = {len(row) for row in lists.table(path.stem)}
            assert len(widths) == 1, f"{path.name}: every row needs the same number of cells"
        else:
            assert lists.wordlist(path.stem), f"{path.name} holds no word"


def test_a_person_extends_a_list_by_adding_a_word_to_its_file(tmp_path, monkeypatch):
    (tmp_path / "negations.txt").write_text("# words that flip a statement\nnot never\n\nnada\n", encoding="utf-8")
    monkeypatch.setattr(lists, "DATA", tmp_path)
    lists.wordlist.cache_clear()
    try:
        assert lists.wordlist("negations") == {"not", "never", "nada"}
    finally:
        lists.wordlist.cache_clear()


@pytest.mark.parametrize(("verb", "after_she"), [
    ("live", "lives"), ("study", "studies"), ("push", "pushes"), ("go", "goes"), ("have", "has"), ("am", "is"),
    ("went", "went"), ("read", "read"), ("can", "can"), ("don't", "doesn't"), ("played", "played"), ("stay", "stays"),
])
def test_a_verb_agrees_with_a_third_person(verb, after_she):
    assert conjugate(verb) == after_she


@pytest.mark.parametrize(("form", "base"), [
    ("using", "use"), ("running", "run"), ("used", "use"), ("sent", "send"), ("written", "write"),
    ("dropped", "drop"), ("copied", "copy"), ("put", "put"), ("pasted", "paste"), ("forgot", "forget"),
])
def test_a_verb_form_comes_back_to_its_base(form, base):
    assert base_verb(form) == base


def test_words_compare_as_facts_never_across_a_negation():
    assert fact_key("User prefers Neovim.") == fact_key("neovim, user PREFERS")
    assert covers("User prefers Neovim as their editor", "User prefers Neovim")
    assert not covers("Never run tests on Fridays", "Run tests on Fridays")
    assert not covers("Nothing is deployed on Fridays", "Is deployed on Fridays")
    assert similarity("the deploy runs nightly", "a deploy runs nightly") == 1.0


@pytest.mark.parametrize(("word", "one"), [("invoices", "invoice"), ("policies", "policy"), ("class", "class"),
                                           ("status", "status"), ("bus", "bus")])
def test_topics_fold_plurals(word, one):
    assert singular(word) == one
