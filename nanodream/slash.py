"""Slash commands for host agents (`/dream`, `/dream-log`, `/dream-restore`, `/dream-review`, …) → markdown.

A host shows whatever comes back to a person in a chat, so every outcome — including a typo, a bad
sha, a busy workspace or an unexpected error — is a short markdown message, never a traceback.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nanodream import api
from nanodream.api import SlashReply
from nanodream.controls import visible
from nanodream.vocab import (
    FAILURES,
    ExitCode,
    Outcome,
    Refused,
    Report,
    count,
    count_entries,
    numbered,
    spoken_tokens,
)

if TYPE_CHECKING:
    from nanodream.api import (
        BatchOutcome,
        CommitDetail,
        CommitSummary,
        Proposal,
        RestoreReport,
        ReviewReport,
        RunReport,
        Workspace,
    )

LIST_LIMIT = 10
USAGE = {
    "/dream": "`/dream` — consolidate the history backlog into memory now",
    "/dream-log": "`/dream-log [sha]` — recent memory commits, or one commit in full",
    "/dream-restore": "`/dream-restore [sha] [--before] [--replay]` — undo a dream (no sha: list what can be undone)",
    "/dream-prompt": "`/dream-prompt [init]` — which dream prompt is active; `init` copies it for editing",
    "/dream-review": "`/dream-review` — the proposals review runs left pending, with their diffs",
    "/dream-accept": "`/dream-accept [id|all]` — apply a pending proposal (no id: list them); `all` for every one",
    "/dream-reject": "`/dream-reject [id|all] [reason]` — drop a proposal, recording its facts as rejected",
}
_SETTING_NAMES = {f.name for f in fields(api.Settings)}


class SlashError(Exception):
    """A request that cannot be served; the message is already markdown for the person."""


def handle(workspace_path: str | Path, text: str, **options: Any) -> str:
    """Answer one slash command in `workspace_path` with markdown.

    `options` are settings overrides for `/dream` (e.g. `model="builtin"`), plus `engine_factory` to
    supply the engine in-process.
    """
    return respond(workspace_path, text, **options).markdown


def respond(workspace_path: str | Path, text: str, **options: Any) -> SlashReply:
    """Like `handle`, with the exit code a command line should end with.

    The reply quotes history, memory, summaries and commit subjects: their control characters are shown, not
    passed on to whatever displays the markdown.
    """
    reply = _reply(workspace_path, text, options)
    words = (text or "").split()
    return replace(reply, markdown=visible(reply.markdown), command=words[0].lower() if words else "")


def _reply(workspace_path: str | Path, text: str, options: dict[str, Any]) -> SlashReply:
    try:
        return _dispatch(api.Workspace.at(workspace_path), text, options)
    except SlashError as exc:
        return SlashReply(str(exc), ExitCode.USAGE)
    except Exception as exc:  # the host shows our reply to a person; a traceback helps nobody there
        return SlashReply(f"**nanodream hit an unexpected error:** `{type(exc).__name__}: {exc}`", ExitCode.FAILED)


def _dispatch(workspace: Workspace, text: str, options: dict[str, Any]) -> SlashReply:
    try:
        words = shlex.split(text or "")
    except ValueError as exc:
        raise SlashError(f"**Could not read that command** ({exc}).\n\n{help_text()}") from None
    if not words or not words[0].startswith("/"):
        raise SlashError(f"**Not a slash command:** `{(text or '').strip()[:60]}`\n\n{help_text()}")
    command, args = words[0].lower(), words[1:]
    handlers: dict[str, Callable[[Workspace, list[str], dict[str, Any]], SlashReply]] = {
        "/dream": _dream, "/dream-log": _dream_log, "/dream-restore": _dream_restore, "/dream-prompt": _dream_prompt,
        "/dream-review": _dream_review, "/dream-accept": _dream_accept, "/dream-reject": _dream_reject,
    }
    if command not in handlers:
        raise SlashError(f"**Unknown command** `{command}`.\n\n{help_text()}")
    problem = workspace.problem()
    if problem:
        raise SlashError(f"**No agent workspace here:** {problem}. Create one with `nanodream init {workspace.root}`.")
    return handlers[command](workspace, args, options)


def help_text() -> str:
    return "nanodream slash commands:\n" + "\n".join(f"- {line}" for line in USAGE.values())


def _usage_error(command: str, problem: str) -> SlashError:
    return SlashError(f"**{problem}**\n\nUsage: {USAGE[command]}")


# /dream ---------------------------------------------------------------------------------------------


def _dream(workspace: Workspace, args: list[str], options: dict[str, Any]) -> SlashReply:
    if args:
        raise _usage_error("/dream", f"`/dream` takes no arguments (got `{' '.join(args)}`).")
    engine_factory = options.get("engine_factory")
    overrides = {k: v for k, v in options.items() if k != "engine_factory"}
    unknown = sorted(set(overrides) - _SETTING_NAMES)
    if unknown:
        raise SlashError(f"**Unknown {numbered('option', unknown)}**; "
                         f"settings are {', '.join(sorted(_SETTING_NAMES))}")
    try:
        settings = api.settings_for(workspace, overrides)
    except Refused as exc:
        return SlashReply(f"**Configuration problem:** {exc.reason.removeprefix('configuration: ')}", ExitCode.USAGE)
    report = api.run(workspace, settings, api.RunOptions(trigger="slash"), engine_factory=engine_factory)
    return SlashReply(render_run(report), report.exit_code, report.to_json())


def render_run(report: RunReport) -> str:
    if report.outcome in _TURNED_AWAY:
        return refusal("Dream not started", report)
    lines = []
    if report.recovered:
        lines.append(f"_Recovered first:_ {report.recovered}")
    if report.manual_commit:
        lines.append(f"_Your hand edits were committed first as `{report.manual_commit[:8]}`._")
    for batch in report.batches:
        lines += _batch_lines(batch)
    spend = f"{spoken_tokens(report.tokens_in, report.tokens_out, report.cached_tokens, sep=' / ')}, cost " + (
        "unknown" if report.cost is None else f"${report.cost:.4f}")
    if report.outcome == Outcome.MISCONFIGURED:
        lines.append(f"**Configuration problem:** {report.reason}. Nothing was changed.")
    elif report.outcome in FAILURES:
        lines.append(f"**Dream failed:** {report.reason}. Nothing was changed for that batch and the history "
                     "cursor did not move.")
    elif report.outcome == Outcome.NOTHING_TO_DO:
        lines.append("Nothing to dream about: the history backlog is empty.")
    else:
        head = "**Dream committed.**" if report.commits else "**Dream done; nothing changed.**"
        lines.insert(0, f"{head} {count_entries(report.entries)} of history consumed; {spend}.")
        if report.reason:
            lines.append(report.reason)
    return "\n".join(lines + _next_steps(report))


def _next_steps(report: RunReport) -> list[str]:
    """Where to look next: the last commit, and apart from it the insights the run proposed or changed."""
    lines = []
    if report.commits:
        lines.append(f"\nSee a change with `/dream-log {report.commits[-1][:8]}`; "
                     f"undo it with `/dream-restore {report.commits[-1][:8]}`.")
    if report.insights:  # connections, never facts: said apart from what the dream filed
        shown = ", ".join(f"`{item['name']}` ({item['change']})" for item in report.insights)
        lines.append(f"\n_Insights (not memory; `nanodream insights` to decide):_ {shown}")
    return lines


# /dream-log -----------------------------------------------------------------------------------------


def _dream_log(workspace: Workspace, args: list[str], options: dict[str, Any]) -> SlashReply:
    if len(args) > 1 or (args and args[0].startswith("-")):
        raise _usage_error("/dream-log", f"Expected at most one commit sha, got `{' '.join(args)}`.")
    if not args:
        commits = api.log(workspace, LIST_LIMIT).commits
        if not commits:
            return SlashReply("No memory commits yet. Run `/dream` to consolidate the history backlog.", result=[])
        body = "\n".join(_commit_item(c) for c in commits)
        return SlashReply(f"**Recent memory commits** (newest first)\n\n{body}\n\n"
                          "Details of one: `/dream-log <sha>` · undo a dream: `/dream-restore <sha>`",
                          result=[c.to_json() for c in commits])
    shown = api.show(workspace, args[0])
    if shown.detail is None:
        raise SlashError(f"**{shown.reason}.** `/dream-log` lists recent commits.")
    return SlashReply(render_detail(shown.detail), result=shown.to_json())


def _commit_item(commit: CommitSummary) -> str:
    files = ", ".join(f"{f['path']} +{f['added']} -{f['removed']}" if f["added"] is not None else f["path"]
                      for f in commit.files)
    parts = [f"`{commit.short}`", commit.time[:16].replace("T", " "), f"**{commit.kind}**", _inline(commit.subject)]
    if files:
        parts.append(files)
    if commit.history:
        parts.append(f"history #{commit.history['first']}..#{commit.history['last']}")
    if commit.tokens:
        parts.append(f"tokens {commit.tokens['in']}/{commit.tokens['out']}")
    if commit.restores:
        parts.append(f"undoes `{commit.restores[:8]}`")
    return "- " + " · ".join(parts)


def render_detail(detail: CommitDetail) -> str:
    lines = [f"### {detail.kind} `{detail.short}` — {_inline(detail.subject)}", "",
             " · ".join(p for p in (detail.time, detail.model or "", _spend(detail)) if p)]
    if detail.summary:
        lines += ["", "**Summary**", "", *[f"> {line}" if line else ">" for line in detail.summary.splitlines()]]
    if detail.files:
        lines += ["", "**Changes** (from the diff)", ""]
        lines += [f"- {f['path']}: +{f['added']} -{f['removed']}" if f["added"] is not None else f"- {f['path']}"
                  for f in detail.files]
    if detail.history:
        first, last = detail.history["first"], detail.history["last"]
        lines += ["", f"**History consumed** (#{first}..#{last})", ""]
        if detail.history_entries:
            lines += [f"- #{e['cursor']} {e['timestamp']}: {_inline(e['content'])}" for e in detail.history_entries]
        else:
            lines.append("- (no longer in history.jsonl)")
    if detail.diff.strip():
        fence = "`" * max(3, _longest_backtick_run(detail.diff) + 1)
        lines += ["", f"{fence}diff", detail.diff.rstrip("\n"), fence]
    if detail.kind == "dream":
        lines += ["", f"Undo it with `/dream-restore {detail.short}`."]
    return "\n".join(lines)


# /dream-restore -------------------------------------------------------------------------------------


def _dream_restore(workspace: Workspace, args: list[str], options: dict[str, Any]) -> SlashReply:
    flags = [a for a in args if a.startswith("-")]
    shas = [a for a in args if not a.startswith("-")]
    unknown = [f for f in flags if f not in ("--before", "--replay")]
    if unknown or len(shas) > 1 or (flags and not shas):
        problem = f"Unknown option `{unknown[0]}`." if unknown else "Give one commit sha, then any options."
        raise _usage_error("/dream-restore", problem)
    if not shas:
        dreams = api.log(workspace, LIST_LIMIT, kind="dream").commits
        return SlashReply(_restorable_list(dreams), result=[c.to_json() for c in dreams])
    report = api.restore(workspace, shas[0], before="--before" in flags, replay="--replay" in flags)
    return SlashReply(render_restore(report, shas[0]), report.exit_code, report.to_json())


def _restorable_list(dreams: list[CommitSummary]) -> str:
    if not dreams:
        return "No dream commits to undo yet."
    body = "\n".join(_commit_item(c) for c in dreams)
    return (f"**Recent dreams** (newest first)\n\n{body}\n\n"
            "- `/dream-restore <sha>` undoes that dream as a new commit; later changes are kept.\n"
            "- `--before` sets every memory file back to just before it (undoing later changes too).\n"
            "- `--replay` also lets the next dream read that history again (by default it does not, "
            "so a rejected change is not re-added).\n"
            "- `/dream-log <sha>` shows a dream in full first.")


def _batch_lines(batch: BatchOutcome) -> list[str]:
    """The batch's line, then what its guards left out or warn about (a host's person sees them here)."""
    return _batch_head(batch) + [f"  - warning: {warning}" for warning in batch.warnings]


def _batch_head(batch: BatchOutcome) -> list[str]:
    span = f"history #{batch.first_cursor}..#{batch.last_cursor} ({count_entries(batch.entries)})"
    if batch.outcome == Outcome.COMMITTED and batch.commit:
        first = batch.summary.splitlines()[0].strip() if batch.summary.strip() else "(no summary)"
        return [f"- `{batch.commit[:8]}` {span}: {first}", *(f"  - {change}" for change in batch.changes),
                *_notes(batch)]
    if batch.outcome == Outcome.COMMITTED and batch.proposal:
        return [f"- {span}: proposal `{batch.proposal[:8]}` waits for review (`/dream-review`)"]
    if batch.outcome == Outcome.NO_CHANGE:
        return [f"- {span}: nothing worth keeping, no commit", *_notes(batch)]
    return []


def _notes(batch: BatchOutcome) -> list[str]:
    """Facts the session kept out and why, and what its summary claims that the diff does not show."""
    return ([f"  - not kept: {r['fact']} ({r['reason']})" for r in batch.reasons]
            + [f"  - not shown by the diff: {note}" for note in batch.unconfirmed])


_TURNED_AWAY = (Outcome.BUSY, Outcome.BLOCKED, Outcome.REFUSED)


def refusal(what: str, report: Report) -> str:
    """A change that did not go ahead, said the same way for every command; nothing was written."""
    if report.outcome == Outcome.BUSY:
        return f"**Busy:** {report.reason}. Nothing was changed."
    head = "Blocked until you act" if report.outcome == Outcome.BLOCKED else what
    hint = f"\n\nHint: {report.hint}." if report.hint else ""
    return f"**{head}:** {_inline(report.reason, 400)}. Nothing was changed.{hint}"


def render_restore(report: RestoreReport, ref: str) -> str:
    if report.outcome in _TURNED_AWAY:
        if report.conflicts:  # a plain hint would say the same less helpfully
            return (f"**Cannot restore `{ref}`:** {_inline(report.reason, 400)}.\n\nNothing was changed. To set "
                    f"every memory file back to just before it instead (undoing later changes too): "
                    f"`/dream-restore {report.target[:8]} --before`")
        return refusal(f"Cannot restore `{ref}`", report)
    if report.outcome == Outcome.NOTHING_TO_DO:
        return f"Nothing to restore: {report.reason}."
    what = "Set memory back to before" if report.mode == "before" else "Undid"
    lines = [f"**{what} {report.target_kind} `{report.target[:8]}`** ({_inline(report.target_subject)}) "
             f"in commit `{(report.commit or '')[:8]}`."]
    if report.manual_commit:
        lines.append(f"_Your hand edits were committed first as `{report.manual_commit[:8]}`._")
    lines += [f"- {change}" for change in report.changes]
    if report.rejected:
        lines.append("\nRecorded as rejected in `memory/rejected.md` (no later dream adds them again): "
                     + "; ".join(_inline(fact) for fact in report.rejected))
    if report.replay:
        lines.append(f"\nHistory cursor set back to {report.cursor_after}: the next dream reads that history again.")
    else:
        lines.append(f"\nHistory cursor left at {report.cursor_after}: the next dream will not re-add it.")
    return "\n".join(lines)


# /dream-review, /dream-accept, /dream-reject ----------------------------------------------------------


def _dream_review(workspace: Workspace, args: list[str], options: dict[str, Any]) -> SlashReply:
    if args:
        raise _usage_error("/dream-review", "`/dream-review` takes no arguments; accept with `/dream-accept <id>`.")
    queue = api.review_queue(workspace).proposals
    parts = [_proposal_list([item.proposal for item in queue])]
    for item in queue:
        diff = item.diff.rstrip()
        fence = "`" * max(3, _longest_backtick_run(diff) + 1)
        parts.append(f"{fence}diff\n{diff}\n{fence}")
    return SlashReply("\n\n".join(parts), result=[item.proposal.to_json() for item in queue])


def _dream_accept(workspace: Workspace, args: list[str], options: dict[str, Any]) -> SlashReply:
    return _decide(workspace, "/dream-accept", args)


def _dream_reject(workspace: Workspace, args: list[str], options: dict[str, Any]) -> SlashReply:
    return _decide(workspace, "/dream-reject", args)


def _decide(workspace: Workspace, command: str, args: list[str]) -> SlashReply:
    """Accept or reject one proposal, or `all`; without an id, list what is pending with hints."""
    if not args:
        chain = api.proposals(workspace).proposals
        return SlashReply(_proposal_list(chain), result=[p.to_json() for p in chain])
    if command == "/dream-accept" and len(args) > 1:
        raise _usage_error(command, "Give one proposal id, or `all`.")
    selection = api.Selection(None if args[0] == "all" else args[0], everything=args[0] == "all")
    if command == "/dream-accept":
        report = api.accept(workspace, selection)
    else:
        report = api.reject(workspace, selection, " ".join(args[1:]))
    return SlashReply(_render_decision(report), report.exit_code, report.to_json())


def _proposal_list(chain: list[Proposal]) -> str:
    if not chain:
        return "No proposals are pending."
    lines = [f"- `{p.id}` {p.time[:16].replace('T', ' ')} {_inline(p.summary)}"
             + (f" — **conflicted:** {_inline(p.reason)}" if p.state == "conflicted" else "")
             + "".join(f"\n  - {f['path']} +{f['added']} -{f['removed']}" for f in p.files) for p in chain]
    return ("**Pending proposals** (oldest first)\n\n" + "\n".join(lines) + "\n\n"
            "- `/dream-accept <id>` applies one to memory as a commit; `/dream-accept all` applies every one.\n"
            "- `/dream-reject <id> [reason]` drops one and keeps its facts out of later dreams.\n"
            "- `/dream-review` shows the diffs.")


def _render_decision(report: ReviewReport) -> str:
    if report.outcome in _TURNED_AWAY:
        return refusal(f"Cannot {report.action}", report)
    if not report.ids:
        return f"Nothing to {report.action}: {report.reason}."
    verb = "Accepted" if report.action == "accept" else "Rejected"
    lines = [f"**{verb}** {', '.join(f'`{i}`' for i in report.ids)}"
             + (f" in {numbered('commit', [f'`{c[:8]}`' for c in report.commits])}." if report.commits else ".")]
    if report.rejected:
        lines.append("Recorded as rejected: " + "; ".join(_inline(f) for f in report.rejected))
    lines.append(f"{count(len(report.pending), 'proposal')} still pending.")
    return "\n".join(lines)


# /dream-prompt --------------------------------------------------------------------------------------


def _dream_prompt(workspace: Workspace, args: list[str], options: dict[str, Any]) -> SlashReply:
    if args == ["init"]:
        made = api.prompt_init(workspace)
        if made.created is None:
            return SlashReply(refusal("Prompt not copied", made), made.exit_code)
        return SlashReply(f"Copied the built-in dream prompt to `{made.created}`. Edit it; the next dream uses it.",
                          result={"copied_to": made.created})
    if args:
        raise _usage_error("/dream-prompt", f"Unknown argument `{' '.join(args)}`.")
    info = api.prompt(workspace).info
    text = f"Active dream prompt: **{info.source}** (`{info.path}`, {info.chars} chars)."
    notes = {
        "absent": f"Customise it with `/dream-prompt init` (copies it to `{api.OVERRIDE}`).",
        "empty": f"`{api.OVERRIDE}` is empty, so the built-in prompt is used.",
        "symlink": f"`{api.OVERRIDE}` is a symlink and is ignored.",
        "not-a-file": f"`{api.OVERRIDE}` is not a file and is ignored.",
        "active": "It is identical to the built-in prompt." if info.override_identical_to_builtin
        else "It differs from the built-in prompt (`nanodream prompt reset` goes back).",
    }
    return SlashReply(f"{text}\n\n{notes[info.override_state]}", result=info.to_json())


# helpers --------------------------------------------------------------------------------------------


def _inline(text: str, limit: int = 160) -> str:
    """One line of text for a list item: newlines folded, long text cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _spend(detail: CommitSummary) -> str:
    if not detail.tokens:
        return ""
    cost = "cost unknown" if detail.cost is None else f"cost ${detail.cost:.4f}"
    return f"{spoken_tokens(detail.tokens['in'], detail.tokens['out'], detail.tokens['cached'], sep=' / ')}, {cost}"


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)
