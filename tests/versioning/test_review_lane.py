"""The review lane over real multi-run histories: proposals on refs/nanodream/pending, accept and reject."""

from __future__ import annotations

import pytest

from nanodream.backlog.history import read_cursor
from nanodream.config import Settings
from nanodream.edits.restore import restore_commit
from nanodream.edits.review import Selection, accept, reject
from nanodream.run.context import RunOptions
from nanodream.run.dream import run_dream
from nanodream.status import workspace_status
from nanodream.versioning.gitstore import GitStore
from nanodream.versioning.pending import PENDING_REF, proposals
from tests.support.cli import cli
from tests.support.memory_engine import LiteralEngine, append_history, dream, dream_settings
from tests.support.workspaces import entry, git, snapshot

MEMORY, USER, SOUL, REJECTED = "memory/MEMORY.md", "USER.md", "SOUL.md", "memory/rejected.md"


def read(ws, path: str) -> str:
    return (ws.root / path).read_text()


def review_dream(ws, *items, engine=None, settings=None):
    append_history(ws, *items)
    engine = engine or LiteralEngine()
    options = RunOptions(review=settings is None)  # with settings: the review setting decides
    report = run_dream(ws, settings or dream_settings(), options, engine_factory=lambda s: engine)
    assert report.outcome in ("committed", "no-change", "nothing-to-do"), report.reason
    return report


@pytest.fixture
def lane(workspace):
    """A dream on the branch, then three review runs: P1 MEMORY += redis, P2 USER += jazz, P3 MEMORY += Ana."""
    ws = workspace
    dream(ws, entry(1, "[durable] memory/MEMORY.md: Uses postgres 16"))
    review_dream(ws, entry(2, "[durable] memory/MEMORY.md: Uses redis"))
    review_dream(ws, entry(3, "[permanent] USER.md: Likes jazz"))
    review_dream(ws, entry(4, "[durable] memory/MEMORY.md: On-call is Ana"))
    return ws


def test_a_review_run_leaves_branch_files_and_index_alone_and_advances_the_cursor(workspace):
    ws = workspace
    dream(ws, entry(1, "[durable] memory/MEMORY.md: Uses postgres 16"))
    (ws.root / USER).write_text(read(ws, USER) + "- hand: staged by the person\n")
    git(ws, "add", USER)  # something in the person's index
    append_history(ws, entry(2, "[durable] memory/MEMORY.md: Uses redis"))
    before, status = snapshot(ws), git(ws, "status", "--porcelain")

    report = review_dream(ws)

    after = snapshot(ws)
    assert after.pop("memory/.dream_cursor") != before.pop("memory/.dream_cursor")
    assert after == before and git(ws, "status", "--porcelain") == status == f"M  {USER}"
    assert report.batches[0].commit is None and report.batches[0].proposal == git(ws, "rev-parse", PENDING_REF)
    assert read_cursor(ws.cursor_file) == 2
    [proposal] = proposals(GitStore(ws))
    assert proposal.state == "pending" and proposal.files == [{"path": MEMORY, "added": 1, "removed": 0}]
    assert "Dream-Kind: dream" in git(ws, "log", "-1", "--format=%B", PENDING_REF)


def test_later_review_runs_see_pending_memory_and_do_not_propose_twice(workspace):
    ws = workspace
    settings = Settings(model="builtin", review="all")  # `review = true`; the builtin engine skips known facts
    append_history(ws, entry(1, "[durable] The API is written in Go."))
    assert run_dream(ws, settings).batches[0].proposal
    append_history(ws, entry(2, "[durable] The API is written in Go."), entry(3, "[durable] Staging runs in eu-west."))
    second = run_dream(ws, settings)
    chain = proposals(GitStore(ws))
    assert len(chain) == 2 and second.batches[0].proposal == chain[1].sha
    tip = git(ws, "show", f"{chain[1].sha}:{MEMORY}")
    assert tip.count("written in Go") == 1 and "eu-west" in tip
    assert "written in Go" not in read(ws, MEMORY)


