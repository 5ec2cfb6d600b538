"""The offline engine: files tagged fact lines by transparent rules, through the same tools a model uses.

It is deliberately conservative: it files what the tags and keyword rules make unambiguous, merges exact
and near-exact repeats, applies corrections in place, keeps open tasks tidy, and leaves raw untagged
summaries alone. A model run should do better; this is the baseline it must beat.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta

import yaml

from nanodream import clock
from nanodream.backlog.history import TAG_LINE, Batch, HistoryEntry, entry_day, session_of, tagged_lines
from nanodream.backlog.skill_usage import entry_session
from nanodream.config import Settings, zone
from nanodream.engines.base import SessionRequest, SessionResult
from nanodream.engines.files import MemoryFiles
from nanodream.engines.ledger import Change, Ledger
from nanodream.engines.lessons import Lessons
from nanodream.engines.replacing import FRAME, SLOT, Candidate, Match, find_replaced, restates
from nanodream.engines.routing import (
    OPEN_TASKS,
    Procedure,
    a_rule_in_its_language,
    parse_procedure,
    parse_task,
    parse_untitled_procedure,
    route_fact,
    task_key,
)
from nanodream.engines.skillwork import SkillWork
from nanodream.engines.tidy import TidyLedger, duplicate_bullets, remove_duplicates
from nanodream.hypotheses import evidence, without_marker
from nanodream.markdown import Bullet, append_steps, numbered_steps
from nanodream.pinning import PIN
from nanodream.rejected import fact_key as rejected_key
from nanodream.safety import injection, secret_scan
from nanodream.text.kinds import forbidden_in_profile, forbidden_kind
from nanodream.text.stems import singular
from nanodream.text.words import content_words, covers, fact_key, similarity, tidy_sentence
from nanodream.toolbox.tools import ToolBox
from nanodream.validity import is_replaced, split_dated
from nanodream.vocab import count
from nanodream.workspace import CORE_FILES, MEMORY, SOUL, USER

# A line saying work is finished; it closes the open task whose subject it repeats (see `_resolve_by_subject`).
_COMPLETION = re.compile(r"\b(?:done|finished|completed?|resolved|shipped|merged|closed|fixed|wrapped\s+up)\b",
                         re.IGNORECASE)
# Share of an open task's meaningful words a completion line must repeat to close it.
TASK_MATCH_SHARE = 0.6


class BuiltinEngine:
    """`model = "builtin"`: no network, no tokens, same input ⇒ same files."""

    name = "builtin"

    def __init__(self, settings: Settings, today: Callable[[], date] | None = None) -> None:
        self.settings = settings
        # What a tidy pass measures task ages against: the date where the user lives, unless a test fixes it.
        self.today = today or (lambda: clock.today(zone(settings.timezone)))

    def run(self, request: SessionRequest, toolbox: ToolBox) -> SessionResult:
        files = MemoryFiles(toolbox)
        if not request.batch.entries:  # only `run --tidy` sends no entries: a history batch always has some
            return self._tidy(files)
        ledger = Ledger(skipped_lines=request.batch.skipped_lines)
        shrink_ratio = None if request.batch.has_correction else self.settings.max_shrink_ratio
        newest = newest_day(request.batch)
        skills = SkillWork(files, ledger, request.skills)
        consolidator = Consolidator(files, ledger, shrink_ratio, request.rejected, skills=skills,
                                    undated=newest or self.today())
        for entry in request.batch.entries:
            consolidator.take_entry(entry)
        if newest is not None:
            budget = None if request.batch.has_correction else shrink_budget(
                files.original(MEMORY), files.docs[MEMORY].render(), self.settings.max_shrink_ratio)
            consolidator.prune_tasks(newest, self.settings.ephemeral_max_age_days, budget)
        skills.upkeep()
        files.save()
        return SessionResult(summary=ledger.summary(self.settings.ephemeral_max_age_days), cost=0.0,
                             warnings=ledger.withheld_secrets + ledger.withheld_rules, declined=dict(ledger.declined),
                             filed=dict(ledger.kept_as))

    def follow_up(self, request: SessionRequest, result: SessionResult, message: str,
                  toolbox: ToolBox) -> SessionResult:
        """Rules answer a question the same way twice: what they kept out and why is already in `declined`."""
        return result

    def _tidy(self, files: MemoryFiles) -> SessionResult:
        """Remove repeated facts from each core file, then prune stale open tasks; nothing else (see tidy.py)."""
        settings = self.settings
        tidy = TidyLedger(soul_policy=settings.soul_policy)

        def budget(path: str) -> int | None:
            return shrink_budget(files.original(path), files.docs[path].render(), settings.max_shrink_ratio)

        for path in CORE_FILES:
            if path == SOUL and settings.soul_policy != "open":
                # Without tagged history the guards refuse any SOUL.md change under this policy.
                tidy.soul_duplicates_left = len(duplicate_bullets(files.docs[path]))
                continue
            remove_duplicates(path, files.docs[path], budget(path), tidy)
        tasks = Ledger()  # the batch path's pruning records into a Ledger
        Consolidator(files, tasks).prune_tasks(self.today(), settings.ephemeral_max_age_days, budget(MEMORY))
        tidy.tasks_pruned, tidy.tasks_kept_stale = tasks.tasks_pruned, tasks.tasks_kept_stale
        files.save()
        return SessionResult(summary=tidy.summary(settings.ephemeral_max_age_days), cost=0.0)


def newest_day(batch: Batch) -> date | None:
    days = [day for entry in batch.entries if (day := entry_day(entry.timestamp)) is not None]
    return max(days, default=None)


def shrink_budget(before: str | None, after: str, ratio: float) -> int | None:
    """How many more of `before`'s lines may go before the guards refuse the batch; None for no limit.

    Counts like the mass-deletion guard (non-blank lines of the file on disk missing from the result).
    Pruning is the engine's own initiative: it must never get a batch refused, which would leave the
    backlog stuck behind it; what is over budget is pruned by a later batch.
    """
    if not before:
        return None
    lines = [line.strip() for line in before.splitlines() if line.strip()]
    kept = {line.strip() for line in after.splitlines()}
    lost = sum(1 for line in lines if line not in kept)
    return max(int(ratio * len(lines)) - lost, 0)


# Kinds every tagged line is checked for; a line about the user (USER.md) also holds no code, link or "you".
_NEVER_FILED = ("a question", "a heading", "a fragment", "too long")


def _not_memory(text: str, *, reported: bool = False) -> str:
    """The kind of line memory never keeps that `text` is (text/kinds.py), or "". Tasks and procedures are
    exempt: their steps may quote commands, and a task's subject need not be a sentence. A correction may quote
    what the person said to the agent ("User said: 'I told you, …'"): it is read for its point, not filed as is."""
    if parse_task(text) is not None or parse_procedure(text) or parse_untitled_procedure(text):
        return ""
    if text.rstrip().endswith(":"):
        return "a heading"
    line = tidy_sentence(text)  # as it would be filed: a host's "user prefers tea" opens no sentence midway
    path = route_fact(text).path
    if path == USER and not reported:
        return forbidden_in_profile(line)
    kind = forbidden_kind(line, rule=path == SOUL)
    if kind == "a fragment" and path == SOUL and a_rule_in_its_language(text):
        return ""  # "Tutéame.": one word, a whole command
    return kind if kind in _NEVER_FILED else ""


_CORRECTION_LEAD = re.compile(r"^(?:actually|correction|update|to be clear|scratch that)\s*[,:;!.—–-]*\s+", re.I)
# A second statement joined by "and": its own subject (a name, "the …", "our …", "User's …") and verb.
_SECOND_FACT = re.compile(r"\s*,?\s+and\s+(?=(?:(?:the|our|their|its|user['’]s)\s+(?:\w+\s+){0,3}|(?-i:[A-Z])\w+\s+)"
                          r"(?:is|are|was|were|runs|lives|works|uses|moved|has|have)\b)", re.IGNORECASE)


def correction_parts(text: str) -> list[str]:
    """The facts one correction states, each a sentence of its own ("Actually," and the like dropped)."""
    text = _CORRECTION_LEAD.sub("", text.strip())
    parts = [part.strip().rstrip(".") for part in _SECOND_FACT.split(text) if part.strip()]
    return [part[:1].upper() + part[1:] for part in parts] or [text]


def strip_tags(text: str) -> str:
    """Remove any further leading tags ("[permanent] [durable] x"): tag text never reaches a file."""
    while match := TAG_LINE.match(text):
        text = text[match.end():]
    return text.strip()


class Consolidator:
    """Applies the routing and retention rules to one fact line at a time, in history order."""

    def __init__(self, files: MemoryFiles, ledger: Ledger, shrink_ratio: float | None = None,
                 rejected: frozenset[frozenset[str]] = frozenset(), *, skills: SkillWork | None = None,
                 undated: date | None = None) -> None:
        self.files = files
        self.ledger = ledger
        # None: the batch holds a [correction], so replacing lines is justified; else the mass-deletion ratio.
        self.shrink_ratio = shrink_ratio
        self.rejected = rejected  # the whole ledger's keys: a rejected fact is never filed, corrected in or refined to
        self.told: dict[str, set[str]] = {}  # untitled procedure name → sessions of this batch that told it
        self.skills = skills
        self.lessons = Lessons(files.docs, ledger, self._rejected)
        self.undated = undated or clock.today()  # the day a line without a timestamp counts as (stale markers)
        self.day = self.undated
        self.sitting = ""  # the entry's session for skill use: its key on its day (backlog/skill_usage.py)

    def take_entry(self, entry: HistoryEntry) -> None:
        """Every line of one history entry, in order."""
        day, session, self.sitting = entry_day(entry.timestamp), session_of(entry), entry_session(entry)
        for tag, text in tagged_lines(entry.content):
            self.take(tag, text, day, session)

    def take(self, tag: str | None, text: str, day: date | None, session: str = "") -> None:
        """Route one line by its tag and shape; the ledger records what happened to it (and, for a line that
        changed nothing, why: the accounting reads that instead of asking again)."""
        text = strip_tags(text)
        if not text or tag == "skip":
            return
        if tag is None:
            self.ledger.untagged += 1
            return
        before, progress = self.ledger.kept_out(), self.ledger.progress()
        self._take(tag, text, day, session)
        reason = self.ledger.why_kept_out(before)
        if reason:
            self.ledger.declined.setdefault(text, reason)
        elif self.ledger.how_filed(progress):
            self.ledger.kept_as[text] = self.ledger.how_filed(progress)

    def _take(self, tag: str, text: str, day: date | None, session: str) -> None:
        credentials = secret_scan.rules_hit(text) or secret_scan.rules_redacted(text)
        if credentials and not self.files.redacts_secrets:  # left out, and said: never silently
            self.ledger.withheld += 1
            self.ledger.withheld_secrets.append(f"{route_fact(text).path}: withheld a fact holding a credential "
                                                f"({', '.join(credentials)}); secrets never go into memory")
            return
        if credentials:
            text = secret_scan.redacted(text)
            self.ledger.redacted += 1
        tripped = injection.rules_hit(text)
        if tripped:
            self.ledger.withheld_injection += 1
            hostile = [rule for rule in tripped if rule in injection.AGENT_RULES]
            if hostile:  # reported by file and rule: a person decides whether the agent should follow it
                self.ledger.withheld_rules.append(f"{route_fact(text).path}: withheld an agent rule "
                                                  f"({', '.join(hostile)}): {injection.quoted(text)!r}")
            return
        kind = _not_memory(text, reported=tag == "correction")
        if kind:  # declined with its reason: the no-op check counts it as accounted for
            self.ledger.not_memory.append(kind)
            self.ledger.declined[text] = f"not filed: it is {kind}, which memory never keeps"
            return
        self.day = day or self.undated
        self._file(tag, text, day, session)

    def _file(self, tag: str, text: str, day: date | None, session: str) -> None:
        """A tagged line that passed the safety rules: a task, its end, a procedure, a correction or a fact."""
        task = parse_task(text)
        if task is None and _COMPLETION.search(text) and (self._resolve_by_subject(text) or tag == "ephemeral"):
            if tag == "ephemeral":  # it only reported the end of a task: nothing left to keep
                return
        elif task is not None or tag == "ephemeral":
            self._task(text, day)
            return
        procedure = parse_procedure(text)
        untitled = parse_untitled_procedure(text) if procedure is None else None
        if procedure is not None:
            self._procedure(procedure)
        elif untitled is not None:
            self._recurring(untitled, tidy_sentence(text), session)
        elif tag == "correction":
            self._corrected(text)
        elif self.skills is None or not self.skills.expand(text):
            self._fact(tidy_sentence(text))

    def _corrected(self, text: str) -> None:
        """A [correction]: each fact it states on its own ("the database is PostgreSQL 17 and the cache is
        Valkey now" corrects two lines), then a lesson for the skill in use, a lesson about conduct or a
        corrected fact."""
        parts = correction_parts(text)
        if len(parts) > 1:
            for part in parts:
                self._corrected(part)
            return
        text = parts[0]
        domain = ""
        if self.skills is not None:
            self.skills.pitfall(text, self.sitting)
            domain = next(iter(sorted(self.skills.health.usage.skills_in(self.sitting))), "")
        if not self.lessons.correction(text, self.day, domain):
            self._correction(tidy_sentence(text))

    # facts ----------------------------------------------------------------------------------------

    def _fact(self, text: str) -> None:
        """Add a fact to its routed section unless it is already there, or refine a bullet it extends."""
        if self._rejected(text) or self._promoted(text):
            return
        if self._present(text):
            self.ledger.duplicates += 1
            return
        if self._replace_named(text, justified=False):
            return
        route = route_fact(text)
        doc = self.files.docs[route.path]
        candidates = self._fact_bullets(route.path)
        narrower = _best([b for b in candidates if covers(text, b.text)], text)
        self.lessons.contradicted(text, self.day)
        if narrower is not None:
            doc.replace_bullet(narrower.index, self._held(route.path, text))
            self.ledger.note_refined(route.path, narrower.text, text)
        elif any(covers(b.text, text) for b in candidates):
            self.ledger.duplicates += 1
        else:
            new_section_before = OPEN_TASKS if route.path == MEMORY else None
            doc.add_bullet(route.section, self._held(route.path, text), new_section_before=new_section_before)
            self.ledger.note_added(route.path)

    def _held(self, path: str, text: str) -> str:
        """Preferences and rules are filed ask-first when they let the agent act on something risky."""
        return self.lessons.held(text) if path in (USER, SOUL) else text

    def _correction(self, text: str) -> None:
        """Replace the line the correction changes, in whichever active file it is (replacing.py: by its subject
        and the value that changed); with none, file it as a new fact.

        When an archived fact is closer than an active line the correction only resembles in its frame, the
        correction is about the archived one: it is filed as a new active fact and the neighbour is left alone.
        """
        if self._rejected(text):
            return
        if self._present(text):
            self.ledger.duplicates += 1
            return
        match = self._replaced(text, frames=True)
        if match is not None and match.rule == FRAME and self._closer_in_archive(text, match):
            match = None
        if match is None:
            self.ledger.corrections_as_new.append(text)
            self._fact(text)
            return
        self._replace(match, text, justified=True)

    def _replace_named(self, text: str, *, justified: bool) -> bool:
        """Replace the line a fact fills the same slot as, or whose value it names as the old one, in place.

        A [correction] says outright that something changed; a plain fact restating a slot with a new value
        ("… now uses X instead of Y") means the same, but must not get its batch refused by the mass-deletion
        guard, so it replaces only while the file's shrink budget allows (else it is added and a later batch or
        a person merges it).
        """
        match = self._replaced(text, frames=False)
        if match is None or (not justified and not self._may_lose_line(match.candidate.path)):
            return False
        self._replace(match, text, justified=justified)
        return True

    def _replaced(self, text: str, *, frames: bool) -> Match | None:
        candidates = [Candidate(path, b.index, b.text) for path in CORE_FILES for b in self._fact_bullets(path)]
        return find_replaced(text, candidates, prefer=route_fact(text).path, frames=frames)

    def _closer_in_archive(self, text: str, match: Match) -> bool:
        """A cold archived fact (not a replaced one) the correction resembles more than the active line."""
        if route_fact(text).path != MEMORY:
            return False
        archived = max((similarity(text, line) for line in self.files.archived() if not is_replaced(line)),
                       default=0.0)
        return archived > similarity(text, match.candidate.text)

    def _replace(self, match: Match, text: str, *, justified: bool) -> None:
        """The new fact takes the old line's place; lines that said no more than the old fact go with it."""
        path, index, old = match.candidate.path, match.candidate.index, match.candidate.text
        text = match.restated or text
        self.files.docs[path].replace_bullet(index, text)
        self.ledger.note_corrected(path, old, text)
        for where, bullet in self._restating(match, text):
            if justified or self._may_lose_line(where):
                self.files.docs[where].remove_line(bullet.index)
                self.ledger.superseded.append(Change(where, bullet.text, text))

    def _restating(self, match: Match, text: str) -> list[tuple[str, Bullet]]:
        """Other lines the replacement makes untrue as a whole, last first: the same slot filled elsewhere, or a
        line naming the old value that says nothing the old line did not (the run archives them as replaced).
        A line that says more is left alone; `status` lists it as maybe out of date."""
        old, replaced = match.candidate, (match.candidate.path, match.candidate.index)
        found = []
        for path in CORE_FILES:
            for bullet in self._fact_bullets(path):
                if (path, bullet.index) == replaced or PIN in bullet.text:
                    continue
                line = Candidate(path, bullet.index, bullet.text)
                same = find_replaced(text, [line])
                if (same is not None and same.rule == SLOT) or restates(old, line, match.change):
                    found.append((path, bullet))
        return sorted(found, key=lambda item: item[1].index, reverse=True)

    def _may_lose_line(self, path: str) -> bool:
        if self.shrink_ratio is None:
            return True
        budget = shrink_budget(self.files.original(path), self.files.docs[path].render(), self.shrink_ratio)
        return budget is None or budget > 0

    def _rejected(self, text: str) -> bool:
        """A fact a person rejected (memory/rejected.md) is never filed again, whatever history repeats it."""
        if rejected_key(text) in self.rejected:
            self.ledger.rejected += 1
            return True
        return False

    def _promoted(self, text: str) -> bool:
        """A stated fact confirms a hypothesis line: the marker goes, the line stays where it is."""
        key = fact_key(text)
        for path in CORE_FILES:
            for bullet in self._fact_bullets(path):
                if evidence(bullet.text) is not None and fact_key(without_marker(bullet.text)) == key:
                    self.files.docs[path].replace_bullet(bullet.index, without_marker(bullet.text))
                    self.ledger.promoted += 1
                    return True
        return False

    def _present(self, text: str) -> bool:
        key = fact_key(text)
        return any(fact_key(b.text) == key for path in CORE_FILES for b in self._fact_bullets(path))

    def _fact_bullets(self, path: str) -> list[Bullet]:
        """Bullets that hold facts: everything except the open tasks, which follow their own rules."""
        return [b for b in self.files.docs[path].bullets() if (b.section or "").lower() != OPEN_TASKS.lower()]

    # tasks ----------------------------------------------------------------------------------------

    def _task(self, text: str, day: date | None) -> None:
        """Open, update or resolve an entry of MEMORY.md's open tasks, dated with the history entry."""
        task = parse_task(text)
        key = task.key if task is not None else task_key(text)
        matches = [b for b in self._open_tasks() if _task_bullet_key(b) == key]
        doc = self.files.docs[MEMORY]
        if task is not None and task.done:
            for bullet in reversed(matches):
                doc.remove_line(bullet.index)
            resolved = tidy_sentence(task.subject)
            (self.ledger.tasks_resolved if matches else self.ledger.tasks_unmatched).append(resolved)
            return
        body = tidy_sentence(f"Task: {task.subject}" if task is not None else text)
        line = f"({day.isoformat()}) {body}" if day is not None else body
        if not matches:
            doc.add_bullet(OPEN_TASKS, line)
            self.ledger.tasks_opened.append(body)
        elif matches[0].text == line:
            self.ledger.duplicates += 1
        else:
            for bullet in reversed(matches[1:]):
                doc.remove_line(bullet.index)
            doc.replace_bullet(matches[0].index, line)
            self.ledger.tasks_updated.append(body)

    def prune_tasks(self, newest: date, max_age_days: int, budget: int | None) -> None:
        """Drop dated open tasks older than `max_age_days` before `newest` (the batch's newest entry, or
        today for a tidy pass), oldest first.

        At most `budget` go (None: no limit); the rest stay until a later batch has room for them.
        """
        oldest_kept = newest - timedelta(days=max_age_days)
        stale: list[tuple[date, int, str]] = []
        for bullet in self._open_tasks():
            day, body = split_dated(bullet.text)
            if day is not None and day < oldest_kept:
                stale.append((day, bullet.index, body))
        stale.sort()
        chosen = stale if budget is None else stale[:budget]
        self.ledger.tasks_kept_stale = len(stale) - len(chosen)
        for _, index, _ in sorted(chosen, key=lambda item: item[1], reverse=True):
            self.files.docs[MEMORY].remove_line(index)
        self.ledger.tasks_pruned += [body for _, _, body in sorted(chosen, key=lambda item: item[1])]

    def _resolve_by_subject(self, text: str) -> bool:
        """Close the open tasks a completion line is about: those whose subject it repeats the most of.

        "Finished the Postgres 16 upgrade on staging" closes "Task: upgrade Postgres to 16 on staging" although
        it never says "Task done:". Word forms are folded ("invoices" = "invoice"), order does not matter, and
        every word of the task holding a digit must be repeated, so "alert 1398" never closes "alert 1427".
        """
        said = _stems(text)
        scored = []
        for bullet in self._open_tasks():
            subject = _stems(_task_subject(bullet)) - {"task"}
            # An identifier ("alert 1427", "PR 88", "v3.2") names one task among similar ones: it must be said.
            if len(subject) >= 2 and {w for w in subject if any(c.isdigit() for c in w)} <= said:
                scored.append((len(subject & said) / len(subject), bullet))
        best = max((share for share, _ in scored), default=0.0)
        if best < TASK_MATCH_SHARE:
            return False
        closed = [bullet for share, bullet in scored if share == best]
        for bullet in reversed(closed):
            self.files.docs[MEMORY].remove_line(bullet.index)
        self.ledger.tasks_resolved += [tidy_sentence(split_dated(b.text)[1]) for b in closed]
        return True

    def _open_tasks(self) -> list[Bullet]:
        return self.files.docs[MEMORY].bullets(OPEN_TASKS)

    # skills ---------------------------------------------------------------------------------------

    def _recurring(self, procedure: Procedure, text: str, session: str) -> None:
        """A procedure told without a name becomes a skill once it recurs: told in two sessions of the batch,
        or told again after an earlier batch filed it as a fact (whose bullet then moves into the skill).
        A skill of that name already there just gets the new steps. Told once, it is an ordinary fact.
        """
        earlier = [(p, b, told) for p in CORE_FILES for b in self._fact_bullets(p)
                   if (told := parse_untitled_procedure(b.text)) is not None and same_goal(told, procedure)]
        names = {procedure.name, *(told.name for _, _, told in earlier)}
        # the skill is named after the goal said most plainly: "deploy", not "deploy-app"
        procedure = Procedure(min(names, key=lambda name: (len(name), name)), procedure.steps, procedure.title)
        path = f"skills/{procedure.name}/SKILL.md"
        self.told.setdefault(procedure.name, set())
        sessions = set().union(*(self.told.get(name, set()) for name in names))
        # A bullet this batch filed is this batch's telling, counted in `sessions`; one already on disk is older.
        told_before = any(bullet.text in (self.files.original(where) or "") for where, bullet, _ in earlier)
        if self.files.skill(path) is None and not told_before and not sessions - {session}:
            self.told[procedure.name].add(session)
            self._fact(text)
            return
        steps = [step for _, _, told in earlier for step in told.steps]
        merged = Procedure(procedure.name, tuple(new_steps([], [*steps, *procedure.steps])), procedure.title)
        for where, bullet, _ in sorted(earlier, key=lambda item: item[1].index, reverse=True):
            self.files.docs[where].remove_line(bullet.index)
            self.ledger.note_folded(where, this_batch=bullet.text not in (self.files.original(where) or ""))
        self._procedure(merged)

    def _procedure(self, procedure: Procedure) -> None:
        """Create the skill, or merge new steps into the existing one; never a second copy of a step."""
        path = f"skills/{procedure.name}/SKILL.md"
        current = self.files.skill(path)
        if current is None:
            self.files.set_skill(path, skill_document(procedure))
            self.ledger.note_skill(path, f"created with {count(len(procedure.steps), 'step')}", changed=True)
            return
        added = new_steps([step for _, step in numbered_steps(current)], list(procedure.steps))
        if added:
            self.files.set_skill(path, append_steps(current, added))
            self.ledger.note_skill(path, f"merged {count(len(added), 'new step')}", changed=True)
        else:
            self.ledger.duplicates += 1
            self.ledger.note_skill(path, "procedure repeated; every step already there", changed=False)


