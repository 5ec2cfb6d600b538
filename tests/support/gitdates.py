"""Back-dated commits, so tests can build a memory history whose line ages are known in advance."""

from __future__ import annotations

import os
import subprocess

from nanodream.workspace import Workspace
from tests.support.workspaces import SAFE_GIT


def commit_at(ws: Workspace, when: str, message: str = "edit memory") -> None:
    """Commit every change in the workspace as if it happened at `when` (ISO 8601, e.g. 2026-09-01T12:00:00Z)."""
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when,
           "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@localhost",
           "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@localhost"}
    subprocess.run([*SAFE_GIT, "add", "-A"], cwd=ws.root, check=True, env=env)
    subprocess.run([*SAFE_GIT, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", message],
                   cwd=ws.root, check=True, env=env)
