"""Real model: fixed backlogs dreamed by a real server and by the built-in engine, tick after tick as cron would.

    python bench/real_model.py --api-base http://127.0.0.1:8011/v1 --model openai/qwen15
    python bench/real_model.py --api-base http://127.0.0.1:8011/v1 --model openai/qwen05 --tool-mode structured
    python bench/real_model.py --model builtin          # the offline rules alone
    python bench/real_model.py                          # offline: replays recorded Qwen2.5-Coder-1.5B answers

Each backlog of bench/corpora/real-model/backlogs.json (or `--corpus FILE` of the same shape: every fact names
the file it belongs in, a correction the line it replaces) is copied into a fresh workspace and dreamed up to
`--ticks` times (a run that fails is run again at the next tick, as cron would), first by the built-in engine, then
by the model, with the README's local-model settings (`max_tokens 1024`, `timeout 600`, `batch_tokens 2000`,
`tool_mode auto`). Then, per backlog and engine, every fact is one of:

- right: a line of the file it belongs in holds it (engines/facts.py), and a correction's old line is gone;
- misfiled: memory holds it, but not in that file (or a correction beside the line it should have replaced);
- held: not kept, and its entry is still after the cursor (nothing lost: a later tick tries again);
- explained: consumed and not kept, with a reason the run recorded;
- lost silently: consumed, kept nowhere, no reason — what must never happen.

"Invented" counts memory lines the runs added that hold none of the backlog's facts. The evidence columns say
whether the record is whole: tokens the commits' trailers count against the run records', model sessions against
transcripts kept, and commit subjects that are not words (JSON, a code fence). Seconds per request are the runs'
wall time over their model requests. A key, when the server needs one, comes from NANODREAM_API_KEY. Without
--api-base the four answers Qwen2.5-Coder-1.5B gave through llama.cpp's server (tests/fixtures/real-model/) are
replayed in turn, so the path runs offline (and every fact is held).
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
from dataclasses import asdict, dataclass, field
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
from nanodream.run.transcripts import list_transcripts  # noqa: E402
from nanodream.versioning.gitstore import DREAM_IDENTITY, GitStore  # noqa: E402
from nanodream.workspace import CORE_FILES, Workspace, scaffold  # noqa: E402

BENCH = "real_model"
SMOKE: dict[str, Any] = {"backlogs": 1, "ticks": 1}
BACKLOGS = REPO / "bench" / "corpora" / "real-model" / "backlogs.json"
RECORDED = REPO / "tests" / "fixtures" / "real-model"
REPLAYED_MODEL = "openai/qwen2.5-coder-1.5b-replayed"
VERDICTS = ("right", "misfiled", "held", "explained", "lost silently")
# The README's settings for a small model on a CPU ("Local models"), and one retry: a tick is cheap to repeat.
LOCAL_MODEL = {"max_tokens": 1024, "timeout": 600, "batch_tokens": 2000, "tool_mode": "auto", "max_retries": 1}


@dataclass(frozen=True)
class Fact:
    tag: str
    text: str
    file: str
    replaces: str  # the memory line a correction replaces ("" otherwise)
    line: int  # its entry's line in history.jsonl


@dataclass
class Backlog:
    """What one engine made of one backlog, over its ticks."""

    name: str
    engine: str
    facts: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    invented: int = 0
    corrections: int = 0
    replaced: int = 0
    runs: dict[str, int] = field(default_factory=dict)  # run outcomes
    requests: int = 0
    seconds: float = 0.0
    tokens_recorded: tuple[int, int] = (0, 0)  # in, out: every run record of the backlog
    tokens_committed: tuple[int, int] = (0, 0)  # in, out: the dream commits' Dream-Tokens trailers
    tokens_of_commits: tuple[int, int] = (0, 0)  # in, out: the records of the runs that committed
    sessions: int = 0  # model sessions the run records list
    transcripts: int = 0  # of those sessions, the ones whose transcript is kept under .nanodream/transcripts
    raw_subjects: list[str] = field(default_factory=list)  # commit subjects that are not words
    misfiled: list[str] = field(default_factory=list)  # "fact → file it landed in"
    notes: list[str] = field(default_factory=list)


def main(quick: bool = False, api_base: str | None = None, model: str | None = None,
         settings: dict[str, Any] | None = None, backlogs: int = 4, ticks: int = 3, corpus: Path | None = None,
         keep: Path | None = None, builtin_beside: bool = True) -> list[Row]:
    """`settings`: nanodream settings over the local-model ones; `quick` changes nothing here (the model's speed
    decides the time); `backlogs`, `ticks`: how many backlogs, runs per backlog at most; `keep`: leave the
    workspaces there instead of a temporary folder; `builtin_beside`: dream the same backlogs with the built-in
    engine first."""
    return table_rows(measure_all(api_base, model, settings, backlogs, ticks, corpus, keep, builtin_beside))


def measure_all(api_base: str | None, model: str | None, settings: dict[str, Any] | None, backlogs: int,
                ticks: int, corpus: Path | None = None, keep: Path | None = None,
                builtin_beside: bool = True) -> list[Backlog]:
    """Every backlog, by the built-in engine (unless it is the model, or not wanted) and then by the model."""
    chosen = {**LOCAL_MODEL, **(settings or {})}
    specs = json.loads((corpus or BACKLOGS).read_text(encoding="utf-8"))["backlogs"][:backlogs]
    results: list[Backlog] = []
    with _folder(keep) as tmp:
        if model == "builtin" or builtin_beside:
            results += measure(tmp / "builtin", specs, {**chosen, "model": "builtin"}, ticks)
        if model == "builtin":
            return results
        if api_base is not None:
            return results + measure(tmp / "model", specs, {**chosen, "api_base": api_base,
                                                             "model": model or "openai/local"}, ticks)
        with replayed() as url:
            return results + measure(tmp / "model", specs, {**chosen, "api_base": url, "model": REPLAYED_MODEL},
                                     ticks)


@contextmanager
def _folder(keep: Path | None) -> Iterator[Path]:
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep
        return
    with tempfile.TemporaryDirectory(prefix="nanodream-real-model-") as tmp:
        yield Path(tmp)


def measure(root: Path, specs: list[dict[str, Any]], overrides: dict[str, Any], ticks: int) -> list[Backlog]:
    results = []
    for spec in specs:
        ws, facts, before = prepared(root / spec["name"], spec)
        result = Backlog(spec["name"], overrides["model"], facts=len(facts))
        settings = load_settings(ws, overrides)
        for tick in range(1, ticks + 1):
            started = time.perf_counter()
            report = run_dream(ws, settings)
            result.seconds += time.perf_counter() - started
            result.runs[str(report.outcome)] = result.runs.get(str(report.outcome), 0) + 1
            print(f"  {result.engine} · {spec['name']} · tick {tick}: {report.outcome} "
                  f"({report.requests} requests, {time.perf_counter() - started:.0f}s) {report.reason[:100]}",
                  file=sys.stderr, flush=True)
            if report.outcome not in ("committed", "nothing-to-do", "no-change") and report.reason:
                result.notes.append(f"tick {tick}: {report.outcome}: {report.reason[:120]}")
            if report.outcome in ("nothing-to-do", "committed", "no-change") and not pending(ws):
                break
        judge(ws, facts, before, result)
        evidence(ws, result)
        print(f"  {summary_line(result)}", file=sys.stderr, flush=True)
        results.append(result)
    return results


def prepared(root: Path, spec: dict[str, Any]) -> tuple[Workspace, list[Fact], dict[str, list[str]]]:
    """A workspace holding the backlog's memory, committed, and its history; the facts; memory before."""
    scaffold(root)
    ws = Workspace.at(root)
    for path, text in spec["files"].items():
        (root / path).write_text(text, encoding="utf-8")
    ensure_repository(GitStore(ws))
    GitStore(ws).commit("bench: memory before the backlog", DREAM_IDENTITY)
    lines = []
    for number, entry in enumerate(spec["entries"], start=1):
        content = "\n".join(f"[{tag}] {text}" for tag, text, *_ in entry["facts"])
        content += f"\n{entry['raw']}" if entry.get("raw") else ""
        lines.append(json.dumps({"cursor": number, "timestamp": entry["timestamp"], "session_key": entry["session"],
                                 "content": content}))
    ws.history_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ws, facts_of(spec), active(ws)


