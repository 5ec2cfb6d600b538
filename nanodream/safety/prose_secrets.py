"""Credentials stated in prose: a word for a credential near a value that looks like one.

Token formats (AKIA…, ghp_…) have their own detectors; these rules catch what people write in sentences:
"the NAS pw is Tr1cky!Pass", "login root / s3cr3tP4ss on host", "credentials are admin/Winter2024!",
"AWS secret access key wJalr…", a passphrase, a PIN. Credentials written as configuration, commands, URLs
and headers are `credential_syntax`'s.

A cue is a credential's name (password, pw, passcode, API key, client secret, token, PIN, …). Its value is
the word right after it ("password Tr1cky!Pass"), the word after a connector ("password for the NAS is …",
"pw: …", "key = …", "was changed to …"), or the word before it ("Winter2024! is the guest password"). The
value must pass `secret_values`: a cue followed by "stored", "16", "AES-256" or "in the vault" is a fact
about a secret, not the secret. A cue that is the first half of another noun ("password manager", "token
limit", "secret santa", "passphrase-protected") names something else and is ignored.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator

from nanodream.safety.cards import labelled_otherwise
from nanodream.safety.secret_values import (
    STOP_WORDS,
    built_from_a_password_word,
    could_be_a_named_password,
    could_be_a_secret,
    looks_default,
    looks_numeric_code,
    looks_password_shaped,
    looks_quantity,
    looks_secret,
    looks_strong,
    looks_token,
    looks_unmistakable,
    strip_value,
    without_markers,
)
from nanodream.text.cjk import CJK_CHARS
from nanodream.text.lists import phrases, wordlist

PASSWORD = "Password"
PASSPHRASE = "Passphrase"
PIN = "PIN"
KEYWORD = "Secret Keyword"

Finding = tuple[str, str]  # (rule, value as written in the line)

_I = re.IGNORECASE


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Longer names first: the alternation takes the first that matches at a position.
_PASSWORD_CUE = (r"(?:(?:wi-?fi|wpa2?|wlan|wireless|network|guest|hotspot)\s+(?:password|passphrase|key|code|pass)"
                 r"|(?:code|key|password)\s+(?:to|for|of)\s+(?:the\s+)?(?:wi-?fi|network|router|hotspot)"
                 r"|pass(?:word|wd|wort|code)s?|pass[\s-]word|pword|pwd|pw|p/w"
                 r"|pas{1,2}(?:w(?:or|ro|o|r)?d|owrd|ord)s?|pass)")  # typed in haste: "passwod", "pasword"
_PHRASE_CUE = (r"(?:pass\s?phrases?|(?:seed|recovery|mnemonic|backup|encryption|unlock|secret|security|disk|drive"
               r"|vault|wallet)\s+(?:phrase|words|sentence)|master\s+password"
               r"|(?:1[28]|2[04]|twelve|eighteen|twenty[\s-]four)[\s-]+(?:secret\s+|seed\s+|recovery\s+)?words"
               r"|(?:wallet|recovery)\s+seed(?:\s+(?:phrase|words))?|mnemonic)")
_KEY_CUE = (r"(?:(?:api|access|secret|private|client|app|consumer|licen[cs]e|product|activation|encryption|signing"
            r"|master|recovery|deploy|webhook|shared|session|bot|auth|bearer|refresh|personal\s+access|long-lived"
            r"|otp|totp|2fa|mfa|integration|service\s+account)[\s_-]*(?:access[\s_-]*)?(?:keys?|tokens?|secrets?)"
            r"|secrets?|tokens?)")
_NAMED_KEY = re.compile(r"\b[A-Z][\w.-]{1,30}\s+(?:API\s+|api\s+)?key\b")
# Licence and product keys: groups of letters or digits ("VK7JG-NPHTM-…", "1118-1234-5678-9012-3456-7890").
_LICENCE = re.compile(r"(?:[A-Z0-9]{4,6}-){3,}[A-Z0-9]{4,6}")
_PIN_CUE = (r"(?:pin(?:\s*code)?|puk\d?|passcode|(?:door|alarm|gate|lock|entry|garage|safe|unlock|keypad|combination"
            r"|access|master|security|disarm|arming|host|meeting|verification|one-time|otp|sms|2fa|sim|parental|locker"
            r"|pairing|voicemail)\s+code|(?:door\s+|gate\s+|front\s+gate\s+)?keypad(?:\s+code)?"
            r"|code\s+(?:to|for|of)\s+(?:the\s+|my\s+|our\s+)?(?:[\w'-]+\s+){0,2}(?:door|gate|alarm|safe|lock"
            r"|padlock|garage|building|house|storage\s+unit|locker|shed|cabinet|box)"
            r"|(?:safe\s+|lock\s+)?combination(?:\s+code)?|alarm|padlock)")
# A code a service sends to pair or sign in, often in letters and digits ("Pairing code: X7KQ-29PL").
_SENT_CODE = re.compile(r"(?:verification|one-time|otp|sms|2fa|pairing|access|security|unlock)\s+code", re.IGNORECASE)
_LETTERED_CODE = re.compile(r"(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9]{2,8}(?:-[A-Za-z0-9]{2,8}){0,3}")
_PAIR_CUE = (r"(?:user(?:name)?\s*(?:/|and|&|\+)\s*pass(?:word)?|u/p|log\s?in|logon|sign[\s-]?in|credentials?|creds"
             r"|basic\s+auth|account)")

# Nouns that make the cue the first half of another thing: "password manager", "token limit", "PIN pad".
_COMPOUND = _words("""
manager managers policy policies reset resets hash hashes hashing hashed field fields prompt prompts length rotation
rotations limit limits budget budgets count counts usage expiry expiration expires vault store storage file files
generator strength requirement requirements rule rules change changes protected protection less based login
authentication auth complexity history recovery entropy attempt attempts dialog screen form page input box spraying
hint hints pad santa sauce service services scheme format type types name names id ids endpoint endpoints server
servers holder ring chain pair pairs exchange size sizes window cost costs price model models bucket provider
lifetime ttl scope scopes permission permissions list agent fingerprint reuse sharing strategy audit leak leaks
breach sprawl scanning scanner detection cache mode flow grant grants level levels life refresh refreshes
helper helpers option options setting settings flag flags env variable variable's file's card cards
review reviews freeze base snippet snippets block blocks editor
""")
NEARBY_REACH = 80  # characters after a cue searched for an unmistakable password
_NEARBY_CUE = re.compile(rf"(?<![\w/]){_PASSWORD_CUE}(?![\w/])|\b(?:requirepass|masterauth"
                         r"|log(?:s|ged|ging)?\s+(?:in|on)|sign(?:s|ed|ing)?\s+in)\b", _I)
_SENTENCE_END = re.compile(r"[.;!](?:\s|$)|\n")
# For other detectors keyed on a credential's name: the name is not followed by one of these nouns.
NOT_A_COMPOUND = rf"(?!-\w|\s+(?:{'|'.join(sorted(_COMPOUND, key=len, reverse=True))})\b)"
# What may stand between a cue and its connector: "password [for the NAS] is", "pw [(old)] was", "token [we use] is".
_GAP_AND_CONNECTOR = re.compile(
    r"\s*(?:\([^)]{0,40}\)\s*)?(?:(?:for|of|on|to|at|in|from|with|into|used|we|i|you|they|he|she|it|someone"
    r"|somebody|that|which|here|there|now|currently|itself)\b(?:[^.;!?\n]|\.(?=\S)){0,48}?"
    # a relative clause: "the password [Tom set] is", "the key [the bot uses] is"
    r"|(?:[\w'-]+\s+){1,3}?(?:set|chose|chosen|picked|uses?|used|gave|given|created|made|wrote|typed|entered|shared"
    r"|told|sent|changed|got|has|had|needs?)\b)?"
    r"(?:\s+(?:is|was|are|were|remains|stays|becomes|became|equals|reads|as|being)\b|\s*(?::=|[:=]|->|=>|→)"
    r"|\s+(?:(?:got|has\s+been|have\s+been|had\s+been|was|is|were)\s+)?(?:set|changed|reset|updated|rotated|switched)"
    r"\s+to\b|\s*[,?]?\s*(?:it'?s|it\s+is|that'?s|which\s+is)\b"
    r"|\s*,(?=\s*[^\s,]+,))", _I)  # an appositive: "the Zoom password, 7Hq2xP, over the phone"
_FILLER = re.compile(r"(?:\s+(?:now|still|currently|simply|just|literally|actually|set|changed|reset|updated|to|being"
                     r"|always)\b|\s*:)*\s*", _I)
_VALUE = re.compile(r"\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|“[^”\n]{1,200}”|\S+")
_NEXT_WORD = re.compile(r"(?:-|\s+)([A-Za-z']+)")
_BEFORE = (r"(?<!\S)(?P<value>\S+)\s+(?:is|was|as|=)\s+(?:[\w'-]+\s+){0,7}?(?=(?P<cue>%s)\b)")
_LOGIN_CUE = r"(?:(?:to\s+)?(?:log|sign)\s*(?:in|on)|logging\s+in|signing\s+in)"
_BEFORE_CUES = ((re.compile(_BEFORE % _PASSWORD_CUE, _I), looks_secret, PASSWORD),
                (re.compile(_BEFORE % _LOGIN_CUE, _I), looks_strong, PASSWORD),
                (re.compile(_BEFORE % _KEY_CUE, _I), looks_token, KEYWORD))
_PAIR = re.compile(r"(?:(?:with|using|as)\s+)?[`'\"]?(?P<user>[\w.@+-]{1,64})\s*[/:]\s*(?P<value>[^\s/`'\"]+)")
# "log in as deploy with Rollout#88", "ssh to nas as root using pw Hx7#…"
_AS_USER_WITH = re.compile(r"\b(?:log\s?in|logon|sign\s?in|ssh|connect|authenticate)\b(?:\s+(?:to|into|on)\s+\S+)?"
                           r"\s+as\s+\S+\s+(?:with|using|and|/|:)\s+(?:(?:the\s+)?(?:password|pw|pass)\s+)?"
                           r"(?P<value>\S+)", _I)
# "use test/Test1234! to sign in", "demo/Demo#2026 for the login"
_PAIR_FOR_LOGIN = re.compile(r"(?<![\w/:.-])[\w.@+-]{1,64}\s*[/:]\s*(?P<value>[^\s/]+)\s+(?:to\s+(?:sign|log)\s*"
                             r"(?:in|on)|for\s+(?:the\s+)?(?:login|log-?in|sign-?in)|as\s+(?:the\s+)?(?:login"
                             r"|credentials))\b", _I)
# A bare user:password whose password mixes cases and digits: "entry iot:Mqtt-Br0ker-9"; not two models' names
# ("glm-4.7 / MiniMax-M2.5": a version inside), nor a setting's value ("js?v=dc4d5a9b:5449Understand": a hash).
_VERSIONED = re.compile(r"\d\.\d")
_BARE_PAIR = re.compile(r"(?<![\w/:@.=?&-])[a-z][\w.-]{1,30}(?::|\s/\s)(?P<value>(?=\S*[a-z])(?=\S*[A-Z])(?=\S*\d)"
                        r"[^\s:/@]{8,})")
_USER_THEN_PASS = re.compile(r"\b(?:user(?:name)?|login|u)\b\s*[:=]?\s*[\w.@+-]+[,;]?\s+(?:and\s+)?(?:the\s+)?"
                             r"(?:pass(?:word)?|pw|pwd|p)\b\s*[:=]?\s*(?P<value>\S+)", _I)
# "she uses 'Mango&Kiwi2020' for her Amazon account": a password-shaped value given for accounts or logins.
_USED_FOR_ACCOUNTS = re.compile(r"\b(?:uses?|used|reuses?|reused|picked|chose|chosen|typed|entered)\s+(?P<value>\S+)"
                                r"\s+(?:for|as|on|to\s+(?:log|sign)\s+in)\b(?:\s+[\w'-]+){0,6}?\s+(?:accounts?|logins?"
                                r"|log-?ins?|sign-?ins?|passwords?|vaults?)\b", _I)
_PHRASE_WORDS = re.compile(r"[A-Za-z]+(?:[ -][A-Za-z]+){2,23}")


def findings(line: str) -> list[Finding]:
    """Every credential stated in prose on `line`, as (rule, value)."""
    line = without_markers(line)
    found: list[Finding] = []
    for finder in _FINDERS:
        found += finder(line)
    return found


# cue → value ------------------------------------------------------------------------------------------------


def _cue_values(line: str, cue: str) -> Iterator[tuple[re.Match[str], int, bool]]:
    """(the cue, where a candidate value starts, whether a connector stood before it) for each live use of `cue`."""
    for match in re.finditer(rf"(?<![\w/]){cue}(?![\w/])", line, _I):
        for start, connected in _candidates(line, match.end()):
            yield match, start, connected


def _candidates(line: str, end: int) -> Iterator[tuple[int, bool]]:
    """Where a value may start after a cue ending at `end`: right after it, and after a connector."""
    word = _NEXT_WORD.match(line, end)
    if word and (word.group(1).lower() in _COMPOUND or line[end] == "-"):
        return
    if line[end:end + 1].isspace():
        yield len(line) - len(line[end:].lstrip()), False
    connector = _GAP_AND_CONNECTOR.match(line, end)
    if connector is not None:
        yield _FILLER.match(line, connector.end()).end(), True


def _value_at(line: str, start: int) -> str:
    match = _VALUE.match(line, start)
    return match.group(0) if match else ""


# A password's value told in the past ("the commit that removed the password was a1b2c3d") may be a commit's id; one
# stated as it is ("the database password is abc123456") is the password, hex or not.
_IN_THE_PAST = re.compile(r"\b(?:was|were|had|used to be|era|war|était|foi)\b", _I)


def _password_values(line: str) -> list[Finding]:
    found = []
    for cue, start, connected in _cue_values(line, _PASSWORD_CUE):
        if cue.group(0).lower() == "pass" and not re.search(r"[:=]", line[cue.end():start]):
            continue  # "pass" alone is too common a word (boarding pass, tests pass): only "pass: …" counts
        value = _value_at(line, start)
        last_word = re.match(r"[.,;:!?)]*\s*(?:$|[.;(—–-])", line[start + len(value):]) is not None
        stated = connected and not _IN_THE_PAST.search(line[cue.end():start])  # "password is abc123456"
        if looks_secret(value, hex_ok=stated) or (looks_default(value) and (connected or last_word)) or (
                connected and (_quoted_word(value) or last_word and _plain_word(value))):
            found.append((PASSWORD, strip_value(value)))
    return found


def _named_in_other_languages(name: str) -> re.Pattern[str]:
    """The words of `text/data/<name>.txt`: inside other words in a script written without spaces ("我的github密码"),
    whole words in the others ("senha", "mot de passe")."""
    return re.compile("|".join(
        re.escape(word) if not re.search(r"[A-Za-zÀ-ɏЀ-ӿ]", word) else rf"(?<![\w/]){re.escape(word)}(?![\w/])"
        for word in phrases(name)), _I)


# A password's name in other languages (text/data/password-words.txt).
_OTHER_CREDENTIAL_WORD = _named_in_other_languages("password-words")
# An account's name in those languages (text/data/account-words.txt): a user/password pair may follow it.
_OTHER_ACCOUNT_WORD = _named_in_other_languages("account-words")
# What joins a password's name to its value in the languages of text/data/password-words.txt: "密码是 …", "パスワードは
# …", "비밀번호는 …", "mật khẩu là …", "mi clave es …", "das Kennwort lautet …", or a colon.
_JOIN = r"(?:[:：=]|是|为|為|は|が|는|은|이|—|(?:là|est|es|era|é|ist|lautet|jest|is)(?!\w))"  # "est", not "es"+"t"
_OTHER_CONNECTOR = re.compile(rf"[\s*_]*{_JOIN}?\s*", _I)  # "**GitHub 账号**：…": markdown's emphasis aside
# … or a few words after the name, then one of those: "senha do roteador: …", "пароль от почты: …".
_OTHER_GAP = re.compile(rf"(?:\s*[^\s.。!！?？;；]+){{1,3}}?\s*{_JOIN}\s*", _I)
# A value ends where the sentence's own script takes over again ("パスワードはLove160630です").
_OTHER_VALUE = re.compile(rf"[^\s{CJK_CHARS}\u3000-\u303f\uff00-\uffef]+")  # CJK stops and full-width forms too


def _other_language_password_values(line: str) -> list[Finding]:
    """'我的github密码 Love160630', 'senha: Casa2024', 'パスワードはLove160630です': a password's name in another
    language (text/data/password-words.txt), then a value that looks like a secret or is a default password."""
    found = []
    for cue in _OTHER_CREDENTIAL_WORD.finditer(line):
        for right_after, joined in ((True, _OTHER_CONNECTOR.match(line, cue.end())),
                                    (False, _OTHER_GAP.match(line, cue.end()))):
            value = _OTHER_VALUE.match(line, joined.end()) if joined is not None else None
            stated = joined is not None and not _IN_THE_PAST.search(joined.group(0))  # "密码是 abc123456"
            credible = could_be_a_named_password if right_after else could_be_a_secret  # not "…是1Password"
            if value is not None and (credible(value.group(0), hex_ok=stated)  # a default password too
                                      or right_after and _a_word_after_a_cjk_name(cue.group(0), value, line)):
                found.append((PASSWORD, strip_value(value.group(0))))
                break
    return found


def _a_word_after_a_cjk_name(name: str, value: re.Match[str], line: str) -> bool:
    """'密码：cheche', 'sudo密码是hunter': a plain word in Latin letters ending the sentence right after a password's
    name written in characters is the password; in such a script, nothing else about it is spelled that way."""
    ends = re.match(r"\s*(?:$|[。.!！?？;；,，、\n])", line[value.end():]) is not None
    return not re.search(r"[A-Za-z]", name) and ends and _plain_word(value.group(0))


def _other_language_pairs(line: str) -> list[Finding]:
    """'GitHub 账号：ada@example.com / Love160630', 'conta: ana / Praia7781': a user/password pair after an account's
    name in another language (text/data/account-words.txt)."""
    found = []
    for cue in _OTHER_ACCOUNT_WORD.finditer(line):
        pair = _PAIR.match(line, _OTHER_CONNECTOR.match(line, cue.end()).end())
        if pair and not pair.group("user").isdigit() and _pair_password(pair.group("value")):
            found.append((PASSWORD, strip_value(pair.group("value"))))
    return found


# A word that says what a password is like, not what it is: "… is hashed", "… is expiring", "… is unguessable".
_DESCRIBING = re.compile(r"\w+(?:ed|ing|ly|ous|ful|less|able|ible|ive)", _I)
_STATES = _words("""
wrong incorrect correct invalid valid missing empty blank fine okay good bad hidden visible mandatory optional lost
ready too very simple easy hard obvious secure insecure sensitive case-sensitive strict plain text clear
""")


def _plain_word(value: str) -> bool:
    """One plain word ending the sentence after the password's name and "is": 'my sudo password is cheche'. A
    word a statement about the password ends in ("is wrong", "is stored", "is expiring") is none."""
    core = strip_value(value)
    return (re.fullmatch(r"[^\W_][\w-]{3,63}", core) is not None and not re.fullmatch(r"[0-9a-f]{7,64}", core)
            and core.lower() not in STOP_WORDS | _COMPOUND | _STATES and not _DESCRIBING.fullmatch(core))


def _quoted_word(value: str) -> bool:
    """A single quoted word stated as a password: 'the wifi password is "sunshine"'."""
    if value[:1] not in "\"'`“" or value[-1:] not in "\"'`”":
        return False
    core = strip_value(value)
    return bool(re.fullmatch(r"\S{6,}", core)) and core.lower() not in STOP_WORDS | _COMPOUND


def _key_values(line: str) -> list[Finding]:
    """'the Mailgun API key is key-3ax6…', 'client secret = GOCSPX-…', 'the OpenRouter key they use is or-v1-…'."""
    found = [(KEYWORD, strip_value(value)) for _, start, _ in _cue_values(line, _KEY_CUE)
             if looks_token(value := _value_at(line, start)) or _LICENCE.fullmatch(strip_value(value))]
    for cue in _NAMED_KEY.finditer(line):  # "<Provider> key": a capitalised name before "key"
        found += [(KEYWORD, strip_value(value)) for start, _ in _candidates(line, cue.end())
                  if looks_token(value := _value_at(line, start))]
    return found


def _pin_values(line: str) -> list[Finding]:
    """'Debit card PIN is 4827', 'PUK 55817730', 'the alarm code for the garage is 5190#'."""
    found = []
    for cue, start, connected in _cue_values(line, _PIN_CUE):
        spelled_out = cue.group(0).isupper() or cue.group(0).lower().endswith("code")
        value = _value_at(line, start)
        sent = _SENT_CODE.fullmatch(cue.group(0)) is not None and _LETTERED_CODE.fullmatch(strip_value(value))
        if (looks_numeric_code(value) or sent) and (connected or spelled_out):
            found.append((PIN, strip_value(value).rstrip("#*")))
    return found


def _values_before(line: str) -> list[Finding]:
    """'Winter2024! is the guest wifi password', 'uses P4ss as the password'."""
    found = []
    for pattern, accept, rule in _BEFORE_CUES:
        for match in pattern.finditer(line):
            after = _NEXT_WORD.match(line, match.end() + len(match.group("cue")))
            if after and (after.group(1).lower() in _COMPOUND):
                continue
            if accept(match.group("value")):
                found.append((rule, strip_value(match.group("value"))))
    return found


def _pairs(line: str) -> list[Finding]:
    """'login root / s3cr3t', 'credentials are admin/Winter2024!', 'user media, pass M3dia!'."""
    found = []
    for _, start, _ in _cue_values(line, _PAIR_CUE):
        pair = _PAIR.match(line, start)
        if pair and not pair.group("user").isdigit() and _pair_password(pair.group("value")):
            found.append((PASSWORD, strip_value(pair.group("value"))))
    for pattern in (_USER_THEN_PASS, _AS_USER_WITH, _BARE_PAIR, _PAIR_FOR_LOGIN):
        found += [(PASSWORD, strip_value(m.group("value"))) for m in pattern.finditer(line)
                  if _pair_password(m.group("value")) and not (pattern is _BARE_PAIR and _VERSIONED.search(m.group(0)))]
    return found


def _pair_password(value: str) -> bool:
    return looks_secret(value) or looks_default(value)


def _passphrases(line: str) -> list[Finding]:
    """Several words after a passphrase's name, or any quoted phrase stated as a password."""
    found = []
    for cue in (_PHRASE_CUE, _PASSWORD_CUE):
        for _, start, connected in _cue_values(line, cue):
            value = _value_at(line, start)
            if value[:1] in "\"'`“" and len(strip_value(value).split()) >= 2:
                found.append((PASSPHRASE, strip_value(value)))
            elif cue is not _PHRASE_CUE:
                if connected and (phrase := _words_as_password(line, start)):
                    found.append((PASSPHRASE, phrase))
            elif looks_secret(value):
                found.append((PASSPHRASE, strip_value(value)))
            elif connected and (words := _PHRASE_WORDS.match(line, start)) and _word_phrase(words.group(0)):
                found.append((PASSPHRASE, words.group(0)))
    return found


