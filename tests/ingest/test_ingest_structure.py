"""Structure before phrasing, through ingest and the built-in run: pasted output never becomes a memory line, a
`Key: value` block about the person becomes one line per key in USER.md, a list is filed whole or not at all, an
instruction for one piece of work is no standing rule, and a procedure told in two sessions becomes a skill."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from nanodream import api
from nanodream.config import Settings
from nanodream.ingest.extractors.procedures import stated_procedures
from nanodream.run.dream import run_dream
from nanodream.vocab import Outcome

BUILTIN = Settings(model="builtin")
FILES = ("USER.md", "SOUL.md", "memory/MEMORY.md")


def said(workspace, tmp_path: Path, messages: list[str], name: str = "chat", day: int = 1) -> list[str]:
    """Ingest the person's messages as one session, dream, and return every memory line written."""
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps({"role": "user", "content": text, "timestamp": f"2026-04-{day:02d}T09:"
                                        f"{number:02d}:00Z"}) + "\n" for number, text in enumerate(messages)),
                    encoding="utf-8")
    api.ingest(workspace.root, [path], settings=BUILTIN)
    report = run_dream(workspace, BUILTIN)
    assert report.outcome in (Outcome.COMMITTED, Outcome.NO_CHANGE, Outcome.NOTHING_TO_DO), report.reason
    return [line for name in FILES for line in (workspace.root / name).read_text().splitlines()
            if line.startswith("- ")]


def test_a_pasted_traceback_log_and_installer_output_file_nothing_but_the_persons_words_around_them(workspace,
                                                                                                 tmp_path):
    lines = said(workspace, tmp_path, [
        "Loading the export breaks:\n\nTraceback (most recent call last):\n"
        '  File "/srv/etl/load.py", line 40, in <module>\n    frame = read(path)\n'
        "  File pandas/_libs/parsers.pyx:568, in pandas._libs.parsers.TextReader.__cinit__\n"
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff\n\nAny idea?",
        "2026-04-01 09:12:44,201 ERROR [worker-3] Job 8841 failed: connection reset\n"
        "2026-04-01 09:12:45,010 INFO  [worker-3] Retrying job 8841 (attempt 2)",
        "$ npx create-next-app@latest\n✔ Would you like to use TypeScript? … No / Yes\n"
        "Telemetry (helps us improve the product)\nadded 312 packages in 24s\nfound 0 vulnerabilities\n"
        "This is what it printed. I work at Northwind as a data engineer.",
    ])
    text = "\n".join(lines)
    for junk in ("parsers.pyx", "Traceback", "Job 8841", "Telemetry", "packages", "codec"):
        assert junk not in text, junk
    assert any("Northwind" in line for line in lines)


def test_a_command_typed_with_its_flags_is_code_and_waits_for_no_model(workspace, tmp_path):
    """"npx skills add foo -g -y" waited for a model as Greek ("-y"), "git commit -m fix -a" as Turkish."""
    assert said(workspace, tmp_path, ["npx skills add foo -g -y", "git commit -m fix -a", "apt install curl -y"]) == []
    assert api.status(workspace.root, BUILTIN).status.waiting_for_model == 0


def test_a_typed_sql_statement_is_code_not_a_fact(workspace, tmp_path):
    lines = said(workspace, tmp_path, ["SELECT * FROM users; DROP TABLE users;",
                                       "select * from pragma_database_list;", "INSERT INTO audit (who) VALUES ('me');",
                                       "Our orders table has 2 million rows."])
    assert not any(word in line for line in lines for word in ("SELECT", "select", "DROP", "INSERT")), lines
    assert any("2 million rows" in line for line in lines)


def test_a_key_value_block_about_the_person_is_one_line_per_key_in_user_md(workspace, tmp_path):
    said(workspace, tmp_path, ["Here are my details for the grant form:\nTwitter: @mira_codes\n"
                               "Telegram: @mira_tg\nWallet: 0x52908400098527886E0F7030069857D2E4169EE7\n"
                               "Deadline: 14 March",
                               "My config:\nHost: db.internal\nPort: 5432"])
    user = (workspace.root / "USER.md").read_text()
    for key, value in (("Twitter", "@mira_codes"), ("Telegram", "@mira_tg"),
                       ("Wallet", "0x52908400098527886E0F7030069857D2E4169EE7"), ("Deadline", "14 March")):
        assert sum(f"{key}: {value}" in line for line in user.splitlines()) == 1, key
    everything = "".join((workspace.root / name).read_text() for name in FILES)
    assert "5432" not in everything and "db.internal" not in everything  # a config block is not about the person


@pytest.mark.parametrize("block", ["My details\nName - Tomás Ruiz\nEmail - tomas@ruiz.dev\nCity - Valencia",
                                   "About me:\nName = Tomás Ruiz\nEmail = tomas@ruiz.dev\nCity = Valencia",
                                   "Name — Tomás Ruiz\nEmail — tomas@ruiz.dev\nCity — Valencia"])
