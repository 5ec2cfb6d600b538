"""How an insight names what it cites, and whether that still exists.

    memory/MEMORY.md: Invoices carry the 19% VAT rate.      a memory or archive line: file, then its exact text
    memory/archive/2026-03.md: Deploys go out on Tuesdays.  (without its bullet)
    skill:release-checklist                                 a skill
    commit:3f2a9c1                                          a commit of the memory's repository
    session:telegram:42                                     history entries by session key

A line ref follows its line: when pressure moves it from memory/MEMORY.md to the archive, it resolves there
(and re-evaluate rewrites the ref). An archived line in the until-form (`(from … until YYYY-MM-DD; replaced by:
…)`, validity.py) was superseded by a correction: a ref to it resolves, but as superseded, and the insight goes
stale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nanodream.controls import holds_controls, visible
from nanodream.validity import parse_validity
from nanodream.workspace import ARCHIVE_DIR, ARCHIVE_PATH, CORE_FILES, SKILL_NAME

SKILL, COMMIT, SESSION = "skill:", "commit:", "session:"
_SHA = re.compile(r"^[0-9a-f]{7,40}\Z")
FORMS = ("FILE: TEXT (SOUL.md, USER.md, memory/MEMORY.md or memory/archive/YYYY-MM.md, then the line's exact text "
         "without its bullet)", "skill:NAME", "commit:SHA", "session:KEY")


class RefInvalid(ValueError):
    """Not a ref in any of the four spellings; the message names them."""


@dataclass(frozen=True)
class Ref:
    """A parsed ref: `kind` line | skill | commit | session, the file (for a line) and the text or name."""

    kind: str
    target: str
    file: str = ""

    def spelled(self) -> str:
        if self.kind == "line":
            return line_ref(self.file, self.target)
        return {"skill": SKILL, "commit": COMMIT, "session": SESSION}[self.kind] + self.target


def line_ref(file: str, text: str) -> str:
    return f"{file}: {text}"


def parse_ref(text: str) -> Ref:
    """The ref `text` spells, or RefInvalid naming the four spellings (or the control characters it holds)."""
    ref = text.strip()
    if holds_controls(ref):
        raise RefInvalid(f"{visible(ref)!r} holds control characters; a ref is plain text")
    for prefix, kind in ((SKILL, "skill"), (COMMIT, "commit"), (SESSION, "session")):
        if ref.startswith(prefix):
            return _named(kind, ref[len(prefix):].strip())
    file, sep, line = ref.partition(": ")
    if sep and (file in CORE_FILES or ARCHIVE_PATH.fullmatch(file)) and line.strip():
        return Ref("line", line.strip(), file)
    raise RefInvalid(f"{ref!r} is not a ref; write it as one of: {'; '.join(FORMS)}")


def _named(kind: str, name: str) -> Ref:
    if kind == "skill" and not SKILL_NAME.fullmatch(name):
        raise RefInvalid(f"skill:{name} does not name a skill (lowercase letters, digits and '-')")
    if kind == "commit" and not _SHA.fullmatch(name.lower()):
        raise RefInvalid(f"commit:{name} is not a commit sha (7 to 40 hex digits)")
    if kind == "session" and (not name or "\n" in name):
        raise RefInvalid("session: needs the history entries' session key, e.g. session:telegram:42")
    return Ref(kind, name.lower() if kind == "commit" else name)


@dataclass(frozen=True)
class Superseded:
    """An archived line a correction replaced: until when it held, and what replaced it ('' when unsaid)."""

    until: str
    replaced_by: str


def superseded(text: str) -> tuple[str, Superseded | None]:
    """A line's fact without its until-form mark (validity.py, the one reader of that form), and the mark (None
    when it has none)."""
    validity = parse_validity(text)
    if validity is None:
        return text, None
    return validity.text, Superseded(validity.until.isoformat(), validity.successor)


def is_archive(file: str) -> bool:
    return file.startswith(f"{ARCHIVE_DIR}/")
