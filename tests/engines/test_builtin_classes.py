"""The builtin engine's rules for the classes issue 17 measured it missing, one test per class.

Each fails on the engine before the fix: the examples differ from the shipped eval corpus on purpose, so
they check the class, not the corpus's sentences.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nanodream.engines.routing import (
    Route,
    instructs_agent,
    parse_untitled_procedure,
    route_fact,
)
from nanodream.engines.slots import slot_of
from nanodream.ingest.extractors.rules import classify
from nanodream.text.kinds import forbidden_kind
from nanodream.workspace import MEMORY, SOUL, USER
from tests.engines.test_builtin_engine import bare_workspace

# slot-based correction ---------------------------------------------------------------------------


@pytest.mark.parametrize(("old", "new"), [
    ("The user's timezone is Asia/Kolkata.", "The user's time zone is Pacific/Honolulu now."),
    ("User lives in Kraków, close to the river.", "The user now lives in Valparaíso."),
    ("The user works at Globex as a contractor.", "The user is working for Initech."),
    ("The mobile team uses Crashlytics for crash reports.", "The mobile team uses Embrace for crash reports."),
    ("The queue worker runs on host oak12.", "The queue worker is now hosted on pine77."),
    ("The data team's manager is Ada.", "The data team's manager is Grace."),
    ("The user's favourite editors are Helix and Zed.", "The user's favourite editor is Neovim."),
])
def test_a_single_valued_relation_is_one_slot_whatever_its_value(old, new):
    assert slot_of(old).key == slot_of(new).key


@pytest.mark.parametrize(("a", "b"), [
    ("The team uses Grafana for dashboards.", "The team uses PagerDuty for paging."),  # another purpose
    ("The user lives in Oslo.", "The user's sister lives in Bergen."),  # another subject
    ("The user prefers tea.", "The user prefers dark mode."),  # preferences are many, not a slot
    ("The backup job runs on Sundays.", "The backup job runs on host ash3."),  # when, not where
])
def test_different_subjects_attributes_and_multi_valued_relations_are_not_one_slot(a, b):
    assert slot_of(a) is None or slot_of(b) is None or slot_of(a).key != slot_of(b).key
    assert slot_of("The user prefers tea.") is None


def test_a_correction_with_no_shared_value_replaces_the_slot_in_place(tmp_path: Path):
    drained = bare_workspace(tmp_path, ["[permanent] The user's timezone is Asia/Kolkata.\n"
                                        "[permanent] The user likes cycling.",
                                        "[correction] The user's time zone is Pacific/Honolulu now."], days=[1, 9])
    user = drained.read(USER)
    assert "Pacific/Honolulu" in user and "Asia/Kolkata" not in user and "cycling" in user


@pytest.mark.parametrize(("old", "new", "other"), [
    ("Our API runs on port 8080.", "The API port is now 8081.", "The Redis cache runs on port 6379."),
    ("Our staging server is at 10.0.0.4.", "Our staging server is now at 10.0.0.5.", "Our CI runs on Woodpecker."),
])
def test_a_new_value_said_with_now_replaces_the_old_one_and_nothing_else(tmp_path: Path, old, new, other):
    """Ingest reads "X is now V" as a correction; the run replaces the line holding X's old value."""
    said = [classify(sentence) for sentence in (old, other, new)]
    drained = bare_workspace(tmp_path, [f"{said[0].line()}\n{said[1].line()}", said[2].line()], days=[1, 9])
    memory = drained.read(MEMORY)
    assert new.rstrip(".") in memory and old.rstrip(".") not in memory and other.rstrip(".") in memory


@pytest.mark.parametrize(("old", "new", "written"), [
    ("Our API runs on port 8080.", "The port is now 8081.", "Our API runs on port 8081."),
    ("The gateway listens on port 9000.", "Port is 9443 now.", "The gateway listens on port 9443."),
    ("My timezone is UTC+1 (Berlin).", "Timezone is UTC-5 now.", "User's timezone is UTC-5."),
    ("I live in Lisbon.", "The city is Porto now.", "User lives in Porto."),
    ("The API port is 8080.", "the port changed to 3001", "The API port is 3001."),  # "The API port" is a port
])
def test_a_value_said_without_its_owner_replaces_the_one_line_holding_it(tmp_path: Path, old, new, written):
    """"The port is now 8081" names no port: with one line in memory holding a port, it is that one, and the line
    is written again with the new value so it still says whose it is."""
    said = [classify(sentence) for sentence in (old, "I like hiking.", new)]
    drained = bare_workspace(tmp_path, [f"{said[0].line()}\n{said[1].line()}", said[2].line()], days=[1, 9])
    memory = drained.read(MEMORY) + drained.read(USER)
    assert written.rstrip(".") in memory and old.split()[-1].rstrip(".") not in memory and "hiking" in memory


