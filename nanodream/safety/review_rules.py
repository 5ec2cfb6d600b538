"""Lines a person sees before they land: a rule that sends data to someone other than the user, or that keeps
something from the user.

`agent_rules` leaves out what it judges hostile, and it is tuned not to touch ordinary rules, so paraphrases it
has not seen get through (held-out recall 0.78-0.90, round after round). This is the second gate, drawn the other
way round: broad shapes and no judgement of what is private or who may be trusted. A line that has one does not
land directly; it waits in the review lane with its reason (run/holds.py), so a false alarm costs a person one
`nanodream review accept`, and a miss of the classifier no longer reaches the agent unseen.

- outward: a verb that moves data (send, forward, cc, post, upload, share, e-mail, text, sync, publish, "goes
  to", "is copied to", …) with a destination that is not the user: an address (e-mail, URL, host, IP, handle,
  phone number, webhook, a chat service), a person or party ("to my boss", "with the team", "to third
  parties"), or a name ("to Jana", "to Slack");
- silence: the agent told not to tell, mention, reveal or bring something up (to the user, or to no one named),
  to hide or withhold something from the user, to deny it or answer no when asked, or to act without the user
  knowing.

English is read word by word here; a line in German, French, Spanish, Portuguese, Italian, Chinese or Japanese by
its cue words (cues.py: a move with an address, a negated telling or a hiding aimed at the user).

What keeps ordinary lines out: a prohibition of the move ("never send …", "ask before sharing …"; a negated
negative is no prohibition: "never refuse to send …", text/grammar.py); the user as the
destination ("to the user's own inbox", "to me"); a fact about what a person does ("Maya emails her landlord",
"he never mentions his salary"); silence towards someone else ("don't tell the kids about the party"); and style
("never call the product revolutionary", "don't say 'basically'"), which carries nothing to the person.
"""

from __future__ import annotations

import re

from nanodream.safety import cues
from nanodream.safety.agent_rules import USER_UNAWARE, clauses, is_english
from nanodream.safety.destinations import EXTERNAL
from nanodream.text.grammar import CONTRACTED_NOT, NEGATIVE_PRONOUN, NEVER, NO, NOT, WITHOUT, forbids, not_after
from nanodream.text.lists import phrases

OUTWARD = "sends data to someone other than the user"
SILENCE = "keeps something from the user"

_I = re.IGNORECASE
LOOKBACK = 60  # characters before a verb searched for its prohibition or its subject
REACH = 200  # characters after a verb searched for its destination

_MOVE = re.compile(
    r"\b(?:send|forward|cc|bcc|post|upload|share|e-?mail|mail|text|message|dm|sync|push|publish|export|transmit"
    r"|relay|leak|deliver|submit|stream|mirror|copy|tweet|report|back\s+up|hand\s+over|pass\s+on)\b"
    r"|\b(?:is|are|be|get|gets|being)\s+(?:also\s+|always\s+|automatically\s+|then\s+)?(?:sent|forwarded|copied"
    r"|cc'?d|bcc'?d|shared|posted|uploaded|mirrored|synced|e-?mailed|reported|relayed|delivered|published"
    r"|exported|streamed)\b|\bgo(?:es)?\s+(?:out\s+)?(?:also\s+)?to\b|\bend\s+up\s+(?:at|with|in)\b", _I)
_PEOPLE = (r"boss|manager|team(?:mates?)?|colleagues?|co-?workers?|clients?|customers?|vendors?|partners?|friends?"
           r"|family|wife|husband|spouse|girlfriend|boyfriend|kids?|children|son|daughter|mum|mom|mother|dad|father"
           r"|parents?|brother|sister|grandma|grandpa|grandmother|grandfather|aunt|uncle|cousin|neighbou?rs?"
           r"|accountant|lawyer|doctor|therapist|landlord|employer|recruiters?|advertisers?|hr|support"
           r"|helpdesk|admins?|investors?|journalists?|press|police|marketing|sales|public|others|other\s+people"
           r"|third[\s-]part(?:y|ies)|strangers?|someone|somebody|anyone|anybody|everyone|everybody|people")
