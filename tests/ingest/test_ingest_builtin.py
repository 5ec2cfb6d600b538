"""The builtin extractor: deterministic rules over what a person says about themselves and their work, and the
chain a person relies on with no model and no key: ingest, then the builtin run, turns chat into memory."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest

from nanodream.cli import app
from nanodream.ingest.chunking import Chunk
from nanodream.ingest.extractors.builtin import BuiltinExtractor
from nanodream.ingest.extractors.rules import classify
from nanodream.ingest.extractors.spoken import plain
from nanodream.ingest.message import Said, make
from nanodream.text import statements
from nanodream.text.dates import absolute
from nanodream.text.person import third_person
from nanodream.text.sentences import sentences
from nanodream.text.verbs import conjugate
from tests.support.cli import runner
from tests.support.paths import FIXTURES

FIXTURES = FIXTURES / "ingest"
DAY = date(2023, 5, 8)


def filed(sentence: str, speaker: str = "") -> str | None:
    fact = classify(sentence, speaker, DAY)
    return fact.line() if fact else None


@pytest.mark.parametrize(("said", "line"), [
    ("I prefer dark roast coffee in the morning.", "[permanent] User prefers dark roast coffee in the morning."),
    ("I really enjoy hiking with my dog.", "[permanent] User enjoys hiking with their dog."),
    ("My favourite book is Dune.", "[permanent] User's favourite book is Dune."),
    ("Call me Sam.", "[permanent] User's preferred name is Sam."),
    ("I'm in the PST time zone.", "[permanent] User's time zone is PST."),  # found probing: lost as a gist
    ("The API now listens on port 8081.", "[durable] The API now listens on port 8081."),  # "now": how it stands
    ("I'm on Eastern time now.", "[permanent] User's time zone is Eastern time."),
    ("I am in UTC+2.", "[permanent] User's time zone is UTC+2."),
    ("I'm a nurse at the city hospital.", "[permanent] User is a nurse at the city hospital."),
    ("I live in Lyon with my wife.", "[permanent] User lives in Lyon with their wife."),
    ("Please always answer in British English.", "[permanent] Always answer in British English."),
    # a fresh probe's rules, consumed as a gist: a tag asking for a nod, "make sure you never", a command every time
    # a setting holds, what the agent does by default
    ("Always use pnpm for installs, ok?", "[permanent] Always use pnpm for installs."),
    ("Never delete the logs, alright?", "[permanent] Never delete the logs."),
    ("Make sure you never push to the release branch without a green CI run.",
     "[permanent] Make sure you never push to the release branch without a green CI run."),
    ("Whenever you touch the DB schema, ping me before applying anything.",
     "[permanent] Whenever you touch the DB schema, ping the user before applying anything."),
    ("By default, write shell scripts for bash.", "[permanent] By default, write shell scripts for bash."),
    # … and a lead-in before what is said: a label and a dash, "heads up" without a colon
    ("one more thing - don't ever paste full stack traces back at me.",
     "[permanent] Don't ever paste full stack traces back at the user."),
    ("heads up I'm colorblind (red/green).", "[permanent] User is colorblind (red/green)."),
    ("ugh ok. Make sure you never push to the release branch without a green CI run.",  # a sigh before it
     "[permanent] Make sure you never push to the release branch without a green CI run."),
    ("We're sticking with Tailwind for the redesign.", "[durable] Decided to stick with Tailwind for the redesign."),
    ("the API now listens on port 9091", "[durable] The API now listens on port 9091."),  # typed in lower case
    ("And I'd like to have brogrammer as my Ghostty theme.",  # a new user's choice for their own setup
     "[permanent] User would like to have brogrammer as their Ghostty theme."),
    ("By default, the port is 8080.", "[durable] By default, the port is 8080."),  # a fact of the project, no rule
    ("Don't use emojis in commit messages.", "[permanent] Don't use emojis in commit messages."),
    ("From now on, reply to me in French.", "[permanent] Reply to the user in French."),
    ("We decided to use Postgres for the events table.", "[durable] Decided to use Postgres for the events table."),
    ("Let's go with FastAPI for the new service.", "[durable] Decided to go with FastAPI for the new service."),
    ("We switched from Jenkins to GitHub Actions.", "[correction] Switched from Jenkins to GitHub Actions."),
    ("Actually, I live in Berlin now.", "[correction] User lives in Berlin now."),
    ("I no longer drink coffee.", "[correction] User no longer drinks coffee."),
    ("I need to renew my passport before June.", "[ephemeral] Task: renew User's passport before June."),
    ("Remind me to call my mom on Sunday.", "[ephemeral] Task: call User's mom on Sunday."),
    ("I finished the quarterly report.", "[durable] Finished the quarterly report on 8 May 2023."),
    ("Our API runs on port 8080 behind Caddy.", "[durable] Our API runs on port 8080 behind Caddy."),
    ("Leo starts school on Thursday, so keep that morning free.",
     "[durable] (2023-05-08) Leo starts school on Thursday."),
    ("Staging lives at staging.example.app.", "[durable] (2023-05-08) Staging lives at staging.example.app."),
    ("I moved to Porto last month.", "[permanent] User moved to Porto in April 2023."),
    # what happened is dated, whoever did it: "boss" is no verb in "-s" ("User's boss called them" was filed for good)
    ("My boss called me yesterday.", "[durable] (2023-05-08) User's boss called them on 7 May 2023."),
    ("My boss always calls me on Mondays.", "[permanent] User's boss always calls them on Mondays."),
    ("I'm learning Japanese on the side.", "[permanent] User is learning Japanese on the side."),
    ("We have two cats and a dog.", "[permanent] User's household has two cats and a dog."),
    ("I go climbing every Saturday.", "[permanent] User goes climbing every Saturday."),
    ("I'm really interested in compiler optimisation.", "[permanent] User is interested in compiler optimisation."),
    ("your name is Hiperagi", "[permanent] Your name is Hiperagi."),
    ("OK, I'll call you Yolo.", "[permanent] Your name is Yolo."),
    # a new user's transcript: the name given as what the agent will be ("You will be Foodie.") was consumed unread
    ("You will be Foodie.", "[permanent] Your name is Foodie."),
    ("You'll be Nova from now on.", "[permanent] Your name is Nova."),
    ("You're Jarvis from now on.", "[permanent] Your name is Jarvis."),
    ("You'll be called Pixel.", "[permanent] Your name is Pixel."),
])
def test_what_a_person_says_about_themselves_is_filed_with_its_tag(said, line):
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("My username is jdoe.", "[permanent] User's username is jdoe."),
    ("My email is jo@example.org.", "[permanent] User's email is jo@example.org."),
    ("My location is Lisbon.", "[permanent] User's location is Lisbon."),
    ("My employer is Acme.", "[permanent] User's employer is Acme."),
    ("Heidi is my wife.", "[permanent] User's wife is Heidi."),
    ("Akira is my dog.", "[permanent] User's dog is Akira."),
    ("Remember my timezone is Asia/Manila.", "[permanent] User's timezone is Asia/Manila."),
    ("Please remember that I am vegan.", "[permanent] User is vegan."),
    ("Can you call me papi all the time", "[permanent] User's preferred name is papi."),
])
def test_a_detail_of_the_person_is_filed_however_it_is_led_in(said, line):
    """Found on public transcripts nobody here had read: each was "[skip] small talk" or a gist."""
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("Don't do this again: never commit files with API keys to the repo.",
     "[permanent] Never commit files with API keys to the repo."),
    ("Lesson learned: always run the migrations first.", "[permanent] Always run the migrations first."),
    ("For this task: never touch the billing code.", None), ("For the billing fix: never touch the cursor.", None),
    ("Error: never returned a value.", None),
])
def test_a_rule_after_a_short_lead_and_a_colon_is_the_rule(said, line):
    """"Don't do this again: never commit …" was only a gist; a lead setting one task keeps the rule that task's."""
    assert filed(said) == line


@pytest.mark.parametrize("said", [
    "i like all", "I like the second one", "yes, lets go with option 1", "I prefer the first option.", "I like both.",
    "We picked the second one.", "We decided on option 2.", "Let's go with the second approach.",
    # a new user's answers: a number with a tweak after it, the work at hand liked or not
    "Let's go with 2 and tweak the subhead", "I don't like any approach.", "I like option 2 to avoid another endpoint.",
    "I like what we have here and it is passing.",
    "We picked B, then polish the copy.",
])
def test_an_answer_to_the_agents_options_is_no_fact(said):
    """"User likes all." and "Decided to go with option 1." were filed from public transcripts: they name nothing."""
    assert filed(said) is None


@pytest.mark.parametrize(("said", "line"), [
    ("Let's use uv.", "[durable] Decided to use uv."), ("I like all kinds of jazz.", "[permanent] User likes all kinds "
                                                                                    "of jazz."),
    ("We will go with Postgres.", "[durable] Decided to go with Postgres."),
])
def test_a_choice_that_names_its_thing_is_kept(said, line):
    assert filed(said) == line


@pytest.mark.parametrize("said", ["This is my dog.", "Remember my password.", "That is my point."])
def test_what_points_at_something_names_no_detail(said):
    assert filed(said) is None


@pytest.mark.parametrize(("said", "name"), [
    ("Call me P.R., everyone does.", "P.R."), ("Please call me Dr. Smith.", "Dr. Smith."),
    ("Call me Bob, please.", "Bob."), ("You can call me Sam — it's shorter.", "Sam."), ("call me bob", "bob."),
    ("Call me Mary Ann.", "Mary Ann."),
])
def test_a_name_to_be_called_by_is_filed_whatever_follows_its_comma(said, name):
    assert filed(said) == f"[permanent] User's preferred name is {name}"


@pytest.mark.parametrize(("said", "line"), [
    ('Call me "William"', "User's preferred name is William."), ("Call me 'Bill'", "User's preferred name is Bill."),
    ("Please call me “Dr. Lee”.", "User's preferred name is Dr. Lee."), ('My name is "Bill".', "User's name is Bill."),
    ('I go by "Bill".', "User's preferred name is Bill."), ("Just call me Will from now on.",
                                                          "User's preferred name is Will."),
    ('Call me "William" please start the bootstrap from start.', "User's preferred name is William."),
])
def test_a_name_in_quotes_or_after_just_is_the_name_to_be_called_by(said, line):
    """A new user's "Call me "William" please start …" was small talk, and "Call me 'Bill'" filed "'Bill."."""
    assert filed(said) == f"[permanent] {line}"


@pytest.mark.parametrize(("said", "line"), [
    ("I'm Dana, a backend engineer in Toronto.", "User is Dana, a backend engineer in Toronto."),
    ("Hi, I'm Dana, a backend engineer in Toronto.", "User is Dana, a backend engineer in Toronto."),
    ("I am Dana, a nurse.", "User is Dana, a nurse."),
    ("I'm allergic to peanuts, keep that in mind when suggesting recipes.", "User is allergic to peanuts."),
])
def test_who_the_person_is_keeps_its_apposition_and_loses_the_advice_to_the_agent(said, line):
    assert filed(said) == f"[permanent] {line}"


