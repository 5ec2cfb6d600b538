"""How much of the backlog one model session takes: enough to be worth a session, little enough to finish.

A model that edits one fact per turn re-sends the whole conversation with every turn, so what a session costs
grows with the batch's facts times its request size. A batch is cut so that such a model fits the session's
token budget and tool-call cap with room to spare: `(1 + turns per fact × facts) × (the request without its
history + the history)`, plus what each turn adds, stays within SHARE of `max_session_tokens`, and the calls
within SHARE of `max_tool_calls`; the facts are those memory does not state yet. Turns per fact start at
PRIOR_TURNS (one edit per fact) and follow what this workspace's own sessions of the model took (a model that
answers in one response soon gets whole `batch_tokens` batches).

A session stopped by a cap (tokens or calls) on more than one entry while it was editing was given too big a
batch, which says nothing against the model or the entries: it is not held, and never sent again as it was. Its
entries are dreamed again in a batch of at most half as many, in the same run and in any later one — the failure
is kept in `.nanodream/sizing.json` (written atomically, before the run goes on) until the position passes it,
with what the failed session cost; the commit that moves past it names that cost (`Dream-Failed`). A cap met on a
single entry, or by a session that edited nothing, still says the model cannot do the job (held, as every
model-no-op).

Neither applies to the offline engine or structured mode: they send one request per batch whatever its size.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from nanodream import boundedjson, clock
from nanodream.atomic import atomic_write, read_text
from nanodream.backlog.history import CHARS_PER_TOKEN, Batch, HistoryEntry, entry_tokens, tagged_lines
from nanodream.config import Settings
from nanodream.workspace import CORE_FILES, Workspace

STATE = "sizing.json"
# Of the session's token budget and tool-call cap a batch is cut to need: a third stays spare for the accounting's
# question, a read the model makes, and what the estimates (chars / 4) miss.
SHARE = 2 / 3
PRIOR_TURNS = 1.0  # turns per fact for a model this workspace has not seen finish a session: one edit each
UNTAGGED_PER_EDIT = 4  # untagged lines count as one fact per this many ("keep only what will still matter")
EXTRA_TURNS = 1  # besides its edits: the summary
GROWTH_TOKENS = 100  # what each turn adds to the conversation every later request re-sends (a call, its result)
SKILL_LINE_CHARS = 100  # a skill's line in the skills index, about
FRAMING_CHARS = 1_500  # headings, file tags, the signals' usual lines
LEARNING = 0.5  # weight of the newest session in what is learned (the first weighs against the priors)
MAX_FAILURES = 50  # failures kept (the oldest go: a position that never moves is a problem `status` shows)


@dataclass
class Failure:
    """A session a cap stopped on a batch of `entries` entries starting at byte `start`, and what it cost."""

    start: int
    end: int
    entries: int
    first_line: int
    last_line: int
    cause: str  # tokens | calls
    model: str
    run_id: str
    at: str
    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    request_bytes: int = 0
    cost: float | None = None


@dataclass
class Learned:
    """What a model's sessions in this workspace showed: turns per fact, and real tokens per estimated token."""

    turns: float = PRIOR_TURNS
    scale: float = 1.0


@dataclass
class SizingState:
    failures: list[Failure] = field(default_factory=list)
    models: dict[str, Learned] = field(default_factory=dict)


def state_file(workspace: Workspace) -> Path:
    return workspace.state_dir / STATE


def load(workspace: Workspace) -> SizingState:
    """The kept state; an empty one when there is none or it cannot be read (it costs a smaller first batch)."""
    try:
        data = boundedjson.load_file(state_file(workspace))
        known = {f.name for f in fields(Failure)}
        failures = [Failure(**{k: v for k, v in item.items() if k in known}) for item in data.get("failures", [])]
        models = {str(model): Learned(float(value["turns"]), float(value["scale"]))
                  for model, value in data.get("models", {}).items()}
        return SizingState(failures, models)
    except (OSError, ValueError, TypeError, AttributeError, KeyError):
        return SizingState()


def save(workspace: Workspace, state: SizingState) -> None:
    workspace.state_dir.mkdir(exist_ok=True)
    data = {"version": 1, "failures": [asdict(f) for f in state.failures[-MAX_FAILURES:]],
            "models": {model: asdict(learned) for model, learned in state.models.items()}}
    atomic_write(state_file(workspace), json.dumps(data, indent=1) + "\n")


