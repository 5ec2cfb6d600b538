"""Transparent text rules for the builtin engine: routing, procedures, tasks (words and similarity: text/).

Everything here is a pure function of its input, so a person can predict (and test) where a fact goes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from anyascii import anyascii

from nanodream.backlog.history import TASK_LINE
from nanodream.text.grammar import CONDITION, NO, OBLIGATION, PROHIBITION, WITHOUT
from nanodream.text.leads import procedure_goal
from nanodream.text.lists import wordlist
from nanodream.text.statements import DECISION, FACT, PERSON, RULE, UNDETERMINED, kind_of, read_languages
from nanodream.text.verbs import base_verb, opens_a_command
from nanodream.text.words import STOPWORDS, words
from nanodream.workspace import MEMORY, SKILL_NAME, SOUL, USER

OPEN_TASKS = "Open tasks"


@dataclass(frozen=True)
class Route:
    path: str
    section: str


@dataclass(frozen=True)
class Procedure:
    name: str
    steps: tuple[str, ...]
    title: str = ""  # the goal as the person led into it, when not in English ("So mache ich ein Release")


@dataclass(frozen=True)
class TaskLine:
    done: bool
    subject: str

    @property
    def key(self) -> str:
        return task_key(self.subject)


# routing ----------------------------------------------------------------------------------------


# The user as the subject, after a short setting if one leads ("As their editor, user prefers Neovim.").
_ABOUT_USER = re.compile(r"^(?:(?:as|in|on|for|at|when|during|after|before|since)\b[^,]{0,40},\s+)?(?:the\s+)?"
                         r"user(?:['’]s)?\b", re.IGNORECASE)
_FOR_AGENT = re.compile(
    rf"^(?:(?:the\s+)?(?:agent|assistant)\s+(?:{OBLIGATION}|will|may|is\s+to)\b|(?:always|{PROHIBITION})\b)",
    re.IGNORECASE,
)
# One key of a `Key: value` block about the person, as ingest files it: "User's Twitter: @ada".
_USER_KEY = re.compile(r"^user['’]s [^:]{1,30}: \S", re.IGNORECASE)
_PREFERENCE = re.compile(r"\b(?:prefers?|likes?|dislikes?|loves?|hates?|wants?|enjoys?|favou?rite)\b", re.I)
_IDENTITY = re.compile(
    r"\b(?:name|named|lives?|based|born|works\s+(?:as|at|for)|job|role|time\s*zone|pronouns|nationality"
    r"|speaks|native)\b",
    re.IGNORECASE,
)
_SCHEDULE = re.compile(
    r"\b(?:weekdays?|weekends?|mornings?|evenings?|hours|schedule|daily|\d{1,2}:\d{2}"
    r"|mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?)\b",
    re.IGNORECASE,
)
_TOOL_USE = re.compile(
    r"`|\b(?:run|runs|running|command|commands|tool|tools|search|searching|grep|rg|ripgrep|test|tests|shell"
    r"|terminal|scripts?|cli|browser|git|gh|pytest|linter|formatter)\b",
    re.IGNORECASE,
)
_DECISION = re.compile(r"^(?:we\s+)?(?:decided|decision|agreed)\b|\bdecided\s+to\b", re.IGNORECASE)
_INFRASTRUCTURE = re.compile(
    r"\b(?:servers?|vps|hetzner|docker|compose|containers?|caddy|nginx|tls|dns|vpn|wireguard|deploy\w*"
    r"|staging|production|backups?|ci|systemd|cron|instance|debian|ubuntu|kubernetes|image|hosting)\b",
    re.IGNORECASE,
)


# Base-form verbs that open an instruction to the agent ("Ask before deleting…"). Words that as often open a
# noun phrase ("Test coverage is…", "Build times…", "Release notes…") are left out on purpose.
IMPERATIVES = wordlist("imperatives")
_NOT_A_VERB_AFTER = frozenset({"is", "are", "was", "were", "has", "have", "had", "will", "can", "s"})
# "When the user asks X, …", "Every time you touch the Dockerfile, …": a rule's condition, before the rule itself;
# one that says "always" (`every`) makes any command after it one ("…, pin the base image"), not only a known verb.
CONDITIONAL_CLAUSE = re.compile(rf"^(?:{CONDITION}|(?P<every>(?:every|each|any)\s*time))\b[^,]*,\s*", re.IGNORECASE)
_TO_AGENT = re.compile(
    r"^(?:(?:the\s+)?(?:agent|assistant)\b|you\s+(?:must|should|shall|need|have\s+to|may)\b"
    r"|(?:answers?|replies|responses|summaries|commit\s+messages)\s+(?:must|should|need|have\s+to)\b)",
    re.IGNORECASE,
)


# A prohibition said without a verb: "No emojis in commit messages", "No force pushes to shared branches", "No
# emojis." on its own. Not a statement that nothing of a kind exists ("No backups are kept"): no "is/are/was/has…"
# may follow.
_NOTHING_OF = re.compile(rf"^{NO}\s+(?!(?:one|longer|matter|idea|problem|worries|need|way|doubt|thanks|rush|hurry|"
                         r"pressure|comment|clue|kidding|luck|offen[cs]e|biggie|sweat)\b)"
                         rf"[\w-]+(?:(?:\s+[\w-]+){{0,3}}?\s+(?:in|on|inside|within|for|to|at|during|unless|{WITHOUT}|"
                         r"before|after|from|per|than)\b|(?:\s+[\w-]+)?\s*(?:,?\s*please)?[.!]*\s*$)", re.IGNORECASE)
_STATES = wordlist("auxiliaries") | {"is", "are", "be", "been", "has", "have", "exist", "exists", "left"}


def _prohibits(text: str) -> bool:
    return bool(_NOTHING_OF.match(text)) and not _STATES.intersection(words(text))


# A courtesy or a default before an instruction: "Please never push to main" and "By default, write shell scripts
# for bash" instruct as "Never push to main" and "Write shell scripts for bash" do.
_COURTESY_OR_DEFAULT = re.compile(r"^(?:please|pls|kindly|by\s+default)\b\s*,?\s*", re.IGNORECASE)


def instructs_agent(text: str) -> bool:
    """True when the sentence tells the agent how to behave: "Always …", "Agent should …", "You must …",
    an imperative ("Use ripgrep …"), or one of those after a condition ("When the user asks X, keep …").
    """
    condition = CONDITIONAL_CLAUSE.match(text.strip())
    rest = _COURTESY_OR_DEFAULT.sub("", text.strip()[condition.end():] if condition else text.strip(), count=1)
    if _FOR_AGENT.match(rest) or _TO_AGENT.match(rest) or _prohibits(rest):
        return True
    tokens = rest.split(maxsplit=1)
    if not tokens:
        return False
    first = tokens[0].lower().strip(".,:;!?`'\"")  # whole token: "check-ins" is a noun, "double-check" a verb
    after = words(tokens[1])[:1] if len(tokens) > 1 else []
    if after and after[0] in _NOT_A_VERB_AFTER:
        return False
    every_time = condition is not None and condition.group("every") is not None
    return first in IMPERATIVES or every_time and opens_a_command(words(rest))


# The name the person gave the agent (ingest's `agent_name`): who the agent is, SOUL.md's to keep.
_AGENT_NAMED = re.compile(r"^your\s+name\s+is\b", re.IGNORECASE)


def route_fact(text: str) -> Route:
    """Which file and `##` section a plain fact belongs in; project memory is the default.

    Who the sentence is about decides first (the user → USER.md), then whether it instructs the agent
    (→ SOUL.md: its tool strategy when it names tools or commands, its rules otherwise).
    """
    if _ABOUT_USER.match(text) and not _TO_AGENT.match(text):
        return Route(USER, _user_section(text))
    if _AGENT_NAMED.match(text):
        return Route(SOUL, "Identity")
    if instructs_agent(text):
        return Route(SOUL, "Tool use" if _TOOL_USE.search(text) else "Rules")
    english = kind_of(text, "en")  # what ingest files from English's data file: "Remember to always …"
    if english is not None and english.kind == RULE:
        return Route(SOUL, english.section)
    foreign = _in_its_language(text)
    if foreign is not None:
        return foreign
    if _DECISION.search(text):
        return Route(MEMORY, "Decisions")
    if _INFRASTRUCTURE.search(text):
        return Route(MEMORY, "Infrastructure")
    return Route(MEMORY, "Project")


def _user_section(text: str) -> str:
    """USER.md's section for a line about the person: a key of theirs or who they are, how they like things, or
    when they are around."""
    if _USER_KEY.match(text):
        return "Identity"
    if _PREFERENCE.search(text):
        return "Preferences"
    if _IDENTITY.search(text):
        return "Identity"
    return "Schedule" if _SCHEDULE.search(text) else "Preferences"


_FILE_OF = {PERSON: USER, RULE: SOUL, DECISION: MEMORY, FACT: MEMORY}


def _in_its_language(text: str) -> Route | None:
    """Where a line in another language the rules read goes, by the data files (text/statements.py): a rule for
    the agent, a statement about the person or a decision; None for English, or a line no file's cues find.

    The cues are asked first, the language model after: a short line ("No uses emojis en los commits.") is too
    short for the model to be sure of, while its cues are plain; and a line the model takes for English stays with
    the English rules (when it holds English's small words too), so an English word that is a cue elsewhere ("Sem 2
    starts …") sends nothing to SOUL.md.
    """
    for code in sorted(read_languages() - {"en", UNDETERMINED}):
        found = kind_of(text, code)
        if found is not None:
            return None if _english(text) else Route(_FILE_OF[found.kind], found.section)
    return None


def a_rule_in_its_language(text: str) -> bool:
    """Whether a language file other than English's reads the line as a rule for the agent: then one word is a
    whole command ("Tutéame.", "Tutoie-moi."), no fragment of a sentence."""
    found = _in_its_language(text)
    return found is not None and found.path == SOUL


@lru_cache(maxsize=4096)
def _english(text: str) -> bool:
    """Whether the language model takes a line for English and it holds English's small words: "Utilise toujours
    TypeScript strict." reads as English to the model (two English names in four words), yet has none of them."""
    from nanodream.text.language import has_english_words, language_of  # fastText: loaded only when needed

    return language_of(text) == "en" and has_english_words(text)


# procedures -----------------------------------------------------------------------------------------


_PROCEDURE = re.compile(r"^procedure\s+([\w-]+)\s*:\s*(.+)$", re.IGNORECASE | re.DOTALL)
_STEP_NUMBER = re.compile(r"(?:^|\s)\d+[.)]\s+")


def skill_slug(name: str) -> str | None:
    """A valid skill folder name for `name`, transliterated to ASCII ("发布" → "fabu"), or None when nothing usable
    is left."""
    slug = re.sub(r"[^a-z0-9]+", "-", anyascii(name).lower()).strip("-")[:64].rstrip("-")
    return slug if SKILL_NAME.match(slug) else None


def parse_procedure(text: str) -> Procedure | None:
    """`Procedure <name>: 1) … 2) …` → its skill name and steps; None for any other line."""
    match = _PROCEDURE.match(text.strip())
    if not match:
        return None
    name = skill_slug(match.group(1))
    steps = tuple(tidy_step(part) for part in _STEP_NUMBER.split(match.group(2)) if tidy_step(part))
    if name is None or not steps:
        return None
    return Procedure(name, steps)


_UNTITLED = re.compile(r"^(?:(?:here['’]?s|here\s+is|this\s+is)\s+how\s+(?:I|we|you)\s+|"
                       r"(?:the\s+)?(?:way|steps)\s+to\s+|how\s+(?:I|we|you)\s+|how\s+to\s+|to\s+)([^:]{3,80}?)\s*:\s*(1[.)]\s+.+)$",
                       re.IGNORECASE | re.DOTALL)


# A lead in another language, then numbered steps: "So mache ich ein Release: 1) … 2) …" (text/leads.py).
_LEAD_THEN_STEPS = re.compile(r"^([^:：\n]{2,80}?)\s*[:：]\s*(1[.)]\s+.+)$", re.DOTALL)


def parse_untitled_procedure(text: str) -> Procedure | None:
    """`To <goal>: 1) … 2) …` → a procedure named after its goal's meaningful words ("rotate-api-keys"); a lead in
    another language ("发布流程: 1) …") names it by its goal, transliterated, and titles it as said.

    Unlike `Procedure <name>:`, nobody asked for a skill here: the engine makes one only when the same goal
    is told in two sessions (see the builtin engine's recurrence rule).
    """
    match = _UNTITLED.match(text.strip())
    title = ""
    if match:
        name = skill_slug(goal_name(match.group(1)))
    elif (match := _LEAD_THEN_STEPS.match(text.strip())) and (goal := procedure_goal(match.group(1))):
        name, title = skill_slug(goal.text), match.group(1).strip()
    else:
        return None
    steps = tuple(tidy_step(part) for part in _STEP_NUMBER.split(match.group(2)) if tidy_step(part.rstrip(".。")))
    if name is None or len(steps) < 2:
        return None
    return Procedure(name, tuple(step.rstrip(".。") for step in steps), title)


# Words that say how a goal is gone about, not what it is: "do a release", "cut a new release" and "release" are
# one goal, so the same procedure told in other words finds the skill it belongs to.
_HOW_WORDS = frozenset({"do", "does", "doing", "make", "perform", "cut", "go", "through", "new", "usually", "always",
                        "process", "procedure", "steps", "step", "checklist", "workflow", "routine", "my", "our"})


def goal_name(goal: str) -> str:
    """A procedure's name from its goal: its meaningful words, the first (the verb) in its base form ("releasing
    a new version" → "release-version")."""
    kept = [word for word in words(goal) if word not in STOPWORDS and word not in _HOW_WORDS]
    if kept:
        kept[0] = base_verb(kept[0])
    return "-".join(kept)


def tidy_step(text: str) -> str:
    """One step as it reads in a numbered list: single-spaced, capitalised, no trailing separator."""
    text = " ".join(text.split()).rstrip(";,")
    return text[:1].upper() + text[1:]


# tasks ------------------------------------------------------------------------------------------------


_TRAILING_NOTE = re.compile(r"\s*\([^()]*\)\s*$")
_TRAILING_PUNCTUATION = re.compile(r"[\s.!?;:,]+$")


def parse_task(text: str) -> TaskLine | None:
    """`Task: X (status)` opens or updates X; `Task done: X` resolves it; anything else is None."""
    match = TASK_LINE.match(text.strip())
    if not match:
        return None
    return TaskLine(done=bool(match.group(1)), subject=match.group(2).strip())


def task_key(subject: str) -> str:
    """What identifies a task across updates: its words without a trailing "(status)" or punctuation."""
    previous = None
    while previous != subject:
        previous = subject
        subject = _TRAILING_PUNCTUATION.sub("", _TRAILING_NOTE.sub("", subject))
    return " ".join(words(subject))
