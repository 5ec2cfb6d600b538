"""The package root is the host's API: small, complete, and free to import."""

from __future__ import annotations

import subprocess
import sys

import nanodream
from tests.conftest import entry, write_history


def test_importing_the_package_loads_no_run_machinery():
    code = ("import sys, nanodream\n"
            "print(' '.join(m for m in ('nanodream.run.dream', 'nanodream.slash', 'litellm', 'git', 'bm25s') "
            "if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == []


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
