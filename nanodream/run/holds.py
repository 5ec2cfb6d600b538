"""Lines held back for a person: a new line of a file a host loads that sends data away or keeps something from
the user waits in the review lane instead of landing, whatever the run's review setting.

The staged result loses the line (the rest of the batch lands and the history position moves past it); the
line becomes a proposal on refs/nanodream/pending through versioning/pending.py, with its reason in the
proposal's subject and its `Dream-Held` trailer, so `nanodream review` lists it, `accept` lands it as the dream's
and `reject` records it in memory/rejected.md. What is held (safety/review_rules.py):

- a rule that sends data to someone other than the user, or keeps something from the user;
- with `injection_policy = "warn"`, a rule the classifier calls hostile (safety/agent_rules.py): "warn" means
  a person decides, and a person decides in the review lane (with "refuse" such a line is left out before this);
- a rule split across two lines (safety/joined.py): one that sends something to a name, one that gives the name an
  address — both new lines of the pair wait, whichever files they are in;
- a rule the learned second opinion (safety/second_opinion.py) reads as hostile when no rule found it. It judges
  rules for the agent: every line of SOUL.md and of a skill, and a line elsewhere that reads as one (an
  obligation, the agent addressed, every reply or message, or an opening verb of command). Facts are not its
  training ("Project ledgerline deploys to the staging server every Friday" is not a rule to weigh).

Lines the injection tripwires flag (override-instructions, tool-call syntax, …) are left to the guards, which fail
the batch over them: holding such a line would let a hijacked session land the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nanodream.changes import FileChange
from nanodream.config import Settings
from nanodream.memory.staging import Staging, with_original_endings
from nanodream.run.parting import parted
from nanodream.safety import agent_rules, injection, review_rules, second_opinion
from nanodream.safety.joined import joined
from nanodream.text.grammar import MODAL_OBLIGATION, PROHIBITION
from nanodream.text.lists import wordlist
from nanodream.workspace import ARCHIVE_DIR, SOUL

# A line outside SOUL.md and the skills that reads as a rule for the agent rather than a fact.
_OBLIGATION = re.compile(rf"\b(?:{MODAL_OBLIGATION}|always|{PROHIBITION}|make\s+sure|remember\s+to|be\s+sure"
                         r"|you|your|the\s+(?:agent|assistant|bot)|(?:every|each|all|any)\s+(?:reply|replies|answer"
                         r"|answers|response|responses|message|messages|conversation|conversations|chat|chats))\b",
                         re.IGNORECASE)
_COMMAND_VERBS = wordlist("imperatives") | {"send", "forward", "post", "upload", "share", "email", "e-mail", "copy",
                                            "sync", "append", "print", "reveal", "delete", "hide", "download",
                                            "execute", "fetch", "mirror", "bcc", "cc", "leak", "dump", "export"}
_FIRST_WORD = re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*(?:\[\w+\]\s*)*([A-Za-z-]+)")

QUOTE_CHARS = injection.QUOTE_CHARS


@dataclass(frozen=True)
class HeldLine:
    """One line held back: where the session put it and why it waits."""

    path: str
    line: int  # 1-based, in the staged file
    text: str
    reasons: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.path}: held back line {self.line} for review ({'; '.join(self.reasons)}): " \
               f"{injection.quoted(self.text)!r}"


@dataclass
class Holds:
    """What a batch holds back, and the change that proposes it (the staged files before, with those lines in
    place of what their change removed)."""

    lines: list[HeldLine]
    changes: list[FileChange]

    def summary(self) -> str:
        """The proposal's summary: its first line is the subject `nanodream review` lists."""
        first = self.lines[0]
        head = (f"held back for review: {first.path} line {first.line} {' and '.join(first.reasons)}"
                if len(self.lines) == 1 else f"held back for review: {len(self.lines)} lines a person should see")
        return "\n".join([head, *(f"- {line}" for line in self.lines)])

    def trailer(self) -> str:
        return "; ".join(f"{line.path}:{line.line}: {', '.join(line.reasons)}" for line in self.lines)


