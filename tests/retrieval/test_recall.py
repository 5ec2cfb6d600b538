"""`nanodream recall` and its host API over real files: inflected questions, skills, the archive, the cache."""

from __future__ import annotations

import json
import sys

import pytest

import nanodream
from nanodream import api
from nanodream.cli import app
from nanodream.retrieval import cache
from nanodream.retrieval.api import INSTALL_HINT, RecallUnavailable
from nanodream.workspace import ARCHIVE_INTRO, Workspace
from tests.support.cli import runner

MEMORY = """\
# Memory

## Project
- Lighthouse is a booking service written in Go.
- The team decided to store invoices in PostgreSQL 15.

### Infrastructure
- Deploys run through the staging cluster before production.
- Backups are taken nightly to an S3 bucket in eu-west-1.
- Caddy terminates TLS in front of the API.

```
deploy: make deploy   # code, not a memory
```

## Decisions
- Pull requests need one approving review.
- What we do about flaky tests is still open.
"""
USER = "# User\n\n## Preferences\n- Prefers concise answers in British English.\n- Works from Lisbon.\n"
SOUL = "# Soul\n\n## Rules\n- Never push to main without asking first. <!-- keep -->\n"


@pytest.fixture
def memory(workspace: Workspace) -> Workspace:
    (workspace.root / "memory/MEMORY.md").write_text(MEMORY, encoding="utf-8")
    (workspace.root / "USER.md").write_text(USER, encoding="utf-8")
    (workspace.root / "SOUL.md").write_text(SOUL, encoding="utf-8")
    return workspace


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), start=1) if needle in line)


def write_skill(ws: Workspace, name: str, description: str, body: str) -> None:
    path = ws.root / "skills" / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n", encoding="utf-8")


@pytest.mark.parametrize(("question", "expected"), [
    ("where are we deploying the new build?", "Deploys run through the staging cluster"),
    ("when do backup jobs take place?", "Backups are taken nightly"),
    ("which database is storing the invoice?", "store invoices in PostgreSQL"),
    ("what answer style does the user prefer?", "Prefers concise answers"),
    ("is pushing to main allowed?", "Never push to main"),
    ("who reviews a pull request?", "Pull requests need one approving review"),
])
def test_a_paraphrased_question_finds_the_line_in_any_inflection(memory, question, expected):
    hits = nanodream.recall(memory, question, k=3)
    assert hits, question
    assert expected in hits[0].text, [h.text for h in hits]


CJK_USER = """# User

## Preferences
- 使用者偏好用繁體中文寫作業，先討論再動手。
- 東京に住んでいて、毎朝コーヒーを飲みます。
- 서울에서 일하고 주말에는 등산을 좋아해요.
- Prefers concise answers in British English.
"""


@pytest.mark.parametrize(("question", "expected"), [
    ("繁體中文", "繁體中文"), ("先討論", "先討論"), ("他住在哪裡？東京", "東京"), ("コーヒー", "コーヒー"),
    ("서울", "서울"), ("등산", "등산"),
])
def test_chinese_japanese_and_korean_words_are_found_without_spaces_between_them(workspace, question, expected):
    (workspace.root / "USER.md").write_text(CJK_USER, encoding="utf-8")
    hits = nanodream.recall(workspace, question, k=1)
    assert hits and expected in hits[0].text, question
    assert nanodream.recall(workspace, "British English", k=1)[0].text.startswith("Prefers concise")


def test_the_raw_baseline_finds_cjk_words_too():
    from nanodream.retrieval.documents import Document
    from nanodream.retrieval.index import Index

    turns = ["我住在台北，平常用繁體中文。", "I live in Taipei.", "週末は京都で写真を撮ります。"]
    index = Index.build([Document(t, "s", n, "", t) for n, t in enumerate(turns, start=1)])
    assert index.search("繁體中文", 1)[0][0].text == turns[0]
    assert index.search("京都", 1)[0][0].text == turns[2]