def test_accept_all_lands_each_proposal_as_a_dream_commit_in_order(lane):
    ws = lane
    head = git(ws, "rev-parse", "HEAD")
    report = accept(ws, Selection(everything=True))
    assert report.outcome == "accepted" and len(report.commits) == 3 and report.pending == []
    assert read(ws, MEMORY).endswith("- Uses postgres 16\n- Uses redis\n- On-call is Ana\n")
    assert "- Likes jazz" in read(ws, USER)
    assert git(ws, "rev-list", "--count", f"{head}..HEAD") == "3"
    assert git(ws, "log", "-1", "--format=%B").count("Dream-Kind: dream") == 1
    assert git(ws, "status", "--porcelain") == "" and proposals(GitStore(ws)) == []


def test_accepting_one_in_the_middle_rebuilds_the_rest_on_the_new_head(lane):
    ws = lane
    first, middle, last = proposals(GitStore(ws))
    report = accept(ws, Selection(ref=middle.id))
    assert report.outcome == "accepted" and report.ids == [middle.id]
    assert "- Likes jazz" in read(ws, USER) and "redis" not in read(ws, MEMORY)
    rest = proposals(GitStore(ws))
    assert [p.run_id for p in rest] == [first.run_id, last.run_id] and all(p.state == "pending" for p in rest)
    assert git(ws, "merge-base", "HEAD", PENDING_REF) == git(ws, "rev-parse", "HEAD")
    assert accept(ws, Selection(ref=last.run_id)).outcome == "accepted"  # a run id works too
    assert read(ws, MEMORY).endswith("- Uses postgres 16\n- On-call is Ana\n")


def test_accept_one_file_keeps_the_rest_of_that_proposal_pending(workspace):
    ws = workspace
    review_dream(ws, entry(1, "[durable] memory/MEMORY.md: Uses redis"), entry(2, "[permanent] USER.md: Likes jazz"))
    [proposal] = proposals(GitStore(ws))
    assert accept(ws, Selection(ref=proposal.id, path=USER)).outcome == "accepted"
    assert "- Likes jazz" in read(ws, USER) and "redis" not in read(ws, MEMORY)
    message = git(ws, "log", "-1", "--format=%B")
    assert "Changes (from the diff):\n- USER.md: modified (+1 -0)\n\n" in message, message  # what landed
    [rest] = proposals(GitStore(ws))
    assert [f["path"] for f in rest.files] == [MEMORY]


def test_hand_edits_made_meanwhile_survive_accept(lane):
    ws = lane
    memory = ws.root / MEMORY
    memory.write_text(memory.read_text().replace("# Memory\n", "# Memory of ledgerline\n") + "- hand: eu-west\n")
    report = accept(ws, Selection(everything=True))
    assert report.outcome == "accepted" and report.manual_commit
    text = read(ws, MEMORY)
    assert text.startswith("# Memory of ledgerline\n") and "- hand: eu-west" in text and "- On-call is Ana" in text


def test_reject_records_the_facts_and_later_runs_never_propose_them_again(lane):
    ws = lane
    first, middle, last = proposals(GitStore(ws))
    report = reject(ws, Selection(ref=first.id), reason="we dropped redis")
    assert report.outcome == "rejected" and report.rejected == ["Uses redis"]
    assert "- Uses redis <!-- memory/MEMORY.md · rejected proposal" in read(ws, REJECTED)
    assert "we dropped redis" in read(ws, REJECTED)
    assert [p.run_id for p in proposals(GitStore(ws))] == [middle.run_id, last.run_id]
    review_dream(ws, entry(5, "[durable] memory/MEMORY.md: uses Redis"), entry(6, "[durable] memory/MEMORY.md: Ships"))
    latest = proposals(GitStore(ws))[-1]
    assert git(ws, "show", f"{latest.sha}:{MEMORY}").count("edis") == 0  # other history repeats it: not proposed
    accept(ws, Selection(everything=True))
    assert "redis" not in read(ws, MEMORY).lower() and "- Ships" in read(ws, MEMORY)