def same_goal(a: Procedure, b: Procedure) -> bool:
    """Two procedures told for one goal: the same name, or one name's words inside the other's with the same verb
    ("deploy" and "deploy-app") and at least half the shorter one's steps in the other ("To deploy: make test, make
    build, make push" and "To deploy the app: 1. make test 2. make build 3. make push 4. check the dashboard")."""
    if a.name == b.name:
        return True
    left, right = a.name.split("-"), b.name.split("-")
    if left[0] != right[0] or not (set(left) <= set(right) or set(right) <= set(left)):
        return False
    fewer, more = sorted((a.steps, b.steps), key=len)
    shared = sum(1 for step in fewer if not new_steps(list(more), [step]))
    return 2 * shared >= len(fewer)


def new_steps(known: list[str], told: list[str]) -> list[str]:
    """The steps of `told` that say something no earlier step says: not the same words in any order, and not less
    than one already there ("Push the tag" after "Push the tag and run make publish", "Tag" after "Tag and push").
    A told step that says more than a known one is added all the same: a person may have written it as two."""
    seen = list(known)
    added: list[str] = []
    for step in told:
        if any(fact_key(step) == fact_key(other) or covers(other, step) or _one_word_of(step, other) for other in seen):
            continue
        seen.append(step)
        added.append(step)
    return added