@pytest.mark.parametrize(("said", "line"), [
    ("Never edit settings.py by hand.", "[permanent] Never edit settings.py by hand."),
    ("Always update CHANGELOG.md when you release.", "[permanent] Always update CHANGELOG.md when you release."),
    ("Please always use f-strings instead of .format().", "[permanent] Always use f-strings instead of .format()."),
    ("see main.py", None), ("Run setup() twice", None),  # too few words around the name: code
    # … unless a rule says in its first words that it holds every time: "Never edit config.yaml." was lost
    ("Never edit config.yaml.", "[permanent] Never edit config.yaml."),
    ("Never run setup() twice", "[permanent] Never run setup() twice."),
    ("Always bump version.txt.", "[permanent] Always bump version.txt."),
    ("I get 151 matches in day-002.md.", None),  # a fact naming a file tells of the work at hand
    ("Never run git push --force.", "[permanent] Never run git push --force."),  # a command's flag, likewise
    ("Run pytest --lf", None), ("The build uses --release flags everywhere now.", None),
])
def test_a_rule_may_name_the_file_or_call_it_is_about_in_a_sentence(said, line):
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("No new dependencies unless I approve them.", "No new dependencies unless they approve them."),
    ("Keep in mind: no third-party libraries unless I approve them.",
     "No third-party libraries unless they approve them."),
    ("No force pushes without asking me first.", "No force pushes without asking the user first."),
    ("No deploys on Fridays without my approval.", "No deploys on Fridays without the user's approval."),
])
def test_a_thing_forbidden_until_the_person_says_yes_is_a_rule(said, line):
    assert filed(said) == f"[permanent] {line}"


@pytest.mark.parametrize("said", [
    "No errors in the log until I restarted it.", "No idea why it fails.", "No luck without the VPN.",
])
def test_a_no_that_reports_or_shrugs_is_no_rule(said):
    assert filed(said) is None


@pytest.mark.parametrize(("said", "line"), [
    ("No need to roll back the .env file, but from now, NOTE that DO NOT REMOVE setting and env files without "
     "explicit permission.", "[permanent] DO NOT REMOVE setting and env files without explicit permission."),
    ("Fine for now, but from now on always ask before deleting files.",
     "[permanent] Always ask before deleting files."),
    ("I was here, but from now on I live in Oslo.", None),  # about the person, no rule
    ("No worries at all.", None),
])
def test_what_holds_from_now_on_after_what_this_time_was_is_the_rule(said, line):
    assert filed(said) == line  # the first was "[skip] small talk": it opens with "No"


@pytest.mark.parametrize(("said", "line"), [
    ("keep our chat in english", "[permanent] Keep our chat in english."),
    ("Let's keep the conversation in Spanish.", "[permanent] Keep the conversation in Spanish."),
    ("Speak English with me.", "[permanent] Speak English with the user."),
    ("Make the chat UI blue.", None), ("Keep the chat widget on the left.", None),  # the chat as a thing built
])
def test_the_language_of_the_whole_chat_is_a_rule(said, line):
    assert filed(said) == line


@pytest.mark.parametrize("said", [
    "Call me later.", "Call me back tomorrow.", "Call me maybe.", "Call me when the build is done.",
    "Call me if anything breaks.", "Call me at 5.", "Call me tonight, ok?", "Call me back please.",
    "Just call me when it is done.",
])
def test_call_me_on_the_telephone_names_nobody(said):
    assert filed(said) is None  # was "User's preferred name is later"


@pytest.mark.parametrize("said", [
    "The API port is now 8081.", "Our staging server is now at 10.0.0.5.", "The prod database is now Postgres 16.",
    "Our timezone is now UTC-5.",
])
def test_a_thing_given_a_new_value_is_a_correction(said):
    assert filed(said) == f"[correction] {said}"  # was nothing: "now" read as pointing at the moment


@pytest.mark.parametrize(("said", "tag"), [
    ("Port is now 8081.", "correction"), ("Timezone is UTC-5 now.", "correction"),
    ("The time zone is currently America/Chicago.", "correction"), ("City is Porto.", "durable"),
    ("Location: is Berlin", None), ("Location is wrong.", None), ("The port is busy.", None),
])
def test_a_value_said_without_whose_it_is_waits_for_the_dream_to_find_its_owner(said, tag):
    """"Port is now 8081" was talk: no line said whose; the dream finds the one line holding a port."""
    assert filed(said) == (f"[{tag}] {said}" if tag else None)


@pytest.mark.parametrize(("said", "line"), [
    ("the port changed to 3001", "[correction] The port changed to 3001."),
    ("Sorry, the port is now 8081.", "[correction] The port is now 8081."),
    ("I've moved to New York.", "[permanent] User has moved to New York."),
    ("I relocated to Porto.", "[permanent] User relocated to Porto."),
    ("Now living in New York.", "[permanent] User lives in New York."),
    ("Currently based in Porto.", "[permanent] User lives in Porto."),
])
def test_more_ways_of_giving_a_new_value_are_read(said, line):
    assert filed(said) == line


@pytest.mark.parametrize("said", ["Now living in the moment.", "Sorry, the port is busy."])
def test_look_alikes_of_a_new_value_give_none(said):
    assert filed(said) is None


@pytest.mark.parametrize("said", [
    "The deploy is now at 80%.", "The tests are now passing on CI.", "The build is now broken.",
])
def test_how_work_at_hand_stands_now_is_no_new_value(said):
    assert filed(said) is None


@pytest.mark.parametrize(("said", "line"), [
    ("I went to a support group yesterday.", "[durable] Caroline went to a support group on 7 May 2023."),
    ("From November I'll be a data engineer at Nordwind.",
     "[durable] (2023-05-08) Caroline will be a data engineer at Nordwind from November."),
    ("Guess what, I adopted a cat yesterday!", "[durable] Caroline adopted a cat on 7 May 2023."),
    ("I adopted a cat named Miso 😻 yesterday :)", "[durable] Caroline adopted a cat named Miso on 7 May 2023."),
    ("Yeah, I started pottery classes.", "[durable] (2023-05-08) Caroline started pottery classes."),
    ("Hey Mel, I went camping last weekend.", "[durable] Caroline went camping on the weekend before 8 May 2023."),
    ("It's 25°C in Seville and I paid €40 ☀️", "[durable] (2023-05-08) Caroline: It's 25°C in Seville and I paid €40."),
])
def test_between_people_what_happened_is_a_dated_journal_line(said, line):
    assert filed(said, "Caroline") == line


@pytest.mark.parametrize(("said", "line"), [
    ("We bought the flat in Porto last autumn.", "[durable] (2023-05-08) We bought the flat in Porto last autumn."),
    ("I adopted a cat yesterday!", "[durable] (2023-05-08) User adopted a cat on 7 May 2023."),
    ("I started pottery classes.", None), ("I forgot to save the log file.", None), ("We merged the branch.", None),
])
def test_told_to_an_agent_what_happened_is_kept_only_when_the_person_placed_it_in_time(said, line):
    assert filed(said) == line  # a life event is said with its when; a step of the session is not


@pytest.mark.parametrize("said", [
    "Tomorrow I'm flying to Denver for a wedding.", "I'm flying on Saturday morning also.",
    "We're shipping the new release on Friday.", "I'll be at the dentist tonight.",
])
def test_the_plan_of_the_coming_days_told_to_an_agent_is_no_memory(said):
    assert filed(said) is None  # was a dated line: "(2023-05-08) User is flying to Denver for a wedding on 9 May …"


def test_a_life_change_further_off_and_what_already_happened_stay_events():
    assert filed("From November I'll be a data engineer at Nordwind.") == (
        "[durable] (2023-05-08) User will be a data engineer at Nordwind from November.")
    assert filed("I adopted a cat yesterday!") == "[durable] (2023-05-08) User adopted a cat on 7 May 2023."


@pytest.mark.parametrize("said", [
    "In such cases, I’d draft the reminder and queue it to be sent later.", "In that case we would switch to Go.",
    "In March I might move to Lisbon.", "On Fridays we could deploy twice.", "After lunch I'd probably call them.",
])
def test_what_would_or_might_be_is_no_event_whatever_its_setting(said):
    assert filed(said) is None  # the setting moved to the end made it look placed in time


@pytest.mark.parametrize("said", [
    "I read the readme but I had trouble getting the living documentation output.",
    "I suspect that the issues we ran into were caused by directives I gave you.",
    "We are on a right track.", "We have produced an inordinate amount of boilerplate.",
    "I don't have uv installed at the moment.", "I dislike you adding all the inline documentation to pytest.ini.",
    "My modification to CLAUDE.md wasn't a typo!", "User doesn't want you to do any code changes at this time.",
    "I like 2 or 3", "I would first like to discuss the", "Key Technical Concepts:", "Don't commit this yet.",
    "Let's try to get back to the project.", "It looks like you had the same issue.",
    "These showed that BookMinder is a Python tool.",
    "I'll call you back tomorrow.", "I'm interested in what you think.",
    "I click Load Checklist in the applicant view and the menu items in red [Image #2] move.",
    # a new user's problems and steps, filed in USER.md as who they are
    "My laptop has a bug.", "I now have multiple usages of files.",
    "I also see an error with a sql database when I run the migration.",
    "I ask, because it seems a little deep to be passing the dotfiles input.",
    "I have accidentally make some calls, which may have bungled my home directory.",
    "My laptop doesn't work.", "I explain the TGR issue, let's plan on Wednesday before.",
    # … and how their things misbehave ("User's zellij config is a bit off." was filed as a preference)
    "My zellij config is a bit off.", "My laptop is a bit slow.", "My prompt looks kind of wonky.",
    "My terminal seems laggy.", "My dotfiles are a mess.", "You will be fine.", "You'll be OK.",
    # what "from now on" foretells, or where "going forward" goes: no rule ("Things should be way easier …" was one)
    "From now on things should be way easier with the new CI setup.", "Going forward, it'll be much simpler.",
    "Going forward with the plan you proposed - go ahead and implement step 2.",
    # indifference between the options at hand is no taste of the person's ("User doesn't care either way.")
    "I honestly don't care either way.", "I don't really mind which one.", "I don't care.",
    # a statement with a nod after it, said aloud: dictation's filler, as it was a question
    "Then we have the platform, then we have working session, and then tasks, okay?",
    "i have install canvas-lms already", "I'd like to use that as my template.",  # just done; the thing at hand
    "I share with ProBIM the IFC files for the E377 road.", "I haven't found perf board on the page I am looking at.",
    "I already have the one with the built-in.", "I reckon the rollers must be as wide as the lines.",
    "My next move with fintual is to withdraw the down payment.",
    "I want to view the step number, the checklist item, the date completed, the status, whether it is done, the "
    "assigner, the rating from 0 to 10, the notes as comments and the links of the files uploaded for each item.",
])
def test_what_a_person_tells_an_agent_about_the_moment_is_not_memory(said):
    assert filed(said) is None

@pytest.mark.parametrize("said", [
    "What do you think about it?", "Thanks, that worked!", "I think that's a great idea.", "I'm so happy for you!",
    "The weather is nice today.", "I love it.", "ok", "Don't worry about it.", "Sounds good to me.",
    "Can you add Sentry to the Django app?", "That sounds great, Noor!", "How is Oslo treating you? 😊",
])
def test_questions_small_talk_hedges_and_sentences_about_others_are_not_facts(said):
    assert filed(said) is None


@pytest.mark.parametrize(("said", "line"), [
    ("Honestly, my sister basically runs the bakery in Ghent, you know.",
     "[permanent] User's sister runs the bakery in Ghent."),
    ("I'm honestly not a fan of Tuesdays haha, I work late.",
     "[permanent] User is not a fan of Tuesdays, they work late."),
    ("I kind of run my aunt's bakery in Ghent.", "[permanent] User runs their aunt's bakery in Ghent."),
    ("I bake a new kind of bread every week.", "[permanent] User bakes a new kind of bread every week."),
    ("Please always, you know, answer in French.", "[permanent] Always answer in French."),
    ("Some context first: our shop ships 40 orders a day.", "[durable] Our shop ships 40 orders a day."),
    ("Quick note: I actually don't eat fish.", "[permanent] User doesn't eat fish."),
    ("I mean, we kind of never deploy on Fridays.", "[durable] We never deploy on Fridays."),
])
def test_filler_words_and_announcing_labels_are_not_kept_but_negations_and_numbers_are(said, line):
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("No, I never eat meat.", "[permanent] User never eats meat."),
    ("Thanks, I moved to Oslo in May.", "[permanent] User moved to Oslo in May."),
])
def test_a_statement_after_an_interjection_is_still_a_fact(said, line):
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("please keep answers short and skip the pleasantries",
     "[permanent] Keep answers short and skip the pleasantries."),
    ("No emojis in replies please!", "[permanent] No emojis in replies."),
    ("be concise in your answers", "[permanent] Be concise in your answers."),
    ("Hey, can you keep replies under 100 words from now on?", "[permanent] Keep replies under 100 words."),
    ("From now on, could you answer in German?", "[permanent] Answer in German."),
    ("Could you send me the status from now on every Monday?", "[permanent] Send the user the status every Monday."),
])
def test_how_every_answer_should_read_is_a_standing_rule_however_it_is_asked(said, line):
    assert filed(said) == line


