"""connect without a model: a deterministic, conservative generator.

Two items meet when they come from different files, skills or sessions and share what is rare: the same
named thing (Hetzner, PostgreSQL, k8s) in both, or at least two terms few items of the knowledge base hold.
One side is what this run brought (or, when exploring, an old item the day's seed picked); the other is older.
The best-scored pairs become insights, each item used once per run, every one through the rules of
proposals.py (a refused pair is passed over). An item an insight cites already — a rejected one included —
is connected to nothing new: news about it reinforces that insight (re-evaluate) instead of spawning another.
Likelihood and confidence grow with the shared evidence; themes are the shared terms that recur across sessions.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

from nanodream.insights.knowledge import Item, Knowledge
from nanodream.insights.proposals import Proposals
from nanodream.insights.records import NAME, NAME_LIMIT, TOPICS, Insight
from nanodream.insights.reflect import conflict, normal
from nanodream.insights.refs import superseded
from nanodream.insights.terms import Rarity, terms
from nanodream.text.stems import singular
from nanodream.text.words import content_words
from nanodream.toolbox.registry import ToolError

RARE_SHARE = 0.02  # a term held by at most this share of all items (and at least RARE_FLOOR items) is rare
RARE_FLOOR = 4
SEEDS = 12  # old items an exploring run starts from
OLD_DAYS = 30  # what exploring counts as old
QUOTE_LIMIT = 90  # characters of an item the summary quotes


@dataclass(frozen=True)
class Pair:
    score: float
    new: Item
    old: Item
    shared: tuple[str, ...]  # rare shared terms, heaviest first
    named: int  # of them, names of a thing


def candidates(knowledge: Knowledge, cited: frozenset[str] = frozenset(), seeds: list[Item] | None = None,
               before: date | None = None) -> list[Pair]:
    """The pairs worth a look, best first: this run's new items (or `seeds`, exploring) with older ones (all
    older than `before`, when set). An item of `cited` (what insights cite already, rejected ones included: what
    a person turned down stays down) is connected to nothing new."""
    everything = knowledge.everything()
    rarity = knowledge.rarity()
    rare_limit = max(RARE_FLOOR, int(RARE_SHARE * len(everything)))
    new = seeds if seeds is not None else [item for item in everything if knowledge.is_fresh(item.ref)]
    old = [item for item in everything if not knowledge.is_fresh(item.ref) and _citable(item)
           and (before is None or (item.day is not None and item.day < before))]
    rare = {term for term, held in rarity.counts.items() if held <= rare_limit}
    pairs = [pair for pair in _pairs(new, old, rare, rarity)
             if pair.new.ref not in cited and pair.old.ref not in cited and not _restates(knowledge, pair)]
    # at equal weight a session beats the line a dream filed from it: it is where the material came from
    return sorted(pairs, key=lambda p: (-p.score, p.new.where != "history", p.new.ref, p.old.ref))


def generate(knowledge: Knowledge, proposals: Proposals, seeds: list[Item] | None = None,
             before: date | None = None) -> list[Insight]:
    """Propose the best candidates until `max_insights`, each item in one insight at most."""
    rarity = knowledge.rarity()
    used: set[str] = set()
    for pair in candidates(knowledge, cited_refs(proposals), seeds, before):
        if proposals.full:
            break
        if pair.new.ref in used or pair.old.ref in used:
            continue
        try:
            proposals.propose(_fields(pair, knowledge, rarity, proposals))
        except ToolError:
            continue  # a duplicate, a rejected connection, a source gone: passed over
        used |= {pair.new.ref, pair.old.ref}
    return proposals.accepted


def cited_refs(proposals: Proposals) -> frozenset[str]:
    """Every ref an insight of the workspace cites, whatever its status."""
    return frozenset(ref for insight in proposals.shelf.insights for ref in insight.refs)


def _citable(item: Item) -> bool:
    return superseded(item.text)[1] is None


def _pairs(new: list[Item], old: list[Item], rare: set[str], rarity: Rarity) -> Iterator[Pair]:
    holders: dict[str, list[Item]] = {}
    for item in old:
        for term in item.terms & rare:
            holders.setdefault(term, []).append(item)
    names: dict[str, frozenset[str]] = {}  # read once per item, and only for items a pair is scored for
    for item in filter(_citable, new):
        partners: dict[str, Item] = {}
        for term in item.terms & rare:
            partners.update((other.ref, other) for other in holders.get(term, ()))
        mine = names.setdefault(item.ref, item.names)
        for other in partners.values():
            if other.source == item.source or other.ref == item.ref:
                continue
            shared = item.terms & other.terms & rare
            named = (mine | names.setdefault(other.ref, other.names)) & shared  # written as a name on either side
            if len(shared) >= 2 or named:
                ranked = tuple(sorted(shared, key=lambda term: (-rarity.weight(term), term)))
                score = sum(rarity.weight(term) for term in shared) + sum(rarity.weight(term) for term in named)
                yield Pair(score, item, other, ranked, len(named))


def _restates(knowledge: Knowledge, pair: Pair) -> bool:
    """Whether the new side says again what an active memory line says (each missing at most one term of the
    other, out of three or more; a session: one of its entries does): the same fact repeated is the dream's to
    merge, not a connection. An archived line said again is a connection: it resurfaces what was put away; and
    a line that says more about the same thing (a decision and its cost) is two things that meet."""
    if pair.old.where != "memory":
        return False
    said = [pair.new.terms]
    if pair.new.where == "history":
        session = knowledge.sessions.get(pair.new.source)
        said = [frozenset(entry.terms) for entry in session.recent] if session is not None else []
    return any(_same(statement, pair.old.terms) for statement in said)


def _same(one: frozenset[str], other: frozenset[str]) -> bool:
    return min(len(one), len(other)) >= 3 and len(one - other) <= 1 and len(other - one) <= 1


def explore_seeds(knowledge: Knowledge, today: date) -> tuple[list[Item], date]:
    """The old items an exploring run starts from, picked by a generator seeded with the day (the same day's
    run picks the same), and the day before which everything counts as old."""
    before = date.fromordinal(today.toordinal() - OLD_DAYS)
    pool = sorted((item for item in knowledge.everything() if item.day is not None and item.day < before
                   and _citable(item)), key=lambda item: item.ref)
    picked = random.Random(today.isoformat()).sample(pool, min(SEEDS, len(pool)))
    return picked, before


# the record ---------------------------------------------------------------------------------------------


def _fields(pair: Pair, knowledge: Knowledge, rarity: Rarity, proposals: Proposals) -> dict:
    new, old = (_quoted(knowledge, item, " ".join(pair.shared)) for item in (pair.new, pair.old))
    said = (new, old, pair.new.text, pair.old.text)
    phrase = _phrase([_spelled(term, said) for term in pair.shared[:3]])
    lines = {pair.new.where, pair.old.where} <= {"memory", "archive"}
    disagree = lines and bool(conflict(normal(content_words(pair.new.text)), normal(content_words(pair.old.text))))
    weight = round(min(0.9, 0.4 + 0.1 * len(pair.shared)), 2)
    closing = ("they may disagree, so one of them could be out of date." if disagree else
               "they may be about the same thing, seen at different times.")
    rarest = pair.shared[0]
    topics = [_spelled(term, said).lower() for term in _topics(pair, rarity)]
    return {
        "name": _name(topics, proposals),
        "summary": f"{new} ({_cited(pair.new)}) and {old} ({_cited(pair.old)}) both concern {phrase}. "
                   f"{_upper(closing)}",
        "what_if": f"What if what {_described(pair.new)} says about {phrase} bears on what {_described(pair.old)} "
                   "says, so that a change to one should be checked against the other?",
        "possible_outcome": ("One of the two is corrected or archived, and memory keeps one account of it."
                             if disagree else "A person links the two, or promotes the connection so that the "
                             "next dream files it."),
        "rationale": _rationale(phrase, _spelled(rarest, said), rarity.counts[rarest], rarity.size),
        "likelihood": round(min(0.85, 0.3 + 0.15 * pair.named + 0.1 * len(pair.shared)), 2),
        "confidence": round(min(0.8, 0.2 + 0.1 * len(pair.shared) + 0.1 * pair.named), 2),
        "topics": topics,
        "themes": [theme.replace(term, _spelled(term, said).lower(), 1) for term, theme in
                   _themes(pair.shared, knowledge)],
        "sources": [
            {"ref": pair.new.ref, "reason": f"mentions {phrase}", "weight": weight, "relation": "extends"},
            {"ref": pair.old.ref, "reason": f"mentions {phrase} too", "weight": weight,
             "relation": "contradicts" if disagree else "supports"},
        ],
    }


def _rationale(phrase: str, rarest: str, held: int, size: int) -> str:
    """Why the pair is worth a look: what they share and how rare it is (called rare only when it is)."""
    share = f"{rarest} is in {held} of the {size} items of memory, archive, skills and history"
    rare = ", so sharing it is unlikely to be chance" if held * 10 <= size else ""
    return f"Both mention {phrase}; {share}{rare}. The two come from different sources."


def _described(item: Item) -> str:
    day = f" ({item.day.isoformat()})" if item.day else ""
    return {"memory": f"a line of {item.source}", "archive": f"an archived line{day}",
            "skills": f"the skill {item.source}", "history": f"a session{day}"}[item.where]


def _cited(item: Item) -> str:
    """Where a quote comes from, in the few words a statement carries: its first sentence is what a promote files.
    A session is named by its day: its key (telegram:48213977) is an identifier, cited in the sources, and prose
    holding one reads to the credential guards like a secret."""
    day = item.day.isoformat() if item.day else ""
    return {"memory": item.source, "archive": f"archived {day}".strip(), "skills": f"skill {item.source}",
            "history": f"said {day}" if day else "said in a session"}[item.where]


def _quoted(knowledge: Knowledge, item: Item, about: str) -> str:
    """What the item says (a session: its entry most `about` the pair's terms), quoted short: the sentence that
    holds most of those terms, cut at a word, without a closing full stop."""
    text = knowledge.said(item, about) if item.where == "history" else item.text
    if item.where == "skills":
        text = text.split(": ", 1)[-1]
    wanted = terms(about)
    said = re.split(r"(?<=[.!?])\s+", text.strip())
    first = max(said, key=lambda sentence: len(terms(sentence) & wanted)).rstrip(".!? ")
    if len(first) > QUOTE_LIMIT:
        first = first[:QUOTE_LIMIT].rsplit(" ", 1)[0] + "…"
    return f"“{first}”"


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def _spelled(term: str, texts: tuple[str, ...]) -> str:
    """The term as the texts write it (Hetzner, not hetzner), or as it is."""
    for text in texts:
        for word in re.findall(r"[^\W_]+", text):
            if singular(word.lower()) == term:
                return word
    return term


def _phrase(terms: list[str]) -> str:
    return terms[0] if len(terms) == 1 else f"{', '.join(terms[:-1])} and {terms[-1]}"


def _topics(pair: Pair, rarity: Rarity) -> list[str]:
    """The shared terms first, then each side's heaviest, until there are three to five."""
    topics = list(pair.shared[: TOPICS[1]])
    rest = sorted((pair.new.terms | pair.old.terms) - set(topics), key=lambda term: (-rarity.weight(term), term))
    return topics + rest[: max(0, TOPICS[0] - len(topics))]


def _themes(shared: tuple[str, ...], knowledge: Knowledge) -> list[tuple[str, str]]:
    """The shared terms that recur across sessions, each with its short phrase."""
    sessions = knowledge.items["history"]
    found = []
    for term in shared:
        held = sum(1 for item in sessions if term in item.terms)
        if held >= 2:
            found.append((term, f"{term} across {held} sessions"))
    return found[:5]


def _name(topics: list[str], proposals: Proposals) -> str:
    """Kebab-case from the first two topics (the heaviest shared terms); a number after it when that name is taken."""
    words = [_ascii(term) for term in topics[:2]]
    base = "-".join(word for word in words if word)[: NAME_LIMIT - 4].strip("-") or "connection"
    taken = proposals.shelf.names() | {insight.name for insight in proposals.accepted}
    name, number = base, 1
    while name in taken or not NAME.match(name):
        number += 1
        name = f"{base}-{number}"
    return name


def _ascii(term: str) -> str:
    plain = unicodedata.normalize("NFKD", term).encode("ascii", "ignore").decode()
    return "".join(char for char in plain.lower() if char.isalnum())
