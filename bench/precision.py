"""Precision of what enters memory, on real public transcripts nobody tuned on: held-out figures against the targets.

Issue 45's targets for the built-in engine, on the held-out half of bench/corpora/precision/ (44 public sessions
people had with agents, in ten languages and every format `ingest` reads, split from the tuning half by a rule
on their source before any label was written: bench/_split.py): precision ≥ 0.9 of lines written (a line a careful
reader keeps: it holds a keeper of its transcript, in any file, and no never-filed word); ≥ 0.5 of the explicit
keepers (what the person states outright) filed in the right file; no non-English entry consumed unread. And the
"done when" checks: no spew (lines written ≤ 2 × keepers + 2 per transcript, optional keepers counted),
garbage signatures (stack frames, paths with line numbers, installer and tool output, code, diffs, logs) on at
most 10% of lines, no line over 300 characters or with more than 60 consecutive CJK characters, and the backlog
empty — or only waiting for a model — within three runs. Also reported: recall of every required keeper, where
each missed explicit keeper went (told without its words, so a held-out miss is understood unread), lines filed in
the wrong file, lines holding a never-filed word, lines per 100 messages.

Method: each transcript goes into a fresh workspace (the clock pinned, so every run is the same), `ingest` with the
built-in extractor, then up to three built-in `run`s (fewer when the backlog is empty or only waits for a model);
the bullets of USER.md, SOUL.md, memory/MEMORY.md and the steps of every skill are the lines written. A history
entry is unread when ingest marked it for a model, or when one of its untagged lines is in a language other than
English that ingest reported leaving for a model; it was consumed unread when the runs moved history's position
past it and `status --json` does not count it as `waiting_for_model`.

Held-out figures only: `--tuning` reports the tuning half instead (and the planted-statement development set of
tests/fixtures/holdout/, which is all tuning too), for the engineers who tune; `--verbose` lists junk, misses and
breaches of the part reported. A held-out transcript read to fix a miss moves to tuning (split.toml's [moved]).
`--model M [--api-base URL]` measures a model path instead (it costs tokens; never run by tests).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import tomllib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, row  # noqa: E402
from nanodream import api, clock  # noqa: E402
from nanodream.backlog.history import FOR_A_MODEL  # noqa: E402
from nanodream.ingest.detect import detect  # noqa: E402
from nanodream.ingest.reader import read_new  # noqa: E402
from nanodream.text.language import language_of  # noqa: E402
from nanodream.workspace import MEMORY, SOUL, STARTER_FILES, USER  # noqa: E402

BENCH = "precision"
CORPUS = Path(__file__).resolve().parent / "corpora" / "precision"
PLANTED = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "holdout"
PRECISION_TARGET = 0.90
EXPLICIT_TARGET = 0.50
GARBAGE_SHARE = 0.10
MAX_LINE = 300
MAX_CJK_RUN = 60
MAX_RUNS = 3
SKILLS = "skills"
FILES = (USER, SOUL, MEMORY)
MOMENT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # every measurement runs at this moment: dates in lines are fixed
SMOKE = {"limit": 1}  # tests/test_bench_smoke.py

# What no memory line should look like, whatever the engine: the shapes a reader recognises at a glance.
GARBAGE = {
    "stack frame": re.compile(r'File "[^"]+", line \d+|^\s*at [\w.$<>]+ \(|Traceback \(most recent call last\)'),
    "path with a line number": re.compile(r"[\w./\\-]+\.\w{1,5}:\d+"),
    "tool or installer output": re.compile(
        r"(?i)\b(?:npm (?:ERR|WARN)|Successfully installed|Requirement already satisfied|exit code \d|"
        r"command not found|No such file or directory|Error: Cannot find module)\b|^\s*[$>] \w"),
    "log line": re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[,.]\d+|\b(?:INFO|DEBUG|WARNING|ERROR)\b:? "),
    "code": re.compile(r"```|\b(?:def|function|const|import|return)\b[^.]*[({=;]|[;{}]\s*$|=>|\w+\([^)]*\)\s*[;{]"),
    "diff": re.compile(r"^(?:@@ |\+\+\+ |--- |[+-]\s{0,3}[\w#<({])"),
}
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK}]{{{MAX_CJK_RUN + 1},}}")
_TAG = re.compile(r"^\s*\[(?:permanent|durable|ephemeral|correction)\]")


@dataclass(frozen=True)
class Keeper:
    """A statement a careful reader keeps: the words a filed line must hold and the files it may go in."""

    files: tuple[str, ...]
    words: tuple[str, ...]
    optional: bool = False
    explicit: bool = False

    def matches(self, line: str) -> bool:
        low = line.lower()
        return all(word.lower() in low for word in self.words)

    def belongs(self, path: str) -> bool:
        return any(path == file or (file == SKILLS and path.startswith(SKILLS + "/")) for file in self.files)


@dataclass(frozen=True)
class Case:
    """One transcript (or a fixture's files) with its labels."""

    name: str
    transcripts: tuple[Path, ...]
    keepers: tuple[Keeper, ...]
    never: tuple[str, ...]


def keeper(item: dict) -> Keeper:
    """A [[keep]] table; planted keepers of the earlier corpus were written in the explicit forms."""
    files = item.get("file", item.get("files"))
    return Keeper(tuple(files if isinstance(files, list) else [files]), tuple(item["words"]),
                  item.get("optional", False), item.get("explicit", item.get("planted", False)))


def corpus_case(folder: Path) -> Case:
    labels = tomllib.loads((folder / "labels.toml").read_text(encoding="utf-8"))
    return Case(folder.name, (folder / "transcript.jsonl",), tuple(keeper(k) for k in labels.get("keep", [])),
                tuple(labels.get("never", {}).get("words", [])))


def planted_cases() -> list[Case]:
    """tests/fixtures/holdout/: the planted-statement development set, read and tuned on (so tuning only)."""
    labels = tomllib.loads((PLANTED / "labels.toml").read_text(encoding="utf-8"))
    cases = []
    for name, table in sorted(labels.items()):
        keepers = [keeper({**k, "explicit": True}) for k in table.get("keep", [])]
        keepers += [keeper({**k, "optional": True}) for k in table.get("optional", [])]
        cases.append(Case(f"planted/{name}", tuple(sorted((PLANTED / name).glob("*.jsonl"))), tuple(keepers),
                          tuple(table.get("never", {}).get("words", []))))
    return cases


def cases(part: str, quick: bool, limit: int | None) -> list[Case]:
    """The transcripts of one part; quick: the smallest ones first, so a smoke run takes a second."""
    folders = sorted(p for p in (CORPUS / part).iterdir() if p.is_dir())
    if quick:
        folders.sort(key=lambda p: (p / "transcript.jsonl").stat().st_size)
    return [corpus_case(folder) for folder in folders[:limit]]


@dataclass
class Outcome:
    """What `ingest` + up to three built-in runs left in one fresh workspace."""

    lines: list[tuple[str, str]] = field(default_factory=list)  # (file, line) written
    messages: int = 0
    runs: int = 0
    pending: int = 0  # entries still pending after the runs (waiting ones not counted when status says so)
    waiting: int = 0  # `status --json` waiting_for_model, 0 while status does not report it
    left: int = 0  # the person's messages ingest left for a model (languages its rules do not read)
    entries: list[str] = field(default_factory=list)  # history's entries as ingest wrote them
    said: list[str] = field(default_factory=list)  # the person's messages as ingest reads them
    unread: list[int] = field(default_factory=list)  # the indexes of those holding one of them
    consumed_unread: int = 0


def skill_lines(root: Path) -> Iterator[tuple[str, str]]:
    """Each skill's description and its steps (list items) as lines written."""
    for skill in sorted((root / SKILLS).glob("*/SKILL.md")):
        path = skill.relative_to(root).as_posix()
        for line in skill.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if stripped.startswith("description:"):
                yield path, stripped.removeprefix("description:").strip()
            elif re.match(r"^(?:[-*]|\d+[.)])\s+\S", stripped):
                yield path, re.sub(r"^(?:[-*]|\d+[.)])\s+", "", stripped)


def written_lines(root: Path) -> list[tuple[str, str]]:
    """Every bullet of the core files that the starter files do not hold, then every skill step."""
    lines = []
    for path in FILES:
        starter = set(STARTER_FILES.get(path, "").splitlines())
        text = (root / path).read_text(encoding="utf-8") if (root / path).is_file() else ""
        lines += [(path, re.sub(r"\s*<!--.*?-->", "", line[2:]).strip()) for line in text.splitlines()
                  if line.startswith("- ") and line not in starter]
    return lines + list(skill_lines(root))


def history_entries(root: Path) -> list[str]:
    path = root / "memory" / "history.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line).get("content", "") for line in path.read_text(encoding="utf-8").splitlines() if line]


def unread_entries(entries: list[str], for_model: dict[str, int]) -> list[int]:
    """Indexes of the entries ingest left for a model (its marker first) or holding an untagged line in a language
    other than English that ingest left for a model (what reached a built-in entry unread)."""
    foreign = set(for_model) - {"en"}
    return [index for index, content in enumerate(entries)
            if content.startswith(FOR_A_MODEL)
            or any(not _TAG.match(line) and language_of(line) in foreign for line in content.splitlines())]


def persons_messages(paths: tuple[Path, ...]) -> list[str]:
    """What the person said, message by message, as ingest reads each transcript."""
    said = []
    for path in paths:
        found = detect(path)
        if found is not None:
            said += [m.text for m in read_new(path, found, "new", None, follow=True).messages if m.role == "user"]
    return said


def backlog(root: Path) -> tuple[int, int, int]:
    """(pending, waiting for a model, lines of history consumed) as `status --json` tells them."""
    status = api.status(root).to_json()
    waiting = status.get("waiting_for_model", 0) or 0
    return status.get("pending_entries", 0), waiting, status.get("position", {}).get("line", 0)


def consumed_unread(unread: list[int], consumed: int, outcome: Outcome) -> int:
    """Entries left for a model that the runs consumed: those history's position passed, less the ones status
    says wait; at least one when messages were left for a model and nothing waits (an entry may hold only part
    of what was left, or none of it)."""
    passed = max(0, sum(1 for index in unread if index < consumed) - outcome.waiting)
    return max(passed, 1 if outcome.left and not outcome.waiting and not outcome.pending else 0)


def slept(case: Case, overrides: dict) -> Outcome:
    """A fresh workspace through ingest and up to three runs."""
    with tempfile.TemporaryDirectory(prefix="nanodream-precision-") as tmp, clock.pinned(MOMENT):
        root = Path(tmp)
        api.init(root)
        settings = api.settings_for(api.workspace_at(root), overrides or None)
        report = api.ingest(root, list(case.transcripts), settings=settings)
        outcome = Outcome(messages=report.messages, left=sum(report.for_model.values()))
        outcome.entries = history_entries(root)
        outcome.said = persons_messages(case.transcripts)
        outcome.unread = unread = unread_entries(outcome.entries, report.for_model)
        outcome.pending, outcome.waiting, consumed = backlog(root)
        while outcome.pending and outcome.runs < MAX_RUNS:
            api.run(root, settings)
            outcome.runs += 1
            outcome.pending, outcome.waiting, consumed = backlog(root)
        outcome.consumed_unread = consumed_unread(unread, consumed, outcome)
        outcome.lines = written_lines(root)
    return outcome


@dataclass
class Tally:
    """What one part of the corpus gave, summed over its transcripts."""

    transcripts: int = 0
    lines: int = 0
    kept: int = 0
    misfiled: list[str] = field(default_factory=list)
    explicit: int = 0
    explicit_found: int = 0
    explicit_missed: Counter[str] = field(default_factory=Counter)  # why, by MISSED_BECAUSE
    required: int = 0
    required_found: int = 0
    messages: int = 0
    left: int = 0
    consumed_unread_entries: int = 0
    consumed_unread: list[str] = field(default_factory=list)
    spew: list[str] = field(default_factory=list)
    garbage: list[str] = field(default_factory=list)
    too_long: list[str] = field(default_factory=list)
    cjk_runs: list[str] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)
    backlog_left: list[str] = field(default_factory=list)
    junk: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name, value in vars(other).items():
            setattr(self, name, getattr(self, name) + value)


