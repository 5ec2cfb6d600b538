"""The host API (nanodream/api/): every action returns a typed report; nothing raises for a person's mistake."""

from __future__ import annotations

import inspect
import json

import pytest

from nanodream import api
from nanodream.edits.forget import Target
from nanodream.edits.review import Selection
from nanodream.vocab import ExitCode, Report
from tests.support.workspaces import entry, snapshot, write_history


def _settings(**values):
    from nanodream.config import Settings

    return Settings(**values)


def test_a_host_dreams_reads_and_undoes_through_the_api_by_path(workspace):
    write_history(workspace, [entry(1, "[durable] The project is called Lighthouse.")])
    ran = api.run(str(workspace.root), _settings())
    assert ran.outcome == "committed" and ran.exit_code == ExitCode.OK and ran.commits
    assert json.loads(json.dumps(ran.to_json()))["commits"] == ran.commits

    log = api.log(workspace.root, 5)
    assert log.commits[0].sha == ran.commits[0] and log.to_json()["commits"][0]["kind"] == "dream"
    shown = api.show(workspace.root)
    assert shown.detail is not None and shown.detail.sha == ran.commits[0]
    why = api.why(workspace.root, "Lighthouse")
    assert why.answer is not None and why.answer.commit == ran.commits[0]
    status = api.status(workspace.root)
    assert status.to_json()["last_commit"] == ran.commits[0]

    undone = api.restore(workspace.root, ran.commits[0][:8])
    assert undone.outcome == "restored" and "Lighthouse" not in (workspace.root / "memory/MEMORY.md").read_text()


@pytest.mark.parametrize("call", [
    lambda where: api.status(where),
    lambda where: api.log(where),
    lambda where: api.show(where),
    lambda where: api.why(where, "x"),
    lambda where: api.recall(where, "x"),
    lambda where: api.run(where),
    lambda where: api.restore(where, "HEAD"),
    lambda where: api.accept(where, Selection(everything=True)),
    lambda where: api.reject(where, Selection(everything=True)),
    lambda where: api.forget(where, Target(session="s")),
    lambda where: api.pin(where, "x"),
    lambda where: api.prompt(where),
    lambda where: api.prompt_init(where),
    lambda where: api.prompt_reset(where),
    lambda where: api.acknowledge(where, None),
], ids=["status", "log", "show", "why", "recall", "run", "restore", "accept", "reject", "forget", "pin", "prompt",
        "prompt_init", "prompt_reset", "acknowledge"])
def test_every_action_refuses_a_place_that_is_no_workspace_with_a_report(tmp_path, call):
    report = call(tmp_path / "nowhere")
    assert isinstance(report, Report)
    assert report.outcome == "refused" and report.exit_code == ExitCode.USAGE
    assert "no workspace at" in report.reason and "nanodream init" in report.hint
    assert not (tmp_path / "nowhere").exists()


# A value for each argument an action cannot do without, by its name.
ARGUMENTS = {"ref": "HEAD", "query": "x", "selection": Selection(everything=True), "target": Target(session="s"),
             "text": "x", "line": 1, "decision": "stale", "lines": None, "path": "USER.md", "kind": "crontab",
             "plan": api.SchedulePlan(), "as_of": "2026-01-01", "name": "some-insight", "session": "s",
             "tool": "read_file", "summary": "x", "host": "codex"}
# Actions on a workspace that may answer a missing one otherwise: init creates it; model check reads only settings.
CREATE_OR_IGNORE = {"init", "check_model"}


def test_every_action_on_a_workspace_refuses_a_missing_one_with_its_own_report(tmp_path):
    """The refusal path is the one `@action` writes: whatever the action, its own report type comes back."""
    where = tmp_path / "nowhere"
    for name in api.ACTIONS:
        act = getattr(api, name)
        parameters = inspect.signature(act).parameters
        if "where" not in parameters or name in CREATE_OR_IGNORE:
            continue
        needed = {key: ARGUMENTS[key] for key, spec in parameters.items()
                  if key != "where" and spec.default is spec.empty}
        report = act(where, **needed)
        assert type(report) is getattr(api, act.__annotations__["return"]), name
        assert (report.outcome, report.exit_code) == ("refused", ExitCode.USAGE), name
        assert "no workspace at" in report.reason and "nanodream init" in report.hint, name
    assert not where.exists()


def test_bad_references_are_usage_errors_and_change_nothing(workspace):
    before = snapshot(workspace)
    assert api.show(workspace.root, "deadbeef").exit_code == ExitCode.USAGE
    assert api.restore(workspace.root, "deadbeef").exit_code == ExitCode.USAGE
    assert api.accept(workspace.root, Selection("deadbeef")).exit_code == ExitCode.USAGE
    assert api.pin(workspace.root, "   ").exit_code == ExitCode.USAGE
    assert api.why(workspace.root, "no such fact anywhere").exit_code == ExitCode.FAILED
    assert api.run(workspace.root, options=None).exit_code == ExitCode.OK  # nothing to do is no error
    assert snapshot(workspace) == before


def test_a_wrong_setting_is_a_configuration_refusal_naming_the_key(workspace):
    (workspace.root / "nanodream.toml").write_text("batch_tokens = \"many\"\n")
    report = api.run(workspace.root)
    assert report.exit_code == ExitCode.USAGE and "batch_tokens" in report.reason
    assert api.status(workspace.root).exit_code == ExitCode.USAGE


def test_pin_and_unpin_report_what_they_did(workspace):
    memory = workspace.root / "memory/MEMORY.md"
    memory.write_text(memory.read_text() + "- Deploys go through staging first.\n")
    pinned = api.pin(workspace.root, "staging first")
    assert pinned.outcome == "pinned" and pinned.changed and pinned.manual_commit  # their line, committed first
    again = api.pin(workspace.root, "staging first")
    assert again.outcome == "nothing-to-do" and again.reason == "is already pinned" and again.commit is None
    unpinned = api.pin(workspace.root, "staging first", remove=True)
    assert unpinned.outcome == "unpinned" and unpinned.commit
    assert set(unpinned.to_json()) >= {"outcome", "reason", "hint", "exit_code", "path", "line", "commit"}
