"""Prompt-cache breakpoints: where a provider that caches only what it is told to is told what to keep.

Claude (Anthropic's API, and Claude on Bedrock, Vertex AI or OpenRouter, through litellm) reads a cached prefix
at a tenth of the input price, but caches only up to a content block marked `cache_control`. A dream's request
is ordered from the most stable part to the least (system prompt, tools, memory files, skills index, then the
signals and the batch), so the marks go where a stable part ends: the system prompt (tools come before it on
the wire, so both are kept), the memory files, the skills index. From a session's second request on, its last
message is marked too, so each turn reads the conversation so far from the cache instead of paying for it
again; the first request's batch is not marked, since a session that answers in one response never reads it
back. That is four marks at most, Anthropic's limit.

OpenAI-style providers cache the longest repeated prefix on their own: they are sent plain strings, and the
order alone does it. Gemini's explicit context caching (a cachedContents resource litellm creates with a
request of its own, billed per hour stored) is not used; its implicit caching reads the same stable prefix.
"""

from __future__ import annotations

from typing import Any

EPHEMERAL = {"type": "ephemeral"}
# litellm's providers that serve Claude models with Anthropic's cache_control (by model name for the shared ones)
_CLAUDE_ROUTES = frozenset({"bedrock", "bedrock_converse", "vertex_ai", "vertex_ai_beta", "openrouter"})


def takes_breakpoints(model: str, provider: str) -> bool:
    """Whether requests to `model`, served by litellm's `provider`, should carry cache_control marks."""
    return provider == "anthropic" or (provider in _CLAUDE_ROUTES and "claude" in model.lower())


def marked(messages: list[dict[str, Any]], user_blocks: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """A copy of `messages` with the breakpoints (the conversation itself, and its transcript, stay plain).

    `user_blocks` is the first user message cut where its stable parts end (joined, they are its text); the
    last block, the batch, is left unmarked.
    """
    sent = [dict(message) for message in messages]
    for number, message in enumerate(sent):
        if message["role"] == "system":
            sent[number] = _mark_last(message)
        elif message["role"] == "user":
            if "".join(user_blocks) == message.get("content") and len(user_blocks) > 1:
                blocks = [_text(block, mark=True) for block in user_blocks[:-1] if block]
                sent[number] = {**message, "content": [*blocks, _text(user_blocks[-1])]}
            break
    if len(sent) > 2 and sent[-1]["role"] != "system":
        sent[-1] = _mark_last(sent[-1])
    return sent


def _text(text: str, *, mark: bool = False) -> dict[str, Any]:
    return {"type": "text", "text": text, **({"cache_control": EPHEMERAL} if mark else {})}


def _mark_last(message: dict[str, Any]) -> dict[str, Any]:
    """The message with its last content block marked; content that is not text (or is empty) is left alone."""
    content = message.get("content")
    if isinstance(content, str):
        return {**message, "content": [_text(content, mark=True)]} if content else message
    if isinstance(content, list) and content and isinstance(content[-1], dict) and content[-1].get("text"):
        return {**message, "content": [*content[:-1], {**content[-1], "cache_control": EPHEMERAL}]}
    return message
