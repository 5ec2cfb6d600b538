"""Does a string look like a secret value? Shape tests shared by the prose detectors.

A word after "password is" may be the password ("Tr1cky!Pass") or a statement about it ("stored", "16",
"AES-256", "in"). Real passwords and keys mix character classes or are random; the words that follow a
credential's name in ordinary facts are dictionary words, numbers, versions, dates, sizes, names of
algorithms, identifiers and references to where the secret lives. These tests tell the two apart.
"""

from __future__ import annotations

import base64
import binascii
import math
import re

from nanodream.text.kinds import REDACTION
from nanodream.text.lists import wordlist

# Pointers to a secret, not the secret: $VAR, ${VAR}, $(cmd), %VAR%, <placeholder>, {{template}}, ENV_NAMES,
# and secret-store addresses (vault:…, op://…).
# A variable's name ($DB_PASSWORD); a bcrypt-style "$2a$10$…" is a value (jsonbin's master key is one).
_REFERENCE = re.compile(
    r"\$(?!2[abxy]?\$\d\d\$)[({]?\w+.*|%\w+%|<[^>]*>?|\{\{.*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|(?:vault|op|env|secret|keychain|ssm):.*",
)
_URL_OR_PATH = re.compile(r"[A-Za-z][\w+.-]*://\S*|[~.]{0,2}/\S*|[\w.+-]*@[\w-]+(?:\.[\w-]+)+\S*|\S+\.(?:md|txt|json"
                          r"|ya?ml|toml|conf|cfg|ini|env|pem|key|pub|sh|py|kdbx)|[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}"
                          r"(?::\d+)?(?:/\S*)?")  # URLs, paths, e-mail addresses, file and host names