def test_a_value_without_its_owner_replaces_nothing_when_two_lines_hold_the_attribute(tmp_path: Path):
    lines = ["Our API runs on port 8080.", "Postgres runs on port 5432."]
    said = [classify(sentence) for sentence in (*lines, "The port is now 8081.")]
    memory = bare_workspace(tmp_path, [f"{said[0].line()}\n{said[1].line()}", said[2].line()],
                            days=[1, 9]).read(MEMORY)
    assert all(line.rstrip(".") in memory for line in lines)


@pytest.mark.parametrize(("old", "new"), [
    ("[permanent] Always reply in English.", "[permanent] Reply to the user in German."),
    ("[permanent] Answer in British English.", "[permanent] Always respond in Spanish."),
    ("[permanent] Antworte immer auf Deutsch.", "[permanent] Antworte ab jetzt auf Englisch."),  # in their words
    ("[permanent] Always reply in English.", "[permanent] 以后都用中文回答。"),
    ("[permanent] Réponds toujours en français.", "[permanent] Responde siempre en español."),
    ("[permanent] Keep our chat in English.", "[permanent] Speak German with the user."),
])
def test_a_new_language_to_answer_in_replaces_the_old_one(tmp_path: Path, old, new):
    """How the agent answers has one language at a time; the newest rule wins."""
    soul = bare_workspace(tmp_path, [f"{old}\n[permanent] Keep answers short.", new], days=[1, 9]).read(SOUL)
    assert new.split("] ", 1)[1].rstrip(".") in soul and old.split("] ", 1)[1] not in soul and "short" in soul


@pytest.mark.parametrize(("a", "b"), [
    ("Always reply in English.", "Write commit messages in German."),  # what is written, not how it answers
    ("Reply in English.", "Reply in Markdown."),  # a format, not a language
    ("Reply in English.", "Reply in German even if the user writes in English."),  # a condition
    ("Antworte immer auf Deutsch.", "Antworte kurz und knapp."),  # a manner, not a language
    ("Antworte immer auf Deutsch.", "Antworte diesmal auf Englisch."),  # this once
    ("Antworte immer auf Deutsch.", "Schreib die Commit-Nachrichten auf Englisch."),
    ("以后都用中文回答。", "中文对话，用最简单的方法完成任务。"),  # more than the language: its other half must stay
    ("Antworte immer auf Englisch.", "Antworte immer auf Deutsch und halte dich kurz."),
    ("Always reply in English.", "Always reply in English and keep answers short."),
])
def test_rules_of_another_kind_fill_no_answer_language_slot(a, b):
    assert slot_of(a) is None or slot_of(b) is None or slot_of(a).key != slot_of(b).key


@pytest.mark.parametrize(("first", "second"), [
    ("[permanent] User lives in Leipzig.", "[permanent] User's brother lives in Leipzig."),
    ("[permanent] User works at Siemens.", "[permanent] User's husband works at Siemens."),
    ("[permanent] User's husband works at Siemens.", "[correction] User now works at Zalando."),
])
def test_a_line_about_someone_of_the_persons_life_and_one_about_them_both_stay(tmp_path: Path, first, second):
    """Neither refines nor replaces the other: two beings, two lines."""
    user = bare_workspace(tmp_path, [first, second], days=[1, 9]).read(USER)
    for line in (first, second):
        assert line.split("] ", 1)[1].rstrip(".") in user


def test_a_correction_replaces_the_time_zone_filed_from_a_key_value_block(tmp_path: Path):
    """The line ingest writes for "Timezone: UTC+1 (Berlin)" is the slot "timezone is UTC-5" fills."""
    drained = bare_workspace(tmp_path, ["[permanent] User's Timezone: UTC+1 (Berlin)",
                                        "[correction] User moved to New York; timezone is UTC-5."], days=[1, 9])
    user = drained.read(USER)
    assert "UTC-5" in user and "UTC+1" not in user


