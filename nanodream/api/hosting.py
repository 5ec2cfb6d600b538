"""The host as the dreamer: a dream session a host agent drives (MCP or Python), and nanodream installed into a host.

    session = api.dream_begin("~/agent", client="my-host")          # the batch, memory, skills, the prompt
    api.dream_tool("~/agent", session.session, "edit_file", {"path": "USER.md", "old_text": …, "new_text": …})
    done = api.dream_finish("~/agent", session.session, "Filed 2 facts", {"3": "a joke, not a preference"})
    # done.question: answer it (file the facts, or give reasons) and finish again; else done.sha, done.cursor

The session is the run's own (run/hosted.py): one writer lock for its whole length, the same passes after the host's
edits, one dream commit naming `host/<client>`. Its calls may come from any thread of this process.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nanodream.api.acting import WorkspaceLike, action, settings_for, workspace_at
from nanodream.api.reports import (
    DreamAbort,
    DreamFinish,
    DreamSession,
    DreamToolReport,
    HostsInstallReport,
    HostsReport,
)
from nanodream.vocab import ExitCode, Outcome, Refused, numbered
from nanodream.workspace import CORE_FILES, Workspace

if TYPE_CHECKING:
    from nanodream.backlog.history import Batch
    from nanodream.hosts.install import Places
    from nanodream.run.host_engine import Ended, Opened
    from nanodream.run.hosted import HostSession

SESSION_HINT = "begin again with dream_begin"


@action()
def dream_begin(where: WorkspaceLike, *, client: str = "", max_entries: int | None = None) -> DreamSession:
    """Open a dream session over the next batch, with the host as its model (`client` names it: `host/<client>`).
    Nothing to dream is `session` None, not an error; a workspace another dream holds is refused as busy."""
    from nanodream.run import hosted
    from nanodream.run.host_engine import Ended

    workspace = workspace_at(where)
    session, turn = hosted.begin(workspace, settings_for(workspace), client=client, max_entries=max_entries)
    if isinstance(turn, Ended):
        return _not_begun(turn)
    assert session.opened is not None
    return _begun(session, session.opened)


def _begun(session: HostSession, opened: Opened) -> DreamSession:
    from nanodream.run.host_view import batch_lines, signals_of, skill_lines

    request, staging = opened.request, opened.toolbox.staging
    return DreamSession(outcome=Outcome.OPENED, reason=f"dream session open over {request.batch.describe()}",
                        session=session.id, batch=batch_lines(request.batch),
                        memory={path: staging.read(path) for path in CORE_FILES}, skills=skill_lines(staging),
                        instructions=request.system_prompt, signals=signals_of(request.user_blocks, request.batch),
                        host=session.model, expires_in_s=session.timeout)


def _not_begun(ended: Ended) -> DreamSession:
    """No session: nothing to dream (not an error), or what stopped the run before its session, said as the run
    says it (busy, needs a person, failed)."""
    report = ended.report
    if report is None:
        raise Refused(ended.error or "the dream could not begin", exit_code=ExitCode.FAILED)
    if report.outcome == Outcome.NOTHING_TO_DO:
        return DreamSession(outcome=Outcome.NOTHING_TO_DO, reason=report.reason or "the backlog is empty")
    return DreamSession(outcome=report.outcome, reason=report.reason, hint=report.hint, code=report.code)


def session_tools() -> list[str]:
    """The dream's tools a host calls on its session (all but `finish`: dream_finish ends the session)."""
    from nanodream.toolbox.tools import TOOLS

    return [tool.name for tool in TOOLS if not tool.finishes]


