"""The shape of a pass: one small named step of a run, what it works on, and the one result every pass returns.

The run's passes are declared, in order, in run/pipeline.py; this module holds only their common types, so a
pass's own module can name them without importing the list it is part of.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from nanodream.backlog.history import Batch
from nanodream.backlog.position import Position
from nanodream.engines import Engine
from nanodream.memory.staging import Staging
from nanodream.run.accounting import Account
from nanodream.run.context import RunContext
from nanodream.run.holds import Holds
from nanodream.run.report import BatchOutcome
from nanodream.toolbox.tools import ToolBox
from nanodream.vocab import Outcome, Trailer


@dataclass(frozen=True)
class BatchHooks:
    """What a caller adds to the common path: a step right before the first write, extra commit trailers."""

    before_apply: Callable[[], None] | None = None
    trailers: tuple[tuple[Trailer, object], ...] = ()
    position: Position | None = None  # where progress stands after this batch, if not at its end (a retry)


@dataclass
class BatchWork:
    """What the passes of one batch share: the run, the batch, its staged copy and the outcome being built.

    A pass reads and edits `staging` and fills in `outcome`'s facts (tokens, summary, changes); whether the
    batch goes on is said by the PassResult it returns. `confirmed` is handed from pressure to confirmations,
    `held` from the hold pass to apply, `account` (what became of each tagged fact) from the session to the
    accounting pass, which may narrow `batch` to the entries whose facts are all accounted for: only those are
    consumed.
    """

    ctx: RunContext
    engine: Engine | None  # None only for a batch with nothing left to dream (every line was `[skip]`)
    batch: Batch | None  # None: a tidy pass, which consumes no history
    hooks: BatchHooks
    staging: Staging
    toolbox: ToolBox
    outcome: BatchOutcome
    confirmed: list[str] = field(default_factory=list)  # lines of memory/MEMORY.md this batch restated
    account: Account = field(default_factory=Account)  # the session's account of the batch's tagged facts
    held: Holds | None = None  # lines held back for a person (run/holds.py), proposed by the apply pass


@dataclass(frozen=True)
class PassResult:
    """What one pass says about the batch: notes for the person, and whether the batch fails or ends here.

    `failure` fails the batch (nothing of it is applied) as `failed_as`; `capacity` and `blameless` say the
    failure is no history entry's doing, so it is never split or quarantined. `ends` stops the batch with the
    outcome as it stands (a dry run after its preview).
    """

    warnings: tuple[str, ...] = ()
    failure: str = ""
    failed_as: str = Outcome.FAILED
    capacity: bool = False
    blameless: bool = False
    ends: bool = False

    @property
    def stops(self) -> bool:
        return bool(self.failure) or self.ends


DONE = PassResult()  # the pass did its work; the batch goes on


Work = TypeVar("Work")


@dataclass(frozen=True)
class Pass(Generic[Work]):
    """One named step of a run: `does` is the line the architecture page's diagram shows for it.

    A pass runs in every batch over its BatchWork, or with `once` after the last batch over the run's
    PhaseWork (run/phases.py): the insight phases.
    """

    name: str
    unit: str  # where its work lives, as docs/architecture.md names units (`run/pressure.py`)
    does: str
    step: Callable[[Work], PassResult]
    once: bool = False
