"""Credential detection for text the dream would write into memory, built on Yelp's detect-secrets.

detect-secrets' detectors are used as plain string scanners: each plugin's `analyze_string` is a
regular-expression match, so nothing touches files, global settings or the network (its optional
verification step, which calls providers, is never invoked). A few gaps of detect-secrets 1.5.0 that
matter for an agent's memory are filled here: current LLM-provider key formats, unquoted high-entropy
tokens next to words like key/secret/token, and passwords stated in prose. A learned second opinion
(second_opinion.py) adds the words it reads as credentials that no rule named.

A hit names its rule and line, never the secret; the value is kept only so `redact` can replace it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from nanodream.safety import cards, credential_syntax, prose_secrets, second_opinion
from nanodream.safety.secret_values import entropy, is_reference, looks_token
from nanodream.text.cjk import CJK_CHARS
from nanodream.text.kinds import REDACTED, REDACTION

PRIVATE_KEY_RULE = "Private Key"

# Provider key formats newer than detect-secrets 1.5.0's detectors.
_PROVIDER_KEYS: dict[str, re.Pattern[str]] = {
    "Anthropic API Key": re.compile(r"\bsk-ant-[a-z]{3,8}\d{2}-[A-Za-z0-9_-]{20,}"),
    "OpenAI-style API Key": re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    "GitHub Token": re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}"),
    "Hugging Face Token": re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"),
    "Google API Key": re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),
    "npm Token": re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"),
    # Keys of the search and model APIs agents are set up with (Tavily, Groq, Replicate, Perplexity, xAI).
    "Tavily API Key": re.compile(r"\btvly-(?:dev-|prod-)?[A-Za-z0-9_-]{20,}"),  # the body may hold "-"
    "Groq API Key": re.compile(r"\bgsk_[A-Za-z0-9]{40,}"),
    "Replicate API Token": re.compile(r"\br8_[A-Za-z0-9]{30,}"),
    "Perplexity API Key": re.compile(r"\bpplx-[A-Za-z0-9]{40,}"),
    "xAI API Key": re.compile(r"\bxai-[A-Za-z0-9]{40,}"),
    # Zhipu (BigModel, GLM): an id of 32 hex digits, a dot, a secret of 16 letters and digits.
    "Zhipu API Key": re.compile(r"(?<![0-9a-fA-F])[0-9a-f]{32}\.[A-Za-z0-9]{16}(?![A-Za-z0-9])"),
}
# Any PEM private-key header, e.g. PKCS#8 "ENCRYPTED PRIVATE KEY", which detect-secrets' list lacks.
_PEM_PRIVATE_KEY = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
# A credential's name, in English or as other languages write it ("la clave API", "APIキー", "API 키", "密钥"); a
# letter of a script without spaces next to it is no part of it ("把token改成…", "zai的apikey").
_KEYWORD = (r"(?:api[ _-]?key|access[ _-]?key|secret(?:[ _-]?key)?|token|password|passwd|passphrase|credentials?"
            r"|api[ _-]?(?:キー|키|schlüssel|schluessel)|(?:clave|chave|cl[ée])(?:\s+(?:de\s+)?(?:la\s+)?api)?"
            r"|密钥|秘钥|令牌|トークン|토큰)")
_KEYWORD_TOKEN = re.compile(
    rf"(?i)(?<![A-Za-z0-9]){_KEYWORD}(?![A-Za-z0-9]){prose_secrets.NOT_A_COMPOUND}[^\n`'\"]{{0,24}}?"
    r"(?:[:=：]|\bis\b|\bwas\b)?\s*[`'\"]?([A-Za-z0-9_\-+/=.~]{16,})"
)
_MIN_TOKEN_ENTROPY = 3.0


@dataclass(frozen=True)
class SecretHit:
    """One credential found in scanned text: the rule that fired and where, never the value in text form."""

    rule: str
    line: int  # 1-based, within the scanned text
    value: str = field(repr=False, compare=False)

    def __str__(self) -> str:
        return f"line {self.line}: {self.rule}"


def scan_added(before: str | None, after: str) -> list[SecretHit]:
    """Hits on lines of `after` that are not already in `before` (what the dream would add)."""
    lines = after.splitlines()
    hits = []
    for index, line in _added_lines(before, after):
        found = _hits(line, index + 1)
        hits += found or _named_beside(lines, index)
    return hits


# A token alone on its line, named by a line next to it ("<token>" then "上面是我 tushare 的 API key", "that's my
# token above"): its name is not on its line, so no rule of one line reads it.
_ALONE = re.compile(r"^\s*[`'\"]?(?P<value>[A-Za-z0-9_\-+/=.~]{24,})[`'\"]?\s*$")
_NAMED = re.compile(rf"(?i)(?<![A-Za-z0-9]){_KEYWORD}(?![A-Za-z0-9])")


def _named_beside(lines: list[str], index: int) -> list[SecretHit]:
    alone = _ALONE.match(lines[index])
    if alone is None or not looks_token(alone.group("value"), min_length=24):
        return []
    beside = lines[max(0, index - 1):index] + lines[index + 1:index + 2]
    named = any(_NAMED.search(line) for line in beside)
    return [SecretHit("Secret Keyword", index + 1, alone.group("value"))] if named else []


def rules_hit(text: str) -> list[str]:
    """Names of the rules that match anywhere in `text`, in first-seen order."""
    seen: dict[str, None] = {}
    for line in text.splitlines():
        for rule, _ in _scan_line(line):
            seen.setdefault(rule, None)
    return list(seen)


def rules_redacted(text: str) -> list[str]:
    """Names of the rules whose secrets an earlier redaction took out of `text` (ingest redacts history): the
    line was about a credential as much as one still holding it."""
    return list(dict.fromkeys(match.group("rule") for match in REDACTION.finditer(text)))


def redact(before: str | None, after: str) -> tuple[str, list[SecretHit]]:
    """`after` with every secret on an added line replaced by a marker naming its rule.

    A private key loses its whole block (header to footer), not only the header line a detector sees.
    """
    lines: list[str | None] = list(after.splitlines(keepends=True))
    hits = scan_added(before, after)
    for hit in hits:
        line = lines[hit.line - 1]
        if hit.rule != PRIVATE_KEY_RULE and line is not None:
            lines[hit.line - 1] = line.replace(hit.value, REDACTED.format(rule=hit.rule))
    for start in (hit.line - 1 for hit in hits if hit.rule == PRIVATE_KEY_RULE):
        if lines[start] is None:
            continue
        end = _block_end(lines, start)
        newline = "\n" if (lines[end] or "").endswith("\n") else ""
        lines[start] = REDACTED.format(rule=PRIVATE_KEY_RULE) + newline
        lines[start + 1:end + 1] = [None] * (end - start)
    return "".join(line for line in lines if line is not None), hits


def redacted(text: str) -> str:
    """`text` as any view may show it: every credential the scanner finds replaced by a marker naming its rule.

    The one function every view of history, every record and every message nanodream keeps goes through, so
    they show what memory would (`show`, `why`, the page, MCP, run reports, quarantine, dead letters).
    """
    return redact(None, text)[0]


def redacted_together(texts: list[str]) -> list[str]:
    """`texts` (the messages of one conversation) each redacted, and a secret found in one redacted wherever it
    stands in the others: the agent repeating the password it was just given, a table of accounts in its reply,
    where nothing names the value as a credential any more. A plain word found as a password ("sunshine") is
    left alone elsewhere, where it is a word."""
    redacted_texts, found = [], {}
    for text in texts:
        clean, hits = redact(None, text)
        redacted_texts.append(clean)
        found |= {hit.value: hit.rule for hit in hits if hit.rule != PRIVATE_KEY_RULE and _unmistakable(hit.value)}
    if not found:
        return redacted_texts
    values = sorted(found, key=len, reverse=True)
    again = re.compile("|".join(rf"(?<!\w){re.escape(value)}(?!\w)" for value in values))
    return [again.sub(lambda match: REDACTED.format(rule=found[match.group(0)]), text) for text in redacted_texts]


def _unmistakable(value: str) -> bool:
    return len(value) >= 6 and (len(value) >= 12 or bool(re.search(r"[\d\W_]", value)))


def without_secrets(before: str | None, after: str) -> tuple[str, list[SecretHit]]:
    """`after` without the added lines that hold a secret (a private key: its whole block). What a refusing
    guard keeps: the rest of the file, untouched."""
    lines: list[str | None] = list(after.splitlines(keepends=True))
    hits = scan_added(before, after)
    for index in sorted({hit.line - 1 for hit in hits}):
        if lines[index] is None:
            continue
        end = _block_end(lines, index) if any(h.line - 1 == index and h.rule == PRIVATE_KEY_RULE for h in hits) \
            else index
        lines[index:end + 1] = [None] * (end - index + 1)
    return "".join(line for line in lines if line is not None), hits


def _block_end(lines: list[str | None], start: int) -> int:
    """Index of the footer of the key block opened at `start`, or its last non-blank line."""
    last = start
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if line is None or not line.strip():
            break
        last = index
        if "-----END" in line or line.startswith("Private-MAC:"):
            break
    return last


def _added_lines(before: str | None, after: str) -> Iterator[tuple[int, str]]:
    existing = set((before or "").splitlines())
    for index, line in enumerate(after.splitlines()):
        if line not in existing:
            yield index, line


def _hits(line: str, number: int) -> list[SecretHit]:
    return [SecretHit(rule, number, value) for rule, value in _scan_line(line)]


@lru_cache(maxsize=4096)
def _scan_line(line: str) -> tuple[tuple[str, str], ...]:
    """(rule, value) pairs for one line; cached because a session rescans the same lines after each edit.

    Provider-specific detectors run before the generic ones, and a value (or one overlapping it) is
    reported once, under the most specific rule that found it.
    """
    if not line.strip():
        return ()
    found = _Findings(line)
    specific, generic = _plugins()
    found.detectors(specific)
    for rule, pattern in _PROVIDER_KEYS.items():
        found.matches(rule, pattern, _random_looking)
    found.matches(PRIVATE_KEY_RULE, _PEM_PRIVATE_KEY, lambda value: True)
    found.detectors(generic)
    found.matches("Secret Keyword", _KEYWORD_TOKEN, _random_looking, group=1)
    for rule, value in (*cards.findings(line), *credential_syntax.findings(line), *prose_secrets.findings(line)):
        found.add(rule, value)
    for value in second_opinion.secret_tokens(line):  # what only the learned model sees, under its own name
        found.add(second_opinion.SECOND_OPINION, value)
    return tuple(found.found)


class _Findings:
    """What one line holds, each credential once, under the first (most specific) rule that found it."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.found: list[tuple[str, str]] = []

    def add(self, rule: str, value: str) -> None:
        value = _whole_token(self.line, value)
        if "redacted" in value.lower():  # our own marker, left by an earlier redaction
            return
        if not any(value in seen or seen in value for _, seen in self.found):
            self.found.append((rule, value))

    def detectors(self, plugins: list[tuple[Any, dict[str, Any]]]) -> None:
        for plugin, options in plugins:
            for value in plugin.analyze_string(self.line, **options):
                if _credible(plugin, value, self.line):
                    self.add(plugin.secret_type, value)

    def matches(self, rule: str, pattern: re.Pattern[str], accept: Callable[[str], bool], group: int = 0) -> None:
        for match in pattern.finditer(self.line):
            if accept(match.group(group)):
                self.add(rule, match.group(group))


