"""Structure before phrasing (text/structure.py): what a person pastes is told by its shape and never read as prose;
a `Key: value` block and a list of fragments are read whole."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nanodream.text.sentences import sentences
from nanodream.text.structure import key_value, key_values, pasted, program_line

PROGRAM_LINES = [
    "Traceback (most recent call last):",
    '  File "/srv/app/worker.py", line 88, in handle',
    "  File pandas/_libs/parsers.pyx:812, in pandas._libs.parsers.TextReader.read",
    "KeyError: 'customer_id'",
    "sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not connect",
    "    at processTicksAndRejections (node:internal/process/task_queues:95:5)",
    "    at Object.<anonymous> (/home/dev/site/build.mjs:14:9)",
    "\tat com.acme.billing.Invoice.total(Invoice.java:57)",
    "panic: runtime error: index out of range [3] with length 3",
    "goroutine 1 [running]:",
    "error[E0382]: borrow of moved value: `cfg`",
    "  --> src/config.rs:41:17",
    "2025-11-03T08:14:22.512Z INFO  server listening on :8080",
    "[2025-11-03 08:14:22] ERROR payment webhook timed out",
    "[WARN] disk usage at 91%",
    "INFO:uvicorn.error:Started server process",
    "$ cargo build --release",
    "dev@box:~/proj$ make test",
    "PS C:\\Users\\dev> npm install",
    "diff --git a/app/models.py b/app/models.py",
    "@@ -12,7 +12,8 @@ class Invoice:",
    "Collecting fastapi==0.111.0",
    "Successfully installed anyio-4.4.0 fastapi-0.111.0",
    "Requirement already satisfied: idna in ./.venv/lib/python3.12/site-packages",
    "added 1297 packages, and audited 1298 packages in 41s",
    "found 0 vulnerabilities",
    "npm WARN deprecated inflight@1.0.6: This module is not supported",
    "Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]",
    "✔ Would you like to use Tailwind CSS? … No / Yes",
    "│ ◇  Select a framework › React",
    " 62%|██████▏   | 62/100 [00:03<00:02, 18.4it/s]",
    "Do you want to continue? [Y/n]",
    "=========== 2 failed, 31 passed in 4.12s ===========",
    "Unhandled exception. System.IO.FileNotFoundException: Could not find file 'C:\\data\\in.csv'.",
    "   at Billing.Import.CsvReader.Open(String path) in D:\\repo\\Billing\\CsvReader.cs:line 31",
    "TASK [install packages] *******************************************************",
    "Resolving dependencies... (3.4s)",
    "Performing system checks...",
    "ALTER TABLE invoices ADD COLUMN paid_at timestamptz;",
    "CREATE UNIQUE INDEX invoices_number ON invoices (number);",
    # a command typed with its flags ("-y" read as Greek made it wait for a model)
    "npx skills add foo -g -y", "apt install curl -y", "git commit -m fix -a", "conda create -n env python=3.10 -y",
    # a log's line with its fields in parentheses (OpenClaw's "Exact completion details:")
    "Exec finished (gateway id=772ebb0a, session=fresh-nudibranch, code 0)",
    "Connection refused (host=10.0.0.5, port=5432, code 111)",
    # a tool's tally, filed as a dated project fact in a probe: Poetry's, and a test runner's
    "Package operations: 3 installs, 0 updates, 0 removals", "Tests: 10 passed, 2 failed, 12 total",
]

PROSE_LINES = [
    "I agree 100%, the old design was slower.",
    "at 10:30 we have the standup, so keep it short",
    "File a bug upstream when you find one.",
    "Note: the production server is in Frankfurt.",
    "Info for later: my manager is Ana.",
    "$5 a month is fine for the VPS.",
    "We decided to use Postgres: it is what the team knows.",
    "- I prefer short commit messages",
    "Error handling in this project is done with Result types.",
    "I live in Berlin and work at a bakery.",
    "PLEASE NEVER FORCE PUSH TO MAIN.",
    "I was thinking about moving the API to Go...",
    "Create a table of the invoices paid last month.",
    "Use the client with (timeout=30, retries=3) from now on.",
    "Always use the client (timeout=30, retries=3)",
    "Use git commit -a to skip staging.", "Always run npm install --frozen-lockfile first.",
    "git push -f 用不了",  # a person's words after the command: not the program's
    "Team: 3 engineers, 2 designers", "I have 2 cats, 3 dogs.",  # counts, not a tool's tally
]


@pytest.mark.parametrize("line", PROGRAM_LINES)
def test_a_line_a_program_wrote_is_told_by_its_shape(line):
    assert program_line(line)


@pytest.mark.parametrize("line", PROSE_LINES)
def test_a_persons_sentence_is_not_taken_for_a_programs_line(line):
    assert not program_line(line)


_NAME = st.text(string.ascii_lowercase + "_", min_size=2, max_size=10)


@given(folder=_NAME, module=_NAME, number=st.integers(1, 9999), function=_NAME)
def test_any_python_frame_or_exception_is_structure(folder, module, number, function):
    assert program_line(f'  File "/{folder}/{module}.py", line {number}, in {function}')
    assert program_line(f"  File {folder}/{module}.pyx:{number}, in {module}.{function}")
    assert program_line(f"{module.title().replace('_', '')}Error: {function} failed")


def test_a_paste_spans_its_paragraph_from_the_first_program_line_to_the_last_and_the_persons_words_stay():
    message = ["When I run the import I get this:", "", "Traceback (most recent call last):",
               '  File "/srv/app/load.py", line 12, in <module>', "    rows = read(path)",
               "Some prose-looking line the tool printed", "ValueError: bad header", "", "Can you look?"]
    assert pasted(message) == {2, 3, 4, 5, 6}
    said = list(sentences("\n".join(message)))
    assert said == ["When I run the import I get this:", "Can you look?"]


def test_a_tools_notice_inside_its_output_is_output_and_what_follows_is_the_persons():
    message = ("$ npx create-next-app@latest\n✔ Would you like to use TypeScript? … No / Yes\n"
               "Telemetry (helps us improve the product)\nYou may opt out at any time.\n"
               "added 312 packages, and audited 313 packages in 24s\nfound 0 vulnerabilities\n"
               "That is what I got. I work at Acme as a frontend developer.")
    assert list(sentences(message)) == ["That is what I got.", "I work at Acme as a frontend developer."]


def test_a_diff_is_structure_whole_but_a_list_is_not():
    diff = ["diff --git a/x.py b/x.py", "@@ -1,2 +1,2 @@", "-import os", "+import sys", " print(1)"]
    assert pasted(diff) == {0, 1, 2, 3, 4}
    # a hunk without its file header: its context lines are the diff's too ("Always use pnpm" was filed)
    assert pasted(["@@ -1,2 +1,2 @@", "-I live in Boston", "+I live in New York", " Always use pnpm"]) == {0, 1, 2, 3}
    assert pasted(["Things I like:", "- tea", "- long walks"]) == set()


def test_key_value_lines_and_their_block():
    assert key_value("Twitter: @ada_dev") == ("Twitter", "@ada_dev")
    assert key_value("- **GitHub**: ada-dev") == ("GitHub", "ada-dev")
    assert key_value("We decided to use Postgres: it is what we know.") is None  # a sentence, not a key
    blocks = key_values(["My details:", "Twitter: @ada_dev", "Wallet: 0x52908400098527886E0F7030069857D2E4169EE7",
                         "Deadline: 14 March", "", "Thanks!"])
    assert len(blocks) == 1 and blocks[0].lead == "My details:" and blocks[0].lines == (1, 2, 3)
    assert [key for key, _ in blocks[0].pairs] == ["Twitter", "Wallet", "Deadline"]
    assert key_values(["Twitter: @ada_dev"]) == []  # one line is a sentence's business


def test_a_list_of_fragments_is_one_text_with_its_lead_and_a_list_of_statements_is_not():
    joined = list(sentences("The vault account stores:\n- owner key\n- asset id\n- price\n- status flag"))
    assert joined == ["The vault account stores: owner key, asset id, price, status flag"]
    apart = list(sentences("About me:\n- I prefer short commit messages\n- I have a dog named Bruno"))
    assert apart == ["About me:", "I prefer short commit messages", "I have a dog named Bruno"]


def test_a_list_typed_on_one_line_is_a_list_and_an_abbreviation_is_no_sentence_of_its_own():
    from nanodream.text.sentences import statement_lists

    typed = "1. Eggs or yogurt for breakfast, 2. I love chocolate, 3. Allergic to nuts and fruits"
    items = ["Eggs or yogurt for breakfast", "I love chocolate", "Allergic to nuts and fruits"]
    assert list(sentences(typed)) == items and statement_lists(typed) == [items]
    assert list(sentences("It took 1.5 hours, 2. Then we left.")) == ["It took 1.5 hours, 2.", "Then we left."]
    assert list(sentences("Send the plan daily, i.e. a 30 min walk.")) == ["Send the plan daily, i.e. a 30 min walk."]


def test_the_bot_a_group_message_is_addressed_to_is_not_part_of_it():
    from nanodream.text.structure import the_persons_words

    assert the_persons_words("@_user_1 stop 不要再发笑话了") == "stop 不要再发笑话了"
    assert the_persons_words("@helper, @ops: always answer in German") == "always answer in German"
    assert the_persons_words("write to ana@example.com") == "write to ana@example.com"
    assert the_persons_words("[Anna Smith] I prefer short answers.") == "I prefer short answers."
    assert the_persons_words("[Nick] @helper always answer in German") == "always answer in German"
    assert the_persons_words("[link](https://x.org) is down") == "[link](https://x.org) is down"
    assert the_persons_words('@app.get("/")\ndef index(): ...').startswith("@app.get")  # code keeps its decorator


def test_what_the_harness_wrote_into_the_persons_turn_is_not_theirs():
    from nanodream.text.structure import the_persons_words

    assert the_persons_words("[System: subagent] [Subagent 'Plan tomorrow' completed successfully]\n\nTask: …") == ""
    assert the_persons_words("OpenClaw runtime context (internal):\nThis context is runtime-generated, not "
                             "user-authored.\n[Internal task completion event]") == ""
    assert the_persons_words("Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. If nothing "
                             "needs attention, reply HEARTBEAT_OK.") == ""
    assert the_persons_words("System: [14:02:11 UTC] Exec completed (code 0) :: done\n\nvoilà, c'est fait\n"
                             "[message_id: 3EB0FEE3856C04]") == "\nvoilà, c'est fait"


@pytest.mark.parametrize("poll", [
    "System: [2026-03-31 20:19:47 GMT+8] Gateway restart update ok (npm)\nSystem: Run: openclaw doctor\n\nRead "
    "HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old tasks from prior "
    "chats. If nothing needs attention, reply HEARTBEAT_OK.\nCurrent time: Tuesday, March 31st, 2026 — 8:19 PM",
    "Self-Improving Check: Read ./skills/self-improving/heartbeat-rules.md, use ~/self-improving/state.md for "
    "markers. If no changes, return HEARTBEAT_OK.",
    "Check the inbox and the calendar.\nIf nothing needs attention, reply with just: HEARTBEAT_OK",
    "[Tue 2026-03-31 19:49 GMT+8] [Subagent Context] You are running as a subagent (depth 1/1). Results "
    "auto-announce to your requester.\n\n[Subagent Task]: 创建天气助手Agent，每天8点执行",
    "A new session was started via /new or /reset. Run your Session Startup sequence - read the required files "
    "before responding to the user. Then greet the user in your configured persona.",
    "[cron:3c148808-8956-4d6b-95a5-1061bd9c2a12 nightly-extraction] Nightly memory extraction. Review today's "
    "conversations. Extract durable facts. Always commit and push the memory files.",
    # OpenClaw's memory flush before compaction, and one configured in other words: a silent turn ("NO_REPLY")
    "Pre-compaction memory flush. Store durable memories only in memory/2026-03-28.md. Do NOT create timestamped "
    "variant files; always use the canonical 2026-03-28.md filename. If nothing to store, reply with NO_REPLY.",
    "Context is about to be compacted. Always write lasting facts to memory/notes.md. If there is nothing to save, "
    "reply NO_REPLY.",
])
def test_a_heartbeat_a_subagent_task_a_session_start_or_a_cron_prompt_is_the_harness_whole(poll):
    """A heartbeat poll after event lines ("System: …"), or one saying "return HEARTBEAT_OK" later on, left its
    instructions ("Do not infer or repeat old tasks from prior chats.") to be filed in SOUL.md as the person's."""
    from nanodream.text.structure import the_persons_words

    assert the_persons_words(poll) == ""