@pytest.mark.parametrize("said", [
    "Make the reply to Bob friendlier.", "Write a reply to the landlord.", "Can you fix the bug?",
    "Could you send the report to Bob?", "No problem!", "What should I do in future?",
    "Work on bead spotter-4te.", "Implement PROJ-142 next.", "Read the logs in /var/log/app first.",
    "Deploy v2.3 to staging.", "Send the invoice to Acme GmbH.",
    "Analyze the transcript and summarize action items for the Codemie demo.",
])
def test_an_errand_or_a_plain_question_is_not_a_fact_nor_a_standing_rule(said):
    assert filed(said) is None


@pytest.mark.parametrize("said", ["We use Django 4.2.", "We deploy with Kamal.", "We're on Node 22.",
                                  "Our team uses Terraform."])
def test_the_teams_tool_named_alone_is_how_its_work_stands(said):
    """"We use Django 4.2." was small talk: two meaningful words, though it says what the team builds on."""
    assert filed(said) is not None and filed(said).startswith(("[durable]", "[correction]")), said


@pytest.mark.parametrize("said", ["Our office is in Amsterdam.", "Our stack is Rails.", "Our API port is 8080."])
def test_one_of_the_teams_things_given_a_named_value_is_filed(said):
    """"Our office is in Amsterdam." was lost: two meaningful words."""
    assert filed(said) == f"[durable] {said}"


@pytest.mark.parametrize(("said", "line"), [("My editor is Neovim.", "[permanent] User's editor is Neovim."),
                                            ("My laptop is a MacBook.", "[permanent] User's laptop is a MacBook."),
                                            ("My OS is Ubuntu 24.04.", "[permanent] User's OS is Ubuntu 24.04.")])
def test_one_of_the_persons_things_given_a_named_value_is_filed(said, line):
    """"My editor is Neovim." was lost, nothing waiting: two meaningful words."""
    assert filed(said) == line


@pytest.mark.parametrize("said", ["We are on it.", "We use it.", "We are on Monday.", "We use This.",
                                  "Our code is bad.", "Our plan is this."])
def test_what_only_looks_like_the_teams_tool_is_not_filed(said):
    assert filed(said) is None


def test_a_statement_whose_first_word_is_also_an_errand_verb_is_still_filed():
    said = "Read replicas are in Frankfurt and Dublin."
    assert filed(said) == f"[durable] (2023-05-08) {said}"


@pytest.mark.parametrize(("said", "line"), [
    ("Good morning, I am moving to Berlin next week.",
     "[durable] Mel is moving to Berlin in the week after 8 May 2023."),
    ("Evening Sam! I started a new job today.", "[permanent] Mel started a new job on 8 May 2023."),
])
def test_a_greeting_with_a_time_of_day_is_not_the_fact_after_it(said, line):
    assert filed(said, "Mel") == line


def test_a_named_speaker_is_the_subject_and_never_the_user():
    assert filed("I love painting sunsets at the lake.", "Melanie") == (
        "[permanent] Melanie loves painting sunsets at the lake.")
    assert filed("I went camping with my kids last week.", "Melanie") == (
        "[durable] Melanie went camping with their kids in the week before 8 May 2023.")
    assert filed("I started pottery lessons.", "Melanie") == "[durable] (2023-05-08) Melanie started pottery lessons."


def test_relative_times_become_dates_counted_from_the_message():
    said = absolute("I painted it last year and moved 3 months ago", DAY)
    assert said == "I painted it in 2022 and moved in February 2023"
    assert absolute("Since yesterday I feel better", DAY) == "Since 7 May 2023 I feel better"
    assert absolute("last Friday I ran", DAY) == "on 5 May 2023 I ran"
    assert absolute("see you tomorrow", None) == "see you tomorrow"


def test_first_person_becomes_third_person_with_agreeing_verbs():
    assert third_person("I've been painting since I was ten", "User") == "User has been painting since they were ten"
    assert third_person("I watch films and I fix bikes", "Ada") == "Ada watches films and they fix bikes"
    assert third_person("I don't like coffee", "User") == "User doesn't like coffee"
    assert third_person("Imagine that", "User") is None
    assert third_person("I desperately want a quieter inbox", "User") == "User desperately wants a quieter inbox"
    assert third_person("I reply to email every morning", "User") == "User replies to email every morning"


@pytest.mark.parametrize(("said", "line"), [
    ("i'm ricardo plz remember this", "[permanent] User is ricardo."),  # about themselves: restated
    ("I prefer tabs over spaces, remember that.", "[permanent] User prefers tabs over spaces."),
    ("Deploys go through the staging box first, remember this.",
     "[permanent] Deploys go through the staging box first."),
])
def test_a_sentence_that_ends_by_asking_to_remember_it_is_filed(said, line):
    assert _short(said).content == line


@pytest.mark.parametrize(("said", "line"), [
    ("Please remember that my birthday is May 3.", "[permanent] User's birthday is May 3."),
    ("Keep in mind that I'm allergic to nuts.", "[permanent] User is allergic to nuts."),
    ("Remember that the staging server is in Frankfurt.", "[durable] The staging server is in Frankfurt."),
    ("Don't forget that our API keys rotate every 90 days.", "[durable] Our API keys rotate every 90 days."),
    ("Keep in mind that this repo is meant to manage my personal system definitions.",  # "this repo" lasts
     "[durable] This repo is meant to manage the user's personal system definitions."),
])
def test_what_the_person_asks_to_remember_is_filed_as_what_it_says(said, line):
    assert _short(said).content == line


@pytest.mark.parametrize("said", [
    "Remember that bug from yesterday?",
    "Remember that it crashed twice.",  # what "it" is, only the conversation knows
    "Remember that this is only a test.",
    "I remember that we talked about it.",  # the person remembering, no request
    "Remember that the build I ran failed.",  # "I ran": the person's act of the moment, not restated
    "Remember that the build i ran failed.",  # … typed in lower case
])
def test_a_remembered_clause_that_points_elsewhere_is_not_filed(said):
    assert not any(line.startswith("[") and not line.startswith("[skip]") for line in _short(said).content.splitlines())


@pytest.mark.parametrize("said", [
    "I desperately need to create space on my Gmail inbox",  # an adverb in "-ly" before the verb, then a need
    "i cant log in to many request error",  # "can't" typed without its apostrophe
    "I have set everything up, so the whole system is operational.",  # "have set": done just now
    "I have read the docs twice.",
    "I like everything that you're doing.",  # praise for this conversation, no lasting taste
    "I really love how you explained that.",
    "Never do that again.",  # this "that" points at what just happened
    "we're running late",  # busy with something unnamed: the moment
    "We are using it now.",
])
def test_what_happened_or_praise_for_the_agent_is_no_fact_about_the_person(said):
    assert classify(said) is None


@pytest.mark.parametrize(("said", "not_opening"), [
    ("still have when i try to sign in 404: NOT_FOUND", "User tries"),  # "when I …" is no setting's end
    ("In the morning when I wake up I check the logs", "User wakes"),
    ("Still broken if I reload the page", "User reloads"),
])
def test_a_clause_after_when_or_if_is_never_moved_before_the_sentence_it_belongs_to(said, not_opening):
    found = classify(said, "", DAY)
    assert found is None or not found.text.removeprefix("(2023-05-08) ").startswith(not_opening), found


@pytest.mark.parametrize(("said", "fact"), [
    ("Always prefer libraries that are actively maintained.", "Always prefer libraries that are actively maintained."),
    ("Never add packages that have known CVEs.", "Never add packages that have known CVEs."),  # "that": a relative
    ("Always check that the tests pass.", "Always check that the tests pass."),  # … or what is checked
    ("We use MultiLogin now.", "We use MultiLogin now"),  # "now": how the team's work stands
    ("We're using Postgres for the main database.", "We're using Postgres for the main database"),
    ("I gladly use vim for everything.", "User gladly uses vim for everything"),
    ("im a nurse in Leeds", "User is a nurse in Leeds"),  # "I'm" typed without its apostrophe
    ("I love hiking in the Alps.", "User loves hiking in the Alps"),
])
def test_a_lasting_fact_or_rule_typed_loosely_or_with_a_that_clause_is_still_filed(said, fact):
    found = classify(said)
    assert found is not None and found.text == fact


def test_statements_spliced_with_commas_are_each_filed():
    """"My name is Ana, your name is Mo": the person's name for USER.md, the agent's for SOUL.md."""
    said = Said("user", "My name is Romario, your admin, your name is Hiperagi, your symbol is a brain")
    lines = BuiltinExtractor(UTC).extract(Chunk("openai:s", [make("openai", "s", said)])).content.splitlines()
    assert lines[:2] == ["[permanent] User's name is Romario.", "[permanent] Your name is Hiperagi."]


def test_code_quotes_and_one_sentence_holding_two_statements():
    text = "Here:\n```\nI live in the code block\n```\n> I live in a quote\nI love jazz and I play the piano."
    assert list(sentences(text)) == ["Here:", "I love jazz", "I play the piano."]


def test_each_chunk_is_facts_and_a_gist_or_skip():
    when = datetime(2026, 10, 1, 10, tzinfo=UTC)
    extractor = BuiltinExtractor(UTC)

    def content(*said: tuple[str, str]) -> str:
        msgs = [make("openai", "s", Said(role, text, when.isoformat())) for role, text in said]
        return extractor.extract(Chunk("openai:s", msgs)).content

    assert content(("user", "Thanks!"), ("assistant", "You're welcome.")) == "[skip] small talk"
    assert content(("assistant", "Here is the plan.")) == "[skip] only the assistant spoke"
    mixed = content(("user", "I live in Ghent. Can you compare train fares to Paris and Amsterdam?"))
    assert mixed.splitlines() == ["[permanent] User lives in Ghent.",
                                  "Talked about: Can you compare train fares to Paris and Amsterdam?"]


def test_a_waiting_message_said_on_another_day_than_its_entry_says_which():
    """One entry held 14 messages of 18 days, stamped with the last: a model would read "morgen" said on May 10 as
    the day after May 28."""
    said = [("Das Vorstellungsgespräch ist morgen um zehn, drück mir die Daumen.", "2026-05-10T09:00:00Z"),
            ("Es lief gut, sie melden sich nächste Woche bei mir.", "2026-05-28T09:00:00Z")]
    extraction = BuiltinExtractor(UTC).extract(Chunk("openai:s", [make("openai", "s", Said("user", text, when))
                                                                   for text, when in said]))
    waiting = extraction.waiting
    assert "(said on 2026-05-10)\n> Das Vorstellungsgespräch ist morgen" in waiting, waiting
    assert "2026-05-28" not in waiting  # the entry's own day needs no line


def test_a_sentence_with_no_english_word_to_join_it_is_not_filed_as_an_english_fact():
    """"(2026-03-24) Dili sa ianjames.ormo na calendar." (Cebuano) was filed in MEMORY.md as a dated fact."""
    said = make("openai", "s", Said("user", "Dili sa ianjames.ormo na calendar.", "2026-03-24T01:23:00Z"))
    extraction = BuiltinExtractor(UTC).extract(Chunk("openai:s", [said]))
    assert "[durable]" not in extraction.content and "ianjames.ormo" in extraction.waiting
    assert filed("Grafana monitors Kubernetes clusters daily.") is not None  # no joining word, yet English