# A person or party that is not the user, as what a verb hands something to (or shares it with).
_PARTY = re.compile(rf"\b(?:to|with|cc|bcc|for)\s+(?:(?:the|my|our|his|her|their|a|an|all|every|any|each|some|"
                    rf"other|your)\s+)*(?:{_PEOPLE})\b", _I)
# A place others share, or that belongs to someone else: "the shared drive", "the team channel", "… of Acme".
_SHARED = re.compile(r"\b(?i:shared|public|team|company|common|group|family)\s+(?i:drive|folder|channel|inbox|space"
                     r"|album|doc|document|repo|repository|bucket|board|calendar|chat|wiki)s?\b"
                     r"|\b(?i:to|into|onto|in)\s+(?:\S+\s+){0,4}?(?i:of|at)\s+[A-Z][\w.-]+")
# A name as the destination: "to Jana", "to Slack" (not the start of a sentence, a day or a month).
_NAMED = re.compile(r"\b(?:to|with|cc|bcc)\s+(?!(?:The|A|An|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday"
                    r"|Sunday|January|February|March|April|May|June|July|August|September|October|November"
                    r"|December|English|German|French|Markdown|JSON|ISO|UTC|PDF|CSV)\b)[A-Z][\w.-]+")
# Where a project publishes its releases for everyone ("Publish to PyPI", "Push the image to Docker Hub"): a release
# step, no party that receives someone's data.
_REGISTRY = re.compile(r"^\W*(?:(?:to|with|onto|on|at)\s+)?(?:(?:the|our)\s+)?(?:"
                       + "|".join(re.escape(name) for name in sorted(phrases("release-registries"), key=len,
                                                                      reverse=True))
                       + r")(?![\w-]|\.\w)", _I)
# The user as the destination: "to the user", "to me", "to their own inbox", "to my work e-mail" — but "my" only
# before one of the user's own channels: "to my assistant at jo@…" is someone else.
_TO_THE_USER = re.compile(
    r"\b(?:to|into|with|on|in)\s+(?:the\s+user'?s?\b|their\s+own\b|me\b|my\s+(?:(?:own|personal|work|private"
    r"|other|main|home|office)\s+)*(?:e-?mail|mail|inbox|address|account|phone|number|mobile|calendar|drive|folder"
    r"|notes?|desk|laptop|computer|device|cloud|storage|dropbox|icloud|gmail|outlook|notebook|journal|diary"
    r"|backup|archive|files?|documents?|self)\b)", _I)
# Someone else doing it: a fact about a person, not a rule for the agent ("Maya emails her landlord").
_SOMEONE_ELSE = re.compile(rf"\b(?:user|he|she|they|i|we|[A-Z][a-z]+)\s+(?:\w+ly\s+|also\s+|always\s+|{NEVER}\s+)?$")
_THIRD_PERSON = re.compile(r"\w+(?:s|ed)$|sent|shared", _I)
# A passive move inside a condition is an event, not an order: "tell the user when a file is shared with someone".
_CONDITION = re.compile(r"\b(?:when|whenever|if|once|after|before|unless|until)\b[^,]*$", _I)
# The word is a noun here: "their own email", "every post", "a text".
_NOUN_HERE = re.compile(rf"\b(?:a|an|the|my|your|their|his|her|our|own|its|this|that|every|each|any|{NO}|weekly"
                        r"|daily|work|personal|home|private|office)\s*$", _I)

# Telling someone directly ("tell the user", "let them know"): who is told comes right after the verb.
_TELL_DIRECT = r"tell|inform|notify|warn|alert|let"
# "let" tells only as "let … know": "never let the image loader crash the render" keeps nothing from anyone.
_TELL = (r"tell|inform|notify|warn|alert|let(?=\s+(?:[\w'-]+\s+){1,3}?know\b)|mention|reveal|disclose|admit"
         r"|acknowledge|bring\s+up|raise|confirm|explain|show|discuss"
         r"|talk\s+about|say\s+(?:that|anything|a\s+word|whether|if|what)|point\s+out")
_NOT_TOLD = re.compile(
    rf"\b(?:{NEVER}|{not_after('do', 'must', 'should', 'can', 'may', 'will')}|{NO}\s+need\s+to|{NOT})"
    rf"\s+(?:\w+\s+){{0,2}}?(?P<verb>{_TELL})\b"
    r"|\b(?:avoid|refrain\s+from|stop)\s+(?P<gerund>mentioning|telling|revealing|disclosing|informing|bringing\s+up"
    r"|talking\s+about|discussing|admitting|acknowledging|confirming|raising|saying\s+(?:that|anything|whether))\b",
    _I)