def test_a_hit_says_where_the_line_is_and_under_which_headings(memory):
    [hit] = nanodream.recall(memory, "staging cluster", k=1)
    assert hit.file == "memory/MEMORY.md"
    assert hit.line == line_of(MEMORY, "Deploys run through")
    assert hit.heading == "Project > Infrastructure"
    assert hit.text == "Deploys run through the staging cluster before production."  # no list marker
    assert hit.score > 0
    [pinned] = nanodream.recall(memory, "push main", k=1)
    assert pinned.text == "Never push to main without asking first." and pinned.heading == "Rules"


def test_headings_code_and_stop_words_are_never_documents(memory):
    # Only question words and pronouns, though a line holds them all: nothing to go on.
    assert nanodream.recall(memory, "what should we do about it?") == []
    texts = [h.text for h in nanodream.recall(memory, "make deploy infrastructure decisions", k=20)]
    assert not any("make deploy" in t for t in texts)  # inside a code fence
    assert not any(t in ("Infrastructure", "Decisions") for t in texts)


def test_results_are_best_first_and_at_most_k(memory):
    hits = nanodream.recall(memory, "staging production deploys backups", k=2)
    assert len(hits) == 2
    assert hits[0].score >= hits[1].score
    assert "staging" in hits[0].text  # shares three terms, the backups line one
    assert nanodream.recall(memory, "staging production deploys backups", k=0) == []
    assert nanodream.recall(memory, "staging production deploys backups", k=-1) == []


def test_skills_rank_by_their_description_over_a_body_that_mentions_the_words(workspace):
    write_skill(workspace, "db-migrate", "Run a database migration against production without downtime.",
                "1. Open a maintenance ticket.\n2. Apply the change on staging and wait an hour.\n"
                "3. Apply it on the primary, watching replication lag.")
    write_skill(workspace, "onboarding", "Set up a new developer's laptop and accounts.",
                "1. Create accounts on GitHub and the VPN.\n2. Install Go, Docker and the database client; "
                "load the database dump.\n3. Run the database migrations locally.\n4. Pair on a first ticket.")
    hits = nanodream.recall(workspace, "how do I migrate the database?")
    assert [h.heading for h in hits] == ["db-migrate", "onboarding"]  # one hit per skill, named by heading
    top = hits[0]
    assert top.text == "Run a database migration against production without downtime."
    assert (top.file, top.line) == ("skills/db-migrate/SKILL.md", 1)
    assert [h.heading for h in nanodream.recall(workspace, "new laptop")] == ["onboarding"]


def test_a_skill_with_broken_front_matter_is_still_found_by_its_text(workspace):
    path = workspace.root / "skills" / "scratch" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text("no front matter at all\n\n1. Rotate the signing keys every quarter.\n", encoding="utf-8")
    [hit] = nanodream.recall(workspace, "when are keys rotated?")
    assert (hit.file, hit.heading, hit.text) == ("skills/scratch/SKILL.md", "scratch", "scratch")


def test_archive_lines_are_found_and_name_their_month_file(memory):
    archive = (f"# Archive 2026-03\n\n{ARCHIVE_INTRO}\n\n## Infrastructure (archived 2026-03-02)\n"
               "- The old cluster ran Kubernetes 1.24 on bare metal.\n"
               "- Caddy terminates TLS in front of the API.\n")
    path = memory.root / "memory" / "archive" / "2026-03.md"
    path.parent.mkdir(parents=True)
    path.write_text(archive, encoding="utf-8")
    [hit] = nanodream.recall(memory, "which kubernetes version did the old cluster use?", k=1)
    assert hit.file == "memory/archive/2026-03.md"
    assert hit.line == line_of(archive, "Kubernetes")
    assert hit.heading == "Infrastructure (archived 2026-03-02)"
    same = nanodream.recall(memory, "caddy terminates tls", k=2)
    assert [h.file for h in same] == ["memory/MEMORY.md", "memory/archive/2026-03.md"]  # a tie: active first
    assert nanodream.recall(memory, "hot facts moved out under its cap") == []  # the archive's own intro


def test_an_empty_workspace_finds_nothing(workspace, tmp_path):
    # The scaffold's sentences say what each file is for; they are not memories.
    assert nanodream.recall(workspace, "rules guardrails preferences project context goals") == []
    assert nanodream.recall(tmp_path / "nowhere", "anything at all") == []


