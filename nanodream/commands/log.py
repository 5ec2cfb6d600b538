"""`nanodream log`: memory commits newest first, dreams told apart from hand edits and restores."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from nanodream.commands.common import JsonOption, WorkspaceOption, concluded, console, fail, resolve_workspace
from nanodream.controls import visible
from nanodream.vocab import spoken_tokens

if TYPE_CHECKING:
    from nanodream.api import CommitSummary

KIND_STYLE = {"dream": "cyan", "manual": "yellow", "restore": "magenta", "insights": "blue", "sync": "green",
              "init": "dim", "other": "dim"}


def log(
    workspace: WorkspaceOption = None,
    number: Annotated[int, typer.Option("--number", "-n", min=1, help="Show at most N commits.")] = 20,
    kind: Annotated[str | None, typer.Option("--kind", help="Only dream, manual, restore or insights commits.")] = None,
    as_json: JsonOption = False,
) -> None:
    """List memory commits: what each dream changed, which history it consumed, and what it cost.

    \b
    Examples:
      nanodream log -n 5                  # the newest five
      nanodream log --kind dream --json
    """
    from nanodream import api
    from nanodream.api import COMMIT_KINDS

    ws = resolve_workspace(workspace, as_json=as_json)
    if kind is not None and kind not in COMMIT_KINDS:
        fail(f"--kind must be one of {', '.join(COMMIT_KINDS)}, got {kind!r}", as_json=as_json)

    def render(report: api.LogReport) -> None:
        if not report.commits:
            console.print(f"no {kind or 'memory'} commits yet", highlight=False, soft_wrap=True)
            return
        output = Text("\n").join(commit_lines(commit) for commit in report.commits)
        console.print(output, highlight=False, soft_wrap=True)  # one print: rich's per-call cost adds up

    concluded(api.log(ws, number, kind), as_json, render)


def commit_lines(commit: CommitSummary) -> Text:
    """Sha, time, kind and subject; the files with +/- lines; the history range and spend."""
    style = KIND_STYLE.get(commit.kind, "dim")
    text = Text.assemble((commit.short, "bold"), f"  {commit.time[:16].replace('T', ' ')}  ",
                         (f"{commit.kind:<7}", style), f"  {visible(display_subject(commit))}")
    if commit.files:
        text.append("\n          " + visible(", ".join(file_stat(f) for f in commit.files)))
    facts = commit_facts(commit)
    if facts:
        text.append("\n          " + visible(" · ".join(facts)))
    return text


def display_subject(commit: CommitSummary) -> str:
    """The subject without a prefix that only repeats the kind column ("dream: ", "manual: ")."""
    prefix = f"{commit.kind}: "
    return commit.subject[len(prefix):] if commit.subject.startswith(prefix) else commit.subject


def file_stat(stat: dict[str, Any]) -> str:
    if stat["added"] is None:
        return f"{stat['path']} (binary)"
    return f"{stat['path']} +{stat['added']} -{stat['removed']}"


def commit_facts(commit: CommitSummary) -> list[str]:
    """The machine that made it; history range, spend and model of a dream; what a restore undid."""
    facts = [f"on {commit.machine}"] if commit.machine else []
    if commit.history:
        facts.append(f"history #{commit.history['first']}..#{commit.history['last']}")
    if commit.tokens:
        facts.append(spoken_tokens(commit.tokens["in"], commit.tokens["out"], commit.tokens["cached"], sep=" "))
    if len(commit.sessions) > 1:  # the tokens are every session's: say so
        facts.append(f"{len(commit.sessions)} sessions ({', '.join(commit.sessions)})")
    if commit.kind == "dream":
        facts.append("cost unknown" if commit.cost is None else f"cost ${commit.cost:.4f}")
    if commit.model:
        facts.append(commit.model)
    if commit.restores:
        facts.append(f"undoes {commit.restores[:8]}")
    if commit.cursor_reset is not None:
        facts.append(f"cursor set back to {commit.cursor_reset}")
    if commit.failed:
        failed = commit.failed
        facts.append(f"after {failed['sessions']} failed session{'s' if failed['sessions'] != 1 else ''} (too big): "
                     f"{failed.get('requests', 0)} req, "
                     f"{spoken_tokens(failed.get('in', 0), failed.get('out', 0), None, sep=' ')}, "
                     f"{failed.get('bytes', 0) / 1000:,.0f} KB")
    return facts


def register(app: typer.Typer) -> None:
    app.command()(log)