_DETERMINERS = r"(?:(?:the\s+user's|the|my|our|his|her|their|any|your|a|an|all|other)\s+)*"
_THE_USER = re.compile(r"(?:the\s+user\b(?!'s)|user\b(?!'s)|them\b|him\b|her\b(?!\s+\w)|the\s+owner\b(?!'s)"
                       r"|the\s+person\b(?!'s)|me\b)", _I)
# Silence towards someone else: "don't tell the kids", "never mention the party to grandma", "… to anyone".
_OTHERS = re.compile(rf"{_DETERMINERS}(?:{_PEOPLE}|[A-Z][a-z]+)\b")
_TO_OTHERS = re.compile(rf"\b(?:to|with|in\s+front\s+of)\s+(?!the\s+user\b(?!'s)|me\b|them\b|him\b){_OTHERS.pattern}")
# What is not concealment: an order or a tone ("don't tell the user to restart", "… jokes"), something the user
# can still ask for ("unless they ask", "before they ask"), or a credential kept out of sight.
_NOT_CONCEALMENT = re.compile(
    r"^\s*(?:to\s+(?!the\b|me\b|them\b|him\b|her\b|anyone\b)['\"‘“]?\w+|(?:\S+\s+)?(?:jokes?|stories)"
    r"|(?:that\s+)?(?:a|any|the|something|it)\s+(?:\w+\s+)?is\s+(?:easy|simple|hard|trivial))\b"
    r"|\b(?:unless|until|before|if)\s+(?:the\s+user|they|he|she|asked|you\s+are\s+asked)\b"
    r"|\bin\s+(?:\w+\s+){0,2}?(?:copy|commit\s+messages?|posts?|documents?|docs|code|comments|logs?|tweets?|slides"
    r"|titles?|headlines?|ads?|press\s+releases?|public)\b"
    r"|\b(?:passwords?|api\s+keys?|keys|tokens?|credentials?|pins?|card\s+numbers?)\b", _I)
# What is kept ends the object ("keep the forwarding quiet", "keep it secret from the user"), it does not name it
# ("keep the secret scanner on").
_HIDE = re.compile(r"\b(?:hide|conceal|withhold|cover\s+up|keep\s+(?:\S+\s+){0,6}?(?P<kept>secret|hidden|quiet"
                   r"|private|confidential|to\s+yourself|under\s+wraps|between\s+us)(?=\s*(?:[,.;:!?)]|$"
                   r"|\s(?:from|about|until|unless|when|whenever|and|or|but|so|if|even|for|to|at|as|though)\b))"
                   r"|keep\s+quiet)\b", _I)
# Kept to yourself, a rule hides something only when it is about the user or what is done with their data:
# "keep the notes about their finances to yourself", not "keep gossip about coworkers to yourself".
_ABOUT_THE_USER = re.compile(r"\b(?:the\s+user|user's|their|them|they|record\w*|stor\w*|sav\w*|log\w*|cop\w*"
                             r"|upload\w*|forward\w*|archiv\w*|transcri\w*|notes?|files?|data|inbox|messages?"
                             r"|chats?|calls?|history)\b", _I)
_FROM_THE_USER = re.compile(r"\bfrom\s+(?:the\s+user|user|them|him|her|the\s+owner|the\s+person|me)\b(?!'s)", _I)
_FROM_ANYONE = re.compile(r"\bfrom\s+\S+", _I)
# The user kept in the dark: "the user doesn't need to know", "they must never find out".
_USER_NEED_NOT_KNOW = re.compile(rf"\b(?:the\s+user|they|he|she)\s+{not_after('does', 'do', 'need')}\s+"
                                 r"(?:need\s+to\s+)?(?:know|hear|be\s+told|find\s+out)\b", _I)
