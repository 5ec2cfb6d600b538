"""The page's routes: the timeline, one commit, restore, proposals to accept or reject, why, the skills table,
the memory files (today or as of a day) with each line's why, pin and forget, the insights and a decision on
each. Guarded first."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from nanodream import api
from nanodream.api import Workspace
from nanodream.controls import visible
from nanodream.serve.guard import Guard
from nanodream.vocab import Outcome, count

SHA = re.compile(r"[0-9a-f]{4,40}")
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
DECISIONS = ("reinforce", "stale", "reject", "promote")
KINDS = ("dream", "manual", "restore", "insights", "sync")
TIMELINE_LIMIT = 500


def build_app(workspace: Workspace, guard: Guard) -> Starlette:
    pages = Pages(workspace, guard)
    return Starlette(routes=[
        Route("/", pages.timeline),
        Route("/commit/{sha}", pages.commit),
        Route("/commit/{sha}/restore", pages.restore, methods=["POST"]),
        Route("/proposal/{sha}/{action}", pages.decide, methods=["POST"]),
        Route("/why", pages.why),
        Route("/skills", pages.skills),
        Route("/memory", pages.memory),
        Route("/memory/pin", pages.pin, methods=["POST"]),
        Route("/forget", pages.forget, methods=["POST"]),
        Route("/insights", pages.insights),
        Route("/insight/{name}/{decision}", pages.decide_insight, methods=["POST"]),
    ])


class Pages:
    def __init__(self, workspace: Workspace, guard: Guard) -> None:
        self.workspace = workspace
        self.guard = guard
        templates = Path(__file__).with_name("templates")
        # finalize: every value a template prints shows its control characters (history, summaries, subjects).
        self.env = Environment(loader=FileSystemLoader(templates), autoescape=select_autoescape(["html"]),
                               finalize=lambda value: visible(value) if isinstance(value, str) else value)

    async def timeline(self, request: Request) -> Response:
        refused = self.guard.refusal(request)
        if refused:
            return refused
        kind = request.query_params.get("kind") if request.query_params.get("kind") in KINDS else None
        path = request.query_params.get("file") or ""
        commits = api.log(self.workspace, TIMELINE_LIMIT, kind).commits
        files = sorted({f["path"] for c in commits for f in c.files})
        shown = [c for c in commits if not path or any(f["path"] == path for f in c.files)]
        return self._page(request, "timeline.html", commits=shown, kind=kind, file=path, files=files,
                          kinds=KINDS, status=self._status(), note=request.query_params.get("note", ""),
                          proposals=[p.to_json() | {"sha": p.sha} for p in api.proposals(self.workspace).proposals])

    async def why(self, request: Request) -> Response:
        """Which commit wrote a memory line, and for a dream the history entries behind it."""
        refused = self.guard.refusal(request)
        if refused:
            return refused
        query = request.query_params.get("q", "").strip()
        answer, problem = None, ""
        if query:
            found = api.why(self.workspace, query)
            answer, problem = (found.to_json(), "") if found.answer is not None else (None, found.reason)
        return self._page(request, "why.html", query=query, answer=answer, problem=problem)

    async def memory(self, request: Request) -> Response:
        """The memory files as they are, or (`as_of`) as they stood on a day, one row per line."""
        refused = self.guard.refusal(request)
        if refused:
            return refused
        as_of = request.query_params.get("as_of", "").strip()
        if as_of:
            report = api.memory_as_of(self.workspace, as_of)
            files, commit, time = report.files, report.commit, report.time
        else:
            files, commit, time = [api.memory_file(self.workspace, path) for path in api.CORE_FILES], None, None
            report = files[0]
        problem = report.reason if report.outcome == Outcome.REFUSED else ""
        return self._page(request, "memory.html", as_of=as_of, commit=commit, time=time, problem=problem,
                          files=[] if problem else [_file_rows(file) for file in files],
                          note=request.query_params.get("note", ""))

    async def pin(self, request: Request) -> Response:
        """Pin or unpin one line of today's memory, as one commit of the person's."""
        form = await request.form()
        refused = self.guard.refusal(request, str(form.get("csrf", "")))
        if refused:
            return refused
        remove = form.get("remove") == "yes"
        report = api.pin(self.workspace, str(form.get("text", "")), path=str(form.get("path", "")) or None,
                         remove=remove)
        done = report.outcome in (Outcome.PINNED, Outcome.UNPINNED, Outcome.NOTHING_TO_DO)
        note = (f"{report.outcome} {report.path}:{report.line}" if done
                else f"not {'unpinned' if remove else 'pinned'}: {report.reason}")
        return RedirectResponse(f"/memory?note={quote(note)}", status_code=303)

    async def forget(self, request: Request) -> Response:
        """Forget one history session (or one entry): what it alone taught leaves memory, as one commit."""
        form = await request.form()
        refused = self.guard.refusal(request, str(form.get("csrf", "")))
        if refused:
            return refused
        session, line = str(form.get("session", "")), str(form.get("line", ""))
        if not session and not line.isdigit():
            return PlainTextResponse("no session or history line to forget", 400)
        target = api.Target(session=session) if session else api.Target(line=int(line))
        report = api.forget(self.workspace, target)
        note = (f"forgot {count(len(report.entries), 'history entry')}: {count(len(report.removed), 'line')} "
                f"removed, {count(len(report.review), 'line')} for you to review" if report.outcome == Outcome.FORGOTTEN
                else f"nothing forgotten: {report.reason}")
        return RedirectResponse(f"/memory?note={quote(note)}", status_code=303)

    async def skills(self, request: Request) -> Response:
        """The skills table `nanodream skills` prints: use, companions, marks and families."""
        refused = self.guard.refusal(request)
        if refused:
            return refused
        report = api.skills(self.workspace)
        return self._page(request, "skills.html", skills=[row.to_json() for row in report.skills],
                          problem=report.reason)

    async def insights(self, request: Request) -> Response:
        """The insights in view (or of one status) with their sources, and the four decisions on each."""
        refused = self.guard.refusal(request)
        if refused:
            return refused
        status = request.query_params.get("status") or None
        report = api.insights(self.workspace, status)
        return self._page(request, "insights.html", insights=[i.to_json() for i in report.insights],
                          broken=report.broken, status=status, problem=report.reason,
                          note=request.query_params.get("note", ""), decisions=DECISIONS)

    async def decide_insight(self, request: Request) -> Response:
        """One decision on one insight: reinforce, stale, reject or promote (a promote appends to history)."""
        form = await request.form()
        refused = self.guard.refusal(request, str(form.get("csrf", "")))
        if refused:
            return refused
        name, decision = request.path_params["name"], request.path_params["decision"]
        if not NAME.fullmatch(name) or decision not in DECISIONS:
            return PlainTextResponse("no such action", 404)
        report = api.decide_insight(self.workspace, name, decision, str(form.get("note", "")))
        note = (f"{name}: {report.before} → {report.status}" if report.commit else f"{name}: {report.reason}")
        return RedirectResponse(f"/insights?note={quote(note)}", status_code=303)

    async def decide(self, request: Request) -> Response:
        """Accept or reject one pending proposal of the review lane."""
        form = await request.form()
        refused = self.guard.refusal(request, str(form.get("csrf", "")))
        if refused:
            return refused
        sha, action = request.path_params["sha"], request.path_params["action"]
        if not SHA.fullmatch(sha) or action not in ("accept", "reject"):
            return PlainTextResponse("no such action", 404)
        chosen = api.Selection(ref=sha)
        report = api.accept(self.workspace, chosen) if action == "accept" else api.reject(self.workspace, chosen)
        done = report.outcome in (Outcome.ACCEPTED, Outcome.REJECTED)
        note = f"{report.outcome} {sha[:8]}" if done else f"not {action}ed: {report.reason}"
        return RedirectResponse(f"/?note={quote(note)}", status_code=303)

    async def commit(self, request: Request) -> Response:
        refused = self.guard.refusal(request)
        if refused:
            return refused
        sha = request.path_params["sha"]
        if not SHA.fullmatch(sha):
            return PlainTextResponse("not a commit", 404)
        shown = api.show(self.workspace, sha)
        if shown.detail is None:
            return PlainTextResponse(shown.reason, 404)
        return self._page(request, "commit.html", c=shown.detail, diff=diff_lines(shown.detail.diff))

    async def restore(self, request: Request) -> Response:
        form = await request.form()
        refused = self.guard.refusal(request, str(form.get("csrf", "")))
        if refused:
            return refused
        sha = request.path_params["sha"]
        if not SHA.fullmatch(sha):
            return PlainTextResponse("not a commit", 404)
        report = api.restore(self.workspace, sha, before=form.get("before") == "yes")
        note = (f"restored {sha[:8]} in commit {(report.commit or '')[:8]}" if report.commit
                else f"not restored: {report.reason}" + (f" ({report.hint})" if report.hint else ""))
        return RedirectResponse(f"/?note={quote(note)}", status_code=303)

    def _status(self) -> dict[str, Any]:
        found = api.status(self.workspace)
        return found.to_json() if found.status is not None else {"error": found.reason.removeprefix("configuration: ")}

    def _page(self, request: Request, template: str, **values: Any) -> Response:
        session = self.guard.session(request)
        html = self.env.get_template(template).render(csrf=self.guard.csrf_token(session),
                                                      workspace=str(self.workspace.root), **values)
        return self.guard.remember(request, HTMLResponse(html), session)


@dataclass(frozen=True)
class Row:
    """One line of a memory file as the memory view shows it."""

    number: int
    text: str
    fact: bool  # a bullet: it can be asked about, pinned, forgotten
    pinned: bool
    heading: bool


def _file_rows(file: api.MemoryFile) -> dict[str, Any]:
    lines = (file.text or "").split("\n")
    rows = [Row(number, line, line.lstrip().startswith(("- ", "* ", "+ ")), api.PIN in line, line.startswith("#"))
            for number, line in enumerate(lines, start=1) if line.strip()]
    return {"path": file.path, "missing": file.missing, "rows": rows}


def diff_lines(diff: str) -> list[tuple[str, str]]:
    """(css class, line) for a unified diff, so additions and removals read at a glance."""
    def kind(line: str) -> str:
        if line.startswith(("+++", "---", "diff ", "index ")):
            return "meta"
        return {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "")
    return [(kind(line), line) for line in diff.splitlines()]