def facts_of(spec: dict[str, Any]) -> list[Fact]:
    return [Fact(tag, text, file, rest[0] if rest else "", number)
            for number, entry in enumerate(spec["entries"], start=1) for tag, text, file, *rest in entry["facts"]]


def judged_again(keep: Path, corpus: Path | None = None) -> list[Backlog]:
    """The workspaces a run left in `keep` (`--keep`), judged as they stand: for a run that was stopped before it
    printed. Seconds are the run records' durations."""
    specs = json.loads((corpus or BACKLOGS).read_text(encoding="utf-8"))["backlogs"]
    results = []
    for engine in ("builtin", "model"):
        for spec in specs:
            root = keep / engine / spec["name"]
            if not (root / ".git").is_dir():
                continue
            ws = Workspace.at(root)
            records = read_records(ws, limit=1000)
            result = Backlog(spec["name"], records[0].model if records else engine, facts=len(facts_of(spec)))
            before = {path: [fact_text(line) for line in spec["files"].get(path, "").splitlines() if fact_text(line)]
                      for path in CORE_FILES}
            for record in records:
                result.runs[record.outcome] = result.runs.get(record.outcome, 0) + 1
                result.seconds += record.duration_s
            judge(ws, facts_of(spec), before, result)
            evidence(ws, result)
            results.append(result)
    return results


