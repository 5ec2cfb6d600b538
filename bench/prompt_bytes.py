"""Request bytes per history entry: what one more entry adds to the first model request, and what is fixed.

Method: a fresh workspace (starter files) with a history of 1 and of 20 entries — each a one-line tagged fact
of 60–90 characters, distinct, with a timestamp and a session key — in two patterns: `shared`, 5 sessions over
3 days, and `apart`, every entry on its own day in its own session. The first request is rendered by the
run's own code path (`prompt --rendered`); its bytes are system prompt + user message + the tools' JSON
schemas, UTF-8. per entry = (B20 − B1) / 19, so the signals' growth counts too; fixed = B1 − per entry
(shared). Framing: the bytes the history block spends on an entry besides its text, beyond its session key.
Targets: fixed ≤ 7,000 B; per entry ≤ 150 B (shared) and ≤ 178 B (apart, nanobot's figure); framing ≤ 30 B.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, cli, row  # noqa: E402
from nanodream.config import Settings  # noqa: E402
from nanodream.memory.transaction import ensure_repository  # noqa: E402
from nanodream.prompting.prompt import render_next_request  # noqa: E402
from nanodream.toolbox.tools import TOOLS  # noqa: E402
from nanodream.versioning.gitstore import GitStore  # noqa: E402
from nanodream.workspace import Workspace, scaffold  # noqa: E402

BENCH = "prompt-bytes"
TARGET_PER_ENTRY = 150
TARGET_PER_ENTRY_APART = 178  # nanobot 0.3.5's own Dream on such a history
TARGET_FIXED = 7000
TARGET_FRAMING = 30  # bytes per entry besides its text, beyond its session key
SMOKE: dict = {}
SUBJECTS = ("billing service", "search API", "mobile app", "data pipeline", "staging cluster", "design system",
            "auth gateway", "weekly report", "on-call rota", "CI runners")
FACTS = ("The {s} moved to the Frankfurt region after the October outage.",
         "Maya wants the {s} reviewed before any Friday deploy.",
         "The {s} owner is Jonas from the platform team since last week.",
         "Task: migrate the {s} secrets to the vault (in progress).")
TAGS = ("durable", "permanent", "durable", "ephemeral")


def history(entries: int, apart: bool = False) -> list[dict]:
    """`entries` facts: 5 sessions over 3 days, or (`apart`) each on its own day in its own session."""
    rows = []
    for i in range(entries):
        text = FACTS[i % len(FACTS)].format(s=SUBJECTS[i // len(FACTS) % len(SUBJECTS)])
        day = date(2026, 9, 1) + timedelta(days=i) if apart else date(2026, 10, 1 + i * 3 // entries)
        session = 4200 + (i if apart else i * 5 // entries)
        rows.append({"cursor": i + 1, "timestamp": f"{day} {9 + i % 9:02d}:{i * 7 % 60:02d}",
                     "session_key": f"telegram:{session}", "content": f"[{TAGS[i % 4]}] {text}"})
    return rows


@dataclass(frozen=True)
class Rendered:
    total: int  # bytes of the first request: system prompt, user message, tool schemas
    framing: float  # bytes per entry the history block spends besides the entry's text, beyond its session key


def request_bytes(entries: int, apart: bool = False) -> Rendered:
    rows = history(entries, apart)
    with tempfile.TemporaryDirectory(prefix="nanodream-bytes-") as tmp:
        ws = Workspace.at(Path(tmp))
        scaffold(ws.root)
        ensure_repository(GitStore(ws))
        ws.history_file.write_text("".join(json.dumps(e) + "\n" for e in rows), encoding="utf-8")
        request = render_next_request(ws, Settings(model="openai/any"))
    total = sum(len(part.encode()) for part in (request.system, request.user, json.dumps(TOOLS.schemas())))
    inside = request.user.split("<history>\n", 1)[1].split("</history>", 1)[0]
    texts = sum(len(e["content"].encode()) + len(e["session_key"].encode()) for e in rows)
    return Rendered(total, (len(inside.encode()) - texts) / entries)


def main(quick: bool = False) -> list[Row]:
    rows = []
    for apart, target in ((False, TARGET_PER_ENTRY), (True, TARGET_PER_ENTRY_APART)):
        name = "apart" if apart else "shared"
        one, twenty = request_bytes(1, apart), request_bytes(20, apart)
        per_entry = (twenty.total - one.total) / 19
        rows += [row(BENCH, f"{name}: B1, first request with 1 entry", one.total, "B"),
                 row(BENCH, f"{name}: B20, first request with 20 entries", twenty.total, "B"),
                 row(BENCH, f"{name}: per entry (B20 − B1) / 19", round(per_entry, 1), "B", f"≤ {target} B",
                     per_entry <= target),
                 row(BENCH, f"{name}: history framing per entry beyond its session key", round(twenty.framing, 1),
                     "B", f"≤ {TARGET_FRAMING} B", twenty.framing <= TARGET_FRAMING)]
        if not apart:
            fixed = one.total - per_entry
            rows.append(row(BENCH, "fixed (B1 − per entry), shared", round(fixed), "B", f"≤ {TARGET_FIXED:,} B",
                            fixed <= TARGET_FIXED))
    return rows


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