def test_a_pronoun_value_is_a_line_not_a_fragment_and_replaces_the_old_one(tmp_path: Path):
    user = bare_workspace(tmp_path, ["[permanent] User's Pronouns: they/them",
                                     "[correction] User's pronouns are now she/her."], days=[1, 9]).read(USER)
    assert "she/her" in user and "they/them" not in user


def test_a_named_value_restated_replaces_the_old_one_newest_wins(tmp_path: Path):
    memory = bare_workspace(tmp_path, ["[durable] The launch deadline is November 15.",
                                       "[durable] The launch deadline is December 1."], days=[1, 9]).read(MEMORY)
    assert "December 1" in memory and "November 15" not in memory


def test_a_restated_slot_without_a_correction_tag_replaces_too(tmp_path: Path):
    drained = bare_workspace(tmp_path, ["[durable] The user works at Globex.", "[durable] The user works at Initech."],
                             days=[1, 20])
    assert "Initech" in drained.read(USER) and "Globex" not in drained.all_text()


# routing by who the sentence is about and whether it instructs the agent --------------------------


@pytest.mark.parametrize("text", [
    "Confirm the branch name before any force push.",
    "If a command fails twice, stop and explain why.",
    "You should quote error messages verbatim.",
    "Replies must stay in plain text, no tables.",
    "Please never push to main.",  # a courtesy before it: an instruction still
    "By default, write shell scripts for bash, not zsh.",  # … and a default (it went to MEMORY.md)
    "Kindly, keep answers short.",
    "Remember to add type annotations to every function signature.",
    "Make sure you run the tests before committing.",
    "Every time you touch the Dockerfile, pin the base image version.",  # any command after an "every time"
])
def test_instructions_to_the_agent_are_recognised_by_mood_and_addressee(text):
    assert instructs_agent(text) and route_fact(text).path == SOUL


@pytest.mark.parametrize("text", ["Please answer in Spanish.", "Talk to me in French.", "Schreibe alles auf Deutsch.",
                                  "한글로 답변해줘."])
def test_the_language_the_person_wants_answers_in_is_a_rule_of_soul(text):
    """A host or an earlier ingest may file it as a tagged line: it goes where ingest's own reading sends it."""
    assert route_fact(text) == Route(SOUL, "Rules")


@pytest.mark.parametrize(("text", "path"), [
    ("Test coverage is 80% on the core package.", MEMORY),
    ("Check-ins happen every Monday.", MEMORY),
    ("The user's partner is called Robin.", USER),
    ("User asks to keep answers short.", USER),
    ("Every time the cron job runs, disk usage spikes.", MEMORY),
    ("Every time we deploy, it restarts.", MEMORY),
])
def test_statements_that_merely_start_like_a_verb_are_not_instructions(text, path):
    assert route_fact(text).path == path


def test_tool_habits_land_in_soul_tool_use_and_rules_in_soul_rules(tmp_path: Path):
    drained = bare_workspace(tmp_path, ["[durable] Prefer `fd` over find when listing files in the shell.\n"
                                        "[permanent] Greet the user by name only once per conversation."])
    soul = drained.read(SOUL)
    assert "`fd` over find" in soul.split("## Tool use", 1)[1]
    assert "Greet the user by name" in soul and "Greet" not in drained.read(MEMORY)


# task resolution by subject --------------------------------------------------------------------------


def test_a_completion_line_closes_the_open_task_it_is_about_and_only_that_one(tmp_path: Path):
    drained = bare_workspace(tmp_path, [
        "[ephemeral] Task: migrate the invoices table to Postgres 16\n[ephemeral] Task: renew the domain names",
        "[durable] The invoice table migration to Postgres 16 finished overnight.",
    ], days=[1, 2])
    memory = drained.read(MEMORY)
    assert "Task: migrate the invoices table" not in memory and "Task: renew the domain names" in memory
    assert "migration to Postgres 16 finished overnight" in memory  # a durable line is still a fact
    assert "task resolved" in "\n".join(b.summary for r in drained.reports for b in r.batches)


def test_a_completion_naming_another_identifier_leaves_a_similar_task_open(tmp_path: Path):
    drained = bare_workspace(tmp_path, ["[ephemeral] Task: investigate alert 1427 on the billing service",
                                        "[ephemeral] Wrapped up the alert 1398 investigation on the billing service."],
                             days=[1, 2])
    assert "Task: investigate alert 1427" in drained.read(MEMORY)


