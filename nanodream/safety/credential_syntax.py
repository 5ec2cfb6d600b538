"""Credentials written as syntax rather than sentences: configuration, commands, URLs and HTTP headers.

"requirepass foobared", "PGPASSWORD=…", "DB_PASS …", "mysql -u app -p…", "curl -u user:…",
"postgres://app:…@db", "Authorization: Basic …", "X-Api-Key: …". Here the syntax says which word is the
secret, so a value need only not be a word about it ("requirepass is enabled", "TOKEN_TYPE=bearer"),
a reference ($DB_PASSWORD) or a placeholder ("user:pass@host").
"""

from __future__ import annotations

import re

from nanodream.safety.secret_values import (
    STOP_WORDS,
    basic_credentials,
    is_reference,
    looks_default,
    looks_secret,
    looks_token,
    strip_value,
    without_markers,
)

PASSWORD = "Password"
AUTH_HEADER = "Authorization Header"
WEBHOOK = "Webhook Key"
URL_GRANT = "URL Credential"

_I = re.IGNORECASE
_DIRECTIVE = re.compile(r"\b(?:requirepass|masterauth|auth_pass|rpcpassword|wpa_passphrase|bindpw|rootpw|psk"
                        r"|sasl_password|smtp_pass(?:word)?|sshpass\s+-p)\b\s*[=:]?\s*(?P<value>\S+)", _I)
_SECRET_NAME = r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|api_?key|access_?key|auth_?key|private_?key|credentials?)"
_ASSIGNMENT = re.compile(rf"\b(?P<name>\w*{_SECRET_NAME}(?P<suffix>\w*))\s*[=:]\s*(?P<value>\S+)", _I)
# A configuration key followed by its value, as in a credentials file: "aws_secret_access_key wJalr…".
_KEY_THEN_VALUE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*_(?:[A-Za-z0-9]+_)*(?:secret|token|password|pass|pwd|api_key"
                             r"|access_key|secret_access_key|private_key)\s+(?P<value>\S+)", _I)
# user:password@host and user/password@host outside a URL: "ssh root:toor@nas.local".
_USER_PASS_AT_HOST = re.compile(r"(?<![\w/:.@-])[\w.+-]{1,64}(?P<separator>[:/])(?P<value>[^\s:/@]{3,64})@[\w-]+"
                                r"(?:\.[\w-]+)+")
# Words that stand where a directive's value would: "requirepass is enabled", "set requirepass in redis.conf".
_NOT_A_VALUE = frozenset(re.findall(r"\S+", """
yes no on off true false enabled disabled none null empty unset directive option setting is are was were be in on
at to of for by from with and or not the a an it this that set used required needed stored kept managed rotated
changed shared secret private should must can could will would may might has have had needs need gets got
"""))
_PLACEHOLDERS = frozenset({"pass", "password", "passwd", "secret", "pw", "pwd", "xxx", "xxxx", "***", "****", "...",
                           "…"})
_CLI_PASSWORDS = (
    re.compile(r"(?:^|\s)-u\s*\S+.*?\s-p(?P<value>[^\s-]\S*)"),  # mysql -u app -pSecret
    re.compile(r"(?:^|\s)(?:-u|--user)\s+[^\s:]+:(?P<value>\S+)"),  # curl -u user:secret
)
_URL_USERINFO = re.compile(r"(?<![\w+.-])[A-Za-z][\w+.-]{0,30}://[^\s:/@]{0,64}:(?P<value>[^\s@/]{1,200})@")
# "Authorization: Basic …", "authorization header is 'Bearer …'", "X-Api-Key: …", "X-Master-Key: …".
_HEADER = re.compile(r"\b(?:(?:proxy-)?authorization(?:\s+header)?\s*(?:(?::|=|is|was)\s*[`'\"]?)?"
                     r"(?P<scheme>basic|bearer|token|digest|apikey|api-key|sso-key)\b|(?:proxy-)?authorization\s*:"
                     r"|x-(?:[a-z0-9]+-){1,2}(?:key|token|secret)\s*:)\s*(?P<value>[^\s'\"`]{8,})", _I)
_SCHEME_VALUE = re.compile(r"\b(?:basic|bearer)\s+(?P<value>[A-Za-z0-9._~+/-]{12,}=*)", _I)
# A URL that is itself the credential: a chat bot's webhook, whose key is its last path segment (Feishu's
# ".../bot/v2/hook/<key>", Discord's ".../api/webhooks/<id>/<token>") or a query parameter (WeCom's
# ".../webhook/send?key=<key>", DingTalk's "access_token=…"). Anyone holding it posts as the bot.
_HOOK_PATH = re.compile(r"https?://[^\s/]+/(?:[^\s?#]*/)?(?:web)?hooks?/(?:[^\s/?#]+/)*(?P<value>[A-Za-z0-9_-]{16,})"
                        r"(?=[\s?#'\")\]>]|$)", _I)