def known_facts(workspace: Workspace) -> set[frozenset[str]]:
    """The facts the active files state (by `rejected.fact_key`): a batch's fact already there needs no edit."""
    from nanodream.rejected import fact_key  # a run's modules: `status` reads the state alone

    known: set[frozenset[str]] = set()
    for path in CORE_FILES:
        try:
            text = read_text(workspace.root / path)
        except OSError:
            continue
        known.update(fact_key(line) for line in text.splitlines())
    return known


class Facts:
    """Counts what a batch's entries ask of a model that edits one fact per turn: each tagged fact memory does not
    state yet (once; task state aside, as the accounting counts facts), and a share of the untagged lines."""

    def __init__(self, known: set[frozenset[str]]) -> None:
        from nanodream.engines.facts import FACT_TAGS  # the rules a run loads anyway: `status` reads the state alone
        from nanodream.engines.routing import parse_task
        from nanodream.rejected import fact_key

        self.seen = set(known)
        self.tags, self.is_task, self.key = FACT_TAGS, parse_task, fact_key

    def of(self, entry: HistoryEntry) -> float:
        new = untagged = 0
        for tag, text in tagged_lines(entry.content):
            if tag is None:
                untagged += 1
            elif tag in self.tags and (key := self.key(text)) not in self.seen and self.is_task(text) is None:
                self.seen.add(key)
                new += 1
        return new + untagged / UNTAGGED_PER_EDIT


def fixed_tokens(workspace: Workspace) -> int:
    """The estimated tokens of a session's first request without its history: the prompt, the memory files, the
    skills index and the tools (from the files' sizes: no prompt is rendered to cut a batch)."""
    from nanodream.prompting.prompt import SKILLS_INDEX_CHARS  # a run's modules: `status` reads the state alone
    from nanodream.prompting.prompt_override import active_prompt
    from nanodream.toolbox.tools import TOOLS

    chars = len(active_prompt(workspace).text) + len(json.dumps(TOOLS.schemas())) + FRAMING_CHARS
    for path in CORE_FILES:
        try:
            chars += (workspace.root / path).stat().st_size
        except OSError:
            continue
    skills = sum(1 for path in workspace.memory_paths() if path.startswith("skills/"))
    chars += min(skills * SKILL_LINE_CHARS, SKILLS_INDEX_CHARS)
    return chars // CHARS_PER_TOKEN