def test_recaller_returns_each_memory_once_per_conversation(memory):
    question = "how do deploys, backups and the api work?"
    all_hits = nanodream.recall(memory, question, k=10)
    assert len(all_hits) >= 3
    recaller = nanodream.Recaller(memory)
    assert recaller.new_hits(question, k=1) == all_hits[:1]
    assert recaller.new_hits(question, k=1) == all_hits[1:2]  # the next best, not the same one again
    assert recaller.new_hits(question, k=10) == all_hits[2:]
    assert recaller.new_hits(question, k=10) == []
    assert nanodream.Recaller(str(memory.root)).new_hits(question, k=2) == all_hits[:2]  # a new conversation


def test_json_lists_hits_with_their_fields_and_no_match_is_an_empty_list(memory):
    result = runner.invoke(app, ["recall", "where are we deploying?", "-w", str(memory.root), "--json", "-k", "2"])
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)
    assert 1 <= len(hits) <= 2
    assert all(set(h) == {"text", "file", "line", "heading", "score", "until", "source", "session", "said_on",
                          "speaker"} for h in hits)
    assert {h["source"] for h in hits} == {"memory"} and {h["session"] for h in hits} == {None}
    assert hits[0] == nanodream.recall(memory, "where are we deploying?", k=1)[0].to_dict()
    assert isinstance(hits[0]["line"], int) and isinstance(hits[0]["score"], float)
    none = runner.invoke(app, ["recall", "quantum entanglement", "-w", str(memory.root), "--json"])
    assert none.exit_code == 0 and json.loads(none.output) == []


def test_plain_output_shows_memory_text_verbatim(memory):
    with (memory.root / "memory/MEMORY.md").open("a", encoding="utf-8") as f:
        f.write("- Status colours use [bold red]rich markup[/] in the dashboard.\n")
    result = runner.invoke(app, ["recall", "dashboard colours", "-w", str(memory.root)])
    assert result.exit_code == 0, result.output
    assert "Status colours use [bold red]rich markup[/] in the dashboard." in result.output
    assert "memory/MEMORY.md:" in result.output
    nothing = runner.invoke(app, ["recall", "quantum entanglement", "-w", str(memory.root)])
    assert nothing.exit_code == 0 and "no memory matches" in nothing.output


HYPOTHESES = ("- Prefers answers with deploy commands spelled out <!-- hypothesis: 2 -->\n"
              "- Probably deploys on Mondays <!-- hypothesis: 1 -->\n")


def test_hypotheses_come_apart_from_facts_and_never_as_hits(memory):
    with (memory.root / "USER.md").open("a", encoding="utf-8") as f:
        f.write(HYPOTHESES)
    report = api.recall(memory, "deploys", k=2)
    assert [hit.text for hit in report.hits] == ["Deploys run through the staging cluster before production."]
    assert len(report.related_hypotheses) == 2  # up to k of each: hypotheses never crowd facts out, nor back
    assert len(api.recall(memory, "deploys", k=1).related_hypotheses) == 1
    guessed = {hit.text: hit.evidence for hit in report.related_hypotheses}
    assert guessed == {"Prefers answers with deploy commands spelled out": 2, "Probably deploys on Mondays": 1}
    assert all(hit.file == "USER.md" and hit.line > 0 for hit in report.related_hypotheses)
    assert set(report.to_json()) == {"hits", "related_hypotheses", "related_insights", "as_of", "commit"}
    assert report.to_json()["as_of"] is None and report.to_json()["commit"] is None  # today's memory
    assert set(report.to_json()["related_hypotheses"][0]) == {"text", "file", "line", "heading", "score", "until",
                                                               "source", "session", "said_on", "speaker", "evidence"}
    one = api.recall(memory, "Mondays", k=1)
    assert one.hits == [] and [h.text for h in one.related_hypotheses] == ["Probably deploys on Mondays"]


