"""`nanodream pin`: a person keeps a line active for good; nothing nanodream runs may drop or archive it."""

from __future__ import annotations

import json

from nanodream.cli import app
from nanodream.config import Settings
from nanodream.edits.pin import pin
from nanodream.memory.staging import Staging
from nanodream.pinning import PIN
from nanodream.run import guards
from nanodream.toolbox.limits import ToolLimits
from nanodream.toolbox.tools import ToolBox
from nanodream.vocab import ExitCode
from tests.support.cli import runner
from tests.support.workspaces import git, snapshot

MEMORY = "memory/MEMORY.md"


def memory(workspace, text: str) -> None:
    (workspace.root / MEMORY).write_text(text)
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "memory")


def test_pin_marks_the_one_matching_line_in_its_own_commit(workspace):
    memory(workspace, "# Memory\n\n## Project\n- Deploys go through   staging first.\n- Uses Go 1.23.\n")
    report = pin(workspace, "deploys go through STAGING")
    assert report.changed and report.path == MEMORY and report.line == 4
    assert (workspace.root / MEMORY).read_text().splitlines()[3] == f"- Deploys go through   staging first. {PIN}"
    assert git(workspace, "log", "-1", "--format=%s") == "pin: Deploys go through staging first. (memory/MEMORY.md)"
    assert "Dream-Kind: manual" in git(workspace, "log", "-1", "--format=%B")
    head = git(workspace, "rev-parse", "HEAD")

    again = pin(workspace, "staging first")
    assert not again.changed and git(workspace, "rev-parse", "HEAD") == head  # already pinned: no commit

    removed = pin(workspace, "staging first", remove=True)
    assert removed.changed and PIN not in (workspace.root / MEMORY).read_text()
    assert git(workspace, "log", "-1", "--format=%s").startswith("unpin: Deploys go through")


def test_an_ambiguous_or_missing_text_changes_nothing(workspace):
    memory(workspace, "# Memory\n\n## Project\n- Uses Go.\n- Uses Go modules.\n")
    before = snapshot(workspace)
    result = runner.invoke(app, ["pin", "-w", str(workspace.root), "uses go"])
    assert result.exit_code == ExitCode.USAGE
    assert "memory/MEMORY.md:4: - Uses Go." in result.output and "2 lines of the active memory files" in result.output
    missing = runner.invoke(app, ["pin", "-w", str(workspace.root), "--json", "rust"])
    assert missing.exit_code == ExitCode.FAILED and "no line" in json.loads(missing.stdout)["error"]
    assert snapshot(workspace) == before
    narrowed = runner.invoke(app, ["pin", "-w", str(workspace.root), "--json", "uses go modules"])
    assert narrowed.exit_code == 0 and json.loads(narrowed.stdout)["line"] == 5


def test_a_skill_front_matter_line_is_never_a_candidate(workspace):
    folder = workspace.root / "skills/release"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: release\ndescription: Cut a release.\n---\n\n1. Cut a release tag.\n")
    assert pin(workspace, "cut a release").line == 6


def test_pin_refuses_a_path_outside_memory(workspace):
    report = pin(workspace, "x", path="../etc/passwd")
    assert report.outcome == "refused" and report.exit_code == ExitCode.USAGE


def test_the_tools_and_the_guards_keep_pinned_lines(workspace):
    pinned = f"- Never deploy on Fridays. {PIN}"
    memory(workspace, f"# Memory\n\n## Project\n{pinned}\n- Uses Go.\n")
    staging = Staging(workspace)
    box = ToolBox(staging, ToolLimits.from_settings(Settings()))
    dropped = box.invoke("write_file", path=MEMORY, content="# Memory\n\n## Project\n- Uses Go.\n")
    assert not dropped.ok and "pinned by a person" in dropped.text
    edited = box.invoke("edit_file", path=MEMORY, old_text="Never deploy on Fridays.", new_text="Deploy whenever.")
    assert not edited.ok and "pinned by a person" in edited.text
    archived = box.invoke("archive_lines", path=MEMORY, text=pinned)
    assert not archived.ok and "pinned lines stay active" in archived.text
    assert PIN in staging.read(MEMORY)

    staging.write(MEMORY, "# Memory\n\n## Project\n- Uses Go.\n")  # as if a tool had let it through
    violations = guards.check(staging, None, Settings(), ToolLimits.from_settings(Settings()))
    assert [v.rule for v in violations if v.blocking] == ["pinned line removed"]