def test_reject_all_empties_the_chain(lane):
    ws = lane
    files = {p: read(ws, p) for p in (MEMORY, USER)}
    report = reject(ws, Selection(everything=True))
    assert report.outcome == "rejected" and report.pending == [] and len(report.rejected) == 3
    assert {p: read(ws, p) for p in (MEMORY, USER)} == files
    assert GitStore(ws).ref_sha(PENDING_REF) is None


def test_a_proposal_that_no_longer_applies_is_marked_conflicted_and_accepting_it_refuses(workspace):
    ws = workspace
    dream(ws, entry(1, "[durable] memory/MEMORY.md: Deploys on Fridays"))
    review_dream(ws, entry(2, "[correction] memory/MEMORY.md: Deploys on Fridays => Deploys on Mondays"))
    review_dream(ws, entry(3, "[permanent] USER.md: Likes jazz"))
    memory = ws.root / MEMORY
    memory.write_text(read(ws, MEMORY).replace("- Deploys on Fridays\n", "- Deploys on Fridays at 9\n"))
    git(ws, "commit", "-qam", "manual: hand edit\n\nDream-Kind: manual")
    fix, jazz = proposals(GitStore(ws))

    assert accept(ws, Selection(ref=jazz.id)).outcome == "accepted"
    [conflicted] = proposals(GitStore(ws))
    assert conflicted.state == "conflicted" and "'- Deploys on Fridays' was changed since" in conflicted.reason
    assert conflicted.files == [{"path": MEMORY, "added": 1, "removed": 1}]  # its diff is kept
    before = snapshot(ws)
    report = accept(ws, Selection(ref=conflicted.id))
    assert report.outcome == "refused" and report.exit_code == 1 and "Deploys on Fridays" in report.reason
    assert snapshot(ws) == before
    assert reject(ws, Selection(ref=conflicted.id)).rejected == ["Deploys on Mondays"]


def test_unknown_ids_refuse_and_change_nothing(lane):
    ws = lane
    before, chain = snapshot(ws), git(ws, "rev-parse", PENDING_REF)
    report = accept(ws, Selection(ref="deadbeef"))
    assert report.outcome == "refused" and report.exit_code == 2 and "no pending proposal" in report.reason
    assert reject(ws, Selection()).exit_code == 2
    assert snapshot(ws) == before and git(ws, "rev-parse", PENDING_REF) == chain


def test_review_soul_holds_back_only_soul_changes(workspace):
    ws = workspace
    settings = dream_settings(review="soul", soul_policy="open")
    report = review_dream(ws, entry(1, "[durable] memory/MEMORY.md: Uses redis"),
                          entry(2, "[permanent] SOUL.md: Answer briefly"), settings=settings)
    batch = report.batches[0]
    assert batch.commit and batch.proposal
    assert "- Uses redis" in read(ws, MEMORY) and "Answer briefly" not in read(ws, SOUL)
    [proposal] = proposals(GitStore(ws))
    assert [f["path"] for f in proposal.files] == [SOUL]


def test_slash_commands_list_accept_and_reject(lane):
    from nanodream.slash import respond

    ws = lane
    first, middle, last = proposals(GitStore(ws))
    listed = respond(ws.root, "/dream-accept")
    assert listed.exit_code == 0 and f"`{first.id}`" in listed.markdown and "/dream-accept all" in listed.markdown
    assert proposals(GitStore(ws))[0].sha == first.sha  # listing changed nothing
    review = respond(ws.root, "/dream-review").markdown
    assert "```diff" in review and "+- Uses redis" in review
    rejected = respond(ws.root, f"/dream-reject {first.id} not true")
    assert rejected.exit_code == 0 and "Rejected" in rejected.markdown and "Uses redis" in rejected.markdown
    accepted = respond(ws.root, "/dream-accept all")
    assert accepted.exit_code == 0 and "0 proposals still pending" in accepted.markdown
    assert "- On-call is Ana" in read(ws, MEMORY) and "not true" in read(ws, REJECTED)
    assert respond(ws.root, "/dream-accept nope").exit_code == 2