# Versions, dates, times, time-zone offsets (UTC+5:30, GMT-03:00, UTC+1/UTC+2), numbers with a unit, IP
# addresses with or without a port, command-line flags, and SSH public keys (meant to be shared).
_OFFSET = r"(?i:utc|gmt)[+\u2212-]\d{1,2}(?::?\d{2})?"
_NOT_A_SECRET = re.compile(
    rf"{_OFFSET}(?:/{_OFFSET})*|"
    r"v?\d+(?:\.\d+)+[\w.+-]*|\d{4}-\d{2}(?:-\d{2})?\S*|\d{1,2}:\d{2}\S*|\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    r"|[\d.,]+\s?(?i:ms|s|secs?|m|mins?|h|hrs?|d|days?|w|wk|k|[kmgt]i?b|px|x|chars?|characters?|bits?|bytes?"
    r"|eur|usd|gbp|%)|(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?|--?[A-Za-z][\w-]*"
    r"|(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-\w+|sk-ssh-\S+)\S*|AAAA[0-9A-Za-z+/]{16,}=*",  # public keys
)
# Names of algorithms, formats and machine types that mix letters and digits: "the key is ed25519".
_TECH_NAME = re.compile(r"(?i)(?:sha|aes|rsa|dsa|ecdsa|md|ed|utf|base|ipv|http|tls|ssl|hs|rs|es|ps|gpt|x|pbkdf|"
                        r"argon|scrypt|hmac|curve|p|secp|crc|des|rc)-?\d{1,5}[a-z]?\d*(?:-\w+)?")
# Identifiers built from words: created_at, tenant-id, read/write, e-mail, Google/GitHub.
_JOINED_WORDS = re.compile(r"[A-Za-z]+(?:['_./-][A-Za-z]+)*")
# Well-known default and throwaway passwords: a secret when stated as one ("login admin/admin").
DEFAULT_PASSWORDS = frozenset({
    "admin", "root", "toor", "changeme", "letmein", "password", "passw0rd", "guest", "raspberry", "ubnt",
    "alpine", "calvin", "qwerty", "welcome", "abc123", "123456", "12345678", "123456789", "1234", "0000",
    "iloveyou", "trustno1", "monkey", "dragon", "sunshine", "administrator", "admin123", "root123",
})
# Stems of the passwords people build from words, spelled with digits and symbols ("P@ssw0rd2026").
_LEET = str.maketrans("@4310$5!7+", "aaeiosslit")
_LEET_STEMS = re.compile(r"password|passwd|letmein|qwerty")
# Product names: 1Password, iPhone15, PlayStation5, Windows11, Pixel8a, ThinkPadX1.
_PRODUCT_NAME = re.compile(r"\d{0,2}[a-z]?[A-Z]?[a-z]+(?:[A-Z][a-z]+)*(?:[A-Z]?\d{0,2}[a-z]?)")
# Model numbers: M404dn, RT-AX88U's AX88U, X1.
_MODEL_NUMBER = re.compile(r"[A-Z]{1,3}\d{1,5}[a-z]{0,3}")
MIN_LENGTH = 6


def is_reference(value: str) -> bool:
    """A pointer to where a secret lives ($DB_PASSWORD, <token>, vault:prod/db), not the secret itself."""
    return bool(_REFERENCE.fullmatch(value))




def without_markers(line: str) -> str:
    """`line` with what an earlier redaction left made a reference: neither a credential's name nor a value."""
    return REDACTION.sub("<redacted>", line)


def strip_value(value: str) -> str:
    """A candidate as written, minus the quotes, brackets and sentence punctuation around it."""
    value = value.strip("`'\"“”‘’«»()[]{}*_")  # quotes, brackets, markdown emphasis
    return value.rstrip(".,;:?)]}").strip("`'\"“”‘’*_")


def looks_secret(value: str, *, hex_ok: bool = False) -> bool:
    """A stated password, key or token: mixed character classes or randomness, not a word, number or name.

    Lower-case hex is a commit, hash or id more often than a password ("the commit that removed the password
    was a1b2c3d"); it counts only where keys are expected (`hex_ok`), e.g. after "signing secret is".
    """
    core = strip_value(value)
    if not MIN_LENGTH <= len(core) <= 256 or not _plausible(core):
        return False
    if not hex_ok and re.fullmatch(r"[0-9a-f]{7,64}", core):
        return False
    letters = sum(c.isalpha() for c in core)
    if not letters:
        return False
    if _JOINED_WORDS.fullmatch(core):
        return camel_humps(core) >= 2 and len(core) >= 10
    if any(c.isdigit() for c in core):
        return not _TECH_NAME.fullmatch(core)
    return bool(re.search(r"\w[^\w\s]+\w", core))  # a symbol inside: P@ss!word


def looks_strong(value: str) -> bool:
    """A value that can only be a password: letters, a digit and a symbol inside ('Bluebird!77')."""
    core = strip_value(value)
    return looks_secret(core) and bool(re.search(r"\d", core) and re.search(r"[A-Za-z]", core)
                                       and re.search(r"\w[^\w\s]+\w", core))


def looks_unmistakable(value: str) -> bool:
    """Lower case, a digit, and upper case or a symbol inside ('Trail-Runner-88!', 'R3silio!Bkp', 'BeachHouse2026'):
    near a password's name, nothing else looks like this. Model numbers (RT-AX88U) have no lower case, model
    names (claude-3-5-sonnet) only hyphens."""
    core = strip_value(value)
    if _PRODUCT_NAME.fullmatch(core) or _MODEL_NUMBER.fullmatch(core) or _NOT_A_VALUE.fullmatch(core):
        return False
    return len(core) >= MIN_LENGTH and looks_secret(core) and bool(
        re.search(r"[a-z]", core) and re.search(r"\d", core)
        and (re.search(r"[A-Z]", core) or re.search(r"\w[^\w\s-]+\w", core)))


# What counts as a symbol in a password: not the separators names, versions and identifiers are joined with.
_PASSWORD_SYMBOL = re.compile(r"[^\w\s.\-'/]")
# Typeset punctuation joining words in prose, read as the hyphen and apostrophe it stands for.
_TYPESET = str.maketrans({"\u2019": "'", "\u2018": "'", "\u2014": "-", "\u2013": "-", "\u2011": "-"})
_VERSION_INSIDE = re.compile(r"\d\.\d")
# A setting (m=64MiB, MOCK_OCR=1, maxResults=5, --level=3, PowerShell's -Confirm:$false), a hex literal (0x3AA5C343),
# a handle or a tag (@maya_dev42), a shell redirection (2>/dev/null), a Windows path or variable
# (%APPDATA%\Claude\skills\, C:\Users\ana), or who is logged in where: a shell's prompt (bob@devbox:~$) or a Windows
# machine's default name (hugo@LAPTOP-U194O8SJ). Not a value, unless a setting's name is a credential's (dbPassword=…).
_NOT_A_VALUE = re.compile(r"(?![\w.-]*(?i:pass|pwd|secret|token|key|auth))[a-z_][A-Za-z0-9_]*=\S*|[A-Z][A-Z0-9_]+=\S*"
                          r"|-{1,2}\w[\w-]*(?:[=:]\S*)?|0x[0-9A-Fa-f]+|[@#]\w+|\d?>>?\S*"
                          r"|%\w+%[\w\\.-]*|(?:[A-Za-z]:)?(?:[\w.$%-]*\\)+[\w.$%-]*"
                          r"|[\w.-]+@[\w.-]+:[~/]\S*|[\w.-]+@(?:DESKTOP|LAPTOP|WIN|PC)-[A-Z0-9]+")
# Markup and code around words ('"SOUL.md"}}</tool_call>', 'f(x)[0]', "select_graph('MyGraph"): quotes, brackets
# that open and close, a call's opening bracket, or an address ('OpenClaw](https://openclaw.com': a link's).
_MARKUP = re.compile(r"[\"`]|<[^>]*>|\{[^}]*\}|\[[^\]]*\]|\([^)]*\)|\w\(|\]\(|\w://")
_NAME_PIECE = re.compile(r"[A-Z]?[a-z]+\d*|[A-Z0-9]+|[a-z]+\d+|\d+[a-z]*")
PASSWORD_SHAPE_LENGTH = 8
PASSWORD_SHAPE_ENTROPY = 2.5  # bits per character: 'Aa1!Aa1!' repeats itself, 'Gx7!pq2Lz' does not


def looks_password_shaped(value: str) -> bool:
    """A value only a password is made like, whatever words stand around it: 8 or more characters (6 with all
    four classes) mixing at least three of lower case, upper case, digit and symbol, with a symbol or digits in
    two places, not repetitive, and no name, version, path, setting or identifier ('Gx7!pq2Lz', 'Qw9zt4Kp';
    not 'Python3.11-slim', 'WPA2-Enterprise', 'iPhone15Pro', 'MayaL_1987', 'm=64MiB')."""
    core = strip_value(value).translate(_TYPESET)  # "Great—thanks", "GitHub’s": prose's dash and apostrophe
    if not core.isprintable():  # a terminal's escape sequence ('\x1b]0;title\x07'), never something typed
        return False
    symbol = bool(_PASSWORD_SYMBOL.search(core))
    classes = sum(bool(found) for found in (re.search(r"[a-z]", core), re.search(r"[A-Z]", core),
                                             re.search(r"\d", core))) + symbol
    long_enough = len(core) >= PASSWORD_SHAPE_LENGTH and classes >= 3 or len(core) >= MIN_LENGTH and classes == 4
    if not long_enough or len(core) > 64 or not (symbol or len(re.findall(r"\d+", core)) >= 2):
        return False
    if (_VERSION_INSIDE.search(core) or _PRODUCT_NAME.fullmatch(core) or _TECH_NAME.fullmatch(core)
            or _NOT_A_VALUE.fullmatch(core) or _MODEL_NUMBER.fullmatch(core) or _joined_names(core)
            or _MARKUP.search(core)):
        return False
    return entropy(core) >= PASSWORD_SHAPE_ENTROPY and looks_secret(core)


def _joined_names(core: str) -> bool:
    """Names joined by hyphens, dots, slashes, underscores or colons, each piece a word, an acronym or a number
    ('WPA2-Enterprise', 'node18-alpine', 'feat/oauth2-PKCE-flow', 'telegram:7'): a product, a branch, a standard
    or a session's key."""
    pieces = [piece for piece in re.split(r"[-_./:]", core) if piece]
    return len(pieces) > 1 and all(_NAME_PIECE.fullmatch(piece) for piece in pieces)


def could_be_a_secret(value: str, *, hex_ok: bool = False) -> bool:
    """Anything a credential could be, whatever stands around it: a default password, or a value `looks_secret`
    passes (`hex_ok` as there) that is no product or model name nor names joined by hyphens ('WPA2-Enterprise').
    What the learned second opinion weighs (second_opinion.py)."""
    core = strip_value(value)
    if looks_default(core):
        return True
    return _not_a_product(core, hex_ok=hex_ok) and not _joined_names(core)


def could_be_a_named_password(value: str, *, hex_ok: bool = False) -> bool:
    """What right after a password's name is its value: anything `could_be_a_secret` passes, and pieces joined
    ('Lena.12.03.1998', 'Casa-2024-x'), which only stand for a product or a branch where no name says password."""
    core = strip_value(value)
    return looks_default(core) or _not_a_product(core, hex_ok=hex_ok)


def _not_a_product(core: str, *, hex_ok: bool) -> bool:
    return (len(core) <= 128 and looks_secret(core, hex_ok=hex_ok) and not _PRODUCT_NAME.fullmatch(core)
            and not _MODEL_NUMBER.fullmatch(core))


def looks_default(value: str) -> bool:
    """One of the passwords everybody tries first, stated as a password."""
    return strip_value(value).lower() in DEFAULT_PASSWORDS


def built_from_a_password_word(value: str) -> bool:
    """'P@ssw0rd2026', 'Password123!', 'L3tme1n': a password that spells its own name with digits or symbols."""
    core = strip_value(value)
    if len(core) < MIN_LENGTH or _JOINED_WORDS.fullmatch(core) or not _plausible(core):
        return False
    if re.search(r"[=:]|\$[({]", core):
        return False  # an assignment or a command ("password=$(pass show vpn)") is not the password itself
    lower = core.lower()
    if _LEET_STEMS.search(lower):  # spelled plainly, it needs a digit or symbol after it: not "1Password"
        return bool(re.search(rf"(?:{_LEET_STEMS.pattern})(?:\d|[^\w\s]+\w)", lower))
    return bool(_LEET_STEMS.search(lower.translate(_LEET)))


def looks_numeric_code(value: str) -> bool:
    """A PIN, PUK or door code: 4 to 10 digits (or a combination like 19-42-07), maybe ending in # or *."""
    core = strip_value(value)
    if re.fullmatch(r"(?:19|20)\d\d-\d{1,2}(?:-\d{1,2})?", core):
        return False  # a date
    return bool(re.fullmatch(r"\d{4,10}[#*]?|\d{1,4}(?:[-‐ ]\d{1,4}){1,3}", core))


# Units and counted things after a number: "4500 mAh", "1200 km", "3000 rpm", "2000 steps", "6 digits".
_UNIT_AFTER = re.compile(
    r"\s?(?:[kmgt]i?b|[kmgt]?hz|m?ah|[kmc]?m|kg|g|mg|lbs?|ml|l|w|kw|kwh|v|rpm|dpi|ppi|px|fps|ms|s|secs?|seconds?"
    r"|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|eur|euros?|usd|dollars?|gbp|pounds?|sek|kr|yen"
    r"|%|percent|digits?|chars?|characters?|bits?|bytes?|words?|steps?|calories|kcal|points?|pages?|people"
    r"|users?|members?|items?|units?|pieces?|times|x)\b", re.IGNORECASE)


def looks_quantity(number: str, after: str) -> bool:
    """`number` counts or measures something: a unit or a counted noun follows it ('5000 mAh', '2000 steps')."""
    return bool(number and _UNIT_AFTER.match(after))


def looks_token(value: str, min_length: int = 10) -> bool:
    """An API key, token or client secret: long, letters and digits mixed (or random), not a name."""
    core = strip_value(value)
    return len(core) >= min_length and looks_secret(core, hex_ok=True) and (
        bool(re.search(r"[A-Za-z]", core) and re.search(r"\d", core)) or entropy(core) >= 3.5)


def basic_credentials(value: str) -> bool:
    """Base64 of 'user:password', as HTTP Basic authentication sends it."""
    core = strip_value(value)
    if len(core) < 8 or not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", core):
        return False
    try:
        decoded = base64.b64decode(core + "=" * (-len(core) % 4), validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError):
        return False
    user, colon, password = decoded.partition(":")
    return bool(colon and user and password and decoded.isprintable())


def camel_humps(word: str) -> int:
    """Upper-case letters that follow a lower-case one: PurpleMonkeyDishwasher has 2, GitHub 1."""
    return len(re.findall(r"[a-z][A-Z]", word))


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    counts = {char: text.count(char) for char in set(text)}
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _plausible(core: str) -> bool:
    """Not a reference, URL, path, e-mail address, version, date, time, size or IP address."""
    return not (is_reference(core) or _URL_OR_PATH.fullmatch(core) or _NOT_A_SECRET.fullmatch(core))


# Words that start or fill a statement about a credential rather than the credential itself ("the passphrase is
# long", "requirepass never changes"): data/credential-words.txt of the text layer.
STOP_WORDS = wordlist("credential-words")
