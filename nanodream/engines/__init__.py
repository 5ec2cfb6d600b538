"""Engines drive one dream session through the restricted tools: a litellm model or the offline rules.

The session types are resolved on first use, so a reader of one rule module (engines/replacing.py, which
`status` uses to list lines a changed fact made doubtful) does not load the toolbox and its scanners.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nanodream.config import Settings
    from nanodream.engines.base import (
        Engine,
        ProviderMisconfigured,
        SessionError,
        SessionRequest,
        SessionResult,
        describe_error,
    )

_SESSION_TYPES = ("Engine", "ProviderMisconfigured", "SessionError", "SessionRequest", "SessionResult",
                  "describe_error")


def __getattr__(name: str) -> Any:
    if name in _SESSION_TYPES:
        from nanodream.engines import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def engine_for(settings: Settings) -> Engine:
    """The builtin engine for `model = "builtin"`, else litellm (imported only now, on this path)."""
    if settings.offline:
        from nanodream.engines.builtin import BuiltinEngine

        return BuiltinEngine(settings)
    from nanodream.engines.llm import LLMEngine

    return LLMEngine(settings)


__all__ = ["Engine", "ProviderMisconfigured", "SessionError", "SessionRequest", "SessionResult", "describe_error",
           "engine_for"]
