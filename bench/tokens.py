"""Tokens: what each request to the model carries, split into fixed overhead and history payload.

Every figure comes from the requests a scripted OpenAI-compatible server actually received from a real
run (litellm over HTTP), not from re-rendering the prompt here, so it stays true when the prompt changes.
Counts use nanodream's own estimate (chars / 4) and, when it works offline, litellm's tokenizer
(`token_counter`, which bundles OpenAI's cl100k_base; gpt-4o's o200k_base differs by a few per cent).

- first request of the example workspace: system prompt, tool schemas, memory files, skills index, framing,
  history payload; and the share of it that is a stable, cacheable prefix;
- prompt tokens per history entry over a full drain (the model answers "nothing to change", and to the no-op
  check's question one reason per fact; the per-entry figures count each batch's opening request only);
- what a typical multi-turn session re-sends (a read_file of a file already in the first message);
- `[skip]` lines never reach the model.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench._common import REPO, Row, cli, row  # noqa: E402
from nanodream.backlog.history import TAG_LINE, estimate_tokens, next_batch  # noqa: E402
from nanodream.backlog.position import Position  # noqa: E402
from nanodream.config import Settings  # noqa: E402
from nanodream.run.dream import run_dream  # noqa: E402
from nanodream.run.report import RunReport  # noqa: E402
from nanodream.workspace import CORE_FILES, Workspace, scaffold  # noqa: E402
from tests.support.scripted_server import ScriptedServer, call, final, keeps_nothing  # noqa: E402

BENCH = "tokens"
MODEL = "openai/gpt-4o-mini"  # only names the tokenizer; the scripted server answers every request
SMOKE = {"drain_entries": 100}  # tests/test_bench_smoke.py
ENTRY_STAMP = re.compile(r"^\[#\d+ [^\]]*\] ")  # `[#12 08:20] ` or `[#12 2026-10-05 08:20 telegram:4711] `
EXAMPLE_HISTORY = REPO / "workspace-example" / "memory" / "history.jsonl"


class Counter:
    """Tokens of a text by nanodream's estimate and, if it works offline, by litellm's tokenizer."""

    def __init__(self) -> None:
        self.note = ""
        try:
            import litellm

            litellm.disable_hf_tokenizer_download = True
            self._litellm = litellm
            litellm.token_counter(model=MODEL, text="probe")
        except Exception as exc:  # no bundled tokenizer and no network: the estimate is all there is
            self._litellm = None
            self.note = f"tokenizer unavailable offline ({type(exc).__name__}); estimate only"

    @property
    def real(self) -> bool:
        return self._litellm is not None

    @staticmethod
    def estimate(text: str) -> int:
        return estimate_tokens(text)

    def count(self, text: str) -> int:
        return self._litellm.token_counter(model=MODEL, text=text) if self._litellm else self.estimate(text)

    def request(self, body: dict[str, Any]) -> int:
        """Prompt tokens of one request: messages with their framing, plus the tool schemas."""
        if not self._litellm:
            return self.estimate(json.dumps(body["messages"])) + self.estimate(json.dumps(body.get("tools", [])))
        return self._litellm.token_counter(model=MODEL, messages=body["messages"], tools=body.get("tools"))


def drain(ws: Workspace, script: list) -> tuple[RunReport, list[dict[str, Any]]]:
    """Run dreams until the backlog is empty; return the report and every request the server received."""
    with ScriptedServer(script) as server:
        settings = Settings(model=MODEL, api_base=server.url, api_key="bench", max_retries=0, timeout=30.0,
                            max_batches=1000, max_run_tokens=10**9)
        report = run_dream(ws, settings)
        requests = list(server.requests)
    if report.outcome in ("failed", "busy"):
        raise RuntimeError(f"drain failed: {report.reason}")
    return report, requests


def opening(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each session's first request (system + user message): not tool turns, not the accounting's question."""
    return [body for body in requests if len(body["messages"]) == 2]


