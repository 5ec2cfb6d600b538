"""The package root is the host's API: small, complete, and free to import."""

from __future__ import annotations

import subprocess
import sys

import nanodream
from tests.support.workspaces import entry, write_history


def test_importing_the_package_loads_no_run_machinery():
    code = ("import sys, nanodream\n"
            "print(' '.join(m for m in ('nanodream.run.dream', 'nanodream.slash', 'litellm', 'git', 'bm25s') "
            "if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == []


def test_importing_the_host_api_loads_no_run_machinery():
    """`import nanodream.api` is what `status` and `--help` pay: the actions and the types, nothing they call."""
    heavy = ("nanodream.run.dream", "nanodream.run.report", "nanodream.edits.restore", "nanodream.status",
             "nanodream.memory.door", "litellm", "git", "bm25s", "detect_secrets", "pydantic")
    code = f"import sys, nanodream.api\nprint(' '.join(m for m in {heavy!r} if m in sys.modules))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == []


def test_the_host_api_exports_every_action_and_type_a_front_end_uses():
    from nanodream import api

    assert set(api.ACTIONS) <= set(api.__all__) and len(api.ACTIONS) >= 37
    for name in api.__all__:  # the re-exported domain types too: each is where the map says
        assert getattr(api, name) is not None, name
    assert api.RunReport.__module__ == "nanodream.run.report" and api.Selection.__module__ == "nanodream.edits.review"
    assert not hasattr(api, "no_such_thing")


def test_every_public_name_resolves_to_the_real_object(workspace):
    from nanodream.run.dream import run_dream
    from nanodream.slash import handle

    assert nanodream.run_dream is run_dream and nanodream.slash_command is handle
    assert set(nanodream.__all__) <= set(dir(nanodream)) | {"__version__"}
    for name in nanodream.__all__:
        assert getattr(nanodream, name) is not None


def test_a_host_can_dream_through_the_root_api(workspace):
    settings = nanodream.load_settings(workspace)
    write_history(workspace, [entry(1, "[durable] The project is called Lighthouse.")])
    report = nanodream.run_dream(workspace, settings, nanodream.RunOptions(trigger="slash"))
    assert report.outcome == "committed" and report.exit_code == 0
    assert report.commits[0][:8] in nanodream.slash_command(workspace.root, "/dream-log")


def test_an_unknown_name_is_an_attribute_error():
    try:
        nanodream.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")