def _one_word_of(step: str, other: str) -> bool:
    """A step of one meaningful word that `other` says too ("Tag" of "Tag and push"): `covers` needs two."""
    said = content_words(step)
    return len(said) == 1 and said <= content_words(other)


def skill_document(procedure: Procedure) -> str:
    """A new SKILL.md: front matter the guards accept, a title, and the steps as a numbered list."""
    words = procedure.name.replace("-", " ")
    told = f"Step-by-step procedure: {procedure.title}" if procedure.title else f"Step-by-step procedure for {words}"
    front = yaml.safe_dump(
        {"name": procedure.name, "description": f"{told}, learned from the history."},
        sort_keys=False, allow_unicode=True, width=1000,
    )
    steps = "\n".join(f"{number}. {step}" for number, step in enumerate(procedure.steps, start=1))
    return f"---\n{front}---\n\n# {procedure.title or words.capitalize()}\n\n{steps}\n"


def _task_subject(bullet: Bullet) -> str:
    """An open task's subject without its date, "Task:" prefix or trailing (status)."""
    body = split_dated(bullet.text)[1]
    task = parse_task(body)
    return task.key if task is not None else task_key(body)


def _stems(text: str) -> set[str]:
    return {singular(word) for word in content_words(text)}


def _task_bullet_key(bullet: Bullet) -> str:
    """The task key of an open-task bullet, ignoring its date prefix."""
    body = split_dated(bullet.text)[1]
    task = parse_task(body)
    return task.key if task is not None else task_key(body)


def _best(bullets: list[Bullet], text: str) -> Bullet | None:
    """The bullet most similar to `text`; the first one wins a tie, so the result is deterministic."""
    return max(bullets, key=lambda b: similarity(text, b.text), default=None)