def test_the_agents_reply_echoed_back_as_the_persons_turn_is_not_theirs():
    """A WhatsApp bridge echoes the bot's replies as the person's turns: "User works best with short, direct
    questions." was filed from the agent's own words."""
    when = datetime(2026, 10, 1, 10, tzinfo=UTC).isoformat()
    reply = "I work best with short, direct questions."
    said = [("user", "What should I know about you?"), ("assistant", reply), ("user", f"  {reply}"),
            ("user", "I work best in the morning.")]
    content = BuiltinExtractor(UTC).extract(Chunk("openai:s", [make("openai", "s", Said(role, text, when))
                                                                for role, text in said])).content
    assert "short, direct questions" not in content and "[permanent] User works best in the morning." in content


@pytest.mark.parametrize(("said", "language"), [
    ("The export finished fine on my side today and the numbers look right. Je regarde ça ce soir.", "fr"),
    ("The export finished fine on my side today and the numbers look right. Mañana lo revisamos.", "es"),
])
def test_a_sentence_no_rule_files_in_another_language_leaves_the_message_waiting_not_in_a_gist(said, language):
    message = make("openai", "s", Said("user", said, "2026-10-01T10:00:00Z"))
    extraction = BuiltinExtractor(UTC).extract(Chunk("openai:s", [message]))
    assert extraction.for_model == {language: 1}
    assert said.rsplit(". ", 1)[1].rstrip(".") not in extraction.content  # not consumed as a gist
    assert f"> {said}" in extraction.waiting


def _short(said: str):
    return BuiltinExtractor(UTC).extract(Chunk("openai:s", [make("openai", "s", Said("user", said,
                                                                                   "2026-10-01T10:00:00Z"))]))


@pytest.mark.parametrize(("said", "language"), [("Zrób to jutro.", "pl"), ("Doe het nu.", "nl")])
def test_a_few_words_of_a_language_without_rules_wait_for_a_model(said, language):
    """Too few letters for the language model's usual verdict, yet it is sure: not English to the rules."""
    extraction = _short(said)
    assert extraction.for_model == {language: 1} and extraction.content == ""
    assert f"> {said}" in extraction.waiting


@pytest.mark.parametrize(("said", "language"), [("C'est bon déjà.", "fr"), ("Sieht gut aus.", "de"),
                                                ("Ça roule bien.", "fr"), ("Tengo asma.", "es"), ("Tenho asma.", "pt")])
def test_a_few_words_of_a_language_with_rules_are_read_in_it_never_a_gist(said, language):
    """Neither a statement its rules read nor its small talk: it waits for a model in its language. "Tengo asma."
    was consumed as English small talk: too short for the model, and under the letters that said nothing."""
    extraction = _short(said)
    assert extraction.for_model == {language: 1} and extraction.content == ""


@pytest.mark.parametrize("said", ["Muy bien.", "Vale, gracias.", "Danke!", "Merci beaucoup."])
def test_a_few_words_of_small_talk_in_a_language_with_rules_are_consumed(said):
    assert _short(said).content == "[skip] small talk"


@pytest.mark.parametrize(("said", "content"), [("Use pnpm here.", "Talked about: Use pnpm here"),
                                               ("Run it again.", "[skip] small talk")])
def test_a_few_english_words_read_as_before(said, content):
    extraction = _short(said)
    assert extraction.for_model == {} and extraction.content == content


def test_ingest_and_the_builtin_run_turn_a_few_chat_sessions_into_double_digit_memory(workspace):
    result = runner.invoke(app, ["ingest", str(FIXTURES / "first-person-chat.jsonl"), "-w", str(workspace.root)])
    assert result.exit_code == 0, result.output
    assert runner.invoke(app, ["run", "-w", str(workspace.root)]).exit_code == 0
    memory = "\n".join((workspace.root / f).read_text() for f in ("USER.md", "SOUL.md", "memory/MEMORY.md"))
    filed_lines = [line for line in memory.splitlines() if line.startswith("- ")]
    assert len(filed_lines) >= 10, memory
    for fact in ("landscape architect", "vegetarian", "peanuts", "kilometres", "busy main roads", "Bruges",
                 "Ursula K. Le Guin", "Spanish", "hostel in Bouillon"):
        assert fact in memory, fact
    assert "Ghent" not in (workspace.root / "USER.md").read_text()  # "I moved to Bruges" replaced it
    assert "[permanent]" not in memory and "[skip]" not in memory


def test_the_whole_chain_runs_from_cron_with_one_configured_run(workspace):
    workspace.config_file.write_text(f'[[ingest]]\npath = "{FIXTURES / "claude-code"}"\n\n'
                                     f'[[ingest]]\npath = "{FIXTURES / "codex"}"\nformat = "codex"\n')
    first = json.loads(runner.invoke(app, ["run", "-w", str(workspace.root), "--json"]).stdout)
    assert first["ingest"]["added"] == 2 and first["outcome"] == "committed"
    memory = (workspace.root / "memory" / "MEMORY.md").read_text() + (workspace.root / "SOUL.md").read_text()
    assert "ruff" in memory and "UTC" in memory and "emojis" in memory
    again = json.loads(runner.invoke(app, ["run", "-w", str(workspace.root), "--json"]).stdout)
    assert again["ingest"]["added"] == 0 and again["outcome"] == "nothing-to-do"
    status = runner.invoke(app, ["status", "-w", str(workspace.root)]).output
    assert f"ingest     {FIXTURES / 'claude-code'}: read 1 of 1 files" in status
    sources = json.loads(runner.invoke(app, ["status", "-w", str(workspace.root), "--json"]).stdout)["ingest"]
    assert [s["path"] for s in sources["sources"]] == [str(FIXTURES / "claude-code"), str(FIXTURES / "codex")]
    watermark = sources["sources"][1]["files"][0]
    assert watermark["offset"] == watermark["size"] > 0 and watermark["format"] == "codex"


def test_what_the_rules_cannot_read_in_a_language_is_left_for_a_model_and_counted(workspace, tmp_path):
    """A statement about the person is filed in their words and language; a request in Chinese and a German
    sentence that is partly about this project are left whole for a model, in an entry no built-in run consumes.
    (Before issue 45 every non-English message was left, and consumed unread by the next built-in run.)"""
    path = tmp_path / "mixed.jsonl"
    said = ["I live in Ghent and I work as a florist.",
            "請幫我整理這份作業的需求：使用者要能上傳書籍的螢光筆標記，系統會自動產生摘要，並用繁體中文顯示。",
            "我叫小林，平常用繁體中文寫作。",
            "Ich wohne in Bratislava und arbeite meistens abends an diesem Projekt.", "ok"]
    path.write_text("".join(json.dumps({"role": "user", "content": text}, ensure_ascii=False) + "\n" for text in said),
                    encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(path), "-w", str(workspace.root)])
    assert result.exit_code == 0, result.output
    assert "left for a model, whole (more than the built-in rules read in that language): 1 message in de, 1 in zh" \
        in result.output
    report = json.loads(runner.invoke(app, ["ingest", str(path), "-w", str(workspace.root), "--json",
                                            "--dry-run"]).stdout)
    assert report["for_model"] == {}  # nothing new the second time
    run = runner.invoke(app, ["run", "-w", str(workspace.root)])
    assert run.exit_code == 0, run.output
    user = (workspace.root / "USER.md").read_text(encoding="utf-8")
    memory = user + (workspace.root / "memory/MEMORY.md").read_text(encoding="utf-8")
    assert "florist" in memory and "Ghent" in memory
    assert "- 我叫小林，平常用繁體中文寫作。" in user  # in their words, in USER.md
    assert not any(word in memory for word in ("螢光筆", "Bratislava", "wohne"))  # never a raw paragraph
    status = json.loads(runner.invoke(app, ["status", "-w", str(workspace.root), "--json"]).stdout)
    assert status["waiting_for_model"] == 1  # one entry of the chunk's two messages, counted in each language
    assert status["waiting_languages"] == {"de": 1, "zh": 1} and status["pending_entries"] == 0


# ------------------------------------------------------------------------------------------------ told to an agent


@pytest.mark.parametrize(("said", "line"), [
    ("I'm from Lisbon, so schedule calls in the afternoon.", "[permanent] User is from Lisbon."),
    ("I teach piano on Tuesday evenings, so don't book anything then.",
     "[permanent] User teaches piano on Tuesday evenings."),
    ("i live in Leeds and mostly review these at lunch, so expect slow replies.", "[permanent] User lives in Leeds."),
    ("For the record, I work as a paramedic, so my hours are odd.", "[permanent] User works as a paramedic."),
    ("I prefer tables over prose when we compare things like these.", "[permanent] User prefers tables over prose."),
    ("I like a short summary before you change any files.",
     "[permanent] User likes a short summary before the agent changes any files."),
    ("I'd like replies as numbered steps.", "[permanent] User would like replies as numbered steps."),
])
def test_a_fact_about_the_person_keeps_no_consequence_for_the_moment(said, line):
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("write the changelog in plain English from now on", "[permanent] Write the changelog in plain English."),
    ("Please never suggest a paid plan unless I ask for one.",
     "[permanent] Never suggest a paid plan unless they ask for one."),
    ("we picked to host it on Fly instead of Render.", "[durable] Decided to host it on Fly instead of Render."),
    ("We chose Fly over Render.", "[durable] Decided on Fly over Render."),
])
def test_rules_and_decisions_in_the_shapes_people_use(said, line):
    assert filed(said) == line


@pytest.mark.parametrize("said", [
    "we have a pile of crash reports from last week.", "I have a failing test in the parser.",
    "ok, let's leave that section out of here.", "i may need a hand with the migration",
    "I hate paying for repeated runs of you, Claude, just to redo this every time.",
])
def test_the_matter_at_hand_is_not_memory(said):
    assert filed(said) is None


@pytest.mark.parametrize(("text", "said"), [
    ("we settled on the blue theme, should the logo change too?", ["we settled on the blue theme",
                                                                    "should the logo change too?"]),
    ("ok, ship it please always run the linter first.", ["ok, ship it", "please always run the linter first."]),
    ("here's the note I drafted, can you tighten it?\n\nDear Ana,\n\nWe decided to pause the launch.\n\nBest,\nKim",
     ["here's the note I drafted", "can you tighten it?"]),
    ("Below is the announcement:\n\nWe moved to Rust this year.", ["Below is the announcement:"]),
    # a rule typed under a program's last line, which ends with no stop (a Rust panic's "note: …")
    ("note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\nNever use unwrap in library "
     "code.", ["note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace.",
               "Never use unwrap in library code."]),
    ("If the build fails you should\nnever retry it blindly.", ["If the build fails you should never retry it "
                                                                 "blindly."]),  # wrapped: no capital, one sentence
])
def test_a_pasted_letter_is_not_the_persons_and_joined_statements_are_cut_apart(text, said):
    assert list(sentences(text)) == said


def test_a_bare_dont_after_a_request_is_how_to_do_that_errand():
    extractor = BuiltinExtractor(UTC)
    when = datetime(2023, 5, 8, 9, 0, tzinfo=UTC)

    def content(text: str) -> str:
        return extractor.extract(Chunk("openai:s", [make("openai", "s", Said("user", text, when.isoformat()))])).content

    assert "Don't" not in content("Please draft a release note for each fix. Don't push anything.")
    assert "[permanent] Don't push on Fridays." in content("Don't push on Fridays. Can you add a test for the parser?")
    assert "[permanent] Never push on Fridays." in content("Draft the notes. Please never push on Fridays.")


def _content(*turns: tuple[str, str]) -> str:
    """What the built-in extractor makes of one chunk of (role, text) turns, a minute apart."""
    when = datetime(2023, 5, 8, 9, 0, tzinfo=UTC)
    messages = [make("openai", "s", Said(role, text, (when + timedelta(minutes=number)).isoformat()))
                for number, (role, text) in enumerate(turns)]
    return BuiltinExtractor(UTC).extract(Chunk("openai:s", messages)).content