_URL_KEY = re.compile(r"https?://[^\s?#]+\?(?:[^\s#]*&)?(?:key|token|access_token|secret|sign|signature|auth)="
                      r"(?P<value>[A-Za-z0-9_.~%-]{16,})", _I)

# What an OAuth redirect or a link carries as the credential itself: an authorization code ("…/callback?code=4/0A…"),
# a token of the implicit flow ("#id_token=…"), a client secret or a password in the query.
_URL_GRANT = re.compile(r"(?<=[?&#])(?:code|id_token|refresh_token|client_secret|api_?key|password|passwd|pwd)="
                        r"(?P<value>[A-Za-z0-9_.~%/+-]{16,})", _I)


def findings(line: str) -> list[tuple[str, str]]:
    """Every credential `line` sets or sends by syntax, as (rule, value)."""
    line = without_markers(line)
    return _configuration(line) + _commands_and_urls(line) + _headers(line)


def _configuration(line: str) -> list[tuple[str, str]]:
    """requirepass, masterauth, PGPASSWORD=, wpa_passphrase=, DB_PASS …"""
    found = [(PASSWORD, strip_value(m.group("value"))) for m in _DIRECTIVE.finditer(line)
             if _set_value(m.group("value"))]
    for match in _ASSIGNMENT.finditer(line):
        value = match.group("value")
        # TOKEN_TYPE=bearer names something else; DB_PASSWORD=hunter is the password whatever it looks like (a
        # configuration key, that is: in prose, "must pass: valid" is not one)
        config_key = "_" in match.group("name") or match.group("name").isupper()
        if looks_secret(value) or (config_key and not match.group("suffix") and _set_value(value)
                                   and not value.isdigit()):
            found.append((PASSWORD, strip_value(value)))
    found += [(PASSWORD, strip_value(m.group("value"))) for m in _KEY_THEN_VALUE.finditer(line)
              if looks_token(m.group("value"), min_length=8)]
    return found


def _set_value(value: str) -> bool:
    """What follows a password directive is the password, unless it is a word about it ("is", "enabled", "in")."""
    core = strip_value(value)
    return (len(core) >= 4 and not is_reference(core) and not re.search(r"[/\\]|\.\w{2,4}$", core)
            and core.lower() not in STOP_WORDS | _NOT_A_VALUE | _PLACEHOLDERS)


def _commands_and_urls(line: str) -> list[tuple[str, str]]:
    """scheme://user:password@host, root:toor@nas.local, mysql -u app -pSecret, curl -u user:secret, a bot's
    webhook URL, an OAuth code in a redirect."""
    found = [(PASSWORD, m.group("value")) for m in _URL_USERINFO.finditer(line)
             if m.group("value").lower() not in _PLACEHOLDERS and not is_reference(m.group("value"))]
    found += [(PASSWORD, m.group("value")) for m in _USER_PASS_AT_HOST.finditer(line)
              if looks_secret(m.group("value")) or looks_default(m.group("value"))
              or (m.group("separator") == ":" and _set_value(m.group("value")))]  # team/alice@… is a path
    for pattern in _CLI_PASSWORDS:
        found += [(PASSWORD, strip_value(m.group("value"))) for m in pattern.finditer(line)
                  if looks_secret(m.group("value")) or looks_default(m.group("value"))]
    for pattern in (_HOOK_PATH, _URL_KEY):
        found += [(WEBHOOK, m.group("value")) for m in pattern.finditer(line) if looks_token(m.group("value"), 16)]
    found += [(URL_GRANT, m.group("value")) for m in _URL_GRANT.finditer(line) if looks_token(m.group("value"), 16)]
    return found


def _headers(line: str) -> list[tuple[str, str]]:
    found = [(AUTH_HEADER, strip_value(m.group("value"))) for m in _HEADER.finditer(line)
             if looks_token(m.group("value"), min_length=8) or basic_credentials(m.group("value"))]
    found += [(AUTH_HEADER, m.group("value")) for m in _SCHEME_VALUE.finditer(line)
              if basic_credentials(m.group("value")) or looks_token(m.group("value"), min_length=16)]
    return found