_HYPHENED_WORDS = re.compile(r"[a-z]{2,}(?:-[a-z]{2,}){2,11}(?:-\d{1,4})?(?![\w-])")
_LOWER_WORDS = re.compile(r"[a-z]{2,}(?: [a-z]{2,}){3,11}(?=\s*(?:[.;!,)]?\s*$|[.;!]\s))")
# Two words or more ending the sentence right after "password is": "my password is hunter two banana"; not
# after "was changed" ("… was changed last week").
_FEW_WORDS = re.compile(r"[A-Za-z]{2,}(?: [A-Za-z]{2,}){1,11}(?=\s*(?:[.;!,)]?\s*$|[.;!,]\s))")
_NUMBER_WORDS = _words("one two three four five six seven eight nine ten eleven twelve")
# An app password as Google shows it, four groups of four letters ("qwer tyui opas dfgh"): no sentence is so spelled.
_APP_PASSWORD = re.compile(r"[a-z]{4}(?: [a-z]{4}){3}(?![\w-])")


def _words_as_password(line: str, start: int) -> str:
    """Words stated as a password after its name: joined by hyphens ('the wifi key is correct-horse-battery-staple'),
    four groups of four letters (an app password: 'my app password is qwer tyui opas dfgh'), four or more plain
    words ending the sentence after a colon ('Password for the shared drive: tiger lamp ocean seven'), or two or
    more after "is" ('my password is hunter two banana') — never a statement about it ('case-sensitive', 'changes
    every month at the office', 'case sensitive')."""
    after_symbol = re.search(r"(?::|=|->|=>|→)\s*$", line[max(start - 40, 0):start]) is not None
    match = (_HYPHENED_WORDS.match(line, start) or _APP_PASSWORD.match(line, start)
             or (_LOWER_WORDS.match(line, start) if after_symbol else None))
    after_is = re.search(r"\b(?:is|=)\s*$", line[max(start - 8, 0):start], _I) is not None
    few = _FEW_WORDS.match(line, start) if not match and after_is else None
    phrase = (match or few).group(0) if match or few else ""
    words = re.split(r"[ -]", phrase.lower())
    if not phrase or any(word in _COMPOUND for word in words) or " " in phrase and _says_something(words):
        return ""
    if few and _describes(words):
        return ""
    return phrase if _word_phrase(phrase) else ""