def garbage_kind(line: str) -> str:
    return next((kind for kind, pattern in GARBAGE.items() if pattern.search(line)), "")


def judge_line(case: Case, path: str, line: str, tally: Tally) -> None:
    """Is one written line a keeper, in the right file, free of never-filed words and of garbage?"""
    where = f"{case.name} {path}: {line}"
    forbidden = [word for word in case.never if word.lower() in line.lower()]
    holding = [k for k in case.keepers if k.matches(line)]
    if holding and not forbidden:
        tally.kept += 1
        if not any(k.belongs(path) for k in holding):
            tally.misfiled.append(where)
    else:
        tally.junk.append(where)
    tally.forbidden += [f"{where} (holds {word!r})" for word in forbidden]
    kind = garbage_kind(line)
    if kind:
        tally.garbage.append(f"{where} ({kind})")
    if len(line) > MAX_LINE:
        tally.too_long.append(where)
    if _CJK_RUN.search(line):
        tally.cjk_runs.append(where)


# Where a missed keeper went, told without its words: so a held-out miss can be understood unread.
MISSED_BECAUSE = ("waiting for a model", "read and not filed", "filed in another file",
                  "said in one message, in no entry as said", "in no one message")


def missed_because(k: Keeper, outcome: Outcome) -> str:
    """Why a keeper is not filed right: a line holds it in another file; the first history entry holding all its
    words was left for a model, or was read by the rules and filed nowhere; one of the person's messages holds all
    its words but no entry does (the rules restated it, or a gist cut it); or no one message does (they are spread
    over messages, or the label paraphrases)."""
    if any(k.matches(line) for _, line in outcome.lines):
        return MISSED_BECAUSE[2]
    index = next((i for i, entry in enumerate(outcome.entries) if k.matches(entry)), -1)
    if index >= 0:
        return MISSED_BECAUSE[0] if index in outcome.unread else MISSED_BECAUSE[1]
    return MISSED_BECAUSE[3] if any(k.matches(said) for said in outcome.said) else MISSED_BECAUSE[4]


