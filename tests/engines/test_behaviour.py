"""Corrections of the agent's conduct, read by rules: anti-pattern lines, complaints, tone, preferences."""

from __future__ import annotations

import pytest

from nanodream.engines.behaviour import (
    AntiPattern,
    about_conduct,
    anti_pattern,
    base_verb,
    opposite,
    parse_line,
    preference_from,
    read_correction,
    same_preference,
)
from nanodream.hypotheses import Tone

ALTERNATIVE = "Don't use search_files for content search — instead use grep (search)"


@pytest.mark.parametrize("said", [
    "Don't use search_files for content search, use grep.",
    "Do not use search_files for content search; use grep instead.",
    "Never use search_files for content search — use grep.",
    "Use grep instead of search_files for content search.",
    "Agent should use grep rather than search_files for content search.",
    "Stop using search_files for content search, use grep.",
    "Avoid using search_files for content search; instead, use grep.",
    "Don't use search_files for content search; grep instead.",
])
def test_every_shape_of_an_either_or_correction_reads_as_one_line(said):
    found = anti_pattern(read_correction(said).content)
    assert found is not None and found.line() == ALTERNATIVE, said


@pytest.mark.parametrize(("said", "line"), [
    ("Never send an email without confirming the recipient.",
     "Don't send an email without confirming the recipient — instead confirm the recipient first (email)"),
    ("Don't force-push to main: it rewrites everyone's history.", "Don't force-push to main: it rewrites everyone's "
                                                                  "history"),
    ("Don't paste whole logs into the chat because they bury the question.",
     "Don't paste whole logs into the chat: they bury the question"),
    ("Don't commit generated files.", "Don't commit generated files: the user corrected this"),
    ("Use grep, not search_files.", "Don't use search_files — instead use grep (search)"),
])
def test_a_rule_without_an_alternative_carries_its_reason(said, line):
    assert anti_pattern(read_correction(said).content).line() == line


@pytest.mark.parametrize("said", [
    "The production database is PostgreSQL 17.",
    "The user's time zone is America/Chicago now.",
    "Always reply in under 250 words.",
    "The team uses GitHub Actions for CI.",
    "User lives in Rotterdam.",
    "User said the staging server runs Debian 12.",
])
def test_facts_about_the_world_are_no_lesson_about_conduct(said):
    assert not about_conduct(read_correction(said))


@pytest.mark.parametrize(("said", "content", "tone"), [
    ('User said: "I told you, stop pasting whole logs into the chat!!"', "stop pasting whole logs into the chat",
     Tone.STRONG),
    ("User asked the agent, please, to keep the answers shorter.", "keep the answers shorter", Tone.MILD),
    ("User told the agent not to use emojis.", "don't use emojis", Tone.NEUTRAL),
    ("The user complained, again, that the agent replied in French.", "the agent replied in French", Tone.STRONG),
    ("You keep using search_files instead of grep", "you keep using search_files instead of grep", Tone.STRONG),
    ('Maya said "NO MORE EMOJIS"', "no more emojis", Tone.STRONG),
    ("User (annoyed) said the agent must STOP adding emojis.", "the agent must STOP adding emojis", Tone.STRONG),
    ("User, visibly irritated, said to stop pasting logs.", "stop pasting logs", Tone.STRONG),
    ("User mentioned they'd like summaries as tables.", "they'd like summaries as tables", Tone.NEUTRAL),
])
def test_a_reported_complaint_is_told_apart_from_its_wrapping(said, content, tone):
    found = read_correction(said)
    assert (found.content, found.reported, found.tone) == (content, True, tone)


def test_a_stated_rule_is_not_a_report_even_with_quotes_inside():
    assert not read_correction('Don\'t name branches "fix"; use the issue number.').reported
    assert not read_correction("You must always run the tests first.").reported


def test_a_complaint_about_what_the_agent_did_names_what_to_avoid():
    said = read_correction("User complained that the agent used search_files instead of grep.")
    assert anti_pattern(said.content, complaint=said.reported).line() == "Don't use search_files — instead use grep " \
                                                                          "(search)"
    assert anti_pattern(said.content) is None  # a stated line saying what the agent did is a fact, not a rule


@pytest.mark.parametrize(("content", "preference"), [
    ("keep the answers shorter", "Wants the agent to keep the answers shorter"),
    ("for shorter answers", "Prefers shorter answers"),
    ("i'd rather have shorter answers", "Prefers shorter answers"),
    ("i hate emojis", "Dislikes emojis"),
    ("it would be nice if summaries were shorter", "Prefers shorter summaries"),
    ("they'd like summaries as tables", "Prefers summaries as tables"),
    ("no more emojis", "Doesn't want emojis"),
    ("the answers are too long", "Dislikes it when the answers are too long"),
    ("why is this in French?", None),
])
def test_a_complaint_without_a_rule_becomes_a_preference_in_the_persons_words(content, preference):
    assert preference_from(content) == preference