@action(lambda session="", tool="", **_: {"session": session, "tool": tool})
def dream_tool(where: WorkspaceLike, session: str, tool: str, arguments: Mapping[str, Any] | None = None,
               ) -> DreamToolReport:
    """One of the dream's tools (docs/tools.md) on the session's staged copy: the run's own ToolBox, allowlist, caps
    and loop guard. A call that reaches past the memory files voids the session, as in a run."""
    from nanodream.run.hosted import session_of

    workspace = workspace_at(where)
    if tool not in session_tools():
        raise Refused(f"unknown tool {tool[:60]!r}; the session's tools are {', '.join(session_tools())}",
                      exit_code=ExitCode.USAGE)
    result, ended = session_of(workspace, session).call(tool, dict(arguments or {}))
    report = DreamToolReport(session=session, tool=tool, ok=result.ok, text=host_words(result.text),
                             ended=ended is not None, outcome=Outcome.OPENED)
    if ended is not None:
        run = ended.report
        report.outcome, report.reason = (run.outcome, run.reason) if run else (Outcome.FAILED, ended.error)
        report.hint = f"nothing of the session was applied; {SESSION_HINT}"
    elif not result.ok:
        report.outcome, report.reason = Outcome.REFUSED, report.text
    return report


@action(lambda session="", **_: {"session": session})
def dream_finish(where: WorkspaceLike, session: str, summary: str,
                 reasons: Mapping[str | int, str] | None = None) -> DreamFinish:
    """End the host's round: its summary, and `reasons` (fact number → why that fact stays out of memory). Facts
    neither kept nor explained get one question first (`question`, the session stays open); then the run guards,
    commits what is accounted for and moves the cursor over it."""
    from nanodream.backlog.history import read_cursor
    from nanodream.run.host_engine import Asked
    from nanodream.run.hosted import session_of

    workspace = workspace_at(where)
    found = session_of(workspace, session)
    said = _reasons(reasons or {}, found.facts())
    if not summary.strip():
        raise Refused("summary is empty: say what changed, or that nothing needed changing", exit_code=ExitCode.USAGE)
    assert found.opened is not None
    batch = found.opened.request.batch
    turn = found.finish(summary.strip(), said)
    if isinstance(turn, Asked):
        return DreamFinish(outcome=Outcome.ASKED, reason=f"{len(turn.open)} of the batch's facts are neither kept "
                           "nor explained: file them, or give a reason for each, and finish again",
                           session=session, cursor=read_cursor(workspace.cursor_file), kept=turn.kept,
                           open=turn.open, question=host_words(turn.question), expires_in_s=found.timeout)
    return _finished(workspace, session, turn, batch)


def _reasons(given: Mapping[str | int, str], facts: list[int]) -> dict[int, str]:
    """The host's reasons by fact number; a key that names no fact of the batch, or an empty reason, is refused
    (the session stays open, nothing changes)."""
    said: dict[int, str] = {}
    for key, why in given.items():
        number = int(key) if isinstance(key, int) or str(key).strip().isdigit() else None
        if number not in facts:
            known = numbered("fact", facts) if facts else "no numbered facts"
            raise Refused(f"reasons: {str(key)[:40]!r} is not the number of a fact of this batch (it has {known})",
                          exit_code=ExitCode.USAGE)
        if not isinstance(why, str) or not why.strip():
            raise Refused(f"reasons: the reason for fact {number} is empty; say why it stays out of memory",
                          exit_code=ExitCode.USAGE)
        said[number] = why.strip()
    return said


def _finished(workspace: Workspace, session: str, ended: Ended, batch: Batch) -> DreamFinish:
    from nanodream.backlog.history import read_cursor
    from nanodream.run.host_view import final_account, settled_outcome

    report = ended.report
    if report is None:
        raise Refused(ended.error or "the dream session ended without a result", exit_code=ExitCode.FAILED)
    kept, open_facts = final_account(report, batch)
    outcome, reason = settled_outcome(report)
    insights = report.phases.commit if report.phases is not None else None
    finished = DreamFinish(outcome=outcome, reason=reason, hint=report.hint, session=session,
                           committed=bool(report.commits), sha=report.commits[0] if report.commits else None,
                           commits=[*report.commits, *([insights] if insights else [])],
                           cursor=read_cursor(workspace.cursor_file), kept=kept, open=open_facts,
                           warnings=[warning for each in report.batches for warning in each.warnings],
                           proposal=next((each.proposal for each in report.batches if each.proposal), None),
                           run_id=report.run_id)
    if outcome == report.outcome:
        finished.code = report.code
    return finished


