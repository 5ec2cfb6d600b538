"""Planted statements in real transcripts: what ingest + the builtin dream keep, miss and file by mistake.

The eight public sessions of tests/fixtures/holdout/ (Claude Code, Codex, nanobot, OpenClaw, OpenAI-style chat)
carry statements planted in the person's messages in the forms issue #33 fixes, and traps that must stay out.
All eight are the development set tests/ingest/test_holdout_transcripts.py pins: the three first held out (cc-rock-ci,
cc-sungather-fix, openclaw-hakua) were read, their classes fixed, and promoted (bench/README.md keeps their
held-out figures). A transcript marked `heldout = true` in labels.toml is read by nobody tuning the rules and
reported on its own line: how the rules do on sessions they were not fitted to. Add new ones that way.

Method: each transcript goes into a fresh workspace with `ingest` (all its .jsonl files), then the builtin `run`,
in-process. Per transcript and per part: planted and stated facts kept (one line in the right file) and missed,
lines filed, lines a reader keeps (a keeper or optional line of that transcript), lines holding a never-filed word;
precision = lines a reader keeps / lines filed, recall = keepers kept / keepers. `--verbose` lists junk and
misses for the development set only, so tuning never sees a held-out line.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, row  # noqa: E402
from bench.precision import Keeper, filed_lines  # noqa: E402
from nanodream import api  # noqa: E402

BENCH = "holdout"
FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "holdout"
SMOKE = {"limit": 1}  # tests/test_bench_smoke.py


@dataclass
class Score:
    """What one transcript (or a sum of them) gave."""

    keepers: int = 0
    kept: int = 0
    filed: int = 0
    readable: int = 0  # filed lines a reader keeps
    leaked: int = 0  # filed lines holding a never-filed word
    notes: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        for name in ("keepers", "kept", "filed", "readable", "leaked"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.notes += other.notes


def keepers_of(labels: dict) -> tuple[list[Keeper], list[Keeper]]:
    """The required keepers and every line a reader keeps (required + optional)."""
    required = [Keeper(tuple(k["files"] if "files" in k else [k["file"]]), tuple(k["words"]))
                for k in labels.get("keep", [])]
    optional = [Keeper(tuple(k["files"]), tuple(k["words"]), optional=True) for k in labels.get("optional", [])]
    return required, required + optional


def slept_lines(name: str) -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory(prefix="nanodream-holdout-") as tmp:
        api.init(tmp)
        settings = api.settings_for(api.workspace_at(tmp))
        api.ingest(tmp, sorted((FIXTURES / name).glob("*.jsonl")), settings=settings)
        api.run(tmp, settings)
        return filed_lines(Path(tmp))


def score(name: str, labels: dict) -> Score:
    required, readable = keepers_of(labels)
    never = [word.lower() for word in labels.get("never", {}).get("words", [])]
    lines = slept_lines(name)
    result = Score(keepers=len(required), filed=len(lines))
    for keeper in required:
        holding = [path for path, line in lines if keeper.matches(line)]
        if holding == [path for path in holding if path in keeper.files] and len(holding) == 1:
            result.kept += 1
        else:
            result.notes.append(f"missed: {' + '.join(keeper.words)} in {' or '.join(keeper.files)} ({holding})")
    for path, line in lines:
        if any(path in keeper.files and keeper.matches(line) for keeper in readable):
            result.readable += 1
        else:
            result.notes.append(f"junk: {path}: {line}")
        if any(word in line.lower() for word in never):
            result.leaked += 1
    return result


def figures(label: str, result: Score) -> list[Row]:
    precision = result.readable / result.filed if result.filed else 1.0
    recall = result.kept / result.keepers if result.keepers else 1.0
    return [
        row(BENCH, f"{label}: precision ({result.readable} of {result.filed} lines a reader keeps)",
            round(precision, 3)),
        row(BENCH, f"{label}: recall ({result.kept} of {result.keepers} stated facts and rules kept)",
            round(recall, 3)),
        row(BENCH, f"{label}: lines holding a never-filed word", result.leaked, "", "0", result.leaked == 0),
    ]


def main(quick: bool = False, limit: int | None = None, verbose: bool = False) -> list[Row]:
    labels = tomllib.loads((FIXTURES / "labels.toml").read_text(encoding="utf-8"))
    rows: list[Row] = []
    for part, held in (("development", False), ("held out", True)):
        names = [name for name in sorted(labels) if bool(labels[name].get("heldout")) == held]
        if not names:
            continue  # no transcript held out now: a line for none would read as a perfect score
        total = Score()
        for name in names[:1 if quick else limit]:
            result = score(name, labels[name])
            total.add(result)
            rows.append(row(BENCH, f"{part} · {name}: kept {result.kept} of {result.keepers}, "
                                   f"{result.readable} of {result.filed} lines a reader keeps, "
                                   f"{result.leaked} never-words", result.filed, "lines"))
            if verbose and not held:
                print("\n".join(f"{name} · {note}" for note in result.notes), file=sys.stderr)
        rows += figures(f"{part} ({len(names[:1 if quick else limit])} transcripts)", total)
    return rows


def _cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one transcript of each part")
    parser.add_argument("--verbose", action="store_true", help="list the development set's junk and misses")
    args = parser.parse_args()
    from bench._common import describe, format_table, machine

    print(f"# {describe(machine())}", flush=True)
    rows = main(args.quick, verbose=args.verbose)
    print(format_table(rows))
    sys.exit(1 if any(r["ok"] is False for r in rows) else 0)


if __name__ == "__main__":
    _cli()