WORK_SHOWN = "I have removed the duplicated install section and merged the two examples. " * 4


@pytest.mark.parametrize(("turns", "kept"), [
    # the next message, the agent having only acknowledged the request: how to do that errand
    ((("user", "Can you fix the race condition in the upload worker?"), ("assistant", "ok"),
      ("user", "Don't use a global lock.")), None),
    ((("user", "The /orders endpoint returns stale data after an update, please fix it."), ("assistant", "Sure."),
      ("user", "Avoid caching responses.")), None),
    # after the agent showed its work, a bare "don't" is feedback that may stand
    ((("user", "Can you tidy the README?"), ("assistant", WORK_SHOWN),
      ("user", "Good, but don't put comments into bash snippets.")), "Don't put comments into bash snippets."),
    ((("user", "Thanks!"), ("assistant", "ok"), ("user", "Don't use a global lock.")), "Don't use a global lock."),
    # the thing at hand, named by its article: this errand's; one named every time, or "ever": a rule
    ((("user", "Don't touch the file."),), None),
    ((("user", "Don't change the function signature."),), None),
    ((("user", "Don't touch the .env file."),), "Don't touch the .env file."),
    ((("user", "Don't ever touch the migration file."),), "Don't ever touch the migration file."),
    ((("user", "Don't use print statements in the test files."),), "Don't use print statements in the test files."),
    # a "don't" that only holds back, then this errand's work (a new user's "Don't wait, restart the server now.")
    ((("user", "Don't wait, restart the server now."),), None),
    ((("user", "Don't wait for me, start the deploy."),), None),
    ((("user", "Don't stop, keep going."),), None),
    ((("user", "Don't ask, just do it."),), None),
    # a bare "don't" after a request in other words than "fix" or "please" (a new user's app redesign)
    ((("user", "Redesign the layout for mobile. Don't use too many animations."),), None),
    ((("user", "Improve the docs. Never commit .env files."),), "Never commit .env files."),
    ((("user", "Don't guess, ask me."),), "Don't guess, ask the user."),
    ((("user", "Don't use tabs, use spaces."),), "Don't use tabs, use spaces."),
])
def test_a_bare_dont_about_the_errand_at_hand_is_no_standing_rule(turns, kept):
    """Found probing the issue's "Avoid caching responses." said about one fix: sent as a message of its own right
    after the request, or about "the file" at hand, it was filed in SOUL.md as a standing rule."""
    content = _content(*turns)
    if kept is None:
        assert "[permanent]" not in content, content
    else:
        assert f"[permanent] {kept}" in content, content


def test_the_problem_a_request_is_about_is_no_fact_of_the_project():
    """"The invoice PDF renders blank pages. Please look into it." filed "(…) The invoice PDF renders blank pages."
    in MEMORY.md: what the errand is about, not a fact that lasts."""
    assert "[durable]" not in _content(("user", "The invoice PDF renders blank pages. Please look into it."))
    assert "[durable]" in _content(("user", "The invoice PDFs are rendered with WeasyPrint. Please add a test."))
    # a fact the request builds on, about "it" too, is still one: it reports nothing going wrong
    assert "[durable]" in _content(("user", "The staging server runs Debian 12. Can you check if it needs an "
                                            "upgrade?"))


@pytest.mark.parametrize("said", [
    "Sorry about the long delay this morning.",
    "sorry for all the typos in my last message",
    "Oops for the double post.",
    "Update the changelog with the release date.",
    "Wait for the nightly build before tagging.",
    "oops, wrong terminal tab",
    "Sorry, bad paste.",
])
def test_an_apology_or_an_errand_is_not_a_correction(said):
    assert filed(said) is None


@pytest.mark.parametrize("said", ["Switch to Chinese please", "Set your language to Chinese.", "Use Chinese with me.",
                                  "Change your language to Chinese."])
def test_switching_the_language_to_answer_in_is_a_rule_to_reply_in_it(said):
    """A new user's "Switch to Chinese please" was only talked about."""
    assert filed(said) == "[permanent] Reply in Chinese."


@pytest.mark.parametrize("said", ["Migrate the users table to Postgres.", "Enable Redis caching on staging.",
                                  "Replace Jenkins with GitHub Actions in the CI.", "Switch to Postgres for the events "
                                  "table.", "Switch to English for the docs."])
def test_a_request_to_change_something_named_is_no_dated_fact(said):
    """Filed in MEMORY.md as "(2026-11-10) Migrate the users table to Postgres.": work asked for, not how it stands."""
    assert filed(said) is None


def test_a_correction_after_an_apology_still_replaces_the_old_fact():
    assert filed("Sorry, I live in Leeds now.") == "[correction] User lives in Leeds now."


@pytest.mark.parametrize("said", ["Never mind.", "nevermind", "Never mind, the tests pass now.", "Don't bother."])
def test_an_idiom_that_opens_like_a_rule_is_not_one(said):
    assert filed(said) is None


@pytest.mark.parametrize(("said", "line"), [
    ("Going forward: no force pushes to shared branches.", "[permanent] No force pushes to shared branches."),
    ("From now on — no exclamation marks in release notes.",
     "[permanent] No exclamation marks in release notes."),
    ("In future; never squash merge commits from the docs team.",
     "[permanent] Never squash merge commits from the docs team."),
])
def test_a_standing_rule_after_its_marker_and_a_colon_or_dash(said, line):
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("For the record, I've been working at Shopify since 2021.",
     "[permanent] User has been working at Shopify since 2021."),
    ("I have been living in Lisbon since March 2018.", "[permanent] User has been living in Lisbon since March 2018."),
    ("I've been studying law for two years.", "[permanent] User has been studying law for two years."),
    ("I have worked at Canonical since 2015.", "[permanent] User has worked at Canonical since 2015."),
])
def test_a_life_fact_that_still_holds_since_a_date_is_the_persons(said, line):
    assert filed(said) == line


@pytest.mark.parametrize("said", ["I've been working on this migration since Tuesday.",
                                  "I have been learning the new deploy scripts since the outage."])
def test_the_work_at_hand_since_a_date_is_not_a_life_fact(said):
    assert filed(said) is None


@pytest.mark.parametrize(("said", "line"), [
    ("Push the branch we agreed to use Terraform instead of Pulumi for the staging stack, so note that in the "
     "changelog.", "[durable] Decided to use Terraform instead of Pulumi for the staging stack."),
    ("please redeploy it we are going with Fly.io instead of Heroku for the API",
     "[durable] Decided to go with Fly.io instead of Heroku for the API."),
    ("update the runbook we're going with Loki instead of Elasticsearch for logs",
     "[durable] Decided to go with Loki instead of Elasticsearch for logs."),
    ("We're going with Caddy instead of nginx for the proxy.",
     "[durable] Decided to go with Caddy instead of nginx for the proxy."),
])
def test_a_decision_run_on_after_an_errand_is_filed_without_the_errand(said, line):
    assert filed(said) == line


@pytest.mark.parametrize("said", [
    "Check whether we agreed to use Terraform for the staging stack.",
    "Look at the notes where we decided to drop the old API.",
])
def test_a_decision_only_mentioned_inside_an_errand_is_not_filed(said):
    assert filed(said) is None


def test_a_rule_said_without_a_verb_lands_in_soul_and_a_statement_that_nothing_exists_does_not(workspace, tmp_path):
    path = tmp_path / "rules.jsonl"
    said = ["Going forward: no force pushes to shared branches.", "No backups are kept for the staging database.",
            "Never mind, I merged it myself.", "From now on, no more than two emoji per reply."]
    path.write_text("".join(json.dumps({"role": "user", "content": text}) + "\n" for text in said), encoding="utf-8")
    assert runner.invoke(app, ["ingest", str(path), "-w", str(workspace.root)]).exit_code == 0
    assert runner.invoke(app, ["run", "-w", str(workspace.root)]).exit_code == 0
    soul = (workspace.root / "SOUL.md").read_text(encoding="utf-8")
    assert "No force pushes to shared branches." in soul and "No more than two emoji per reply." in soul
    assert "backups" not in soul and "mind" not in soul.lower()


@pytest.mark.parametrize(("said", "filed"), [
    ("Always use pnpm, never npm.", "[permanent] Always use pnpm, never npm."),
    ("In Go files, always use tabs, never spaces.", "[permanent] Always use tabs, never spaces in Go files."),
    ("Always answer briefly, never with bullet lists.", "[permanent] Always answer briefly, never with bullet lists."),
])
def test_a_contrast_without_its_own_verb_stays_with_its_rule(said, filed):
    """Cut off, "Never npm." would be a rule that says nothing."""
    assert _short(said).content == filed


def test_a_second_rule_with_its_own_verb_is_its_own_line():
    assert _short("Always reply in English; never use emojis.").content.splitlines() == [
        "[permanent] Always reply in English.", "[permanent] Never use emojis."]


@pytest.mark.parametrize(("said", "line"), [
    ("Remember to add type annotations to every function signature.",
     "[permanent] Remember to add type annotations to every function signature."),
    ("Please make sure you run the tests before committing.",
     "[permanent] Make sure you run the tests before committing."),
    ("Always remember to pin versions in any requirements file.",
     "[permanent] Always remember to pin versions in any requirements file."),
    ("Every time you touch the Dockerfile, pin the base image version.",
     "[permanent] Every time you touch the Dockerfile, pin the base image version."),
    ("Each time you open a PR, add a changelog entry.", "[permanent] Each time you open a PR, add a changelog entry."),
    ("Important: never push to main.", "[permanent] Never push to main."),
    ("Rule: always squash merge.", "[permanent] Always squash merge."),
    ("security rule- do not send an email to another address without explicit approval",
     "[permanent] Do not send an email to another address without explicit approval."),
    ("Golden rule — never push to main.", "[permanent] Never push to main."),
    ("Don't forget to add a changelog entry when you merge features.",
     "[permanent] Don't forget to add a changelog entry when you merge features."),
    ("Please make sure error messages are logged with context.",
     "[permanent] Make sure error messages are logged with context."),
])
def test_a_reminder_or_a_command_after_every_time_is_a_standing_rule(said, line):
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("Every time I push, run the tests.", "[permanent] Every time they push, run the tests."),
    ("Any time I send a link, summarize it.", "[permanent] Any time they send a link, summarize it."),
    ('Whenever I say "ship it", open a PR.', '[permanent] Whenever they say "ship it", open a PR.'),
    ("When I ask for code, use TypeScript.", "[permanent] When they ask for code, use TypeScript."),
    ("When I paste an error, explain the cause first.",
     "[permanent] When they paste an error, explain the cause first."),
])
def test_a_command_after_the_persons_own_habit_is_a_whole_standing_rule(said, line):
    """Filed as "User pushes, run the tests every time." in USER.md, cut to "Any time they send a link." with its
    command lost, or left as talk: quoted words pointed at the moment, and "when I ask" set no habit."""
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("Next time, ask me before you refactor.", "[permanent] Ask the user before you refactor."),
    ("I'd like you to call me Captain.", "[permanent] User's preferred name is Captain."),
    ("No more long explanations, please.", "[permanent] No more long explanations."),
])
def test_a_lesson_for_next_time_a_name_asked_for_and_no_more_explanations_are_rules(said, line):
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("Kindly avoid exclamation marks in commit messages.", "[permanent] Avoid exclamation marks in commit messages."),
    ("Kindly, always use British spelling.", "[permanent] Always use British spelling."),
])
def test_kindly_asks_a_rule_as_please_does(said, line):
    """Lost, nothing waiting: "Kindly" was not read as the courtesy "Please" is."""
    assert filed(said) == line


@pytest.mark.parametrize("said", ["This time, please don't run the formatter.", "For now, please never push to main.",
                                  "Just this once, please don't add tests."])
