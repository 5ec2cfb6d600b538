"""A batch runs a handful of git processes, and what git already answered is asked again whenever it may differ:
a person's commit, a hand edit, a file the dream changed (bench/git_calls.py measures the figure as processes)."""

from __future__ import annotations

from nanodream.run.dream import run_dream
from nanodream.versioning import gitrunner
from nanodream.versioning.gitstore import DREAM_IDENTITY, GitStore, stripspace
from tests.prompting.test_prompt_cache import file_the_batch
from tests.support.workspaces import entry, git, llm_settings, write_history

# What a committing batch needs in steady state (bench/README.md, "Git processes per batch"): status, add,
# write-tree, commit-tree, update-ref and the index sync's reset — 26 processes for these 5 batches. It was 30 per
# batch before issue #38, then 14, then 6.4 (a blame per batch: now worked out from the commit's diff).
CEILING_PER_BATCH = 6


def counted(monkeypatch) -> list[list[str]]:
    calls: list[list[str]] = []
    spawn = gitrunner._spawn

    def counting(root, argv, env, stdin):
        calls.append(argv)
        return spawn(root, argv, env, stdin)

    monkeypatch.setattr(gitrunner, "_spawn", counting)
    return calls


def test_each_committing_batch_runs_few_git_processes(workspace, serve, monkeypatch):
    facts = ["Uses Go.", "Uses chi.", "Uses sqlc.", "Uses htmx.", "Deploys with ko.", "Tests with gotestsum."]
    write_history(workspace, [entry(i + 1, f"[durable] {fact}", day=i + 1) for i, fact in enumerate(facts)])
    server = serve([file_the_batch] * len(facts))
    run_dream(workspace, llm_settings(server, batch_tokens=20, max_batches=1))  # start-up costs paid here
    calls = counted(monkeypatch)
    report = run_dream(workspace, llm_settings(server, batch_tokens=20))
    assert report.outcome == "committed" and len(report.commits) == len(facts) - 1
    assert len(calls) <= CEILING_PER_BATCH * len(report.commits), [argv[2:4] for argv in calls]
    assert all(fact in (workspace.root / "memory/MEMORY.md").read_text() for fact in facts)


def test_head_follows_a_commit_made_by_another_git(workspace):
    store = GitStore(workspace)
    before = store.head_sha()
    (workspace.root / "USER.md").write_text("# User\n\n- Prefers tabs.\n")
    (workspace.root / "notes.txt").write_text("not a memory file\n")
    git(workspace, "add", "-f", "notes.txt")
    git(workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "by hand")
    assert store.head_sha() not in (None, before)
    assert store.head_sha() == git(workspace, "rev-parse", "HEAD").strip()


def test_line_times_follow_the_file_and_commits_the_file_was_not_in(workspace, serve):
    store = GitStore(workspace)
    user = "USER.md"
    before = store.line_times(user)
    write_history(workspace, [entry(1, "[durable] Uses Go.")])
    run_dream(workspace, llm_settings(serve([file_the_batch]), batch_tokens=20))  # a commit without USER.md
    assert store.line_times(user) == before == GitStore(workspace)._blamed(user)
    (workspace.root / user).write_text((workspace.root / user).read_text() + "- Works at night.\n")
    after = store.line_times(user)
    assert after is not None and len(after) == len(before) + 1 and after[-1] is None  # the new line: not committed
    assert after == store._blamed(user)


def test_a_memory_file_ignored_by_gitignore_still_counts_as_changed(workspace):
    (workspace.root / ".gitignore").write_text("memory/MEMORY.md\n")
    (workspace.root / "memory/MEMORY.md").write_text("# Memory\n\n- Hidden from git status.\n")
    git(workspace, "rm", "-q", "--cached", "memory/MEMORY.md")
    assert "memory/MEMORY.md" in GitStore(workspace).dirty_paths()


def test_commit_messages_are_cleaned_exactly_as_git_stripspace_cleans_them(workspace):
    messages = ["", "\n\n", "subject", "  subject  \n\n\n\nbody\t\r\n\n", "\r\n\r\nx\r\n \n",
                "a\n\n \t\n\nb\n\n\n", "trailing tab\t", "é unicode \u202e kept\n", "\x0bvertical\x0c\n",
                "# not a comment here\n\nbody", "line\r\rcr\r"]
    for message in messages:
        by_git = gitrunner.run_git(workspace.root, "stripspace", stdin=message.encode()).stdout.decode()
        assert stripspace(message) == by_git, message


