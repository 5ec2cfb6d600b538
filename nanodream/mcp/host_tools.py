"""The dream session's tools: the host's own model is the dreamer (docs/mcp.md, "The host as the dreamer").

`dream_begin` opens a session over the next batch and answers with what a model would get; `dream_read_file` …
`dream_list_archive` are the dream's own tools (docs/tools.md) on the session's staged copy, with the same
arguments plus `session`; `dream_finish` hands the host's summary and reasons to nanodream's run, which accounts for
every fact (one question), guards, commits and moves the cursor; `dream_abort` leaves with nothing applied. Every
one is a write tool: listed only when a person allowed writes. Each is one call of `nanodream.api`.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from nanodream import api
from nanodream.api import Workspace
from nanodream.mcp.catalogue import Catalogue
from nanodream.mcp.results import ToolResult, reported

SESSION_TOOLS = Catalogue()

Session = Annotated[str, Field(min_length=1, max_length=100, description="The session id dream_begin gave.")]
MemoryPath = Annotated[str, Field(min_length=1, max_length=300, description=(
    "A memory file: SOUL.md, USER.md, memory/MEMORY.md or skills/<name>/SKILL.md (reading: also an archive month, "
    "memory/archive/YYYY-MM.md). Any other path is refused; writing to one voids the session."))]
OldText = Annotated[str, Field(max_length=1_000_000, description="The exact text to replace, as the file holds it.")]
NewText = Annotated[str, Field(max_length=1_000_000, description="What replaces it (empty: delete it).")]
Content = Annotated[str, Field(max_length=1_000_000, description="The file's whole new text.")]


def client_name(context: Context) -> str:
    """The MCP client's own name (its `clientInfo`), which the dream's commit names as `host/<name>`."""
    params = context.session.client_params
    return params.client_info.name if params is not None else ""


def _tool(workspace: Workspace, session: str, name: str, **arguments: Any) -> ToolResult:
    return reported(api.dream_tool(workspace, session, name, arguments), reference="session")


@SESSION_TOOLS.writes("DreamSession")
def dream_begin(
    workspace: Workspace,
    context: Context,
    max_entries: Annotated[int | None, Field(ge=1, le=10_000, description=(
        "At most this many history entries in the batch (default: the batch_tokens budget alone)."))] = None,
) -> ToolResult:
    """Begin a dream session in which you are the model: the next history batch (each tagged fact numbered), the
    memory files, the skills, the dream prompt (`instructions`) and nanodream's signals. Follow the prompt with the
    dream_ tools (its edit_file is dream_edit_file here), then call dream_finish. The session holds the memory's
    one writer lock until it ends; it expires after `expires_in_s` seconds without a call. `session` null: nothing
    to dream."""
    return reported(api.dream_begin(workspace, client=client_name(context), max_entries=max_entries))


@SESSION_TOOLS.writes("DreamToolReport")
def dream_read_file(workspace: Workspace, session: Session, path: MemoryPath) -> ToolResult:
    """Read a memory file or archive month as the session has it staged."""
    return _tool(workspace, session, "read_file", path=path)


@SESSION_TOOLS.writes("DreamToolReport")
def dream_list_skills(workspace: Workspace, session: Session) -> ToolResult:
    """List the skills as the session has them staged: name, description, size."""
    return _tool(workspace, session, "list_skills")


@SESSION_TOOLS.writes("DreamToolReport")
def dream_edit_file(workspace: Workspace, session: Session, path: MemoryPath, old_text: OldText,
                    new_text: NewText) -> ToolResult:
    """In the session's staged copy, replace old_text, which must occur exactly once, with new_text (empty:
    delete). Nothing reaches the files before dream_finish."""
    return _tool(workspace, session, "edit_file", path=path, old_text=old_text, new_text=new_text)


@SESSION_TOOLS.writes("DreamToolReport")
def dream_write_file(workspace: Workspace, session: Session, path: MemoryPath, content: Content) -> ToolResult:
    """In the session's staged copy, create a skill or rewrite a memory file whole."""
    return _tool(workspace, session, "write_file", path=path, content=content)


@SESSION_TOOLS.writes("DreamToolReport", destructive=True)
def dream_delete_skill(
    workspace: Workspace,
    session: Session,
    name: Annotated[str, Field(min_length=1, max_length=100, description="The skill's folder name.")],
) -> ToolResult:
    """In the session's staged copy, delete a skill that was merged into another."""
    return _tool(workspace, session, "delete_skill", name=name)


@SESSION_TOOLS.writes("DreamToolReport")
def dream_archive_lines(
    workspace: Workspace,
    session: Session,
    path: MemoryPath,
    text: Annotated[str, Field(min_length=1, max_length=100_000, description=(
        "Exact whole lines of memory/MEMORY.md, one per line."))],
) -> ToolResult:
    """In the session's staged copy, move exact whole lines of memory/MEMORY.md to the archive."""
    return _tool(workspace, session, "archive_lines", path=path, text=text)


@SESSION_TOOLS.writes("DreamToolReport")
def dream_list_archive(workspace: Workspace, session: Session) -> ToolResult:
    """List the archive's months and their line counts."""
    return _tool(workspace, session, "list_archive")


@SESSION_TOOLS.writes("DreamFinish")
def dream_finish(
    workspace: Workspace,
    session: Session,
    summary: Annotated[str, Field(min_length=1, max_length=20_000, description=(
        "A first line of at most 60 characters saying what changed, then one bullet per edit; claim only edits "
        "you made."))],
    reasons: Annotated[dict[str, Annotated[str, Field(max_length=2000)]] | None, Field(description=(
        "For each numbered fact of the batch you did not file: its number (as a string) → why it stays out of "
        "memory, in your own words. A placeholder, an echo of the fact or a claim the diff does not show is not "
        "a reason."))] = None,
) -> ToolResult:
    """End your round. Facts neither filed nor explained get one `question` (nothing committed, the session stays
    open for one more round); otherwise nanodream guards your edits, commits what is accounted for as one dream
    commit, moves the history cursor over it (`cursor`) and ends the session. Secrets and rules turning the agent
    against its user are left out, the rest commits."""
    return reported(api.dream_finish(workspace, session, summary, reasons), reference="session")


@SESSION_TOOLS.writes("DreamAbort")
def dream_abort(workspace: Workspace, session: Session) -> ToolResult:
    """End the session with nothing applied: the memory, its git history and the cursor stay exactly as they
    were."""
    return reported(api.dream_abort(workspace, session), reference="session")
