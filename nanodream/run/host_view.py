"""What a host's dream session shows the host: the batch line by line with its facts numbered, the skills, the signals
a model's message holds, and at the end how many facts memory holds and which are still open, by number.
"""

from __future__ import annotations

from dataclasses import dataclass

from nanodream.backlog.history import Batch, strip_tag_prefix, tagged_lines
from nanodream.engines.facts import FACT_TAGS, batch_facts
from nanodream.memory.staging import Staging
from nanodream.prompting.prompt import render_history
from nanodream.run.host_engine import OpenFact
from nanodream.run.report import RunReport
from nanodream.safety.injection import reveal_hidden
from nanodream.skills import parse_skill
from nanodream.vocab import Declared, Outcome


@dataclass(frozen=True)
class BatchLine(Declared):
    """One line of the batch: `number` the fact's number in the batch (what `reasons` and the question name; null
    for a line the accounting does not track: ephemeral, untagged or a repeat), `line` its entry's line in
    history.jsonl, `tag` its retention tag (null untagged), `text` without the tag, `when` the entry's time."""

    number: int | None
    line: int
    tag: str | None
    text: str
    when: str


@dataclass(frozen=True)
class SkillLine(Declared):
    """A skill: its name (its folder) and the description its front matter gives."""

    name: str
    description: str


def batch_lines(batch: Batch) -> list[BatchLine]:
    """Every line of the batch's entries, the tagged facts numbered as the accounting numbers them."""
    numbers = {(fact.entry, fact.text): fact.number for fact in batch_facts(batch)}
    lines = []
    for index, entry in enumerate(batch.entries):
        for tag, raw in tagged_lines(entry.content):
            text = strip_tag_prefix(raw) if tag else raw
            number = numbers.pop((index, text), None) if tag in FACT_TAGS else None
            lines.append(BatchLine(number, entry.line, tag, reveal_hidden(text), entry.timestamp))
    return lines


def skill_lines(staging: Staging) -> list[SkillLine]:
    found = []
    for path in staging.skill_paths():
        try:
            description = parse_skill(path, staging.read(path) or "").description
        except ValueError as exc:
            description = f"(its front matter does not parse: {exc})"
        found.append(SkillLine(path.split("/")[1], description))
    return found


def signals_of(request_blocks: tuple[str, ...], batch: Batch) -> str:
    """What the user message says besides the memory files, the skills index and the batch: the signals nanodream
    computed (line ages, recurring topics, skills' health, sizes against caps) and the rejected facts to keep out."""
    if len(request_blocks) < 3:
        return ""
    rest = request_blocks[2]
    history = render_history(batch) + "\n"
    return rest[: -len(history)].strip() if rest.endswith(history) else rest.strip()


def final_account(report: RunReport, batch: Batch) -> tuple[int, list[OpenFact]]:
    """How many of the batch's facts memory holds once the run ended (0 when it consumed nothing), and those
    neither kept nor explained, by number."""
    outcomes = report.batches
    if not outcomes:
        return 0, []
    numbers = {fact.text: fact.number for fact in batch_facts(batch)}
    open_facts: dict[int, OpenFact] = {}
    for outcome in outcomes:
        for item in outcome.unaccounted:
            number = numbers.get(str(item["fact"]))
            if number is not None:
                open_facts.setdefault(number, OpenFact(number, str(item["fact"]), str(item["problem"])))
    kept = len(numbers) - len(outcomes[0].unkept) if report.consumed is not None else 0
    return max(kept, 0), sorted(open_facts.values(), key=lambda fact: fact.number)


def settled_outcome(report: RunReport) -> tuple[str, str]:
    """The session's outcome and reason: committed when the dream's commit landed (then `open` says what waits),
    else the run's own."""
    if report.commits and report.outcome != Outcome.COMMITTED:
        return Outcome.COMMITTED, report.reason
    return report.outcome, report.reason