def _describes(words: list[str]) -> bool:
    """Words that say what a password is like ("case sensitive", "too short", "different now"), told apart from
    a few words that are the password ("hunter two banana", "correct horse battery staple") by their share of
    words a statement about a password is made of."""
    telling = [word for word in words if word not in _NUMBER_WORDS]
    said = sum(word in STOP_WORDS | _STATES or _DESCRIBING.fullmatch(word) is not None for word in telling)
    return not telling or said * 4 > len(words)


def _says_something(words: list[str]) -> bool:
    """Plain words that make a sentence ('check the fridge note', 'ask the admin for it'), not a list of words."""
    return words[0] in wordlist("imperatives") or any(word in wordlist("function-words") for word in words)


def _word_phrase(phrase: str) -> bool:
    """A diceware-like phrase: no statement words ('stored in the vault', 'at least five words')."""
    words = [word.lower() for word in re.split(r"[ -]", phrase)]  # a number word may be one of the phrase's
    return words[0] not in STOP_WORDS and sum(word in STOP_WORDS - _NUMBER_WORDS for word in words) * 4 <= len(words)


def _used_for_accounts(line: str) -> list[Finding]:
    """A quoted value, or one with a symbol, digit and letters, that someone uses for their accounts."""
    return [(PASSWORD, strip_value(m.group("value"))) for m in _USED_FOR_ACCOUNTS.finditer(line)
            if looks_secret(m.group("value")) and (m.group("value")[:1] in "'\"`“" or re.search(
                r"\w[^\w\s]+\w", m.group("value")) and re.search(r"\d", m.group("value")))]