def hold_back(staging: Staging, settings: Settings) -> Holds:
    """Take every held line out of the staged files a host loads; what was taken, as a change to propose."""
    loaded = [path for path in staging.existing_paths() if not path.startswith(f"{ARCHIVE_DIR}/")]
    held = {path: _held_in(path, staging.original.get(path), staging.read(path) or "", settings) for path in loaded
            if (staging.read(path) or "") != staging.original.get(path)}
    for line in _joined(staging, loaded, held, settings):
        held.setdefault(line.path, []).append(line)
    lines: list[HeldLine] = []
    changes: list[FileChange] = []
    for path, found in held.items():
        if not found:
            continue
        before, text = staging.original.get(path), staging.read(path) or ""
        kept, proposed = parted(before or "", text, {line.line for line in found})
        # what is left of the edit may be only the blank line around what was taken out
        staging.write(path, before if before is not None and _filled(kept) == _filled(before) else kept)
        raw_before = staging.on_disk.get(path)
        changes.append(FileChange(path, raw_before, with_original_endings(raw_before, proposed)))
        lines += sorted(found, key=lambda line: line.line)
    return Holds(lines, changes)


def _held_in(path: str, before: str | None, text: str, settings: Settings) -> list[HeldLine]:
    existing = set((before or "").splitlines())
    held = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line in existing or not line.strip() or _tripwire(line):
            continue
        why = reasons(line, settings, path)
        if why:
            held.append(HeldLine(path, number, line, tuple(why)))
    return held


def _joined(staging: Staging, loaded: list[str], held: dict[str, list[HeldLine]],
            settings: Settings) -> list[HeldLine]:
    """The lines of a rule split in two (safety/joined.py): a new line that sends something to a name, and a line
    (new, or one memory holds) that gives the name an address; each new one of the pair is held."""
    taken = {(line.path, line.line) for found in held.values() for line in found}
    where: list[tuple[str, int]] = []
    lines: list[str] = []
    fresh: set[int] = set()
    for path in loaded:
        existing = set((staging.original.get(path) or "").splitlines())
        for number, line in enumerate((staging.read(path) or "").splitlines(), start=1):
            if line.strip() and (path, number) not in taken and not _tripwire(line):
                fresh |= {len(lines)} if line not in existing else set()
                where.append((path, number))
                lines.append(line)
    found: dict[tuple[str, int], HeldLine] = {}
    for pair in joined(lines, lambda text: _joined_reasons(text, settings), fresh):
        for index, other in ((pair.rule, pair.address), (pair.address, pair.rule)):
            if index in fresh:
                path, number = where[index]
                joined_with = f"read with {where[other][0]} line {where[other][1]}"
                found[where[index]] = HeldLine(path, number, lines[index], (*pair.reasons, joined_with))
    return list(found.values())


def _joined_reasons(text: str, settings: Settings) -> list[str]:
    """Why a joined rule would wait: the held-back shapes, or a hostile kind (held here: neither line is one)."""
    return review_rules.reasons(text) + [f"an agent rule ({kind})" for kind in agent_rules.classify(text)]


def _tripwire(line: str) -> bool:
    return any(hit.rule not in injection.AGENT_RULES for hit in injection.scan_line(line))


def reasons(line: str, settings: Settings, path: str = SOUL) -> list[str]:
    """Why a new line of `path` waits for a person; empty when it may land."""
    found = review_rules.reasons(line)
    if settings.injection_policy == "warn":
        found += [f"an agent rule ({kind})" for kind in agent_rules.classify(line)]
    if not found and _a_rule(path, line) and (score := second_opinion.hostile_rule(line)) is not None:
        found.append(f"the second opinion reads it as a hostile rule ({score:.2f})")
    return found


def _a_rule(path: str, line: str) -> bool:
    """A line that is a rule for the agent: all of SOUL.md and the skills, and commands and obligations elsewhere."""
    if path == SOUL or path.startswith("skills/"):
        return True
    first = _FIRST_WORD.match(line)
    return bool(_OBLIGATION.search(line) or first and first.group(1).lower() in _COMMAND_VERBS)


def _filled(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip()]
