"""Session cost: the requests one dream session sends, by workspace, backlog, edits and how the model works.

Method: a fresh workspace (the starter files) and a mature one (MEMORY.md 20 KB, USER.md 3 KB, SOUL.md 2 KB,
15 skills), each with a backlog of 1, 20 or 100 entries (one batch); a scripted model behind
tests/support/scripted_server.py makes K = 1, 5 or 10 edits of memory/MEMORY.md, either one call per turn and then its
summary (`serial`), or every call and the summary beside them in one response (`one response`). Every figure
comes from the request bodies the server received from a real run (litellm over HTTP):

- requests, bytes per session (the bodies' sizes as sent) and per consumed entry, through an OpenAI-style
  route (`openai/…`);
- cacheable share: of all the bytes a session sends, those that repeat a prefix an earlier request of the run
  already sent (tools, system prompt, messages in that order) — what automatic prefix caching can serve;
- billed input: the same session through litellm's Anthropic route (`anthropic/…` against the server's
  Messages endpoint), priced as Anthropic prices cache use — a read of a prefix an earlier request wrote at a
  breakpoint costs 0.1×, writing up to a `cache_control` breakpoint 1.25× (5-minute cache), the rest 1× — in
  KB-equivalents of full-price input. Each session starts a run with a cold cache: the worst case, a run
  alone in its five minutes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench._common import Row, cli, row  # noqa: E402
from bench.prompt_bytes import history  # noqa: E402
from nanodream.config import Settings  # noqa: E402
from nanodream.memory.transaction import ensure_repository  # noqa: E402
from nanodream.run.dream import run_dream  # noqa: E402
from nanodream.versioning.gitstore import GitStore  # noqa: E402
from nanodream.workspace import Workspace, scaffold  # noqa: E402
from tests.support.scripted_server import ScriptedServer, Step, final, tool_calls  # noqa: E402

BENCH = "session-cost"
SMOKE = {"workspaces": ("fresh",), "backlogs": (1,), "edits": (1,), "drain": False}  # tests/test_bench_smoke.py
DRAIN_BATCH_TOKENS = 800  # 100 entries of the mature drain in five batches
OPENAI = "openai/gpt-4o-mini"
CLAUDE = "anthropic/claude-haiku-4-5"
ANCHOR = "## Project\n"
READ, WRITE, REST = 0.1, 1.25, 1.0  # Anthropic's price of a cache read, a 5-minute cache write, plain input
# The targets of issue 26, on the mature workspace with 20 entries.
TARGET_ONE_RESPONSE_KB = 45  # one-response session, K = 10
TARGET_BILLED_SHARE = 0.4  # billed input of the K = 5 session, against the same session before the issue
BEFORE_BILLED_KB = 238.6  # that session before the issue: 6 requests, nothing cached (bench/README.md)


# workspaces ----------------------------------------------------------------------------------------------

TOPICS = ("billing service", "search API", "mobile app", "data pipeline", "staging cluster", "design system",
          "auth gateway", "weekly report", "on-call rota", "CI runners", "invoice export", "release train")
SECTIONS = ("## Project", "## Architecture", "## Decisions", "## Infrastructure", "## Open tasks")
MEMORY_LINES = ("The {t} runs on two Hetzner boxes behind a Caddy proxy, deployed with docker compose ({n}).",
                "Decided 2026-09-{d:02d}: the {t} keeps money as integer cents in bigint columns ({n}).",
                "The {t} owner is the platform team; Maya reviews every change before a Friday deploy ({n}).",
                "Task: move the {t} nightly job from cron to the scheduler service, due 2026-10-{d:02d} ({n}).")


def _lines(templates: tuple[str, ...], total_bytes: int) -> list[str]:
    lines, n = [], 0
    while sum(len(line) + 1 for line in lines) < total_bytes:
        text = templates[n % len(templates)].format(t=TOPICS[n // len(templates) % len(TOPICS)], n=n,
                                                    d=1 + n % 28)
        lines.append(f"- {text}")
        n += 1
    return lines


def _sections(title: str, lines: list[str], sections: tuple[str, ...]) -> str:
    size = -(-len(lines) // len(sections))
    parts = [title, ""]
    for number, heading in enumerate(sections):
        parts += [heading, *lines[number * size:(number + 1) * size], ""]
    return "\n".join(parts)


def mature_files() -> dict[str, str]:
    """MEMORY.md 20 KB, USER.md 3 KB, SOUL.md 2 KB and 15 skills of five steps each."""
    user = ("Lives in Stockholm (Europe/Stockholm) and works on {t} at a small logistics firm ({n}).",
            "Prefers short paragraphs to bullet lists when the {t} is discussed ({n}).")
    soul = ("Ask before deleting files or docker volumes of the {t} ({n}).",
            "Don't restart the {t} before its migrations finish — instead wait for the health check ({n}).")
    files = {"memory/MEMORY.md": _sections("# Memory", _lines(MEMORY_LINES, 20_000), SECTIONS),
             "USER.md": _sections("# User", _lines(user, 3_000), ("## Identity", "## Preferences")),
             "SOUL.md": _sections("# Soul", _lines(soul, 2_000), ("## Rules", "## Anti-patterns"))}
    for number in range(15):
        topic, verb = TOPICS[number % len(TOPICS)], ("deploy", "check", "report")[number % 3]
        name = f"{topic.split()[0]}-{verb}-{number}"
        steps = "\n".join(f"{step}. Run `make {name} step={step}` and read its output for the {topic}."
                          for step in range(1, 6))
        files[f"skills/{name}/SKILL.md"] = (f"---\nname: {name}\ndescription: How to {verb} the {topic} safely\n"
                                            f"---\n\n# {name}\n\n{steps}\n")
    return files


def workspace(root: Path, kind: str, entries: int, config: str = "") -> Workspace:
    """A committed workspace ("empty" or "mature"), with `config` as its nanodream.toml, and `entries` waiting."""
    ws = Workspace.at(root)
    scaffold(ws.root)
    if kind == "mature":
        for rel, text in mature_files().items():
            (ws.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (ws.root / rel).write_text(text, encoding="utf-8")
    if config:
        (ws.root / "nanodream.toml").write_text(config, encoding="utf-8")
    ensure_repository(GitStore(ws))
    ws.history_file.write_text("".join(json.dumps(e) + "\n" for e in history(entries)), encoding="utf-8")
    return ws


# the scripted model --------------------------------------------------------------------------------------


BATCH_FACT = re.compile(r"^\[#\d+[^\]]*\] (?:\(\d+\) )?\[(?:durable|permanent|correction)\] (.+)$", re.MULTILINE)


def batch_facts(body: dict[str, Any]) -> list[str]:
    """The tagged facts of the batch a request carries (its `<history>` block), each once, tasks left out."""
    for message in body["messages"]:
        text = "".join(block.get("text", "") if isinstance(block, dict) else str(block)
                       for block in _blocks(message.get("content") or ""))
        if "<history>" in text:
            found = BATCH_FACT.findall(text.split("<history>", 1)[1].split("</history>", 1)[0])
            return [fact for n, fact in enumerate(found) if fact not in found[:n] and not fact.startswith("Task")]
    return []


def _edit(number: int, edits: int, facts: list[str]) -> tuple[str, dict[str, str]]:
    """Edit `number` of `edits`: it files its share of the batch's facts (main's accounting checks that every
    fact is kept), or, with none left for it, a bullet of its own."""
    mine = facts[number::edits] or [f"The {TOPICS[number % len(TOPICS)]} moved to the Frankfurt region after "
                                    f"the outage ({number})."]
    return "edit_file", {"path": "memory/MEMORY.md", "old_text": ANCHOR,
                         "new_text": ANCHOR + "".join(f"- {fact}\n" for fact in mine)}


def model(edits: int, one_response: bool) -> Callable[[dict[str, Any]], Step]:
    """`edits` edits of memory/MEMORY.md, which between them file the batch's facts, and a summary: one per turn,
    or all of them in the first answer."""
    summary = f"Filed {edits} facts\n" + "".join(f"- memory/MEMORY.md: fact {n}\n" for n in range(edits))

    def respond(body: dict[str, Any]) -> Step:
        turn = sum(1 for message in body["messages"] if message.get("role") == "assistant")
        facts = batch_facts(body)
        if one_response and turn == 0:
            step = tool_calls(*(_edit(n, edits, facts) for n in range(edits)))
            step["message"]["content"] = summary
            return step
        return tool_calls(_edit(turn, edits, facts)) if not one_response and turn < edits else final(summary)

    return respond


# what a session costs --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Session:
    requests: int
    sent: int  # bytes of all request bodies
    entries: int
    cacheable: int  # bytes that repeat a prefix an earlier request of the run sent
    billed: float = 0.0  # KB-equivalents of full-price input, Anthropic's cache prices (Claude route)
    full: float = 0.0  # the same requests' input bytes at full price, in KB
    batches: int = 1


def _blocks(content: Any) -> list[Any]:
    return content if isinstance(content, list) else [{"type": "text", "text": content}]


def prompt_blocks(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """A request as the provider reads it, in order (tools, system, messages): each block's text and whether a
    `cache_control` breakpoint follows it."""
    found: list[tuple[str, bool]] = []

    def add(block: Any, role: str = "") -> None:
        marked = isinstance(block, dict) and "cache_control" in block
        plain = {k: v for k, v in block.items() if k != "cache_control"} if isinstance(block, dict) else block
        found.append((role + json.dumps(plain, sort_keys=True), marked))

    for tool in body.get("tools") or []:
        add(tool)
    for block in _blocks(body.get("system") or []):
        add(block, "system:")
    for message in body["messages"]:
        for block in _blocks(message.get("content") or ""):
            add(block, f"{message['role']}:")
        for tool_call in message.get("tool_calls") or []:
            add(tool_call, "call:")
    return found


def _prefix_lengths(blocks: list[tuple[str, bool]]) -> tuple[str, list[int]]:
    text, marks = "", []
    for block, marked in blocks:
        text += block
        if marked:
            marks.append(len(text))
    return text, marks


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def billed_kb(bodies: Iterable[dict[str, Any]]) -> tuple[float, float]:
    """(billed, full price) of a run's requests in KB: cache reads of earlier breakpoints, writes up to the last
    breakpoint, the rest at full price."""
    written: dict[int, set[str]] = {}
    billed = full = 0.0
    for body in bodies:
        text, marks = _prefix_lengths(prompt_blocks(body))
        size = len(text.encode())
        hit = max((n for n, seen in written.items() if n <= len(text) and _digest(text[:n]) in seen), default=0)
        last = max(marks, default=0)
        hit_bytes, last_bytes = len(text[:hit].encode()), len(text[:last].encode())
        billed += READ * hit_bytes + WRITE * max(0, last_bytes - hit_bytes) + REST * (size - max(hit_bytes,
                                                                                                 last_bytes))
        full += size
        for mark in marks:
            written.setdefault(mark, set()).add(_digest(text[:mark]))
    return billed / 1000, full / 1000


def cacheable_bytes(bodies: list[dict[str, Any]]) -> int:
    """Bytes of each request that repeat the longest prefix an earlier request of the run sent (tools, system,
    messages in that order)."""
    texts = ["".join(block for block, _ in prompt_blocks(body)) for body in bodies]
    total = 0
    for number, text in enumerate(texts):
        total += max((len(os.path.commonprefix([text, earlier]).encode()) for earlier in texts[:number]), default=0)
    return total


def session(kind: str, entries: int, edits: int, one_response: bool, tmp: Path, batch_tokens: int = 8000) -> Session:
    """One run, through the OpenAI-style route and again through the Claude route (one batch unless
    `batch_tokens` cuts the backlog into several)."""
    measured = {}
    for route in (OPENAI, CLAUDE):
        name = f"{kind}-{entries}-{edits}-{one_response}-{batch_tokens}-{route.split('/')[0]}"
        ws = workspace(tmp / name, kind, entries)
        with ScriptedServer([model(edits, one_response)] * 1000) as server:
            api_base = server.anthropic_url if route == CLAUDE else server.url
            settings = Settings(model=route, api_base=api_base, api_key="bench", max_retries=0, timeout=60.0,
                                batch_tokens=batch_tokens)
            report = run_dream(ws, settings)
            if report.outcome != "committed":
                raise RuntimeError(f"{kind} {entries} entries K={edits}: {report.outcome} {report.reason}")
            measured[route] = (report, list(server.requests), list(server.sizes))
    report, bodies, sizes = measured[OPENAI]
    billed, full = billed_kb(measured[CLAUDE][1])
    return Session(len(bodies), sum(sizes), report.entries, cacheable_bytes(bodies), billed, full,
                   len(report.batches))


def main(quick: bool = False, workspaces: tuple[str, ...] | None = None, backlogs: tuple[int, ...] | None = None,
         edits: tuple[int, ...] | None = None, drain: bool = True) -> list[Row]:
    workspaces = workspaces or (("mature",) if quick else ("fresh", "mature"))
    backlogs = backlogs or ((20,) if quick else (1, 20, 100))
    edits = edits or (1, 5, 10)
    rows: list[Row] = []
    found: dict[tuple[str, int, int, bool], Session] = {}
    with tempfile.TemporaryDirectory(prefix="nanodream-session-cost-") as tmp:
        for kind in workspaces:
            for entries in backlogs:
                for k in edits:
                    for one_response in (False, True):
                        measured = session(kind, entries, k, one_response, Path(tmp))
                        found[(kind, entries, k, one_response)] = measured
                        rows += _rows(kind, entries, k, one_response, measured)
        for one_response in (False, True) if drain else ():
            rows.append(_drain_row(session("mature", 100, 5, one_response, Path(tmp), DRAIN_BATCH_TOKENS),
                                   one_response))
    rows += _targets(found)
    return rows


def _drain_row(s: Session, one_response: bool) -> Row:
    """A run of several batches: later batches read the system prompt and tools from the cache."""
    how = "one response" if one_response else "serial"
    facts = (f"{s.requests} req · {s.cacheable / s.sent:.0%} cacheable · billed {s.billed / s.batches:,.1f} KB-eq. "
             f"per batch ({s.billed / s.full:.2f}× of {s.full / s.batches:,.1f})")
    return row(BENCH, f"mature, 100 entries in {s.batches} batches, K=5, {how}: per batch",
               round(s.sent / s.batches / 1000, 1), "KB", facts)


def _rows(kind: str, entries: int, k: int, one_response: bool, s: Session) -> list[Row]:
    how = "one response" if one_response else "serial"
    facts = (f"{s.requests} req · {s.sent / s.entries:,.0f} B/entry · {s.cacheable / s.sent:.0%} cacheable · "
             f"billed {s.billed:,.1f} KB-eq. ({s.billed / s.full:.2f}× of {s.full:,.1f})")
    return [row(BENCH, f"{kind}, {entries} entries, K={k}, {how}", round(s.sent / 1000, 1), "KB", facts)]


def _targets(found: dict[tuple[str, int, int, bool], Session]) -> list[Row]:
    rows = []
    one = found.get(("mature", 20, 10, True))
    if one is not None:
        rows.append(row(BENCH, "target: mature, 20 entries, K=10, one response: requests", one.requests, "",
                        "1", one.requests == 1))
        rows.append(row(BENCH, "target: mature, 20 entries, K=10, one response: KB", round(one.sent / 1000, 1), "KB",
                        f"≤ {TARGET_ONE_RESPONSE_KB} KB", one.sent / 1000 <= TARGET_ONE_RESPONSE_KB))
    serial = found.get(("mature", 20, 5, False))
    if serial is not None and BEFORE_BILLED_KB:
        share = serial.billed / BEFORE_BILLED_KB
        rows.append(row(BENCH, "target: mature, 20 entries, K=5, serial: billed input vs before", round(share, 2),
                        "×", f"≤ {TARGET_BILLED_SHARE}× of {BEFORE_BILLED_KB} KB", share <= TARGET_BILLED_SHARE))
    return rows


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
