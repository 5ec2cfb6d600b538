"""Connecting to Redis, and saying in one line why it did not work (never a traceback, never the password)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

if TYPE_CHECKING:
    from redis import Redis

CONNECT_TIMEOUT = 5.0
COMMAND_TIMEOUT = 30.0  # a Redis that accepts connections but never answers does not hang cron for ever


_PASSWORD = re.compile(r"(://[^:/@]*:)[^@/]*@")


class RedisUnavailable(RuntimeError):
    """Redis cannot be reached or refused a command; the message is one line and hides any password."""


def connect(url: str) -> Redis:
    """A client for `url`, checked with a PING so a dead Redis is reported before any work starts."""
    from redis import Redis

    try:
        connection = Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT, socket_timeout=COMMAND_TIMEOUT)
        connection.ping()
    except ValueError as exc:
        raise RedisUnavailable(f"not a Redis URL: {redact(url)} ({exc})") from None
    except RedisError as exc:
        raise unavailable(url, exc) from None
    return connection


def unavailable(url: str, exc: Exception) -> RedisUnavailable:
    """The one-line error for a Redis failure at `url`: unreachable, or reached and refusing a command."""
    from redis.exceptions import AuthenticationError, ConnectionError, TimeoutError

    detail = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, ConnectionError | TimeoutError) and not isinstance(exc, AuthenticationError):
        return RedisUnavailable(f"cannot reach Redis at {redact(url)}: {detail}")
    return RedisUnavailable(f"Redis at {redact(url)} refused: {detail}")


def redact(url: str) -> str:
    """`url` with its password replaced, fit for a log line (works on URLs that do not parse, too)."""
    return _PASSWORD.sub(r"\1***@", url)

