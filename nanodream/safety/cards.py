"""Payment card numbers, with the security code and expiry written beside them.

A card number is 13 to 19 digits, written whole or in groups (as printed, 4-4-4-4 or 4-6-5, or any other way
people split them: 8-8, 4-4-8, …; after a word for a card, any grouping at all) separated by spaces, dots,
dashes, slashes or underscores, that passes the Luhn check and starts with a card network's prefix at that
network's length. That rules out
nearly every other long number: order and tracking numbers, phone numbers, timestamps, ISBNs. A number
labelled as something else ("order 4111…", "IMEI …") is left alone.

The finding covers the number and the CVV and expiry that follow it ("4111 1111 1111 1111 cvv 123 exp
12/27", "… / 09/30 / 517"), so redacting or dropping it takes them too. A labelled CVV on its own
("CVC: 881") is a finding of its own.
"""

from __future__ import annotations

import re

CARD_NUMBER = "Card Number"
CARD_CODE = "Card Security Code"

_I = re.IGNORECASE
_RUN = re.compile(r"(?<![\w.,/-])\d{2,19}(?:(?:[ .\u00a0_/-]|\s*[-–]\s*)\d{1,19}){0,8}(?![\w-])")
_GROUP_MIN = 3  # digits in each group of a number split another way than printed (the last may be shorter)
_GROUP = re.compile(r"\d+")
# What may follow a card number and belongs to it: an expiry, a CVV, each maybe labelled.
_EXPIRY = r"(?:\d{1,2}\s*/\s*\d{2,4}|\d{4}-\d{2}|\d{2}-\d{2,4})"
_CODE_LABEL = r"(?:cvv2?|cvc2?|csc|cid|security\s+code|card\s+code|card\s+verification\s+(?:value|code)|code)"
_TAIL_ITEM = re.compile(
    rf"\s*[,;/|(]?\s*(?:(?:exp(?:iry|ires|iration)?|valid\s+(?:thru|through|until)|good\s+thru)\.?(?:\s+date)?"
    rf"\s*(?:is|:|on|=)?\s*{_EXPIRY}|{_CODE_LABEL}\s*(?:is|:|=|of)?\s*\d{{3,4}}|{_EXPIRY}|\d{{3,4}})(?![\d/])\)?",
    _I)
_CODE_NEAR_A_CARD = re.compile(rf"\b{_CODE_LABEL}\s*(?:is|:|=|of|#)?\s*\d{{3,4}}(?![\d/])", _I)
# Alone, "code" is too common a word (area code 212, status code 503): only the card's own names count.
_CODE = re.compile(r"\b(?:cvv2?|cvc2?|csc|card\s+security\s+code|card\s+verification\s+(?:value|code)"
                   r"|security\s+code(?=\s+(?:on|of|for)\s+(?:[\w'-]+\s+){0,3}?card\b))\b"
                   r"(?:\s+(?:on|for|of)\s+[\w' -]{1,40}?(?=\s*(?:is\b|:)))?\s*(?:is|:|=|of|#)?\s*\d{3,4}(?![\d/])", _I)
_CARD_WORDS = re.compile(r"\b(?:card|visa|master\s?card|amex|american\s+express|discover|jcb|diners|unionpay|maestro"
                         r"|cc|credit|debit|pan)\b", _I)
# Numbers people label as something other than a card: "order 4111…", "customer number …", "IMEI …"; and a
# program's numbers in its log ("port=5432", "pid 4711", "errno 111").
_OTHER_LABELS = re.compile(r"\b(?:order|tracking|invoice|ticket|phone|tel|fax|imei|isbn|iban|account|acct|reference"
                           r"|port|pid|ppid|uid|gid|errno|exit|status|line|row|column|offset|version|issue|pr"
                           r"|ref|booking|confirmation|serial|sku|upc|ean|shipment|parcel|transaction|txn|build|job"
                           r"|customer|client|member(?:ship)?|policy|contract|meter|loyalty|passport|licen[cs]e|vin|case"
                           r"|claim|patient|student|employee|badge|device|container|waybill|item|product|article"
                           r"|\w+\s+(?:number|no\.?|id|#))\b", _I)
