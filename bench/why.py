"""How fast `nanodream why` answers on a workspace with 1,000 dream commits.

Worst case for a blame: memory/MEMORY.md is touched by every one of the 1,000 dreams (each appends a
fact), and the line asked about was written by the very first, so git walks the whole history to credit
it. history.jsonl holds the 2,000 entries the dreams consumed (with their Dream-Offsets), so the answer
also reads back and ranks the entries. Built with one `git fast-import` stream; timed in-process and as a
fresh process (`python -m nanodream why`), median of several runs.

    python bench/why.py [--quick]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from typer.testing import CliRunner  # noqa: E402

from bench._common import cli, median_seconds, row  # noqa: E402
from bench.log_1000 import CLEAN_GIT_ENV, as_process, import_commits, in_process  # noqa: E402
from nanodream.cli import app  # noqa: E402
from nanodream.workspace import Workspace  # noqa: E402

TARGET_S = 1.0


def history(commits: int) -> tuple[bytes, list[int]]:
    """Two entries per dream; returns the file and the byte offset where each line starts (plus the end)."""
    lines, offsets, size = [], [], 0
    for n in range(1, 2 * commits + 1):
        text = f"[durable] memory/MEMORY.md: the project keeps decision {(n + 1) // 2}" if n % 2 else "chat"
        line = json.dumps({"cursor": n, "timestamp": "2026-10-01 10:00", "content": text,
                           "session_key": "cli:direct"}) + "\n"
        offsets.append(size)
        size += len(line.encode())
        lines.append(line)
    return "".join(lines).encode(), offsets + [size]


def message(i: int, offsets: list[int]) -> str:
    first, last = 2 * i - 1, 2 * i
    return "\n".join([
        f"dream: Filed decision {i}", "", "Dream-Kind: dream", f"Dream-Run: 20261001T000000Z-{i:06x}",
        f"Dream-Cursor: {first}..{last}", f"Dream-Lines: {first}..{last}",
        f"Dream-Offsets: {offsets[first - 1]}..{offsets[last]}", f"Dream-Position: {offsets[last]}",
    ]) + "\n"


def build(root: Path, commits: int) -> tuple[Workspace, float]:
    clock = time.perf_counter()
    data, offsets = history(commits)
    out = bytearray()
    facts = ""
    for i in range(1, commits + 1):
        facts += f"- the project keeps decision {i}\n"
        memory = ("# Memory\n\nProject context.\n\n## Project\n" + facts).encode()
        text = message(i, offsets).encode()
        out += b"commit refs/heads/main\ncommitter nanodream <nanodream@localhost> %d +0000\n" % (1_790_000_000 + i)
        out += b"data %d\n%s\n" % (len(text), text)
        out += b"from refs/heads/main^0\n" if i == 1 else b""
        out += b"M 100644 inline memory/MEMORY.md\ndata %d\n%s\n" % (len(memory), memory)
    workspace = import_commits(root, bytes(out))
    workspace.history_file.write_bytes(data)
    return workspace, time.perf_counter() - clock


def main(quick: bool = False, commits: int | None = None, repeats: int | None = None) -> list[dict]:
    commits = commits or (200 if quick else 1000)
    repeats = repeats or (3 if quick else 7)
    with tempfile.TemporaryDirectory(prefix="nanodream-bench-") as tmp:
        workspace, build_s = build(Path(tmp) / "ws", commits)
        ws = str(workspace.root)
        rows = [row("why", f"build {commits} dream commits (git fast-import)", build_s, "s")]
        answer = json.loads(CliRunner().invoke(app, ["why", "memory/MEMORY.md:6", "-w", ws, "--json"]).stdout)
        first = subprocess.run(["git", "-C", ws, "rev-list", "--reverse", "HEAD"], capture_output=True, text=True,
                               check=True, env=CLEAN_GIT_ENV).stdout.split()[1]
        assert answer["commit"] == first and answer["entries"][0]["cursor"] == 1, answer  # the right answer, fast
        cases = [
            ("why TEXT, line of the first dream", ["why", "keeps decision 1", "-w", ws, "--json"]),
            ("why TEXT, line of the last dream", ["why", f"keeps decision {commits}", "-w", ws, "--json"]),
            ("why FILE:LINE, first dream's line", ["why", "memory/MEMORY.md:6", "-w", ws, "--json"]),
        ]
        for label, args in cases:
            inner = median_seconds(lambda a=args: in_process(a), repeats)
            outer = median_seconds(lambda a=args: as_process(a), repeats)
            rows.append(row("why", f"{label}, in-process", inner, "s"))
            rows.append(row("why", f"{label}, process", outer, "s", f"<= {TARGET_S} s", outer <= TARGET_S))
    return rows


SMOKE = {"commits": 5, "repeats": 1}

if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
