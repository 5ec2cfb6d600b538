"""Tripwires for prompt injection: memory text that reads as instructions aimed at the agent.

Memory files are loaded into every future prompt of the agent, so a line such as "ignore previous
instructions" or an invisible Unicode payload copied from a pasted web page would keep acting on the
agent long after the conversation it came from. These rules look for the signatures of injected text
(not for imperative sentences in general: SOUL.md is full of legitimate rules for the agent). Rules that
would turn the agent against its user (exfiltration, disclosure, remote code, concealment) are judged by
`agent_rules`, whose findings are reported under the same hit type.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from nanodream.safety import agent_rules, secret_scan
from nanodream.text.grammar import NO_LONGER

_I = re.IGNORECASE
RULES: dict[str, re.Pattern[str]] = {
    # "ignore all previous instructions", "disregard the system prompt", "forget your rules"
    "override-instructions": re.compile(
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+)?"
        r"(?:previous|prior|above|earlier|preceding|original|system|safety)?\s*"
        r"(?:instructions?|prompts?|rules|guidelines|directives|guardrails)\b", _I),
    "role-hijack": re.compile(
        rf"\byou\s+are\s+now\s+(?:in\s+)?(?:dan\b|an?\s+unrestricted|jailbroken|developer\s+mode|{NO_LONGER}\s+bound)"
        r"|\b(?:new|updated|real|actual|hidden)\s+(?:system\s+)?instructions?\s*:"
        r"|\b(?:reveal|print|repeat|output|leak|show)\b[^.\n]{0,30}\bsystem\s+prompt\b", _I),
    "chat-template-marker": re.compile(
        r"<\|(?:im_start|im_end|system|user|assistant|eot_id|start_header_id|end_header_id|endoftext)\|>"
        r"|\[/?INST\]|<</?SYS>>|^\s*#{2,}\s*(?:system|instruction)s?\s*:?\s*$", _I | re.MULTILINE),
    "tool-call-syntax": re.compile(
        r"</?\s*(?:tool_call|tool_use|function_call|function_calls|invoke|antml:[a-z_]+)\b"
        r"|\"(?:tool_calls|function_call)\"\s*:|\{\s*\"function\"\s*:|\"type\"\s*:\s*\"function\""
        r"|\b(?:read_file|edit_file|write_file|delete_skill|list_skills)\s*\(", _I),
}

# A hostile rule for the agent is a line to leave out (the rest of the batch is kept), not a sign that the whole
# session was hijacked like the tripwires above.
AGENT_RULES = frozenset(agent_rules.RULES)

# Characters that change how text reads or hide text outright: bidirectional overrides and isolates
# (Trojan Source), zero-width spaces and joiners used as separators, invisible operators, a BOM inside
# text, Unicode tag characters (which spell ASCII invisibly) and the variation-selector supplement.
# ZWNJ/ZWJ and the basic variation selectors are left alone: scripts and emoji use them every day.
_HIDDEN = re.compile(
    "[\u202a-\u202e\u2066-\u2069\u200b\u2060-\u2064\ufeff\u180e\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
    "|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"
)


@dataclass(frozen=True)
class InjectionHit:
    rule: str
    line: int  # 1-based within the scanned text
    detail: str = ""

    def __str__(self) -> str:
        return f"line {self.line}: {self.rule}" + (f" ({self.detail})" if self.detail else "")


def scan_added(before: str | None, after: str) -> list[InjectionHit]:
    """Hits on lines of `after` that are not already in `before`."""
    existing = set((before or "").splitlines())
    hits: list[InjectionHit] = []
    for number, line in enumerate(after.splitlines(), start=1):
        if line not in existing:
            hits += scan_line(line, number)
    return hits


def scan_line(line: str, number: int = 1) -> list[InjectionHit]:
    hits = [InjectionHit(rule, number) for rule, pattern in RULES.items() if pattern.search(line)]
    hits += [InjectionHit(rule, number) for rule in agent_rules.classify(line)]
    hidden = sorted(set(_HIDDEN.findall(line)))
    if hidden:
        hits.append(InjectionHit("hidden-unicode", number, ", ".join(codepoint_name(c) for c in hidden[:3])))
    return hits


def reveal_hidden(text: str) -> str:
    """Show hidden characters as visible `<U+202E>` marks, so quoted history cannot smuggle them."""
    return _HIDDEN.sub(lambda match: f"<U+{ord(match.group(0)):04X}>", text)


QUOTE_CHARS = 120  # of a refused line, where a report quotes it


def quoted(line: str) -> str:
    """A refused line as a report may show it: secrets redacted, hidden characters visible, cut short."""
    shown = reveal_hidden(secret_scan.redacted(line.strip()))
    return shown if len(shown) <= QUOTE_CHARS else shown[:QUOTE_CHARS - 1] + "…"


def codepoint_name(char: str) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, 'control character')}"


def rules_hit(text: str) -> list[str]:
    """Names of the injection rules that match anywhere in `text`: lets an engine hold such a line back."""
    return list(dict.fromkeys(hit.rule for hit in scan_added(None, text)))