def _spelled_passwords(line: str) -> list[Finding]:
    """'He always uses P@ssw0rd2026': a password that spells the word password (or admin, qwerty…)."""
    return [(PASSWORD, strip_value(token)) for token in line.split() if built_from_a_password_word(token)]


def _strong_nearby(line: str) -> list[Finding]:
    """A value only a password looks like, later in the same sentence as a password's name or a login:
    'set the NAS pw to R3silio!Bkp', 'the wifi password was written on the fridge: BeachHouse2026',
    'he logs in to the bank with Castle#Gate2026', 'requirepass is set to Rds-Prod-Pw!4'."""
    found, judged = [], {}  # each distinct token judged once: a line of cues repeats the same words
    for cue in _NEARBY_CUE.finditer(line):
        if _NEXT_WORD.match(line, cue.end()) and _NEXT_WORD.match(line, cue.end()).group(1).lower() in _COMPOUND:
            continue
        sentence = _SENTENCE_END.split(line[cue.end():cue.end() + NEARBY_REACH], maxsplit=1)[0]
        for token in sentence.split():
            if token not in judged:
                judged[token] = looks_unmistakable(token)
            if judged[token]:
                found.append((PASSWORD, strip_value(token)))
    return found


# Any word for a credential or for logging in: a password-shaped value in its sentence, before or after it, is
# the credential ('My NAS credentials: maya, Gx7!pq2Lz.', 'I log into the router using Qw9#zt4Kp.',
# 'Hm7$rv2Xq — that's my bank password.').
_CREDENTIAL_WORD = re.compile(
    r"(?<![\w/])(?:pass(?:word|wd|wort|code|phrase|key)s?|pass[\s-]word|pwd|pw|p/w|pins?|puk|codes?|keys?"
    r"|secrets?|tokens?|credentials?|creds|log-?ins?|logons?|sign-?ins?|(?:log|sign)(?:s|ged|ging|ed|ing)?\s+"
    r"(?:in|on)(?:to)?|unlock(?:s|ed|ing)?|auth(?:enticate[sd]?|enticating)?)(?![\w/])", _I)