def active(ws: Workspace) -> dict[str, list[str]]:
    return {path: [fact_text(line) for line in (ws.root / path).read_text(encoding="utf-8").splitlines()
                   if fact_text(line)] for path in CORE_FILES}


def pending(ws: Workspace) -> bool:
    """History after the position: a failed run left something for the next tick."""
    position = resume(ws).position
    return ws.history_file.stat().st_size > position.offset


def judge(ws: Workspace, facts: list[Fact], before: dict[str, list[str]], result: Backlog) -> None:
    after = active(ws)
    consumed = resume(ws).position.line
    reasons = {r["fact"] for record in read_records(ws) for r in record.reasons}
    verdicts: Counter[str] = Counter({name: 0 for name in VERDICTS})
    for fact in facts:
        found, home = verdict(fact, after, consumed, reasons)
        verdicts[found] += 1
        if found == "misfiled":
            result.misfiled.append(f"{fact.text} → {', '.join(home) or fact.file + ' beside its old line'}")
        if fact.replaces:
            result.corrections += 1
            result.replaced += not any(line == fact.replaces or corrects(fact.text, line)
                                       for lines in after.values() for line in lines)
    result.verdicts = dict(verdicts)
    added = [line for path, lines in after.items() for line in lines if line not in before[path]]
    result.invented += sum(1 for line in added if not any(holds(line, f.text, correction=f.tag == "correction")
                                                          for f in facts))


def verdict(fact: Fact, after: dict[str, list[str]], consumed: int, reasons: set[str]) -> tuple[str, list[str]]:
    """The fact's verdict, and the files holding it."""
    correction = fact.tag == "correction"
    home = [path for path, lines in after.items() if any(holds(line, fact.text, correction=correction)
                                                         for line in lines)]
    beside = correction and any(line == fact.replaces for lines in after.values() for line in lines)
    if fact.file in home and not beside:
        return "right", home
    if home:
        return "misfiled", [path for path in home if path != fact.file]
    if fact.line > consumed:
        return "held", home
    return ("explained" if fact.text in reasons else "lost silently"), home


