"""A second opinion, learned rather than written: two small linear models beside the hand-written rules.

The rules of `agent_rules` and `prose_secrets` grow by one phrasing at a time, and round after round of
held-out sentences they missed one in ten. These models are a different technique with different blind spots:
logistic regression over hashed features, trained on the labelled corpora in bench/corpora/ by
`bench/_train_second_opinion.py`, which writes the weights this module reads (`data/second-opinion.toml`:
int8 weights, zlib-compressed, in base64; nothing is downloaded, nothing but the standard library runs).

- `rule_score(line)`: how much a line for the agent reads like a hostile rule (exfiltration, disclosure, remote
  code, concealment) — words, neighbouring pairs and pairs a few words apart, words under a negation marked as
  such, four-letter pieces of words, and the shapes of addresses, URLs and variable names.
- `model_secret_tokens(line)`: the words of a line it reads as a credential — the word's own shape (length,
  character classes, their alternation, entropy, digit runs) and pieces, the words around it and their side,
  and each of those words together with the word's shape. Trained on few sentences, it is sure of itself on
  names and handles too ('iPhone15Pro', '@maya_dev42'), so what redacts (`secret_tokens`) is the words it
  flags that are also password-shaped by the rules' measure: the model judges the context, the rules the shape.

Both only add: run/holds.py holds a line for a person when the rules let it pass and `hostile_rule` says
otherwise, and `secret_scan` redacts what `secret_tokens` finds like any other finding.
"""

from __future__ import annotations

import base64
import math
import re
import tomllib
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from nanodream.safety.secret_values import (
    could_be_a_secret,
    entropy,
    looks_password_shaped,
    strip_value,
    without_markers,
)
from nanodream.text.cjk import CJK_CHARS
from nanodream.text.grammar import said, without_consent
from nanodream.text.structure import PERSONAL_KEYS, program_line
from nanodream.text.words import NEGATIONS

MODEL_FILE = Path(__file__).parent / "data" / "second-opinion.toml"
SECOND_OPINION = "Likely Password"  # what a credential only the learned model found is called where it was

NEGATION_SCOPE = 4  # words after a negation read as negated
PASSWORD_CHARS = 32  # longer random strings are keys and tokens, the detectors' part (a PEM body line is one)
CONTEXT = 5  # words on each side of a candidate credential that are its context
WORD = re.compile(r"\S+")
# A candidate credential: a run of characters between spaces and the CJK scripts' letters and punctuation, which
# write a sentence without spaces ("我的GitHub用户名是lihua2024。" holds the words "GitHub" and "lihua2024", not one).
_CANDIDATE_WORD = re.compile(f"[^\\s{CJK_CHARS}\u3000-\u303f\uff00-\uffef]+")
_TOKEN_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("<url>", re.compile(r"[a-z][\w+.-]*://\S+", re.I)),
    ("<email>", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    ("<handle>", re.compile(r"@\w+")),
    ("<ip>", re.compile(r"\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?")),
    ("<envvar>", re.compile(r"\$?\{?[A-Z][A-Z0-9]*_[A-Z0-9_]+\}?")),
    ("<path>", re.compile(r"[~.]?/\S+|\S+\.(?:env|pem|key|json|ya?ml|toml|sh|py|md|txt)")),
    ("<host>", re.compile(r"[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|dev|example|xyz|ru|cn|info|co|app|local|lan)\b",
                          re.I)),
    ("<num>", re.compile(r"\d+")),
)


@dataclass(frozen=True)
class LinearModel:
    """Weights of hashed features, a bias and the score from which it speaks."""

    buckets: int
    bias: float
    scale: float  # a stored int8 weight times `scale` is the weight
    threshold: float
    weights: bytes  # one signed byte per bucket

    def score(self, features: list[str]) -> float:
        total = self.bias
        for feature in features:
            signed = self.weights[bucket(feature, self.buckets)]
            total += (signed - 256 if signed > 127 else signed) * self.scale
        return 1.0 / (1.0 + math.exp(-max(min(total, 30.0), -30.0)))


def bucket(feature: str, buckets: int) -> int:
    """A feature's place among the weights: CRC-32, the same in every process (unlike `hash`)."""
    return zlib.crc32(feature.encode("utf-8", "surrogatepass")) % buckets


