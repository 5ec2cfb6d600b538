"""The insight phases after a consolidation, with the built-in generator: reflect, re-evaluate, connect, their own
commit, exploration on an empty backlog, and the settings that switch them."""

from __future__ import annotations

import json
from datetime import date

import pytest

from nanodream.config import Settings
from nanodream.insights.reflect import reflect
from nanodream.insights.shelf import read_shelf
from nanodream.memory.staging import Staging
from nanodream.run.context import RunOptions
from nanodream.run.dream import run_dream
from nanodream.run.records import read_records
from nanodream.toolbox.limits import ToolLimits
from nanodream.toolbox.tools import ToolBox
from tests.support.cli import runner
from tests.support.gitdates import commit_at
from tests.support.workspaces import entry, git, snapshot, write_history

DECISION = "Decided to host the billing service on Hetzner in Falkenstein to keep customer data in the EU."
ARCHIVE_REF = f"memory/archive/2026-03.md: {DECISION}"
BILL = "The Hetzner bill doubled this month after the new load balancer went live."
ACTIVE = ("SOUL.md", "USER.md", "memory/MEMORY.md")


def _archive(workspace, *lines: str, month: str = "2026-03", day: str = "2026-03-04") -> None:
    path = workspace.root / f"memory/archive/{month}.md"
    path.parent.mkdir(exist_ok=True)
    body = "".join(f"- {line}\n" for line in lines)
    path.write_text(f"# Archive {month}\n\n## Infrastructure (archived {day})\n{body}")


@pytest.fixture
def hosted(workspace):
    """An archived hosting decision from March, committed."""
    _archive(workspace, DECISION, "The nightly backup copies the invoices database to object storage.")
    commit_at(workspace, "2026-03-04T12:00:00Z", "archive")
    return workspace


def _history(workspace, *contents: str, session: str = "telegram:7") -> None:
    """Append entries (the history keeps what was there: cursors go on)."""
    path = workspace.history_file
    old = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    start = len(old) + 1
    write_history(workspace, old + [entry(start + n, text, session) for n, text in enumerate(contents)])


def _insight_files(workspace) -> list[str]:
    folder = workspace.root / "memory/insights"
    return sorted(p.name for p in folder.glob("*.md")) if folder.is_dir() else []


def test_an_archived_decision_and_a_new_session_on_the_same_named_thing_become_an_insight_citing_both(hosted):
    _history(hosted, f"[durable] {BILL}")
    report = run_dream(hosted, Settings())

    assert report.outcome == "committed", report.reason
    [made] = report.phases.insights
    assert made["change"] == "proposed" and made["status"] == "proposed"
    refs = [source["ref"] for source in made["sources"]]
    assert ARCHIVE_REF in refs
    assert any("Hetzner bill doubled" in ref or ref == "session:telegram:7" for ref in refs)
    assert "Hetzner" in made["summary"] and 3 <= len(made["topics"]) <= 5
    assert _insight_files(hosted) == [f"{made['name']}.md"]
    # its own commit, touching memory/insights/ alone, its spend in its own trailers
    message = git(hosted, "log", "-1", "--format=%B")
    assert message.startswith("insights: 1 proposed") and "Dream-Kind: insights" in message
    assert "Dream-Insight-Tokens: in=0 out=0" in message and "Dream-Tokens" not in message
    touched = git(hosted, "show", "--format=", "--name-only", "HEAD").splitlines()
    assert touched == [f"memory/insights/{made['name']}.md"]
    # run -o / --json carry the insights and the back-edges; the record keeps the phases apart
    data = report.to_json()
    assert data["insights"][0]["name"] == made["name"]
    assert data["back_edges"][ARCHIVE_REF] == [{"insight": made["name"], "status": "proposed", "relation": "supports",
                                                "weight": made["sources"][1]["weight"],
                                                "reason": made["sources"][1]["reason"]}]
    record = read_records(hosted)[-1]
    assert record.phases["insights"] == [{"name": made["name"], "change": "proposed"}]
    assert record.phases["commit"] == git(hosted, "rev-parse", "HEAD")
    assert record.commits == [git(hosted, "rev-parse", "HEAD~1")]  # the consolidation's commits, apart