def evidence(ws: Workspace, result: Backlog) -> None:
    """Is the record whole: the commits' tokens against the records', sessions against transcripts, subjects."""
    records = read_records(ws, limit=1000)
    result.requests = sum(record.requests for record in records)
    result.tokens_recorded = (sum(r.tokens_in for r in records), sum(r.tokens_out for r in records))
    committing = [r for r in records if r.commits]
    result.tokens_of_commits = (sum(r.tokens_in for r in committing), sum(r.tokens_out for r in committing))
    sessions = [session for record in records for session in record.sessions]
    kept = {path.name for path in list_transcripts(ws)}  # connect's conversation keeps one too: not a session's
    result.sessions, result.transcripts = len(sessions), sum(1 for s in sessions if s.get("transcript") in kept)
    dreams = GitStore(ws).memory_commits(None, kind="dream")
    spent = [commit.trailers.tokens for commit in dreams if commit.trailers.tokens]
    result.tokens_committed = (sum(t[0] for t in spent), sum(t[1] for t in spent))
    result.raw_subjects = [commit.subject for commit in dreams if not worded(commit.subject)]


def worded(subject: str) -> bool:
    """A subject a person can read: words, not JSON or a code fence."""
    text = subject.removeprefix("dream:").strip()
    return bool(text) and text[0] not in "{[\"'`<" and "```" not in text and '":' not in text


def summary_line(result: Backlog) -> str:
    counts = ", ".join(f"{result.verdicts.get(name, 0)} {name}" for name in VERDICTS)
    return (f"{result.engine} · {result.name}: {result.facts} facts: {counts}; {result.invented} invented; "
            f"corrections replaced {result.replaced} of {result.corrections}")


def rows(result: Backlog) -> list[Row]:
    counts = ", ".join(f"{result.verdicts.get(name, 0)} {name}" for name in VERDICTS)
    label = f"{result.engine} · {result.name} ({result.facts} facts)"
    found = [row(BENCH, label, f"{counts} · {result.invented} invented · corrections replaced {result.replaced} of "
                 f"{result.corrections}", ok=result.verdicts.get("lost silently", 0) == 0)]
    if result.requests:
        per_request = result.seconds / result.requests
        found.append(row(BENCH, "  requests / tokens in / out · s per request",
                         f"{result.requests} / {result.tokens_recorded[0]:,} / {result.tokens_recorded[1]:,} · "
                         f"{per_request:.1f}", "", f"{result.seconds:.0f}s in all"))
        found.append(row(BENCH, "  committed runs' tokens: records / trailers",
                         f"{result.tokens_of_commits[0]:,}+{result.tokens_of_commits[1]:,} / "
                         f"{result.tokens_committed[0]:,}+{result.tokens_committed[1]:,}",
                         ok=result.tokens_of_commits == result.tokens_committed))
        found.append(row(BENCH, "  sessions / their transcripts kept", f"{result.sessions} / {result.transcripts}",
                         ok=result.sessions == result.transcripts))
    found.append(row(BENCH, "  runs", ", ".join(f"{n} {o}" for o, n in sorted(result.runs.items())),
                     ok=None if not result.raw_subjects else False,
                     target=f"subjects not words: {len(result.raw_subjects)}" if result.raw_subjects else ""))
    found += [row(BENCH, "  misfiled", item[:110]) for item in result.misfiled[:6]]
    return found + [row(BENCH, "  note", note) for note in result.notes[:4]]


def table_rows(results: list[Backlog]) -> list[Row]:
    """Every backlog's rows, then one line per engine over all of them."""
    return [line for result in results for line in rows(result)] + totals_rows(results)


def totals_rows(results: list[Backlog]) -> list[Row]:
    """One line per engine over every backlog."""
    found = []
    for engine in dict.fromkeys(result.engine for result in results):
        mine = [result for result in results if result.engine == engine]
        verdicts = Counter()
        for result in mine:
            verdicts.update(result.verdicts)
        counts = ", ".join(f"{verdicts[name]} {name}" for name in VERDICTS)
        invented = sum(result.invented for result in mine)
        found.append(row(BENCH, f"{engine} · all {len(mine)} backlogs ({sum(r.facts for r in mine)} facts)",
                         f"{counts} · {invented} invented", ok=verdicts["lost silently"] == 0))
    return found