def test_a_person_speaking_of_the_heartbeat_or_a_subagent_is_still_heard():
    from nanodream.text.structure import the_persons_words

    for said in ("Never reply HEARTBEAT_OK when a payment failed overnight.",
                 "Always use a subagent for long research tasks.", "[cron] jobs should run at night, not at noon."):
        assert the_persons_words(said) == said


def test_a_reminder_or_a_background_task_the_harness_relays_is_not_the_persons_turn():
    from nanodream.text.structure import the_persons_words

    assert the_persons_words("A scheduled reminder has been triggered. The reminder content is:\n\n写今天的日报\n\n"
                             "Please relay this reminder to the user in a helpful and friendly way.") == ""
    assert the_persons_words('A background task "list skills" just completed successfully.\n\nFindings:\nNone.\n\n'
                             "Stats: runtime 4s • tokens 4.8k") == ""
    said = "A background task that runs nightly should email me the report."
    assert the_persons_words(said) == said


def test_a_line_recurring_in_different_messages_is_the_harnesss_and_a_message_sent_twice_is_not():
    from nanodream.text.structure import recurring_lines, the_persons_words

    note = "To send an image back, prefer the message tool; absolute paths are blocked."
    first, second = f"[media attached: a.png]\n{note}\nlook at this chart", f"{note}\n  and this one please"
    again = "Always answer in British English, even when I write in French."
    recurring = recurring_lines([first, second, again, again, "ok", "ok"])
    assert recurring == frozenset({note})  # "ok" is too short to tell; `again` is one message sent twice
    assert the_persons_words(first, recurring) == "look at this chart"  # the attachment's line is the harness's too
    assert the_persons_words(f"  {'  '.join(note.split(' ', 1))}  ", recurring) == ""  # spacing aside


