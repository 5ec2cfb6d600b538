"""Commit messages: the session's words for people, the real diff and machine-readable trailers for truth."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nanodream.markdown import with_fences
from nanodream.vocab import (
    TRAILER_PREFIX,
    Trailer,
    Trailers,
    format_cost,
    format_range,
    format_tokens,
    format_trailers,
    is_trailer_line,
)

if TYPE_CHECKING:
    from nanodream.backlog.history import Batch
    from nanodream.backlog.position import Position
    from nanodream.changes import FileChange

SUBJECT_LIMIT = 72
_SUMMARY_HEAD = "Summary (the session's own words; the diff below is authoritative):"
_CHANGES_HEAD = "Changes (from the diff):"
_UNCONFIRMED_HEAD = "Not shown by the diff:"
_MISFILED_HEAD = "Filed in another file than it belongs in:"
_HELD_HEAD = "Held back for a person (not in this commit; `nanodream review` shows them):"
_TRAILER_LIKE = re.compile(rf"^(\s*)((?:{TRAILER_PREFIX}[A-Za-z-]+|{Trailer.MACHINE}):)", re.MULTILINE)
_MACHINE_LINE = re.compile(rf"^{Trailer.MACHINE}:.*$")


def change_line(change: FileChange) -> str:
    """One file's change as people read it everywhere (commit body, run output, restore): kind and +/- lines."""
    added, removed = change.line_counts()
    return f"{change.path}: {change.kind} (+{added} -{removed})"


def change_lines(changes: list[FileChange]) -> list[str]:
    """The commit body's list of changes, computed from the diff."""
    return [f"- {change_line(change)}" for change in changes]


@dataclass(frozen=True)
class DreamFacts:
    """What a dream commit says about its session besides the words: who, how much, which history."""

    run_id: str
    model: str
    batch: Batch | None  # None: a tidy pass, which consumed no history and carries no cursor range
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    cached_tokens: int = 0
    position: int | None = None  # the history position once this commit lands (None: tidy)
    history: str = ""  # the fingerprint of history.jsonl up to `position`: whose history it is (backlog/position.py)
    unconfirmed: list[str] = field(default_factory=list)  # what the summary claims that the diff does not show
    misfiled: list[str] = field(default_factory=list)  # facts filed in another file than they belong in
    held: list[str] = field(default_factory=list)  # lines the session wrote that wait for a person instead
    # every session the batch took ({mode, requests, tokens_in, tokens_out, cached_tokens, seconds, …}, in order):
    # the tokens and cost above are their sums; more than one is listed in a Dream-Sessions trailer
    sessions: list[dict[str, Any]] = field(default_factory=list)


def _first_words(summary: str) -> str:
    """The summary's first line that says something outside a code fence (a model once gave "dream: ```"), or ""
    when that line is not words (JSON, a call written as text): never a subject."""
    for line, code in with_fences(summary.splitlines()):
        text = line.strip(" #*-`>_=~")
        if not code and any(ch.isalnum() for ch in text):
            return text if reads_as_words(text) else ""
    return ""


_WORD = re.compile(r"[^\W\d_]{2,}")
_MARKUP_START = ("{", "[", "<", '"', "'", "```")
_JSON_KEY = re.compile(r"""["'][\w ]+["']\s*:""")


def reads_as_words(line: str) -> bool:
    """Whether a line reads as a sentence a person wrote: at least two words, mostly letters, not the start of
    JSON, markup or a call (`{"facts": [`, `<tool_call>`, `"summary": …`)."""
    text = line.strip()
    if text.startswith(_MARKUP_START) or _JSON_KEY.search(text):
        return False
    letters = sum(ch.isalpha() or ch.isspace() for ch in text)
    return len(_WORD.findall(text)) >= 2 and letters >= 0.7 * len(text)


def worded_summary(summary: str) -> bool:
    """A summary that may stand as the commit's subject and body: its first line outside a code fence is words."""
    return bool(_first_words(summary))


def change_summary(changes: list[FileChange]) -> str:
    """The change in words, computed from the diff: the subject when the session's summary cannot be one."""
    said = []
    for change in changes:
        added, removed = change.line_counts()
        if change.kind != "modified":
            said.append(f"{'create' if change.kind == 'added' else 'delete'} {change.path}")
        elif removed == 0:
            said.append(f"add {_lines(added)} to {change.path}")
        elif added == 0:
            said.append(f"remove {_lines(removed)} from {change.path}")
        else:
            said.append(f"change {change.path} (+{added} -{removed})")
    return "; ".join(said)


def _lines(number: int) -> str:
    return f"{number} line" if number == 1 else f"{number} lines"


