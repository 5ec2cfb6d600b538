"""A sync runs nothing a repository configures: no merge driver or attribute (nanodream merges itself), no
upload-pack or receive-pack program named for the remote, no transport beyond a path, ssh and https."""

from __future__ import annotations

from nanodream import api
from tests.support.remotes import bare_remote, dream_facts, machine_workspace, refs, run


def test_no_merge_driver_or_attribute_applies_not_even_in_info_attributes(tmp_path):
    remote = bare_remote(tmp_path / "memory.git")
    alpha = machine_workspace(tmp_path / "alpha", "alpha", remote)
    beta = machine_workspace(tmp_path / "beta", "beta", remote)
    marker = tmp_path / "driver-ran"
    for ws in (alpha, beta):
        run(ws.root, "config", "merge.evil.driver", f"touch {marker}; cp %B %A")
        run(ws.root, "config", "merge.union.driver", f"touch {marker}")
        (ws.root / ".git" / "info" / "attributes").write_text("* merge=evil\n")
    (alpha.root / ".gitattributes").write_text("*.md merge=union\n")
    dream_facts(alpha, ["[durable] The API is written in Go."])
    assert api.sync(alpha).exit_code == 0
    dream_facts(beta, ["[durable] The deploy target is Fly.io."])
    (beta.root / "USER.md").write_text((beta.root / "USER.md").read_text() + "- Lives in Porto\n")
    report = api.sync(beta)
    assert report.exit_code == 0 and report.commit is not None
    assert not marker.exists()
    memory = (beta.root / "memory/MEMORY.md").read_text()
    assert memory.count("written in Go") == 1 and memory.count("Fly.io") == 1
    assert len(run(beta.root, "log", "-1", "--format=%P").split()) == 2  # both tips are its parents


def test_programs_and_transports_the_repository_names_for_its_remote_are_never_run(tmp_path):
    remote = bare_remote(tmp_path / "memory.git")
    alpha = machine_workspace(tmp_path / "alpha", "alpha", remote)
    marker = tmp_path / "program-ran"
    run(alpha.root, "config", "remote.origin.uploadpack", f"touch {marker}; git-upload-pack")
    run(alpha.root, "config", "remote.origin.receivepack", f"touch {marker}; git-receive-pack")
    run(alpha.root, "config", "core.sshCommand", f"touch {marker}; ssh")
    assert api.sync(alpha).exit_code == 0
    assert not marker.exists()

    run(alpha.root, "remote", "set-url", "origin", f"ext::sh -c touch% {marker}")
    before = refs(alpha.root)
    report = api.sync(alpha)
    assert report.exit_code == 1 and not marker.exists()
    assert refs(alpha.root) == before


def test_a_skill_linked_on_this_machine_is_never_written_through_and_the_remote_keeps_its_own(tmp_path):
    remote = bare_remote(tmp_path / "memory.git")
    alpha = machine_workspace(tmp_path / "alpha", "alpha", remote)
    beta = machine_workspace(tmp_path / "beta", "beta", remote)
    shared = tmp_path / "another-agent" / "deploy"
    shared.mkdir(parents=True)
    (shared / "SKILL.md").write_text("---\nname: deploy\ndescription: another agent's\n---\n1. theirs\n")
    (alpha.root / "skills" / "deploy").symlink_to(shared)
    skill = beta.root / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: deploy\ndescription: deploy the app\n---\n1. build\n2. ship\n")
    assert api.sync(beta).exit_code == 0
    dream_facts(alpha, ["[durable] The API is written in Go."])
    report = api.sync(alpha)
    assert report.exit_code == 0, report.reason
    assert (shared / "SKILL.md").read_text().endswith("1. theirs\n")  # the other agent's file, untouched
    assert "2. ship" in run(remote, "show", "main:skills/deploy/SKILL.md")


def test_only_plainly_spelled_memory_paths_travel():
    from nanodream.sync.arrivals import tracked

    assert all(tracked(path) for path in ("SOUL.md", ".gitignore", "skills/deploy/SKILL.md", "nanodream.toml",
                                          "memory/archive/2027-03.md", "memory/insights/billing.md"))
    assert not any(tracked(path) for path in ("memory/history.jsonl", "memory/.dream_cursor", "nanodream.local.toml",
                                              ".nanodream/journal.json", "skills/../.git/config",
                                              "skills/.git/hooks/post-commit", "prompts/.hidden", "notes.md"))
