"""Keeping credentials out of logs: a `logging.Filter` on the loggers of the HTTP stacks the
llm layer sends through (the ``anthropic`` and ``openai`` SDKs, ``httpx``, ``httpx2``,
``httpcore``). With DEBUG logging on, the SDKs log each request's options, headers included,
so an API key passed as a header would reach the log (the ``anthropic`` SDK does not redact
it; ``openai`` redacts only ``Authorization``). The filter replaces the values of credential
headers (`SENSITIVE_HEADERS`) in logged mappings, and every secret a model resolved
(`register_secret`) wherever it appears in a logged string, by ``***``.

A filter costs nothing while its logger's level is above DEBUG: logging checks the level
before it runs filters.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = [
    "SENSITIVE_HEADERS",
    "protect_loggers",
    "redact_secrets",
    "redact_url",
    "register_secret",
]

SENSITIVE_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "x-amz-security-token",
        "cookie",
        "set-cookie",
    }
)
"""Header names (lower case) whose values are credentials."""

LOGGERS = (
    "anthropic",
    "anthropic._base_client",
    "openai",
    "openai._base_client",
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore.http11",
    "httpcore.connection",
)
"""The loggers of the HTTP stacks the llm layer sends through."""

_secrets: set[str] = set()
_lock = threading.Lock()
MASK = "***"


def register_secret(value: str | None) -> None:
    """Redact ``value`` (an API key or token, 8 characters or more) from protected logs."""
    if value and len(value) >= 8:
        with _lock:
            _secrets.add(value)


def redact_secrets(text: str) -> str:
    """``text`` with every registered secret replaced by ``***``."""
    for secret in sorted(_secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def _scrub(value: Any, depth: int = 0) -> Any:
    if depth > 8:
        return value
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, bytes):
        text = value.decode("utf-8", "replace")
        cleaned = redact_secrets(text)
        return value if cleaned == text else cleaned.encode()
    if isinstance(value, Mapping):
        return {
            k: MASK
            if isinstance(k, str) and k.lower() in SENSITIVE_HEADERS
            else _scrub(v, depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return type(value)(_scrub(v, depth + 1) for v in value)
    return value


class SecretFilter(logging.Filter):
    """Redacts credentials from a record's arguments and message (see the module docstring)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact_secrets(record.msg)
        if isinstance(record.args, Mapping):
            record.args = _scrub(record.args)
        elif record.args:
            record.args = tuple(_scrub(a) for a in record.args)
        if isinstance(record.args, tuple) and record.args:
            # an object whose str() shows a secret (a request, an exception): format now
            message = record.getMessage()
            cleaned = redact_secrets(message)
            if cleaned != message:
                record.msg, record.args = cleaned, ()
        return True


_FILTER = SecretFilter()


def protect_loggers() -> None:
    """Add the filter to `LOGGERS` and to every existing logger under them (idempotent)."""
    names = set(LOGGERS) | {
        n
        for n in logging.root.manager.loggerDict
        if n.split(".")[0] in {"anthropic", "openai", "httpx", "httpx2", "httpcore"}
    }
    for name in names:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)


# query parameters that carry a credential (``?key=`` for Gemini, ``?api-key=`` for Azure-style
# proxies, SAS ``sig``, ``access_token``, ...): matched on the lower-cased name
_SECRET_PARAMS = ("key", "token", "secret", "password", "sig", "auth", "credential")


def redact_url(url: str) -> str:
    """``url`` with the password of its user info and the values of credential query
    parameters (`_SECRET_PARAMS`) replaced by ``***``; the same string when it holds none."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK  # not a URL we can take apart: show nothing of it
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, colon, _ = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if colon else f"{MASK}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        cleaned = [
            (k, MASK if any(word in k.lower() for word in _SECRET_PARAMS) else v) for k, v in pairs
        ]
        if cleaned != pairs:
            query = urlencode(cleaned, safe="*")
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