def test_a_block_of_details_apart_by_dashes_or_equals_signs_is_one_line_per_key(workspace, tmp_path, block):
    """With " - " between key and value the block was one joined line held back for review."""
    said(workspace, tmp_path, [block])
    user = [line for line in (workspace.root / "USER.md").read_text().splitlines() if line.startswith("- ")]
    for value in ("Tomás Ruiz", "tomas@ruiz.dev", "Valencia"):
        assert sum(value in line for line in user) == 1, user
    assert len(user) == 3 and (workspace.root / "memory/MEMORY.md").read_text().count("Valencia") == 0


@pytest.mark.parametrize("block", ["名字：陈晨\n邮箱：chen@example.cn\n所在城市：西安",
                                   "氏名：山本大輔\nメール：yamada@example.jp\n居住地：札幌",
                                   "Nome: Ana Souza\nE-mail: ana@example.com\nCidade: Recife",
                                   "Mes infos :\nNom : Julien Marchand\nEntreprise : OVHcloud\nVille : Roubaix",
                                   "Meine Daten:\nName: Florian Berger\nFirma: SAP\nWohnort: Walldorf"])
def test_a_block_of_details_in_another_language_is_filed_and_nothing_waits(workspace, tmp_path, block):
    """Each was filed and waited for a model too (a message laid out as a block had no sentences, so it read as a
    document); 所在城市 and 居住地 were no personal keys, so the first two only waited. Under a lead of the person's
    ("Mes infos :") the message was too short to be told French, English's words judged the lead someone else's,
    and it was consumed as small talk."""
    said(workspace, tmp_path, [block])
    user = (workspace.root / "USER.md").read_text()
    details = [line for line in block.splitlines() if not line.endswith(":")]
    assert all(re.split(r"\s?[:：]\s?", line, maxsplit=1)[1] in user for line in details), user
    assert api.status(workspace.root, BUILTIN).status.waiting_for_model == 0


@pytest.mark.parametrize("block", ["名前：山田太郎\nメール：yamada@example.jp\n住所：東京都",
                                   "이름: 김민수\n이메일: minsu@example.kr\n주소: 서울",
                                   "Nombre: Lucía\nCorreo: lucia@example.es\nDirección: Calle Mayor 5, Madrid"])
def test_a_block_of_the_persons_details_with_their_address_is_theirs(workspace, tmp_path, block):
    """An address is one of the person's details: a Japanese block holding 住所 was small talk, nothing kept."""
    said(workspace, tmp_path, [block])
    user = (workspace.root / "USER.md").read_text()
    assert all(line.split(":" if ":" in line else "：", 1)[1].strip() in user for line in block.splitlines())


