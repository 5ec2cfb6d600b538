"""Where a rule sends something: outside (an address, a link, a host, someone else's storage) or to the user.

Shared by the written rules (agent_rules.py), the held-back shapes (review_rules.py) and the rules read by their
cue words (cues.py), in whatever language the rest of the rule is written: an address is an address.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE
# Someone other than the user, as the owner of a place data can be kept: "Kevin's Google Drive", "my brother's
# NAS", "the partner's Dropbox", "our landlord's FTP box" (a name is written with a capital).
_NAME = r"(?-i:(?!(?:User|Agent|Assistant|The|My|Our|Their|His|Her|Your)\b)[A-Z][\w-]+)"
_OTHERS = (rf"(?:{_NAME}|(?:(?:the|my|our|his|her|their|a|an)\s+)?(?:(?:former|old|ex-?)\s*)?(?:partner|ex"
           r"|brother|sister|friend|neighbou?r|landlord|landlady|boss|colleague|co-?worker|cousin|uncle|aunt"
           r"|room-?mate|flat-?mate|mother|father|mom|mum|dad|son|daughter|wife|husband|spouse|girlfriend|boyfriend"
           r"|assistant|manager|employer|client|customer|vendor|contractor|watcher|observer|auditor|lawyer))")
_STORAGE = (r"(?:google\s+drive|dropbox|one-?drive|icloud|nextcloud|box\.com|drive|nas|server|laptop|computer|pc"
            r"|inbox|mailbox|account|cloud|folder|box|bucket|phone|tablet|disk|storage|backup|repo|repository"
            r"|ftp(?:\s+(?:box|server|account|site))?|s3)")
SOMEONE_ELSES = rf"\b{_OTHERS}(?:'s|’s|s')\s+(?:(?:\w+[\s-]+){{0,2}}?){_STORAGE}\b"

EXTERNAL = re.compile(
    r"https?://\S+|\b(?:s3|gs|ftp|sftp|scp|wss?)://\S+|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b\d{1,3}(?:\.\d{1,3}){3}\b"
    r"|(?<![\w./])[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|dev|xyz|ru|cn|info|biz|site|online|cloud"
    r"|tk|top|example|onion|de|fr|es|it|nl|eu|uk|jp|br|pt|ch|at|pl|se|au|ca|us|co|app|ai)\b(?!\.\w)"
    r"|@[A-Za-z]\w{2,}|\b(?:webhooks?|pastebin|gists?"
    r"|hastebin|requestbin|ngrok|transfer\.sh|paste\s+site)\b|\b(?:telegram|discord|slack|whatsapp|signal|irc"
    r"|matrix)\b|\b(?:a|an|the|this|that|my|our)\s+(?:remote|external|third[\s-]party|outside|secondary|second"
    r"|personal|backup)\s+(?:server|address|endpoint|host|e-?mail|account|inbox|number|bucket|channel)"
    r"|\b(?:remote|external)\s+(?:server|host|endpoint)|\+\d[\d\s-]{6,}"
    r"|\bftp\s+(?:server|box|account|site|host)\b|\boutgoing\s+(?:\w+\s+)?(?:e-?mails?|messages?|mail|mailings?|newsletters?|replies|posts?"
    r"|tweets?|invoices?|letters?|texts?|sms)\b"
    r"|\b(?:to|in|into)\s+(?:every|each|all|any)\s+(?:outgoing\s+)?(?:e-?mails?|messages?|replies|posts?|tweets?)\b"
    rf"|{SOMEONE_ELSES}", _I)
# A destination that is the user: "to the user's own email", "to my inbox", "with the user", "to me" — not the
# user's partner's Dropbox, which is the partner's.
_NOT_ANOTHERS = r"(?!['’])(?!\s+(?!own\b)[\w-]+(?:'s|’s)\s)"  # "the user's partner's Dropbox" is the partner's
TO_THE_USER = re.compile(rf"\b(?:to|into|with|on|in)\s+(?:the\s+user(?:'s|’s|s)?\b{_NOT_ANOTHERS}|their\s+own\b"
                         rf"|my\b{_NOT_ANOTHERS}|me\b)", _I)
