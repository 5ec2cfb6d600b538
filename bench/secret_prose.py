"""Secrets in prose: precision and recall of the secret scanner on sentences a person or a model might write.

Corpora (bench/corpora/): `secrets.jsonl`, the sentences the prose rules were tuned on,
`secrets_heldout.jsonl`, written afterwards in other words and never tuned on, and `secrets_heldout2.jsonl`,
written after issue #34's password-shape rule and the second opinion were done (the second opinion was trained
on the first two; neither ever saw the third). Each line is a sentence with
`"secret": true|false`; a positive names its `values` (the password, key, card number, CVV, expiry).

A positive counts as caught only when the scanner flags the sentence *and* redacting it leaves none of its
values behind (a card's CVV and expiry included). A negative counts as a false alarm when any rule flags it.
The scanner is `nanodream.safety.secret_scan`, exactly as the tools, the guards, transcripts, hand edits and
the built-in engine call it (detect-secrets' detectors plus nanodream's own rules, plus the second opinion).
Each corpus is also scored by opinion: the rules alone (the scanner with the second opinion switched off), the
learned model alone (`second_opinion.model_secret_tokens`: every word it reads as a credential), and the two
as shipped (the model's words redacted only when password-shaped). A positive counts for the model alone when
it flags every single-word value of the sentence.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import Row, cli, row  # noqa: E402
from bench._corpus import load, score, score_rows, slowest_long_line  # noqa: E402
from nanodream.safety import second_opinion, secret_scan  # noqa: E402

BENCH = "secret_prose"
TARGET = 0.95
CORPORA = {"tuning": "secrets.jsonl", "held-out": "secrets_heldout.jsonl", "held-out 2": "secrets_heldout2.jsonl"}
LONG_LINE_CHARS = 64 * 1024  # a dead letter is kept (and redacted) up to this many characters
LONG_LINE_TARGET_S = 2.0
SMOKE: dict[str, Any] = {"long_line_chars": 2000}


def caught(item: dict[str, Any]) -> bool:
    """Flagged, and nothing of the credential survives redaction."""
    text = item["text"]
    if not secret_scan.rules_hit(text):
        return False
    redacted, _ = secret_scan.redact(None, text)
    return not any(value in redacted for value in item.get("values", ()))


def model_alone(item: dict[str, Any]) -> bool:
    """The learned model flags a word; for a positive, every value that is one word."""
    flagged = set(second_opinion.model_secret_tokens(item["text"]))
    if not item["secret"]:
        return bool(flagged)
    single = [value for value in item.get("values", ()) if " " not in value]
    return bool(single) and all(any(value in word for word in flagged) for value in single)


@contextmanager
def rules_only() -> Iterator[None]:
    """The scanner with the second opinion switched off (and its cache emptied both ways)."""
    original = second_opinion.secret_tokens
    second_opinion.secret_tokens = lambda line: []
    secret_scan._scan_line.cache_clear()
    try:
        yield
    finally:
        second_opinion.secret_tokens = original
        secret_scan._scan_line.cache_clear()


def _opinions(corpus: str, items: list[dict[str, Any]]) -> list[Row]:
    with rules_only():
        rules = score(items, "secret", caught)
    found = {"rules": rules, "second opinion (model alone)": score(items, "secret", model_alone),
             "both, as shipped": score(items, "secret", caught)}
    return [row(BENCH, f"{corpus}: {label} precision / recall", f"{s.precision:.3f} / {s.recall:.3f}")
            for label, s in found.items()]


def main(quick: bool = False, long_line_chars: int = LONG_LINE_CHARS) -> list[Row]:
    rows: list[Row] = []
    for corpus, name in CORPORA.items():
        if (Path(__file__).parent / "corpora" / name).exists():
            rows += score_rows(BENCH, corpus, score(load(name), "secret", caught), TARGET)
            rows += _opinions(corpus, load(name))
    shape, seconds = slowest_long_line(lambda line: secret_scan.redact(None, line), long_line_chars)
    rows.append(row(BENCH, f"redact a {long_line_chars:,}-char line, slowest shape ({shape})", round(seconds, 3), "s",
                    target=f"≤ {LONG_LINE_TARGET_S} s", ok=seconds <= LONG_LINE_TARGET_S))
    return rows


if __name__ == "__main__":
    cli(main, __doc__.splitlines()[0])