def markdown(results: list[Backlog]) -> str:
    """The per-backlog table bench/README.md shows."""
    lines = ["| engine · backlog | facts | right | misfiled | held | explained | lost silently | invented | "
             "corrections replaced | runs | requests · s/request |", "|" + "---|" * 11]
    for result in results:
        spent = (f"{result.requests} · {result.seconds / result.requests:.1f}" if result.requests
                 else f"— ({result.seconds:.0f} s in all)")
        runs = ", ".join(f"{n} {o}" for o, n in sorted(result.runs.items()))
        lines.append(f"| {result.engine} · {result.name} | {result.facts} | "
                     + " | ".join(str(result.verdicts.get(name, 0)) for name in VERDICTS)
                     + f" | {result.invented} | {result.replaced} of {result.corrections} | {runs} | {spent} |")
    return "\n".join(lines)


@contextmanager
def replayed() -> Iterator[str]:
    """The scripted server answering every request with the next recorded answer, round and round."""
    from tests.support.scripted_server import ScriptedServer, final

    answers = [json.loads(path.read_text(encoding="utf-8"))["messages"][-1]["content"]
               for path in sorted(RECORDED.glob("*.json"))]
    turn = iter(range(10**6))
    with ScriptedServer([lambda body: final(answers[next(turn) % len(answers)])] * 1000, usage=None) as server:
        yield server.url


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api-base", help="the server's OpenAI-compatible base URL (omit: replay offline)")
    parser.add_argument("--model", help="litellm model string, e.g. openai/<name the server knows>, or builtin")
    parser.add_argument("--tool-mode", default="auto", choices=("auto", "native", "text", "structured"))
    parser.add_argument("--ticks", type=int, default=3, help="runs per backlog at most (cron ticks)")
    parser.add_argument("--backlogs", type=int, default=4, help="how many of the corpus's backlogs")
    parser.add_argument("--corpus", type=Path, help="backlogs of the same shape as the default corpus")
    parser.add_argument("--max-tokens", type=int, default=LOCAL_MODEL["max_tokens"])
    parser.add_argument("--timeout", type=float, default=LOCAL_MODEL["timeout"], help="seconds per request")
    parser.add_argument("--batch-tokens", type=int, default=LOCAL_MODEL["batch_tokens"])
    parser.add_argument("--no-builtin", action="store_true", help="do not dream the backlogs with the built-in "
                        "engine first")
    parser.add_argument("--keep", type=Path, help="leave the workspaces in this folder (to inspect them)")
    parser.add_argument("--json", type=Path, help="also write every backlog's figures to this file")
    parser.add_argument("--judge-kept", action="store_true", help="dream nothing: judge the workspaces --keep "
                        "holds (a run stopped before it printed)")
    parser.add_argument("--quick", action="store_true", help="accepted for run_all; changes nothing")
    return parser.parse_args()


if __name__ == "__main__":
    args = _arguments()
    print(f"# {describe(machine())}", flush=True)
    chosen = {"tool_mode": args.tool_mode, "max_tokens": args.max_tokens, "timeout": args.timeout,
              "batch_tokens": args.batch_tokens}
    if args.judge_kept and args.keep is None:
        sys.exit("--judge-kept needs --keep DIR")
    measured = judged_again(args.keep, args.corpus) if args.judge_kept else measure_all(
        args.api_base, args.model, chosen, args.backlogs, args.ticks, args.corpus, args.keep, not args.no_builtin)
    print(format_table(table_rows(measured)))
    print()
    print(markdown(measured))
    if args.json:
        args.json.write_text(json.dumps([asdict(result) for result in measured], indent=1) + "\n", encoding="utf-8")
