"""Serial drain: a 100-entry backlog on a mature workspace, dreamed by a model that makes its edits one per turn.

Issue 49's scenario. The workspace is bench/session_cost.py's mature one (MEMORY.md 20 KB, USER.md 3 KB, SOUL.md
2 KB, 15 skills); the backlog is bench/prompt_bytes.py's 100 entries (5 sessions over 3 days, 30 distinct facts and
10 tasks, repeated). The scripted model behind tests/support/scripted_server.py files each fact of its batch that
memory lacks with one `edit_file` per turn, then answers with its summary — what nanobot's own model did — and the
server reports usage by the request's size (a token per 4 bytes), so the session token budget (150,000) bites as
it would. Runs follow one another (default settings) until the backlog is drained, at most `max_runs`.

Figures: runs, batches, requests and bytes sent in all (request bodies as the server received them), sessions a
cap stopped, and whether any session was sent again on the same entries after failing for the same cause.
Targets (issue 49): drained within three runs, no failed session resent, ≤ 1.3 MB in all (nanobot 0.3.5: 1.63 MB).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench._common import Row, cli, row  # noqa: E402
from bench.session_cost import ANCHOR, batch_facts, workspace  # noqa: E402
from nanodream.config import Settings  # noqa: E402
from nanodream.run.dream import run_dream  # noqa: E402
from tests.support.scripted_server import ScriptedServer, Step, final, tool_calls  # noqa: E402

BENCH = "serial-drain"
SMOKE = {"entries": 8, "max_runs": 2}  # tests/test_bench_smoke.py
TARGET_RUNS = 3
TARGET_BYTES = 1_300_000
NANOBOT_BYTES = 1_630_000  # nanobot 0.3.5's own Dream on the same drain (issue 49)
BYTES_PER_TOKEN = 4


def _user_text(body: dict[str, Any]) -> str:
    content = body["messages"][1].get("content") or ""
    return "".join(block.get("text", "") for block in content) if isinstance(content, list) else content


def serial_model() -> Callable[[dict[str, Any]], Step]:
    """One edit per turn, each filing one fact of the batch that the memory files shown do not hold, then the
    summary; usage reported by size."""

    def respond(body: dict[str, Any]) -> Step:
        shown = _user_text(body)
        facts = [fact for fact in batch_facts(body) if f"- {fact}" not in shown]
        turn = sum(1 for message in body["messages"] if message.get("role") == "assistant")
        if turn < len(facts):
            step = tool_calls(("edit_file", {"path": "memory/MEMORY.md", "old_text": ANCHOR,
                                             "new_text": f"{ANCHOR}- {facts[turn]}\n"}))
        else:
            step = final(f"Filed {len(facts)} facts\n" + "".join(f"- memory/MEMORY.md: {f}\n" for f in facts))
        step["usage"] = (len(json.dumps(body)) // BYTES_PER_TOKEN, 60)
        return step

    return respond


def drain(entries: int, max_runs: int) -> dict[str, Any]:
    """Runs until the backlog is empty (or `max_runs`): what they sent, and whether a failed session came back."""
    with tempfile.TemporaryDirectory(prefix="nanodream-serial-drain-") as tmp:
        ws = workspace(Path(tmp) / "ws", "mature", entries)
        runs, batches, failed, resent = 0, 0, [], False
        with ScriptedServer([serial_model()] * 10_000) as server:
            settings = Settings(model="openai/bench-serial", api_base=server.url, api_key="bench", max_retries=0,
                                timeout=60.0)
            while runs < max_runs:
                report = run_dream(ws, settings)
                runs += 1
                if report.outcome == "nothing-to-do":
                    runs -= 1
                    break
                for batch in report.batches:
                    batches += 1
                    cause = _cap(batch.reason)
                    if cause:
                        span = (batch.first_line, batch.last_line, cause)
                        resent |= span in failed
                        failed.append(span)
            pending = json.loads(_status(ws))["pending_entries"]
        return {"runs": runs, "batches": batches, "requests": len(server.sizes), "bytes": sum(server.sizes),
                "failed": len(failed), "resent": resent, "pending": pending}


def _cap(reason: str) -> str:
    """The cap a failed session met, from its reason (so the same bench runs on a checkout before run/sizing.py)."""
    return "tokens" if "session token budget" in reason else "calls" if "tool-call cap" in reason else ""


def _status(ws: Any) -> str:
    from nanodream import api

    return json.dumps(api.status(ws.root).to_json())


def main(quick: bool = False, entries: int = 100, max_runs: int = 6) -> list[Row]:
    found = drain(entries, max_runs)
    drained = found["pending"] == 0
    return [
        row(BENCH, f"{entries} entries, serial model: runs to drain", found["runs"] if drained else "not drained",
            "", f"≤ {TARGET_RUNS}", drained and found["runs"] <= TARGET_RUNS),
        row(BENCH, "  batches (failed sessions among them)", f"{found['batches']} ({found['failed']})"),
        row(BENCH, "  a failed session sent again on the same entries", "yes" if found["resent"] else "no", "",
            "no", not found["resent"]),
        row(BENCH, "  requests", found["requests"]),
        row(BENCH, "  bytes sent in all", found["bytes"], "B", f"≤ {TARGET_BYTES:,} (nanobot {NANOBOT_BYTES:,})",
            found["bytes"] <= TARGET_BYTES if entries == 100 else None),
    ]


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
