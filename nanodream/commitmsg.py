"""Commit messages: the model's words for people, the real diff and machine-readable trailers for truth."""

from __future__ import annotations

import re

from nanodream.history import Batch
from nanodream.staging import FileChange

SUBJECT_LIMIT = 72
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
        body += ["Summary (the session's own words; the diff below is authoritative):", summary, ""]
    body += ["Changes (from the diff):", *change_lines(changes), ""]
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