def test_insights_are_never_facts_never_loaded_nor_editable_by_the_dream(hosted):
    _history(hosted, f"[durable] {BILL}")
    run_dream(hosted, Settings())
    [name] = _insight_files(hosted)
    assert not any(path.startswith("memory/insights") for path in hosted.memory_paths())
    box = ToolBox(Staging(hosted), ToolLimits.from_settings(Settings()))
    assert not box.invoke("read_file", path=f"memory/insights/{name}").ok
    assert not box.invoke("write_file", path=f"memory/insights/{name}", content="x").ok
    for path in ACTIVE:
        assert "insight" not in (hosted.root / path).read_text().lower()


def test_a_forgotten_source_makes_the_insight_stale_on_the_next_run(hosted):
    _history(hosted, f"[durable] {BILL}")
    run_dream(hosted, Settings())
    [name] = _insight_files(hosted)
    _archive(hosted, "The nightly backup copies the invoices database to object storage.")  # the decision is gone
    _history(hosted, "[durable] The team standup moved to 9:30.", session="telegram:8")

    report = run_dream(hosted, Settings())

    changed = {item["name"]: item for item in report.phases.insights}
    assert changed[name.removesuffix(".md")]["change"] == "stale"
    insight = read_shelf(hosted).get(name.removesuffix(".md"))
    assert insight.status == "stale" and insight.updated == date.today()
    assert "re-evaluate: source no longer resolves" in insight.decisions[-1]
    assert "stale" in git(hosted, "log", "-1", "--format=%s")


def test_a_source_superseded_by_a_correction_makes_the_insight_stale(hosted):
    _history(hosted, f"[durable] {BILL}")
    run_dream(hosted, Settings())
    [name] = _insight_files(hosted)
    _archive(hosted, f"{DECISION} (until 2026-10-05; replaced by: The billing service moved to AWS Frankfurt.)")
    _history(hosted, "[durable] The team standup moved to 9:30.", session="telegram:8")
    run_dream(hosted, Settings())
    insight = read_shelf(hosted).get(name.removesuffix(".md"))
    assert insight.status == "stale" and "superseded" in insight.decisions[-1]
    assert "AWS Frankfurt" in insight.decisions[-1]


def test_a_cited_line_that_moves_to_the_archive_is_followed_there(hosted):
    from nanodream.insights.records import check, render

    memory = hosted.root / "memory/MEMORY.md"
    memory.write_text(memory.read_text() + f"- {BILL}\n")
    fields = {"name": "bill-and-host", "summary": "The bill and the host meet. They share Hetzner.",
              "what_if": "What if?", "possible_outcome": "A look.", "rationale": "Shared name.", "likelihood": 0.5,
              "confidence": 0.5, "topics": ["hetzner", "bill", "host"], "themes": [],
              "sources": [{"ref": f"memory/MEMORY.md: {BILL}", "reason": "a", "weight": 0.5, "relation": "extends"},
                          {"ref": ARCHIVE_REF, "reason": "b", "weight": 0.5, "relation": "supports"}]}
    (hosted.root / "memory/insights").mkdir()
    (hosted.root / "memory/insights/bill-and-host.md").write_text(render(check(fields, created=date(2026, 10, 1))))
    commit_at(hosted, "2026-10-01T12:00:00Z", "an insight")
    memory.write_text(memory.read_text().replace(f"- {BILL}\n", ""))  # pressure moved it, as the archive says
    _archive(hosted, f"{BILL}", month="2026-11", day="2026-11-02")
    _history(hosted, "[durable] The team standup moved to 9:30.", session="telegram:8")

    report = run_dream(hosted, Settings())

    insight = read_shelf(hosted).get("bill-and-host")
    assert insight.status == "proposed"
    assert insight.refs == {f"memory/archive/2026-11.md: {BILL}", ARCHIVE_REF}
    [followed] = [item for item in report.phases.insights if item["name"] == "bill-and-host"]
    assert followed["change"] == "followed"


def test_history_that_mentions_an_insight_again_reinforces_it(hosted):
    _history(hosted, f"[durable] {BILL}")
    run_dream(hosted, Settings())
    [name] = _insight_files(hosted)
    _history(hosted, "[durable] Asked Hetzner support why the billing jumped.", session="telegram:9")
    report = run_dream(hosted, Settings())
    insight = read_shelf(hosted).get(name.removesuffix(".md"))
    assert insight.status == "reinforced" and "session:telegram:9" in insight.decisions[-1]
    assert [item["change"] for item in report.phases.insights][:1] == ["reinforced"]


