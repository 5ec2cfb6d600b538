"""Issue 44 reproductions 10 and 11, closed by issue 47 point 6: a hand edit made between a run's start checks and
its commit — while litellm loads, while a slow model answers — is the person's own commit, the dream's lines land
on top of it through the same three-way merge a sync uses, `restore` of the dream never takes it, and a credential
typed there stops the run before anything is committed (exit 78), whichever engine dreams."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nanodream import api
from nanodream.backlog.history import read_cursor
from nanodream.config import Settings
from nanodream.engines import engine_for
from nanodream.run.dream import run_dream
from tests.support.scripted_server import call, final, keeps_nothing
from tests.support.workspaces import entry, git, llm_settings, write_history

AWS_KEY = "AKIA" + "R5TX2MQ8VZ3KL7NW"
BUILTIN = Settings(phases=())


def editing_before_the_session(edit: Callable[[], None]) -> Callable[[Settings], Any]:
    """An engine factory that makes the person's edit first: the window between the run's start checks (the door
    has committed earlier hand edits) and its session (litellm importing, nine seconds on a cold start)."""

    def factory(settings: Settings) -> Any:
        edit()
        return engine_for(settings)

    return factory


def append(path, line: str) -> Callable[[], None]:
    return lambda: path.write_text(path.read_text() + line + "\n")


def added_lines(ws, sha: str) -> list[str]:
    shown = git(ws, "show", "--format=", sha)
    return [line[1:] for line in shown.splitlines() if line.startswith("+") and not line.startswith("+++")]


def test_a_hand_edit_before_the_session_is_its_own_commit_and_restoring_the_dream_keeps_it(workspace):
    write_history(workspace, [entry(1, "[permanent] User prefers green tea in the morning.")])
    user = workspace.root / "USER.md"
    report = run_dream(workspace, BUILTIN, engine_factory=editing_before_the_session(append(user, "- Lives in Porto")))
    assert report.exit_code == 0 and report.outcome == "committed", report.reason

    dream, manual = git(workspace, "rev-list", "-2", "HEAD").split()
    assert added_lines(workspace, manual) == ["- Lives in Porto"]
    message = git(workspace, "log", "-1", "--format=%B", manual)
    assert "Dream-Kind: manual" in message and "Dream-Run" not in message and "Dream-Cursor" not in message
    assert "- Lives in Porto" not in added_lines(workspace, dream)
    assert any("green tea" in line for line in added_lines(workspace, dream))
    assert read_cursor(workspace.cursor_file) == 1

    undone = api.restore(workspace, dream)
    assert undone.exit_code == 0, undone.reason
    text = user.read_text()
    assert "- Lives in Porto" in text and "green tea" not in text
    rejected = workspace.root / "memory/rejected.md"
    assert "Porto" not in (rejected.read_text() if rejected.exists() else "")


def test_a_credential_typed_before_the_session_stops_the_run_before_anything_is_committed(workspace):
    write_history(workspace, [entry(1, "[permanent] User prefers green tea in the morning.")])
    user = workspace.root / "USER.md"
    head = git(workspace, "rev-parse", "HEAD")
    edit = append(user, f"- AWS key {AWS_KEY}")
    report = run_dream(workspace, BUILTIN, engine_factory=editing_before_the_session(edit))

    assert report.exit_code == 78 and report.reason.startswith("USER.md line") and AWS_KEY not in report.reason
    assert git(workspace, "rev-parse", "HEAD") == head and read_cursor(workspace.cursor_file) == 0
    assert AWS_KEY not in git(workspace, "log", "-p", "--all")
    assert user.read_text().endswith(f"- AWS key {AWS_KEY}\n")  # the person's file as they left it


def test_a_hand_edit_made_while_a_slow_model_answers_is_kept_in_a_commit_of_its_own_and_the_dream_lands(
        workspace, serve):
    write_history(workspace, [entry(1, "[permanent] User prefers concise answers.")])
    memory = workspace.root / "memory/MEMORY.md"

    def answers_while_the_person_types(body: dict[str, Any]) -> dict[str, Any]:
        memory.write_text(memory.read_text() + "- The office moved to Lisbon.\n")
        return call("edit_file", path="USER.md", old_text="## Preferences\n",
                    new_text="## Preferences\n- Prefers concise answers.\n")

    server = serve([answers_while_the_person_types, final("Noted the preference"), keeps_nothing()])
    report = run_dream(workspace, llm_settings(server))
    assert report.exit_code == 0 and report.outcome == "committed", report.reason

    dream, manual = git(workspace, "rev-list", "-2", "HEAD").split()
    assert added_lines(workspace, manual) == ["- The office moved to Lisbon."]
    assert "Dream-Kind: manual" in git(workspace, "log", "-1", "--format=%B", manual)
    assert added_lines(workspace, dream) == ["- Prefers concise answers."]
    assert "- The office moved to Lisbon." in memory.read_text()
    assert git(workspace, "status", "--porcelain") == ""


def test_a_line_the_person_and_the_dream_both_changed_keeps_the_persons_and_archives_the_dreams(workspace):
    user = workspace.root / "USER.md"
    user.write_text(user.read_text() + "- Lives in Porto\n")
    git(workspace, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qam", "where I live")
    write_history(workspace, [entry(1, "[correction] User lives in Lisbon now, not Porto.", day=7)])

    def moves_to_braga() -> None:
        user.write_text(user.read_text().replace("Porto", "Braga"))

    report = run_dream(workspace, BUILTIN, engine_factory=editing_before_the_session(moves_to_braga))
    assert report.exit_code == 0, report.reason

    text = user.read_text()
    assert "- Lives in Braga" in text and "Lisbon" not in text and "Porto" not in text
    archived = "".join(path.read_text() for path in (workspace.root / "memory/archive").glob("*.md"))
    assert "replaced by: Lives in Braga" in archived and "Lisbon" in archived
