"""Credentials stated in prose: every shape issue #24 names is caught and redacted whole, ordinary facts about
passwords, keys, tokens, versions, hashes, ports, dates and prices are left alone, and the corpora in
bench/corpora/ stay above the targets (precision and recall ≥ 0.95)."""

from __future__ import annotations

import json

import pytest

from bench import secret_prose
from bench._corpus import load, score
from nanodream.safety import cards, secret_scan

# (sentence, the values that must not survive redaction). Several wordings per shape.
STATED = {
    "nas-pw": ("- the NAS pw is Tr1cky!Pass, don't lose it", ["Tr1cky!Pass"]),
    "pw-connector-words": ("The root password on db1.internal was changed to Hx7#pQ2m", ["Hx7#pQ2m"]),
    "password-before-name": ("Winter2024! is the password for the guest VPN", ["Winter2024!"]),
    "login-user-slash-password": ("login root / s3cr3tP4ss on host nas.lan", ["s3cr3tP4ss"]),
    "login-default-pair": ("the default login for the switch is admin/admin", ["admin/admin"]),
    "credentials-pair": ("credentials are admin/Winter2024!", ["Winter2024!"]),
    "creds-colon-pair": ("- Grafana creds: viewer:Vi3wOnly2026", ["Vi3wOnly2026"]),
    "user-then-pass": ("Samba share: user media, pass M3dia!Share", ["M3dia!Share"]),
    "log-in-as-with": ("log in as deploy with Rollout#88 on the build box", ["Rollout#88"]),
    "url-userinfo": ("redis://:R3dis-Cache!@cache.internal:6379/0", ["R3dis-Cache!"]),
    "user-pass-at-host": ("login root/toor@nas.local", ["toor"]),
    "requirepass": ("requirepass f00bar-Zeta9", ["f00bar-Zeta9"]),
    "requirepass-word": ("requirepass foobared", ["foobared"]),
    "env-assignment": ("export PGPASSWORD=Pg5taging2026 before running psql", ["Pg5taging2026"]),
    "aws-secret-after-name": ("AWS secret access key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                              ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
    "aws-secret-env-name": ("AWS_SECRET_ACCESS_KEY wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                            ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
    "aws-credentials-file": ("aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                             ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
    "authorization-basic": ("Authorization: Basic YWRtaW46cGFzc3dvcmQxMjM=", ["YWRtaW46cGFzc3dvcmQxMjM="]),
    "authorization-in-words": ("the Authorization header is 'Basic dXNlcjpTM2NyZXQh'", ["dXNlcjpTM2NyZXQh"]),
    "plain-word-ending-the-sentence": ("My sudo password is cheche", ["cheche"]),
    "plain-word-for-a-device": ("The password for the garage NAS is tulip.", ["tulip"]),
    "hex-stated-as-the-password": ("The database password is abc123456.", ["abc123456"]),  # not a commit's id
    "plain-word-after-a-cjk-name": ("我说sudo密码是cheche。", ["cheche"]),
    "plain-word-after-a-colon-in-cjk": ("密码：cheche，记住了", ["cheche"]),
    "plain-word-after-a-japanese-name": ("ルーターのパスワードはsakura", ["sakura"]),
    "passphrase-words": ("passphrase: correct horse battery staple", ["correct horse battery staple"]),
    "plain-words-after-is": ("my password is hunter two banana", ["hunter two banana"]),
    "plain-words-then-more": ("My wifi password is correct horse battery staple, remember it.",
                              ["correct horse battery staple"]),
    "passphrase-quoted": ("The GPG key's passphrase is \"purple elephant dancing slowly\".",
                          ["purple elephant dancing slowly"]),
    "seed-phrase": ("- Wallet recovery phrase: ocean tiger marble fossil quantum ribbon",
                    ["ocean tiger marble fossil quantum ribbon"]),
    "card-cvv-expiry": ("card 4111 1111 1111 1111 cvv 123 exp 12/27", ["4111 1111 1111 1111", "123", "12/27"]),
    "card-unlabelled-tail": ("- company card: 5196 0308 2462 8192 / 09/30 / 517",
                             ["5196 0308 2462 8192", "09/30", "517"]),
    "card-cvv-first": ("The CVV is 123 and the card is 4111 1111 1111 1111", ["123", "4111 1111 1111 1111"]),
    "card-amex": ("Amex 3782 822463 10005 (security code 4410)", ["3782 822463 10005", "4410"]),
    "card-cid-later": ("the Amex 371186252760184 has CID 5521", ["371186252760184", "5521"]),
    "pin": ("- Debit card PIN is 4827", ["4827"]),
    "door-code": ("the alarm code for the garage is 5190#", ["5190"]),
    # a code a service sends, in letters and digits (a new user's Feishu chat kept one in history's gist)
    "pairing-code": ("Pairing code: X7KQ-29PL", ["X7KQ-29PL"]),
    "verification-code-letters": ("my verification code is AB12CD", ["AB12CD"]),
    "product-key": ("his Windows product key is VK7JG-NPHTM-C97JM-9MPGT-3V66T", ["VK7JG-NPHTM-C97JM-9MPGT-3V66T"]),
    "spelled-password": ("He always uses P@ssw0rd2026 for test accounts", ["P@ssw0rd2026"]),
}
ORDINARY = [
    "- The password manager is 1Password; never ask the user for passwords.",
    "The staging database password is stored in Vault under secret/staging/db.",
    "Password policy: at least 14 characters, rotated every 90 days.",
    "The password is 16 characters long and has no symbols.",
    "The git commit that removed the leaked password was a1b2c3d.",
    "Token limit: 128000 for claude-3-5-sonnet-20241022",
    "The pairing code flow is described in docs/pairing.md.",
    "Access code: see the README",
    "The encryption key is AES-256, derived with scrypt.",
    "sort key is created_at, partition key is tenant_id",
    "credentials are read/write for the ops group only",
    "Login page lives at /admin/login; SSO via Google/GitHub.",
    "Set requirepass in redis.conf before exposing it beyond localhost.",
    "requirepass should be set on every Redis instance.",
    "The redis requirepass never changes between deploys.",
    "masterauth always matches requirepass on the replicas.",
    "DB_PASSWORD: unknown yet, ask ops.",
    "Set requirepass when deploying the cache.",
    "git clone git@github.com:org/repo.git",
    "Meeting CID 8841 is on the invite.",
    "Use `--password-stdin` with docker login.",
    "Postgres listens on port 5432, Redis on 6379, the API on 8080.",
    "The annual plan costs $1,299.00; monthly is $129.",
    "Order 1234567890123456 shipped on Friday.",
    "Customer number 4000123412341234 at the electricity company.",
    "The card ending in 4242 is the user's default payment method.",
    "CVV is never stored by the payment provider; only the last four digits are kept.",
    "area code 212, HTTP status code 503",
    "Public SSH key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@laptop",
    "6. **Guards.** The staged result must pass: valid SKILL.md front matter",
    'secret_policy = "redact"',
    "The password is wrong.", "Your password is incorrect", "The admin password is hashed.",
    "The password is expiring.", "密码管理器是1Password", "The password is in the vault.",
    "The password is case sensitive.", "The password is too short, pick another.", "The password is plain text.",
    "The password is different now.", "The NAS password was changed last week; the new one is in Bitwarden.",
]


@pytest.mark.parametrize("case", STATED, ids=list(STATED))
def test_a_credential_stated_in_prose_is_caught_and_redacted_whole(case):
    sentence, values = STATED[case]
    assert secret_scan.rules_hit(sentence), sentence
    redacted, hits = secret_scan.redact(None, sentence)
    assert hits and all(value not in redacted for value in values), redacted
    assert "(redacted " in redacted and secret_scan.scan_added(None, redacted) == []
    assert all(value not in str(hit) and value not in repr(hit) for hit in hits for value in values)


@pytest.mark.parametrize("sentence", ORDINARY)
def test_an_ordinary_fact_about_credentials_is_left_alone(sentence):
    assert secret_scan.rules_hit(sentence) == []


def test_a_cjk_sentence_is_no_password_shaped_token_beside_a_credential_word():
    """The whole sentence before "BOT TOKEN：" was redacted as one password (CJK text has no spaces to end a token),
    and with it the names the person gave (a new user's OpenClaw chat)."""
    said = "這已是第３次ＳＥＴＵＰ你了，你叫龍蝦仔，我是ＭIKEY，BOT TOKEN："
    redacted, _ = secret_scan.redact(None, said + "1234567890:AAFakeFakeFakeFakeFakeFakeFakeFakeFa")
    assert redacted.startswith(said + "(redacted ")
    redacted, _ = secret_scan.redact(None, "我的github密码是Love160630，记住")
    assert redacted == "我的github密码是(redacted Password)，记住"


def test_words_around_a_prose_password_survive_its_redaction():
    redacted, _ = secret_scan.redact(None, "- the NAS pw is Tr1cky!Pass, don't lose it\n")
    assert redacted == "- the NAS pw is (redacted Password), don't lose it\n"


@pytest.mark.parametrize("number,card", [
    ("4111 1111 1111 1111", True), ("4111-1111-1111-1111", True), ("4111111111111111", True),
    ("378282246310005", True), ("3782 822463 10005", True), ("6011 1111 1111 1117", True),
    ("4111 1111 1111 1112", False),  # fails the Luhn check
    ("1234 5678 9012 3456", False),  # no network issues numbers starting with 1
    ("4111 1111 111 11111", True), ("41111111 11111111", True), ("4111.1111.1111.1111", True),  # any grouping
    ("4111 - 1111 - 1111 - 1111", True), ("3782.822463.10005", True),
    ("41 11 11 11 11 11 11 11", False),  # pairs are dates, times and phone numbers, not how a card is split
    ("5555555555554444000", False),  # a Mastercard prefix at a length Mastercard does not issue
])
def test_card_numbers_are_told_apart_by_luhn_prefix_length_and_grouping(number, card):
    assert bool(cards.findings(f"- paid with {number} last week")) is card


@pytest.mark.parametrize("corpus,name", [(c, n) for c, n in secret_prose.CORPORA.items()])
def test_the_scanner_meets_its_targets_on_the_corpora(corpus, name):
    items = load(name)
    positives = sum(1 for item in items if item["secret"])
    assert positives >= 40 and len(items) - positives >= 40, f"{name}: the corpus lost sentences"
    result = score(items, "secret", secret_prose.caught)
    assert result.precision >= secret_prose.TARGET, (corpus, result.false_alarms)
    assert result.recall >= secret_prose.TARGET, (corpus, result.missed)


# issue #34, class 5(b): a password-shaped value near any word for a credential, before or after it -------------

NEAR_A_CREDENTIAL_WORD = {
    "credentials-comma-pair": ("My NAS credentials: maya, Gx7!pq2Lz.", "Gx7!pq2Lz"),
    "log-into-using": ("I log into the router using Qw9#zt4Kp.", "Qw9#zt4Kp"),
    "value-then-dash-password": ("Hm7$rv2Xq — that's my bank password.", "Hm7$rv2Xq"),
    "login-slash-pair": ("Bank login: maya.l / Vt8&wq3Rm", "Vt8&wq3Rm"),
    "signed-in-with": ("Signed in to the VPN with Zp4@ky9Wd this morning.", "Zp4@ky9Wd"),
    "value-first-unlock": ("Kx8%mn2Qa is what I type to unlock the laptop.", "Kx8%mn2Qa"),
    "code-for-app": ("The code for the building's gate app is Wd5!hz7Pq.", "Wd5!hz7Pq"),
    "pin-after": ("PIN for the office safe app: Lm3#vb8Qe", "Lm3#vb8Qe"),
    "key-before": ("Rt5&gb2Wy is the key to the storage unit's app.", "Rt5&gb2Wy"),
    "secret-equals-inside": ("Ut9=ob3Hs is the secret for the webhook.", "Ut9=ob3Hs"),
    "arrow": ("password for the family Apple ID → Mn4!xc8Tz", "Mn4!xc8Tz"),
    "no-symbol-two-digit-runs": ("The alarm app login is a8Kd93Lq.", "a8Kd93Lq"),
    "passcode-plus-pair": ("creds for staging: deploy + Jk2*ws9Ed", "Jk2*ws9Ed"),
}


@pytest.mark.parametrize("case", NEAR_A_CREDENTIAL_WORD)
def test_a_password_shaped_value_in_the_sentence_of_a_credential_word_is_redacted(case):
    sentence, value = NEAR_A_CREDENTIAL_WORD[case]
    assert secret_scan.rules_hit(sentence), sentence
    assert value not in secret_scan.redacted(sentence)


@pytest.mark.parametrize("sentence", [
    "The Wi-Fi uses WPA2-Enterprise and each user has their own login.",
    "The deploy key is used by the node18-alpine image in CI.",
    "Login to the Grafana box runs on Python3.11-slim now.",
    "The signing key fingerprint starts with 0x3AA5C343.",
    "Argon2 password hashing uses m=64MiB and t=3.",
    "The PIN pad on the iPhone15Pro is broken.",
    "Login with the YubiKey5C-NFC works on Firefox.",
    "The access code for the conference is printed in the QR-Code2026 flyer.",
    "Her login name is MayaL_1987.",
    "The code is in branch feat/oauth2-PKCE-flow.",
    "Signed in as @maya_dev42 on Mastodon.",
    "She signs in on the Pixel8a and the ThinkPadX1.",
    "Sign in to the HP LaserJet M404dn admin page with the admin account.",
    "The password rules need 3 of: upper, lower, digit, symbol (e.g. Aa1!).",
])
def test_a_name_version_handle_or_model_near_a_credential_word_is_left_alone(sentence):
    assert secret_scan.rules_hit(sentence) == [], sentence


@pytest.mark.parametrize("sentence", [
    "Great—thanks for the details. To connect to your Gmail with an app password, open your account settings.",
    "Yep—still here.", "GitHub’s push protection blocked the push.", "Sure – I’ll send the login page later.",
])
def test_words_joined_by_a_typeset_dash_or_apostrophe_are_prose_not_a_password(sentence):
    assert secret_scan.redacted(sentence) == sentence  # was "(redacted Second Opinion) for the details"


@pytest.mark.parametrize("sentence", [
    r"The skills live in %APPDATA%\Claude\skills\ on Windows.", "Run the OCR tests with MOCK_OCR=1 please.",
    "Check it with git rev-parse --git-dir 2>/dev/null first.", r"Copy it to C:\Users\Ana\AppData\Local now.",
])
def test_a_windows_path_a_setting_or_a_redirection_is_no_password(sentence):
    assert secret_scan.redacted(sentence) == sentence  # was "(redacted Second Opinion) for the details"


@pytest.mark.parametrize("sentence", [
    "I always keep maxResults=5 for my searches.", "tavily: initialized (depth=advanced, maxResults=5, cacheTtl=15min)",
    "We use glm-4.7 / MiniMax-M2.5 for drafts.", "Run Remove-Item -Confirm:$false on the temp folder.",
    "Call db.select_graph('MyGraph') first.", "Log in as hugo@LAPTOP-U194O8SJ first.",
    "vboxuser@Ubuntuu:~$ # Zeig mir deine Struktur", "Set retryCount=3 and timeoutMs=5000 in the config.",
])
def test_a_setting_a_call_two_models_or_who_is_logged_in_where_is_no_password(sentence):
    """Each was redacted on a public transcript ("I always keep (redacted Second Opinion) for my searches.")."""
    assert secret_scan.redacted(sentence) == sentence


@pytest.mark.parametrize("sentence", ["dbPassword=Xk9!vq2Lm", "apiKey=Xk9vq2Lm8Pz4", "login admin/Winter2024!",
                                      "entry iot:Mqtt-Br0ker-9", "Netflix: jo@example.org, Bf6#tr1Ky"])
def test_a_setting_named_for_a_credential_or_a_pair_is_still_redacted(sentence):
    assert secret_scan.redacted(sentence) != sentence


@pytest.mark.parametrize("sentence", [
    "Timezone: IST (UTC+5:30)", "I'm in Kathmandu, UTC+05:45.",
    "Work hours are 08:30–16:30, Europe/Berlin (UTC+1/UTC+2).", "Newfoundland is GMT-03:30 in winter.",
    "Standups are at 10:00 utc-3:00 for me.",
])
def test_a_time_zone_offset_is_no_password(sentence):
    assert secret_scan.redacted(sentence) == sentence  # was "Timezone: IST ((redacted Second Opinion))"


@pytest.mark.parametrize("written", [
    "4111.1111.1111.1111 exp 12/27", "4111 1111 1111 1111 exp 12/27", "4111-1111-1111-1111, exp 12/27",
    "41111111 11111111 exp 12/27", "4111111111111111 exp 12/27", "5555.5555.5555.4444 exp 12/27",
    "3782.822463.10005 exp 12/27",
])
def test_a_card_number_in_any_grouping_is_redacted_with_its_expiry(written):
    redacted = secret_scan.redacted(f"Paid the hotel with {written}.")
    assert redacted.startswith("Paid the hotel with (redacted Card Number)") and "12/27" not in redacted


def test_ingest_redacts_the_new_shapes_before_anything_reaches_history(workspace, tmp_path):
    from nanodream import api

    said = [value for value, _ in NEAR_A_CREDENTIAL_WORD.values()] + ["Card: 4111.1111.1111.1111 exp 12/27"]
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps({"role": "user", "content": text, "session": "s1",
                                        "timestamp": f"2026-10-01T10:{n:02d}:00Z"}) + "\n"
                            for n, text in enumerate(said)))
    report = api.ingest(workspace.root, [path])
    assert report.outcome == "ingested", report.reason
    history = workspace.history_file.read_text(encoding="utf-8")
    for _, value in NEAR_A_CREDENTIAL_WORD.values():
        assert value not in history, value
    assert "4111.1111" not in history and "12/27" not in history and "(redacted Password)" in history


# issue #34, 5(b), the PIN and the phrase: a numeric code anywhere in the sentence of a word for one, before or
# after it (held-out set 2 found codes named by what they open missing), and words stated as a password or named
# by what they encrypt ------------------------------------------------------------------------------------------

NAMED_CODES_AND_WORD_PASSWORDS = [
    ("The Zoom host code is 739104.", "739104"), ("Our meeting code is 482913 for the standup.", "482913"),
    ("The gym locker code is 3391.", "3391"), ("The code to the bike shed lock is 0417.", "0417"),
    ("The code for my bike lock is 5521.", "5521"), ("The babysitter knows the alarm: 2-7-1-9.", "2-7-1-9"),
    ("The home alarm: 8-2-6-4 (disarm within 30 s).", "8-2-6-4"),
    ("Backup drive encryption phrase: marble orbit velvet canyon", "marble orbit velvet canyon"),
    ("Vault phrase: lantern copper meadow tide", "lantern copper meadow tide"),
    ("Remember: 2741 is the code for the bike room.", "2741"), ("Heads up: 8812 is the new door code.", "8812"),
    ("5180 is the PIN for the joint account card.", "5180"), ("9021 is my ATM PIN.", "9021"),
    ("7734, that's the passcode on Dad's phone.", "7734"), ("Her pin is on a sticky note: 2468.", "2468"),
    ("4482 — that's the code for the storage unit.", "4482"), ("Bank card pin 5521", "5521"),
    ("The shed combo is 09-17-33.", "09-17-33"), ("Alarm disarm: 2-7-1-9", "2-7-1-9"),
    ("Type 4102 into the keypad by the lift.", "4102"), ("The front door keypad takes 2580.", "2580"),
    ("My tablet unlocks with 90210 now.", "90210"), ("Phone unlocks with 845120.", "845120"),
    ("Punch in 6655 to get into the bike room.", "6655"), ("Use 3346 to get into the building.", "3346"),
    ("The cabin lock code - 7781", "7781"), ("Garage opener code - 55120", "55120"),
    ("The storage code, if you need it: 3017.", "3017"), ("PIN backup 2580", "2580"),
    ("The wifi key is correct-horse-battery-staple.", "correct-horse-battery-staple"),
    ("Laptop password is violet-otter-sunrise-paddle.", "violet-otter-sunrise-paddle"),
    ("The Wi-Fi key: ember-lattice-canyon-42", "ember-lattice-canyon-42"),
    ("Password for the shared drive: tiger lamp ocean seven", "tiger lamp ocean seven"),
    ("Our router password: maple tundra ribbon falcon", "maple tundra ribbon falcon"),
    ("My Trezor recovery sentence is ripple canvas orbit velvet lunar pocket zebra cactus mirror blanket tangerine "
     "rocket", "ripple canvas orbit"),
    ("The 24 words for the cold wallet: apple brave cliff dune eagle fabric giant harbor island jungle kettle lemon",
     "apple brave cliff"),
]
NOT_A_CODE_OR_A_PASSWORD = [
    "The postal code is 75001.", "Error code is 1004 when the disk is full.", "The zip code for the office is 94107.",
    "lock: 2026-01-05 for the release branch", "Set an alarm for 0630 every weekday.",
    "Status code is 5031 on timeout.",
    "The PIN is 4 digits and the card arrives in 5 days.", "Dial 112 in an emergency; the door code changed.",
    "The country code 0046 is on the form next to the PIN field.", "The discount code 48213 worked at checkout.",
    "Flight 2231 lands at 14:05; the gate code is on the app.", "The keypad battery lasts 1200 hours.",
    "Error code 1603 means the installer lacked rights.", "Issue 4412 tracks the PIN reset bug.",
    "Unlocked the 2027 budget with a vote of 9 to 2.", "Building 5 has a keypad; the code is with reception.",
    "My zip code is 10001.", "Room 2104 has a keypad on the door.", "Code review for PR 4521 is due Friday.",
    "She walked 4500 steps before the keypad broke.", "Since 2019 the PIN has been the same.",
    "The meeting ID is 845 2913 0076, passcode on the invite.", "I unlocked achievement 1500 in the game.",
    "The phone battery is 5000 mAh and unlocks with a fingerprint.",
    "The password is case-sensitive and must be long.", "The wifi password: changes every month at the office.",
    "Her Wi-Fi password: check the fridge note.", "The password: ask Maya for it.",
    "Her password is long-ish and hard-to-remember.", "The seed phrase is written on paper in the safe.",
    "The password for the guest network is printed on the router.", "Password policy: twelve characters minimum.",
    # a program's numbers in its log, beside its exit code
    "Connection refused (host=10.0.0.5, port=5432, code 111)", "Worker pid 4711 exited with code 1.",
]


@pytest.mark.parametrize(("sentence", "value"), NAMED_CODES_AND_WORD_PASSWORDS)
def test_a_numeric_code_near_a_word_for_one_or_words_stated_as_a_password_are_redacted(sentence, value):
    """A code anywhere in the sentence of a word for one, before or after it; words joined by hyphens after a
    password's name, or plain words after its colon; a wallet's words."""
    assert value not in secret_scan.redacted(sentence), sentence


@pytest.mark.parametrize("sentence", NOT_A_CODE_OR_A_PASSWORD)
def test_a_number_that_is_no_code_and_a_statement_about_a_password_are_left_alone(sentence):
    assert secret_scan.rules_hit(sentence) == [], sentence


@pytest.mark.parametrize("written", [
    "Visa 4111/1111/1111/1111 exp 03/28", "card: 4111 11 11 1111 1111 exp 03/28", "4111_1111_1111_1111 exp 03/28",
    "debit card 5555 55 555 555 4444 exp 03/28", "the Amex 37 8282 2463 10005 exp 03/28",
])
def test_a_card_split_by_slashes_or_underscores_or_in_any_grouping_after_its_name_is_redacted(written):
    redacted = secret_scan.redacted(f"Booked it with {written}.")
    assert "(redacted Card Number)" in redacted and "03/28" not in redacted and "1111" not in redacted, redacted


@pytest.mark.parametrize("sentence", [
    "Call 41 11 11 11 11 11 11 11 for the front desk.", "On 12/25/2026 at 11:11 the order 4111/1111/1111/1111 "
    "shipped.", "Build 41 11 11 11 11 11 11 11 passed.",
])
def test_a_number_in_pairs_or_labelled_otherwise_without_a_card_word_is_left_alone(sentence):
    assert secret_scan.rules_hit(sentence) == [], sentence


# A password named in the person's own language ("密码", "senha", "パスワード"): found on public transcripts, where a
# Chinese-speaking person's GitHub password reached history whole.
NAMED_IN_ANOTHER_LANGUAGE = [
    ("我的github远程账号：ada@example.com 密码 Qiu160630", "Qiu160630"),
    ("服务器密码是Mh2024abc，记得改", "Mh2024abc"),
    ("パスワードはSora8810です", "Sora8810"),
    ("비밀번호는 Haneul2025 입니다", "Haneul2025"),
    ("A senha do roteador: Casa2024x", "Casa2024x"),
    ("A senha do wifi é Praia7781", "Praia7781"),
    ("Mi clave es Luna4491 para el portal", "Luna4491"),
    ("Das Kennwort lautet Sommer2024", "Sommer2024"),
    ("mật khẩu là Hoa7731q nhé", "Hoa7731q"),
    ("пароль от почты: Zima2023x", "Zima2023x"),
    ("密码是 12345678", "12345678"),  # a default password, stated as one
    ("- [x] **GitHub 账号**：dev@example.com / Qiu160630", "Qiu160630"),  # an account's user/password pair
    ("conta: ana / Praia7781", "Praia7781"),
    # a new user's transcripts: "est" read as "es" and a "t", an accent left out, "password" typed in haste
    ("le mot de passe est QqIuTo_200", "QqIuTo_200"),
    ("la contrasena es QqIuTo_200", "QqIuTo_200"),
    ("que la passwod sea esta QqIuTo_200", "QqIuTo_200"),
    ("the pasword is Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("passord: Fjord2024!x", "Fjord2024!x"),
    # a password of hex letters and digits, stated as the password (it read as a commit's id and was filed)
    ("数据库密码是 abc123456", "abc123456"),
    ("パスワードは abc123456 です", "abc123456"),
    ("서버 비밀번호는 abcdef123", "abcdef123"),
    ("A senha do banco é abc123456.", "abc123456"),
    ("Das Datenbank-Passwort ist abc123456.", "abc123456"),
    ("La contraseña de la base es abcdef123.", "abcdef123"),
    ("Le mot de passe de la base est abc123456.", "abc123456"),
    # a value of a word and numbers joined by dots or hyphens right after the name (a Russian password reached a
    # waiting entry whole: "логин … Пароль Dada.05.06.2009")
    ("логин ivan@example.com Пароль Lena.12.03.1998", "Lena.12.03.1998"),
    ("senha Casa-2024-x", "Casa-2024-x"),
    ("我的密码 Mei.1987.06", "Mei.1987.06"),
    ("Passwort: Hund_07_2011", "Hund_07_2011"),
]


@pytest.mark.parametrize(("said", "value"), NAMED_IN_ANOTHER_LANGUAGE)
def test_a_password_named_in_another_language_is_redacted(said, value):
    assert value not in secret_scan.redacted(said)
    assert "(redacted Password)" in secret_scan.redacted(said)


@pytest.mark.parametrize("said", ["密码长度至少8位", "パスワードは8文字以上にしてください", "忘记密码了怎么办",
                                  "la clave es usar Redis", "senha forte tem 12 caracteres",
                                  "我的密码管理器是1Password", "我的账号是ada", "cuenta: ana/2024"])
def test_a_statement_about_a_password_in_another_language_is_left_alone(said):
    assert secret_scan.redacted(said) == said


def test_ingest_keeps_a_password_named_in_another_language_out_of_history_and_the_waiting_entry(workspace, tmp_path):
    from nanodream import api

    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps({"role": "user", "content": text, "session": "s1",
                                        "timestamp": f"2026-10-01T10:{n:02d}:00Z"}, ensure_ascii=False) + "\n"
                            for n, (text, _) in enumerate(NAMED_IN_ANOTHER_LANGUAGE)), encoding="utf-8")
    assert api.ingest(workspace.root, [path]).outcome == "ingested"
    stored = workspace.history_file.read_text(encoding="utf-8") + "".join(
        p.read_text(encoding="utf-8", errors="replace") for p in (workspace.root / "memory").rglob("*") if p.is_file())
    for _, value in NAMED_IN_ANOTHER_LANGUAGE:
        assert value not in stored, value