def test_an_ephemeral_completion_with_no_matching_task_opens_nothing(tmp_path: Path):
    drained = bare_workspace(tmp_path, ["[ephemeral] The quarterly audit is done."])
    assert "quarterly audit" not in drained.read(MEMORY)


# recurrence across sessions → a skill ----------------------------------------------------------------


STEPS = "To reindex the search cluster: 1) pause the ingest queue 2) run `make reindex` 3) resume the ingest queue"


def test_a_procedure_told_in_two_sessions_becomes_one_skill(tmp_path: Path):
    drained = bare_workspace(tmp_path, [f"[durable] {STEPS}", f"[durable] {STEPS} 4) watch the error rate"],
                             days=[1, 5])
    skill = drained.read("skills/reindex-search-cluster/SKILL.md")
    assert "4. Watch the error rate" in skill and skill.count("Pause the ingest queue") == 1
    assert "make reindex" not in drained.read(MEMORY)


def test_a_procedure_told_once_or_twice_in_one_session_stays_a_fact(tmp_path: Path):
    drained = bare_workspace(tmp_path, [f"[durable] {STEPS}", f"[durable] {STEPS}"], days=[1, 1])
    assert not (drained.workspace.root / "skills" / "reindex-search-cluster").exists()
    assert drained.read(MEMORY).count("make reindex") == 1
    assert parse_untitled_procedure("To be honest: it was fine.") is None


# lines memory never keeps ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "kind"), [
    ("[durable] Which database should the events table use?", "a question"),
    ("[durable] Key technical concepts:", "a heading"),
    ("[durable] The agno framework has a Knowledge class that manages inserting content into vector databases and",
     "a fragment"),
    ("[permanent] User wants you to do a research on that.", "addressed to the agent"),
    ("[permanent] User keeps notes in `~/notes/daily.md`.", "code"),
])
def test_a_tagged_line_of_a_kind_memory_never_keeps_is_declined_with_its_reason(tmp_path, line, kind):
    kept = "[durable] The mobile app ships every second Tuesday."
    drained = bare_workspace(tmp_path, [f"{line}\n{kept}"])
    text = drained.all_text()
    assert "ships every second Tuesday" in text
    assert line.split("] ", 1)[1].rstrip(".?:")[:30] not in text
    [batch] = [b for report in drained.reports for b in report.batches]
    assert f"not filed: {kind}" in batch.summary


@pytest.mark.parametrize(("line", "kind"), [
    ("Decided to use Next.js for the frontend.", ""), ("User works with Node.js and D3.js.", ""),  # products
    ("Keep the settings in config.js.", "code"), ("Run index.js before the tests.", "code"),  # files
])
def test_a_product_named_like_a_script_is_no_file_name(line, kind):
    assert forbidden_kind(line) == kind



@pytest.mark.parametrize("line", [
    "[permanent] User's sudo password is (redacted Password).",
    "[durable] (2026-11-10) The NAS password is (redacted Password).",
    "[permanent] 用户的密码是(redacted Password)。",
])
def test_a_line_ingest_redacted_a_credential_from_is_withheld_as_the_credential_would_be(tmp_path: Path, line):
    """History is redacted at ingest; under the default secret policy a line about a credential is withheld
    whether the credential is still in it or not (all it would keep is that a secret exists)."""
    drained = bare_workspace(tmp_path, [f"{line}\n[permanent] User likes hiking."], days=[1])
    memory = drained.read(USER) + drained.read(MEMORY) + drained.read(SOUL)
    assert "redacted" not in memory and "hiking" in memory


def test_one_goal_said_in_more_words_is_one_procedure_and_another_goal_is_not():
    """"To deploy" and "To deploy the app" with the same steps are one skill; "release the docs" is not "release"."""
    from nanodream.engines.builtin import same_goal
    from nanodream.engines.routing import Procedure

    deploy = Procedure("deploy", ("Run make test", "Make build", "Make push"))
    assert same_goal(deploy, Procedure("deploy-app", ("Make test", "Make build", "Make push", "Check the dashboard")))
    assert not same_goal(deploy, Procedure("deploy-docs", ("Build the docs", "Upload them to the bucket")))
    assert not same_goal(Procedure("release", ("Bump the version", "Tag the commit")),
                         Procedure("release-docs", ("Build the docs", "Upload them")))