SHAPE_REACH = 80  # characters before and after a credential's word searched for a password-shaped value


# A token a password could be: six characters or more, none of CJK script or typing, which has no spaces to end a
# token ("這已是第３次ＳＥＴＵＰ你了，…，BOT" is a sentence, not one word).
_SHAPED_TOKEN = re.compile(rf"[^\s{CJK_CHARS}\u3000-\u303f\uff00-\uffef]{{6,}}")


def _password_shaped_near(line: str) -> list[Finding]:
    """A password-shaped value in the same sentence as a word for a credential, before or after it.

    Tokens are judged first (each distinct one once) and only a password-shaped one looks for its cue, so a
    long line full of credential words costs no more than one full of anything else.
    """
    found, shaped = [], {}
    for token in _SHAPED_TOKEN.finditer(line):
        value = token.group(0)
        if value not in shaped:
            shaped[value] = bool(re.search(r"\d", value)) and looks_password_shaped(value)
        if shaped[value] and _cue_in_sentence(line, token.start(), token.end()):
            found.append((PASSWORD, strip_value(value)))
    return found


def _cue_in_sentence(line: str, start: int, end: int) -> bool:
    """A word for a credential within reach of `line[start:end]`, in its sentence, that is not the first half of
    another noun ('login name', 'PIN pad', 'key fob')."""
    before = _SENTENCE_END.split(line[max(start - SHAPE_REACH, 0):start])[-1]
    after = _SENTENCE_END.split(line[end:end + SHAPE_REACH], maxsplit=1)[0]
    for text in (before, after):
        for cue in _CREDENTIAL_WORD.finditer(text):
            word = _NEXT_WORD.match(text, cue.end())
            if not (word and word.group(1).lower() in _COMPOUND):
                return True
    return False


