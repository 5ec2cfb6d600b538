"""Statements: what the built-in engine files of plain explicit statements, message by message, in eight languages.

Corpora (bench/corpora/): `statements.jsonl`, two probes written for the purpose (no transcript behind them: each
a message a person might type to an assistant in German, French, Spanish, Portuguese, Chinese, Japanese, Korean
or English — 10 rules, 10 statements about the person, 5 decisions and 8 look-alikes that must not be filed,
per language), read and tuned on; `statements_heldout.jsonl`, a third probe written the same way by someone who
saw neither, never read while tuning. Each line: `lang`, `kind` (rule, person, decision, none), `file` (where a
careful reader files it; null: nowhere), `key` (words a right line holds), `text`, `probe`.

Each message goes alone through a fresh workspace, `ingest` and the built-in `run`, as a user's would. Verdicts:
filed right (a line holding the key in the expected file), misfiled (written elsewhere), waiting for a model
(nothing written, the message waits: a miss that loses nothing), lost (nothing written and nothing waits: only
English, whose rules sum up what they do not file, may lose one), and for a look-alike, junk when anything at
all was written. Nobody tuning the engine opens the held-out file; one read moves to the tuning file and is
replaced by a new probe.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, cli, row  # noqa: E402
from bench._corpus import load  # noqa: E402
from bench.precision import Case, slept  # noqa: E402

BENCH = "statements"
CORPORA = {"tuning": "statements.jsonl", "held out": "statements_heldout.jsonl"}
VERDICTS = ("filed right", "misfiled", "waiting", "lost", "junk")
SMOKE: dict[str, Any] = {"per_language": 1}


def verdict(item: dict[str, Any]) -> str:
    """What the built-in engine made of one message, as a user's workspace would hold it."""
    with tempfile.TemporaryDirectory(prefix="nanodream-statements-") as tmp:
        source = Path(tmp) / "sessions" / "cli_probe.jsonl"
        source.parent.mkdir()
        rows = [{"_type": "metadata", "key": "cli:probe", "created_at": "2026-11-30T09:00:00", "metadata": {}},
                {"role": "user", "content": item["text"], "timestamp": "2026-11-30T09:00:03"},
                {"role": "assistant", "content": "OK.", "timestamp": "2026-11-30T09:00:05"}]
        source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        outcome = slept(Case(item["text"][:40], (source,), (), ()), {})
    if item["file"] is None:
        return "junk" if outcome.lines else "filed right"
    key = item["key"].lower()
    if any(path == item["file"] and key in line.lower() for path, line in outcome.lines):
        return "filed right"
    return "misfiled" if outcome.lines else "waiting" if outcome.waiting else "lost"


def first_of_each_language(items: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """The first `count` items of each language: a smoke run's few seconds."""
    seen: Counter[str] = Counter()
    kept = []
    for item in items:
        seen[item["lang"]] += 1
        if seen[item["lang"]] <= count:
            kept.append(item)
    return kept


def main(quick: bool = False, per_language: int = 0) -> list[Row]:
    rows: list[Row] = []
    for part, name in CORPORA.items():
        items = load(name)
        if quick and per_language:
            items = first_of_each_language(items, per_language)
        rows += _rows(part, [(item, verdict(item)) for item in items])
    return rows


def _rows(part: str, judged: list[tuple[dict[str, Any], str]]) -> list[Row]:
    said = [(item, found) for item, found in judged if item["kind"] != "none"]
    alike = [(item, found) for item, found in judged if item["kind"] == "none"]
    right = sum(found == "filed right" for _, found in said)
    counts = Counter(found for _, found in said)
    rows = [row(BENCH, f"{part}: statements filed right ({right} of {len(said)})", round(right / max(len(said), 1), 3)),
            row(BENCH, f"{part}: look-alikes left alone ({sum(f != 'junk' for _, f in alike)} of {len(alike)})",
                round(sum(f != "junk" for _, f in alike) / max(len(alike), 1), 3)),
            row(BENCH, f"{part}: the rest (misfiled, waiting for a model, lost)",
                f"{counts['misfiled']}, {counts['waiting']}, {counts['lost']}")]
    foreign_lost = sum(found == "lost" and item["lang"] != "en" for item, found in said)
    rows.append(row(BENCH, f"{part}: non-English statements lost (neither filed nor waiting)", foreign_lost,
                    target="0", ok=foreign_lost == 0))
    by_language: dict[str, list[str]] = {}
    for item, found in said:
        by_language.setdefault(item["lang"], []).append(found)
    rows.append(row(BENCH, f"{part}: filed right, by language", " ".join(
        f"{code} {found.count('filed right')}/{len(found)}" for code, found in sorted(by_language.items()))))
    return rows


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