def nothing_to_change(batches: int) -> list:
    """A model that files nothing and, asked by the accounting, says why for each fact: two requests a batch."""
    return [keeps_nothing("Nothing to change in memory for this batch.", "a passing remark, not a lasting fact")] * (
        2 * batches)


def history_start(user: str, other_user: str) -> int:
    """Where the per-batch part of a user message starts: the line where two batches' messages diverge."""
    same = 0
    while same < min(len(user), len(other_user)) and user[same] == other_user[same]:
        same += 1
    return user.rfind("\n", 0, same) + 1


def split_first_request(ws: Workspace, first: dict[str, Any], other: dict[str, Any]) -> tuple[dict[str, str], bool]:
    """The first request's text by part, and whether memory and skills all come before the history.

    The history payload is what differs from another batch's request; memory files and skill index lines
    are found by their content, so a reworded prompt still splits.
    """
    system, user = first["messages"][0]["content"], first["messages"][1]["content"]
    cut = history_start(user, other["messages"][1]["content"])
    fixed, history = user[:cut], user[cut:]
    framing, memory, missing = fixed, [], 0
    for path in CORE_FILES:
        text = (ws.root / path).read_text(encoding="utf-8").strip()
        if text and text in framing:
            memory.append(text)
            framing = framing.replace(text, "", 1)
        elif text:
            missing += 1
    names = [p.name for p in sorted((ws.root / "skills").iterdir()) if (p / "SKILL.md").is_file()]
    index = [line for line in fixed.splitlines() if any(name in line for name in names)]
    missing += sum(1 for name in names if not any(name in line for line in index))
    for line in index:
        framing = framing.replace(line, "", 1)
    parts = {"system prompt": system, "tool schemas": json.dumps(first.get("tools", [])),
             "memory files": "\n".join(memory), "skills index": "\n".join(index),
             "framing (headings, tags, sizes)": framing, "history payload": history}
    return parts, missing == 0 and bool(memory)


def example_workspace(root: Path, history: list[str] | None = None) -> Workspace:
    """The example workspace; `history` replaces its history.jsonl lines when given."""
    ws = Workspace.at(root)
    scaffold(ws.root, example=True)
    if history is not None:
        ws.history_file.write_text("".join(line + "\n" for line in history), encoding="utf-8")
    return ws


def example_entries(count: int) -> list[str]:
    """`count` history lines cycling through the example's well-formed entries, renumbered."""
    samples = []
    for raw in EXAMPLE_HISTORY.read_text(encoding="utf-8").splitlines():
        try:
            samples.append(json.loads(raw))
        except ValueError:
            continue
    return [json.dumps({**samples[i % len(samples)], "cursor": i + 1}) for i in range(count)]


def skip_texts(history: Path) -> list[str]:
    """The text of every `[skip]` line in a history file."""
    found = []
    for raw in history.read_text(encoding="utf-8").splitlines():
        try:
            content = json.loads(raw)["content"]
        except (ValueError, KeyError, TypeError):
            continue
        for line in content.splitlines():
            match = TAG_LINE.match(line)
            if match and match.group(1).lower() == "skip":
                found.append(line[match.end():].strip())
    return found


