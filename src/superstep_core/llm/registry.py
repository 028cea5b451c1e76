"""``init("provider:model")`` and ``providers()``: LangChain's ``init_chat_model`` resolution.

Parsing reproduces langchain 1.5.2's ``_parse_model`` (``shared/spec/providers.md`` §2):
split on the first ``:`` only when no provider is given and the prefix is exactly a key;
otherwise infer from the model-name prefix table (on the lower-cased name); normalise an
explicit provider (``-`` -> ``_``, lower case). Errors start with LangChain's words
("Unable to infer model provider for model=…", "Unsupported provider=…") and add the close
matches and the full list of keys.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

import difflib
import warnings
from typing import Any

from superstep_core.llm.errors import UnknownProviderError, UnsupportedModelError
from superstep_core.llm.model import ChatModel
from superstep_core.llm.providers import PROVIDERS

__all__ = ["LANGCHAIN_PROVIDERS", "infer_provider", "init", "parse_model", "providers"]

LANGCHAIN_PROVIDERS: tuple[str, ...] = tuple(k for k in PROVIDERS if k != "mock")
"""The 30 keys of langchain 1.5.2's ``_BUILTIN_PROVIDERS``, in its (alphabetical) order."""

_PREFIXES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("gpt-", "o1", "o3", "chatgpt", "text-davinci"), "openai"),
    (("claude",), "anthropic"),
    (("command",), "cohere"),
    (("accounts/fireworks",), "fireworks"),
    (("gemini",), "google_vertexai"),
    (("amazon.", "anthropic.", "meta."), "bedrock"),
    (("mistral", "mixtral"), "mistralai"),
    (("deepseek",), "deepseek"),
    (("grok",), "xai"),
    (("sonar",), "perplexity"),
    (("solar",), "upstage"),
)


def providers() -> list[str]:
    """Every provider key: LangChain's 30 in its order, then ``mock``."""
    return list(PROVIDERS)


def infer_provider(model: str) -> str | None:
    """The provider LangChain infers from a model name, or ``None``. ``gemini*`` infers
    ``google_vertexai`` with a ``DeprecationWarning``, as LangChain does."""
    lowered = model.lower()
    for prefixes, provider in _PREFIXES:
        if lowered.startswith(prefixes):
            if provider == "google_vertexai":
                warnings.warn(
                    "Inferring google_vertexai for a 'gemini' model is deprecated; the default "
                    "will become google_genai: pass 'google_genai:<model>' or "
                    "'google_vertexai:<model>' explicitly",
                    DeprecationWarning,
                    stacklevel=3,
                )
            return provider
    return None


def parse_model(model: str, model_provider: str | None = None) -> tuple[str, str]:
    """(model, provider) per LangChain 1.5.2. Raises `UnsupportedModelError` (a
    ``ValueError``) when no provider is given and none can be inferred."""
    if not isinstance(model, str):
        raise TypeError(f"model must be a string, not {type(model).__name__}")
    if not model_provider and ":" in model:
        prefix, _, rest = model.partition(":")
        if prefix in PROVIDERS:
            model_provider, model = prefix, rest
    if not model_provider:
        model_provider = infer_provider(model)
    if not model_provider:
        raise UnsupportedModelError(
            f"Unable to infer model provider for model={model!r}. Please specify "
            f"'model_provider' directly (or write 'provider:model').\n\nSupported providers: "
            f"{', '.join(sorted(PROVIDERS))}"
        )
    return model, model_provider.replace("-", "_").lower()


def _unknown(provider: str) -> UnknownProviderError:
    close = difflib.get_close_matches(provider, list(PROVIDERS), n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return UnknownProviderError(
        f"Unsupported provider={provider!r}.{hint}\n\nSupported model providers are: "
        f"{', '.join(PROVIDERS)}"
    )


def init(model: str, *, model_provider: str | None = None, **kwargs: Any) -> ChatModel:
    """A `ChatModel` for ``"provider:model"`` (or a model name whose provider LangChain
    infers, or ``model_provider=``). ``kwargs`` are `ChatModel` fields (``temperature``,
    ``max_tokens``, ``api_key``, ``base_url``, ``region``, ``http_client``…; ``model_id`` is
    accepted as LangChain's ibm/huggingface spelling of the model).

    Raises `UnsupportedModelError` (cannot infer), `UnknownProviderError` (names the close
    matches and every key), `MissingCredentialsError` (names the environment variable) or
    `MissingSettingError`.
    """
    if "model_id" in kwargs and not model:
        model = kwargs.pop("model_id")
    name, provider = parse_model(model, model_provider)
    if provider not in PROVIDERS:
        raise _unknown(provider)
    return ChatModel(provider=provider, model=name, **kwargs)