def test_the_command_shows_hypotheses_apart_and_its_json_list_holds_facts_only(memory):
    with (memory.root / "USER.md").open("a", encoding="utf-8") as f:
        f.write(HYPOTHESES)
    plain = runner.invoke(app, ["recall", "Mondays deploys", "-w", str(memory.root), "-k", "10"]).output
    facts, _, guesses = plain.partition("related hypotheses (inferred by a dream, not stated by the user):")
    assert "Deploys run through the staging cluster" in facts and "Mondays" not in facts
    assert "Probably deploys on Mondays" in guesses and "<!--" not in guesses
    listed = json.loads(runner.invoke(app, ["recall", "Mondays deploys", "-w", str(memory.root), "--json"]).output)
    assert listed and not any("Mondays" in hit["text"] or "hypothesis" in hit["text"] for hit in listed)


def test_a_missing_extra_is_one_line_with_the_install_command_and_exit_2(memory, monkeypatch):
    for module in ("nanodream.retrieval.cache", "nanodream.retrieval.index"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.setitem(sys.modules, "bm25s", None)  # what an environment without the extra looks like
    result = runner.invoke(app, ["recall", "deploys", "-w", str(memory.root)])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {INSTALL_HINT}"
    assert INSTALL_HINT == "recall needs the recall extra: pip install 'nanodream[recall]'"
    with pytest.raises(RecallUnavailable, match="pip install 'nanodream\\[recall\\]'"):
        nanodream.recall(memory, "deploys")


def test_the_index_is_reused_while_files_are_unchanged_and_rebuilt_when_one_changes(memory, monkeypatch):
    builds: list[int] = []
    build = cache.Index.build
    monkeypatch.setattr(cache.Index, "build", lambda documents: builds.append(len(documents)) or build(documents))
    monkeypatch.setattr(cache, "_MEMORY", {})
    first = cache.index_for(memory)
    assert cache.index_for(memory) is first and len(builds) == 1
    with (memory.root / "USER.md").open("a", encoding="utf-8") as f:
        f.write("- Drinks oat milk flat whites.\n")  # a different size, whatever the clock's resolution
    assert nanodream.recall(memory, "what coffee milk?")[0].text == "Drinks oat milk flat whites."
    assert len(builds) == 2 and cache.index_for(memory) is not first
    write_skill(memory, "coffee", "Order the team's coffee.", "1. Ask who wants milk.")
    assert nanodream.recall(memory, "order coffee")[0].file == "skills/coffee/SKILL.md"
    assert len(builds) == 3


def test_a_fresh_process_loads_the_saved_index_instead_of_building(memory, monkeypatch):
    before = nanodream.recall(memory, "where are we deploying?", k=3)
    saved = list(cache.cache_dir(memory).iterdir())
    assert len(saved) == 1 and not saved[0].name.startswith(".")
    monkeypatch.setattr(cache, "_MEMORY", {})  # as a new process starts
    monkeypatch.setattr(cache.Index, "build", lambda documents: pytest.fail("rebuilt although saved"))
    assert nanodream.recall(memory, "where are we deploying?", k=3) == before


def test_a_changed_file_replaces_the_saved_index_and_a_damaged_one_is_rebuilt(memory, monkeypatch):
    nanodream.recall(memory, "deploys")
    [old] = cache.cache_dir(memory).iterdir()
    (memory.root / "SOUL.md").write_text(SOUL + "- Answer in the user's language.\n", encoding="utf-8")
    nanodream.recall(memory, "deploys")
    [new] = cache.cache_dir(memory).iterdir()
    assert new.name != old.name  # the stale index is gone, not accumulating
    (new / "documents.json").write_text("[[1, 2]]", encoding="utf-8")
    monkeypatch.setattr(cache, "_MEMORY", {})
    assert nanodream.recall(memory, "which language should answers use?")[0].text == "Answer in the user's language."


def test_a_read_only_state_folder_still_answers(memory, monkeypatch):
    monkeypatch.setattr(cache, "cache_dir", lambda ws: ws.root / "SOUL.md" / "cannot-be-a-folder")
    monkeypatch.setattr(cache, "_MEMORY", {})
    assert nanodream.recall(memory, "staging cluster", k=1)[0].heading == "Project > Infrastructure"


def test_the_package_root_keeps_recall_a_function_after_the_command_ran(memory):
    runner.invoke(app, ["recall", "deploys", "-w", str(memory.root)])
    assert callable(nanodream.recall) and not isinstance(nanodream.recall, type(sys))
    assert nanodream.recall.__module__ == "nanodream.retrieval.api"