class Admission:
    """Admits a batch's entries one by one while a serial model would still fit the session's caps, and never more
    than half as many as a session that failed from the same first entry. What each admitted entry asks of the
    model is noted in `facts` (offset → facts) for sizing to learn from once the batch lands."""

    def __init__(self, fixed: int, learned: Learned | None, settings: Settings, failures: list[Failure],
                 counter: Facts) -> None:
        self.fixed = fixed
        self.rate = learned.turns if learned is not None else None
        self.scale = learned.scale if learned is not None else 1.0
        self.first = -1  # the offset of the batch's first entry
        self.max_tokens = SHARE * settings.max_session_tokens
        self.max_calls = SHARE * settings.max_tool_calls
        self.failures = failures
        self.counter = counter
        self.ceiling: int | None = None
        self.facts: dict[int, float] = {}
        self.history = 0

    def __call__(self, entry: HistoryEntry, alone: bool = False) -> bool:
        """Take `entry` if the batch still fits with it (`alone`: the batch's first entry, taken whatever it is)."""
        if alone:
            self.first = entry.offset
            failed = [f.entries for f in self.failures if f.start == entry.offset]
            self.ceiling = max(1, min(failed) // 2) if failed else None
        asks, history = self.counter.of(entry), self.history + entry_tokens(entry)
        if not alone and not self.fits(sum(self.facts.values()) + asks, history, len(self.facts) + 1):
            return False
        self.facts[entry.offset], self.history = asks, history
        return True

    def fits(self, facts: float, history: int, entries: int) -> bool:
        if self.ceiling is not None and entries > self.ceiling:
            return False
        if self.rate is None:
            return True  # not a serial model's batch: only a failure narrows it
        turns = EXTRA_TURNS + self.rate * facts  # one turn per edit, and the summary
        session = turns * self.scale * (self.fixed + history) + GROWTH_TOKENS * turns * (turns - 1) / 2
        return session <= self.max_tokens and self.rate * facts + 1 <= self.max_calls


class Sizing:
    """The run's view of the sizing state: cuts the next batch, remembers a batch too big, learns from a success."""

    def __init__(self, workspace: Workspace, settings: Settings, *, keep: bool = True) -> None:
        self.workspace = workspace
        self.settings = settings
        self.keep = keep  # False for a dry run: what it learns lasts the run only
        self.state = load(workspace)
        self.serial = not settings.offline and settings.tool_mode != "structured"
        self._admitted: Admission | None = None  # what cut the last batch: its estimates are learned against

    def admission(self) -> Admission | None:
        """What admits the entries of the next batch; None when the engine sends one request per batch whatever
        its size and no failure is waiting to narrow one."""
        if not self.serial and not self.state.failures:
            return None
        learned = self.state.models.get(self.settings.model, Learned()) if self.serial else None
        fixed = fixed_tokens(self.workspace) if self.serial else 0
        self._admitted = Admission(fixed, learned, self.settings, self.state.failures,
                                   Facts(known_facts(self.workspace) if self.serial else set()))
        return self._admitted

    def too_big(self, batch: Batch, cause: str, spent: Any, run_id: str) -> Failure:
        """Remember that a session on `batch` was stopped by `cause` (tokens | calls), and what its requests
        really weighed: kept before the run goes on."""
        failure = Failure(batch.start_offset, batch.end_offset, len(batch.entries), batch.first_line,
                          batch.last_line, cause, self.settings.model, run_id,
                          clock.now().isoformat(timespec="seconds"), spent.requests, spent.tokens_in,
                          spent.tokens_out, spent.request_bytes, spent.cost)
        self.state.failures.append(failure)
        self._learn_scale(batch, spent.requests, spent.tokens_in)
        self._save()
        return failure

    def passed(self, batch: Batch) -> list[Failure]:
        """The failures a batch about to be applied moves past (their entries dreamed at last): named in its
        commit. They are forgotten once it has landed (`landed`)."""
        return [f for f in self.state.failures if f.start < batch.end_offset]

    def landed(self, batch: Batch, spent: Any, structured: bool) -> None:
        """A batch was consumed: forget the failures it moved past, and learn from its session how many turns per
        fact the model takes and what its requests really weigh (not from structured mode: one request a batch)."""
        before = len(self.state.failures)
        self.state.failures = [f for f in self.state.failures if f.start >= batch.end_offset]
        learned = False
        if self.serial and not structured:
            learned = self._learn_turns(batch, spent.requests)
            learned = self._learn_scale(batch, spent.requests, spent.tokens_in) or learned
        if learned or len(self.state.failures) != before:
            self._save()

    def _sized(self, batch: Batch) -> Admission | None:
        """The admission that cut `batch` (None for a batch cut otherwise: a half of a poisoned batch's search)."""
        admitted = self._admitted
        return admitted if admitted is not None and admitted.first == batch.start_offset else None

    def _learn_turns(self, batch: Batch, requests: int) -> bool:
        """Turns per fact from a session that finished: its requests but the summary's, over what the batch asked."""
        admitted = self._sized(batch)
        facts = sum(admitted.facts.get(entry.offset, 0.0) for entry in batch.entries) if admitted else 0.0
        if requests < 1 or facts < 1:
            return False
        learned = self.state.models.setdefault(self.settings.model, Learned())
        learned.turns = round(LEARNING * max(requests - 1, 0) / facts + (1 - LEARNING) * learned.turns, 3)
        return True

    def _learn_scale(self, batch: Batch, requests: int, tokens_in: int) -> bool:
        """Real prompt tokens per request against the estimate the batch was cut with (the provider's tokenizer,
        what chars / 4 misses); nothing from a provider that reports no usage."""
        admitted = self._sized(batch)
        estimate = admitted.fixed + admitted.history if admitted is not None else 0
        if requests < 1 or tokens_in < 1 or estimate < 1:
            return False
        learned = self.state.models.setdefault(self.settings.model, Learned())
        seen = tokens_in / requests / estimate
        learned.scale = round(LEARNING * seen + (1 - LEARNING) * learned.scale, 3)
        return True

    def _save(self) -> None:
        if self.keep:
            save(self.workspace, self.state)


def failed_trailer(failures: list[Failure]) -> str:
    """`Dream-Failed`'s value: what the sessions that failed on these entries before cost, all together."""
    tokens_in = sum(f.tokens_in for f in failures)
    tokens_out = sum(f.tokens_out for f in failures)
    sent = sum(f.request_bytes for f in failures)
    requests = sum(f.requests for f in failures)
    return f"sessions={len(failures)} requests={requests} in={tokens_in} out={tokens_out} bytes={sent}"