def dream_message(summary: str, changes: list[FileChange], facts: DreamFacts,
                  extra: tuple[tuple[Trailer, object], ...] = ()) -> str:
    """Subject from the summary, the summary, the diff's own change list, then trailers (and any `extra`)."""
    batch = facts.batch
    summary = _TRAILER_LIKE.sub(r"\1> \2", summary.strip())
    first_line = _first_words(summary)
    fallback = change_summary(changes) or (f"consolidate history {batch.describe()}" if batch else "tidy memory")
    subject = first_line or fallback
    if len(subject) > SUBJECT_LIMIT - len("dream: "):
        subject = subject[: SUBJECT_LIMIT - len("dream: ") - 1].rstrip() + "…"
    body = [f"dream: {subject}", ""]
    if summary:
        body += [_SUMMARY_HEAD, summary, ""]
    if facts.unconfirmed:
        body += [_UNCONFIRMED_HEAD, *(f"- {note}" for note in facts.unconfirmed), ""]
    if facts.misfiled:
        body += [_MISFILED_HEAD, *(f"- {note}" for note in facts.misfiled), ""]
    if facts.held:
        body += [_HELD_HEAD, *(f"- {note}" for note in facts.held), ""]
    body += [_CHANGES_HEAD, *change_lines(changes), ""]
    body += format_trailers([
        (Trailer.KIND, "dream"), (Trailer.RUN, facts.run_id), (Trailer.MODEL, facts.model), *_span(facts),
        (Trailer.TOKENS, format_tokens(facts.tokens_in, facts.tokens_out, facts.cached_tokens)),
        (Trailer.COST, format_cost(facts.cost)),
        *_sessions(facts),
        *extra,
    ])
    return "\n".join(body)


def _sessions(facts: DreamFacts) -> list[tuple[Trailer, object]]:
    """Each session of a batch that took more than one, so the trailers show what every one of them spent."""
    if len(facts.sessions) < 2:
        return []
    return [(Trailer.SESSIONS, "; ".join(
        f"{s.get('mode') or 'session'} requests={s.get('requests', 0)} in={s.get('tokens_in', 0)} "
        f"out={s.get('tokens_out', 0)} cached={s.get('cached_tokens', 0)} seconds={round(s.get('seconds') or 0)}"
        for s in facts.sessions))]


def with_change_list(message: str, changes: list[FileChange]) -> str:
    """`message` with its change list recomputed from `changes`: what actually landed (an accepted proposal
    merged onto hand edits, or only one file of it), so the list stays "from the diff"."""
    lines = message.split("\n")
    if _CHANGES_HEAD not in lines:
        return message
    start = len(lines) - 1 - lines[::-1].index(_CHANGES_HEAD)
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return "\n".join([*lines[: start + 1], *change_lines(changes), *lines[end:]])


def _span(facts: DreamFacts) -> list[tuple[Trailer, object]]:
    """Which history the commit consumed: cursors (the host's numbers), lines and byte offsets (the identity)."""
    batch = facts.batch
    if batch is None:
        return [(Trailer.TIDY, "yes")]
    span: list[tuple[Trailer, object]] = [(Trailer.CURSOR, format_range(batch.first_cursor, batch.last_cursor))]
    if batch.start_offset >= 0:
        span += [(Trailer.LINES, format_range(batch.first_line, batch.last_line)),
                 (Trailer.OFFSETS, format_range(batch.start_offset, batch.end_offset))]
    if facts.position is not None:
        span.append((Trailer.POSITION, facts.position))
        if facts.history:
            span.append((Trailer.HISTORY, facts.history))
    return span


@dataclass(frozen=True)
class InsightFacts:
    """What an insights commit says besides its files: which run, and what its phases spent, apart."""

    run_id: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    cached_tokens: int = 0
    cost: float | None = None


def insights_message(decided: list[tuple[str, str, str]], changes: list[FileChange], facts: InsightFacts) -> str:
    """The commit of a run's insight phases: (name, change, note) per insight, the diff's list, then trailers."""
    tally: dict[str, int] = {}
    for _, change, _ in decided:
        tally[change] = tally.get(change, 0) + 1
    subject = "insights: " + ", ".join(f"{number} {change}" for change, number in tally.items())
    body = [subject, "", *(f"- {name}: {change}" + (f" ({note})" if note else "") for name, change, note in decided),
            "", _CHANGES_HEAD, *change_lines(changes), ""]
    body += format_trailers([
        (Trailer.KIND, "insights"), (Trailer.RUN, facts.run_id), (Trailer.MODEL, facts.model),
        (Trailer.INSIGHT_TOKENS, format_tokens(facts.tokens_in, facts.tokens_out, facts.cached_tokens)),
        (Trailer.INSIGHT_COST, format_cost(facts.cost)),
    ])
    return "\n".join(body)


