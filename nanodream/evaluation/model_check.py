"""`nanodream model check`: a tiny real dream on a scratch workspace, judged by the run's own accounting.

Whether a model returns a tool call when asked for one says little: small models that do so still wrap files
in tags, copy examples and lose what they were given. So the check dreams a real batch — two tagged facts and
a correction of a line memory already holds — through the same run path cron would use (the same tool_mode,
prompt, guards, accounting and structured fallback), in a temporary workspace that is thrown away. The model
is usable only when memory afterwards holds both facts and the correction in place of the line it corrects.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from nanodream.backlog.history import Batch, HistoryEntry, read_from
from nanodream.config import Settings
from nanodream.engines import Engine, engine_for
from nanodream.engines.facts import belongs_in, context_of, corrects, holds
from nanodream.memory.staging import Staging
from nanodream.memory.transaction import ensure_repository
from nanodream.rejected import fact_text
from nanodream.run.accounting import Ledgers, Status, account_for
from nanodream.run.context import RunOptions
from nanodream.run.dream import run_dream
from nanodream.versioning.gitstore import GitStore
from nanodream.vocab import SUCCEEDED, Declared, Shape
from nanodream.workspace import CORE_FILES, MEMORY, Workspace, scaffold

OLD_LINE = "- Project kiwi deploys with Nomad on host atlas."
HISTORY = (
    '{"cursor": 1, "timestamp": "2026-11-20 10:00", "session_key": "check", "content": '
    '"[permanent] User prefers answers in British English.\\n[durable] The nightly backup runs at 02:00 on host '
    'birch."}\n'
    '{"cursor": 2, "timestamp": "2026-11-21 10:00", "session_key": "check", "content": '
    '"[correction] Project kiwi now deploys with Kubernetes, not Nomad."}\n'
)


@dataclass
class FactResult:
    fact: str
    status: str  # the accounting's: kept, explained, unaccounted, …
    note: str = ""
    file: str = ""  # the file that holds it, when one does


@dataclass
class ModelVerdict(Declared):
    """What the tiny dream did; `usable` only when it kept both facts and replaced the corrected line."""

    json_shape = Shape(derived=("usable", "advice"))

    model: str
    api_base: str | None
    tool_mode: str  # the mode checked (setting, NANODREAM_TOOL_MODE or --tool-mode)
    outcome: str = ""
    reason: str = ""
    facts: list[FactResult] = field(default_factory=list)
    replaced: bool = False  # the corrected line is gone from the active files
    structured_used: bool = False  # auto fell back to structured mode, and that kept the batch
    native_tool_calls: int = 0
    text_tool_calls: int = 0
    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    usage_reported: bool = False
    price_known: bool = False
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)  # what failed, one line each, for a person

    @property
    def usable(self) -> bool:
        return (bool(self.facts) and all(f.status == Status.KEPT for f in self.facts) and self.replaced
                and not self.problems)

    @property
    def advice(self) -> str:
        if not self.usable:
            return "do not schedule this model: it would hold the cursor on most batches (see the problems)"
        if self.structured_used:
            return 'usable: auto fell back to structured mode; set tool_mode = "structured" to skip the tools try'
        return f"usable with tool_mode = {self.tool_mode!r}"


def check_model(settings: Settings, engine_factory=engine_for) -> ModelVerdict:
    """Dream the check's batch with `settings`' model; ProviderMisconfigured (a missing key) is raised before
    any request. Retries are capped at one: a person is waiting."""
    settings = replace(settings, max_retries=min(settings.max_retries, 1), max_batches=1, batch_tokens=8000,
                       review="off", keep_transcripts=0)
    engine = engine_factory(settings)  # raises ProviderMisconfigured now, before any scratch work
    check = ModelVerdict(settings.model, settings.api_base, settings.tool_mode)
    with tempfile.TemporaryDirectory(prefix="nanodream-model-check-") as tmp:
        ws = _scratch(Path(tmp) / "ws")
        started = time.monotonic()
        report = run_dream(ws, settings, RunOptions(trigger="check"), engine_factory=lambda _: engine)
        check.seconds = round(time.monotonic() - started, 1)
        check.outcome, check.reason = str(report.outcome), report.reason
        check.requests, check.tokens_in, check.tokens_out = report.requests, report.tokens_in, report.tokens_out
        check.usage_reported, check.price_known = report.tokens_in > 0, report.cost is not None
        check.structured_used = any("structured mode dreamed the batch again" in w
                                    for b in report.batches for w in b.warnings)
        _judge(check, ws)
    _count_calls(check, engine)
    return check


def _scratch(root: Path) -> Workspace:
    """A starter workspace whose memory holds the line the batch corrects, and the batch as its history."""
    scaffold(root)
    ws = Workspace.at(root)
    ensure_repository(GitStore(ws))
    memory = root / MEMORY  # a hand edit to the run: committed as such before the dream, as any person's
    memory.write_text(memory.read_text(encoding="utf-8").rstrip("\n") + f"\n{OLD_LINE}\n", encoding="utf-8")
    ws.history_file.write_text(HISTORY, encoding="utf-8")
    return ws


def _judge(check: ModelVerdict, ws: Workspace) -> None:
    """The accounting over the whole batch, against memory as the dream left it."""
    batch = Batch([item for item in read_from(ws.history_file) if isinstance(item, HistoryEntry)])
    staging = Staging(ws)
    account = account_for(batch, staging, Ledgers())
    lines = {path: [fact_text(line) for line in (staging.read(path) or "").splitlines()] for path in CORE_FILES}
    for item in account.facts:
        correction = item.fact.is_correction
        where = next((path for path, found in lines.items()
                      if any(line and holds(line, item.fact.text, correction=correction, context=context_of(path))
                             for line in found)), "")
        check.facts.append(_placed(FactResult(item.fact.text, str(item.status), item.note, where)))
    corrections = [item.fact.text for item in account.facts if item.fact.is_correction]
    still = [line for found in lines.values() for line in found
             if line and any(corrects(text, line) for text in corrections)]
    check.replaced = not still
    check.problems = _problems(check, still)


def _placed(result: FactResult) -> FactResult:
    """A fact kept in another file than it belongs in is misfiled here, whatever a run forgives: a model is usable
    only when it files each fact where it belongs."""
    home = belongs_in(result.fact)
    if result.status == Status.KEPT and result.file and home and result.file != home:
        return FactResult(result.fact, str(Status.MISFILED), f"kept in {result.file}; it belongs in {home}",
                          result.file)
    return result


def _problems(check: ModelVerdict, still: list[str]) -> list[str]:
    """What failed, the dream's own reason first."""
    found = [f"the dream ended {check.outcome}: {check.reason}"] if check.outcome not in SUCCEEDED else []
    found += [f"{f.fact!r}: {f.status}" + (f" — {f.note}" if f.note else "") for f in check.facts
              if f.status != Status.KEPT]
    if still:
        found.append(f"the line the correction replaces is still there: {still[0]!r}")
    return found


def _count_calls(check: ModelVerdict, engine: Engine) -> None:
    calls = getattr(engine, "calls", {})
    check.native_tool_calls, check.text_tool_calls = calls.get("native", 0), calls.get("written", 0)