def _whole_token(line: str, value: str) -> str:
    """The credential around a detector's value, which may be only part of it (detect-secrets' GitHub
    pattern yields just the `ghp` prefix): redacting a part would leave the rest of the key behind."""
    start = line.find(value)
    if start < 0:
        return value
    end = start + len(value)
    while start > 0 and (_in_a_key(line[start - 1]) or line[start - 1] in "_-"):
        start -= 1
    while end < len(line) and (_in_a_key(line[end]) or line[end] in "_-+/=."):
        end += 1
    return line[start:end].rstrip(".")


# The letters of scripts written without spaces: a key's neighbours in "パスワードはXk9#…です", never part of it.
_CJK_LETTER = re.compile(f"[{CJK_CHARS}]")


def _in_a_key(char: str) -> bool:
    return char.isalnum() and not _CJK_LETTER.match(char)


def _credible(plugin: Any, value: str, line: str) -> bool:
    """detect-secrets' own false-positive filters, plus the entropy limit its line scanner would apply."""
    from detect_secrets.filters import heuristic
    from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin

    if not value or "redacted" in value.lower():
        return False
    if plugin.secret_type == "Secret Keyword" and (is_reference(value) or _a_word(value)):
        return False
    if isinstance(plugin, HighEntropyStringsPlugin) and plugin.calculate_shannon_entropy(value) <= plugin.entropy_limit:
        return False
    return not (
        heuristic.is_sequential_string(value) or heuristic.is_potential_uuid(value)
        or heuristic.is_templated_secret(value) or heuristic.is_likely_id_string(value, line, plugin)
        or heuristic.is_not_alphanumeric_string(value) or heuristic.is_indirect_reference(line)
    )