def test_a_rule_scoped_to_this_time_stays_scoped_after_please(said):
    """"Don't run the formatter." went to SOUL.md: "please don't" cut the sentence and the scope was lost."""
    assert "[permanent]" not in _content(("user", said)), said


@pytest.mark.parametrize("said", ["Next time we'll try the other one.", "Next time I'll bring snacks."])
def test_what_the_person_will_do_next_time_is_no_memory(said):
    """Filed as "(2026-03-24) we'll try the other one next time.": moving "next time" to the end read as a date."""
    assert filed(said) is None


@pytest.mark.parametrize("said", [
    "From the docs: Always call init() before using the client.", "The README says: always run make setup first.",
    "According to the docs, always call init first.", "The error says: never use a relative path.",
    "Copied from the wiki: never deploy on Fridays.", "Per the docs, never share tokens.",
    "ChatGPT said to always use async.", "The docs say we need Node 20.",
])
def test_what_a_document_or_a_program_says_is_not_the_persons_rule(said):
    """Each was filed in SOUL.md: the lead naming where the words are from read as a rule's label."""
    assert not [line for line in _short(said).content.splitlines() if line.startswith("[")]


@pytest.mark.parametrize(("said", "line"), [
    ("From the team lead: never push to main.", "[permanent] Never push to main."),
    ("My rule: always deploy on Tuesdays.", "[permanent] Always deploy on Tuesdays."),
])
def test_a_rule_the_person_passes_on_is_still_theirs(said, line):
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("We changed the API port to 9090.", "[correction] The API port is now 9090."),
    ("I bumped the Node version to 22.", "[correction] The Node version is now 22."),
    ("The staging port moved to 8443.", "[correction] The staging port is now 8443."),
])
def test_a_setting_changed_to_a_value_is_the_value_it_now_has(said, line):
    """Each was talk, so the old port stayed active: said as the value it now has, it fills the same slot."""
    assert filed(said) == line


def test_a_move_of_something_else_is_not_where_the_person_lives():
    """"I moved the meeting to Friday." was filed as a lasting fact about the person in USER.md."""
    assert filed("I moved the meeting to Friday.") != "[permanent] User moved the meeting to Friday."


def test_what_the_person_does_now_after_what_they_left_is_its_own_statement():
    """"I left Google, now I work at Stripe." was talk: Stripe was lost and Google stayed their employer."""
    extraction = _short("I left Google, now I work at Stripe.")
    assert "[permanent] User works at Stripe now." in extraction.content.splitlines()


def test_rules_after_a_plural_label_and_a_clause_after_a_semicolon_are_read_apart():
    """"Rules: always use pnpm; never commit .env; and the deploy runs on Fridays." lost its first rule to the label
    and filed "Never commit .env; and the deploy runs on Fridays." as one rule."""
    lines = _short("Rules: always use pnpm; never commit .env; and the deploy runs on Fridays.").content.splitlines()
    assert lines[:2] == ["[permanent] Always use pnpm.", "[permanent] Never commit .env."]
    assert not any("Fridays" in line for line in lines if line.startswith("["))


@pytest.mark.parametrize(("said", "lines"), [
    ("## Always ask me before running many tools", ["[permanent] Always ask the user before running many tools."]),
    ("## Rules\n- Always answer in Spanish\n- Never push to main",
     ["[permanent] Always answer in Spanish.", "[permanent] Never push to main."]),
    ("# My preferences\nI live in Lyon and I prefer short answers.",
     ["[permanent] User lives in Lyon.", "[permanent] User prefers short answers."]),
    ("### 规则\n以后所有回复都用中文", ["[permanent] 以后所有回复都用中文。"]),
])
def test_a_heading_opening_a_short_message_is_how_the_person_stresses_it_not_a_document(said, lines):
    """Each was "[skip] small talk": a heading on the first line read as a pasted document's title, all of it left
    out, and the Chinese one consumed unread."""
    assert [line for line in _short(said).content.splitlines() if line.startswith("[")] == lines


@pytest.mark.parametrize(("said", "language"), [("> 永远不要推送到main分支", "zh"),
                                                ("# 部署文档\n## 步骤\n1. 构建镜像\n2. 推送镜像", "zh")])
def test_a_message_in_another_language_all_quoted_or_laid_out_waits_for_a_model(said, language):
    extraction = _short(said)
    assert extraction.for_model == {language: 1} and extraction.content == ""


@pytest.mark.parametrize("said", [
    "Remember to push the branch.", "Remember to call the dentist tomorrow.", "Remember to ping me when you're done.",
    "Remember to push this before you leave.", "Every time I run it, it crashes.",
    "Whenever we deploy, the cache gets cleared.", "Each time I open the app, nothing happens.",
    "I remember to water the plants every day.", "Make sure the tests pass.", "Don't forget about it.",
    "Don't forget to push the branch when you're done.", "When I get back, check the build.",
    "When I asked you to fix it, you broke the tests.",
])
def test_a_reminder_of_one_errand_or_what_happens_every_time_is_no_rule(said):
    assert filed(said) is None


@pytest.mark.parametrize(("said", "line"), [
    ("We'll go with Stripe for payments.", "[durable] Decided to go with Stripe for payments."),
    ("We will use Redis for caching.", "[durable] Decided to use Redis for caching."),
    ("So we'll stick with Postgres.", "[durable] Decided to stick with Postgres."),
    ("Let's use pnpm instead of npm for this repo.", "[durable] Decided to use pnpm instead of npm for this repo."),
])
def test_a_decision_said_in_the_future_or_for_the_project_is_kept(said, line):
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("I will be using Go, without any framework.", "[durable] Decided to use Go, without any framework."),
    ("We'll be using Tailwind, not Bootstrap.", "[durable] Decided to use Tailwind, not Bootstrap."),
    ("I'm going to use Postgres for the main database.", "[durable] Decided to use Postgres for the main database."),
    ("I will use pnpm, not npm.", "[durable] Decided to use pnpm, not npm."),
    ("The backend will be written in Rust.", "[durable] The backend will be written in Rust."),
])
def test_a_choice_of_stack_said_of_what_is_to_come_is_a_decision(said, line):
    """Each was talk (a new-user run: borfast/cooking-times), while the Spanish "Vamos a usar Go …" was filed."""
    assert filed(said) == line


@pytest.mark.parametrize("said", ["We'll use it later.", "We'll go with that one.",
                                  "Let's use this one.", "I'll use Google to look it up.", "I'll use the terminal.",
                                  "I'm going to use the second one.", "The report should be written in plain English."])
def test_a_choice_of_the_moment_is_no_decision(said):
    assert filed(said) is None


@pytest.mark.parametrize(("said", "line"), [
    ("I'm a nurse.", "[permanent] User is a nurse."), ("I'm vegan.", "[permanent] User is vegan."),
    ("I'm from Spain.", "[permanent] User is from Spain."), ("I'm retired.", "[permanent] User is retired."),
    ("I'm a beginner.", "[permanent] User is a beginner."),
    ("I am arnomad, your human.", "[permanent] User is arnomad."),  # a handle, named by who it is to the agent
    ("I like making people laugh, and it's a good forcing function.", "[permanent] User likes making people laugh."),
])
def test_who_the_person_is_in_one_word_is_enough(said, line):
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("I'm diabetic.", "[permanent] User is diabetic."),
    ("I'm lactose intolerant.", "[permanent] User is lactose intolerant."),
    ("I am hard of hearing.", "[permanent] User is hard of hearing."),
    ("I'm colorblind, so avoid red/green charts.", "[permanent] User is colorblind."),
    ("I'm dyslexic, please keep sentences short.", "[permanent] User is dyslexic."),
    ("I'm originally from Brazil.", "[permanent] User is originally from Brazil."),
    ("I've been vegan for 5 years.", "[permanent] User has been vegan for 5 years."),
    ("I have asthma.", "[permanent] User has asthma."),
    ("I have ADHD.", "[permanent] User has ADHD."),
    ("I suffer from migraines.", "[permanent] User suffers from migraines."),
    ("I have type 2 diabetes.", "[permanent] User has type 2 diabetes."),
    ("I also have exercise induced anaphylaxis so it's recommended by my doctor that I don't exercise for 4 hours "
     "after I eat.", "[permanent] User also has exercise induced anaphylaxis."),
    ("My pronouns are they/them.", "[permanent] User's pronouns are they/them."),
    ("I use she/her pronouns.", "[permanent] User uses she/her pronouns."),
    ("I have a five-year-old son.", "[permanent] User has a five-year-old son."),
    ("I was born in 1990.", "[permanent] User was born in 1990."),
    ("I'm the CTO of a small startup.", "[permanent] User is the CTO of a small startup."),
    ("I'm the lead developer at Acme.", "[permanent] User is the lead developer at Acme."),
    ("I'm the CTO.", "[permanent] User is the CTO."),
])
def test_a_lasting_trait_condition_or_position_said_in_few_words_is_who_the_person_is(said, line):
    """Each was small talk or a gist: "I'm diabetic" and "I have asthma" held one word of substance, and only
    "vegan", "retired" and a few more were known to say who someone is."""
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    ("I am a software engineer with 25+ years of experience, give me the adequate level of detail.",
     "[permanent] User is a software engineer with 25+ years of experience."),
    ("I'm a backend developer, keep it short.", "[permanent] User is a backend developer."),
    ("I'm the CTO, use a formal tone.", "[permanent] User is the CTO."),
    ("I live in Berlin, use CET for times.", "[permanent] User lives in Berlin."),
])
def test_who_the_person_is_is_kept_without_the_instruction_after_its_comma(said, line):
    """Filed with the instruction glued on ("…, give them the adequate level of detail.") or lost with it."""
    assert filed(said) == line


@pytest.mark.parametrize("said", ["I'm a bit tired.", "I'm a little confused.", "I'm a mess.", "I'm learning.",
                                  "I'm tired, your honour.", "I'm single-handedly fixing this.",
                                  "I have the ADHD report here.", "I have no allergies.", "I'm the one who broke it.",
                                  "I'm the author of this PR."])
def test_how_much_or_how_the_person_is_now_is_no_identity(said):
    assert filed(said) is None


@pytest.mark.parametrize("text", ["remove config files", "delete the old logs", "send it later"])
def test_a_few_words_opening_with_an_english_verb_are_english_whatever_the_model_guesses(text):
    """"remove config files" waited as Russian: the language model's guess for three words was 0.07 sure."""
    said = make("openai", "s", Said("user", text, "2026-03-24T01:23:00Z"))
    assert not BuiltinExtractor(UTC).extract(Chunk("openai:s", [said])).waiting


def test_what_the_person_cannot_do_right_now_is_no_fact_about_them():
    """Filed as "User still cannots see the message during the processing." in USER.md: a problem of the task."""
    assert filed("I still cannot see the message during the processing.") is None
    assert conjugate("cannot") == "cannot"


def _extracted(*turns: tuple[str, str]):
    said = [make("openai", "s", Said(role, text, f"2026-03-24T01:2{index}:00Z")) for index, (role, text) in
            enumerate(turns)]
    return BuiltinExtractor(UTC).extract(Chunk("openai:s", said))


@pytest.mark.parametrize("turns", [
    [("user", "Peux-tu corriger le bug de connexion ? N'utilise pas de cache.")],
    [("user", "¿Puedes arreglar el error del login? No uses caché.")],
    [("user", "帮我修一下登录的 bug。不要用缓存。")],
    [("user", "ログインのバグを直してください。キャッシュは使わないでください。")],
    [("user", "列表页的布局需要紧凑一些。不要使用过多动画，保证使用的流畅度")],  # a new user's: "the layout needs to …"
    # a request made as a command ("Redesign …") in the person's language
    [("user", "Rediseña el diseño para móvil. No uses demasiadas animaciones.")],
    [("user", "Refais la mise en page. N'utilise pas trop d'animations.")],
    [("user", "Überarbeite das Layout. Keine Animationen verwenden.")],
    [("user", "Melhore o layout. Não use animações demais.")],
    [("user", "Bitte behebe den Timeout im Zahlungsdienst."), ("assistant", "Klar, mache ich."),
     ("user", "Kein Caching verwenden.")],
])
def test_a_bare_rule_said_with_a_request_in_another_language_waits_with_it(turns):
    """Filed in SOUL.md as a standing rule: the English errand's "Avoid caching responses." in other words."""
    extraction = _extracted(*turns)
    assert "[permanent]" not in extraction.content
    assert turns[-1][1] in extraction.waiting