def first_request_rows(counter: Counter, unit: str, tmp: Path) -> tuple[list[Row], int]:
    """The example's first request by part; also returns its fixed overhead in tokens."""
    ws = example_workspace(tmp / "example")
    skips = skip_texts(ws.history_file)
    report, requests = drain(ws, nothing_to_change(50))
    requests = opening(requests)
    _, other = drain(example_workspace(tmp / "other", example_entries(1)), nothing_to_change(1))
    parts, stable_first = split_first_request(ws, requests[0], other[0])
    total = counter.request(requests[0])
    messages_only = counter.request({"messages": requests[0]["messages"]})
    rows = [row(BENCH, "example, first request: total", total, unit)]
    for name, text in parts.items():
        tokens = total - messages_only if name == "tool schemas" and counter.real else counter.count(text)
        rows.append(row(BENCH, f"  {name}", tokens, unit, f"est. {counter.estimate(text):,}"))
    history = parts["history payload"]
    stamps = "\n".join(match.group(0) for line in history.splitlines() if (match := ENTRY_STAMP.match(line)))
    if stamps:
        rows.append(row(BENCH, "    of which entry stamps [#cursor (day) time (session)]", counter.count(stamps), unit))
    batch = next_batch(ws.history_file, Position(), Settings().batch_tokens)
    rows.append(row(BENCH, "    batch-budget estimate of the payload (entries + 12 each)",
                    batch.estimated_tokens if batch else 0, "tokens (est.)"))
    fixed = total - counter.count(history)
    rows.append(row(BENCH, "  fixed overhead (everything but the history)", fixed, unit))
    rows.append(row(BENCH, "stable part first (system, tools, memory, skills; then history)",
                    f"{fixed / total:.0%} of the request is a stable prefix", "", "stable prefix first", stable_first))
    sent = sum(counter.request(r) for r in requests)
    rows.append(row(BENCH, f"example drain: {len(requests)} request(s) for {report.entries} entries",
                    sent / report.entries, f"{unit}/entry"))
    leaked = [text for text in skips if any(text in r["messages"][1]["content"] for r in requests)]
    rows.append(row(BENCH, f"[skip] lines sent to the model ({len(skips)} in the example)", len(leaked), "", "0",
                    not leaked))
    return rows, fixed


def drain_rows(counter: Counter, unit: str, tmp: Path, entries: int, fixed: int) -> list[Row]:
    """Prompt tokens per entry over a drain of many example-like entries, and the fixed overhead's share."""
    report, everything = drain(example_workspace(tmp / "drain", example_entries(entries)), nothing_to_change(1000))
    requests = opening(everything)
    sent = sum(counter.request(r) for r in requests)
    return [row(BENCH, f"drain of {entries:,} entries: {len(requests)} batches", sent / report.entries,
                f"{unit}/entry", f"fixed overhead {fixed * len(requests) / sent:.0%} of it")]


def session_rows(counter: Counter, unit: str, tmp: Path) -> list[Row]:
    """What a typical three-turn session is billed, and what its tool results repeat from the first message."""
    script = [call("read_file", path="USER.md"),
              call("edit_file", path="USER.md", old_text="- Prefers concise answers.\n",
                   new_text="- Prefers concise answers in British English.\n"),
              final("Sharpened a preference\n- USER.md: British English")]
    _, requests = drain(example_workspace(tmp / "session"), script + nothing_to_change(10))
    session = requests[:3]
    shown = session[0]["messages"][1]["content"]
    repeated = [m["content"] for m in session[-1]["messages"]
                if m.get("role") == "tool" and len(m["content"]) > 40 and m["content"].strip() in shown]
    return [
        row(BENCH, "3-turn session (read_file, edit_file, answer): prompt tokens billed",
            sum(counter.request(r) for r in session), unit, f"first turn alone {counter.request(session[0]):,}"),
        row(BENCH, "  tool results repeating a file already in the first message",
            sum(counter.count(text) for text in repeated), f"{unit} per later turn"),
    ]


def main(quick: bool = False, drain_entries: int | None = None) -> list[Row]:
    drain_entries = drain_entries or (300 if quick else 1000)
    counter = Counter()
    unit = "tokens" if counter.real else "tokens (est.)"
    rows = [row(BENCH, "tokenizer", counter.note)] if counter.note else []
    with tempfile.TemporaryDirectory(prefix="nanodream-tokens-") as tmp:
        first, fixed = first_request_rows(counter, unit, Path(tmp))
        rows += first
        rows += drain_rows(counter, unit, Path(tmp), drain_entries, fixed)
        rows += session_rows(counter, unit, Path(tmp))
    return rows


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