def test_a_rejected_insight_is_never_proposed_again(hosted):
    _history(hosted, f"[durable] {BILL}")
    run_dream(hosted, Settings())
    [name] = _insight_files(hosted)
    path = hosted.root / "memory/insights" / name
    path.write_text(path.read_text().replace("status: proposed", "status: rejected"))
    _history(hosted, "[durable] Hetzner raised the price of the dedicated servers.", session="telegram:9")

    report = run_dream(hosted, Settings())

    assert _insight_files(hosted) == [name]
    assert not [item for item in report.phases.insights if item["change"] == "proposed"]
    assert read_shelf(hosted).get(name.removesuffix(".md")).status == "rejected"


def test_max_insights_bounds_a_run_and_phases_switch_off(hosted):
    _archive(hosted, DECISION, month="2026-03")
    other = hosted.root / "memory/archive/2026-04.md"
    other.write_text("# Archive 2026-04\n\n## Tools (archived 2026-04-02)\n"
                     "- The Grafana dashboard for Kubernetes lives in the ops folder.\n")
    commit_at(hosted, "2026-04-02T12:00:00Z", "archive")
    _history(hosted, f"[durable] {BILL}", "[durable] Grafana alerts now page on Kubernetes node pressure.")
    report = run_dream(hosted, Settings(max_insights=1))
    assert len([i for i in report.phases.insights if i["change"] == "proposed"]) == 1

    _history(hosted, "[durable] Moved the Grafana dashboards for Kubernetes to a new folder.", session="s:2")
    before = _insight_files(hosted)
    report = run_dream(hosted, Settings(phases=()))
    assert report.phases is None and _insight_files(hosted) == before
    assert "insights" not in git(hosted, "log", "-1", "--format=%s")


def test_only_the_phases_asked_for_run(hosted):
    _history(hosted, f"[durable] {BILL}")
    report = run_dream(hosted, Settings(phases=("reflect",)))
    assert report.phases.ran == ["reflect"] and report.phases.reflection is not None
    assert _insight_files(hosted) == [] and report.phases.commit is None


def test_phases_with_nothing_to_read_are_skipped_and_say_so(workspace):
    _history(workspace, "[durable] The staging server runs Debian 12.")
    report = run_dream(workspace, Settings())
    notes = report.phases.notes
    assert any(note.startswith("re-evaluate: skipped") for note in notes)
    assert any(note.startswith("connect: skipped") for note in notes)
    assert report.phases.commit is None and _insight_files(workspace) == []


def test_an_empty_backlog_is_still_nothing_to_do_without_allow_empty(hosted):
    before = snapshot(hosted)
    report = run_dream(hosted, Settings())
    assert report.outcome == "nothing-to-do" and report.phases is None
    assert snapshot(hosted) == before


def _explorable(workspace) -> None:
    _archive(workspace, DECISION, day="2026-03-04")
    older = workspace.root / "memory/archive/2026-01.md"
    older.write_text("# Archive 2026-01\n\n## Costs (archived 2026-01-20)\n"
                     "- Hetzner invoices arrive on the third of each month.\n")
    commit_at(workspace, "2026-03-04T12:00:00Z", "archive")


def test_exploring_an_empty_backlog_connects_old_material_and_changes_no_active_file(workspace, tmp_path):
    _explorable(workspace)
    active = {path: (workspace.root / path).read_bytes() for path in ACTIVE}

    report = run_dream(workspace, Settings(), RunOptions(allow_empty=True))

    assert report.tidy and report.outcome in ("no-change", "committed"), report.reason
    [made] = [item for item in report.phases.insights if item["change"] == "proposed"]
    assert all(ref.startswith("memory/archive/2026-0") for ref in (s["ref"] for s in made["sources"]))
    assert {path: (workspace.root / path).read_bytes() for path in ACTIVE} == active
    # the same day picks the same: another copy of the workspace explores to the same insight
    from nanodream.memory.transaction import ensure_repository
    from nanodream.versioning.gitstore import GitStore
    from nanodream.workspace import Workspace, scaffold

    twin = Workspace.at(tmp_path / "twin")
    scaffold(twin.root)
    ensure_repository(GitStore(twin))
    _explorable(twin)
    again = run_dream(twin, Settings(), RunOptions(allow_empty=True))
    assert [item["name"] for item in again.phases.insights] == [made["name"]]


