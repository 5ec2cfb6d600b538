"""The one-at-a-time attributes a sentence in another language gives the person (text/attributes.py): what a later
value replaces, and what names no such value."""

from __future__ import annotations

import pytest

from nanodream.engines.slots import USER_SUBJECT, same_slot, slot_of, user_slot
from nanodream.text.attributes import Attribute, Held, Unowned, attribute_held, attribute_of, unowned_value
from nanodream.text.statements import read

GIVEN = [
    ("Ich wohne jetzt in Berlin.", "lives in", "Berlin"),
    ("Ich bin nach Hamburg gezogen.", "lives in", "Hamburg"),
    ("J’habite maintenant à Paris.", "lives in", "Paris"),
    ("Ahora vivo en Valencia, cerca del mar.", "lives in", "Valencia"),
    ("Agora moro no Porto.", "lives in", "Porto"),
    ("我现在住在杭州。", "lives in", "杭州"),  # the Chinese reading, not Japanese "…在住" inside "现在住"
    ("私は東京に住んでいます", "lives in", "東京"),
    ("今は大阪に住んでいます。", "lives in", "大阪"),
    ("저는 이제 부산에 살아요.", "lives in", "부산"),
    ("Bây giờ mình sống ở Đà Nẵng.", "lives in", "Đà Nẵng"),
    ("Ich arbeite jetzt bei SAP, seit Mai.", "works at", "SAP"),
    ("Je travaille chez Doctolib.", "works at", "Doctolib"),
    ("Trabajo como diseñadora.", "works as", "diseñadora"),
    ("Meine Zeitzone ist jetzt UTC-5.", "time zone", "UTC-5"),
    ("我搬到上海了。", "lives in", "上海"),  # a particle ends the sentence, not the place
    ("부산으로 이사했어요.", "lives in", "부산"),  # "…으로", the longer of the patterns, not "…로"
    ("Me mudei para o Porto.", "lives in", "Porto"),  # the article before the place's name
    ("我在阿里巴巴工作。", "works at", "阿里巴巴"),  # the common way to say where one works
    ("Ahora trabajo en BBVA.", "works at", "BBVA"),  # "trabajo en", as common as "trabajo para"
    ("Agora trabalho na Embraer.", "works at", "Embraer"),
    ("저는 이제 쿠팡에서 일해요.", "works at", "쿠팡"),  # "…에서 일하다", the common way to say it
    ("今は任天堂で働いています。", "works at", "任天堂"),  # "…で働く", as common as "…に勤める"
    ("Me mudei pra Salvador.", "lives in", "Salvador"),  # spoken Brazilian "pra" for "para"
    ("Je bosse chez Doctolib.", "works at", "Doctolib"),  # colloquial French
    ("Curro en Glovo.", "works at", "Glovo"),  # colloquial Spanish
]


@pytest.mark.parametrize(("sentence", "relation", "value"), GIVEN)
def test_a_sentence_gives_the_attribute_its_language_names(sentence, relation, value):
    assert attribute_of(sentence) == Attribute(relation, value)


@pytest.mark.parametrize("sentence", [
    "Ich wohne in diesem Hotel.",  # no place's name
    "Vivo en una casa grande con mi familia.",
    "Trabajo en un proyecto de IA.",  # a piece of work, not an employer's name
    "Trabalho em casa.",
    "Meine Schwester wohnt in Köln.",  # another person
    "Ich wohne nicht mehr in Berlin.",  # says where the person does not live
    "Je n'habite plus à Paris.",
    "I live in Berlin.",  # English has rules of its own (engines/slots.py)
    "Llámame cuando termines.", "Appelle-moi quand tu as fini.",  # call me when …: no name
])
def test_a_sentence_naming_no_value_of_the_persons_gives_none(sentence):
    assert attribute_of(sentence) is None


