"""What a person pastes is told by its shape, before any rule reads a sentence: it is never filed as prose.

A message is read as paragraphs (runs of lines between blank lines). A line shaped like something a program wrote
— a traceback and its frames, an exception, a log line (a timestamp or a level first), a shell prompt, a diff, an
installer's or a tool's output (its glyphs, progress, "added 312 packages") — marks a paste, and everything of
its paragraph from the first such line to the last is the paste: the prose lines inside it (a tool's "Telemetry
(helps us improve …)" notice) are its output too, while the person's own words before and after it stay.

Two shapes carry a person's facts instead:
- a block of `Key: value` lines (`key_values`): one fact per key, when it is about the person;
- a list whose items are fragments under a line ending in a colon ("PDA storing:", then "- owner", "- price"):
  one text, so a rule files it whole or not at all (text/sentences.py joins it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nanodream.text.language import UNDETERMINED, language_of
from nanodream.text.lists import phrases
from nanodream.text.words import RELATIONS, words

# What a tool counts in its tally ("3 installs, 0 updates", "10 passed, 2 failed"); not a team's "3 engineers".
_TALLIED = (r"(?:installs?|updates?|removals?|upgrades?|passed|failed|skipped|errors?|warnings?|total|changed|unchanged"
            r"|created|deleted|added|removed|ok|unreachable|rescued|ignored|succeeded|pending|xfailed|xpassed"
            r"|deselected)")
# Each a line a program wrote; matched at the line's start, whitespace aside.
_PROGRAM_LINE = re.compile(
    r"^\s*(?:"
    r"Traceback \(most recent call last\)|During handling of the above exception|The above exception was|"
    r"File \"?[^\s\"]+\"?(?:, line \d+|:\d+)|"  # a Python frame: File "x.py", line 3 · File x.pyx:568
    r"at (?:async )?[\w$.<>\[\]]+ \([^()\s]+:\d+(?::\d+)?\)|"  # a JavaScript frame
    r"at [^\s()]+\.(?:[cm]?js|jsx|tsx?):\d+:\d+|at [\w$.<>]+\([\w$]+\.(?:java|kt|scala):\d+\)|"  # … and Java's
    r"[\w$.<>]+ @ [^\s@]+:\d+|"  # a browser console's frame: workLoop @ chunk-5Y.js?v=d4a9:197
    r"at [\w$.<>`]+\.[\w$<>`]+\([^()]*\)(?: in \S.*)?$|"  # a .NET frame: at Acme.Orders.Get() in C:\src\O.cs:line 57
    r"[\w.]*(?:Error|Exception|Warning|Interrupt|Exit)(?:\[\w+\])?: |"  # ValueError: …, error[E0308]: …
    r"(?:panic|fatal|error|warning|caused by)(?:\[\w+\])?: |"
    r"(?:\w+: )?[Ee]rror (?:response )?from [^:\n]{1,60}: |"  # Docker's "Error response from daemon: …", kubectl's
    r"--> [\w./\\-]+:\d+|goroutine \d+ \[|"  # rustc, Go
    r"(?:npm|yarn|pnpm) (?:ERR!|WARN|notice|error)|"
    r"\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]? |"  # a log line's timestamp
    r"\[(?:DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|CRITICAL|FATAL|TRACE)\]|"  # or its level: [INFO], INFO:root:,
    r"(?:DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|CRITICAL|FATAL|TRACE)(?::[\w.]+:|\s{2,}|\s+\d)|"  # "INFO  12"
    r"[$%❯➜»] \S|PS [A-Z]:\\[^>]*> |[\w.-]+@[\w.-]+:[~/][^$#]*[$#] |"  # a shell prompt
    r"(?=[ -~]*$)(?:sudo\s+)?(?:npx|npm|pnpm|yarn|pipx?3?|uv|poetry|apt(?:-get)?|brew|conda|docker(?:-compose)?|"
    r"kubectl|helm|git|gh|cargo|curl|wget|systemctl|journalctl)\s+[^\n]*?\s--?[A-Za-z][\w-]*(?:[\s=]|$)|"  # a flag
    r"diff --git |index [0-9a-f]{7,}\.\.|@@ -\d|\+\+\+ [ab/]|--- [ab/]|"  # a diff's header
    r"(?:Collecting|Downloading|Installing collected packages|Successfully (?:installed|built)|"
    r"Requirement already satisfied|Using cached|Obtaining|Compiling|Linking):? \S|"
    r"(?:added|removed|changed|audited) \d+ packages?|found \d+ vulnerabilit|up to date,? audited|"
    r"(?:Get|Hit|Ign):\d+ |Reading package lists|Building dependency tree|Setting up \S+ \(|"
    r"(?:Row|Line|Col|Column|Record|Item|Entry|Step) \d+(?:/\d+)?: |"  # a report's numbered findings
    r"\d+ (?:passed|failed|errors?|warnings?)(?:,| in \d)|=+ (?:FAILURES|ERRORS|test session starts|short test|"
    r"\d+ (?:passed|failed|errors?))|"
    # a tool's tally, after its label or none: "Package operations: 3 installs, 0 updates, 0 removals"
    rf"(?:[A-Z][\w ]{{0,30}}:\s*)?\d+ {_TALLIED}(?:, \d+ {_TALLIED})+\s*[.]?\s*$|"
    r"Unhandled exception\. |(?:PLAY|TASK|RUNNING HANDLER|PLAY RECAP)\b.*\*{3,}|"  # .NET; Ansible's banners
    r"[A-Z][a-z]+ing\b[^.!?\n]*(?:\.{3}|…)(?:\s*\(\d[\d.]*\s*m?s\))?\s*$|"  # "Resolving dependencies... (1.2s)"
    r"(?:ALTER|DROP|TRUNCATE|GRANT|REVOKE|CREATE(?: OR REPLACE)?) (?:TABLE|INDEX|VIEW|DATABASE|SCHEMA|USER|ROLE|"
    r"UNIQUE|EXTENSION|SEQUENCE|TYPE|FUNCTION|TRIGGER|ALL|SELECT|INSERT|UPDATE|DELETE)\b"  # SQL's statements
    r")")
# A table a tool printed: its header, three or more capitalised columns padded apart ("NAME    READY   STATUS");
# the rows under it are the table too.
_COLUMN = r"[A-Z][A-Z0-9_/%.()-]*"
_TABLE_HEADER = re.compile(rf"^\s*{_COLUMN}(?:\s{{2,}}{_COLUMN}(?: {_COLUMN})?){{2,}}\s*$")
# A tool's output glyphs: check marks, prompts' pointers, box drawing, blocks, spinners.
_GLYPHS = re.compile("[✔✓✗✖✘⚠ℹ›❯│┃├└┌┐┘┬┴┼─━═║╔╗╚╝▏▕█▓▒░●◉◯⬢⠀-⣿]")
_PROGRESS = re.compile(r"\[[=#>\s.-]{6,}\]|\b\d{1,3}(?:\.\d)?%\|| \(\s*[Yy]/[Nn]\s*\)| \[[Yy]/[Nn]\]")
# A diff's body: a changed line is "+" or "-" then code ("- item" with one space is a list item).
_DIFF_BODY = re.compile(r"^[+-](?:\S|\s{2,})")
_DIFF_HEAD = re.compile(r"^(?:diff --git |@@ -\d|\+\+\+ |--- )")
# After a hunk's header, a line opening with one space is the diff's context, unchanged code or text.
_DIFF_CONTEXT = re.compile(r"^ \S")


# What an agent's harness writes into the person's turn: an event it reports ("System: [12:37] Exec completed …",
# "[System: subagent] …", "… runtime context (internal): This context is runtime-generated, not user-authored",
# "A background task "…" just completed successfully."), a reminder or a scheduled job it relays ("A scheduled
# reminder has been triggered. …", "[cron:<id> nightly-extraction] …"), a task it gives a subagent ("[Subagent
# Context] You are running as a subagent …"), a new session's start-up prompt, a note on an interrupted turn, a
# channel's message id, the outcome of a command the person approved earlier ("An async command the user already
# approved has completed. …"). A message opening with an announcement (after the time stamp OpenClaw puts first) is all
# the harness's; an event line is taken off.
_HARNESS_MESSAGE = re.compile(r"^\s*(?:\[[^\]\n]{1,40}\]\s*)?(?:\[System:[^\]\n]*\]|\[Internal task completion event\]|"
                              r"[^\n]{0,40}runtime context \(internal\):|\[Subagent '[^'\n]*' (?:completed|failed)|"
                              r"\[Subagent Context\]|\[cron:[^\]\n]+\]|\[System note:|"
                              r"A new session was started via /new or /reset\.|"
                              r"You just executed tool calls but returned an empty response|"
                              r"A scheduled reminder has been triggered\.|Pre-compaction memory flush\b|"
                              r"An async command (?:the user already approved has completed|did not run)\b|"
                              r"A background task\b[^\n]{0,200}\bjust (?:completed|finished|failed)\b)")
# A heartbeat poll, OpenClaw's or nanobot's or one a person wrote for it, anywhere in the turn: "If nothing needs
# attention, reply HEARTBEAT_OK.", "… if no changes, return HEARTBEAT_OK." (not "Never reply HEARTBEAT_OK when …");
# and a silent turn OpenClaw writes, such as its memory flush: "If nothing to store, reply with NO_REPLY.".
_HEARTBEAT = re.compile(r"\bif\b[^.\n]{0,80}?(?:reply|return|respond|answer)(?:\s+with)?(?:\s+just)?:?\s+`?"
                        r"(?:HEARTBEAT_OK|NO_REPLY)"
                        r"|(?:reply|return|respond|answer)(?:\s+with)?(?:\s+just)?:?\s+`?HEARTBEAT_OK`?\s+if\b",
                        re.IGNORECASE)
# A line an event or an attachment leaves: OpenClaw's "[media attached: <path> (image/jpeg) | <path>]", the note it
# writes after one ("To send an image back, prefer the message tool … Keep caption in the text body.") and the one
# it puts first after a run the person stopped ("Note: The previous agent run was aborted by the user. …").
_HARNESS_LINE = re.compile(r"^\s*(?:System: \[[^\]\n]*\]|\[message_id: [^\]\n]+\]\s*$|"
                           r"\[media attached(?: \d+/\d+)?: [^\n]*\]\s*$|"
                           r"To send an image back, prefer the message tool\b[^\n]*$|"
                           r"Note: The previous agent run was aborted by the user\.[^\n]*$)")
_DOCUMENT_RULE = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,}|={3,})\s*$")
MARKDOWN_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S")
_STRUCTURED = re.compile(r"^\s*(?:[-*•+]|\d{1,3}[.)]|\*\*[^*\n]{1,60}\*\*|[A-Z][\w ]{0,30}:\s)")
# A message this long whose lines are mostly list items, numbered steps and bold labels is a document: a spec, a
# prompt, a template the person pasted or wrote for the agent to work from, not statements about themselves.
DOCUMENT_CHARS = 1500
DOCUMENT_LINES = 8
# A person typing to an agent writes a few lines; a message of more is writing they pasted or a harness wrote in
# their turn (a spec, a report, a prompt template, a step list). Run on transcripts it had never read, the built-in
# rules filed 71 lines from such messages and a reader kept 3 (bench/README.md, "Precision"): they are left whole
# for a model instead, but for the shapes read by lines, not sentences (`Key: value` blocks, stated procedures).
TYPED_LINES = 6
# … or more characters than one typed message holds (about 300 words: a dictated monologue, a pasted page).
TYPED_CHARS = 2000


# A slash command's prompt expanded into the person's turn (spec-kit and the kits built on it, in English or
# translated): the person's words are only the "User Input" block's, where the command's arguments went
# ("$ARGUMENTS" when none were given); the template goes on after it, with "You **MUST** consider the user input"
# or a heading of its own ("## 核心原则").
_INPUT_HEADING = (r"User Input|用户输入|用戶輸入|ユーザー入力|사용자 입력|Entrada del usuario|Entrada do usuário|"
                  r"Benutzereingabe|Entrée (?:de l'|)utilisateur")
_COMMAND_PROMPT = re.compile(rf"^#{{1,3}}\s*(?:{_INPUT_HEADING})\s*\n+```[a-z]*\n(?P<said>.{{0,4000}}?)\n?```\s*\n+"
                             r"(?:You \*\*MUST\*\* consider the user input|(?:[^\n]*\n)*?#{1,3}\s+\S)",
                             re.MULTILINE | re.DOTALL)


def the_persons_words(text: str, recurring: frozenset[str] = frozenset()) -> str:
    """A message of the person's without what the harness wrote into it ("" when the harness wrote all of it):
    its known announcements and event lines, a slash command's expanded prompt around the words typed after it,
    any of the `recurring` lines (`recurring_lines`), and the mentions it opens with in a group chat."""
    if _HARNESS_MESSAGE.match(text) or _HEARTBEAT.search(text):
        return ""
    command = _COMMAND_PROMPT.search(text)
    if command is not None:
        text = command.group("said").replace("$ARGUMENTS", "").strip()
    kept = "\n".join(line for line in text.splitlines()
                     if not _HARNESS_LINE.match(line) and _normal(line) not in recurring)
    return _MENTIONS.sub("", _SENDER.sub("", kept, count=1), count=1)


# The bot a message in a group chat is addressed to ("@_user_1 不要再发了", "@mybot, always …"): who it is for, not
# what it says.
_MENTIONS = re.compile(r"^\s*(?:@[\w.-]+[\s,:，：]+)+(?=\S)")
# Who sent it, as a group chat's bridge writes it first ("[Anna Smith] I prefer short answers."): a name, not words.
_SENDER = re.compile(r"^\s*\[[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*){0,3}\]\s+(?=\S)")


# A harness writes the same notes into many of the person's turns ("To send an image back, prefer the message
# tool …", a heartbeat's instructions); a person does not type one long line again word for word in another message.
RECURRING_CHARS = 40


# A harness writes to the agent about the person ("the user"); a line in which someone says "I", "me" or "my" is the
# person's own, however often they paste it ("My name is Liza …", "Always show me a plan first …").
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|mine|myself)\b", re.IGNORECASE)


def recurring_lines(messages: list[str]) -> frozenset[str]:
    """The lines of at least RECURRING_CHARS characters found in two or more different messages, none in which
    the person speaks of themselves nor one in a language other than English (a harness writes its notes in
    English; a person says again what went unanswered): what a harness wrote into the person's turns, whichever
    harness (the known ones' announcements are `_HARNESS_MESSAGE`)."""
    seen: dict[str, int] = {}
    for text in set(messages):
        for line in {_normal(line) for line in text.splitlines()}:
            if len(line) >= RECURRING_CHARS and not _FIRST_PERSON.search(line):
                seen[line] = seen.get(line, 0) + 1
    return frozenset(line for line, messages_holding in seen.items()
                     if messages_holding > 1 and language_of(line) in _A_HARNESS_LANGUAGE)


_A_HARNESS_LANGUAGE = frozenset({"en", UNDETERMINED})  # English, or no language at all: code, paths, a list of names


def _normal(line: str) -> str:
    return " ".join(line.split())


def written_out(text: str) -> bool:
    """True when a message is longer than a person types in one go: sentence rules do not read it. A block they
    fenced is marked as not their words, so a rule typed under a fenced trace is still read; a paste told only by
    its shape counts, since a tool's banner or prose-like notice around it is not always told apart."""
    typed = [line for line in _unfenced(text.splitlines()) if line.strip()]
    return len(typed) > TYPED_LINES or sum(len(line) + 1 for line in typed) > TYPED_CHARS


# A fenced block's first and last line (markdown's ``` or ~~~).
FENCE = re.compile(r"^\s*(?:```|~~~)")


def _unfenced(lines: list[str]) -> list[str]:
    """The lines outside fenced blocks (and not their fences)."""
    kept, fenced = [], False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return kept


def typed_lines(lines: list[str]) -> list[str]:
    """The lines of words a person typed: not blank, not inside a fenced block, not pasted (`pasted`)."""
    unfenced = _unfenced(lines)
    left_out = pasted(unfenced)
    return [line.strip() for index, line in enumerate(unfenced) if line.strip() and index not in left_out]


def document_start(lines: list[str]) -> int:
    """Where a pasted or written-out document begins in a message (`len(lines)`: nowhere): at its first markdown
    heading or horizontal rule after the person's words, or, in a long message made mostly of list items and
    labels, after its first paragraph."""
    marked = next((index for index, line in enumerate(lines)
                   if MARKDOWN_HEADING.match(line) or (index and _DOCUMENT_RULE.match(line))), len(lines))
    structured = sum(bool(_STRUCTURED.match(line)) for line in lines)
    if sum(len(line) for line in lines) > DOCUMENT_CHARS and structured >= DOCUMENT_LINES:
        first = next((index for index, line in enumerate(lines) if not line.strip() and index), len(lines))
        return min(first, marked)
    return marked


# A log's line: a few words, then its fields in parentheses, two or more `key=value` pairs, and nothing after
# them: "Exec finished (gateway id=772ebb0a, session=fresh, code 0)", "Connection refused (host=10.0.0.5, port=5432,
# code 111)"; not a person's "Use the client with (timeout=30, retries=3) from now on." or "Always use the client
# (timeout=30, retries=3)".
_LOG_FIELDS = re.compile(r"^\s*[A-Z][\w-]*(?:\s+[\w-]+){0,3}\s*\([^()\n]*?\b[\w.-]+=[^\s,;()]+[,;]\s*[^()\n]*?"
                         r"\b[\w.-]+=[^\s,;()]+[^()\n]*\)\s*$")


def program_line(line: str) -> bool:
    """True when `line` is shaped like a program's output, not a person's sentence."""
    return bool(_PROGRAM_LINE.match(line) or _GLYPHS.search(line) or _PROGRESS.search(line)
                or (_LOG_FIELDS.match(line) is not None and not _SPOKEN.search(line)))


# A label a screen shows ("Import Complete", "Successfully created: 1 tickets", "Errors: 1"): a few words, capitalised,
# no sentence's stop, no one speaking.
_LABEL = re.compile(r"^\s*(?!(?:I|I['’]\w+|We|My|Our)\b)[A-Z][^.!?。！？]{0,60}$")
LABEL_WORDS = 6


def _labels(lines: list[str]) -> bool:
    """A paragraph of two or more lines, each a screen's label: a pasted UI, not sentences someone wrapped."""
    return len(lines) >= 2 and all(_LABEL.match(line) and len(line.split()) <= LABEL_WORDS for line in lines)


def pasted(lines: list[str]) -> set[int]:
    """The indexes of `lines` (one message) that a person pasted: in each paragraph, from its first program-shaped
    line to its last (a diff: its changed lines once it has a header, and its context lines after a hunk's); a
    paragraph of a screen's labels whole."""
    found: set[int] = set()
    for start, end in _paragraphs(lines):
        if _labels(lines[start:end]):
            found.update(range(start, end))
            continue
        marked = [index for index in range(start, end) if program_line(lines[index])]
        header = next((index for index in range(start, end) if _TABLE_HEADER.match(lines[index])), None)
        if header is not None:
            marked += [header, end - 1]
        if any(_DIFF_HEAD.match(lines[index]) for index in range(start, end)):
            marked += [index for index in range(start, end) if _DIFF_BODY.match(lines[index])]
            hunk = next((index for index in range(start, end) if lines[index].startswith("@@ -")), end)
            marked += [index for index in range(hunk, end) if _DIFF_CONTEXT.match(lines[index])]
        if marked:
            first, last = min(marked), max(marked)
            while first > start and _output_beside(lines[first - 1]):
                first -= 1  # "Watching for file changes with StatReloader" above "Performing system checks..."
            while last + 1 < end and _output_beside(lines[last + 1]):
                last += 1
            found.update(range(first, last + 1))
    return found


# A line right beside a paste is the program's too when nobody speaks in it: no sentence's stop, no person's word
# opening it ("Updating dependencies" above a resolver's progress, "Package operations: 3 installs" below it).
_SPOKEN = re.compile(r"^\s*(?:I|I['’]\w+|my|we|we['’]\w+|our|you|please|always|never|don['’]?t|do not|can|could|"
                     r"would|why|how|what|when|where|here|this|that|it|so|and|but|also|then)\b|[.!?。！？:]\s*$",
                     re.IGNORECASE)


def _output_beside(line: str) -> bool:
    return bool(line.strip()) and not _SPOKEN.search(line)


def _paragraphs(lines: list[str]) -> list[tuple[int, int]]:
    spans, start = [], None
    for index, line in enumerate([*lines, ""]):
        if line.strip() and start is None:
            start = index
        elif not line.strip() and start is not None:
            spans.append((start, index))
            start = None
    return spans


# -- Key: value ---------------------------------------------------------------------------------------------------

_KEY_VALUE = re.compile(r"^\s*(?:[-*•]\s+)?(?:\*\*)?(?P<key>[^\W\d_][\w .'’/&()-]{0,29}?)(?:\*\*)?"
                        r"(?P<separator>\s*[:：]|\s+[-–—=]\s)\s*(?:\*\*)?(?P<value>\S.{0,199}?)\s*$")
PERSONAL_KEYS = frozenset(key.lower() for key in phrases("personal-keys"))
# What names the person on a service: "Telegram ID", "Discord handle", "Slack account".
_ON_A_SERVICE = frozenset({"id", "handle", "account", "username", "user"})


@dataclass(frozen=True)
class KeyValues:
    """A block of `Key: value` lines: the line that leads into it ("" when none) and its pairs, in order."""

    lead: str
    pairs: tuple[tuple[str, str], ...]
    lines: tuple[int, ...]  # where its lines are in the message


# "My timezone: …", "Mi zona horaria: …": whose the key is, not what it names.
_POSSESSIVE = re.compile(r"^(?:my|mein|meine|mi|mis|mon|ma|mes|meu|minha)\s+(?=\S)", re.IGNORECASE)


def key_value(line: str) -> tuple[str, str] | None:
    """("Twitter", "@ada") for "Twitter: @ada" (a short key, then a value; "My timezone" is the key "timezone");
    None for a sentence with a colon. A dash or an equals sign parts a personal key from its value too ("Name -
    Tomás Ruiz", "City = Lyon"); "Tests - always run them" is a sentence with a dash."""
    match = _KEY_VALUE.match(line)
    if match is None or len(match.group("key").split()) > 4 or "://" in match.group("key"):
        return None
    key = _POSSESSIVE.sub("", match.group("key").strip())
    if match.group("separator").strip() not in (":", "：") and not personal_key(key):
        return None
    return key, match.group("value").strip().strip("*").strip()


def personal_key(key: str) -> bool:
    """One of the person's details (data/personal-keys.txt), or one qualified by a word of its own ("Work email",
    "GitHub username", "Telegram ID"; not "Manager email": someone else's, nor "review all module X")."""
    said = key.lower().split()
    if " ".join(said) in PERSONAL_KEYS or len(said) > 1 and said[-1] in _ON_A_SERVICE and " ".join(
            said[:-1]) in PERSONAL_KEYS:
        return True
    return len(said) > 1 and " ".join(said[1:]) in PERSONAL_KEYS and not set(words(key)) & RELATIONS


# Where one `Key: value` pair of a line ends and the next begins: "Name: Ravi Kumar, Email: ravi@…, City: Chennai".
_NEXT_PAIR = re.compile(r"[,;]\s+(?=[^\W\d_][\w .'’/&()-]{0,29}?\s*[:：]\s)")


def sole_key_value(lines: list[str]) -> KeyValues | None:
    """A message that is one `Key: value` line ("Timezone: Asia/Shanghai", an answer to the agent's question), or
    one line of several pairs ("Name: Ravi Kumar, Email: …, City: Chennai"): a block of its pairs, for the rules
    to tell whose details they give; None for any other message."""
    said = [index for index, line in enumerate(lines) if line.strip()]
    if len(said) != 1 or program_line(lines[said[0]]):
        return None
    pieces = _NEXT_PAIR.split(lines[said[0]])
    pairs = [pair for piece in pieces if (pair := key_value(piece)) is not None]
    if len(pairs) > 1 and len(pairs) == len(pieces):
        return KeyValues("", tuple(pairs), (said[0],))
    pair = key_value(lines[said[0]])
    return None if pair is None else KeyValues("", (pair,), (said[0],))


def key_values(lines: list[str]) -> list[KeyValues]:
    """Every run of two or more `Key: value` lines in a message, with the line before it that leads into it."""
    blocks: list[KeyValues] = []
    run: list[int] = []
    for index, line in enumerate([*lines, ""]):
        if line.strip() and key_value(line) is not None and not program_line(line):
            run.append(index)
            continue
        if len(run) >= 2:
            lead = lines[run[0] - 1].strip() if run[0] and lines[run[0] - 1].strip() else ""
            pairs = tuple(pair for number in run if (pair := key_value(lines[number])) is not None)
            blocks.append(KeyValues(lead, pairs, tuple(run)))
        run = []
    return blocks
