"""Commit messages: the session's words for people, the real diff and machine-readable trailers for truth."""

from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nanodream.run.history import Batch
    from nanodream.run.staging import FileChange

SUBJECT_LIMIT = 72
_SUMMARY_HEAD = "Summary (the session's own words; the diff below is authoritative):"
_CHANGES_HEAD = "Changes (from the diff):"
_TRAILER_LIKE = re.compile(r"^(\s*)(Dream-[A-Za-z-]+:)", re.MULTILINE)


def change_lines(changes: list[FileChange]) -> list[str]:
    """One line per file, computed from the diff: kind and +/- line counts."""
    lines = []
    for change in changes:
        added, removed = change.line_counts()
        lines.append(f"- {change.path}: {change.kind} (+{added} -{removed})")
    return lines


def dream_message(*, summary: str, changes: list[FileChange], run_id: str, model: str, batch: Batch | None,
                  tokens_in: int, tokens_out: int, cost: float | None) -> str:
    """A batch of None is a tidy pass: it consumed no history, so it carries no cursor range."""
    summary = _TRAILER_LIKE.sub(r"\1> \2", summary.strip())
    first_line = summary.splitlines()[0].strip(" #*-") if summary else ""
    fallback = f"consolidate history {batch.first_cursor}..{batch.last_cursor}" if batch else "tidy memory"
    subject = first_line or fallback
    if len(subject) > SUBJECT_LIMIT - len("dream: "):
        subject = subject[: SUBJECT_LIMIT - len("dream: ") - 1].rstrip() + "…"
    body = [f"dream: {subject}", ""]
    if summary:
        body += [_SUMMARY_HEAD, summary, ""]
    body += [_CHANGES_HEAD, *change_lines(changes), ""]
    body += [
        "Dream-Kind: dream",
        f"Dream-Run: {run_id}",
        f"Dream-Model: {model}",
        f"Dream-Cursor: {batch.first_cursor}..{batch.last_cursor}" if batch else "Dream-Tidy: yes",
        f"Dream-Tokens: in={tokens_in} out={tokens_out}",
        f"Dream-Cost: {'unknown' if cost is None else f'{cost:.6f}'}",
    ]
    return "\n".join(body)


def manual_message(paths: list[str]) -> str:
    shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    return "\n".join([
        f"manual: hand edits to {shown}",
        "",
        "Found uncommitted before a dream run and committed as they were, so these edits stay",
        "the person's own and are never credited to the dream.",
        "",
        "Dream-Kind: manual",
    ])


# reading messages back ----------------------------------------------------------------------------

COMMIT_KINDS = ("dream", "manual", "restore")
_TRAILER = re.compile(r"^(Dream-[A-Za-z-]+):[ \t]*(.*?)\s*$")


def parse_trailers(message: str) -> dict[str, str]:
    """`Dream-*` trailers of the message's last paragraph (a summary's look-alikes are quoted away on write)."""
    paragraphs = [p for p in message.strip().split("\n\n") if p.strip()]
    if len(paragraphs) < 2:
        return {}
    trailers: dict[str, str] = {}
    for line in paragraphs[-1].splitlines():
        match = _TRAILER.match(line)
        if match:
            trailers[match.group(1)] = match.group(2)
    return trailers


def commit_kind(message: str) -> str:
    """dream | manual | restore from the Dream-Kind trailer; init for the first commit; other for anything else."""
    kind = parse_trailers(message).get("Dream-Kind", "")
    if kind in COMMIT_KINDS:
        return kind
    return "init" if message.startswith("init:") else "other"


def message_summary(message: str) -> str:
    """The human part of a message: the model's summary for a dream, else the body without trailers."""
    text = message.strip()
    if _SUMMARY_HEAD in text:
        summary = text.split(_SUMMARY_HEAD, 1)[1]
        return summary.split(_CHANGES_HEAD, 1)[0].strip()
    paragraphs = text.split("\n\n")[1:]
    if paragraphs and parse_trailers(text):
        paragraphs = paragraphs[:-1]
    return "\n\n".join(p for p in paragraphs if not p.startswith(_CHANGES_HEAD)).strip()


def restore_message(*, target_sha: str, target_kind: str, target_subject: str, mode: str,
                    changes: list[FileChange], cursor_reset: int | None) -> str:
    """A restore commit: what was undone and how, the real diff, and trailers naming the undone commit."""
    short = target_sha[:8]
    label = "dream" if target_kind == "dream" else f"{target_kind} commit"
    if mode == "before":
        subject = f"restore: memory as it was before {label} {short}"
        explain = (f"Every memory file is set back to its state just before {short}; the changes of {short} "
                   "and of every later commit to these files are undone.")
    else:
        subject = f"restore: undo {label} {short}"
        explain = f"Undoes exactly the changes of {short}; later changes are kept."
    quoted = target_subject.strip()
    topic = quoted.removeprefix(f"{target_kind}: ")  # "undo dream abc (dream: …)" would say it twice
    if topic and len(subject) + len(topic) + 3 <= SUBJECT_LIMIT:
        subject += f" ({topic})"
    explain += (f" The history cursor was set back to {cursor_reset}, so that batch is consumed again."
                if cursor_reset is not None else
                " The history cursor was left where it was, so the next dream does not re-read that batch.")
    lines = [subject, "", f"Undone: {target_sha} {quoted}".rstrip(), "", textwrap.fill(explain, 72), "",
             _CHANGES_HEAD, *change_lines(changes), "",
             "Dream-Kind: restore", f"Dream-Restores: {target_sha}", f"Dream-Restore-Mode: {mode}"]
    if cursor_reset is not None:
        lines.append(f"Dream-Cursor-Reset: {cursor_reset}")
    return "\n".join(lines)