def test_a_commit_after_someone_elses_commit_builds_on_theirs(workspace):
    store = GitStore(workspace)
    memory = workspace.root / "memory/MEMORY.md"
    memory.write_text(memory.read_text() + "- Uses Go.\n")
    first = store.commit("dream: one", DREAM_IDENTITY)
    (workspace.root / "USER.md").write_text("# User\n\n- Prefers tabs.\n")
    (workspace.root / "notes.txt").write_text("not a memory file\n")
    git(workspace, "add", "-f", "notes.txt")
    git(workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "by hand")
    memory.write_text(memory.read_text() + "- Uses chi.\n")
    second = store.commit("dream: two", DREAM_IDENTITY)
    assert second and git(workspace, "rev-parse", f"{second}^") != first
    assert git(workspace, "show", f"{second}:USER.md") == "# User\n\n- Prefers tabs."
    assert git(workspace, "show", f"{second}:notes.txt") == "not a memory file"  # not built on the kept index
    assert git(workspace, "diff", "--name-only", f"{second}^", second) == "memory/MEMORY.md"
    assert git(workspace, "status", "--porcelain", "--", "memory/MEMORY.md", "USER.md") == ""
    assert store.commit("dream: nothing", DREAM_IDENTITY) is None


def test_a_status_kept_between_questions_sees_every_write_since(workspace):
    """The hand-edit check's answer is reused only while nothing changed: an edit of the same size, a new skill
    file, a removed file and a staged change each give the next question to git."""
    store = GitStore(workspace)
    user, skill = workspace.root / "USER.md", workspace.root / "skills" / "deploy" / "SKILL.md"
    assert store.dirty_paths() == []
    user.write_text(user.read_text().replace("#", "!", 1))  # same size, same second
    assert store.dirty_paths() == ["USER.md"]
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: deploy\ndescription: Deploy\n---\n\n1. Run it\n")
    assert store.dirty_paths() == ["USER.md", "skills/deploy/SKILL.md"]
    git(workspace, "checkout", "--", "USER.md")
    skill.unlink()
    assert store.dirty_paths() == []
    (workspace.root / "memory/MEMORY.md").write_text("# Memory\n\n- Staged only.\n")
    git(workspace, "add", "-f", "memory/MEMORY.md")
    assert store.dirty_paths() == ["memory/MEMORY.md"]


def test_a_batch_replacing_facts_asks_git_once_for_all_of_them(workspace, monkeypatch):
    """Each replaced fact is archived from the day its entry taught it (which dream wrote its line): one blame of all
    the replaced lines and one cat-file of the commits blamed, not three processes per fact."""
    from nanodream.config import Settings
    from tests.run.test_supersede import archived, history

    def dream(ws) -> None:  # the batch alone: no insight phases (their commit is their own)
        assert run_dream(ws, Settings(model="builtin", phases=())).outcome == "committed"

    shards = range(5)
    history(workspace, *(("2026-03-14", f"[durable] The ledger shard s{n} is served from host oak{n}.")
                         for n in shards))
    dream(workspace)
    history(workspace, *(("2026-04-01", f"[durable] The billing job b{n} runs at 0{n}:00.") for n in shards))
    calls = counted(monkeypatch)
    dream(workspace)
    adding = len(calls)
    history(workspace, *(("2026-06-02", f"[correction] The ledger shard s{n} is now served from host birch{n}, "
                                        f"not oak{n}.") for n in shards))
    calls.clear()
    dream(workspace)
    assert len(calls) <= adding + 2, " ".join(argv[2] for argv in calls)
    kept = sorted(archived(workspace))
    assert [line.split(" (")[0] for line in kept] == [f"- The ledger shard s{n} is served from host oak{n}"
                                                      for n in shards]
    assert all("(from 2026-03-14 until 2026-06-02; replaced by: The ledger shard" in line for line in kept)