def judge_keepers(case: Case, outcome: Outcome, tally: Tally) -> None:
    lines = outcome.lines
    for k in case.keepers:
        if k.optional:
            continue
        found = any(k.belongs(path) and k.matches(line) for path, line in lines)
        tally.required += 1
        tally.required_found += found
        tally.explicit += k.explicit
        tally.explicit_found += found and k.explicit
        if not found and k.explicit:
            tally.explicit_missed[missed_because(k, outcome)] += 1
        if not found:
            kind = "explicit" if k.explicit else "required"
            tally.missed.append(f"{case.name}: {kind} {' + '.join(k.words)} in {' or '.join(k.files)}")


def score(case: Case, outcome: Outcome) -> Tally:
    tally = Tally(transcripts=1, lines=len(outcome.lines), messages=outcome.messages, left=outcome.left)
    for path, line in outcome.lines:
        judge_line(case, path, line, tally)
    judge_keepers(case, outcome, tally)
    allowed = 2 * len(case.keepers) + 2
    if len(outcome.lines) > allowed:
        tally.spew.append(f"{case.name}: {len(outcome.lines)} lines for {len(case.keepers)} keepers")
    tally.consumed_unread_entries = outcome.consumed_unread
    if outcome.consumed_unread:
        tally.consumed_unread.append(f"{case.name}: {outcome.consumed_unread} entries ({outcome.left} messages left)")
    if outcome.pending:
        tally.backlog_left.append(f"{case.name}: {outcome.pending} entries after {outcome.runs} runs")
    return tally


