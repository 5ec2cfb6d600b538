"""A year of a busy agent's history, generated from a seed, with the ground truth of what memory should say.

Shared by the year-long capacity test and `bench/year.py`. Eleven entries a day: facts about services
and people that change over the year (a change is a `[correction]` most of the time, a plain `[durable]`
restatement otherwise), the user's `[permanent]` preferences (a few, each changing rarely), tasks opened
and later resolved, `[skip]` chatter and raw untagged lines. Same seed, same history.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from nanodream.config import Settings
from nanodream.evaluation.runner import committed_on
from nanodream.run.dream import run_dream
from nanodream.run.report import RunReport
from nanodream.workspace import Workspace

HOSTS = ("alder", "birch", "cedar", "dogwood", "elm", "fir", "ginkgo", "hazel", "juniper", "larch")
TEAMS = ("payments", "search", "billing", "growth", "platform", "mobile", "data", "identity")
PEOPLE = ("Ana", "Bruno", "Chen", "Dara", "Emeka", "Farah", "Goran", "Hana", "Ines", "Jonas", "Kofi", "Lena")
DRINKS = ("green tea", "oat flat whites", "espresso", "rooibos", "sparkling water", "cold brew")
EDITORS = ("Helix", "Neovim", "Zed", "Emacs", "VS Code")


@dataclass
class Year:
    """The entries (history.jsonl records) and, per subject, its latest statement and when it was made."""

    entries: list[dict] = field(default_factory=list)
    latest: dict[str, str] = field(default_factory=dict)
    stated_on: dict[str, date] = field(default_factory=dict)
    preferences: dict[str, str] = field(default_factory=dict)
    first_day: date = date(2025, 11, 24)

    def write(self, path: Path, *, until: int | None = None, since: int = 0) -> None:
        """Append entries [since, until) to `path` as JSON lines."""
        with path.open("a", encoding="utf-8") as handle:
            for data in self.entries[since:until]:
                handle.write(json.dumps(data) + "\n")

    @property
    def last_day(self) -> date:
        return date.fromisoformat(self.entries[-1]["timestamp"][:10])

    def older_facts(self, last_day: date, days: int) -> dict[str, str]:
        """Latest statements of subjects last mentioned more than `days` before `last_day`: still true, cold."""
        cutoff = last_day - timedelta(days=days)
        return {key: text for key, text in self.latest.items() if self.stated_on[key] < cutoff}


def simulate_year(seed: int = 1, days: int = 365, per_day: int = 11, services: int = 1200) -> Year:
    rnd, year = random.Random(seed), Year()
    hosts: dict[str, str] = {}
    open_tasks: list[str] = []
    cursor = 0
    for offset in range(days):
        day = year.first_day + timedelta(days=offset)
        session = f"telegram:{day:%Y%m%d}-{rnd.randrange(3)}"
        for slot in range(per_day):
            cursor += 1
            kind = rnd.random()
            if kind < 0.55:
                content = _service_fact(rnd, year, hosts, services, day)
            elif kind < 0.62:
                content = _owner_fact(rnd, year, day)
            elif kind < 0.64:
                content = _preference(rnd, year)
            elif kind < 0.76:
                content = _task(rnd, open_tasks, cursor)
            elif kind < 0.92:
                content = "[skip] " + rnd.choice(("thanks!", "ok", "sounds good", "brb", "nice, that worked"))
            else:
                content = rnd.choice(("Chatted about the weekend.", "Looked at a flaky dashboard together."))
            year.entries.append({"cursor": cursor, "timestamp": f"{day} {8 + slot}:{rnd.randrange(60):02d}",
                                 "session_key": session, "content": content})
    return year


def _service_fact(rnd: random.Random, year: Year, hosts: dict[str, str], services: int, day: date) -> str:
    # A few services come back all year; the long tail is mentioned a few times, goes cold, and belongs in
    # the archive.
    name = f"svc-{rnd.randrange(30) if rnd.random() < 0.4 else rnd.randrange(30, services):04d}"
    changed = name in hosts and rnd.random() < 0.25
    if name not in hosts or changed:
        hosts[name] = f"{rnd.choice(HOSTS)}{len(year.entries) + 100}"  # machines get fresh names
    text = f"The {name} service runs on host {hosts[name]}."
    tag = "correction" if changed and rnd.random() < 0.8 else "durable"
    year.latest[name], year.stated_on[name] = text, day
    return f"[{tag}] {text}"


def _owner_fact(rnd: random.Random, year: Year, day: date) -> str:
    team = rnd.choice(TEAMS)
    key = f"team:{team}"
    tag = "correction" if key in year.latest else "durable"
    text = f"The {team} team's on-call lead is {rnd.choice(PEOPLE)}."
    year.latest[key], year.stated_on[key] = text, day
    return f"[{tag}] {text}"


def _preference(rnd: random.Random, year: Year) -> str:
    topic, choices = rnd.choice((("drink", DRINKS), ("editor", EDITORS)))
    text = (f"The user prefers {rnd.choice(choices)} to drink." if topic == "drink"
            else f"The user prefers the {rnd.choice(choices)} editor.")
    year.preferences[topic] = text
    return f"[permanent] {text}"


def _task(rnd: random.Random, open_tasks: list[str], cursor: int) -> str:
    if open_tasks and rnd.random() < 0.5:
        return f"[ephemeral] Task done: {open_tasks.pop(rnd.randrange(len(open_tasks)))}"
    subject = f"review pull request {cursor} for the {rnd.choice(TEAMS)} team"
    open_tasks.append(subject)
    return f"[ephemeral] Task: {subject} (in progress)"


def live_through(ws: Workspace, year: Year, settings: Settings, *, every_days: int = 30,
                 engine_factory: Callable | None = None) -> Iterator[tuple[date, RunReport]]:
    """Dream the year as a scheduled agent would: every `every_days`, that period's history, on that day.

    Each run's commits carry the simulated date and the archive is dated with it, so git blame ages and
    `archive_after_days` behave as they would have over a real year. Yields (day, report) after each run.
    """
    done, day = 0, year.first_day
    while done < len(year.entries):
        day = min(day + timedelta(days=every_days), year.last_day + timedelta(days=1))
        upto = next((i for i, e in enumerate(year.entries) if e["timestamp"][:10] >= day.isoformat()),
                    len(year.entries))
        year.write(ws.history_file, since=done, until=upto)
        done = upto
        with _on(day):
            report = run_dream(ws, settings, **({"engine_factory": engine_factory} if engine_factory else {}))
        yield day, report


@contextmanager
def _on(day: date) -> Iterator[None]:
    """The clock and the commits at that evening, as eval's nightly dreams have them."""
    with committed_on(day.isoformat()):
        yield
