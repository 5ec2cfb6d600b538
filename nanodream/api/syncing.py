"""Memory that travels: merging this workspace's memory with a remote's, and pushing it (docs/sync.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nanodream.api.acting import WorkspaceLike, action, settings_for, workspace_at

if TYPE_CHECKING:
    from nanodream.sync.travel import SyncReport


@action()
def sync(where: WorkspaceLike, *, dry_run: bool = False) -> SyncReport:
    """Fetch the remote's memory, merge it with nanodream's own merge, land the merge here and push it; with
    `dry_run`, only say what would change, file by file (nothing changes anywhere)."""
    from nanodream.sync.travel import sync as travel

    workspace = workspace_at(where)
    return travel(workspace, settings_for(workspace), dry_run=dry_run)
