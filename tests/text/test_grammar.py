"""What the grammar reads in other languages (text/grammar.py): a statement about the person no longer so."""

from __future__ import annotations

import pytest

from nanodream.text.grammar import no_longer_so


@pytest.mark.parametrize(("said", "was"), [
    ("Ich bin kein Vegetarier mehr.", "Ich bin Vegetarier."),  # the words saying it stand apart
    ("Ich wohne nicht mehr in Berlin.", "Ich wohne in Berlin."),
    ("Ya no vivo en Rosario.", "Vivo en Rosario."),
    ("Je ne suis plus végétarien.", "Je suis végétarien."),
    ("Je n'habite plus à Paris.", "J'habite à Paris."),  # the elided "je" written as it was
    ("Não moro mais em Lisboa.", "Moro em Lisboa."),
    ("我已经不住在北京了。", "我住在北京。"),
    ("我不再吃肉了。", "我吃肉。"),
])
def test_a_statement_no_longer_so_says_what_was(said, was):
    assert no_longer_so(said) == was


@pytest.mark.parametrize("said", ["Ich bin Vegetarier.", "Vivo en Rosario.", "I'm no longer vegetarian.",
                                  "我住在北京。", "Je suis plus grand que toi."])
def test_a_statement_saying_nothing_is_no_longer_so_gives_nothing(said):
    assert no_longer_so(said) == ""
