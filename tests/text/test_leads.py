"""The line leading into a procedure's steps in another language (text/leads.py): its goal, or none."""

from __future__ import annotations

import pytest

from nanodream.text.leads import Goal, procedure_goal


@pytest.mark.parametrize(("lead", "goal"), [
    ("So mache ich ein Release", Goal("Release", "de")),
    ("Release-Ablauf", Goal("Release", "de")),
    ("Um ein Release zu machen", Goal("Release machen", "de")),  # the goal's verb after it
    ("Para desplegar", Goal("desplegar", "es")),  # an infinitive, the goal said in one word
    ("Para hacer un release", Goal("hacer release", "es")),
    ("Pour publier une version", Goal("publier version", "fr")),
    ("Passos para publicar", Goal("publicar", "pt")),
    ("发布流程", Goal("发布", "zh")),
    ("部署的步骤", Goal("部署", "zh")),  # the longer lead first: "的" is no part of the goal
    ("デプロイの手順", Goal("デプロイ", "ja")),
    ("배포하려면", Goal("배포", "ko")),
])
def test_a_lead_names_its_goal_in_the_persons_words(lead, goal):
    assert procedure_goal(lead) == goal


@pytest.mark.parametrize("lead", [
    "这个bug的修复步骤",  # this bug's: the work at hand
    "Para mañana",  # no infinitive: a list for tomorrow
    "Para el cliente",
    "Für heute",
    "Here is how I release",  # English is ingest's own rules
    "Meine Notizen zum Treffen mit Ana und Bob über das neue Budget für das nächste Jahr",  # no lead
])
def test_a_line_naming_no_lasting_goal_leads_into_no_procedure(lead):
    assert procedure_goal(lead) is None
