"""This machine's own settings (issue 47): nanodream.toml travels with the memory, so what belongs to one machine —
its name in every commit's `Machine:` trailer, the remote it syncs with, a local model server — lives in
nanodream.local.toml, which is never tracked, or in the environment."""

from __future__ import annotations

import socket

import pytest

from nanodream import api
from nanodream.config import ConfigError, load_settings, machine_name, sync_settings
from tests.support.cli import cli
from tests.support.workspaces import git


def test_the_local_file_overrides_the_shared_one_and_the_environment_overrides_both(workspace):
    workspace.config_file.write_text('model = "openai/gpt-4o-mini"\nbatch_tokens = 500\n')
    (workspace.root / "nanodream.local.toml").write_text('api_base = "http://127.0.0.1:8080"\nbatch_tokens = 900\n')
    settings = load_settings(workspace, environ={"NANODREAM_BATCH_TOKENS": "1200"})
    assert (settings.model, settings.api_base, settings.batch_tokens) == ("openai/gpt-4o-mini",
                                                                          "http://127.0.0.1:8080", 1200)
    assert load_settings(workspace, environ={}).batch_tokens == 900


def test_the_machine_is_the_host_name_unless_the_local_file_or_the_environment_names_it(workspace):
    assert sync_settings(workspace, {}).machine == socket.gethostname()
    assert sync_settings(workspace, {}).remote == "origin"
    (workspace.root / "nanodream.local.toml").write_text('[sync]\nmachine = "laptop"\nremote = "backup"\n')
    assert sync_settings(workspace, {}) == sync_settings(workspace, {"NANODREAM_SYNC_REMOTE": "backup"})
    assert sync_settings(workspace, {}).machine == "laptop"
    assert sync_settings(workspace, {"NANODREAM_SYNC_MACHINE": "desk"}).machine == "desk"


@pytest.mark.parametrize(("text", "says"), [
    ('[sync]\nmachine = "two\\nlines"\n', "machine must be a name"),
    ('[sync]\nmachine = ""\n', "machine must be a name"),
    (f'[sync]\nmachine = "{"x" * 65}"\n', "machine must be a name"),
    ('[sync]\nremote = "--upload-pack=touch"\n', "remote must be the name of a git remote"),
    ('[sync]\nmachnie = "laptop"\n', "did you mean machine?"),
    ('api_key = "sk-abc"\n', "api_key is never read from a file"),
])
def test_a_mistake_in_the_local_file_is_a_configuration_error_for_every_command(workspace, text, says):
    (workspace.root / "nanodream.local.toml").write_text(text)
    with pytest.raises(ConfigError, match=says):
        load_settings(workspace, environ={})
    result = cli("status", ws=workspace)
    assert result.exit_code == 2 and says.split(" ")[0] in result.output
    assert machine_name(workspace) == socket.gethostname()  # a commit made anyway still names a machine


def test_a_machine_name_in_the_shared_file_is_refused_because_that_file_travels(workspace):
    workspace.config_file.write_text('[sync]\nmachine = "laptop"\n')
    with pytest.raises(ConfigError, match="nanodream.local.toml"):
        load_settings(workspace, environ={})


def test_the_shared_file_may_name_the_remote_every_machine_syncs_with_and_a_machine_may_override_it(workspace):
    workspace.config_file.write_text('[sync]\nremote = "memory"\n')
    load_settings(workspace, environ={})
    assert sync_settings(workspace, environ={}).remote == "memory"
    (workspace.root / "nanodream.local.toml").write_text('[sync]\nremote = "backup"\n')
    assert sync_settings(workspace, environ={}).remote == "backup"
    assert sync_settings(workspace, environ={"NANODREAM_SYNC_REMOTE": "other"}).remote == "other"


def test_the_local_file_is_never_committed_and_every_commit_names_the_machine(workspace):
    (workspace.root / "nanodream.local.toml").write_text('[sync]\nmachine = "laptop"\n')
    user = workspace.root / "USER.md"
    user.write_text(user.read_text() + "- Lives in Porto\n")
    assert api.pin(workspace, "Lives in Porto").exit_code == 0  # a hand-edit commit, then the pin's
    assert "nanodream.local.toml" not in git(workspace, "ls-files")
    assert git(workspace, "log", "-2", "--format=%(trailers:key=Machine,valueonly,separator=)").split() == [
        "laptop", "laptop"]


def test_a_machine_renamed_still_finds_the_history_behind_its_own_dreams(workspace):
    from nanodream.config import Settings
    from nanodream.run.dream import run_dream
    from tests.support.workspaces import entry, write_history

    (workspace.root / "nanodream.local.toml").write_text('[sync]\nmachine = "old-name"\n')
    write_history(workspace, [entry(1, "[durable] The API is written in Go.")])
    assert run_dream(workspace, Settings(phases=())).exit_code == 0
    (workspace.root / "nanodream.local.toml").write_text('[sync]\nmachine = "new-name"\n')
    answer = api.why(workspace, "written in Go").answer
    assert answer is not None and answer.machine == "old-name"
    assert [item["cursor"] for item in answer.entries] == [1]  # its Dream-History says whose history it was
