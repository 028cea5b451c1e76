"""Errors of the llm layer, and the one rule that classifies an HTTP failure.

A provider failure is either `RetryableLLMError` (HTTP 408/409/429/5xx, Anthropic 529
"overloaded", transport errors and timeouts; ``retry_after`` carries the server's hint in
seconds) or `PermanentLLMError` (400/401/403/404/422…, with the provider's own message). Both
have a ``retryable`` attribute, which is what the engine's failure classification reads.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping, Sequence

from superstep_core.errors import SuperstepError

__all__ = [
    "RETRYABLE_STATUSES",
    "LLMError",
    "MissingCredentialsError",
    "MissingSettingError",
    "PermanentLLMError",
    "ProviderResponseError",
    "RetryableLLMError",
    "UnknownProviderError",
    "UnsupportedModelError",
    "classify_status",
    "parse_retry_after",
]

RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 520, 529})
"""HTTP statuses retried by default (520: watsonx, 529: Anthropic overloaded)."""


class LLMError(SuperstepError):
    """Base of every error of the llm layer."""

    retryable: bool = False


class ProviderResponseError(LLMError):
    """A provider answered with an error (or a transport failed). Attributes: ``provider``
    (registry key), ``status`` (HTTP status, 0 for transport errors), ``message`` (the
    provider's own message), ``error_type`` (provider error type/code when given)."""

    def __init__(
        self,
        provider: str,
        status: int,
        message: str,
        *,
        error_type: str = "",
        request_id: str = "",
    ) -> None:
        self.provider = provider
        self.status = status
        self.message = message
        self.error_type = error_type
        self.request_id = request_id
        where = f"HTTP {status}" if status else "transport error"
        kind = f" {error_type}" if error_type else ""
        super().__init__(f"{provider}: {where}{kind}: {message}")


class RetryableLLMError(ProviderResponseError):
    """A transient failure: retry after ``retry_after`` seconds (``None``: use your backoff)."""

    retryable = True

    def __init__(
        self,
        provider: str,
        status: int,
        message: str,
        *,
        error_type: str = "",
        request_id: str = "",
        retry_after: float | None = None,
    ) -> None:
        super().__init__(provider, status, message, error_type=error_type, request_id=request_id)
        self.retry_after = retry_after


class PermanentLLMError(ProviderResponseError):
    """A failure that the same request will hit again (bad request, auth, not found, quota)."""


class UnknownProviderError(LLMError, ValueError):
    """``init`` got a provider key that is not registered."""


class UnsupportedModelError(LLMError, ValueError):
    """The provider/model string cannot be parsed or inferred, or the codec cannot serve it."""


class MissingCredentialsError(LLMError, ValueError):
    """No credential was given and none of the provider's environment variables is set."""

    def __init__(self, provider: str, env_vars: Sequence[str], hint: str = "") -> None:
        self.provider = provider
        self.env_vars = tuple(env_vars)
        names = " or ".join(env_vars) if env_vars else "(none)"
        extra = f" {hint}" if hint else ""
        super().__init__(
            f"{provider}: no API key found: set the environment variable {names} "
            f"or pass api_key=...{extra}"
        )


class MissingSettingError(LLMError, ValueError):
    """A provider needs a setting (region, endpoint, project…) that was not given."""

    def __init__(self, provider: str, setting: str, env_vars: Sequence[str] = ()) -> None:
        self.provider = provider
        self.setting = setting
        env = f" or set {' / '.join(env_vars)}" if env_vars else ""
        super().__init__(f"{provider}: missing setting {setting!r}: pass {setting}=...{env}")


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` (milliseconds) or ``retry-after`` (seconds or an
    HTTP date). Header names are matched case-insensitively; ``None`` when absent or invalid."""
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms is not None:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def classify_status(
    provider: str,
    status: int,
    headers: Mapping[str, str],
    message: str,
    *,
    error_type: str = "",
    retryable: bool | None = None,
) -> ProviderResponseError:
    """Build the error for an HTTP failure. ``retryable`` (a codec's verdict, e.g. from
    ``x-should-retry`` or an ``insufficient_quota`` code) overrides the status rule."""
    lowered = {k.lower(): v for k, v in headers.items()}
    request_id = lowered.get("x-request-id") or lowered.get("request-id") or ""
    should = lowered.get("x-should-retry")
    if retryable is None and should in ("true", "false"):
        retryable = should == "true"
    if retryable is None:
        retryable = status in RETRYABLE_STATUSES
    if retryable:
        return RetryableLLMError(
            provider,
            status,
            message,
            error_type=error_type,
            request_id=request_id,
            retry_after=parse_retry_after(headers),
        )
    return PermanentLLMError(
        provider, status, message, error_type=error_type, request_id=request_id
    )