@pytest.mark.parametrize(("block", "secret"), [
    ("Name: Mina Park\nEmail: mina@example.kr\nPassword: hunter2xyz!", "hunter2xyz"),
    ("Name: Anna Vogt\nE-Mail: anna@example.de\nPasswort: Sommer2024!", "Sommer2024"),
    ("Twitter: @kofi\nGitHub: kofi-dev\nToken: ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "ghp_aBcDeF"),
])
def test_a_block_of_the_persons_details_holding_a_secret_files_the_details_and_never_the_secret(workspace, tmp_path,
                                                                                              block, secret):
    """Each block was small talk, every detail lost: the password's key is no personal one, so the block read as
    someone else's."""
    said(workspace, tmp_path, [block])
    user = (workspace.root / "USER.md").read_text()
    kept = [line for line in block.splitlines() if secret not in line]
    assert all(line.split(": ", 1)[1] in user for line in kept), user
    everything = "".join((workspace.root / name).read_text() for name in (*FILES, "memory/history.jsonl"))
    assert secret not in everything


def test_a_block_keeps_every_value_a_handle_and_a_detail_named_with_a_word_of_its_own(workspace, tmp_path):
    """Found probing variants: "Discord: ada#1234" was redacted as a password and its line withheld; a key given
    twice kept only its last value (the second replaced the first as a correction would); "Work email:" and
    "Personal email:" under "My emails:" were no details of the person's, and the block was lost."""
    said(workspace, tmp_path, ["Telegram: @ada_q\nDiscord: ada#1234\nPronouns: she/her",
                               "Email: sam@work.example\nEmail: sam@home.example\nCity: Austin",
                               "My emails:\nWork email: priya@corp.example\nPersonal email: priya@mail.example",
                               "Please draft a reply to this customer:\nCustomer email: bo@shop.example\n"
                               "Manager email: lee@shop.example"])
    user = (workspace.root / "USER.md").read_text()
    for line in ("Discord: ada#1234", "Email: sam@work.example; sam@home.example", "City: Austin",
                 "Work email: priya@corp.example", "Personal email: priya@mail.example"):
        assert f"- User's {line}." in user, user
    everything = "".join((workspace.root / name).read_text() for name in FILES)
    assert "bo@shop.example" not in everything and "lee@shop.example" not in everything  # someone else's


@pytest.mark.parametrize(("message", "line"), [
    ("Telegram ID: 5867030229", "User's Telegram ID: 5867030229."), ("GitHub: octocat", "User's GitHub: octocat."),
    ("My timezone: Asia/Shanghai", "User's timezone: Asia/Shanghai."),
    ("Zona horaria: America/Bogota", "User's Zona horaria: America/Bogota."),
    ("Zeitzone: Europe/Berlin", "User's Zeitzone: Europe/Berlin."),
    ("时区：Asia/Shanghai", "User's 时区: Asia/Shanghai."),
])
def test_a_message_of_one_of_the_persons_details_by_its_key_is_filed(workspace, tmp_path, message, line):
    """A new user's "telegram id : 5867030229" was small talk, and "Zona horaria: America/Bogota" was consumed as
    an English gist: only a block of two or more keys was read as the person's details."""
    assert f"- {line}" in said(workspace, tmp_path, [message])
    assert api.status(workspace.root, BUILTIN).status.waiting_for_model == 0


@pytest.mark.parametrize(("message", "lines"), [
    ("Name: Ravi Kumar, Email: ravi@example.in, City: Chennai",
     ["User's Name: Ravi Kumar.", "User's Email: ravi@example.in.", "User's City: Chennai."]),
    ("Name: Lena Fischer; Telegram: @lena_f", ["User's Name: Lena Fischer.", "User's Telegram: @lena_f."]),
])
def test_a_line_of_the_persons_details_is_one_line_per_key(workspace, tmp_path, message, lines):
    """"User's Name: Ravi Kumar, Email: ravi@example.in, City: Chennai." was one line, its name "Ravi Kumar, Email:
    ravi@example.in, City: Chennai"."""
    filed = [line for line in said(workspace, tmp_path, [message]) if "User's" in line]
    assert filed == [f"- {line}" for line in lines]


@pytest.mark.parametrize("message", ["Customer email: bo@shop.example", "Order id: 5521", "Status: done",
                                     r"review all module X: C:\addons\ticket_system"])  # "X" ends it, no key
def test_a_message_of_one_key_that_is_not_the_persons_files_nothing_of_them(workspace, tmp_path, message):
    assert not any(message.split(": ")[1] in line for line in said(workspace, tmp_path, [message]))


@pytest.mark.parametrize("first, later, old, new", [
    ("About me:\nName: Jonas Weber\nLocation: Hamburg\nRole: Data Engineer",
     "About me:\nLocation: Munich\nRole: Data Engineer", "Location: Hamburg", "Location: Munich"),
    ("Zu mir:\nName: Jonas Weber\nWohnort: Hamburg\nBeruf: Data Engineer",
     "Zu mir:\nWohnort: München\nBeruf: Data Engineer", "Wohnort: Hamburg", "Wohnort: München"),
    ("关于我：\n姓名：李雷\n城市：深圳", "关于我：\n姓名：李雷\n城市：杭州", "城市: 深圳", "城市: 杭州"),
])
def test_a_later_key_value_block_gives_a_detail_a_new_value_and_the_newest_wins(workspace, tmp_path, first, later,
                                                                                  old, new):
    """Both values stood side by side ("User's Location: Hamburg." and "… Munich.", `reflect` naming them): a
    detail given by its key is one slot, in any language of data/personal-keys.txt."""
    said(workspace, tmp_path, [first], name="first")
    lines = said(workspace, tmp_path, [later], name="later", day=2)
    assert any(new in line for line in lines) and not any(old in line for line in lines), lines
    assert len([line for line in lines if new.split(":")[0] in line]) == 1, lines


def test_a_list_is_filed_whole_or_not_at_all(workspace, tmp_path):
    lines = said(workspace, tmp_path, ["Our stack is Django, Postgres, Redis and Celery.",
                                       "The escrow account stores:\n- owner key\n- asset id\n- price\n- status"])
    stack = [line for line in lines if "Django" in line]
    assert stack and all(word in stack[0] for word in ("Postgres", "Redis", "Celery"))
    escrow = [line for line in lines if "escrow" in line.lower() or "asset id" in line]
    assert escrow == [] or all(word in escrow[0] for word in ("owner key", "asset id", "price", "status"))


def test_a_list_the_rules_would_file_in_part_waits_for_a_model_whole(workspace, tmp_path):
    """Items filed as different kinds, or some filed and the others not, would scatter or cut the list: the
    message waits instead, and a list the rules read whole is filed whole."""
    partial = ("For every release branch:\n1. Always bump the changelog.\n2. Keep the migration count under five.\n"
               "3. Ping me on Signal.")
    lines = said(workspace, tmp_path, [partial, "House rules:\n- Never push to main.\n- Always squash merge.",
                                       "I like:\n- dark mode\n- vim keybindings"])
    text = "\n".join(lines)
    assert "changelog" not in text and "migration" not in text
    assert "- Never push to main." in lines and "- Always squash merge." in lines
    assert any("likes: dark mode, vim keybindings" in line for line in lines), lines
    status = api.status(workspace.root, BUILTIN).status
    assert (status.waiting_for_model, status.waiting_languages) == (1, {"en": 1})


@pytest.mark.parametrize(("fragments", "sentences"), [
    ("以后注意：\n- 缩进用两个空格\n- 不要用var\n- 变量名用英文",
     "以后注意：\n1. 缩进用两个空格。\n2. 不要用var。"),
    ("今後は：\n- インデントはスペース4つ\n- 変数名は英語\n- print禁止",
     "今後は：\n1. インデントはスペース4つです。\n2. printは使わないでください。"),
])
def test_a_line_leading_into_a_list_with_a_full_width_colon_is_a_lead_never_a_line_of_its_own(workspace, tmp_path,
                                                                                              fragments, sentences):
    """"以后注意：" ("from now on, mind:") opens its list as "Rules:" does: items of a few words are one line with it,
    items that are sentences are a list filed whole or not at all, and the lead alone is never filed."""
    lines = said(workspace, tmp_path, [fragments, sentences])
    lead, items = fragments.split("\n", 1)
    assert len(lines) == 1 and lines[0].startswith(f"- {lead}"), lines
    assert all(item.removeprefix("- ") in lines[0] for item in items.splitlines())
    assert api.status(workspace.root, BUILTIN).status.waiting_for_model == 1  # the list read in part waits


@pytest.mark.parametrize("lead", ["ground rules going forward:", "House rules (read them once):", "From now on:"])
def test_commands_listed_under_a_lead_that_names_them_rules_are_rules(workspace, tmp_path, lead):
    """The lead says the items last, so "- ask before deleting anything" needs no "always" of its own; one item
    that is no command ("tests go next to the file") leaves the whole list to a model."""
    rules = ["no emojis in commit messages", "always use pnpm, never npm or yarn", "ask before deleting anything",
             "keep explanations under ten lines"]
    lines = said(workspace, tmp_path, ["\n".join([lead, *(f"- {rule}" for rule in rules)])])
    assert sorted(lines) == sorted(f"- {rule[0].upper()}{rule[1:]}." for rule in rules)
    assert (workspace.root / "SOUL.md").read_text().count("\n- ") == len(rules)
    mixed = said(workspace, tmp_path, ["\n".join([lead, "- ask before renaming anything",
                                                   "- tests go next to the file they test"])], name="mixed", day=2)
    assert mixed == lines


def test_answers_typed_as_a_numbered_list_on_one_line_are_a_list_filed_whole_or_not_at_all(workspace, tmp_path):
    """Answers to the agent's questions, "1. …, 2. …" on one line: some items are statements the rules read, others
    not ("Allergic to nuts" has no subject), so the message waits for a model whole instead of losing half."""
    lines = said(workspace, tmp_path, ["1. Eggs or yogurt for breakfast, 2. I love chocolate and should quit it, "
                                       "3. Allergic to nuts and fruits, 4. Mostly cook at home"])
    assert lines == []
    status = api.status(workspace.root, BUILTIN).status
    assert (status.waiting_for_model, status.waiting_languages) == (1, {"en": 1})


def test_the_team_dropping_a_tool_replaces_the_line_that_said_they_use_it(workspace, tmp_path):
    """"We" state the project's tools; "we are not using X anymore" is a correction, as "I no longer …" is."""
    said(workspace, tmp_path, ["We use GoLogin for the browser profiles."], name="first", day=1)
    lines = said(workspace, tmp_path, ["We are not using GoLogin anymore. We are using MultiLogin now."],
                 name="later", day=3)
    assert "- We are using MultiLogin now." in lines
    assert not any(line.startswith("- We use GoLogin") for line in lines), lines


def test_an_instruction_for_one_piece_of_work_is_no_standing_rule(workspace, tmp_path):
    said(workspace, tmp_path, ["The dashboard shows stale numbers after login, can you fix it? Avoid caching "
                               "responses.", "Don't touch the migration files for the billing fix.",
                               "Never force-push to main."])
    soul = (workspace.root / "SOUL.md").read_text()
    assert "caching" not in soul and "migration" not in soul
    assert "- Never force-push to main." in soul


def test_a_rule_set_in_one_file_or_fix_is_no_standing_rule_and_one_set_in_a_kind_of_work_keeps_its_setting(
        workspace, tmp_path):
    said(workspace, tmp_path, ["In this module, never use tabs.", "For the hotfix, always skip the slow suite.",
                               "When fixing this crash, never bump the version.",
                               "In Go files, always run gofmt before committing."])
    soul = (workspace.root / "SOUL.md").read_text()
    assert "tabs" not in soul and "slow suite" not in soul and "bump" not in soul
    assert "- Always run gofmt before committing in Go files." in soul


def test_a_rule_set_while_one_task_is_under_way_is_no_standing_rule(workspace, tmp_path):
    """"While you fix the login page", "when you refactor the parser": a task and the thing it is done to; "when
    you fix bugs", "when you edit the README" say every time."""
    said(workspace, tmp_path, ["While you fix the login page, never change the CSS.",
                               "When you refactor the parser, never change the public API.",
                               "When you fix bugs, always add a regression test.",
                               "When you edit the README, always keep the badges."])
    soul = (workspace.root / "SOUL.md").read_text()
    assert "CSS" not in soul and "public API" not in soul
    assert "- Always add a regression test when you fix bugs." in soul
    assert "- Always keep the badges when you edit the README." in soul


def test_a_rule_for_the_project_itself_stands_and_one_for_a_day_does_not(workspace, tmp_path):
    """"This repo" is the project the person works in, which lasts; "today" was a date by the time it was read."""
    said(workspace, tmp_path, ["In this repo, always use pnpm.", "Never push to main directly in this codebase.",
                               "Never deploy the billing API today.", "Do not commit this yet in this repo."])
    soul = (workspace.root / "SOUL.md").read_text()
    assert "- Always use pnpm in this repo." in soul and "- Never push to main directly in this codebase." in soul
    assert "billing" not in soul and "commit" not in soul


def test_a_rule_typed_under_a_long_fenced_trace_is_read_and_the_trace_is_not(workspace, tmp_path):
    frames = "\n".join(f"\tat com.shop.cart.Step{n}.run(Step{n}.java:{n + 10})" for n in range(9))
    lines = said(workspace, tmp_path, [f"```\nException in thread \"main\" java.lang.NullPointerException\n{frames}\n"
                                       "```\n\nNever catch a NullPointerException just to silence the log."])
    assert lines == ["- Never catch a NullPointerException just to silence the log."]


def test_details_of_someone_else_and_a_redacted_secret_are_never_filed_as_the_persons(workspace, tmp_path):
    said(workspace, tmp_path, ["My name is Mira Kovac.",
                               "Please draft a reply to this customer:\nName: John Smith\nEmail: john@acme.example"
                               "\nCity: Boston",
                               "My sister's details:\nName: Ana Kovac\nCity: Split",
                               "My details:\nHometown: Zagreb\nOccupation: nurse\nPassword: Xk9#mP2qL!v7"])
    user = (workspace.root / "USER.md").read_text()
    for other in ("John", "Boston", "Ana", "Split", "redacted", "Password"):
        assert other not in user, other
    assert "Mira Kovac" in user and "Hometown: Zagreb" in user and "Occupation: nurse" in user


def test_a_procedure_told_in_two_sessions_becomes_one_skill(workspace, tmp_path):
    said(workspace, tmp_path, ["Here's how I do a release:\n1. Bump the version in pyproject.toml\n"
                               "2. Update the changelog\n3. Tag the commit\n4. Push the tag"], name="first", day=1)
    memory = (workspace.root / "memory/MEMORY.md").read_text()
    assert "To do a release: 1) Bump the version" in memory  # told once: a fact
    said(workspace, tmp_path, ["Quick reminder of our release checklist:\n- bump the version\n- update the "
                               "changelog\n- tag the commit\n- push the tag\n- announce it in #releases"],
         name="second", day=9)
    skill = (workspace.root / "skills/release/SKILL.md").read_text()
    assert "name: release" in skill
    steps = [line for line in skill.splitlines() if line[:1].isdigit()]
    assert len(steps) == 5 and sum("ump the version" in step for step in steps) == 1
    assert "Announce it in #releases" in skill
    assert "release" not in (workspace.root / "memory/MEMORY.md").read_text().lower()  # folded into the skill


@pytest.mark.parametrize("first, second", [
    ("To release: bump the version, update the changelog, tag the commit, push the tag.",
     "To release: bump the version, update the changelog, tag the commit, push the tag."),
    ("When releasing, first bump the version, then update the changelog, then tag the commit.",
     "For a release: bump the version, update the changelog, tag the commit."),
    ("When releasing, first bump the version, then update the changelog, then tag the commit and push.",
     "For a release: bump version, update changelog, tag the commit, push."),
    ("Release steps: bump the version, update the changelog, tag the commit, then push the tag",
     "Our release checklist:\n1. Bump the version\n2. Update the changelog\n3. Tag the commit\n4. Push the tag"),
    # a comma after "To <goal>", not a colon (found probing variants): both tellings were gists
    ("To release, first bump the version, then update the changelog, finally tag the commit.",
     "To release, first bump the version, then update the changelog, then tag the commit."),
    # the goal said in more words the second time: "release" and "release-package" were two goals, no skill
    ("How I release: bump the version, then update the changelog, then tag the commit.",
     "To release the package: 1. bump the version 2. update the changelog 3. tag the commit 4. push the tag"),
])
def test_a_procedure_told_inline_in_commas_in_two_sessions_becomes_one_skill(workspace, tmp_path, first, second):
    """Steps told in commas on the lead's line were only "Talked about: …" (a gist): told twice, nothing came of it."""
    said(workspace, tmp_path, [first], name="first", day=1)
    said(workspace, tmp_path, [second], name="second", day=9)
    skill = (workspace.root / "skills/release/SKILL.md").read_text()
    steps = [line for line in skill.splitlines() if line[:1].isdigit()]
    told = [step.split(". ", 1)[1] for step in steps]
    assert told[:2] == ["Bump the version", "Update the changelog"] and told[2].startswith("Tag the commit"), skill
    repeated = [step for step in told if len(step.split()) == 1
                and any(step.lower() in other.lower().split() for other in told if other != step)]
    assert repeated == [], skill  # "push" told alone after "tag the commit and push" is no new step
    assert "release" not in (workspace.root / "memory/MEMORY.md").read_text().lower()


@pytest.mark.parametrize(("first", "second", "name"), [
    ("So mache ich ein Release:\n1. Version erhöhen\n2. Tag setzen\n3. Tag pushen",
     "Release-Ablauf:\n1. Version erhöhen\n2. Changelog aktualisieren\n3. Tag setzen\n4. Tag pushen", "release"),
    ("发布流程：\n1、更新版本号\n2、打标签\n3、推送标签",
     "发布的流程：\n1. 更新版本号\n2. 更新变更日志\n3. 打标签", "fabu"),
    ("Para desplegar: 1) ejecutar los tests 2) construir la imagen",
     "Para desplegar: 1) ejecutar los tests 2) construir la imagen 3) reiniciar el servicio", "desplegar"),
    ("リリース手順：\n1. バージョンを上げる\n2. タグを付ける",
     "リリースの手順：\n- バージョンを上げる\n- タグを付ける\n- タグをプッシュする", "ririsu"),
])
def test_a_procedure_told_in_another_language_in_two_sessions_becomes_one_skill(workspace, tmp_path, first, second,
                                                                                name):
    """Found probing the issue's two-session procedure in the eight languages: told in German, Chinese, Spanish
    or Japanese, each telling waited for a model and no skill came of it. The skill is titled as last told."""
    said(workspace, tmp_path, [first], name="first", day=1)
    lead = first.replace("：", ":").split(":")[0]
    assert f"{lead}: 1) " in (workspace.root / "memory/MEMORY.md").read_text()  # told once: a fact, as said
    said(workspace, tmp_path, [second], name="second", day=9)
    skill = (workspace.root / f"skills/{name}/SKILL.md").read_text()
    assert f"# {second.replace('：', ':').split(':')[0]}\n" in skill and f"name: {name}" in skill
    steps = [line.split(". ", 1)[1] for line in skill.splitlines() if line[:1].isdigit()]
    assert len(steps) == len(set(steps)) >= 3 and not any(step.endswith("。") for step in steps), skill
    assert lead not in (workspace.root / "memory/MEMORY.md").read_text()  # folded into the skill
    assert api.status(workspace.root, BUILTIN).status.waiting_for_model == 0  # nothing else said: all of it read


def test_what_a_procedure_is_and_is_not():
    assert [(told.goal, told.steps) for told in stated_procedures(
        "To deploy: first build the image, then push it, finally restart the pods")] == [
        ("deploy", ("build the image", "push it", "restart the pods"))]
    assert stated_procedures("The steps to restore a backup: 1) stop the api 2) run restic 3) start the api")
    assert stated_procedures("To fix the login bug:\n1. check the cookie\n2. clear the cache") == []  # an errand
    assert stated_procedures("To fix the flaky checkout test: 1) add a retry 2) raise the timeout") == []  # one thing
    assert [told.goal for told in stated_procedures("To fix a broken build: 1) clear the cache 2) rerun CI")] == [
        "fix a broken build"]  # any of them: a runbook
    assert [told.steps for told in stated_procedures(
        "To set up a dev machine:\nStep 1: install Homebrew\nStep 2: clone the dotfiles")] == [
        ("install Homebrew", "clone the dotfiles")]
    assert stated_procedures("Next steps:\n- call Ana\n- send the invoice") == []
    assert [(told.goal, told.steps) for told in stated_procedures(
        "To onboard a client: send the contract, create the Slack channel, schedule a kickoff call")] == [
        ("onboard a client", ("send the contract", "create the Slack channel", "schedule a kickoff call"))]
    for things in ("To deploy: Docker, Kubernetes, Helm.", "To run locally: python 3.12, node 20, docker.",
                   "To release: tag it, push it."):
        assert stated_procedures(things) == [], things  # things, not commands; or two steps only in commas
    assert stated_procedures("When committing, always run the linter, the formatter and the tests.") == []
    assert stated_procedures("To release: bump the version.") == []  # one step is no procedure
    assert [(told.goal, told.lead) for told in stated_procedures("Pour publier une version :\n- lancer les tests\n"
                                                                 "- taguer la version")] == [
        ("publier version", "Pour publier une version")]  # in the person's words; the goal without its articles
    for errand in ("这个bug的修复步骤：\n1. 回滚\n2. 重启", "Para mañana:\n1. comprar leche\n2. llamar a Ana",
                   "Für heute:\n1. Mails lesen\n2. Ana anrufen", "Para el cliente:\n1. enviar el contrato\n2. llamar"):
        assert stated_procedures(errand) == [], errand  # the work of the moment, or no goal
    for spoken in ("To be honest, first I was confused, then I understood it.",
                   "To be fair, first we tried Redis, then we moved to Postgres."):
        assert stated_procedures(spoken) == [], spoken  # a way of speaking, and what someone did: no commands


def test_a_pasted_document_and_what_the_harness_wrote_file_nothing(workspace, tmp_path):
    document = ("Please use this as the baseline on every machine:\n\n## Core principles\n"
                + "\n".join(f"{n}. **Rule {n}** - Never guess about code you have not opened, item {n}."
                            for n in range(1, 10)))
    spec = ("I want a dashboard for the shop.\n\n" + "\n".join(
        f"- **Screen {n}**: the manager sees orders of day {n}, filters them and exports them to the accountant"
        for n in range(20)))
    lines = said(workspace, tmp_path, [
        document, spec,
        "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old tasks "
        "from prior chats. If nothing needs attention, reply HEARTBEAT_OK.",
        "[System: subagent] [Subagent 'Plan' completed successfully]\n\nTask: plan the week.\n\nBackup: If it "
        "rains, do indoor yoga.",
        "I have two computers, one for work and one at home.",
    ])
    text = "\n".join(lines)
    for junk in ("guess", "Screen", "orders", "HEARTBEAT", "infer", "yoga"):
        assert junk not in text, junk
    assert any("two computers" in line for line in lines)


@pytest.mark.parametrize(("asked", "quoted"), [
    ("Gemini said this, is it right?", '"Good question! You should always use plural nouns for resources and never '
                                       'put verbs in URLs. Always paginate large collections."'),
    ("ChatGPTの回答です、合ってますか？", "「常に画像を圧縮し、決して同期スクリプトをheadで読み込まないでください。」"),
    ("클로드가 이렇게 답했는데 맞아?", '"항상 이미지를 압축하고, 절대 head에서 동기 스크립트를 불러오지 마세요."'),
])
def test_a_paragraph_that_is_all_a_quotation_is_someone_elses_words(workspace, tmp_path, asked, quoted):
    """An answer pasted in quotation marks to ask about it was filed as the person's rules; asked to keep it, or to
    add it to an instruction file, the person makes it theirs."""
    assert said(workspace, tmp_path, [f"{asked}\n\n{quoted}"]) == []
    kept = said(workspace, tmp_path, ['Remember this:\n\n"Never deploy on a Friday."',
                                      'Add this to CLAUDE.md:\n\n"Always run the linter first."'], name="kept", day=2)
    assert sorted(kept) == ["- Always run the linter first.", "- Never deploy on a Friday."]


def test_a_pasted_readme_with_sections_is_a_document_though_it_opens_with_a_heading(workspace, tmp_path):
    """A short message's heading is how a person stresses what they say; a second heading makes it a document."""
    readme = ("## Installation\n\nInstall the package with pip.\n\nTinyQueue always uses Redis as the broker and "
              "never stores payloads on disk.\n\n## Usage\n\nRegister a handler and call `run()`.")
    assert said(workspace, tmp_path, [readme]) == []
    assert said(workspace, tmp_path, ["## Always ask me before running many tools"], name="stress", day=2) == [
        "- Always ask the user before running many tools."]


def test_a_rule_in_another_language_the_model_takes_for_english_is_read_in_its_own(workspace, tmp_path):
    """"Utilise toujours TypeScript strict." holds two English names in four words: it was filed in MEMORY.md as an
    undated project fact."""
    assert said(workspace, tmp_path, ["Utilise toujours TypeScript strict."]) == [
        "- Utilise toujours TypeScript strict."]
    assert "TypeScript" in (workspace.root / "SOUL.md").read_text()


def test_an_errand_whose_bug_says_after_is_no_rule_and_a_greeting_is_no_fact(workspace, tmp_path):
    """"删掉商品以后" is "after deleting an item", inside a request; "before we start" sets nothing."""
    errand = "帮我看一下购物车的bug，删掉商品以后总价不更新。另外，以后写代码都先写测试再写实现。"
    lines = said(workspace, tmp_path, [errand, "hey! before we start, a bit about me. I live in Leipzig."])
    assert not any("购物车" in line or "we start" in line.lower() for line in lines), lines
    assert any("以后写代码都先写测试" in line for line in lines) and any("Leipzig" in line for line in lines)


def test_the_note_a_harness_writes_under_an_attachment_is_no_rule_of_the_persons(workspace, tmp_path):
    """OpenClaw writes the same note under every image once in a session: no recurrence to tell it by."""
    lines = said(workspace, tmp_path, [
        "[media attached: /home/ana/.openclaw/media/inbound/file_0.jpg (image/jpeg) | /home/ana/file_0.jpg]\n"
        "To send an image back, prefer the message tool (media/path/filePath). If you must inline, use "
        "MEDIA:https://example.com/image.jpg (spaces ok, quote if needed) or a safe relative path like "
        "MEDIA:./image.jpg. Avoid absolute paths (MEDIA:/...) and ~ paths — they are blocked for security. Keep "
        "caption in the text body.\nNever send an email without asking me first."])
    text = "\n".join(lines)
    assert "absolute paths" not in text and "MEDIA" not in text and "caption" not in text
    assert "Never send an email without asking the user first." in text


def test_a_message_longer_than_a_person_types_waits_for_a_model_whole_and_a_short_one_is_read(workspace,
                                                                                              tmp_path):
    spec = "\n".join(["Here is the plan for the shop, read it all:", "Always answer in British English.",
                      *(f"- screen {n}: the manager sees orders of day {n}" for n in range(1, 7))])
    monologue = "So I was thinking about the whole setup. " * 60 + "I live in Leeds."
    lines = said(workspace, tmp_path, [spec, monologue, "Never force-push to main."])
    text = "\n".join(lines)
    assert "force-push" in text  # the short message is read as ever
    assert "British" not in text and "Leeds" not in text and "screen" not in text
    status = api.status(workspace.root, BUILTIN).status
    assert status.waiting_for_model == 1 and status.waiting_languages == {"en": 1} and status.pending_entries == 0
    waiting = [json.loads(line)["content"] for line in (workspace.root / "memory/history.jsonl").read_text()
               .splitlines() if "[for a model" in line]
    assert len(waiting) == 1 and "> Always answer in British English." in waiting[0] and "Leeds" in waiting[0]


@pytest.mark.parametrize(("lead", "rules", "other"), [
    ("A few rules for you, read them once:", ["Always answer in English.", "Never commit directly to main.",
                                              "Don't delete files without asking me first.", "Never force-push.",
                                              "Avoid external libraries unless they are needed.",
                                              "Always run the tests before you say a change is done."],
     "Tests live next to the file they test."),
    ("Một số quy tắc cho bạn:", ["Luôn trả lời bằng tiếng Việt.", "Không bao giờ commit thẳng lên nhánh main.",
                                 "Đừng tự ý xoá file khi chưa hỏi mình.", "Không bao giờ in ra token trong log.",
                                 "Tránh dùng thư viện ngoài nếu không cần.", "Không được đẩy code khi test còn đỏ."],
     "Mỗi sáng gửi mình bản tóm tắt."),
])
def test_a_list_of_rules_in_a_message_longer_than_a_person_types_is_filed_whole_and_the_message_waits(
        workspace, tmp_path, lead, rules, other):
    """Each item of a typed list stands alone, as a `Key: value` line does: read whole, it is filed whatever the
    message's length, and the rest waits for a model. A list with one item the rules cannot read files nothing."""
    listed = "\n".join([lead, *(f"{number}. {rule}" for number, rule in enumerate(rules, 1))])
    lines = said(workspace, tmp_path, [listed])
    assert sorted(lines) == sorted(f"- {rule}".replace("asking me", "asking the user") for rule in rules)
    assert api.status(workspace.root, BUILTIN).status.waiting_for_model == 1
    cut = "\n".join([lead, *(f"{number}. {rule}" for number, rule in enumerate([*rules[:5], other], 1))])
    assert said(workspace, tmp_path, [cut], name="cut", day=2) == lines


@pytest.mark.parametrize(("lead", "facts", "other"), [
    ("Zu meiner Person:", ["Ich heiße Jonas Brandt.", "Ich bin Entwickler bei Bosch.", "Ich wohne in Ulm.",
                           "Ich arbeite mit Rust und Go.", "Ich bin Vegetarier."], "Nebenbei repariere ich Uhren."),
    ("介绍一下我自己：", ["我叫周宁。", "我住在厦门。", "我对花生过敏。", "我平时用Linux和Neovim。"],
     "业余在做一个小游戏。"),
])
def test_a_long_message_in_another_language_mostly_of_statements_files_them_and_waits(workspace, tmp_path, lead,
                                                                                      facts, other):
    """Seven or eight lines, one fact about the person each: past six lines they all waited. A message mostly of
    explicit statements is the person speaking, so they are filed and the rest waits; a document in which one
    sentence looks like a statement files nothing."""
    lines = said(workspace, tmp_path, ["\n\n".join([lead, "\n".join([*facts, other, other.replace("。", "！")])])])
    assert sorted(lines) == sorted(f"- {fact}" for fact in facts)
    assert api.status(workspace.root, BUILTIN).status.waiting_for_model == 1
    document = "\n".join([facts[0], *(f"{other} {number}" for number in range(6))])
    assert said(workspace, tmp_path, [document], name="document", day=2) == lines


def test_a_note_the_harness_writes_into_many_turns_is_never_filed_but_the_persons_words_are(workspace, tmp_path):
    note = "Avoid absolute paths (MEDIA:/...) and ~ paths, they are blocked for security."
    lines = said(workspace, tmp_path, [f"{note}\nlook at this chart",
                                       f"{note}\nI work at Northwind as a data engineer.", "Never force-push to main."])
    text = "\n".join(lines)
    assert "absolute paths" not in text
    assert "force-push" in text and "Northwind" in text


def test_an_english_message_quoting_another_language_files_its_statements_and_waits_for_a_model(workspace,
                                                                                               tmp_path):
    said(workspace, tmp_path, ["We decided to answer the Spanish leads by email.\n\nHere is what the hotel wrote "
                               "back, for context: Trabajamos con hoteles de la región y queremos recibir reservas "
                               "directas sin comisiones."])
    assert "answer the Spanish leads by email" in (workspace.root / "memory/MEMORY.md").read_text()
    assert "Trabajamos" not in "".join((workspace.root / name).read_text() for name in FILES)
    status = api.status(workspace.root, BUILTIN).status
    assert status.waiting_for_model == 1 and "es" in status.waiting_languages


def test_a_rule_told_to_the_agent_and_a_decision_said_in_two_words(workspace, tmp_path):
    said(workspace, tmp_path, ["You will always reply with the generated story scene.", "mantengamos DeepSeek-Chat",
                               "actually there are 22 tasks pending"])
    assert "- Always reply with the generated story scene." in (workspace.root / "SOUL.md").read_text()
    memory = (workspace.root / "memory/MEMORY.md").read_text()
    assert "Mantengamos DeepSeek-Chat." in memory and "22 tasks" not in memory


def test_a_correction_on_a_later_day_replaces_a_fact_filed_with_its_day(workspace, tmp_path):
    """"The launch deadline is now July 15." two days after "The launch deadline is June 1." failed the run
    ("list.remove(x): x not in list"): the line filed with its day was compared without it, and handed back so."""
    said(workspace, tmp_path, ["The launch deadline is June 1."], name="first", day=1)
    lines = said(workspace, tmp_path, ["The launch deadline is now July 15."], name="later", day=3)
    assert [line for line in lines if "deadline" in line] == ["- The launch deadline is now July 15."]
    archived = "".join(path.read_text() for path in (workspace.root / "memory" / "archive").glob("*.md"))
    assert "June 1" in archived and "until 2026-04-03" in archived
