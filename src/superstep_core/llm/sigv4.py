"""AWS Signature Version 4 for JSON POSTs (Bedrock Runtime, Bedrock Mantle).

Wire protocol source: AWS General Reference, "Create a signed AWS API request" (SigV4), as
summarised in ``shared/spec/providers.md`` §3.4. Pure: the clock is a parameter.

Gotcha handled here: for every service except S3, each path segment is URI-encoded once more
in the canonical request, so a model id ``v1:0`` is ``v1%3A0`` on the wire and ``v1%253A0``
in the canonical URI.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import parse_qsl, quote, urlsplit

from superstep_core.llm.http import HttpRequest

__all__ = ["AwsCredentials", "sign_request"]


@dataclass(frozen=True)
class AwsCredentials:
    """An access key pair and optional session token (never printed)."""

    access_key_id: str
    secret_access_key: str = field(repr=False)
    session_token: str | None = field(default=None, repr=False)


def _hmac(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode(), hashlib.sha256).digest()


def _canonical_uri(path: str) -> str:
    # ``path`` is as sent (already percent-encoded); non-S3 services encode it once more.
    return "/".join(quote(segment, safe="-_.~") for segment in (path or "/").split("/"))


def sign_request(
    request: HttpRequest,
    credentials: AwsCredentials,
    *,
    region: str,
    service: str,
    now: datetime,
    content_sha256_header: bool = True,
) -> HttpRequest:
    """A copy of ``request`` with ``x-amz-date``, ``x-amz-content-sha256`` (unless
    ``content_sha256_header`` is false), the session token header when present, and
    ``Authorization: AWS4-HMAC-SHA256 …``. ``now`` must be UTC."""
    parts = urlsplit(request.url)
    amz_date = now.strftime("%Y%m%dT%H%M%SZ")
    day = now.strftime("%Y%m%d")
    payload_hash = hashlib.sha256(request.content).hexdigest()
    extra = {"x-amz-date": amz_date}
    if content_sha256_header:
        extra["x-amz-content-sha256"] = payload_hash
    if credentials.session_token:
        extra["x-amz-security-token"] = credentials.session_token
    signed_request = request.with_headers(extra)
    headers = {k.lower(): " ".join(v.strip().split()) for k, v in signed_request.headers.items()}
    headers["host"] = parts.netloc
    wanted = sorted(
        name for name in headers if name in ("host", "content-type") or name.startswith("x-amz-")
    )
    canonical_headers = "".join(f"{name}:{headers[name]}\n" for name in wanted)
    signed_headers = ";".join(wanted)
    query = "&".join(
        f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}"
        for k, v in sorted(parse_qsl(parts.query, keep_blank_values=True))
    )
    canonical_request = "\n".join(
        [
            request.method,
            _canonical_uri(parts.path),
            query,
            canonical_headers,
            signed_headers,
            payload_hash,
        ]
    )
    scope = f"{day}/{region}/{service}/aws4_request"
    string_to_sign = "\n".join(
        [
            "AWS4-HMAC-SHA256",
            amz_date,
            scope,
            hashlib.sha256(canonical_request.encode()).hexdigest(),
        ]
    )
    key = _hmac(("AWS4" + credentials.secret_access_key).encode(), day)
    for step in (region, service, "aws4_request"):
        key = _hmac(key, step)
    signature = hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()
    authorization = (
        f"AWS4-HMAC-SHA256 Credential={credentials.access_key_id}/{scope}, "
        f"SignedHeaders={signed_headers}, Signature={signature}"
    )
    return signed_request.with_headers({"Authorization": authorization})