def test_a_dry_run_shows_what_the_phases_would_write_and_writes_nothing(hosted):
    _history(hosted, f"[durable] {BILL}")
    run_dream(hosted, Settings())
    _archive(hosted, "The nightly backup copies the invoices database to object storage.")  # a source gone
    commit_at(hosted, "2026-11-01T12:00:00Z", "forget the decision")
    _history(hosted, "[durable] The team standup moved to 9:30.", session="telegram:8")
    before = snapshot(hosted)

    report = run_dream(hosted, Settings(), RunOptions(dry_run=True))

    assert report.outcome == "dry-run"
    assert "+status: stale" in report.phases.diff and report.phases.commit is None
    assert snapshot(hosted) == before


def test_reflect_reads_memory_health_without_a_model(workspace):
    memory = workspace.root / "memory/MEMORY.md"
    memory.write_text("# Memory\n\n## Project\n- The API runs on Postgres 15.\n- The API runs on Postgres 16.\n"
                      "- Old note about the printer on floor two.\n")
    commit_at(workspace, "2026-01-01T12:00:00Z")
    user = workspace.root / "USER.md"
    user.write_text("# User\n\n## Preferences\n- Prefers dark mode.\n- Does not prefer dark mode.\n"
                    "- Likes terse answers <!-- hypothesis: 1 of 3, neutral -->\n")
    commit_at(workspace, "2026-10-01T12:00:00Z")
    write_history(workspace, ['{"cursor": "x"}', json.dumps(entry(1, "[durable] ok"))])
    from nanodream.backlog.deadletters import remember
    from nanodream.backlog.history import read_from

    remember(workspace, [item for item in read_from(workspace.history_file) if not hasattr(item, "content")])
    found = reflect(workspace, read_shelf(workspace), 90, today=date(2026, 3, 25))

    assert [item.days_left for item in found.near_archive] == [7, 7, 7]
    assert {d.why for d in found.disagreements} == {"number", "negation"}
    assert found.hypotheses == ["USER.md: Likes terse answers"]
    assert found.dead_letters and found.dead_letters[0].startswith("history.jsonl line 1")
    assert any(line.startswith("disagree (number)") for line in found.lines())


def disagreements_in(workspace, files: dict[str, str]) -> dict[tuple[str, str], str]:
    """What reflect says disagrees in memory files written as `files` (path → text), committed a day before."""
    for path, text in files.items():
        (workspace.root / path).write_text(text)
    commit_at(workspace, "2026-10-01T12:00:00Z")
    found = reflect(workspace, read_shelf(workspace), 90, today=date(2026, 10, 2))
    return {(d.first, d.second): d.why for d in found.disagreements}


def test_reflect_names_two_active_lines_that_give_one_attribute_two_values(workspace):
    pairs = disagreements_in(workspace, {
        "USER.md": "# User\n\n## Identity\n- Timezone: UTC+1 (Berlin)\n- Works at Acme as a designer.\n"
                   "- User moved to New York; timezone is UTC-5.\n",
        "memory/MEMORY.md": "# Memory\n\n## Project\n- The staging database's port is 5432.\n"
                            "- The staging database's port is 6543 since the move.\n"
                            "- Project kiwi deploys on Fridays.\n"})
    assert pairs[("USER.md: Timezone: UTC+1 (Berlin)", "USER.md: User moved to New York; timezone is UTC-5.")] \
        == "two values"
    assert any("5432" in first and "6543" in second for first, second in pairs)
    assert not any("Acme" in first + second or "Fridays" in first + second for first, second in pairs)