# Any word for what opens a door, a phone or a card with a number: a numeric code in its sentence, before or after
# it, is that code ('9021 is my ATM PIN.', 'the front door keypad takes 2580', 'Phone unlocks with 845120',
# 'PIN backup 2580', '4482 — that's the code for the storage unit'). "code" counts unless a public kind of code
# names it ("zip code 10001", "error code 5003": text/data/public-codes.txt).
_CODE_WORD = re.compile(
    r"(?<![\w/])(?:pins?|puks?\d?|pass\s?codes?|combos?|combinations?|key\s?pads?|disarm(?:s|ed|ing)?|codes?"
    r"|unlock(?:s|ed|ing)?(?:\s+(?:it|them|[\w'-]{1,30}|the\s+[\w'-]{1,30}|my\s+[\w'-]{1,30}))?"
    r"\s+(?:with|using|by\s+\w{1,20}ing)|to\s+(?:unlock|get\s+in(?:to)?|let\s+\w{1,20}\s+in|buzz\s+in))(?![\w/])", _I)
_KIND = re.compile(r"([\w'-]+)[\s-]+$")
_NUMBER = re.compile(r"(?<![\w/.,:#$€£¥-])\d[\d -]{2,12}\d(?:[#*](?!\w))?(?![\w/.,:-]\w|%)")
_EXAMPLE = re.compile(r"(?:e\.g\.|i\.e\.|for\s+example|for\s+instance|such\s+as|like|say)\s*$", _I)
_YEAR = re.compile(r"(?:19|20)\d\d")
MAX_DIGITS = 10  # a PUK has 8, a phone's passcode up to 10; more is a meeting ID, a phone or an account number
AROUND_A_NUMBER = 40  # characters each side of a number read to tell what it is
LABEL_WORDS = 2  # words right before a number that may say what it is ('order no. 4111'; not 'Phone unlocks with')
# A capitalised word or an acronym right before a number names it ('Room 2104', 'PR 4521', 'Flight SK 1415'),
# unless it is the name of a code ('PIN 4827', 'Keypad: 2580') or says what to do with it ('Enter 8812').
_A_NAME = re.compile(r"(?!(?i:pins?|puks?|pass\s?codes?|codes?|combos?|combinations?|key\s?pads?)\W*$)"
                     r"(?:[A-Z][a-z]+|[A-Z]{2,5})")