_BEFORE = ("Found uncommitted before a dream run and committed as they were, so these edits stay",
           "the person's own and are never credited to the dream.")
_SYNCED = ("Found uncommitted when memory was synced with another machine's and committed as they were",
           "first, so these edits stay the person's own and travel as theirs.")
_MEANWHILE = ("Found uncommitted when a change of nanodream's was about to land (made while it was being",
              "prepared) and committed first, as they were: these edits stay the person's own, and the",
              "change that follows keeps them.")


def manual_message(paths: list[str], *, meanwhile: bool = False, synced: bool = False) -> str:
    """A person's hand edits, committed as theirs: found before a run (or a change); `meanwhile`: made while a
    change was being prepared and found when it was about to land (memory/transaction.py); `synced`: found by a
    sync (sync/plan.py)."""
    shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    return "\n".join([
        f"manual: hand edits to {shown}",
        "",
        *(_MEANWHILE if meanwhile else _SYNCED if synced else _BEFORE),
        "",
        *format_trailers([(Trailer.KIND, "manual")]),
    ])


def sync_message(remote: str, branch: str, tip: str, changes: list[FileChange], notes: list[str]) -> str:
    """The commit that merges another machine's memory: where from, what the merge decided, the real diff."""
    body = [f"sync: merge memory from {remote}/{branch} ({tip[:8]})", ""]
    if notes:
        body += ["Decided by the merge:", *(f"- {note}" for note in notes), ""]
    body += [_CHANGES_HEAD, *(change_lines(changes) or ["- (no file changed: the histories are joined)"]), ""]
    body += format_trailers([(Trailer.KIND, "sync"), (Trailer.REMOTE, f"{remote}/{branch} {tip}")])
    return "\n".join(body)


def with_machine(message: str, machine: str) -> str:
    """`message` with a `Machine:` trailer naming where it was made (kept when it already names one): every
    commit nanodream makes says which machine taught it."""
    if not machine or Trailers.parse(message).machine:
        return message
    text = message.rstrip("\n")
    last = text.split("\n\n")[-1] if "\n\n" in text else ""
    trailer = format_trailers([(Trailer.MACHINE, machine)])[0]
    if last and all(is_trailer_line(line) for line in last.splitlines()):
        return f"{text}\n{trailer}\n"
    return f"{text}\n\n{trailer}\n"


def without_machine(message: str) -> str:
    """`message` without its `Machine:` trailer line: the same change, whichever machine wrote it down."""
    return "\n".join(line for line in message.strip().split("\n") if not _MACHINE_LINE.match(line)).strip()


# reading messages back ----------------------------------------------------------------------------

COMMIT_KINDS = ("dream", "manual", "restore", "insights", "sync")


def commit_kind(message: str) -> str:
    """dream | manual | restore | insights | sync from the Dream-Kind trailer; init for the first commit; other for
    anything else."""
    kind = Trailers.parse(message).get(Trailer.KIND) or ""
    if kind in COMMIT_KINDS:
        return kind
    return "init" if message.startswith("init:") else "other"


def message_summary(message: str) -> str:
    """The human part of a message: the model's summary for a dream, else the body without trailers."""
    text = message.strip()
    if _SUMMARY_HEAD in text:
        summary = text.split(_SUMMARY_HEAD, 1)[1]
        for head in (_CHANGES_HEAD, f"\n{_UNCONFIRMED_HEAD}\n", f"\n{_MISFILED_HEAD}\n", f"\n{_HELD_HEAD}\n"):
            summary = summary.split(head, 1)[0]
        return summary.strip()
    paragraphs = text.split("\n\n")[1:]
    if paragraphs and Trailers.parse(text).values:
        paragraphs = paragraphs[:-1]
    return "\n\n".join(p for p in paragraphs if not p.startswith(_CHANGES_HEAD)).strip()


def restore_message(*, target_sha: str, target_kind: str, target_subject: str, mode: str,
                    changes: list[FileChange], replay: Position | None) -> str:
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
    explain += (f" The history position was set back to before line {replay.line + 1}, so that batch is "
                "consumed again." if replay is not None else
                " The history position was left where it was, so the next dream does not re-read that batch.")
    lines = [subject, "", f"Undone: {target_sha} {quoted}".rstrip(), "", textwrap.fill(explain, 72), "",
             _CHANGES_HEAD, *change_lines(changes), "",
             *format_trailers([(Trailer.KIND, "restore"), (Trailer.RESTORES, target_sha),
                               (Trailer.RESTORE_MODE, mode)])]
    if replay is not None:
        lines += format_trailers([(Trailer.CURSOR_RESET, replay.cursor), (Trailer.POSITION, replay.offset),
                                  *([(Trailer.HISTORY, replay.fingerprint)] if replay.fingerprint else [])])
    return "\n".join(lines)