def test_reflect_names_a_thing_said_to_be_two_named_values(workspace):
    """"The launch deadline is November 15." and "… is December 1.": one attribute, two values; a thing said to
    be in a state ("The API is fast", "The API is Flask-based") is no attribute's value."""
    pairs = disagreements_in(workspace, {
        "memory/MEMORY.md": "# Memory\n\n## Project\n- The launch deadline is November 15.\n- The API is fast.\n"
                            "- The launch deadline is December 1.\n- The API is Flask-based and typed.\n"})
    assert pairs == {("memory/MEMORY.md: The launch deadline is November 15.",
                      "memory/MEMORY.md: The launch deadline is December 1."): "two values"}


def test_reflect_names_one_tool_given_two_versions_and_not_a_range_or_an_issue_number(workspace):
    """A correction replaces no line when two give a tool a version, so reflect is where the person hears of it."""
    pairs = disagreements_in(workspace, {
        "memory/MEMORY.md": "# Memory\n\n## Project\n- Our backend runs on Python 3.11.\n"
                            "- Issue 41 blocks the release.\n- CI tests the library on Python 3.10 and 3.13.\n"
                            "- We bumped Python to 3.12 for the scripts.\n- Issue 42 is fixed.\n"})
    assert pairs == {("memory/MEMORY.md: Our backend runs on Python 3.11.",
                      "memory/MEMORY.md: We bumped Python to 3.12 for the scripts."): "two versions"}


def test_reflect_names_two_languages_to_answer_in_and_not_rules_about_other_things(workspace):
    pairs = disagreements_in(workspace, {
        "SOUL.md": "# Soul\n\n## Rules\n- Always reply in English.\n- Write commit messages in German.\n"
                   "- Reply to the user in German.\n- Never use semicolons in Python.\n"
                   "- Never use semicolons in JavaScript.\n"})
    assert pairs == {("SOUL.md: Always reply in English.", "SOUL.md: Reply to the user in German."): "two values"}


def test_status_counts_insights_and_shows_connects_spend_apart(hosted):

    from nanodream.cli import app
    from nanodream.config import load_settings
    from nanodream.status import workspace_status

    _history(hosted, f"[durable] {BILL}")
    run_dream(hosted, Settings())
    assert workspace_status(hosted, load_settings(hosted)).insights == {
        "proposed": 1, "reinforced": 0, "stale": 0, "rejected": 0, "promoted": 0, "broken": 0}
    shown = runner.invoke(app, ["status", "-w", str(hosted.root)]).output
    assert "insights   1 proposed (see: nanodream insights)" in shown


def test_a_run_that_learned_nothing_connects_nothing(hosted):
    _history(hosted, f"[durable] {BILL}")
    run_dream(hosted, Settings())
    [name] = _insight_files(hosted)
    _history(hosted, f"[durable] {BILL}", session="telegram:8")  # said again: memory holds it already
    report = run_dream(hosted, Settings())
    assert report.outcome == "no-change"
    assert "connect: skipped (this run changed no memory file: it learned nothing new to connect)" in \
        report.phases.notes
    assert _insight_files(hosted) == [name]


def test_with_every_change_waiting_for_review_the_phases_commit_nothing(hosted):
    _history(hosted, f"[durable] {BILL}")
    head = git(hosted, "rev-parse", "HEAD")
    report = run_dream(hosted, Settings(review="all"))
    assert report.batches[0].proposal and report.phases is None
    assert "insights: the phases did not run; every change waits for review (review = all)" in report.notices
    assert git(hosted, "rev-parse", "HEAD") == head and _insight_files(hosted) == []


def test_a_session_saying_again_what_an_active_line_says_is_no_connection(hosted):
    memory = hosted.root / "memory/MEMORY.md"
    memory.write_text(memory.read_text() + "- The Grafana dashboard for Kubernetes lives in the ops folder.\n")
    commit_at(hosted, "2026-04-02T12:00:00Z", "a line")
    _history(hosted, "[durable] The Grafana dashboard for Kubernetes lives in the ops folder.",
             "[durable] The team standup moved to 9:30.")
    report = run_dream(hosted, Settings())
    assert report.outcome == "committed", report.reason  # the run learned something, so connect looked
    assert "connect" in report.phases.ran
    assert not [item for item in report.phases.insights if item["change"] == "proposed"]
    assert _insight_files(hosted) == []