def _a_word(value: str) -> bool:
    """'redact', 'refused', 'in the vault (see docs)': a word or a phrase where a keyword's value would be."""
    return bool(re.fullmatch(r"[A-Za-z]+|.*[\s`(].*", value.strip()))


def _random_looking(token: str) -> bool:
    """A credential-shaped token: letters and digits mixed, high entropy, not a path, URL or reference."""
    from detect_secrets.filters import heuristic

    if "/" in token and "." in token or is_reference(token) or "redacted" in token.lower():
        return False
    # Random tokens mix letters and digits within one piece; names like claude-3-5-sonnet-20241022 or
    # v1.2.3-rc1 are words and numbers joined by separators.
    if not any(len(piece) >= 12 and re.search(r"[A-Za-z]", piece) and re.search(r"\d", piece)
               for piece in re.split(r"[-_.~]", token)):
        return False
    if heuristic.is_sequential_string(token) or heuristic.is_potential_uuid(token):
        return False
    return entropy(token) >= _MIN_TOKEN_ENTROPY


@cache
def _plugins() -> tuple[list[tuple[Any, dict[str, Any]]], list[tuple[Any, dict[str, Any]]]]:
    """(provider-specific, generic) detect-secrets detectors, each with its analyze_string options.

    All fit memory files except the public-IP detector (server addresses are legitimate infrastructure
    notes). Imported on first use so CLI start-up stays fast.
    """
    from detect_secrets.plugins.artifactory import ArtifactoryDetector
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.cloudant import CloudantDetector
    from detect_secrets.plugins.discord import DiscordBotTokenDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString, HexHighEntropyString
    from detect_secrets.plugins.ibm_cloud_iam import IbmCloudIamDetector
    from detect_secrets.plugins.ibm_cos_hmac import IbmCosHmacDetector
    from detect_secrets.plugins.jwt import JwtTokenDetector
    from detect_secrets.plugins.keyword import CONFIG_DENYLIST_REGEX_TO_GROUP, KeywordDetector
    from detect_secrets.plugins.mailchimp import MailchimpDetector
    from detect_secrets.plugins.npm import NpmDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.private_key import PrivateKeyDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.softlayer import SoftlayerDetector
    from detect_secrets.plugins.square_oauth import SquareOAuthDetector
    from detect_secrets.plugins.stripe import StripeDetector
    from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
    from detect_secrets.plugins.twilio import TwilioKeyDetector

    specific = [
        AWSKeyDetector, ArtifactoryDetector, AzureStorageKeyDetector, BasicAuthDetector, CloudantDetector,
        DiscordBotTokenDetector, GitHubTokenDetector, GitLabTokenDetector, IbmCloudIamDetector,
        IbmCosHmacDetector, JwtTokenDetector, MailchimpDetector, NpmDetector, OpenAIDetector, PrivateKeyDetector,
        PypiTokenDetector, SendGridDetector, SlackDetector, SoftlayerDetector, SquareOAuthDetector,
        StripeDetector, TelegramBotTokenDetector, TwilioKeyDetector,
    ]
    # Memory bullets read like configuration ("- DB password: x"), so the keyword detector uses its
    # config-file patterns, which do not require quotes around the value.
    keyword = (KeywordDetector(), {"denylist_regex_to_group": CONFIG_DENYLIST_REGEX_TO_GROUP})
    generic = [keyword, (Base64HighEntropyString(), {}), (HexHighEntropyString(), {})]  # named rule first
    return [(cls(), {}) for cls in specific], generic
