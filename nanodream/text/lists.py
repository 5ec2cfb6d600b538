"""The word lists and tables under `data/`, read once: plain text a person can read and extend.

A list file holds words separated by spaces or lines; a table file (`.tsv`) holds one row per line, its cells
separated by tabs. In both, a line starting with `#` is a comment. Each file says at its top what it is for.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"


def _lines(name: str) -> list[str]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


@cache
def wordlist(name: str) -> frozenset[str]:
    """Every word of `data/<name>.txt`."""
    return frozenset(word for line in _lines(f"{name}.txt") for word in line.split())


@cache
def table(name: str) -> tuple[tuple[str, ...], ...]:
    """The rows of `data/<name>.tsv`, each a tuple of its cells."""
    return tuple(tuple(cell.strip() for cell in line.split("\t")) for line in _lines(f"{name}.tsv"))


@cache
def phrases(name: str) -> tuple[str, ...]:
    """The lines of `data/<name>.txt`, each one phrase (words that mean something only together)."""
    return tuple(" ".join(line.split()) for line in _lines(f"{name}.txt"))


@cache
def language_codes() -> tuple[str, ...]:
    """The languages with a data file (`data/lang-<code>.toml`), sorted."""
    return tuple(sorted(path.stem.removeprefix("lang-") for path in DATA.glob("lang-*.toml")))


@cache
def language_file(code: str) -> dict[str, Any] | None:
    """The tables of `data/lang-<code>.toml` (None: no such language file)."""
    path = DATA / f"lang-{code}.toml"
    return tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