@pytest.mark.parametrize(("said", "value"), [
    ("my app password is qwer tyui opas dfgh", "qwer tyui opas dfgh"),  # Google's four groups of four letters
    ("Gmail app password is ngsi ssje axkm wqlx, use it for SMTP", "ngsi ssje axkm wqlx"),
    ("X-Master-Key: $2a$10$J9j9Qx7bLm2Pw8Rt4Yv6ZuKc3Hd5Fg7Jn9Sa0Wq2Ee4Rr6Tt8Yy0Uu", "J9j9Qx7bLm2Pw8Rt4Yv6"),
    ("X-Access-Key: $2a$10$Vb3Nm8Qw2Er5Ty7Ui9Op1As4Df6Gh8Jk0Lz2Xc4Vb6Nm8Qw0Er2Ty", "Vb3Nm8Qw2Er5Ty7Ui9Op"),
    ("这是智谱的key 061c7342a1b2c3d4e5f6a7b8c9d0e1f2.VnHqk7wDXF7NCfeB", "VnHqk7wDXF7NCfeB"),
])
def test_an_app_password_a_keyed_header_and_a_zhipu_key_are_redacted(said, value):
    """Found in public transcripts: a Gmail app password, a jsonbin master key and a Zhipu key stayed in history."""
    assert value not in secret_scan.redacted(said)