def test_the_outcome_of_a_command_the_person_approved_earlier_is_the_harnesss():
    """OpenClaw hands it to the agent in the person's turn: its "Exact completion details:" went into MEMORY.md."""
    from nanodream.text.structure import the_persons_words

    for outcome in ("completed.\nDo not run the command again.\n\nExact completion details:\nExec finished "
                    "(gateway id=860ccc19, session=faint-meadow, code 0)\n\nReply to the user in a helpful way.",
                    "did not run.\nThere is no new command output.\n\nExact completion details:\nExec denied "
                    "(gateway id=d4996b57, approval-timeout)"):
        prefix = "An async command " + ("the user already approved has " if outcome.startswith("completed") else "")
        assert the_persons_words(f"[Thu 2026-04-02 11:38 GMT+8] {prefix}{outcome}") == ""


def test_openclaws_note_after_a_run_the_person_stopped_is_the_harnesss():
    """It waited with the person's Chinese rule, and an English message's topic was the note, not the request."""
    from nanodream.text.structure import the_persons_words

    note = "Note: The previous agent run was aborted by the user. Resume carefully or ask for clarification."
    assert the_persons_words(f"{note}\n\n以后都用中文回答。").strip() == "以后都用中文回答。"
    assert the_persons_words("Note: the build was slow today.") == "Note: the build was slow today."


