"""Train the second opinion (nanodream/safety/second_opinion.py) and write its weights file.

    python bench/_train_second_opinion.py          # writes nanodream/safety/data/second-opinion.toml

Not a benchmark (its name starts with "_", so bench/run_all and the smoke test leave it alone): it writes a file.

Two logistic regressions over hashed features, trained by plain stochastic gradient descent (no library; the
same inputs give the same bytes):

- rules: each English sentence of bench/corpora/agent_rules.jsonl and agent_rules_heldout.jsonl, hostile or not,
  and each sentence of the secrets corpora as a line that is no hostile rule (facts, most of them). Rules in other
  languages are the cue words' to read (safety/cues.py): a few dozen sentences in seven languages teach a model of
  word features nothing it can generalise, and cost it its precision in English (cross-validated: from 0.90 to 0);
- secrets: each candidate word (second_opinion.candidates) of each sentence of secrets.jsonl and
  secrets_heldout.jsonl, a credential when it holds one of the sentence's `values`. Words of a value that spans
  several words (a passphrase, a card number split in groups) teach nothing about one word and are left out.

The threshold each model speaks from is chosen by five-fold cross-validation on its training data: the lowest
score at which the folds' precision stays at or above TARGET_PRECISION. The held-out sets written after this
model (`*_heldout2.jsonl`) are never read here; bench/agent_rules.py and bench/secret_prose.py score it on them.
"""

from __future__ import annotations

import base64
import json
import math
import random
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._corpus import load  # noqa: E402
from nanodream.safety import second_opinion  # noqa: E402
from nanodream.safety.secret_values import strip_value  # noqa: E402

RULE_CORPORA = ("agent_rules.jsonl", "agent_rules_heldout.jsonl")
SECRET_CORPORA = ("secrets.jsonl", "secrets_heldout.jsonl")
BUCKETS = {"rules": 1 << 15, "secrets": 1 << 15}
TARGET_PRECISION = {"rules": 0.9, "secrets": 0.95}
EPOCHS = 25
LEARNING_RATE = 0.2
L2 = 1e-5
FOLDS = 5
SEED = 34

Example = tuple[list[int], int]  # hashed feature buckets, label


def rule_examples() -> list[tuple[list[str], int]]:
    """The rules of the agent-rules corpora as labelled, and every sentence of the secrets corpora as a line that
    is no hostile rule: memory is mostly facts, and a model that never saw one calls 'The NAS lives at nas.lan'
    hostile for its host name."""
    rules = [(second_opinion.rule_features(item["text"]), int(item["hostile"]))
             for name in RULE_CORPORA for item in load(name) if item.get("lang", "en") == "en"]
    facts = [(second_opinion.rule_features(item["text"]), 0) for name in SECRET_CORPORA for item in load(name)]
    return rules + facts


def secret_examples() -> list[tuple[list[str], int]]:
    examples = []
    for name in SECRET_CORPORA:
        for item in load(name):
            words = second_opinion.WORD.findall(item["text"])
            values = set(item.get("values", ()))
            spread = {part for value in values if " " in value for part in value.split()}
            for index in second_opinion.candidates(words):
                core = strip_value(words[index])
                if core in spread or any(core != value and core in value for value in values):
                    continue  # a piece of a longer value
                holds = any(value in core for value in values if " " not in value)  # "admin:Nvr#2026x" holds one
                examples.append((second_opinion.token_features(words, index), int(holds)))
    return examples


def train(examples: list[Example], buckets: int) -> tuple[list[float], float]:
    """Weights and bias by SGD on the log loss, classes weighted to count alike, L2-shrunk."""
    weights, bias = [0.0] * buckets, 0.0
    positives = sum(label for _, label in examples) or 1
    weight_of = {1: len(examples) / (2 * positives), 0: len(examples) / (2 * max(len(examples) - positives, 1))}
    order = list(range(len(examples)))
    shuffle = random.Random(SEED).shuffle
    for epoch in range(EPOCHS):
        shuffle(order)
        rate = LEARNING_RATE / (1 + epoch * 0.3)
        for index in order:
            features, label = examples[index]
            total = bias + sum(weights[j] for j in features)
            predicted = 1.0 / (1.0 + math.exp(-max(min(total, 30.0), -30.0)))
            gradient = (predicted - label) * weight_of[label]
            bias -= rate * gradient
            for j in features:
                weights[j] -= rate * (gradient + L2 * weights[j])
    return weights, bias