@cache
def models() -> dict[str, LinearModel]:
    """The rules and secrets models, read once from the data file."""
    data = tomllib.loads(MODEL_FILE.read_text(encoding="utf-8"))
    return {name: LinearModel(part["buckets"], part["bias"], part["scale"], part["threshold"],
                              zlib.decompress(base64.b64decode(part["weights"])))
            for name, part in data["models"].items()}


# rules ----------------------------------------------------------------------------------------------------------


def rule_score(line: str) -> float:
    return models()["rules"].score(rule_features(line))


def hostile_rule(line: str) -> float | None:
    """The model's score when it reads `line` as a hostile rule for the agent, else None.

    It speaks only of a rule that names someone or somewhere — the user, an address, a URL, a host, a handle, a
    path or a variable — or says what to tell: a rule turns against its user by acting on them, by sending
    something away or by what it has them told. Trained on few sentences, the model is otherwise sure of itself
    on rules about the shape of answers ("Keep your answers short, no more than three sentences." scored 0.97),
    and a person would be asked to review every style rule they state.
    """
    if not _names_someone_or_somewhere(without_consent(line)):
        return None  # "Don't push to main without asking the user.": the user is named only to be asked
    score = rule_score(line)
    return score if score >= models()["rules"].threshold else None


_THE_USER = re.compile(r"\busers?(?:'s|’s)?\b", re.IGNORECASE)
# Telling someone what is so: a rule with one of these verbs acts on whoever it is said to.
_TELLING = said("assert", "base", "third")


def _names_someone_or_somewhere(line: str) -> bool:
    if _THE_USER.search(line) or set(re.findall(r"\w+", line.lower())) & _TELLING:
        return True
    return any(form.search(line) for name, form in _TOKEN_FORMS if name != "<num>")


def rule_features(line: str) -> list[str]:
    words = [_form(word) for word in WORD.findall(line)]
    words = [word for word in words if word]
    features = []
    negated = 0
    for index, word in enumerate(words):
        if word.replace("'", "").replace("’", "") in NEGATIONS or word.endswith(("n't", "n’t")):
            negated = NEGATION_SCOPE
            features.append(f"w:{word}")
            continue
        mark = "n" if negated else "w"
        negated = max(negated - 1, 0)
        features.append(f"{mark}:{word}")
        if index:
            features.append(f"b:{words[index - 1]} {word}")
        if not word.startswith("<"):
            padded = f"_{word}_"
            features += [f"c:{padded[i:i + 4]}" for i in range(max(len(padded) - 3, 1))]
    # pairs two to four words apart: "send … to <email>", "never … the user"
    features += [f"s:{words[i]} {words[j]}" for i in range(len(words)) for j in range(i + 2, min(i + 5, len(words)))]
    return features


def _form(word: str) -> str:
    """A word as the rules model reads it: its kind for addresses, URLs and the like, else lower case, bare."""
    core = word.strip("\"'`“”‘’()[]{}*,;:.!?")
    for name, pattern in _TOKEN_FORMS:
        if pattern.fullmatch(core):
            return name
    return core.lower()


# secrets --------------------------------------------------------------------------------------------------------


def secret_tokens(line: str) -> list[str]:
    """The password-shaped words of `line` the secrets model reads as a credential (as written, around them
    stripped): the shape is the rules' (`looks_password_shaped`), the judgement of the words around it the
    model's, so a value no credential's name stands near is still found ('Netflix: jo@example.org, Bf6#tr1Ky')."""
    if program_line(_QUOTE_MARK.sub("", line, count=1)):  # a frame or a log line a program wrote (quoted in a
        return []  # waiting entry or not) names code, files and numbers
    return [word for word in model_secret_tokens(line) if len(word) <= PASSWORD_CHARS and looks_password_shaped(word)]


_QUOTE_MARK = re.compile(r"^\s*>\s?")  # how a waiting entry quotes the person's lines