@pytest.mark.parametrize(("turns", "rule"), [
    ([("user", "Peux-tu corriger le bug de connexion ? N'utilise jamais de cache.")], "N'utilise jamais de cache."),
    ([("user", "帮我修一下登录的 bug。以后不要用缓存。")], "以后不要用缓存。"),
    ([("user", "Bitte behebe den Timeout."), ("assistant", "Klar. " + "Ich habe den Timeout erhöht. " * 12),
      ("user", "Kein Caching verwenden.")], "Kein Caching verwenden."),  # feedback after the work is shown
])
def test_a_rule_that_says_it_lasts_or_follows_the_work_shown_is_filed(turns, rule):
    assert f"[permanent] {rule}" in _extracted(*turns).content


@pytest.mark.parametrize(("said", "line"), [
    ("my name's Priya", "[permanent] User's name is Priya."),
    ("My dog's called Rex.", "[permanent] User's dog is called Rex."),
    ("My wife's name is Ana.", "[permanent] User's wife's name is Ana."),  # whose, not "is"
    ("Hi there, I'm Priya, nice to meet you", "[permanent] User is Priya."),
    ("From now please respond to me in Japanese.", "[permanent] Respond to the user in Japanese."),
    ("From now on please also respond to me in Japanese.", "[permanent] Respond to the user in Japanese."),
    ("from now on no more emojis pls", "[permanent] No more emojis."),
    ("quick thing before we start: from now on, write all commit messages in English.",
     "[permanent] Write all commit messages in English."),
])
def test_how_people_type_a_name_or_a_standing_rule_is_read(said, line):
    """Each was small talk, talk, or filed with its "also" or "pls" (and so in the wrong file)."""
    assert filed(said) == line


def test_nice_to_meet_you_alone_is_still_small_talk():
    assert filed("Nice to meet you!") is None and filed("in 5 minutes from now remind me") is None


@pytest.mark.parametrize("pasted", [
    'Error response from daemon: Conflict. The container name "/web" is already in use by container "3f9a1c2b7d4e".',
    'docker: Error response from daemon: pull access denied for acme/api.',
    'Error from server (NotFound): pods "web-0" not found',
])
def test_a_pasted_docker_or_kubectl_error_is_never_a_fact(pasted):
    """Filed in MEMORY.md as "(date) The container name "/health_ocr_frontend" is already in use by …"."""
    extraction = _extracted(("user", pasted))
    assert "[durable]" not in extraction.content and "[permanent]" not in extraction.content


@pytest.mark.parametrize("said", ["The goal is to determine how much Id have for retirement.",
                                  "The plan is to migrate everything to Fly.io in May."])
def test_a_word_that_stands_for_what_was_just_said_names_nothing_to_keep(said):
    """"The goal is …" out of an app's description was filed in MEMORY.md, where it reads as the person's own goal."""
    assert filed(said) is None
    assert filed("The Goal service runs on Fly.io.") is not None  # a name, capitalised


@pytest.mark.parametrize("said", ["No external dependencies are desired.", "No direct pushes to main are allowed."])
def test_a_thing_said_to_be_unwanted_is_kept_and_no_small_talk(said):
    """"No external dependencies are desired." was "[skip] small talk": it opens with "No"."""
    assert filed(said) == f"[permanent] {said}"


@pytest.mark.parametrize("said", ["No changes are needed.", "No errors in the log.", "No worries at all."])
def test_an_answer_or_how_things_stand_opening_with_no_is_still_nothing(said):
    assert filed(said) is None


# From a new user's public transcripts: clear keepers that were small talk or a gist, and junk that was filed.
@pytest.mark.parametrize(("said", "line"), [
    ("I'm Sarah Chen.", "[permanent] User is Sarah Chen."),  # a full name, not small talk
    ("I'm HTET ARKAR KYAW", "[permanent] User is HTET ARKAR KYAW."),
    ("You are Max.", "[permanent] Your name is Max."), ("You're Nebula.", "[permanent] Your name is Nebula."),
    ("Remember not to add secrets to the code.", None),  # read by the language file: see the next test
    ("If I ask for a draft, keep it under 100 words.",
     "[permanent] If they ask for a draft, keep it under 100 words."),
    ("Whenever I say backup, run the backup script.",
     "[permanent] Whenever they say backup, run the backup script."),
    ("Write all posts in Burmese.", "[permanent] Write all posts in Burmese."),
    ("Post in Burmese language.", "[permanent] Post in Burmese language."),
])
def test_a_name_a_conditional_rule_and_a_publishing_language_are_kept(said, line):
    assert filed(said) == line


@pytest.mark.parametrize("said", [
    "I have 300 euros in my account, buy the cheapest flight", "We have 12 open tickets.", "We have 2USDC balance.",
    "so we only have one file to change",  # how things stand this minute
    "Suggest updates for the CTA.", "Propose names for the landing page.",  # a request, no fact
    "You're welcome!", "You are right.", "I'm Going Home",  # no name
    "If I get back late, remind me.",  # no habit of asking: one evening's errand
])
def test_a_count_of_the_moment_a_request_or_a_word_to_the_agent_is_no_fact(said):
    assert filed(said) is None


def test_remember_not_to_is_a_rule_unless_it_names_the_work_at_hand():
    """"Remember not to add secrets to the code." was a gist beside a filed "Remember not to push to main.": any
    "the" in it was read as a statement's subject. "the file" still names one piece of work."""
    english = statements.language("en")
    kept = statements.statement("Remember not to add secrets to the code.", english)
    assert kept is not None and kept.kind == statements.RULE
    assert statements.statement("Remember not to delete the file.", english) is None
    assert statements.statement("For future reference, the build is slow.", english) is None


@pytest.mark.parametrize("said", ["Option A", "Q1: A, Q2: B", "Let's go with 2 and tweak the subhead",
                                  "ok, let's go with option 1", "I like the second one", "B, but make it blue"])
def test_an_answer_to_the_agents_options_waits_for_a_model(said):
    """A new user's spec answers ("Opción A" and "Q1: A, Q2: B" in another language) were consumed as small talk:
    only a model that sees what was offered can read them, as they wait in every other language."""
    extraction = BuiltinExtractor(UTC).extract(Chunk("openai:s", [make("openai", "s", Said("user", said))]))
    assert extraction.for_model == {"en": 1} and said.split()[0] in extraction.waiting
    assert not [line for line in extraction.content.splitlines() if line.startswith("[")]


@pytest.mark.parametrize("said", ["Let's use Postgres.", "Both work for me.", "All good, thanks!"])
def test_a_choice_that_names_its_thing_or_only_agrees_does_not_wait(said):
    assert BuiltinExtractor(UTC).extract(Chunk("openai:s", [make("openai", "s", Said("user", said))])).for_model == {}


@pytest.mark.parametrize("said", ["I had a thought last night.", "I had a new idea yesterday.",
                                  "We came up with an idea on Monday.",
                                  "Now I want to do a loading state on the transactions list."])  # a wish, now
def test_a_thought_had_at_some_time_is_no_event(said):
    """"I had a thought last night." was filed as "User had a thought on the night of 9 November 2026.": what the
    thought was comes next, for this conversation."""
    assert filed(said) is None


@pytest.mark.parametrize(("said", "rule"), [
    ("Do not change source files. Update the tests instead.", None),
    ("Don't touch the source files, we only need to update the tests.", None),
    ("Don't add comments. Just fix the bug.", None),
    ("Don't use npm. Use pnpm instead.", "[permanent] Don't use npm."),  # no work asked: a tool chosen, it stands
    ("Don't use tabs. Use spaces.", "[permanent] Don't use tabs."),
])
def test_a_bare_dont_answered_by_the_work_to_do_instead_is_that_errands(said, rule):
    """A new user's "DO NOT CHANGE SOURCE FILES, we only need to update the tests" was filed as a standing rule."""
    extraction = BuiltinExtractor(UTC).extract(Chunk("openai:s", [make("openai", "s", Said("user", said))]))
    rules = [line for line in extraction.content.splitlines() if line.startswith("[permanent]")]
    assert rules == ([rule] if rule else [])


@pytest.mark.parametrize(("said", "lines"), [
    ("gmail, security rule- do not send an email without approval",
     ["[permanent] Do not send an email without approval."]),
    ("I use Zoho mail, rule - never send an email without my approval",
     ["[permanent] User uses Zoho mail.", "[permanent] Never send an email without the user's approval."]),
])
def test_a_rule_after_a_label_inside_a_sentence_is_the_rule(said, lines):
    """A new user's run-on "gmail, security rule- do not send an email without approval" was a gist, and "…, rule -
    never send …" was filed in USER.md as part of what the person uses."""
    extraction = BuiltinExtractor(UTC).extract(Chunk("openai:s", [make("openai", "s", Said("user", said))]))
    assert [line for line in extraction.content.splitlines() if line.startswith("[")] == lines


@pytest.mark.parametrize("said", ["I learned that budgeting actually creates a money movement entity.",
                                  "I learnt about the retry logic from the logs."])
def test_what_the_person_just_learned_is_no_part_of_who_they_are(said):
    assert filed(said) is None


@pytest.mark.parametrize("said", ["早上好", "晚上好", "お願い", "よろしくお願いします", "おはようございます",
                                  "부탁해요"])
def test_a_greeting_or_a_please_alone_is_small_talk_not_a_message_for_a_model(said):
    """"早上好" and "お願い" waited for a model: a model run read a greeting."""
    assert BuiltinExtractor(UTC).extract(Chunk("openai:s", [make("openai", "s", Said("user", said))])).for_model == {}


@pytest.mark.parametrize("said", [
    "Remember that when I say my calendar I mean the Google calendar.",
    "Please remember this; when I say my calendar I mean the Google calendar.",
    "Add this to your memory: the staging box reboots at midnight.",
    "Keep that in mind, the invoices go out on the first Monday.",
])
def test_what_the_person_asks_to_keep_and_no_rule_reads_waits_for_a_model(said):
    """A new user's "Remember that when I say my calendar I mean the Google calendar." was consumed as a gist's
    words: a model reads what the person asked to keep; a gist would lose it for good."""
    extraction = _short(said)
    assert extraction.for_model == {"en": 1} and f"> {said}" in extraction.waiting
    assert "calendar" not in extraction.content and "staging" not in extraction.content


@pytest.mark.parametrize("said", ["Always use pnpm. Remember this.", "Remember that bug from yesterday?",
                                  "Speed is important for us."])
def test_a_reminder_already_filed_a_question_or_one_common_word_does_not_wait(said):
    assert _short(said).for_model == {}


@pytest.mark.parametrize("said", ["I have run the commands.", "We have done the migration.",
                                  "I have come back from the office."])
def test_what_the_person_has_just_done_is_no_lasting_fact(said):
    """"User has run the commands." reached USER.md: "run", "done", "come" are participles like "set"."""
    assert classify(said) is None


@pytest.mark.parametrize("said", ["I go now and I'll let you know what we discuss.", "Do you know my address?",
                                  "If you know Rust, help me port it."])
def test_you_know_is_no_filler_where_something_is_to_be_known(said):
    """"… let you know what we discuss" was read without "you know" and filed as "User … let what we discuss"."""
    assert "you know" in plain(said)