def test_a_session_that_says_more_about_an_archived_decision_connects_to_it(hosted):
    # every term of the decision is in the session, which says more: two things that meet, not a repetition
    _history(hosted, "[durable] The billing service hosted on Hetzner in Falkenstein was down for an hour. "
                     "Customer data stays in the EU, but the outage cost us the Friday invoices run.")
    report = run_dream(hosted, Settings())
    [made] = [item for item in report.phases.insights if item["change"] == "proposed"]
    assert ARCHIVE_REF in [source["ref"] for source in made["sources"]]


def test_the_summary_quotes_the_sentence_that_holds_what_the_pair_shares(hosted):
    _history(hosted, "[durable] Lunch was late today. The Hetzner bill for Falkenstein doubled after the new "
                     "load balancer went live.")
    report = run_dream(hosted, Settings())
    [made] = [item for item in report.phases.insights if item["change"] == "proposed"]
    assert "Lunch" not in made["summary"] and "Hetzner bill" in made["summary"]
    # its first sentence, what a promote files, carries both quotes and where each comes from
    from nanodream.insights.records import statement

    said = statement(read_shelf(hosted).get(made["name"]))
    assert "Hetzner bill" in said and "Decided to host the billing service" in said
    assert "(said 2026-10-01)" in said and "(archived 2026-03-04)" in said
    assert "telegram:7" not in made["summary"] + made["what_if"]  # a session key is cited in sources, not prose


def test_exploring_dates_active_lines_and_skills_by_their_commit_so_old_ones_are_connected(workspace):
    from datetime import UTC, datetime

    from nanodream import clock

    user, memory = workspace.root / "USER.md", workspace.root / "memory/MEMORY.md"
    user.write_text(user.read_text() + "- Keeps the family photo backup on Hetzner Storage Box in Helsinki.\n")
    memory.write_text(memory.read_text() + "- The billing service runs on Hetzner in Falkenstein since March.\n")
    commit_at(workspace, "2026-02-01T12:00:00Z", "what the person wrote in February")
    active = {path: (workspace.root / path).read_bytes() for path in ACTIVE}

    with clock.pinned(datetime(2026, 6, 1, 9, 0, tzinfo=UTC)):  # the lines stay active: none is cold enough to move
        report = run_dream(workspace, Settings(archive_after_days=365), RunOptions(allow_empty=True))

    assert report.tidy and report.outcome in ("no-change", "committed"), report.reason
    made = [item for item in report.phases.insights if item["change"] == "proposed"]
    cited = {source["ref"].split(": ", 1)[0] for item in made for source in item["sources"]}
    assert made and cited == {"USER.md", "memory/MEMORY.md"}, report.phases.notes
    assert {path: (workspace.root / path).read_bytes() for path in ACTIVE} == active


def test_exploring_leaves_active_lines_committed_within_thirty_days_alone(workspace):
    from datetime import UTC, datetime

    from nanodream import clock

    user, memory = workspace.root / "USER.md", workspace.root / "memory/MEMORY.md"
    user.write_text(user.read_text() + "- Keeps the family photo backup on Hetzner Storage Box in Helsinki.\n")
    memory.write_text(memory.read_text() + "- The billing service runs on Hetzner in Falkenstein since March.\n")
    commit_at(workspace, "2026-05-20T12:00:00Z", "what the person wrote in May")

    with clock.pinned(datetime(2026, 6, 1, 9, 0, tzinfo=UTC)):
        report = run_dream(workspace, Settings(archive_after_days=365), RunOptions(allow_empty=True))

    assert not [item for item in report.phases.insights if item["change"] == "proposed"]
    assert any("no material older than 30 days" in note for note in report.phases.notes), report.phases.notes


def test_reflect_names_two_places_the_person_lives_said_in_their_language(workspace):
    pairs = disagreements_in(workspace, {
        "USER.md": "# User\n\n## Identity\n- Ich wohne in München.\n- Ich arbeite bei Siemens.\n"
                   "- Ich wohne in Berlin.\n- 我住在上海。\n"})
    assert pairs[("USER.md: Ich wohne in München.", "USER.md: Ich wohne in Berlin.")] == "two values"
    assert ("USER.md: Ich wohne in München.", "USER.md: 我住在上海。") in pairs  # one attribute in any language
    assert not any("Siemens" in first + second for first, second in pairs)
