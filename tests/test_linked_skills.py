"""A symlinked skill — people share skills between agents this way — is left alone, not a reason to refuse
everything: a dream neither reads, writes, indexes nor commits it, and `status` (exit 0) and the run name it
once. Links at history, .git, .nanodream and the core files still stop every command (exit 78)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from nanodream import api
from nanodream.cli import app
from nanodream.run.dream import run_dream
from tests.support.cli import runner
from tests.support.scripted_server import call, final
from tests.support.workspaces import entry, git, llm_settings, write_history

SHARED = "---\nname: shared\ndescription: Deploy with the zanzibar checklist.\n---\n1. Run the zanzibar checklist.\n"


def shared_skills(tmp_path: Path) -> Path:
    folder = tmp_path / "shared-skills"
    (folder / "shared").mkdir(parents=True)
    (folder / "shared" / "SKILL.md").write_text(SHARED)
    (folder / "SKILL.md").write_text(SHARED)
    return folder


def fingerprint(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def link_skill(ws, tmp_path: Path, how: str) -> str:
    outside = shared_skills(tmp_path)
    skills = ws.root / "skills"
    if how == "skill folder":
        (skills / "shared").symlink_to(outside / "shared")
        return "skills/shared"
    if how == "SKILL.md":
        (skills / "shared").mkdir()
        (skills / "shared" / "SKILL.md").symlink_to(outside / "shared" / "SKILL.md")
        return "skills/shared/SKILL.md"
    skills.rmdir()
    skills.symlink_to(outside)
    return "skills"


@pytest.mark.parametrize("how", ["skill folder", "SKILL.md", "skills folder"])
def test_a_linked_skill_is_left_alone_and_named_once(workspace, tmp_path, how):
    linked = link_skill(workspace, tmp_path, how)
    outside = fingerprint(tmp_path / "shared-skills")
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])

    status = runner.invoke(app, ["status", "--json", "-w", str(workspace.root)])
    assert status.exit_code == 0, status.output
    assert json.loads(status.output)["linked_skills"] == [linked]
    text = runner.invoke(app, ["status", "-w", str(workspace.root)])
    assert text.exit_code == 0 and text.output.count(f"{linked} is a symbolic link") == 1, text.output

    done = runner.invoke(app, ["run", "-w", str(workspace.root)])

    assert done.exit_code == 0, done.output
    assert done.output.count(f"{linked} is a symbolic link") == 1
    assert "Go" in (workspace.root / "memory" / "MEMORY.md").read_text()
    assert (workspace.root / linked).is_symlink() and fingerprint(tmp_path / "shared-skills") == outside
    assert not any(path.startswith(linked) for path in git(workspace, "ls-files").splitlines())
    assert git(workspace, "status", "--porcelain", "--", "SOUL.md", "USER.md", "memory/MEMORY.md") == ""
    recalled = api.recall(workspace, "zanzibar checklist")
    assert all("zanzibar" not in hit.text for hit in recalled.hits)


def test_a_model_asked_to_write_the_linked_skill_is_refused_and_the_rest_lands(workspace, tmp_path, serve):
    link_skill(workspace, tmp_path, "skill folder")
    outside = fingerprint(tmp_path / "shared-skills")
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    server = serve([call("write_file", path="skills/shared/SKILL.md", content=SHARED + "2. Also rm -rf.\n"),
                    call("edit_file", path="memory/MEMORY.md", old_text="## Project\n",
                         new_text="## Project\n- The API is written in Go.\n"),
                    final("Filed the API's language.")])
    report = run_dream(workspace, llm_settings(server))
    assert report.outcome == "committed", report.reason  # the refusal did not void the session
    tool_replies = [m for m in server.requests[1]["messages"] if m.get("role") == "tool"]
    assert "linked skill" in str(tool_replies[-1]["content"])
    assert fingerprint(tmp_path / "shared-skills") == outside


@pytest.mark.parametrize("linked", [".nanodream", ".git", "memory/history.jsonl", "SOUL.md", "USER.md",
                                    "memory/MEMORY.md", "memory"])
def test_links_at_history_git_state_and_core_files_still_stop_every_command(workspace, tmp_path, linked):
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    workspace.state_dir.mkdir(exist_ok=True)
    target = workspace.root / linked
    moved = tmp_path / "elsewhere" / linked.replace("/", "_")
    moved.parent.mkdir(exist_ok=True)
    target.rename(moved)
    target.symlink_to(moved)
    for command in (["status"], ["run"], ["log"]):
        done = runner.invoke(app, [*command, "-w", str(workspace.root)])
        assert done.exit_code == 78, (command, done.output)
        assert "symbolic link" in done.output