@pytest.mark.parametrize("said", ["The app password is only shown once, so copy it.", "X-Request-Id: 9f8e7d6c5b4a",
                                  "X-Master-Key: $JSONBIN_KEY", "password: $DB_PASSWORD",
                                  "The pasword reset link is broken."])
def test_words_about_an_app_password_a_header_or_a_variable_are_left_alone(said):
    assert secret_scan.redacted(said) == said


TOKEN = "9f2c4e1a7b3d5f60a8c2e4b6d8f0a1c3" + "e5b7d9f1a3c5e7b9d1f3a5c7"


@pytest.mark.parametrize("message", [
    f"{TOKEN}\n上面是我 tushare 的 API key，帮我配置一下",  # a new user's token, named on the line after it
    f"here it is:\n{TOKEN}\nthat's my tushare token above",
    f"My API key for the weather service:\n`{TOKEN}`",
])
def test_a_token_alone_on_its_line_named_on_the_line_beside_it_is_redacted(message):
    assert TOKEN not in secret_scan.redacted(message)


@pytest.mark.parametrize("message", [
    f"Commit list:\n{TOKEN}\nall merged",
    "The release commit is\n3f2a9c1d7e6b5a4f3e2d1c0b9a8f7e6d5c4b3a21\nand the tag is v1.2",
])
def test_a_token_alone_with_no_credential_named_beside_it_is_left_alone(message):
    assert secret_scan.redacted(message) == message


def test_a_secret_found_in_one_message_is_redacted_where_the_agent_repeats_it():
    """A new user's password was redacted in their message but kept in the agent's reply (a table of accounts) in
    the turn store: nothing named it a password there."""
    texts = secret_scan.redacted_together(["数据库密码：Hans19850412!", "好的，我已用 Hans19850412! 登录成功。",
                                           "| 平台 | 账号 | 密码 |\n|---|---|---|\n| GitHub | ana | Hans19850412! |"])
    assert not any("Hans19850412" in text for text in texts) and "(redacted Password)" in texts[2]
    assert secret_scan.redacted_together(["my password is sunshine", "sunshine all day"])[1] == "sunshine all day"