def test_a_review_run_lays_the_chain_again_on_a_branch_that_moved(lane):
    ws = lane
    user = ws.root / USER
    user.write_text(user.read_text() + "- hand: likes rain\n")
    git(ws, "commit", "-qam", "manual: hand edit\n\nDream-Kind: manual")
    report = review_dream(ws, entry(5, "[permanent] USER.md: Has a cat"))
    assert "laid again" in report.notices[0]
    chain = proposals(GitStore(ws))
    assert len(chain) == 4 and all(p.state == "pending" for p in chain)
    assert "- hand: likes rain" in git(ws, "show", f"{chain[-1].sha}:{USER}")
    assert git(ws, "merge-base", "HEAD", PENDING_REF) == git(ws, "rev-parse", "HEAD")
    assert workspace_status(ws, Settings()).proposals == {"pending": 4, "conflicted": 0}


def test_a_file_the_proposal_does_not_change_is_a_usage_error(lane):
    ws = lane
    first = proposals(GitStore(ws))[0]
    before = snapshot(ws)
    report = accept(ws, Selection(ref=first.id, path=USER))
    assert report.exit_code == 2 and f"does not change {USER}" in report.reason
    assert snapshot(ws) == before and len(proposals(GitStore(ws))) == 3


def test_the_cli_runs_lists_accepts_and_rejects(workspace):
    ws = workspace
    append_history(ws, entry(1, "[durable] The API is written in Go."), entry(2, "[permanent] User prefers tea."))
    run = cli("run", "--review", "-w", str(ws.root))
    assert run.exit_code == 0 and "waits for `nanodream review`" in run.stdout
    assert git(ws, "log", "-1", "--format=%s").startswith("init")  # nothing on the branch
    listed = cli("review", "-w", str(ws.root))
    [proposal] = proposals(GitStore(ws))
    assert listed.exit_code == 0 and proposal.id in listed.stdout and "+- The API is written in Go." in listed.stdout
    rejected = cli("review", "-w", str(ws.root), "reject", proposal.id, "--file", USER)
    assert rejected.exit_code == 0 and "recorded as rejected" in rejected.stdout
    assert "1 proposal still pending" in rejected.stdout
    accepted = cli("review", "accept", "--all", "-w", str(ws.root))
    assert accepted.exit_code == 0 and "✓ accepted" in accepted.stdout
    assert "written in Go" in read(ws, MEMORY) and "tea" not in read(ws, USER)
    assert cli("review", "accept", "nope", "-w", str(ws.root)).exit_code == 2


def test_an_accepted_proposal_never_undoes_a_later_replay(workspace):
    ws = workspace
    dream(ws, entry(1, "[durable] memory/MEMORY.md: Uses postgres 16"))
    first = git(ws, "rev-parse", "HEAD")
    review_dream(ws, entry(2, "[durable] memory/MEMORY.md: Uses redis"))
    assert restore_commit(ws, first, replay=True).cursor_after == 0
    accept(ws, Selection(everything=True))
    assert "Dream-Accepted: " in git(ws, "log", "-1", "--format=%B")
    engine = LiteralEngine()
    rerun = dream(ws, engine=engine)
    assert "fast-forward" not in rerun.recovered and engine.batches == [(1, 2)]  # the replay stands


def test_a_review_dry_run_previews_against_the_pending_proposals_and_changes_nothing(lane):
    ws = lane
    append_history(ws, entry(5, "[durable] memory/MEMORY.md: Ships weekly"))
    before, chain = snapshot(ws), git(ws, "rev-parse", PENDING_REF)
    engine = LiteralEngine()
    report = run_dream(ws, dream_settings(), RunOptions(review=True, dry_run=True), engine_factory=lambda s: engine)
    diff = report.batches[0].diff
    assert report.outcome == "dry-run" and "+- Ships weekly" in diff and " - On-call is Ana" in diff
    assert snapshot(ws) == before and git(ws, "rev-parse", PENDING_REF) == chain