@pytest.mark.parametrize(("old", "new"), [
    ("Ich wohne in München.", "Ich wohne jetzt in Berlin."),
    ("我住在上海。", "我现在住在杭州。"),
    ("Wohnort: München", "Ich bin nach Berlin gezogen."),  # a Key: value line of USER.md, then a sentence
    ("User's Zeitzone: UTC+1", "Meine Zeitzone ist UTC-5."),
    ("Lives in Lisbon.", "J'habite à Paris."),  # one attribute, whatever language said it
    # what the person is called, said again ("Nenn mich Tom." stayed beside "Nenn mich lieber Thomas.")
    ("Nenn mich Tom.", "Nenn mich lieber Thomas."),
    ("Appelle-moi Max.", "Appelle-moi plutôt Maxime."),
    ("Llámame Nacho.", "Mejor llámame Ignacio."),
    ("Me chama de Rafa.", "Pode me chamar de Rafael."),
    ("ケンと呼んで。", "ケンジと呼んでください。"),
    ("민수라고 불러.", "민수 씨라고 불러 줘."),
])
def test_a_later_value_fills_the_slot_of_the_line_it_replaces(old, new):
    assert user_slot(old) is not None and user_slot(old).key == slot_of(new).key
    assert slot_of(new).subject == USER_SUBJECT


def test_two_attributes_are_two_slots():
    assert not same_slot("Ich wohne in Berlin.", "Ich arbeite bei SAP.")


@pytest.mark.parametrize(("sentence", "code", "clauses"), [
    ("Ich wohne in Berlin und arbeite bei Siemens.", "de", ["Ich wohne in Berlin.", "Ich arbeite bei Siemens."]),
    ("Vivo en Madrid y trabajo en Google.", "es", ["Vivo en Madrid.", "Trabajo en Google."]),
    ("J'habite à Lyon et je travaille chez Renault.", "fr", ["J'habite à Lyon.", "Je travaille chez Renault."]),
    ("Moro em Lisboa e trabalho na Farfetch.", "pt", ["Moro em Lisboa.", "Trabalho na Farfetch."]),
    ("我住在上海，在阿里巴巴工作。", "zh", ["我住在上海。", "我在阿里巴巴工作。"]),  # the subject carried
    # words that say nothing alone stay with the clause before them
    ("Soy Ana, vivo en Madrid y trabajo en Google.", "es", ["Soy Ana, vivo en Madrid.", "Trabajo en Google."]),
])
def test_a_sentence_giving_two_attributes_is_cut_into_one_clause_each(sentence, code, clauses):
    assert [said.text for said in read([sentence], code).statements] == clauses


@pytest.mark.parametrize(("sentence", "code"), [
    ("Ich wohne in Portland, Oregon.", "de"),  # one place, with a comma
    ("Ich arbeite bei Siemens und SAP.", "de"),  # one attribute, two values: the person's to say
    ("Me gusta el café y el té.", "es"),  # "el té" says nothing alone
    ("私は東京に住んでいて、ソニーに勤めています。", "ja"),  # its file names no joining words: not cut
])
def test_a_sentence_giving_fewer_than_two_attributes_stays_whole(sentence, code):
    assert [said.text for said in read([sentence], code).statements] == [sentence]


@pytest.mark.parametrize(("sentence", "unowned"), [
    ("Der Port ist jetzt 8081.", Unowned("port", "8081", anew=True)),
    ("Le port est 3001.", Unowned("port", "3001", anew=False)),
    ("端口改成8081。", Unowned("port", "8081", anew=False)),
    ("포트는 이제 8081입니다.", Unowned("port", "8081", anew=True)),  # the copula is no part of the value
])
def test_a_value_said_without_whose_it_is_in_another_language(sentence, unowned):
    assert unowned_value(sentence) == unowned


@pytest.mark.parametrize("sentence", [
    "Le port est bloqué.",  # a state, no value
    "Der Port ist 8080 und der Host ist db1.",  # more than a value
    "Die API läuft auf Port 8080.",  # whose it is, said
])
def test_a_sentence_giving_no_unowned_value_gives_none(sentence):
    assert unowned_value(sentence) is None


def test_an_attribute_held_is_the_number_after_its_name_or_before_it_in_a_script_without_spaces():
    assert attribute_held("Notre API tourne sur le port 3000.") == Held("port", "3000", 24)
    assert attribute_held("我们的API跑在3000端口。") == Held("port", "3000", 8)
    assert attribute_held("Wir nutzen Portainer 2.19.") is None  # "port" inside another word
