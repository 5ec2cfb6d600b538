"""The insight phases: what connect adds to a builtin run, and what a model's connect sends per request.

Builtin: a workspace of 2,000 memory and archive lines (150 in memory/MEMORY.md, the rest in 12 archive
months), 600 consumed history entries already indexed, and a backlog of 20 new entries naming things the
archive names. One builtin run with the phases off, one with connect alone, one with all three, each on a
fresh copy of the same workspace (median of the repeats); connect's share is the difference, in CPU time of
the process and its git children (wall time beside it: on a shared machine it mostly measures the others).
Target: connect adds ≤ 0.3 s. First run: the history index not built yet (built once, then grown).

Model: the same workspace with a scripted model (a real HTTP server on 127.0.0.1) that files its whole batch in
one response (so the accounting asks nothing more): the consolidation's first request against each request of
connect's own conversation (search, propose, answer; told apart by connect's own `search_knowledge` tool), in
bytes of the JSON body. Target: connect never resends the consolidation's conversation (no request of connect holds the
consolidation's user message, and each is smaller than the consolidation's first request).
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench._common import Row, cli, row  # noqa: E402
from bench.session_cost import batch_facts  # noqa: E402
from nanodream.backlog.position import position_at, resume, save_position  # noqa: E402
from nanodream.config import Settings  # noqa: E402
from nanodream.insights.history_index import up_to_date  # noqa: E402
from nanodream.memory.transaction import ensure_repository  # noqa: E402
from nanodream.run.dream import run_dream  # noqa: E402
from nanodream.versioning.gitstore import GitStore  # noqa: E402
from nanodream.workspace import Workspace, scaffold  # noqa: E402
from tests.support.scripted_server import ScriptedServer, call, final, tool_calls  # noqa: E402

BENCH = "insights"
TARGET_CONNECT = 0.3
SMOKE = {"lines": 60, "consumed": 20, "new": 4, "repeats": 1, "first_run": False}  # tests/test_bench_smoke.py
_SYLLABLES = ("ka", "lo", "ver", "min", "tor", "sel", "dra", "pi", "quen", "har", "bel", "nox", "ru", "fen", "tal")
_VERBS = ("depends on", "runs beside", "replaced", "feeds", "reports to", "is billed through", "backs up",
          "was moved from", "talks to", "is watched by")


def _names(count: int, rng: random.Random) -> list[str]:
    names: set[str] = set()
    while len(names) < count:
        names.add("".join(rng.choice(_SYLLABLES) for _ in range(3)).capitalize())
    return sorted(names)


def _line(rng: random.Random, names: list[str]) -> str:
    first, second = rng.sample(names, 2)
    return (f"The {first.lower()} service {rng.choice(_VERBS)} {second} in the {rng.choice(names).lower()} "
            f"cluster since week {rng.randint(1, 52)}.")


def make_workspace(root: Path, lines: int, consumed: int, new: int, indexed: bool) -> Workspace:
    """Memory and archive holding `lines` lines, `consumed` history entries already dreamed, `new` waiting."""
    rng = random.Random(7)
    names = _names(300, rng)
    ws = Workspace.at(root)
    scaffold(ws.root)
    active = min(150, lines // 10)
    memory = "# Memory\n\n## Project\n" + "".join(f"- {_line(rng, names)}\n" for _ in range(active))
    (ws.root / "memory/MEMORY.md").write_text(memory, encoding="utf-8")
    archived, months = lines - active, 12
    (ws.root / "memory/archive").mkdir()
    for month in range(1, months + 1):
        body = "".join(f"- {_line(rng, names)}\n" for _ in range(archived // months))
        (ws.root / f"memory/archive/2025-{month:02d}.md").write_text(
            f"# Archive 2025-{month:02d}\n\n## Project (archived 2025-{month:02d}-15)\n{body}", encoding="utf-8")
    ensure_repository(GitStore(ws))
    entries = [{"cursor": n, "timestamp": f"2026-{1 + n % 9:02d}-{1 + n % 27:02d} 10:00",
                "content": f"[durable] {_line(rng, names)}", "session_key": f"telegram:{n // 4}"}
               for n in range(1, consumed + new + 1)]
    ws.history_file.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    offset = sum(len(json.dumps(e)) + 1 for e in entries[:consumed])
    ws.state_dir.mkdir(exist_ok=True)
    save_position(ws, position_at(ws.history_file, offset, consumed, consumed))
    if indexed:
        up_to_date(ws, resume(ws).position)
    return ws


def _cpu() -> float:
    """CPU seconds of this process and its finished children (git): what a run costs whatever else runs."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed_run(template: Path, settings: Settings) -> tuple[float, float]:
    """(wall, CPU) seconds of one run on a fresh copy of `template`."""
    with tempfile.TemporaryDirectory(prefix="nanodream-insights-") as tmp:
        copy = Path(tmp) / "ws"
        shutil.copytree(template, copy, symlinks=True)
        ws = Workspace.at(copy)
        start, cpu = time.perf_counter(), _cpu()
        report = run_dream(ws, settings)
        seconds, spent = time.perf_counter() - start, _cpu() - cpu
        if report.outcome not in ("committed", "no-change"):
            raise RuntimeError(f"run ended {report.outcome}: {report.reason}")
        return seconds, spent


