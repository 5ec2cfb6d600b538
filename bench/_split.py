"""Which part of the labelled transcript corpus a transcript belongs to: tuning or held out, by a rule on its source.

The rule reads only where a transcript came from, never its labels or what the engine makes of it, so the split
cannot follow the figures. Within each format, transcripts are ordered by (language of the person's messages,
sha256 of "<repository>:<path>") and dealt alternately to `heldout` and `tuning`, `heldout` first: both parts get
every format, and every language that has two transcripts in one format. A transcript in `split.toml`'s
`[moved]` table left held-out for tuning (it was read to fix a miss) and stays in tuning whatever the rule says.
Transcripts added later carry `round = N` in their `[source]` (the first split is round 1): the rule deals each
round on its own, so a new round never moves a transcript of an earlier one between the halves. A round listed in
`split.toml`'s `replacing` replaces held-out transcripts that were read and moved: all of it is held out.

`python -m bench._split` prints the parts the rule gives and says which folders disagree with it.
"""

from __future__ import annotations

import hashlib
import sys
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpora" / "precision"
SPLIT_FILE = CORPUS / "split.toml"
PARTS = ("tuning", "heldout")


@dataclass(frozen=True)
class Source:
    """Where one transcript came from, as its labels.toml records it."""

    name: str
    repository: str
    path: str
    format: str
    language: str
    round: int = 1

    @property
    def key(self) -> str:
        return hashlib.sha256(f"{self.repository}:{self.path}".encode()).hexdigest()


def sources(root: Path = CORPUS) -> list[Source]:
    """Every transcript of the corpus that the rule places (those whose `[source]` names a `language`)."""
    found = []
    for labels in sorted(root.glob("*/*/labels.toml")):
        source = tomllib.loads(labels.read_text(encoding="utf-8")).get("source", {})
        if "language" in source:
            found.append(Source(labels.parent.name, source["repository"], source["path"], source["format"],
                                source["language"], source.get("round", 1)))
    return found


def split(found: list[Source], moved: set[str] = frozenset(), replacing: set[int] = frozenset()) -> dict[str, str]:
    """name → part, by the rule above."""
    by_format: dict[tuple[int, str], list[Source]] = defaultdict(list)
    for source in found:
        by_format[source.round, source.format].append(source)
    parts = {}
    for (round_, _), group in by_format.items():
        for index, source in enumerate(sorted(group, key=lambda s: (s.language, s.key))):
            parts[source.name] = "heldout" if index % 2 == 0 or round_ in replacing else "tuning"
    return {name: "tuning" if name in moved else part for name, part in parts.items()}


def placed(root: Path = CORPUS) -> dict[str, str]:
    """name → part for the corpus at `root`, by the rule and split.toml's moved transcripts and replacing rounds."""
    record = recorded(root / "split.toml")
    return split(sources(root), set(record.get("moved", {})), set(record.get("replacing", [])))


def recorded(split_file: Path = SPLIT_FILE) -> dict:
    """split.toml: the date the split was made, its rule, later rounds, and the transcripts moved out of held-out."""
    return tomllib.loads(split_file.read_text(encoding="utf-8"))


def misplaced(root: Path = CORPUS) -> list[str]:
    """Transcripts whose folder is not the part the rule (and the moved table) gives them."""
    wanted = placed(root)
    return sorted(f"{name} is in {folder.parent.name}/, the rule says {wanted[name]}/"
                  for folder in root.glob("*/*/") if (name := folder.name) in wanted
                  and folder.parent.name != wanted[name])


def main() -> int:
    parts = placed()
    for part in PARTS:
        names = sorted(name for name, where in parts.items() if where == part)
        print(f"{part} ({len(names)}): {', '.join(names)}")
    wrong = misplaced()
    print("\n".join(wrong) or "every transcript is in the folder the rule gives it")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