LABEL_REACH = 30  # characters before a number searched for what it is


def findings(line: str) -> list[tuple[str, str]]:
    """(rule, text) for every card number on `line` (with its CVV and expiry) and every labelled CVV."""
    found: list[tuple[str, str]] = []
    for run in _RUN.finditer(line):
        before = line[max(run.start() - LABEL_REACH, 0):run.start()]
        end = _card_end(run, named=bool(_CARD_WORDS.search(before)))
        if end is None or labelled_otherwise(before):
            continue
        while tail := _TAIL_ITEM.match(line, end):
            end = tail.end()
        found.append((CARD_NUMBER, line[run.start():end].rstrip(" ,;/|(")))
    codes = _CODE_NEAR_A_CARD if found else _CODE  # beside a card, "code 123" and "CID 1234" are its code too
    found += [(CARD_CODE, match.group(0)) for match in codes.finditer(line)]
    return found


def _card_end(run: re.Match[str], *, named: bool) -> int | None:
    """Where the longest card number at the start of `run` ends (its groups may be followed by a CVV), or None.

    Named a card ('card: 4111 11 11 1111 1111'), any grouping counts; unnamed, only groupings people use for
    cards, since pairs and single digits are more often a date or a phone number."""
    groups = list(_GROUP.finditer(run.group(0)))
    for count in range(len(groups), 0, -1):
        lengths = [len(group.group(0)) for group in groups[:count]]
        digits = "".join(group.group(0) for group in groups[:count])
        if (named or _printed_grouping(lengths)) and is_card_number(digits):
            return run.start() + groups[count - 1].end()
    return None


def _printed_grouping(lengths: list[int]) -> bool:
    """Whole, as printed (4-4-4-4(-3), 4-6-5/4-6-4), or in groups of at least three digits (8-8, 4-4-8), the last
    maybe shorter: what people type. Pairs and single digits (a date, a phone number) are other numbers."""
    if len(lengths) == 1:
        return True
    if len(lengths) >= 3 and all(n == 4 for n in lengths[:-1]) and 1 <= lengths[-1] <= 4:
        return True
    return lengths in ([4, 6, 5], [4, 6, 4]) or all(n >= _GROUP_MIN for n in lengths[:-1]) and lengths[-1] >= 2


def labelled_otherwise(before: str) -> bool:
    """'order 4111…', 'IMEI …': the words just before say this number is not a card's."""
    return bool(_OTHER_LABELS.search(before)) and not _CARD_WORDS.search(before)


def is_card_number(digits: str) -> bool:
    """Luhn-valid, and a card network issues numbers with this prefix at this length."""
    return 13 <= len(digits) <= 19 and _network_issues(digits) and luhn_valid(digits)


def luhn_valid(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


# (lowest prefix, highest prefix, lengths) per network: Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay,
# Maestro.
_NETWORKS: tuple[tuple[int, int, frozenset[int]], ...] = (
    (4, 4, frozenset({13, 16, 19})),
    (51, 55, frozenset({16})), (2221, 2720, frozenset({16})),
    (34, 34, frozenset({15})), (37, 37, frozenset({15})),
    (6011, 6011, frozenset({16, 19})), (644, 649, frozenset({16, 19})), (65, 65, frozenset({16, 19})),
    (3528, 3589, frozenset({16, 17, 18, 19})),
    (300, 305, frozenset({14, 16})), (36, 36, frozenset({14, 16})), (38, 39, frozenset({14, 16})),
    (62, 62, frozenset({16, 17, 18, 19})),
    (50, 50, frozenset(range(12, 20))), (56, 58, frozenset(range(12, 20))), (63, 63, frozenset(range(12, 20))),
    (67, 67, frozenset(range(12, 20))),
)


def _network_issues(digits: str) -> bool:
    for low, high, lengths in _NETWORKS:
        prefix = int(digits[:len(str(low))])
        if low <= prefix <= high and len(digits) in lengths:
            return True
    return False