_CODE_VERBS = frozenset({"enter", "type", "dial", "press", "punch", "key", "tap", "input"})


def _numeric_code_near(line: str) -> list[Finding]:
    """A PIN or door code in the same sentence as a word for one, before or after it: 4 to 10 digits (or a
    combination), not a year, an amount, a quantity, an example, an address or a number labelled otherwise.

    The words for codes and the sentence ends are found once per line, so a long line costs one pass."""
    cues = _code_words(line)
    if not cues:
        return []
    breaks = [match.start() for match in _SENTENCE_END.finditer(line)]
    found = []
    for number in _NUMBER.finditer(line):
        value = number.group(0).strip()
        if not looks_numeric_code(value) or _YEAR.fullmatch(value) or sum(c.isdigit() for c in value) > MAX_DIGITS:
            continue
        if _cue_within_reach(cues, breaks, number.start(), number.end()) and not _other_number(line, number):
            found.append((PIN, value.rstrip("#*")))
    return found


def _code_words(line: str) -> list[tuple[int, int]]:
    """Where the words for codes are on `line`, minus first halves of other nouns ('PIN pad') and public kinds
    of code ('zip code')."""
    spans = []
    for cue in _CODE_WORD.finditer(line):
        word = _NEXT_WORD.match(line, cue.end())
        kind = _KIND.search(line[max(cue.start() - 30, 0):cue.start()]) if cue.group(0).lower()[:4] == "code" else None
        if not (word and word.group(1).lower() in _COMPOUND) and not (
                kind and kind.group(1).lower() in wordlist("public-codes")):
            spans.append((cue.start(), cue.end()))
    return spans


