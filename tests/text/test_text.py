"""The text layer (nanodream/text/): word lists and verb tables as data, and the functions every floor reads
sentences and words with."""

from __future__ import annotations

import pytest

from nanodream.text import lists, statements
from nanodream.text.cjk import spaced_bigrams
from nanodream.text.language import UNDETERMINED, east_asian_words, has_english_words, language_of
from nanodream.text.stems import singular
from nanodream.text.verbs import base_verb, conjugate
from nanodream.text.words import claims_alike, covers, fact_key, similarity


def test_every_data_file_says_what_it_is_for_and_tables_have_even_rows():
    for path in sorted(lists.DATA.iterdir()):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# "), f"{path.name} must open with a comment saying what it is for"
        if path.suffix == ".tsv":
            widths = {len(row) for row in lists.table(path.stem)}
            assert len(widths) == 1, f"{path.name}: every row needs the same number of cells"
        elif path.suffix == ".toml":  # a language's explicit statements (text/statements.py)
            spec = statements.language(path.stem.removeprefix("lang-"))
            assert spec is not None and spec.code == path.stem.removeprefix("lang-"), path.name
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
    # "our" is the team's "the": both lines stood, the second saying all the first did (a new user's history)
    assert covers("The audit data currently only covers 2024 (7 audits).", "Our audit data only covers 2024.")
    assert not covers("Nothing is deployed on Fridays", "Is deployed on Fridays")
    assert not covers("Ich bin kein Vegetarier mehr.", "Ich bin Vegetarier.")  # "kein … mehr": no longer
    assert similarity("the deploy runs nightly", "a deploy runs nightly") == 1.0


@pytest.mark.parametrize(("broad", "qualifier", "narrow"), [
    ("User {} allergic to penicillin", "might be", "User allergic to penicillin"),
    ("User {} drinks coffee at work", "rarely", "User drinks coffee at work"),
    ("User is a {} maths teacher", "former", "User is a maths teacher"),
    ("The deploy {} finished before midnight", "almost", "The deploy finished before midnight"),
    ("User {} to sign the contract", "refused", "User to sign the contract"),
])
def test_a_qualified_claim_never_covers_the_plain_one(broad, qualifier, narrow):
    """Else a firm statement met after a hedged one would be skipped as already said."""
    assert covers(broad.format("really"), narrow)
    assert not covers(broad.format(qualifier), narrow) and not claims_alike(broad.format(qualifier), narrow)


@pytest.mark.parametrize(("a", "b"), [
    ("User was a teacher in Leipzig", "User is a teacher in Leipzig"),
    ("User is allergic to nuts", "User was allergic to nuts as a child"),
])
def test_was_is_not_is(a, b):
    assert not claims_alike(a, b)


@pytest.mark.parametrize(("a", "b"), [
    ("Born in Leipzig", "User was born in Leipzig"),
    ("User's birthday is in May", "Birthday in May"),
    ("User might be allergic to nuts", "User may be allergic to nuts"),
])
def test_the_same_claim_said_another_way_is_alike(a, b):
    assert claims_alike(a, b)


@pytest.mark.parametrize(("word", "one"), [("invoices", "invoice"), ("policies", "policy"), ("class", "class"),
                                           ("status", "status"), ("bus", "bus")])
def test_topics_fold_plurals(word, one):
    assert singular(word) == one


@pytest.mark.parametrize(("said", "language"), [
    ("I moved to Porto last month and I like short answers.", "en"),
    ("Ich wohne in Berlin und arbeite als Lehrerin.", "de"),
    ("Je préfère les réponses courtes, s'il te plaît.", "fr"),
    ("我想用繁體中文寫作業，先討論再動手。", "zh"),
    ("こんにちは、東京に住んでいます。", "ja"),
    ("안녕하세요 저는 서울에 살아요", "ko"),
    ("lgtm", UNDETERMINED), ("ok thanks", UNDETERMINED), ("```\nimport os\nprint(os.sep)\n```", UNDETERMINED),
    ("Bitte lies `src/main.py` und sag mir, was du davon hältst.", "de"),
    ("我需要你在编程中面对任何询问选择时候，永远都选1", "zh"),  # a digit inside a sentence written without spaces
    ("バージョン2を使ってください", "ja"), ("포트는 8080으로 바꿔 주세요", "ko"),
    ("用qwen-image-2.0-pro。", "zh"),  # one Han character, but typed with a CJK full stop
])
def test_a_messages_language_is_told_by_its_script_or_the_model_and_short_text_is_undetermined(said, language):
    assert language_of(said) == language


@pytest.mark.parametrize("said", ["що ти виконав?", "Продовжуй", "γεια σου", "שלום"])
def test_text_too_short_to_tell_but_in_another_script_is_never_taken_for_english(said):
    assert language_of(said) not in ("en", UNDETERMINED)


@pytest.mark.parametrize(("said", "language"), [
    ("I live in Utrecht.", "en"), ("I live in Groningen.", "en"), ("I moved to Zaragoza last year.", "en"),
    ("Ich wohne in Utrecht.", "de"), ("Vivo en Zaragoza.", "es"), ("Je vis à Groningen.", "fr"),
])
def test_a_short_sentence_is_told_by_its_words_not_the_place_it_names(said, language):
    """"I live in Utrecht." read as German and waited for a model: the name weighed as much as the sentence."""
    assert language_of(said) == language


@pytest.mark.parametrize("said", ["ok", "lgtm", "fix it", "café", "ok 👍"])
def test_short_latin_text_stays_undetermined(said):
    assert language_of(said) == UNDETERMINED


def test_cjk_runs_become_overlapping_character_pairs_and_other_text_stays():
    assert spaced_bigrams("我喜欢猫").split() == ["我喜", "喜欢", "欢猫"]
    assert spaced_bigrams("I moved to 東京 in May").split() == ["I", "moved", "to", "東京", "in", "May"]
    assert spaced_bigrams("plain ascii text") == "plain ascii text"
    assert spaced_bigrams("猫 is a cat").split() == ["猫", "is", "a", "cat"]


@pytest.mark.parametrize(("sentence", "english"), [
    ("Di folder download tolong kirim kesini", False),  # English loanwords, none of its small words
    ("Nice job on the tests", True),
    ("Great work", True),  # too few words to tell
    ("[OpenClaw heartbeat poll] ok sounds good", True),  # a harness's note is no word of theirs
    ("git@github.com:team/backup.git", True),  # a link has no words
])
def test_an_english_sentence_holds_one_of_englishs_small_words(sentence, english):
    assert has_english_words(sentence) is english


@pytest.mark.parametrize(("sentence", "language"), [
    ("先帮我Reddit的安装一下这个Skill Curl https://x.example/skill.md, then follow the instructions to set it up "
     "and install the skill in the directory you are working in.", "zh"),
    ("Please check 이 파일의 내용 before the release.", "ko"),
    ("Ask 小王 about the invoice format.", ""),  # a name in passing
])
def test_words_of_an_east_asian_script_in_an_english_sentence_are_that_languages(sentence, language):
    assert east_asian_words(sentence) == language