def share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def figure(part: int, whole: int) -> float | str:
    """A share as the table shows it: a share of nothing is no figure ("n/a"), not 1.0."""
    return round(part / whole, 3) if whole else "n/a"


def judged(part: int, whole: int, target: float) -> tuple[float | str, str, str, bool | None]:
    """A share's value, unit, target and verdict; a share of nothing judges nothing."""
    return figure(part, whole), "", f"≥ {target}", part / whole >= target if whole else None


def target_rows(label: str, tally: Tally) -> list[Row]:
    garbage = share(len(tally.garbage), tally.lines)
    return [
        row(BENCH, f"{label}: precision ({tally.kept} of {tally.lines} lines a reader keeps)",
            *judged(tally.kept, tally.lines, PRECISION_TARGET)),
        row(BENCH, f"{label}: explicit keepers filed right ({tally.explicit_found} of {tally.explicit})",
            *judged(tally.explicit_found, tally.explicit, EXPLICIT_TARGET)),
        row(BENCH, f"{label}: non-English entries consumed unread ({tally.left} messages left for a model)",
            tally.consumed_unread_entries, "", "0", not tally.consumed_unread_entries),
        row(BENCH, f"{label}: transcripts spewing (lines > 2 × keepers + 2)", len(tally.spew), "", "0",
            not tally.spew),
        row(BENCH, f"{label}: lines with a garbage signature ({len(tally.garbage)})", round(garbage, 3), "",
            f"≤ {GARBAGE_SHARE}", garbage <= GARBAGE_SHARE),
        row(BENCH, f"{label}: lines over {MAX_LINE} characters", len(tally.too_long), "", "0", not tally.too_long),
        row(BENCH, f"{label}: lines with over {MAX_CJK_RUN} consecutive CJK characters", len(tally.cjk_runs), "",
            "0", not tally.cjk_runs),
        row(BENCH, f"{label}: transcripts with a backlog after {MAX_RUNS} runs (waiting for a model aside)",
            len(tally.backlog_left), "", "0", not tally.backlog_left),
    ]


