"""Real model: `model check`, then one dream over a copy of the example workspace, against any OpenAI-compatible server.

    python bench/real_model.py --api-base http://127.0.0.1:8080/v1 --model openai/qwen2.5-coder-0.5b
    python bench/real_model.py --api-base http://127.0.0.1:11434/v1 --model openai/llama3.2 --tool-mode text
    python bench/real_model.py            # offline: replays the recorded Qwen2.5-Coder-1.5B answers

Prints what the probe found (native or written tool calls, usage, price, the tool_mode to use), then the
dream's outcome, the tagged facts of the batches it attempted that memory holds afterwards, model requests,
tokens and wall time. A key, when the server needs one, comes from NANODREAM_API_KEY or the provider's
variable. Without --api-base the four answers Qwen2.5-Coder-1.5B gave through llama.cpp's server
(tests/fixtures/real-model/) are replayed in turn by the scripted server, so the path runs offline.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench._common import REPO, Row, describe, format_table, machine, row  # noqa: E402
from nanodream.backlog.history import Batch, HistoryEntry, read_from  # noqa: E402
from nanodream.config import Settings, load_settings  # noqa: E402
from nanodream.engines.probe import check_model  # noqa: E402
from nanodream.memory.staging import Staging  # noqa: E402
from nanodream.memory.transaction import ensure_repository  # noqa: E402
from nanodream.rejected import read_ledger, rejected_keys  # noqa: E402
from nanodream.run.accounting import Ledgers, account_for  # noqa: E402
from nanodream.run.context import RunOptions  # noqa: E402
from nanodream.run.dream import run_dream  # noqa: E402
from nanodream.run.report import RunReport  # noqa: E402
from nanodream.versioning.gitstore import GitStore  # noqa: E402
from nanodream.workspace import Workspace, scaffold  # noqa: E402

BENCH = "real_model"
SMOKE: dict[str, Any] = {}
RECORDED = REPO / "tests" / "fixtures" / "real-model"
REPLAYED_MODEL = "openai/qwen2.5-coder-1.5b-replayed"


def main(quick: bool = False, api_base: str | None = None, model: str | None = None,
         settings: dict[str, Any] | None = None) -> list[Row]:
    """`settings`: nanodream settings for the run (tool_mode, max_batches, batch_tokens, …); `quick` changes
    nothing here, the model's speed decides the time."""
    chosen = {"max_batches": 1, "timeout": 900, "max_retries": 1, **(settings or {})}
    with tempfile.TemporaryDirectory(prefix="nanodream-real-model-") as tmp:
        if api_base is not None:
            return measure(Path(tmp), {**chosen, "api_base": api_base, "model": model or "openai/local"})
        with replayed() as url:
            return measure(Path(tmp), {**chosen, "api_base": url, "model": REPLAYED_MODEL})


def measure(tmp: Path, overrides: dict[str, Any]) -> list[Row]:
    ws = example(tmp / "ws")
    settings = load_settings(ws, overrides)
    return probe_rows(settings) + dream_rows(ws, settings, example(tmp / "pristine"))


def example(root: Path) -> Workspace:
    ws = Workspace.at(root)
    scaffold(ws.root, example=True)
    ensure_repository(GitStore(ws))
    return ws


def probe_rows(settings: Settings) -> list[Row]:
    started = time.perf_counter()
    found = check_model(settings)
    seconds = time.perf_counter() - started
    yes = {True: "yes", False: "no"}
    return [
        row(BENCH, f"model check: {settings.model}", found.tool_mode or "not usable", "tool_mode"),
        row(BENCH, "  native tool calls / written as text",
            f"{yes[found.native_tool_calls]} / {yes[found.text_tool_calls]}"),
        row(BENCH, "  token usage reported / price known", f"{yes[found.usage_reported]} / {yes[found.price_known]}"),
        row(BENCH, f"  {found.requests} request(s)", round(seconds, 1), "s", found.error[:80]),
    ]


def dream_rows(ws: Workspace, settings: Settings, pristine: Workspace) -> list[Row]:
    started = time.perf_counter()
    report = run_dream(ws, settings, RunOptions(max_batches=settings.max_batches))
    seconds = time.perf_counter() - started
    attempted = attempted_batch(ws, report)
    missing_before = len(account_for(attempted, Staging(pristine), Ledgers(rejected_keys(read_ledger(pristine))))
                         .unkept)
    missing_after = len(account_for(attempted, Staging(ws), Ledgers(rejected_keys(read_ledger(ws)))).unkept)
    requests = max(report.requests, 1)
    return [
        row(BENCH, "dream: outcome", report.outcome, "", report.reason[:100]),
        row(BENCH, f"  entries consumed of {len(attempted.entries)} attempted", report.entries, "entries"),
        row(BENCH, f"  facts memory lacked before, now held ({missing_after} still missing)",
            f"{missing_before - missing_after} of {missing_before}", "facts"),
        row(BENCH, "  commits", len(report.commits)),
        row(BENCH, "  model requests", report.requests),
        row(BENCH, "  tokens in / out", f"{report.tokens_in:,} / {report.tokens_out:,}"),
        row(BENCH, "  wall time", round(seconds, 1), "s", f"{seconds / requests:.1f} s/request"),
    ]


def attempted_batch(ws: Workspace, report: RunReport) -> Batch:
    """Every history entry of the batches the run tried, as one batch (for counting its facts)."""
    lines = {n for b in report.batches for n in range(b.first_line, b.last_line + 1)}
    return Batch([item for item in read_from(ws.history_file) if isinstance(item, HistoryEntry) and item.line in lines])


@contextmanager
def replayed() -> Iterator[str]:
    """The scripted server answering every request with the next recorded answer, round and round."""
    from tests.scripted_server import ScriptedServer, final

    answers = [json.loads(path.read_text(encoding="utf-8"))["messages"][-1]["content"]
               for path in sorted(RECORDED.glob("*.json"))]
    turn = iter(range(10**6))
    with ScriptedServer([lambda body: final(answers[next(turn) % len(answers)])] * 1000, usage=None) as server:
        yield server.url


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api-base", help="the server's OpenAI-compatible base URL (omit: replay offline)")
    parser.add_argument("--model", help="litellm model string, e.g. openai/<name the server knows>")
    parser.add_argument("--tool-mode", default="auto", choices=("auto", "native", "text"))
    parser.add_argument("--max-batches", type=int, default=1, help="batches of the example history to dream")
    parser.add_argument("--batch-tokens", type=int, default=8000, help="history tokens per batch (a small CPU "
                                                                         "model reads ~8000 slowly)")
    parser.add_argument("--quick", action="store_true", help="accepted for run_all; changes nothing")
    args = parser.parse_args()
    print(f"# {describe(machine())}", flush=True)
    chosen = {"tool_mode": args.tool_mode, "max_batches": args.max_batches, "batch_tokens": args.batch_tokens}
    print(format_table(main(args.quick, args.api_base, args.model, chosen)))
