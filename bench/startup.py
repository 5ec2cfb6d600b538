"""CLI start-up: `nanodream --help` and `nanodream status` as real processes, against `python -c pass`.

Target: status and --help ≤ floor + 0.15 s, and litellm never imported on these paths. Each command runs in a fresh
interpreter (median of N runs after a warm-up); `python -X importtime` names the heaviest imports.

Reported too, what a run that calls a model pays: `import litellm` in a process of its own, the same import as
nanodream does it (engines/llm.py), and a whole `nanodream run --dry-run` of one batch against a scripted
OpenAI-compatible server on 127.0.0.1 that answers in one response (the dry run changes nothing, so every
repetition does the same work).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, bytecode_env, child_env, cli, process_medians, row  # noqa: E402
from tests.support.scripted_server import ScriptedServer, final, reason_per_fact, tool_calls  # noqa: E402

BENCH = "startup"
TARGET_OVER_FLOOR = 0.15
PYTHON = sys.executable
NANODREAM = (PYTHON, "-m", "nanodream")
SMOKE = {"repeats": 1}  # tests/test_bench_smoke.py: the quickest run that still exercises every path


def example_workspace(root: Path) -> Path:
    """The example workspace with its git repository and one run record, as a user would have it."""
    ws = root / "ws"
    code = (
        "import sys; from pathlib import Path\n"
        "from nanodream.workspace import Workspace, scaffold\n"
        "from nanodream.versioning.gitstore import GitStore\n"
        "from nanodream.memory.transaction import ensure_repository\n"
        "from nanodream.run.records import append_record\n"
        "from nanodream.vocab import RunRecord\n"
        "ws = Workspace.at(sys.argv[1]); scaffold(ws.root, example=True); ensure_repository(GitStore(ws))\n"
        "append_record(ws, RunRecord(id='bench', start='2026-10-06T00:00:00+00:00', trigger='manual',\n"
        "                            outcome='no-change', end='2026-10-06T00:00:00+00:00'))\n"
    )
    subprocess.run([PYTHON, "-c", code, str(ws)], env=child_env(), check=True)
    return ws


def imports_of(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    """Packages the program and nanodream import directly, each with its cumulative import time in seconds.

    `-X importtime` prints children before parents; walking it backwards yields parents first, so each
    import can be attributed to the first package outside nanodream on its path (typer, git, ...).
    """
    done = subprocess.run([PYTHON, "-X", "importtime", *argv[1:]], env=env, capture_output=True,
                          text=True, check=True)
    packages: dict[str, float] = {}
    stack: list[tuple[int, str]] = []
    for line in reversed(done.stderr.splitlines()):
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( +)(\S+)$", line)
        if not match:
            continue
        depth, package = len(match.group(2)), match.group(3).split(".")[0]
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if package != "nanodream" and all(parent == "nanodream" for _, parent in stack):
            packages[package] = packages.get(package, 0.0) + int(match.group(1)) / 1e6
        stack.append((depth, package))
    return packages


def answer(body: dict) -> dict:
    """An edit with its summary beside it (one request now; before one-response sessions, a second request got
    the summary alone); the per-fact accounting then asks about the batch's other facts, answered with a reason
    for each (a second request)."""
    if any(message["role"] == "assistant" for message in body["messages"]):
        return final(reason_per_fact(body["messages"][-1]["content"], "a passing remark, not a lasting fact"))
    step = tool_calls(("edit_file", {"path": "memory/MEMORY.md", "old_text": "## Decisions\n",
                                     "new_text": "## Decisions\n- Releases are tagged from main.\n"}))
    step["message"]["content"] = "Noted how releases are tagged"
    return step


def model_run_rows(ws: Path, env: dict[str, str], repeats: int) -> list[Row]:
    """What a process that calls a model pays for litellm, and a whole dry run of one batch."""
    with ScriptedServer([answer] * (10 * repeats + 10)) as server:
        model_env = {**env, "NANODREAM_MODEL": "openai/scripted", "NANODREAM_API_BASE": server.url,
                     "NANODREAM_API_KEY": "bench", "NANODREAM_MAX_RETRIES": "0"}
        medians = process_medians({
            "python -c 'import litellm'": [PYTHON, "-c", "import litellm"],
            "litellm imported as nanodream does (engines/llm.py)":
                [PYTHON, "-c", "from nanodream.process import become_program; become_program()\n"
                                   "from nanodream.engines.llm import _import_litellm; _import_litellm()"],
            "nanodream run --dry-run, one batch, 2 model requests": [*NANODREAM, "run", "--dry-run", "-w", str(ws)],
        }, repeats, env=model_env)
    return [row(BENCH, name, timing.wall, "s", f"cpu {timing.cpu:.3f} s") for name, timing in medians.items()]


def main(quick: bool = False, repeats: int | None = None) -> list[Row]:
    repeats = repeats or (5 if quick else 15)
    with tempfile.TemporaryDirectory(prefix="nanodream-startup-") as tmp:
        ws = example_workspace(Path(tmp))
        commands = {
            "nanodream --help": [*NANODREAM, "--help"],
            "nanodream status": [*NANODREAM, "status", "-w", str(ws)],
            "nanodream status --json": [*NANODREAM, "status", "-w", str(ws), "--json"],
        }
        env = bytecode_env(Path(tmp) / "pycache")
        medians = process_medians({"floor": [PYTHON, "-c", "pass"], **commands}, repeats, env=env)
        floor = medians.pop("floor")
        rows = [row(BENCH, f"floor: python -c pass (median of {repeats})", floor.wall, "s",
                    f"cpu {floor.cpu:.3f} s")]
        for name, timing in medians.items():
            rows.append(row(BENCH, name, timing.wall, "s", f"≤ floor + {TARGET_OVER_FLOOR} s",
                            timing.wall - floor.wall <= TARGET_OVER_FLOOR))
            rows.append(row(BENCH, f"  {name}: cpu time (user+sys)", timing.cpu, "s",
                            f"≤ floor + {TARGET_OVER_FLOOR} s", timing.cpu - floor.cpu <= TARGET_OVER_FLOOR))
        for name in ("nanodream --help", "nanodream status"):
            packages = imports_of(commands[name], env)
            rows.append(row(BENCH, f"{name}: imports litellm", "yes" if "litellm" in packages else "no", "",
                            "no", "litellm" not in packages))
        heaviest = sorted(packages.items(), key=lambda kv: -kv[1])[:5]
        rows.append(row(BENCH, "status: heaviest imports (-X importtime)",
                        ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in heaviest)))
        rows += model_run_rows(ws, env, max(2, repeats // 3))
    return rows


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