def _cue_within_reach(cues: list[tuple[int, int]], breaks: list[int], start: int, end: int) -> bool:
    """The nearest cue before `start` or after `end` lies within SHAPE_REACH, with no sentence end between."""
    index = bisect_left(cues, (start, start))
    nearest = ([(cues[index - 1][1], start)] if index else []) + ([(end, cues[index][0])] if index < len(cues) else [])
    for first, last in nearest:
        if 0 <= last - first <= SHAPE_REACH and bisect_left(breaks, first) == bisect_left(breaks, last):
            return True
    return False


def _other_number(line: str, number: re.Match[str]) -> bool:
    """An example ('e.g. 123456'), a quantity ('4500 steps'), an address ('4471 Kungsgatan') or a number the
    words before it label as something else ('order 4111', 'room 2104')."""
    before = line[max(number.start() - AROUND_A_NUMBER, 0):number.start()]
    after = line[number.end():number.end() + AROUND_A_NUMBER]
    label = before.split()[-LABEL_WORDS:]
    return bool(_EXAMPLE.search(before) or looks_quantity(number.group(0), after)
                or re.match(r"\s+[A-Z][a-zäöüåéø]+\b(?!['’])", after) and number.start() > 0
                or labelled_otherwise(" ".join(label)) or label and _names_a_number(label[-1]))


def _names_a_number(word: str) -> bool:
    """'Room', 'PR', 'Flight' before a number; not a verb saying what to do with it ('Enter 8812', 'Dial 4471')."""
    return bool(_A_NAME.fullmatch(word)) and word.lower() not in wordlist("imperatives") | _CODE_VERBS


_FINDERS: tuple[Callable[[str], list[Finding]], ...] = (
    _passphrases, _pairs, _other_language_pairs, _password_values, _other_language_password_values, _key_values,
    _pin_values, _values_before, _spelled_passwords, _used_for_accounts, _strong_nearby, _password_shaped_near,
    _numeric_code_near,
)
