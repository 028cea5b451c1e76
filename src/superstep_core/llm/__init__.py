"""The llm layer: one sealed `ChatModel` for every provider, wire-format codecs, and the
provider registry (`init("provider:model")`, `providers()`).

`ChatModel` is a langchain-core ``BaseChatModel``; `ChatModel.spec` is the exact HTTP request a
call sends. Errors: `RetryableLLMError` (429/5xx/overloaded, honours ``retry-after``) and
`PermanentLLMError` (the provider's message), both with a ``retryable`` attribute.

Must never import `superstep_compat`, `superstep_core.host` or `superstep_core.runtime`.
"""

from __future__ import annotations

from superstep_core.llm.errors import (
    LLMError,
    MissingCredentialsError,
    MissingSettingError,
    PermanentLLMError,
    ProviderResponseError,
    RetryableLLMError,
    UnknownProviderError,
    UnsupportedModelError,
)
from superstep_core.llm.http import HttpRequest
from superstep_core.llm.model import Capabilities, ChatModel, Identity
from superstep_core.llm.registry import init, parse_model, providers
from superstep_core.llm.transport import HttpxTransport, SDKTransport, Transport

__all__ = [
    "Capabilities",
    "ChatModel",
    "HttpRequest",
    "HttpxTransport",
    "Identity",
    "LLMError",
    "MissingCredentialsError",
    "MissingSettingError",
    "PermanentLLMError",
    "ProviderResponseError",
    "RetryableLLMError",
    "SDKTransport",
    "Transport",
    "UnknownProviderError",
    "UnsupportedModelError",
    "init",
    "parse_model",
    "providers",
]
