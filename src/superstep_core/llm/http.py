"""The pure request value every codec builds, and the one JSON encoding every client sends.

Owns `HttpRequest` (method, URL, headers, JSON body) and `RawResponse`. Secrets travel in the
headers of an `HttpRequest` because the request must be sendable as built, but `repr`/`str`
of a request never show them: every header named in `SECRET_HEADERS` prints as ``<redacted>``.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

__all__ = ["SECRET_HEADERS", "HttpRequest", "RawResponse", "dumps_json", "redact_headers"]

SECRET_HEADERS = frozenset(
    {
        "authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "x-amz-security-token",
        "proxy-authorization",
        "cookie",
    }
)
"""Header names (lower-case) whose values are credentials."""

_REDACTED = "<redacted>"


def dumps_json(value: Any) -> bytes:
    """Serialise a JSON value as UTF-8 bytes: compact separators, non-ASCII kept as is.

    This is byte-identical to what the `openai` and `anthropic` SDKs (and `httpx`'s ``json=``)
    send, so a golden body pins the exact bytes on the wire.
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Copy of ``headers`` with every credential header's value replaced by ``<redacted>``."""
    return {k: (_REDACTED if k.lower() in SECRET_HEADERS else v) for k, v in headers.items()}


@dataclass(frozen=True)
class HttpRequest:
    """One HTTP request, exactly as a client sends it.

    - ``method``: upper-case HTTP verb (always ``POST`` for chat calls).
    - ``url``: absolute URL including any query string (``?api-version=…``, ``?alt=sse``).
    - ``headers``: name -> value; credential headers hold the real secret (redacted on repr).
    - ``body``: the JSON value of the body, or ``None``; `content` is its encoding.
    - ``stream``: whether the response is a stream (SSE or AWS event stream).
    """

    method: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    stream: bool = False
    form: Mapping[str, str] | None = None

    @property
    def content(self) -> bytes:
        """The body bytes: `dumps_json` of `body`, or the URL-encoded ``form`` (used for token
        exchanges); ``b""`` when there is neither."""
        if self.form is not None:
            return urlencode(self.form).encode()
        return b"" if self.body is None else dumps_json(self.body)

    @property
    def host(self) -> str:
        """The URL's host[:port], as sent in the ``Host`` header."""
        return urlsplit(self.url).netloc

    def header(self, name: str) -> str | None:
        """Header value by case-insensitive name, or ``None``."""
        wanted = name.lower()
        for key, value in self.headers.items():
            if key.lower() == wanted:
                return value
        return None

    def with_headers(self, extra: Mapping[str, str]) -> HttpRequest:
        """A copy with ``extra`` headers added (replacing same-named ones, case-insensitively)."""
        lowered = {k.lower() for k in extra}
        merged = {k: v for k, v in self.headers.items() if k.lower() not in lowered}
        merged.update(extra)
        return HttpRequest(self.method, self.url, merged, self.body, self.stream, self.form)

    def redacted_headers(self) -> dict[str, str]:
        """The headers with credentials replaced by ``<redacted>`` (safe to log)."""
        return redact_headers(self.headers)

    def __repr__(self) -> str:
        return (
            f"HttpRequest(method={self.method!r}, url={self.url!r}, "
            f"headers={self.redacted_headers()!r}, body={self.body!r}, stream={self.stream!r}"
            + (", form=<redacted>)" if self.form is not None else ")")
        )

    __str__ = __repr__


@dataclass(frozen=True)
class RawResponse:
    """A complete (non-streamed) HTTP response: status code, headers (lower-case names), body."""

    status: int
    headers: Mapping[str, str]
    content: bytes

    def json(self) -> Any:
        """The body parsed as JSON, or ``None`` when it is empty or not JSON."""
        if not self.content:
            return None
        try:
            return json.loads(self.content)
        except ValueError:
            return None
