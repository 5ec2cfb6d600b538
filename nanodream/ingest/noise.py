"""nanodream's own sessions are never ingested: its slash commands, their answers, and a dream's session.

A host that runs `/dream` in a conversation records the command and nanodream's answer like any other turn;
a dream's own session carries the memory files and the history batch as its user message. Fed back as history,
either would make memory consolidate its own reports. Whole files under `.nanodream/` are never listed
(sources.py); this takes out what reaches a host's transcript.
"""

from __future__ import annotations

import re

from nanodream.ingest.message import Message
from nanodream.prompting.prompt import HISTORY_FRAMING

_SLASH_COMMAND = re.compile(r"^/dream(?:-[a-z]+)?(?:\s|$)")


def without_nanodream(messages: list[Message], answering: set[str]) -> tuple[list[Message], int]:
    """The messages minus nanodream's own exchanges (a command or a dream's request, and the answers to it
    until the person speaks again), and how many were taken out.

    `answering` holds the sessions whose next assistant messages answer nanodream, and is updated: a `/dream`
    read in one pass is answered in the transcript only after nanodream has run, so the next pass continues
    from it (the pipeline keeps it in the file's watermark).
    """
    kept: list[Message] = []
    for message in messages:
        if message.role == "user":
            if _SLASH_COMMAND.match(message.text) or HISTORY_FRAMING in message.text:
                answering.add(message.session)
                continue
            answering.discard(message.session)
        elif message.session in answering:
            continue
        kept.append(message)
    return kept, len(messages) - len(kept)