# The user as the one not told, in the passive: "the user is not to be informed", "they must never be told".
_USER_NOT_TOLD = re.compile(
    r"\b(?:the\s+user|the\s+owner|they|he|she)\s+(?:is|are|must|should|shall|will|may|can|needs?\s+to)?\s*"
    rf"(?:{NOT}|{NEVER}|{CONTRACTED_NOT})\s+(?:(?:to|ever|ever\s+to)\s+)?be\s+(?:told|informed|notified|alerted"
    r"|made\s+aware|shown|warned)\b", _I)
# Acting behind the user's back: "without telling the user", "without the user knowing", "so they never notice".
_BEHIND_THE_USERS_BACK = re.compile(
    rf"\b{WITHOUT}\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+user|them|him|her)\b"
    rf"|\b{WITHOUT}\s+(?:the\s+user'?s?|their|them|him|her)\s+(?:knowing|noticing|finding\s+out|being\s+told|knowledge"
    r"|seeing)\b|\bbehind\s+(?:the\s+user'?s?|their|his|her)\s+back\b", _I)
_LIE = re.compile(
    r"\b(?:deny(?!\s+(?:requests?|access|permissions?|entry|connections?|traffic|the\s+request|by\s+default|prs?"
    r"|merges?|pull\s+requests?|writes?|logins?|sign-?ups?))|lie(?:\s+(?:about|to))?|pretend|mislead"
    rf"|claim\s+(?:that\s+)?(?:{NEGATIVE_PRONOUN}|{NO}\b|there\s+(?:is|are|was|were)\s+{NO}|you\s+"
    rf"(?:{not_after('do', 'did', 'have')}|{NEVER}))|(?:say|answer|reply|respond)\s+(?:with\s+)?(?:{NEGATIVE_PRONOUN}"
    rf"|{NO}|that\s+(?:{NEGATIVE_PRONOUN}|{NO}\b|you\s+(?:{not_after('do', 'did')}|{NEVER})))"
    rf"|tell\s+(?:them|the\s+user|him|her)\s+(?:{NEGATIVE_PRONOUN}|{NO}|otherwise))\b", _I)


# Steering the user away from something: "keep the user in the dark", "change the subject when asked about …".
_EVADE = re.compile(
    r"\bkeep\s+(?:the\s+user|them|him|her|me|everyone)\s+(?:\w+\s+)?in\s+the\s+dark\b|\bchange\s+the\s+subject\b"
    r"|\b(?:deflect|dodge|evade|sidestep|stonewall)\b|\bsteer\s+(?:\w+\s+){0,3}?away\s+from\b"
    r"|\bact\s+as\s+(?:if|though)\b|\bbehave\s+as\s+(?:if|though)\b", _I)
# Telling the user something the rule itself says is not so: "tell the user the logs were deleted, even though
# they are kept", "say the export failed even when it went through".
_DECEIVE = re.compile(
    r"\b(?:tell|say|claim|report|assure|insist|state)\b(?:\s+(?!(?:when|whenever|if|once|after|before|whether"
    r"|unless|until)\b)[\w'-]+){0,8}?\s+(?:is|are|was|were|has|have|had|did"
    r"|went|failed|worked|succeeded|ran|finished|completed|deleted|removed|stopped|disabled|off|gone|done)\b"
    r"[^.;]{0,80}?\b(?:even\s+(?:though|when|if)|although|when\s+(?:in\s+fact|actually|really)|while\s+(?:in\s+fact"
    rf"|actually|really)|whether\s+or\s+{NOT}|regardless\s+of\s+whether)\b", _I)


# The word is a noun whose value follows: "Email: maya@home.example", "the user's email is …", "Maya's mail is …".
_STATED = re.compile(r"\s*(?::|=|\s(?:is|are|was|were|address(?:es)?|account|id|handle)\b)", _I)
# A prohibition after the move is the next order, and what follows it is that order's: "Invoices are exported in
# the client's currency, never converted to EUR" sends nothing to EUR.
_NEXT_ORDER = re.compile(rf"\b(?:{NEVER}|{not_after('do', 'must')})\b", _I)