def scorer(weights: list[float], bias: float) -> Callable[[list[int]], float]:
    def score(features: list[int]) -> float:
        total = bias + sum(weights[j] for j in features)
        return 1.0 / (1.0 + math.exp(-max(min(total, 30.0), -30.0)))
    return score


def threshold_by_folds(examples: list[Example], buckets: int, precision: float) -> tuple[float, dict[str, float]]:
    """The lowest threshold whose cross-validated precision is at least `precision`, and the figures there."""
    order = list(range(len(examples)))
    random.Random(SEED).shuffle(order)
    scored: list[tuple[float, int]] = []
    for fold in range(FOLDS):
        held = set(order[fold::FOLDS])
        weights, bias = train([e for i, e in enumerate(examples) if i not in held], buckets)
        score = scorer(weights, bias)
        scored += [(score(examples[i][0]), examples[i][1]) for i in held]
    positives = sum(label for _, label in scored)
    for threshold in [t / 100 for t in range(5, 100)]:
        flagged = [label for value, label in scored if value >= threshold]
        hit = sum(flagged)
        if flagged and hit / len(flagged) >= precision:
            return threshold, {"precision": round(hit / len(flagged), 3), "recall": round(hit / positives, 3)}
    return 0.99, {"precision": 0.0, "recall": 0.0}


def fitted(name: str, raw: list[tuple[list[str], int]]) -> dict[str, object]:
    buckets = BUCKETS[name]
    examples = [([second_opinion.bucket(f, buckets) for f in features], label) for features, label in raw]
    threshold, folds = threshold_by_folds(examples, buckets, TARGET_PRECISION[name])
    weights, bias = train(examples, buckets)
    scale = max(abs(w) for w in weights) / 127 or 1.0
    quantised = bytes((round(w / scale)) & 0xFF for w in weights)
    return {"buckets": buckets, "bias": round(bias, 6), "scale": scale, "threshold": threshold,
            "weights": base64.b64encode(zlib.compress(quantised, 9)).decode("ascii"),
            "trained_on": {"examples": len(examples), "positives": sum(label for _, label in examples),
                           "cross_validated_at_threshold": folds}}


def toml_tables(table: dict[str, object], name: str = "") -> list[str]:
    """`table` as TOML: its plain keys, then each nested table under its dotted name (ASCII strings, numbers)."""
    lines = [f"[{name}]"] if name and any(not isinstance(v, dict) for v in table.values()) else []
    lines += [f"{key} = {json.dumps(value)}" for key, value in table.items() if not isinstance(value, dict)]
    for key, value in table.items():
        if isinstance(value, dict):
            lines += ["", *toml_tables(value, f"{name}.{key}" if name else key)]
    return lines


def main() -> None:
    """TOML rather than JSON: the weights are nanodream's own data, read by tomllib, not by the bounded JSON
    reader every untrusted document goes through (which sits beside safety/, on its floor)."""
    data = {"models": {"rules": fitted("rules", rule_examples()), "secrets": fitted("secrets", secret_examples())}}
    text = "# Generated by bench/_train_second_opinion.py from bench/corpora; do not edit by hand.\n"
    second_opinion.MODEL_FILE.parent.mkdir(parents=True, exist_ok=True)
    second_opinion.MODEL_FILE.write_text(text + "\n".join(toml_tables(data)).lstrip("\n") + "\n", encoding="utf-8")
    for name, part in data["models"].items():
        print(name, part["trained_on"], "threshold", part["threshold"])


if __name__ == "__main__":
    main()