@pytest.mark.parametrize(("said", "lines"), [
    # new users' names, consumed as a gist's words
    ("My name is Tom Baker, you can call me Tom.",
     ["[permanent] User's name is Tom Baker.", "[permanent] User's preferred name is Tom."]),
    ("hi my name is mateusz and you know me very well.", ["[permanent] User's name is mateusz."]),
    ("My name is Ana, nice to meet you!", ["[permanent] User's name is Ana."]),
    ("i am calling you luna you can call me Mati",
     ["[permanent] Your name is luna.", "[permanent] User's preferred name is Mati."]),
])
def test_a_name_said_with_more_after_it_is_still_the_name(said, lines):
    assert [line for line in _short(said).content.splitlines() if line.startswith("[")] == lines


@pytest.mark.parametrize("said", ["my name is not important", "My email is private.",
                                  "Can you please call me tomorrow?"])
def test_a_detail_the_person_does_not_give_names_nothing(said):
    assert not [line for line in _short(said).content.splitlines()
                if line.startswith("[") and not line.startswith("[skip]")]


@pytest.mark.parametrize(("said", "line"), [
    # new users' decisions, rules and corrections, consumed as a gist's words
    ("Let's use pnpm, since it is faster than npm.", "[durable] Decided to use pnpm, since it is faster than npm."),
    ("Let's use Redis for the cache because it is simple.",
     "[durable] Decided to use Redis for the cache because it is simple."),
    ("Use work@example.com for Google Workspace from now on, not my main email.",
     "[permanent] Use work@example.com for Google Workspace, not the user's main email."),
    ("Use pnpm from now on, not npm.", "[permanent] Use pnpm, not npm."),
    ("I don't want you to delete the xlsx files.", "[permanent] Don't delete the xlsx files."),
    ("I have a new job at SAP now.", "[permanent] User works at SAP."),
    ("We should never push to main.", "[permanent] Never push to main."),
    ("we should avoid using the DRA abbreviation in the docs",
     "[permanent] Avoid using the DRA abbreviation in the docs."),
    ("I use `direnv` to set up my shell.", "[permanent] User uses direnv to set up their shell."),
    ("I started a new job with Acme Corp.", "[permanent] User works at Acme Corp."),
])
def test_a_decision_with_its_reason_a_rule_with_what_it_replaces_and_a_new_job_are_read(said, line):
    assert filed(said) == line


@pytest.mark.parametrize("said", ["Let's keep it, since it works.", "Let's use this library for now, since it works.",
                                  "I don't want you to worry.", "It will rain from now on, not snow.",
                                  "We should never have used Redis.", "I always run `rm -rf /tmp/x` first."])
def test_a_reason_does_not_make_the_work_at_hand_a_decision_nor_a_feeling_a_rule(said):
    assert filed(said) is None


def test_a_new_job_replaces_the_employer_before_it(tmp_path):
    profile = _dreamed(tmp_path, "I work at Siemens as a backend developer.", "I have a new job at SAP now.")
    assert "User works at SAP." in profile and "Siemens" not in profile


@pytest.mark.parametrize(("said", "line"), [
    # a new user's OpenClaw chat: "I don't want long boring detail, straight to the point" was consumed as a gist
    ("I don't want long answers.", "[permanent] User doesn't want long answers."),
    ("I don't want long boring detail, straight to the point", "[permanent] User doesn't want long boring detail."),
    ("I do not want emojis.", "[permanent] User does not want emojis."),
])
def test_not_wanting_a_kind_of_thing_is_a_preference(said, line):
    assert filed(said) == line


@pytest.mark.parametrize("said", ["I don't want it.", "I don't want the modal to close.",
                                  "I don't want to deploy today.", "I don't want this one."])
def test_not_wanting_this_thing_or_an_errand_is_no_preference(said):
    assert filed(said) is None or "User doesn't want" not in filed(said)


@pytest.mark.parametrize(("said", "line"), [
    ("I became a team lead.", "[permanent] User became a team lead."),
    ("I just got promoted to staff engineer.", "[permanent] User just got promoted to staff engineer."),
])
def test_a_new_trade_is_the_persons(said, line):
    assert filed(said) == line


@pytest.mark.parametrize("said", ["I became a father.", "I became a fan of Rust.", "I got promoted to level 3."])
def test_becoming_what_is_no_trade_is_not_read_as_one(said):
    assert filed(said) is None or "[permanent]" not in filed(said)


def test_a_new_trade_replaces_the_one_before_it(tmp_path):
    profile = _dreamed(tmp_path, "I'm a QA engineer.", "I became a team lead.")
    assert "User became a team lead." in profile and "QA engineer" not in profile


@pytest.mark.parametrize(("said", "line"), [
    ("I tell my students to read every day.", "[permanent] User tells their students to read every day."),
    ("We show ads on the landing page.", "[durable] We show ads on the landing page."),
    ("On office days I'll leave 8:30 and be home by 7 pm.",  # a time's colon ends no clause
     "[durable] (2023-05-08) User will leave 8:30 and be home by 7 pm on office days."),
])
def test_a_habit_of_saying_the_teams_doing_and_a_time_with_a_colon_are_still_read(said, line):
    assert filed(said) == line


@pytest.mark.parametrize(("said", "line"), [
    # a third new-user run's keepers, consumed as a gist's words
    ("New rule: no external visitors on Fridays after 3pm.", "[permanent] No external visitors on Fridays after 3pm."),
    ("Remember a new rule for me: no deploys after 5pm.", "[permanent] No deploys after 5pm."),
    ("The company I work for is L&S Electric what if I wanted it to say that",
     "[permanent] User works at L&S Electric."),
    ("The firm I work at is Deloitte.", "[permanent] User works at Deloitte."),
    ("I'm currently living in Wausau.", "[permanent] User lives in Wausau."),
    ("I'd love it if you used metric units", "[permanent] Use metric units."),
    ("I would like it if you always answered in German.", "[permanent] Always answer in German."),
    ("Whenever you back up the vault: first stop the gateway, then run the backup, then push it.",
     "[permanent] Whenever you back up the vault: first stop the gateway, then run the backup, then push it."),
])
def test_a_rule_announced_where_the_person_works_and_a_wish_are_read(said, line):
    assert filed(said) == line


@pytest.mark.parametrize("said", ["New rule: this file stays as it is.", "I'd like it if you were happier.",
                                  "The company I work for is great."])
def test_an_announced_rule_about_the_work_at_hand_and_a_feeling_are_no_rule(said):
    assert filed(said) is None


@pytest.mark.parametrize("said", ["You don't need to remember Clash Party anymore, forget it.",
                                  "Forget that I live in Berlin.", "Please forget my old address.",
                                  "You're too verbose.", "Feel free to use a few emojis.",
                                  "But not too many emojis!!!"])
def test_a_retraction_or_feedback_on_how_the_agent_talks_waits_for_a_model(said):
    """Consumed as a gist's words: the rules cannot take a line back, nor say how the agent should change."""
    extraction = _short(said)
    assert extraction.for_model == {"en": 1} and f"> {said}" in extraction.waiting


@pytest.mark.parametrize("said", ["I forgot my keys at home.", "You are so helpful, thanks!",
                                  "You can close the ticket now."])
def test_forgetting_something_oneself_praise_and_leave_for_one_errand_do_not_wait(said):
    assert _short(said).for_model == {}


def _dreamed(tmp_path, *said: str) -> str:
    """The person's messages, one session: ingest and one built-in run; the three files' lines."""
    from nanodream import api

    path = tmp_path / "chat.json"
    turns = [turn for text in said
             for turn in ({"role": "user", "content": text}, {"role": "assistant", "content": "ok"})]
    path.write_text(json.dumps(turns), encoding="utf-8")
    api.init(tmp_path / "ws")
    api.ingest(tmp_path / "ws", [path])
    api.run(tmp_path / "ws")
    return "\n".join((tmp_path / "ws" / name).read_text(encoding="utf-8")
                     for name in ("USER.md", "SOUL.md", "memory/MEMORY.md"))


@pytest.mark.parametrize(("before", "after", "old", "new"), [
    ("I'm in the Europe/Berlin timezone.", "My timezone changed to America/Chicago.", "Europe/Berlin",
     "America/Chicago"),
    ("My email is nora@old.example.", "I changed my email to nora@new.example.", "nora@old.example",
     "nora@new.example"),
    ("My phone number is 555-1234.", "I've updated my phone number to 555-9876.", "555-1234", "555-9876"),
    ("Our default branch is master.", "We changed the default branch to main.", "master", "main"),
    ("Our backend runs on Python 3.11.", "We bumped the Python version to 3.12.", "3.11", "Python 3.12"),
    ("We use Node 18 for the frontend.", "We upgraded Node to 22.", "Node 18", "Node 22"),
    ("The worker image ships Ruby 3.2.", "I've moved to Ruby 3.3.", "3.2", "Ruby 3.3"),
    ("We use Jenkins for CI.", "We use GitHub Actions for CI now.", "Jenkins", "GitHub Actions"),
    ("Our beta deadline is March 3.", "Sorry, the beta deadline is March 10.", "March 3", "March 10"),
    # a probe's: the team's tool named alone was talk, and "now" on it said no new version; "now due on" no value
    ("We use Django 4.2.", "We're on Django 5.1 now.", "4.2", "Django 5.1"),
    ("We run Postgres 15.4.", "We use Postgres 16.2 now.", "15.4", "Postgres 16.2"),
    ("Our MVP is due on October 1.", "The MVP is now due on October 20.", "October 1.", "October 20"),
    ("My editor is Neovim.", "My editor is now VS Code.", "Neovim", "VS Code"),
])
def test_a_value_said_to_have_changed_replaces_the_old_one(tmp_path, before, after, old, new):
    """Each left the old value active: "changed to" with "my", a lower-case value ("main") or a setting the
    person has (email, phone) was talk; "We use X for CI" filled no slot ("we" named no subject); a value restated
    after "Sorry," was filed as a new fact beside the old, apology and all."""
    memory = _dreamed(tmp_path, before, after)
    assert new in memory and old not in memory


@pytest.mark.parametrize("moved", ["I moved to a new team.", "I moved to a management role.",
                                   "I moved to Python 3.12 last week.", "I've moved to the night shift.",
                                   "I moved to the Berlin office."])
def test_a_move_to_something_that_is_no_place_keeps_where_the_person_lives(tmp_path, moved):
    """Each replaced "User lives in Adelaide.": a move to anything read as a move of home."""
    assert "User lives in Adelaide." in _dreamed(tmp_path, "I live in Adelaide.", moved)


@pytest.mark.parametrize(("said", "lines"), [
    ("My name is Katherine, but call me Kat.",
     ["[permanent] User's name is Katherine.", "[permanent] User's preferred name is Kat."]),
    ("I'm Katherine but everyone calls me Kat.",
     ["[permanent] User is Katherine.", "[permanent] User's preferred name is Kat."]),
    ("My name is Alexander, friends call me Sasha.",
     ["[permanent] User's name is Alexander.", "[permanent] User's preferred name is Sasha."]),
    ("Please call me Kate from now on.", ["[permanent] User's preferred name is Kate."]),
])
def test_the_name_the_person_goes_by_is_kept_beside_their_name_in_user_md(said, lines):
    """The first three kept the name and lost the one they go by ("I'm Katherine but everyone calls me Kat." lost
    both); the last was a rule in SOUL.md, "Call the user Kate.", where "Call me Kate." is their preferred name."""
    assert [line for line in _short(said).content.splitlines() if line.startswith("[")] == lines


def test_what_the_team_uses_for_one_purpose_leaves_what_it_uses_for_another(tmp_path):
    memory = _dreamed(tmp_path, "We use Jenkins for CI.", "We use Grafana for dashboards.",
                      "We use Buildkite for CI now.")
    assert "Grafana" in memory and "Buildkite" in memory and "Jenkins" not in memory