@action(lambda session="", **_: {"session": session})
def dream_abort(where: WorkspaceLike, session: str) -> DreamAbort:
    """End the session with nothing applied: the run lets the workspace go, exactly as it was."""
    from nanodream.run.hosted import session_of

    workspace = workspace_at(where)
    session_of(workspace, session).abort()
    return DreamAbort(outcome=Outcome.ABORTED, session=session,
                      reason="nothing of the session was applied; the workspace is as it was before it began")


_TOOL_NAME = re.compile(r"(?<![\w.])(read_file|list_skills|edit_file|write_file|delete_skill|archive_lines|"
                        r"list_archive)\b")


def host_words(text: str) -> str:
    """What the dream's tools and questions say, with each tool named as a host calls it (`dream_read_file`)."""
    return _TOOL_NAME.sub(r"dream_\1", text)


# nanodream in a host ---------------------------------------------------------------------------------------


@action(lambda host="", dry_run=False, **_: {"host": host, "dry_run": dry_run})
def hosts_install(where: WorkspaceLike, host: str, *, project: str | Path | None = None, dry_run: bool = False,
                  codex_home: str | Path | None = None) -> HostsInstallReport:
    """Write nanodream's MCP server (for this workspace, write tools on) and the `/dream` command into `host`'s own
    files, merged into what they hold; `dry_run` writes nothing. A file it cannot parse stops it, nothing written
    (exit 2). `project`: Claude Code's and Cursor's project folder (default: the current one); `codex_home`:
    Codex's (default: `$CODEX_HOME`, else ~/.codex)."""
    from nanodream.hosts.configs import Server, Unreadable
    from nanodream.hosts.install import HOSTS, UNCHANGED, plan, write

    workspace = workspace_at(where)
    if host not in HOSTS:
        raise Refused(f"unknown host {host[:40]!r}; one of {', '.join(HOSTS)}", exit_code=ExitCode.USAGE)
    try:
        planned = plan(host, _places(project, codex_home), Server.for_workspace(workspace.root))
    except Unreadable as exc:
        raise Refused(f"{exc}; left alone, nothing written", "fix the file or move it aside, then install again",
                      ExitCode.USAGE) from None
    if not dry_run:
        write(planned)
    changed = [item for item in planned if item.change != UNCHANGED]
    outcome = Outcome.DRY_RUN if dry_run else Outcome.CREATED if changed else Outcome.NOTHING_TO_DO
    return HostsInstallReport(outcome=outcome, host=host, workspace=str(workspace.root), dry_run=dry_run,
                              files=planned, reason="" if changed else "already installed: nothing to change")


@action()
def hosts_list(where: WorkspaceLike, *, project: str | Path | None = None,
               codex_home: str | Path | None = None) -> HostsReport:
    """Each host: whether its configuration starts nanodream's server, for which workspace, and its `/dream`."""
    from nanodream.hosts.install import HOSTS, state

    workspace = workspace_at(where)
    places = _places(project, codex_home)
    return HostsReport(workspace=str(workspace.root), hosts=[state(host, places, workspace.root) for host in HOSTS])


def _places(project: str | Path | None, codex_home: str | Path | None) -> Places:
    from nanodream.hosts.install import Places

    folder = Path(project).expanduser() if project is not None else Path.cwd()
    if not folder.is_dir():
        raise Refused(f"--project {folder}: not a folder", exit_code=ExitCode.USAGE)
    home = codex_home or os.environ.get("CODEX_HOME") or Path.home() / ".codex"
    return Places(Path(os.path.abspath(folder)), Path(os.path.abspath(Path(home).expanduser())))