def model_secret_tokens(line: str) -> list[str]:
    """Every candidate word the secrets model alone reads as a credential: what bench/secret_prose.py scores."""
    model = models()["secrets"]
    words = _CANDIDATE_WORD.findall(without_markers(line))  # what an earlier redaction left is no credential
    verdicts: dict[tuple[str, ...], bool] = {}  # a window seen before in this line is judged once
    found = []
    for index in candidates(words):
        if _a_handle(words, index):
            continue
        window = tuple(words[max(index - CONTEXT, 0):index + CONTEXT + 1]) + (str(min(index, CONTEXT)),)
        if window not in verdicts:
            verdicts[window] = model.score(token_features(words, index)) >= model.threshold
        if verdicts[window]:
            found.append(strip_value(words[index]))
    return found


# A handle as people write one: "@ada_q", "ada#1234" (a chat tag with its number), "ada.quinn-42" (lower case: a
# capital in it may make it a password, "Discord: Summer2024" in a list of accounts).
_HANDLE = re.compile(r"@[\w.-]+|[a-z0-9][a-z0-9._-]*(?:#\d{4})?")


def _a_handle(words: list[str], index: int) -> bool:
    """The word is written as a handle and is the value of one of the person's details (data/personal-keys.txt),
    right after its key ("Discord: ada#1234", "my GitHub is ada-q"): how to reach them, which they give out, not a
    credential."""
    if not _HANDLE.fullmatch(strip_value(words[index])):
        return False
    before = [word.lower() for word in words[max(index - 2, 0):index]]
    if before and before[-1].endswith(":"):
        return before[-1].rstrip(":") in PERSONAL_KEYS
    return len(before) == 2 and before[1] in ("is", "=") and before[0].strip("*`") in PERSONAL_KEYS


def candidates(words: list[str]) -> Iterator[int]:
    """The words that could be a credential at all (`secret_values.could_be_a_secret`), each distinct one judged
    once (a long line repeats its words)."""
    judged: dict[str, bool] = {}
    for index, word in enumerate(words):
        if word not in judged:
            judged[word] = could_be_a_secret(word)
        if judged[word]:
            yield index


def token_features(words: list[str], index: int) -> list[str]:
    core = strip_value(words[index])
    shape = shape_of(core)
    features = [f"s:{part}" for part in shape]
    kind = _kind(core)
    features += [f"k:{kind}", f"t:{core.lower()}" if core.isalpha() else "t:<mixed>"]
    mapped = _classes(core)
    features += [f"p:{mapped[i:i + 3]}" for i in range(max(len(mapped) - 2, 1))]
    for offset in range(-CONTEXT, CONTEXT + 1):
        if offset == 0 or not 0 <= index + offset < len(words):
            continue
        word = _form(words[index + offset])
        side = "L" if offset < 0 else "R"
        features += [f"x{side}:{word}", f"x:{word}", f"xk:{word}&{kind}"]
        if abs(offset) == 1:
            features.append(f"x{side}1:{word}")
    return features


def shape_of(core: str) -> list[str]:
    """Length, character classes, their alternation, digit runs and entropy, each in a few buckets."""
    classes = [bool(re.search(pattern, core)) for pattern in (r"[a-z]", r"[A-Z]", r"\d", r"[^\w\s]")]
    changes = sum(1 for a, b in zip(_classes(core), _classes(core)[1:], strict=False) if a != b)
    return [f"len{min(len(core) // 4, 8)}", f"classes{sum(classes)}", f"lower{classes[0]}", f"upper{classes[1]}",
            f"digit{classes[2]}", f"symbol{classes[3]}", f"changes{min(changes, 8)}",
            f"runs{min(len(re.findall(r'[0-9]+', core)), 4)}", f"entropy{min(int(entropy(core) * 2), 10)}",
            f"humps{min(len(re.findall(r'[a-z][A-Z]', core)), 3)}"]


def _classes(core: str) -> str:
    """Each character as its class: a lower, A upper, 9 digit, ! symbol."""
    return "".join("a" if c.islower() else "A" if c.isupper() else "9" if c.isdigit() else "!" for c in core)


def _kind(core: str) -> str:
    """A coarse shape the context words are paired with."""
    classes = sum(bool(re.search(pattern, core)) for pattern in (r"[a-z]", r"[A-Z]", r"\d", r"[^\w\s]"))
    if core.isdigit():
        return "number"
    if core.isalpha():
        return "word"
    return "mixed" if classes >= 3 else "two"
