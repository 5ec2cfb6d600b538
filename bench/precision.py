"""Precision of what enters memory: real public transcripts, labelled by hand, through ingest + the dream.

Targets (issue #33): on the shipped labelled corpus, the builtin path's precision ≥ 0.90 (share of filed memory
lines that a careful reader keeps) and recall ≥ 0.60 (share of labelled keepers filed in the right file); the
held-out part, which the rules were not tuned on, is reported on its own lines. Also reported: memory lines
per 100 of the person's messages, lines breaking the memory's form (over 300 characters, a question, "I" or
"my" beside "User", addressed to the agent, code or paths in USER.md or SOUL.md) and lines holding words the
labels say must never be filed.

Method: each transcript of bench/corpora/precision/{tuning,heldout}/ goes into a fresh workspace with
`nanodream ingest`, then `nanodream run`, in-process; the memory files' bullets afterwards (not the starter
files') are the filed lines. A filed line matches a keeper when it holds all the keeper's words (any case).
Optional keepers count toward precision when filed and are not missed when not. With `--model M` (and
`--api-base URL`), ingest and the dream use that model instead (this costs tokens; never run by tests).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, row  # noqa: E402
from nanodream import api  # noqa: E402
from nanodream.workspace import MEMORY, SOUL, STARTER_FILES, USER  # noqa: E402

BENCH = "precision"
CORPUS = Path(__file__).resolve().parent / "corpora" / "precision"
PRECISION_TARGET = 0.90
RECALL_TARGET = 0.60
FILES = (USER, SOUL, MEMORY)
SMOKE = {"limit": 1}  # tests/test_bench_smoke.py


@dataclass(frozen=True)
class Keeper:
    files: tuple[str, ...]
    words: tuple[str, ...]
    optional: bool = False
    planted: bool = False

    def matches(self, line: str) -> bool:
        low = line.lower()
        return all(word.lower() in low for word in self.words)


@dataclass
class Tally:
    """What one part of the corpus gave."""

    filed: list[tuple[str, str]] = field(default_factory=list)  # (file, line)
    kept: int = 0  # filed lines matching a keeper
    wanted: int = 0  # required keepers
    found: int = 0  # required keepers filed in the right file
    messages: int = 0  # the person's messages
    malformed: list[str] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    junk: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("filed", "malformed", "forbidden", "missed", "junk"):
            getattr(self, name).extend(getattr(other, name))
        for name in ("kept", "wanted", "found", "messages"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def load_labels(folder: Path) -> tuple[list[Keeper], list[str]]:
    labels = tomllib.loads((folder / "labels.toml").read_text(encoding="utf-8"))
    keepers = []
    for item in labels.get("keep", []):
        files = item["file"] if isinstance(item["file"], list) else [item["file"]]
        keepers.append(Keeper(tuple(files), tuple(item["words"]), item.get("optional", False),
                              item.get("planted", False)))
    return keepers, labels.get("never", {}).get("words", [])


def person_messages(transcript: Path) -> int:
    count = 0
    for line in transcript.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        message = record.get("message", record)
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            count += not message["content"].startswith(("<", "/", "This session is being continued"))
    return count


def filed_lines(root: Path) -> list[tuple[str, str]]:
    """Every bullet of the core files that the starter files do not hold."""
    lines = []
    for path in FILES:
        starter = set(STARTER_FILES.get(path, "").splitlines())
        text = (root / path).read_text(encoding="utf-8") if (root / path).is_file() else ""
        lines += [(path, line[2:].strip()) for line in text.splitlines()
                  if line.startswith("- ") and line not in starter]
    return lines


_ADDRESSED = re.compile(r"\b(?:wants?|asks?|needs?|expects?) you\b|\byou\b", re.IGNORECASE)
_CODE = re.compile(r"`|https?://|(?:^|\s)[~.]?/\w|\b\w+\.(?:py|md|js|ts|json|toml|ya?ml|sh|txt)\b")


def malformed(path: str, line: str) -> str:
    """Why a filed line breaks the memory's form (issue #33's interface), or ""."""
    bare = re.sub(r"\s*<!--.*?-->", "", line).strip()
    if len(bare) > 300:
        return "over 300 characters"
    if bare.endswith("?"):
        return "a question"
    if re.search(r"\bUser\b", bare) and re.search(r"\b(?:I|my|My)\b", bare):
        return '"I" or "my" beside "User"'
    if path in (USER, MEMORY) and _ADDRESSED.search(bare):
        return "addressed to the agent"
    if path in (USER, SOUL) and _CODE.search(bare):
        return "code, a path or a URL"
    return ""


def measure(folder: Path, settings_overrides: dict) -> Tally:
    keepers, never = load_labels(folder)
    transcript = folder / "transcript.jsonl"
    tally = Tally(messages=person_messages(transcript))
    with tempfile.TemporaryDirectory(prefix="nanodream-precision-") as tmp:
        api.init(tmp)
        settings = api.settings_for(api.workspace_at(tmp), settings_overrides or None)
        api.ingest(tmp, [transcript], settings=settings)
        api.run(tmp, settings)
        tally.filed = filed_lines(Path(tmp))
    for path, line in tally.filed:
        if any(keeper.matches(line) for keeper in keepers):
            tally.kept += 1
        else:
            tally.junk.append(f"{folder.name} {path}: {line}")
        why = malformed(path, line)
        if why:
            tally.malformed.append(f"{folder.name} {path}: {line} ({why})")
        tally.forbidden += [f"{folder.name} {path}: {line} (holds {word!r})" for word in never
                            if word.lower() in line.lower()]
    for keeper in keepers:
        if keeper.optional:
            continue
        tally.wanted += 1
        if any(path in keeper.files and keeper.matches(line) for path, line in tally.filed):
            tally.found += 1
        else:
            tally.missed.append(f"{folder.name}: {' + '.join(keeper.words)} in {' or '.join(keeper.files)}")
    return tally


def figures(label: str, tally: Tally, path: str) -> list[Row]:
    precision = tally.kept / len(tally.filed) if tally.filed else 1.0
    recall = tally.found / tally.wanted if tally.wanted else 1.0
    per_100 = 100 * len(tally.filed) / tally.messages if tally.messages else 0.0
    held = label.startswith("held")
    return [
        row(BENCH, f"{path}, {label}: precision ({tally.kept} of {len(tally.filed)} lines)", round(precision, 3),
            "", "" if held else f"≥ {PRECISION_TARGET}", None if held else precision >= PRECISION_TARGET),
        row(BENCH, f"{path}, {label}: recall ({tally.found} of {tally.wanted} keepers)", round(recall, 3),
            "", "" if held else f"≥ {RECALL_TARGET}", None if held else recall >= RECALL_TARGET),
        row(BENCH, f"{path}, {label}: memory lines per 100 person-messages ({tally.messages})", round(per_100, 1)),
        row(BENCH, f"{path}, {label}: lines breaking the memory's form", len(tally.malformed), "", "0",
            len(tally.malformed) == 0),
        row(BENCH, f"{path}, {label}: lines holding a never-filed word", len(tally.forbidden), "", "0",
            len(tally.forbidden) == 0),
    ]


def parts(limit: int | None) -> dict[str, list[Path]]:
    return {part: sorted(p for p in (CORPUS / folder).iterdir() if p.is_dir())[:limit]
            for part, folder in (("tuning corpus", "tuning"), ("held out", "heldout"))}


def main(quick: bool = False, limit: int | None = None, model: str = "", api_base: str = "",
         verbose: bool = False) -> list[Row]:
    overrides = {"model": model, **({"api_base": api_base} if api_base else {})} if model else {}
    path = f"model {model}" if model else "builtin"
    rows: list[Row] = []
    for label, folders in parts(1 if quick else limit).items():
        total = Tally()
        for folder in folders:
            total.add(measure(folder, overrides))
        rows += figures(label, total, path)
        if verbose:
            for name in ("junk", "missed", "malformed", "forbidden"):
                for item in getattr(total, name):
                    print(f"{label} · {name}: {item}", file=sys.stderr)
    return rows


def _cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one transcript of each part")
    parser.add_argument("--model", default="", help="measure the model path with this model instead")
    parser.add_argument("--api-base", default="", help="the model's OpenAI-compatible server")
    parser.add_argument("--verbose", action="store_true", help="list junk lines, missed keepers and breaches")
    args = parser.parse_args()
    from bench._common import describe, format_table, machine

    print(f"# {describe(machine())}", flush=True)
    rows = main(args.quick, model=args.model, api_base=args.api_base, verbose=args.verbose)
    print(format_table(rows))
    sys.exit(1 if any(r["ok"] is False for r in rows) else 0)


if __name__ == "__main__":
    _cli()