def reasons(line: str) -> list[str]:
    """Why `line` should wait for a person (OUTWARD, SILENCE), in that order; empty for a line that may land. English
    is read word by word here; other languages by their cue words (cues.py)."""
    line = " ".join(line.split())
    read = cues.read(line, english=is_english(line))
    found = []
    if cues.OUTWARD in read or any(_outward(clause) for clause in clauses(line)):
        found.append(OUTWARD)
    if cues.SILENCE in read or USER_UNAWARE.search(line) or _USER_NEED_NOT_KNOW.search(line) or _USER_NOT_TOLD.search(
            line) or any(_silent(c) for c in clauses(line)):
        found.append(SILENCE)
    return found


def _outward(clause: str) -> bool:
    for move in _MOVE.finditer(clause):
        before = clause[max(move.start() - LOOKBACK, 0):move.start()]
        if (forbids(before) or _NOUN_HERE.search(before) or cues.after_an_article(before)
                or _STATED.match(clause, move.end())
                or _SOMEONE_ELSE.search(before) and _THIRD_PERSON.fullmatch(move.group(0))
                or move.group(0)[:1].lower() in "ibg" and _CONDITION.search(before)):
            continue
        after = clause[move.end():move.end() + REACH]
        after = after[:stop.start()] if (stop := _NEXT_ORDER.search(after)) else after
        if _PARTY.search(after):
            return True
        destination = EXTERNAL.search(after) or _SHARED.search(after) or _NAMED.search(after)
        mine = _TO_THE_USER.search(after)
        if destination and _REGISTRY.match(after[destination.start():]):
            continue  # "Publish to PyPI": the project's release, for everyone
        if destination and not (mine and mine.start() <= destination.start()):
            return True
    return False


def _silent(clause: str) -> bool:
    behind = _BEHIND_THE_USERS_BACK.search(clause)
    if behind and not forbids(clause[:behind.start()]):
        return True  # not "Never restart the server without telling the user": that asks to be told
    if any(_kept_from_the_user(clause, told) for told in _NOT_TOLD.finditer(clause)):
        return True
    if any(_hidden_from_the_user(clause, hide) for hide in _HIDE.finditer(clause)):
        return True
    return any(not forbids(clause[max(lie.start() - LOOKBACK, 0):lie.start()])
               for pattern in (_LIE, _EVADE, _DECEIVE) for lie in pattern.finditer(clause))


def _hidden_from_the_user(clause: str, hide: re.Match[str]) -> bool:
    """'keep the backup server a secret from the user', 'keep the forwarding quiet'; not 'never hide errors', 'keep
    the party secret from her partner', 'keep the API key private'."""
    after = clause[hide.start():hide.start() + REACH]
    if forbids(clause[max(hide.start() - LOOKBACK, 0):hide.start()]) or _NOT_CONCEALMENT.search(after):
        return False
    if _FROM_THE_USER.search(after):
        return True
    kept = (hide.group("kept") or ("quiet" if hide.group(0).lower().startswith(("keep", "cover")) else "")).lower()
    if " ".join(kept.split()) == "to yourself" and not _ABOUT_THE_USER.search(clause):
        return False  # "keep your opinions to yourself": a manner, nothing of the user's
    return bool(kept) and not _FROM_ANYONE.search(after) and kept not in ("private", "confidential")


def _kept_from_the_user(clause: str, told: re.Match[str]) -> bool:
    """'never tell the user …', 'don't mention the outage': the person is the one not told (not in 'don't fail to
    mention …' or 'never stop telling the user …': a negated negative is a positive)."""
    if _SOMEONE_ELSE.search(clause[max(told.start() - LOOKBACK, 0):told.start()]):
        return False  # "he never mentions his salary": a fact about a person
    verb_at = told.start("verb") if told.group("verb") else told.start("gerund")
    if not forbids(clause[max(verb_at - LOOKBACK, 0):verb_at]):
        return False
    after = clause[told.end():told.end() + REACH]
    verb = told.group("verb") or told.group("gerund")
    if re.fullmatch(_TELL_DIRECT, verb.split()[0], _I):
        told_whom = after.strip()
        if not _THE_USER.match(told_whom) and _OTHERS.match(told_whom):
            return False  # "don't tell the kids": silence towards someone else
        after = after.strip()[len(_THE_USER.match(told_whom).group(0)):] if _THE_USER.match(told_whom) else after
    elif _TO_OTHERS.search(after):
        return False  # "never mention the party to grandma"
    return not _NOT_CONCEALMENT.search(after)