def builtin_rows(lines: int, consumed: int, new: int, repeats: int, first_run: bool) -> list[Row]:
    rows: list[Row] = []
    kinds = ((True, ""), (False, ", first run (history index built)"))
    with tempfile.TemporaryDirectory(prefix="nanodream-insights-template-") as tmp:
        for indexed, label in kinds if first_run else kinds[:1]:
            template = make_workspace(Path(tmp) / f"ws-{indexed}", lines, consumed, new, indexed)
            timings: dict[tuple[str, ...], tuple[float, float]] = {}
            for phases in ((), ("connect",), ("reflect", "re-evaluate", "connect")):
                settings = Settings(phases=phases, max_batches=5)
                if repeats > 1:
                    _timed_run(template.root, settings)  # warm-up: page cache, git
                runs = [_timed_run(template.root, settings) for _ in range(repeats)]
                timings[phases] = (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
            base = timings[()]
            connect = [a - b for a, b in zip(timings[("connect",)], base, strict=True)]
            every = [a - b for a, b in zip(timings[("reflect", "re-evaluate", "connect")], base, strict=True)]
            if indexed:
                rows.append(row(BENCH, f"builtin run, phases off ({lines:,} lines): wall / CPU",
                                f"{base[0]:.3f} / {base[1]:.3f}", "s"))
            rows.append(row(BENCH, f"connect adds to a builtin run{label}, CPU", connect[1], "s",
                            f"≤ {TARGET_CONNECT} s", connect[1] <= TARGET_CONNECT if indexed else None))
            rows.append(row(BENCH, f"  the same, wall{label}", connect[0], "s"))
            rows.append(row(BENCH, f"all three phases add{label}: wall / CPU", f"{every[0]:.3f} / {every[1]:.3f}",
                            "s"))
    return rows


def _files_its_batch(fact: str):
    """The consolidation as a model that does its job: one response filing `fact` and every fact of the batch
    (so the accounting has nothing to ask), with its summary."""

    def respond(body: dict) -> dict:
        facts = [fact, *batch_facts(body)]
        return tool_calls(("edit_file", {"path": "memory/MEMORY.md", "old_text": "## Project\n",
                                         "new_text": "## Project\n" + "".join(f"- {each}\n" for each in facts)}),
                          ("finish", {"summary": f"Filed {len(facts)} facts"}))

    return respond


def _is_connect(body: dict) -> bool:
    """A request of connect's own conversation: the only one offered `search_knowledge`."""
    return any(tool.get("function", {}).get("name") == "search_knowledge" for tool in body.get("tools") or [])


def model_rows(lines: int, consumed: int, new: int) -> list[Row]:
    """Bytes of the consolidation's first request and of each request of connect's conversation."""
    with tempfile.TemporaryDirectory(prefix="nanodream-insights-model-") as tmp:
        ws = make_workspace(Path(tmp) / "ws", lines, consumed, new, True)
        fact = "The kalover service is billed through Hetzner in the Falkenstein cluster since week 40."
        archived = next(line[2:] for line in (ws.root / "memory/archive/2025-03.md").read_text().splitlines()
                        if line.startswith("- "))
        script = [_files_its_batch(fact),
                  call("search_knowledge", query="Hetzner Falkenstein", where="archive"),
                  tool_calls(("propose_insight", {
                      "name": "bench-connection", "summary": "One. Two.", "what_if": "What if?",
                      "possible_outcome": "Nothing.", "rationale": "Shared names.", "likelihood": 0.5,
                      "confidence": 0.5, "topics": ["a", "b", "c"], "themes": [],
                      "sources": [{"ref": f"memory/MEMORY.md: {fact}", "reason": "new", "weight": 0.5,
                                   "relation": "relates"},
                                  {"ref": f"memory/archive/2025-03.md: {archived}", "reason": "old", "weight": 0.5,
                                   "relation": "relates"}]})),
                  final("Proposed one.")]
        with ScriptedServer(script) as server:
            settings = Settings(model="openai/bench-model", api_base=server.url, api_key="bench", max_retries=0,
                                timeout=30.0, batch_tokens=100_000, max_batches=1, max_insights=1)
            report = run_dream(ws, settings)
            requests = list(server.requests)
    if report.outcome != "committed" or not report.phases or not report.phases.insights:
        raise RuntimeError(f"the model run did not commit and propose: {report.outcome} {report.reason}")
    dream = [json.dumps(body) for body in requests if not _is_connect(body)]
    connect = [json.dumps(body) for body in requests if _is_connect(body)]
    said = json.loads(dream[0])["messages"][1]["content"]
    resent = any(said in body for body in connect)
    first, largest = len(dream[0].encode()), max(len(b.encode()) for b in connect)
    return [row(BENCH, "consolidation: requests (the model files its whole batch)", len(dream), "", "1",
                len(dream) == 1),
            row(BENCH, "consolidation, first request", first, "B"),
            row(BENCH, f"connect, {len(connect)} requests, largest", largest, "B", "≤ the consolidation's first",
                largest <= first),
            row(BENCH, "connect, mean per request", statistics.mean(len(b.encode()) for b in connect), "B"),
            row(BENCH, "connect resends the consolidation's conversation", "yes" if resent else "no", "", "no",
                not resent),
            row(BENCH, "connect tokens, recorded apart (in/out)",
                f"{report.phases.tokens_in}/{report.phases.tokens_out}", "")]


def main(quick: bool = False, lines: int = 2000, consumed: int = 600, new: int = 20,
         repeats: int | None = None, first_run: bool = True) -> list[Row]:
    repeats = repeats or (1 if quick else 3)
    return builtin_rows(lines, consumed, new, repeats, first_run) + model_rows(lines, consumed, new)


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
