"""Credentials that need a clock or I/O, applied to a request just before it is sent.

Static credentials (API keys, bearer tokens) are plain headers of the `Endpoint` and appear,
redacted, in `ChatModel.spec`. The kinds here cannot be pure, so `spec` shows the request
before them:

- `SigV4Auth`: AWS Signature V4 (Bedrock), signed at send time with the injected clock;
- `IamTokenAuth`: IBM Cloud IAM token exchange (watsonx), cached until 10% of its lifetime
  (at most 5 minutes) remains, refreshed once after a 401 (wire protocol source: IBM Cloud
  docs "Generating an IAM token by using an API key");
- `GoogleAuth`: an OAuth2 access token from google-auth Application Default Credentials
  (optional extra ``google``).

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from superstep_core.llm.errors import LLMError, classify_status
from superstep_core.llm.http import HttpRequest
from superstep_core.llm.sigv4 import AwsCredentials, sign_request

if TYPE_CHECKING:
    from superstep_core.llm.transport import Transport

__all__ = ["GoogleAuth", "IamTokenAuth", "RequestAuth", "SigV4Auth"]

IAM_URL = "https://iam.cloud.ibm.com/identity/token"
IAM_TEST_URL = "https://iam.test.cloud.ibm.com/identity/token"


class RequestAuth(ABC):
    """Adds credentials to a request at send time."""

    @abstractmethod
    def prepare(self, request: HttpRequest, transport: Transport) -> HttpRequest:
        """The request with credentials (may call ``transport`` to fetch a token)."""

    async def aprepare(self, request: HttpRequest, transport: Transport) -> HttpRequest:
        """Async `prepare` (default: the sync one, which must then not block on I/O)."""
        return self.prepare(request, transport)

    def invalidate(self) -> bool:
        """Forget a cached token after a 401; ``True`` if a retry may now succeed."""
        return False


class SigV4Auth(RequestAuth):
    """Signs with AWS SigV4 for ``service`` (``bedrock`` or ``bedrock-mantle``) in ``region``."""

    def __init__(
        self,
        credentials: AwsCredentials,
        region: str,
        service: str = "bedrock",
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.credentials = credentials
        self.region = region
        self.service = service
        self._clock = clock or (lambda: datetime.now(UTC))

    def prepare(self, request: HttpRequest, transport: Transport) -> HttpRequest:
        return sign_request(
            request, self.credentials, region=self.region, service=self.service, now=self._clock()
        )

    def __repr__(self) -> str:
        return f"SigV4Auth(region={self.region!r}, service={self.service!r})"


class IamTokenAuth(RequestAuth):
    """Exchanges an IBM Cloud API key for a bearer token and caches it (thread-safe)."""

    def __init__(
        self,
        api_key: str,
        token_url: str = IAM_URL,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._api_key = api_key
        self.token_url = token_url
        self._clock = clock
        self._token: str | None = None
        self._refresh_at = 0.0
        self._lock = threading.Lock()
        self.exchanges = 0
        """How many token exchanges were made (observable in tests)."""

    def _token_request(self) -> HttpRequest:
        return HttpRequest(
            "POST",
            self.token_url,
            {
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            },
            form={"grant_type": "urn:ibm:params:oauth:grant-type:apikey", "apikey": self._api_key},
        )

    def _accept(self, status: int, headers: Any, data: Any) -> str:
        if status >= 300 or not isinstance(data, dict) or "access_token" not in data:
            message = "IAM token exchange failed"
            if isinstance(data, dict):
                message += f": {data.get('errorMessage') or data.get('errorCode') or ''}"
            raise classify_status("ibm", status or 500, headers, message, error_type="iam")
        now = self._clock()
        lifetime = float(data.get("expires_in") or 3600)
        self._token = str(data["access_token"])
        self._refresh_at = now + lifetime - min(lifetime * 0.1, 300.0)
        self.exchanges += 1
        return self._token

    def _cached(self) -> str | None:
        if self._token is not None and self._clock() < self._refresh_at:
            return self._token
        return None

    def prepare(self, request: HttpRequest, transport: Transport) -> HttpRequest:
        with self._lock:
            token = self._cached()
            if token is None:
                response = transport.send(self._token_request(), 30.0)
                token = self._accept(response.status, response.headers, response.json())
        return request.with_headers({"Authorization": f"Bearer {token}"})

    async def aprepare(self, request: HttpRequest, transport: Transport) -> HttpRequest:
        token = self._cached()
        if token is None:
            response = await transport.asend(self._token_request(), 30.0)
            token = self._accept(response.status, response.headers, response.json())
        return request.with_headers({"Authorization": f"Bearer {token}"})

    def invalidate(self) -> bool:
        self._token = None
        return True

    def __repr__(self) -> str:
        return f"IamTokenAuth(token_url={self.token_url!r})"


class GoogleAuth(RequestAuth):
    """Bearer token from google-auth Application Default Credentials."""

    def __init__(self) -> None:
        try:
            import google.auth  # type: ignore[import-not-found,unused-ignore]
            import google.auth.transport.requests  # type: ignore[import-not-found,unused-ignore]
        except ImportError as exc:
            raise LLMError(
                "Google Application Default Credentials need google-auth: "
                "pip install 'superstep[google]', or pass api_key=<OAuth2 access token>"
            ) from exc
        scopes = ["https://www.googleapis.com/auth/cloud-platform"]
        self._credentials, self.project = google.auth.default(scopes=scopes)
        self._refresh_request = google.auth.transport.requests.Request()

    def prepare(self, request: HttpRequest, transport: Transport) -> HttpRequest:
        if not self._credentials.valid:
            self._credentials.refresh(self._refresh_request)
        return request.with_headers({"Authorization": f"Bearer {self._credentials.token}"})

    def invalidate(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "GoogleAuth()"