def test_a_message_longer_than_a_person_types_is_written_out():
    from nanodream.text.structure import TYPED_CHARS, TYPED_LINES, written_out

    assert not written_out("\n\n".join(["Always answer in French."] * TYPED_LINES))  # blank lines do not count
    assert written_out("\n".join(["- item"] * (TYPED_LINES + 1)))
    assert written_out("word " * (TYPED_CHARS // 5 + 1)) and not written_out("word " * (TYPED_CHARS // 5 - 1))


def test_a_fenced_block_is_no_typing_of_theirs_so_a_rule_under_a_long_fenced_trace_is_read():
    """A message long only because of a block the person fenced is not written out; a paste told by its shape
    alone still counts (a tool's banner beside it is not always told apart)."""
    from nanodream.text.structure import TYPED_LINES, typed_lines, written_out

    frames = [f'  File "/srv/app/step{n}.py", line {n}, in run' for n in range(TYPED_LINES + 2)]
    trace = ["Traceback (most recent call last):", *frames, "ValueError: bad row"]
    rule = "Always run the linter before committing."
    assert not written_out("\n".join(["```", *trace, "```", "", rule]))
    assert written_out("\n".join([*trace, "", rule]))
    assert typed_lines([*trace, "", rule]) == [rule]  # what the person typed, for telling its language
    assert written_out("\n".join([rule] * (TYPED_LINES + 1)))


def test_a_tools_table_and_the_status_lines_around_its_output_are_pasted():
    lines = ["Here is what I see:", "NAME                    READY   STATUS             RESTARTS   AGE",
             "web-5d9f8b6c5-q2kzx     0/1     CrashLoopBackOff   7          12m",
             "worker-7c4d9-abcde      1/1     Running            0          12m"]
    assert pasted(lines) == {1, 2, 3}
    startup = ["Watching for file changes with StatReloader", "Performing system checks...", "",
               "Why does it hang there?"]
    assert pasted(startup) == {0, 1}
    assert list(sentences("\n".join(startup))) == ["Why does it hang there?"]


def test_a_document_starts_at_its_heading_or_after_the_first_paragraph_of_a_long_structured_message():
    from nanodream.text.structure import document_start

    pasted = ["Use this as the team's baseline, please:", "", "## Principles", "1. Never guess", "2. Test first"]
    assert document_start(pasted) == 2
    spec = ["I want a small tool for the office.", ""] + [f"- **Part {n}**: it handles step {n} of the intake, "
                                                        "checks the form and files it where the team expects it"
                                                        for n in range(16)]
    assert sum(len(line) for line in spec) > 1500 and document_start(spec) == 1
    chat = ["I live in Lisbon.", "", "We decided to use Postgres.", "- item one", "- item two"]
    assert document_start(chat) == len(chat)
    assert list(sentences("\n".join(pasted))) == ["Use this as the team's baseline, please:"]


def test_a_paragraph_of_a_screens_labels_is_pasted():
    assert pasted(["Import Results", "Import Complete", "Successfully created: 1 tickets"]) == {0, 1, 2}
    assert pasted(["Error Details:", "Row 3: object has no attribute 'x' in ticket system"]) == {1}
    assert pasted(["I live in Lisbon", "and work from home"]) == set()  # dictated lines, someone speaking


@pytest.mark.parametrize(("text", "language", "said"), [
    ("Our backend is written in C# on .NET 8.", "en", ["Our backend is written in C# on .NET 8."]),
    ("We run .NET 8 in prod. Next we add Redis.", "en", ["We run .NET 8 in prod.", "Next we add Redis."]),
    ("Never commit .env files. Thanks.", "en", ["Never commit .env files.", "Thanks."]),
    ("Wir nutzen .NET 8 im Backend. Das bleibt so.", "de", ["Wir nutzen .NET 8 im Backend.", "Das bleibt so."]),
    ("Read ./docs/setup.md and check the config.", "en", ["Read ./docs/setup.md and check the config."]),
    ("Run ../scripts/build.sh first. Then deploy.", "en", ["Run ../scripts/build.sh first.", "Then deploy."]),
    ("It works. /help shows the commands.", "en", ["It works.", "/help shows the commands."]),
])
def test_a_full_stop_opening_a_name_ends_no_sentence(text, language, said):
    assert list(sentences(text, language)) == said


@pytest.mark.parametrize(("text", "said"), [
    ("Summarize the PR for me. I'm a backend developer.", ["Summarize the PR for me.", "I'm a backend developer."]),
    ("Help me. I live in Porto.", ["Help me.", "I live in Porto."]),
    ("J. K. Rowling wrote it. I loved it.", ["J. K. Rowling wrote it.", "I loved it."]),  # initials are capitals
    ("Use a tool, e.g. I think ripgrep.", ["Use a tool, e.g. I think ripgrep."]),
])
def test_a_short_word_ending_a_sentence_before_i_ends_it(text, said):
    """sentencex read "me. I" as initials: "I'm a backend developer" ran on from the request and was lost."""
    assert list(sentences(text)) == said


@pytest.mark.parametrize(("text", "language", "said"), [
    ("中文对话，用最简单的方法完成任务\n不要创建新文件", "zh", ["中文对话，用最简单的方法完成任务", "不要创建新文件"]),
    ("配布はVercelにしよう\nテストは必ず書いてください", "ja", ["配布はVercelにしよう", "テストは必ず書いてください"]),
    ("배포는 Vercel로 가자\n테스트는 항상 돌려 줘", "ko", ["배포는 Vercel로 가자", "테스트는 항상 돌려 줘"]),
    ("Ich wohne in Berlin\nund arbeite bei SAP", "de", ["Ich wohne in Berlin und arbeite bei SAP"]),  # wrapped
])
def test_a_line_break_between_lines_of_chinese_japanese_or_korean_ends_a_sentence(text, language, said):
    assert list(sentences(text, language)) == said


@pytest.mark.parametrize(("text", "language", "said"), [
    ("Add this to CLAUDE.md: never commit secrets.", "en", ["never commit secrets."]),
    ('写入AGENTS.md:"中文对话\n不要创建新文件"', "zh", ["中文对话", '不要创建新文件"']),
    ("Füge in AGENTS.md hinzu: Antworte immer auf Deutsch.", "de", ["Antworte immer auf Deutsch."]),
    ("Remove from CLAUDE.md: always use tabs.", "en", ["Remove from CLAUDE.md: always use tabs."]),
    ("I read CLAUDE.md: it lists the tests.", "en", ["I read CLAUDE.md: it lists the tests."]),
])
def test_what_the_person_adds_to_the_agents_instruction_file_is_read_without_the_errand(text, language, said):
    assert list(sentences(text, language)) == said



@pytest.mark.parametrize(("text", "language", "said"), [
    ("I live in Berlin\nI work at SAP.\nand I like tea", "en",
     ["I live in Berlin.", "I work at SAP.", "and I like tea"]),
    ("we use Postgres\nfor the main database", "en", ["we use Postgres for the main database"]),
    ("我住在柏林\n我喜欢茶", "zh", ["我住在柏林", "我喜欢茶"]),
])
def test_each_wrapped_line_joins_by_the_line_before_it(text, language, said):
    """A line opening a new statement after an unfinished one starts a sentence; a wrapped line goes on."""
    assert list(sentences(text, language)) == said


def test_a_line_the_person_pastes_again_about_themselves_is_theirs_not_the_harnesss():
    """Found on a public Claude Code transcript: the person pasted "Меня зовут Лиза …" into two sessions; in
    English, "My name is Liza …" and a rule said again in a later message were taken out of both messages as a
    harness's notes, and the first session was consumed as small talk. A harness writes about "the user"."""
    from nanodream.text.structure import recurring_lines, the_persons_words

    intro = "My name is Liza and I work as a project manager."
    rule = "Always show me a plan first before you start changing any files."
    note = "Reply to the user with the message tool; absolute paths are blocked for security."
    first, later = f"{intro}\n{rule}\n{note}", f"{intro}\n{rule}\nI live in Lyon.\n{note}"
    recurring = recurring_lines([first, later])
    assert recurring == frozenset({note})
    assert the_persons_words(first, recurring) == f"{intro}\n{rule}"


def test_a_line_the_person_says_again_in_another_language_is_theirs_not_the_harnesss():
    """Found on a public OpenClaw session: a person whose bot kept failing sent "Привет, расскажи что ты умеешь …"
    nine times; each was taken out as a harness's note and the entry was consumed with none of them quoted for a
    model. A harness writes its notes in English; a line in another language that recurs is the person's."""
    from nanodream.text.structure import recurring_lines, the_persons_words

    asked = "Привет, расскажи что ты умеешь, какие инструменты у тебя есть. Максимально подробно."
    rule = "De ahora en adelante contesta siempre en español y sin tablas, por favor."
    note = "Reply to the user with the message tool; absolute paths are blocked for security."
    first, later = f"{asked}\n{note}", f"{asked}\n{rule}\n{note}"
    recurring = recurring_lines([first, later, f"{rule}\nгде логи?"])
    assert recurring == frozenset({note})
    assert the_persons_words(later, recurring) == f"{asked}\n{rule}"


def test_a_slash_commands_expanded_prompt_leaves_only_the_words_typed_after_it():
    """A spec-kit command's prompt, expanded into the person's turn in Codex and Claude Code, waited for a model as
    the person's words (53 entries of about 6 KB on one public transcript, several with no words of theirs at all);
    its "Always load the constitution …" could have been filed as their rule."""
    from nanodream.text.structure import the_persons_words

    prompt = ("---\ndescription: Create the plan.\n---\n\n## User Input\n\n```text\n{said}\n```\n\n"
              "You **MUST** consider the user input before proceeding (if not empty).\n\n## Outline\n\n"
              "1. Always load the constitution before planning, never skip the gates.\n2. Stop and report the branch.")
    assert the_persons_words(prompt.format(said="Add a dark mode toggle.")) == "Add a dark mode toggle."
    assert the_persons_words(prompt.format(said="")) == ""
    assert the_persons_words(prompt.format(said="$ARGUMENTS")) == ""  # the template itself, pasted
    said = "## User Input\nI prefer short answers. You must consider this."
    assert the_persons_words(said) == said  # a heading of the person's own, no command's prompt


@pytest.mark.parametrize("heading", ["用户输入", "ユーザー入力", "User Input"])
def test_a_commands_prompt_in_other_words_leaves_only_the_words_typed_after_it(heading):
    """A translated brainstorm command ("## 用户输入 … ## 核心原则 - 一次一问: 不要用多个问题压倒用户。") waited for a
    model as the person's words, its "don't" ready to be filed as their rule; in English without the "You **MUST**
    consider" line, the person's request was dropped as small talk."""
    from nanodream.text.structure import the_persons_words

    prompt = (f"## {heading}\n\n```text\n想要优化一下沙箱依赖关系\n```\n\nA line of the template.\n\n## 核心原则\n\n"
              "- **一次一问**: 不要用多个问题压倒用户。")
    assert the_persons_words(prompt) == "想要优化一下沙箱依赖关系"