def report_rows(label: str, tally: Tally) -> list[Row]:
    return [
        row(BENCH, f"{label}: every required keeper filed right ({tally.required_found} of {tally.required})",
            figure(tally.required_found, tally.required)),
        row(BENCH, f"{label}: explicit keepers missed, by where they went ("
            + ", ".join(f"{because} {tally.explicit_missed[because]}" for because in MISSED_BECAUSE) + ")",
            sum(tally.explicit_missed.values())),
        row(BENCH, f"{label}: kept lines in a wrong file", len(tally.misfiled)),
        row(BENCH, f"{label}: lines holding a never-filed word", len(tally.forbidden)),
        row(BENCH, f"{label}: lines per 100 messages ({tally.messages})",
            round(100 * share(tally.lines, tally.messages), 1)),
    ]


def measure(label: str, part: list[Case], overrides: dict, verbose: bool) -> list[Row]:
    total = Tally()
    for case in part:
        total.add(score(case, slept(case, overrides)))
    if verbose:
        for name in ("junk", "missed", "misfiled", "garbage", "forbidden", "spew", "consumed_unread",
                     "backlog_left", "too_long", "cjk_runs"):
            for item in getattr(total, name):
                print(f"{label} · {name}: {item}", file=sys.stderr)
    return target_rows(f"{label} ({total.transcripts} transcripts)", total) + report_rows(label, total)


def main(quick: bool = False, limit: int | None = None, tuning: bool = False, model: str = "",
         api_base: str = "", verbose: bool = False) -> list[Row]:
    overrides = {"model": model, **({"api_base": api_base} if api_base else {})} if model else {}
    path = f"model {model}" if model else "builtin"
    limit = 1 if quick and limit is None else limit
    if not tuning:
        return measure(f"{path}, held out", cases("heldout", quick, limit), overrides, verbose)
    rows = measure(f"{path}, tuning", cases("tuning", quick, limit), overrides, verbose)
    return rows + measure(f"{path}, planted (tuning)", planted_cases()[:limit], overrides, verbose)


def _cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smallest transcript only")
    parser.add_argument("--tuning", action="store_true", help="report the tuning half instead of the held-out one")
    parser.add_argument("--model", default="", help="measure the model path with this model instead")
    parser.add_argument("--api-base", default="", help="the model's OpenAI-compatible server")
    parser.add_argument("--verbose", action="store_true", help="list junk lines, missed keepers and breaches")
    args = parser.parse_args()
    from bench._common import describe, format_table, machine

    print(f"# {describe(machine())}", flush=True)
    rows = main(args.quick, tuning=args.tuning, model=args.model, api_base=args.api_base, verbose=args.verbose)
    print(format_table(rows))
    sys.exit(1 if any(r["ok"] is False for r in rows) else 0)


if __name__ == "__main__":
    _cli()
