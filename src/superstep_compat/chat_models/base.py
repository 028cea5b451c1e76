"""`init_chat_model`: LangChain's entry point for "any chat model from a string".

Without configurable fields it returns a `superstep_core.llm.ChatModel` at once. With them
(or with no model at all) it returns `_ConfigurableModel`, a runnable that builds the model
on every call from ``config["configurable"]`` (keys optionally prefixed with
``config_prefix + "_"``), replaying ``bind_tools`` / ``with_structured_output`` calls made on
it, as LangChain does.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, Literal, TypeAlias, cast, overload

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.runnables import Runnable, RunnableConfig, ensure_config

from superstep_core.llm import init

__all__ = ["init_chat_model"]

Fields: TypeAlias = Literal["any"] | list[str] | tuple[str, ...]
_Operation: TypeAlias = tuple[str, tuple[Any, ...], dict[str, Any]]


@overload
def init_chat_model(
    model: str,
    *,
    model_provider: str | None = None,
    configurable_fields: None = None,
    config_prefix: str | None = None,
    **kwargs: Any,
) -> BaseChatModel: ...


@overload
def init_chat_model(
    model: None = None,
    *,
    model_provider: str | None = None,
    configurable_fields: None = None,
    config_prefix: str | None = None,
    **kwargs: Any,
) -> _ConfigurableModel: ...


@overload
def init_chat_model(
    model: str | None = None,
    *,
    model_provider: str | None = None,
    configurable_fields: Fields = ...,
    config_prefix: str | None = None,
    **kwargs: Any,
) -> _ConfigurableModel: ...


def init_chat_model(
    model: str | None = None,
    *,
    model_provider: str | None = None,
    configurable_fields: Fields | None = None,
    config_prefix: str | None = None,
    **kwargs: Any,
) -> BaseChatModel | _ConfigurableModel:
    """A chat model for ``model`` (``"provider:model"``, or a name whose provider is
    inferred, or ``model_provider=``); ``kwargs`` go to the model (``temperature``,
    ``api_key``, ``base_url``, ``max_retries``…). With ``configurable_fields`` (``"any"`` or
    field names), or without ``model``, a runnable configured per call through
    ``config={"configurable": {...}}``. Raises LangChain's ``ValueError`` messages for an
    uninferable model or an unknown provider."""
    if not model and not configurable_fields:
        configurable_fields = ("model", "model_provider")
    prefix = config_prefix or ""
    if prefix and not configurable_fields:
        warnings.warn(
            f"config_prefix={prefix!r} has been set but no fields are configurable. Set "
            f"`configurable_fields=(...)` to specify the model params that are configurable.",
            stacklevel=2,
        )
    if not configurable_fields:
        assert model is not None  # configurable_fields defaults when model is missing
        return init(model, model_provider=model_provider, **kwargs)
    if model:
        kwargs["model"] = model
    if model_provider:
        kwargs["model_provider"] = model_provider
    return _ConfigurableModel(
        default_config=kwargs, configurable_fields=configurable_fields, config_prefix=prefix
    )


def _build(params: dict[str, Any]) -> BaseChatModel:
    params = dict(params)
    model = params.pop("model", None)
    if not model:
        raise ValueError(
            "no model configured: pass init_chat_model('provider:model') or "
            "config={'configurable': {'model': 'provider:model'}}"
        )
    return init(model, **params)


class _ConfigurableModel(Runnable[LanguageModelInput, Any]):
    """A chat model chosen per call from the run's config (LangChain's name and behaviour)."""

    def __init__(
        self,
        *,
        default_config: dict[str, Any] | None = None,
        configurable_fields: Fields = "any",
        config_prefix: str = "",
        queued_declarative_operations: Sequence[_Operation] = (),
    ) -> None:
        self._default_config = dict(default_config or {})
        self._configurable_fields: Literal["any"] | list[str] = (
            "any" if configurable_fields == "any" else list(configurable_fields)
        )
        if config_prefix and not config_prefix.endswith("_"):
            config_prefix += "_"
        self._config_prefix = config_prefix
        self._queued = list(queued_declarative_operations)

    def _evolve(
        self, default_config: dict[str, Any], queued: list[_Operation]
    ) -> _ConfigurableModel:
        return _ConfigurableModel(
            default_config=default_config,
            configurable_fields=self._configurable_fields,
            config_prefix=self._config_prefix,
            queued_declarative_operations=queued,
        )

    def _model_params(self, config: RunnableConfig | None) -> dict[str, Any]:
        configurable = ensure_config(config).get("configurable", {})
        prefix = self._config_prefix
        params = {
            k.removeprefix(prefix): v for k, v in configurable.items() if k.startswith(prefix)
        }
        if self._configurable_fields != "any":
            params = {k: v for k, v in params.items() if k in self._configurable_fields}
        return params

    def _model(self, config: RunnableConfig | None = None) -> Runnable[Any, Any]:
        model: Runnable[Any, Any] = _build({**self._default_config, **self._model_params(config)})
        for name, args, kwargs in self._queued:
            model = getattr(model, name)(*args, **kwargs)
        return model

    # --- declarative operations: applied whenever the model is built ------------------------

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> _ConfigurableModel:
        """Bind ``tools`` to whichever model a call configures."""
        return self._evolve(self._default_config, [*self._queued, ("bind_tools", (tools,), kwargs)])

    def with_structured_output(self, schema: Any, **kwargs: Any) -> _ConfigurableModel:
        """Structured output from whichever model a call configures."""
        op: _Operation = ("with_structured_output", (schema,), kwargs)
        return self._evolve(self._default_config, [*self._queued, op])

    def with_config(  # type: ignore[override]
        self, config: RunnableConfig | None = None, **kwargs: Any
    ) -> _ConfigurableModel:
        """Fix model parameters from ``config["configurable"]``; the rest of the config is
        applied to the built model."""
        merged = ensure_config(cast(RunnableConfig, {**(config or {}), **kwargs}))
        params = self._model_params(merged)
        rest: dict[str, Any] = {k: v for k, v in merged.items() if k != "configurable"}
        rest["configurable"] = {
            k: v
            for k, v in merged.get("configurable", {}).items()
            if k.removeprefix(self._config_prefix) not in params
        }
        queued = [*self._queued, ("with_config", (), {"config": rest})]
        return self._evolve({**self._default_config, **params}, queued)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._default_config.get("model"):
            model = self._model()
            if hasattr(model, name):
                return getattr(model, name)
        raise AttributeError(f"{name} is not a BaseChatModel attribute")

    # --- running --------------------------------------------------------------------------

    def invoke(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        return self._model(config).invoke(input, config=config, **kwargs)

    async def ainvoke(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        return await self._model(config).ainvoke(input, config=config, **kwargs)

    def stream(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        yield from self._model(config).stream(input, config=config, **kwargs)

    async def astream(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        async for chunk in self._model(config).astream(input, config=config, **kwargs):
            yield chunk
