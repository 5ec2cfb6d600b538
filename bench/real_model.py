"""Real model: fixed backlogs dreamed against a real server, tick after tick as cron would, every fact followed.

    python bench/real_model.py --api-base http://127.0.0.1:8011/v1 --model openai/qwen15
    python bench/real_model.py --api-base http://127.0.0.1:8011/v1 --model openai/qwen05 --tool-mode structured
    python bench/real_model.py --model builtin          # the offline rules on the same backlogs
    python bench/real_model.py                          # offline: replays recorded Qwen2.5-Coder-1.5B answers

Each backlog of bench/corpora/real-model/backlogs.json (four of an agent's week, 24 tagged facts, each with a
correction of a line memory already holds) is copied into a fresh workspace and dreamed up to `--ticks` times
(a run that fails is run again at the next tick, as cron would). Then every fact is one of:

- kept right: a line of the file it belongs in holds it (engines/facts.py), and a correction's old line is gone;
- misrouted: memory holds it, but not in that file (or a correction beside the line it should have replaced);
- held: not kept, and its entry is still after the cursor (nothing lost: a later tick tries again);
- explained: consumed and not kept, with a reason the run recorded;
- lost silently: consumed, kept nowhere, no reason — what must never happen.

"Invented" counts memory lines the runs added that hold none of the backlog's facts. Seconds per request are
the runs' wall time over their model requests. A key, when the server needs one, comes from NANODREAM_API_KEY.
Without --api-base the four answers Qwen2.5-Coder-1.5B gave through llama.cpp's server
(tests/fixtures/real-model/) are replayed in turn, so the path runs offline (and every fact is held).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench._common import REPO, Row, describe, format_table, machine, row  # noqa: E402
from nanodream.backlog.position import resume  # noqa: E402
from nanodream.config import load_settings  # noqa: E402
from nanodream.engines.facts import corrects, holds  # noqa: E402
from nanodream.memory.transaction import ensure_repository  # noqa: E402
from nanodream.rejected import fact_text  # noqa: E402
from nanodream.run.dream import run_dream  # noqa: E402
from nanodream.run.records import read_records  # noqa: E402
from nanodream.versioning.gitstore import DREAM_IDENTITY, GitStore  # noqa: E402
from nanodream.workspace import CORE_FILES, Workspace, scaffold  # noqa: E402

BENCH = "real_model"
SMOKE: dict[str, Any] = {"backlogs": 1, "ticks": 1}
BACKLOGS = REPO / "bench" / "corpora" / "real-model" / "backlogs.json"
RECORDED = REPO / "tests" / "fixtures" / "real-model"
REPLAYED_MODEL = "openai/qwen2.5-coder-1.5b-replayed"
VERDICTS = ("kept right", "misrouted", "held", "explained", "lost silently")


@dataclass(frozen=True)
class Fact:
    tag: str
    text: str
    file: str
    replaces: str  # the memory line a correction replaces ("" otherwise)
    line: int  # its entry's line in history.jsonl


@dataclass
class Tally:
    verdicts: Counter = field(default_factory=Counter)
    invented: int = 0
    runs: Counter = field(default_factory=Counter)  # run outcomes
    requests: int = 0
    seconds: float = 0.0
    tokens: tuple[int, int] = (0, 0)
    corrections: int = 0
    replaced: int = 0
    notes: list[str] = field(default_factory=list)


def main(quick: bool = False, api_base: str | None = None, model: str | None = None,
         settings: dict[str, Any] | None = None, backlogs: int = 4, ticks: int = 3) -> list[Row]:
    """`settings`: nanodream settings for every run (tool_mode, max_tokens, timeout, …); `quick` changes nothing
    here (the model's speed decides the time); `backlogs`, `ticks`: how many backlogs, runs per backlog."""
    chosen = {"timeout": 900, "max_retries": 1, "max_batches": 1, "batch_tokens": 8000, **(settings or {})}
    with tempfile.TemporaryDirectory(prefix="nanodream-real-model-") as tmp:
        if api_base is not None or model == "builtin":
            base = {"api_base": api_base} if api_base else {}
            return measure(Path(tmp), {**chosen, **base, "model": model or "openai/local"}, backlogs, ticks)
        with replayed() as url:
            return measure(Path(tmp), {**chosen, "api_base": url, "model": REPLAYED_MODEL}, backlogs, ticks)


def measure(tmp: Path, overrides: dict[str, Any], backlogs: int, ticks: int) -> list[Row]:
    tally = Tally()
    for spec in json.loads(BACKLOGS.read_text(encoding="utf-8"))["backlogs"][:backlogs]:
        ws, facts, before = prepared(tmp / spec["name"], spec)
        settings = load_settings(ws, overrides)
        for _ in range(ticks):
            started = time.perf_counter()
            report = run_dream(ws, settings)
            tally.seconds += time.perf_counter() - started
            tally.runs[str(report.outcome)] += 1
            tally.requests += report.requests
            tally.tokens = (tally.tokens[0] + report.tokens_in, tally.tokens[1] + report.tokens_out)
            if report.outcome != "committed" and report.reason:
                tally.notes.append(f"{spec['name']}: {report.outcome}: {report.reason[:90]}")
            if report.outcome in ("nothing-to-do", "committed", "no-change") and not pending(ws):
                break
        judge(ws, facts, before, tally)
    return rows(overrides["model"], overrides.get("tool_mode", "auto"), tally, backlogs, ticks)


def prepared(root: Path, spec: dict[str, Any]) -> tuple[Workspace, list[Fact], dict[str, list[str]]]:
    """A workspace holding the backlog's memory, committed, and its history; the facts; memory before."""
    scaffold(root)
    ws = Workspace.at(root)
    for path, text in spec["files"].items():
        (root / path).write_text(text, encoding="utf-8")
    ensure_repository(GitStore(ws))
    GitStore(ws).commit("bench: memory before the backlog", DREAM_IDENTITY)
    lines, facts = [], []
    for number, entry in enumerate(spec["entries"], start=1):
        content = "\n".join(f"[{tag}] {text}" for tag, text, *_ in entry["facts"])
        content += f"\n{entry['raw']}" if entry.get("raw") else ""
        lines.append(json.dumps({"cursor": number, "timestamp": entry["timestamp"], "session_key": entry["session"],
                                 "content": content}))
        facts += [Fact(tag, text, file, rest[0] if rest else "", number) for tag, text, file, *rest in entry["facts"]]
    ws.history_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ws, facts, active(ws)


def active(ws: Workspace) -> dict[str, list[str]]:
    return {path: [fact_text(line) for line in (ws.root / path).read_text(encoding="utf-8").splitlines()
                   if fact_text(line)] for path in CORE_FILES}


def pending(ws: Workspace) -> bool:
    """History after the position: a failed run left something for the next tick."""
    position = resume(ws).position
    return ws.history_file.stat().st_size > position.offset


def judge(ws: Workspace, facts: list[Fact], before: dict[str, list[str]], tally: Tally) -> None:
    after = active(ws)
    consumed = resume(ws).position.line
    reasons = {r["fact"] for record in read_records(ws) for r in record.reasons}
    for fact in facts:
        tally.verdicts[verdict(fact, after, consumed, reasons)] += 1
        if fact.replaces:
            tally.corrections += 1
            tally.replaced += not any(line == fact.replaces or corrects(fact.text, line)
                                      for lines in after.values() for line in lines)
    added = [line for path, lines in after.items() for line in lines if line not in before[path]]
    tally.invented += sum(1 for line in added if not any(holds(line, f.text, correction=f.tag == "correction")
                                                         for f in facts))


def verdict(fact: Fact, after: dict[str, list[str]], consumed: int, reasons: set[str]) -> str:
    correction = fact.tag == "correction"
    home = [path for path, lines in after.items() if any(holds(line, fact.text, correction=correction)
                                                         for line in lines)]
    beside = correction and any(line == fact.replaces for lines in after.values() for line in lines)
    if fact.file in home and not beside:
        return "kept right"
    if home:
        return "misrouted"
    if fact.line > consumed:
        return "held"
    return "explained" if fact.text in reasons else "lost silently"


def rows(model: str, tool_mode: str, tally: Tally, backlogs: int, ticks: int) -> list[Row]:
    total = sum(tally.verdicts.values())
    per_request = tally.seconds / tally.requests if tally.requests else 0.0
    found = [row(BENCH, f"{model} · tool_mode {tool_mode} · {backlogs} backlogs × ≤{ticks} ticks", total, "facts")]
    found += [row(BENCH, f"  {name}", tally.verdicts[name], "facts",
                  ok=None if name != "lost silently" else tally.verdicts[name] == 0) for name in VERDICTS]
    found += [row(BENCH, "  corrections that replaced their line", f"{tally.replaced} of {tally.corrections}"),
              row(BENCH, "  invented lines", tally.invented, "lines"),
              row(BENCH, "  runs", ", ".join(f"{n} {o}" for o, n in sorted(tally.runs.items()))),
              row(BENCH, "  requests / tokens in / out",
                  f"{tally.requests} / {tally.tokens[0]:,} / {tally.tokens[1]:,}"),
              row(BENCH, "  seconds per request", round(per_request, 1), "s", f"{tally.seconds:.0f}s in all")]
    return found + [row(BENCH, f"  note: {note}", "") for note in tally.notes[:8]]


@contextmanager
def replayed() -> Iterator[str]:
    """The scripted server answering every request with the next recorded answer, round and round."""
    from tests.support.scripted_server import ScriptedServer, final

    answers = [json.loads(path.read_text(encoding="utf-8"))["messages"][-1]["content"]
               for path in sorted(RECORDED.glob("*.json"))]
    turn = iter(range(10**6))
    with ScriptedServer([lambda body: final(answers[next(turn) % len(answers)])] * 1000, usage=None) as server:
        yield server.url


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api-base", help="the server's OpenAI-compatible base URL (omit: replay offline)")
    parser.add_argument("--model", help="litellm model string, e.g. openai/<name the server knows>, or builtin")
    parser.add_argument("--tool-mode", default="auto", choices=("auto", "native", "text", "structured"))
    parser.add_argument("--ticks", type=int, default=3, help="runs per backlog at most (cron ticks)")
    parser.add_argument("--backlogs", type=int, default=4, help="how many of the four backlogs")
    parser.add_argument("--max-tokens", type=int, default=1024, help="max_tokens of every request")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per request")
    parser.add_argument("--quick", action="store_true", help="accepted for run_all; changes nothing")
    args = parser.parse_args()
    print(f"# {describe(machine())}", flush=True)
    chosen = {"tool_mode": args.tool_mode, "max_tokens": args.max_tokens, "timeout": args.timeout}
    print(format_table(main(args.quick, args.api_base, args.model, chosen, args.backlogs, args.ticks)))