def test_the_same_preference_in_other_words_and_its_opposite():
    assert same_preference("Prefers shorter answers.", "Wants the agent to keep the answers shorter.")
    assert not same_preference("Prefers dark mode.", "Prefers tea.")
    assert opposite("Dislikes bullet points in summaries", "User likes bullet points in summaries.")
    assert not opposite("Prefers bullet points", "Prefers bullet points in summaries")


def test_an_anti_pattern_line_reads_back_and_matches_its_rewording():
    line = parse_line(f"- {ALTERNATIVE} <!-- keep -->")
    assert line == AntiPattern("use search_files for content search", "use grep", "", "search")
    assert line.same_as(AntiPattern("use search_files for searching content"))
    assert parse_line("- Don't commit generated files: the user corrected this.").reason == "the user corrected this"
    assert parse_line("- Use grep for content search.") is None


@pytest.mark.parametrize(("word", "base"), [
    ("using", "use"), ("running", "run"), ("pasting", "paste"), ("checking", "check"), ("stopped", "stop"),
    ("sent", "send"), ("replied", "reply"), ("confirming", "confirm"), ("used", "use"), ("calling", "call"),
    ("adding", "add"), ("committing", "commit"),
])
def test_verbs_come_back_to_their_base_form(word, base):
    assert base_verb(word) == base


def test_the_domain_comes_from_the_words_else_the_skill_in_use_else_general():
    assert anti_pattern("don't use search_files, use grep").domain == "search"
    assert anti_pattern("don't pay invoices twice").domain == "payments"
    assert anti_pattern("don't quote the whole thread", "mcp-email").domain == "mcp-email"
    assert anti_pattern("don't quote the whole thread").domain == "general"


@pytest.mark.parametrize(("said", "line"), [
    ("Stop using find for searching file contents; use ripgrep instead.",
     "Don't use find for searching file contents — instead use ripgrep (search)"),
    ("When searching code, use rg rather than grep.", "Don't use grep when searching code — instead use rg (search)"),
    ("Agent used search_files for content search; it should have used grep.",
     "Don't use search_files for content search — instead use grep (search)"),
    ("Instead of guessing the time zone, ask the user.", "Don't guess the time zone — instead ask the user (general)"),
    ("The agent should not email clients before the user approves the draft.",
     "Don't email clients before the user approves the draft: the user corrected this"),
    ("Don't commit directly to main — open a pull request.",
     "Don't commit directly to main — instead open a pull request (git)"),
])
def test_other_wordings_of_a_correction(said, line):
    found = read_correction(said)
    assert about_conduct(found) and anti_pattern(found.content).line() == line


@pytest.mark.parametrize(("said", "line"), [
    ("You keep forgetting to activate the venv before pip install — always activate it first.",
     "Don't forget to activate the venv before pip install — instead always activate it first (general)"),
    ("you keep pasting the whole log into the chat, just link it",
     "Don't paste the whole log into the chat — instead link it (chat)"),
    ("The agent keeps asking for confirmation on every small edit.",
     "Don't ask for confirmation on every small edit: the user corrected this"),
    ("You keep on guessing the time zone — ask instead.", "Don't guess the time zone — instead ask (general)"),
    ("You kept using search_files instead of grep again!", "Don't use search_files — instead use grep (search)"),
])
def test_what_the_agent_keeps_doing_is_what_to_avoid(said, line):
    found = read_correction(said)
    assert about_conduct(found) and anti_pattern(found.content, complaint=found.reported).line() == line


def test_complaints_about_answer_length_in_other_words_are_one_preference():
    hedged = preference_from(read_correction("User asked politely whether answers could be a bit shorter").content)
    assert hedged == "Prefers shorter answers"
    assert same_preference(hedged, "Dislikes it when the replies are too long")
    assert same_preference(hedged, "Wants the agent to keep responses brief")
    assert not same_preference(hedged, "Prefers longer answers") and not same_preference(hedged, "Prefers tea")


def test_where_a_rule_applies_is_not_what_it_says():
    found = anti_pattern(read_correction("For HTTP checks the agent should use httpie, not curl.").content)
    assert found.line() == "Don't use curl — instead use httpie (general)"
    found = anti_pattern(read_correction("In this repository, never push to main; open a pull request.").content)
    assert found.line() == "Don't push to main — instead open a pull request (git)"


def test_a_request_reported_is_about_conduct_whatever_its_words():
    asked = read_correction("User asked, please, for metric units.")
    assert about_conduct(asked) and asked.asking and preference_from(asked.content) == "Prefers metric units"
    polite = read_correction("User asked politely if the agent could use metric units.")
    assert preference_from(polite.content) == "Wants the agent to use metric units"
    assert same_preference("Prefers metric units", "Wants the agent to use metric units")
    assert not about_conduct(read_correction("User said the staging server runs Debian 12."))
