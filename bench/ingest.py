"""Ingest throughput: a 100 MB directory of agent transcripts turned into history, then read a second time.

Targets: none fixed by the issue for speed; reported: MB/s and peak RSS of a first `nanodream ingest` over the
directory (builtin extractor), and the wall time of a second pass, which must add 0 entries (ok/MISSED).
Method: a seeded directory of Claude Code, Codex, nanobot and OpenAI-style transcripts in their real shapes,
most of whose bytes are what real coding sessions hold (tool calls and their output, reasoning), with the
person's messages drawn from a fixed vocabulary of statements, questions and small talk. Each pass is one
`python -m nanodream ingest` process; peak RSS is that process's (resource.getrusage of a wrapper's child).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, bytecode_env, cache_dir, cli, row  # noqa: E402

BENCH = "ingest"
PYTHON = sys.executable
SMOKE = {"megabytes": 0.2}  # tests/test_bench_smoke.py
FULL_MB, QUICK_MB = 100, 10
SEED = 27

PEOPLE = ["Sam", "Ada", "Kofi", "Ines", "Lars", "Priya", "Maya", "Tomas"]
CITIES = ["Rotterdam", "Lisbon", "Utrecht", "Oslo", "Madrid", "Warsaw", "Dublin", "Porto"]
TOOLS = ["ruff", "pytest", "Postgres", "Redis", "Caddy", "Docker", "Helix", "Neovim", "FastAPI", "Sentry"]
THINGS = ["hiking", "gardening", "chess", "jazz", "cycling", "baking bread", "climbing", "photography"]
SAID = [
    "I prefer {tool} over the alternatives for this project.",
    "I live in {city} with my partner {person}.",
    "We decided to use {tool} for the events service.",
    "I need to renew my passport before the trip to {city}.",
    "Please always answer in British English.",
    "I love {thing} on weekends.",
    "I finished the migration of the billing tables yesterday.",
    "Can you look at the failing test in tests/api/test_api.py?",
    "Thanks, that works now.",
    "Let's use {tool} for linting from now on.",
    "My sister {person} is visiting next week.",
    "Why does the build take so long on CI?",
    "Actually, I moved to {city} last month.",
    "I'm going to present the roadmap to the team on Friday.",
]


def said(rng: random.Random) -> str:
    return " ".join(rng.choice(SAID).format(tool=rng.choice(TOOLS), city=rng.choice(CITIES),
                                            person=rng.choice(PEOPLE), thing=rng.choice(THINGS))
                    for _ in range(rng.randint(1, 3)))


def tool_output(rng: random.Random) -> str:
    """What dominates a coding session's bytes: a file read or a command's output."""
    lines = [f"    {rng.choice(['def', 'return', 'assert', 'import', 'class'])} name_{rng.randrange(10**6)}"
             f"(value={rng.randrange(1000)})  # {rng.choice(TOOLS)}" for _ in range(rng.randint(40, 400))]
    return "\n".join(lines)


def claude_session(rng: random.Random, number: int) -> list[dict]:
    session = f"{number:08x}-1b7d-4c39-9a51-{rng.randrange(16**12):012x}"
    base = {"sessionId": session, "cwd": "/home/sam/app", "version": "2.0.31", "isSidechain": False,
            "userType": "external", "gitBranch": "main"}
    records: list[dict] = [{"type": "summary", "summary": "work", "leafUuid": "x"}]
    for turn in range(rng.randint(10, 40)):
        stamp = f"2026-{1 + number % 12:02d}-{1 + turn % 28:02d}T10:{turn % 60:02d}:00.000Z"
        records.append({**base, "type": "user", "uuid": f"u-{number}-{turn}", "timestamp": stamp,
                        "message": {"role": "user", "content": said(rng)}})
        for step in range(rng.randint(1, 4)):
            tool_id = f"toolu_{number}_{turn}_{step}"
            records.append({**base, "type": "assistant", "uuid": f"a-{number}-{turn}-{step}", "timestamp": stamp,
                            "message": {"role": "assistant", "content": [
                                {"type": "thinking", "thinking": "Let me look. " * rng.randint(5, 40)},
                                {"type": "tool_use", "id": tool_id, "name": "Read", "input": {"file_path": "a.py"}}]}})
            records.append({**base, "type": "user", "uuid": f"r-{number}-{turn}-{step}", "timestamp": stamp,
                            "toolUseResult": {"type": "text"}, "message": {"role": "user", "content": [
                                {"type": "tool_result", "tool_use_id": tool_id, "content": tool_output(rng)}]}})
        records.append({**base, "type": "assistant", "uuid": f"t-{number}-{turn}", "timestamp": stamp,
                        "message": {"role": "assistant", "content": [{"type": "text", "text": "Done. " * 30}]}})
    return records


def codex_session(rng: random.Random, number: int) -> list[dict]:
    stamp = f"2026-{1 + number % 12:02d}-11T09:00:00.000Z"
    records: list[dict] = [{"timestamp": stamp, "type": "session_meta",
                            "payload": {"id": f"0199{number:04x}-7c3e-7b40-9f12-{number:012x}", "cwd": "/w"}}]
    for turn in range(rng.randint(10, 40)):
        records.append({"timestamp": stamp, "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": said(rng)}]}})
        records.append({"timestamp": stamp, "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "arguments": "{}", "call_id": f"c{turn}"}})
        records.append({"timestamp": stamp, "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": f"c{turn}", "output": tool_output(rng)}})
        records.append({"timestamp": stamp, "type": "response_item", "payload": {
            "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Ran it. " * 20}]}})
    return records


def nanobot_session(rng: random.Random, number: int) -> list[dict]:
    records: list[dict] = [{"_type": "metadata", "key": f"telegram:{number}", "created_at": "2026-03-01T08:00:00",
                            "updated_at": "2026-03-01T09:00:00", "metadata": {}, "last_consolidated": 0}]
    for turn in range(rng.randint(10, 60)):
        stamp = f"2026-03-{1 + number % 28:02d}T08:{turn % 60:02d}:{number % 60:02d}.{turn:06d}"
        records.append({"role": "user", "content": said(rng), "timestamp": stamp})
        records.append({"role": "tool", "content": tool_output(rng), "tool_call_id": f"c{turn}", "timestamp": stamp})
        records.append({"role": "assistant", "content": "Noted. " * 15, "timestamp": stamp})
    return records


def openai_session(rng: random.Random, number: int) -> list[dict]:
    records: list[dict] = [{"role": "system", "content": "You are helpful.", "session": f"web-{number}"}]
    for turn in range(rng.randint(20, 80)):
        stamp = f"2026-05-{1 + number % 28:02d}T21:{turn % 60:02d}:00Z"
        records.append({"role": "user", "content": said(rng), "timestamp": stamp, "session": f"web-{number}"})
        records.append({"role": "assistant", "content": "Here you go. " * 25, "timestamp": stamp,
                        "session": f"web-{number}"})
    return records


KINDS = [("claude-code", claude_session, "claude/-home-sam-app/{n:08x}.jsonl"),
         ("codex", codex_session, "codex/2026/03/11/rollout-2026-03-11T09-00-00-{n:08x}.jsonl"),
         ("nanobot", nanobot_session, "nanobot/sessions/telegram_{n}.jsonl"),
         ("openai", openai_session, "openai/web-{n}.jsonl")]


def transcripts(megabytes: float) -> Path:
    """The seeded directory of `megabytes` MB, built once and kept in the bench cache."""
    folder = cache_dir() / f"ingest-{SEED}-{megabytes:g}mb"
    if (folder / ".complete").exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    rng, total, number = random.Random(SEED), 0, 0
    while total < megabytes * 1024 * 1024:
        _, make, pattern = KINDS[number % len(KINDS)]
        path = folder / pattern.format(n=number)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(record) + "\n" for record in make(rng, number))
        path.write_text(text, encoding="utf-8")
        total += len(text.encode())
        number += 1
    (folder / ".complete").write_text("")
    return folder


WRAPPER = ("import json, resource, subprocess, sys, time\n"
           "start = time.perf_counter()\n"
           "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
           "wall = time.perf_counter() - start\n"
           "print(json.dumps({'wall': wall, 'rss_kb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,\n"
           "                  'code': done.returncode, 'out': done.stdout, 'err': done.stderr[-2000:]}))\n")


def one_pass(folder: Path, workspace: Path, env: dict[str, str]) -> dict:
    argv = [PYTHON, "-c", WRAPPER, PYTHON, "-m", "nanodream", "ingest", str(folder), "-w", str(workspace), "--json"]
    measured = json.loads(subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout)
    if measured["code"] != 0:
        raise RuntimeError(f"nanodream ingest exited {measured['code']}: {measured['err']}")
    measured["report"] = json.loads(measured["out"])
    return measured


def main(quick: bool = False, megabytes: float | None = None) -> list[Row]:
    size_mb = megabytes if megabytes is not None else (QUICK_MB if quick else FULL_MB)
    folder = transcripts(size_mb)
    real_mb = sum(p.stat().st_size for p in folder.rglob("*.jsonl")) / 1024 / 1024
    with tempfile.TemporaryDirectory(prefix="nanodream-bench-ingest-") as tmp:
        env = bytecode_env(Path(tmp) / "pycache")
        workspace = Path(tmp) / "ws"
        subprocess.run([PYTHON, "-m", "nanodream", "init", str(workspace)], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        first = one_pass(folder, workspace, env)
        clock = time.perf_counter()
        second = one_pass(folder, workspace, env)
        second_wall = time.perf_counter() - clock
        history_mb = (workspace / "memory" / "history.jsonl").stat().st_size / 1024 / 1024
    added_again = second["report"]["added"]
    return [
        row(BENCH, f"first pass over {real_mb:.0f} MB of transcripts (builtin extractor)", first["wall"], "s"),
        row(BENCH, "throughput, first pass", real_mb / first["wall"], "MB/s"),
        row(BENCH, "peak RSS, first pass", first["rss_kb"] / 1024, "MB"),
        row(BENCH, "entries added / new messages", f"{first['report']['added']} / {first['report']['messages']}"),
        row(BENCH, "history written", history_mb, "MB"),
        row(BENCH, "second pass over the same directory", second_wall, "s"),
        row(BENCH, "entries added by the second pass", added_again, "", "0", added_again == 0),
    ]


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
