"""`ChatModel`: the one sealed chat-model interface, whatever the provider.

A `ChatModel` IS a langchain-core ``BaseChatModel`` (invoke/ainvoke/stream/astream/batch,
callbacks, ``bind_tools``, ``with_structured_output``, ``usage_metadata``). Its pure half is
`ChatModel.spec` (the exact `HttpRequest` a call sends, secrets redacted on repr); its
metadata is `identity` and `capabilities`. The provider only selects a row of the registry
(`superstep_core.llm.providers`): never subclass `ChatModel` (it refuses).

Sending goes through a `Transport` (the injectable seam: ``http_client`` / ``async_http_client``
or a whole ``transport``) and is retried here, ``max_retries`` times, for retryable errors only,
waiting the server's ``retry-after`` when given (capped at 60 s), else 0.5 s doubling to 8 s.
A stream is never retried after its first chunk was surfaced.

Must never import the runtime, the host or `superstep_compat`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.base import LangSmithParams
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field, PrivateAttr, SecretStr

from superstep_core import twin
from superstep_core.llm.codec import CallOptions, Codec
from superstep_core.llm.codecs import codec_for
from superstep_core.llm.http import HttpRequest
from superstep_core.llm.messages import to_tool_specs
from superstep_core.llm.options import number, response_format, tool_choice
from superstep_core.llm.providers import PROVIDERS, Resolution, ResolveInput, resolve
from superstep_core.llm.redaction import protect_loggers, register_secret
from superstep_core.llm.sending import Sender
from superstep_core.llm.structured import structured_runnable
from superstep_core.llm.transport import HttpxTransport, SDKTransport, Transport

__all__ = ["Capabilities", "ChatModel", "Identity"]

_PASSED_THROUGH = ("ls_structured_output_format", "stream_usage", "run_name")


@dataclass(frozen=True)
class Identity:
    """Who answers: registry ``provider`` key, ``model`` name and ``wire_format`` id.
    Metadata for logs and traces; never used for dispatch."""

    provider: str
    model: str
    wire_format: str


@dataclass(frozen=True)
class Capabilities:
    """What the codec supports: tool calling, native structured output, streaming, images."""

    tools: bool
    structured_output: bool
    streaming: bool
    vision: bool


class ChatModel(BaseChatModel):
    """A chat model for any registered provider (see `superstep_core.llm.init`).

    Constructor fields: ``provider`` (registry key), ``model``; sampling ``temperature``,
    ``max_tokens`` (output tokens), ``stop``; ``timeout`` (seconds), ``max_retries``;
    ``streaming`` (make ``invoke`` stream internally); credentials ``api_key`` (else the
    provider's environment variable); ``base_url``; provider settings ``region``,
    ``project``, ``api_version``, ``deployment``, ``project_id``, ``space_id``,
    ``anthropic_version``, ``use_responses_api``, ``token_url`` (watsonx IAM endpoint);
    ``default_headers``; ``extra_body``
    (merged into every JSON body); the I/O seam ``http_client`` / ``async_http_client``
    (``httpx`` clients, or ``httpx2`` clients for the SDK-backed providers) or ``transport``;
    ``replies`` for the ``mock`` provider. Raises `MissingCredentialsError` /
    `MissingSettingError` / `UnknownProviderError` at construction.
    """

    model_config = ConfigDict(populate_by_name=True, arbitrary_types_allowed=True)

    provider: str = "openai"
    model: str = ""
    temperature: float | None = None
    max_tokens: int | None = None
    stop: list[str] | None = None
    timeout: float | None = 60.0
    max_retries: int = 2
    streaming: bool = False
    api_key: SecretStr | None = Field(default=None, repr=False)
    base_url: str | None = None
    region: str | None = None
    project: str | None = None
    api_version: str | None = None
    deployment: str | None = None
    project_id: str | None = None
    space_id: str | None = None
    anthropic_version: str | None = None
    use_responses_api: bool | None = None
    token_url: str | None = None
    default_headers: dict[str, str] | None = Field(default=None, exclude=True, repr=False)
    extra_body: dict[str, Any] | None = None
    replies: list[Any] | None = None
    http_client: Any = Field(default=None, exclude=True, repr=False)
    async_http_client: Any = Field(default=None, exclude=True, repr=False)
    transport: Any = Field(default=None, exclude=True, repr=False)
    env: Mapping[str, str] | None = Field(default=None, exclude=True, repr=False)
    sleep: Callable[[float], None] | None = Field(default=None, exclude=True, repr=False)

    _resolution: Resolution = PrivateAttr()
    _codec: Codec = PrivateAttr()
    _sender: Sender = PrivateAttr()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        raise TypeError(
            "ChatModel is sealed: pick a provider with superstep_core.llm.init('provider:model')"
            " or inject a transport instead of subclassing"
        )

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        # Resolved here, not in a pydantic validator, so that our typed errors
        # (MissingCredentialsError…) reach the caller instead of a ValidationError.
        self._resolve()

    def _resolve(self) -> None:
        from superstep_core.llm.errors import UnknownProviderError

        if self.provider not in PROVIDERS:
            raise UnknownProviderError(f"unknown provider {self.provider!r}")
        given = ResolveInput(
            model=self.model,
            api_key=self.api_key.get_secret_value() if self.api_key else None,
            base_url=self.base_url,
            region=self.region,
            project=self.project,
            api_version=self.api_version,
            deployment=self.deployment,
            project_id=self.project_id,
            space_id=self.space_id,
            anthropic_version=self.anthropic_version,
            use_responses_api=self.use_responses_api,
            token_url=self.token_url,
            default_headers=dict(self.default_headers or {}),
            **({"env": dict(self.env)} if self.env is not None else {}),
        )
        self._resolution = resolve(self.provider, given)
        register_secret(self._resolution.api_key)
        register_secret(given.api_key)
        protect_loggers()
        self._codec = codec_for(self._resolution.wire_format)
        self._sender = Sender(
            provider=self.provider,
            codec=self._codec,
            endpoint=self._resolution.endpoint,
            transport=self._make_transport(),
            auth=self._resolution.auth,
            timeout=self.timeout,
            max_retries=self.max_retries,
            sleep=self.sleep,
        )

    def _make_transport(self) -> Transport:
        if self.transport is not None:
            return self.transport  # type: ignore[no-any-return]
        sdk = self._resolution.row.sdk
        if sdk == "mock":
            from superstep_core.llm.mock import MockTransport

            return MockTransport(self.replies)
        if sdk in ("openai", "anthropic"):
            return _sdk_transport(sdk, self)
        return HttpxTransport(self.http_client, self.async_http_client)

    # ---- metadata -------------------------------------------------------------------------

    @property
    def identity(self) -> Identity:
        """(provider, model, wire format) of this model."""
        return Identity(self.provider, self.model, self._resolution.wire_format)

    @property
    def capabilities(self) -> Capabilities:
        """Tool calling, native structured output, streaming and image input support."""
        codec = self._codec
        return Capabilities(True, codec.supports_structured_output, True, codec.supports_vision)

    def with_model(self, name: str) -> ChatModel:
        """The same provider, settings and transport, another model name."""
        fields = {field: getattr(self, field) for field in type(self).model_fields}
        return ChatModel(**{**fields, "model": name})

    @property
    def _llm_type(self) -> str:
        return f"superstep-{self.provider}"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model,
            "wire_format": self._resolution.wire_format,
            "base_url": self._resolution.endpoint.base_url,
        }

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        params = LangSmithParams(
            ls_provider=self.provider,
            ls_model_name=str(kwargs.get("model") or self.model),
            ls_model_type="chat",
        )
        temperature = kwargs.get("temperature", self.temperature)
        if temperature is not None:
            params["ls_temperature"] = temperature
        max_tokens = kwargs.get("max_tokens", self.max_tokens)
        if max_tokens is not None:
            params["ls_max_tokens"] = max_tokens
        stop = stop or kwargs.get("stop") or self.stop
        if stop:
            params["ls_stop"] = list(stop)
        return params

    # ---- the pure half --------------------------------------------------------------------

    def call_options(self, stop: Sequence[str] | None = None, **kwargs: Any) -> CallOptions:
        """Merge constructor settings with per-call ``kwargs`` (``tools``, ``tool_choice``,
        ``parallel_tool_calls``, ``response_format``, ``model``, ``temperature``,
        ``max_tokens``, ``stream``, ``extra_body``; any other key goes into the body)."""
        kwargs = {k: v for k, v in kwargs.items() if k not in _PASSED_THROUGH}
        tools = to_tool_specs(kwargs.pop("tools", None) or [])
        choice, forced = tool_choice(kwargs.pop("tool_choice", None))
        fmt = kwargs.pop("response_format", None)
        extra = {**(self.extra_body or {}), **(kwargs.pop("extra_body", None) or {})}
        options = CallOptions(
            model=str(kwargs.pop("model", None) or self.model),
            temperature=number(kwargs.pop("temperature", self.temperature)),
            max_tokens=kwargs.pop("max_tokens", self.max_tokens),
            stop=tuple(stop or kwargs.pop("stop", None) or self.stop or ()),
            tools=tools,
            tool_choice=choice,
            forced_tool=forced,
            parallel_tool_calls=kwargs.pop("parallel_tool_calls", None),
            response_format=response_format(fmt),
            stream=bool(kwargs.pop("stream", False)),
            extra_body={**extra, **kwargs},
        )
        return options

    def spec(self, messages: LanguageModelInput, **options: Any) -> HttpRequest:
        """The HTTP request a call with these messages and options sends (pure: no I/O).
        Credentials that need I/O or a clock (IAM token, SigV4) are added at send time."""
        converted = self._convert_input(messages).to_messages()
        stop = options.pop("stop", None)
        return self._codec.request(
            converted, self.call_options(stop, **options), self._resolution.endpoint
        )

    # ---- BaseChatModel --------------------------------------------------------------------

    # One core per hook pair (`superstep_core.twin`); ``run_manager`` is the lane's
    # (`CallbackManagerForLLMRun` or its async twin), its calls made as blocks; ``self``
    # positional only, as `twin.twins` passes it.

    def _generating(
        self,
        /,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> twin.Twin[ChatResult]:
        if self.streaming:
            merged: AIMessageChunk | None = None
            streamed = partial(self._stream, messages, stop, run_manager, **kwargs)
            astreamed = partial(self._astream, messages, stop, run_manager, **kwargs)
            gens = yield twin.picked(streamed, astreamed)
            while (gen := (yield twin.next_of(gens))) is not twin.EXHAUSTED:
                merged = gen.message if merged is None else merged + gen.message
            return _result(merged or AIMessageChunk(content=""))
        request = self._codec.request(
            messages, self.call_options(stop, **kwargs), self._resolution.endpoint
        )
        sender = self._sender
        reply = yield twin.Block(sender.send, sender.asend, (request,))
        message = self._codec.parse(reply)
        return ChatResult(generations=[ChatGeneration(message=message)])

    _generate, _agenerate = twin.twins(_generating, "_generate")  # type: ignore[assignment]

    def _streaming(
        self,
        /,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> twin.TwinIter[ChatGenerationChunk]:
        kwargs["stream"] = True
        request = self._codec.request(
            messages, self.call_options(stop, **kwargs), self._resolution.endpoint
        )
        chunks = yield twin.picked(self._sender.stream, self._sender.astream, request)
        try:
            while (chunk := (yield twin.next_of(chunks))) is not twin.EXHAUSTED:
                generation = ChatGenerationChunk(message=chunk)
                if run_manager is not None:
                    token: Any = partial(run_manager.on_llm_new_token, chunk.text, chunk=generation)
                    yield twin.Block(token, token)  # the async manager's: what to await
                yield twin.Emit(generation)
        finally:  # a consumer that stops early stops the sender's stream now
            yield twin.closing(chunks)

    _stream, _astream = twin.iter_twins(_streaming, "_stream")  # type: ignore[assignment]

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | bool | None = None,
        parallel_tool_calls: bool | None = None,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools (LangChain tools, functions, pydantic classes, JSON schemas, OpenAI
        dicts). ``tool_choice``: ``"auto"``, ``"none"``, ``"any"``/``"required"``/``True``,
        or a tool name."""
        formatted = [convert_to_openai_tool(t, strict=strict) for t in tools]
        if tool_choice is not None and tool_choice is not False:
            kwargs["tool_choice"] = tool_choice
        if parallel_tool_calls is not None:
            kwargs["parallel_tool_calls"] = parallel_tool_calls
        return self.bind(tools=formatted, **kwargs)

    def with_structured_output(
        self,
        schema: Any = None,
        *,
        include_raw: bool = False,
        method: Literal["json_schema", "function_calling", "json_mode"] | None = None,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, Any]:
        """Runnable returning ``schema`` instances (pydantic) or dicts. ``method``:
        ``json_schema`` (native, default when supported), ``function_calling`` (a forced
        tool) or ``json_mode``. With ``include_raw`` the output is
        ``{"raw", "parsed", "parsing_error"}``."""
        if method is None:
            method = "json_schema" if self._codec.supports_structured_output else "function_calling"
        return structured_runnable(self, schema, method, include_raw=include_raw, strict=strict)


def _sdk_transport(sdk: str, model: ChatModel) -> Transport:
    key = model._resolution.api_key or "unused"
    common: dict[str, Any] = {
        "api_key": key,
        "base_url": model._resolution.endpoint.base_url,
        "max_retries": 0,
    }
    http_client, async_http_client = model.http_client, model.async_http_client
    if sdk == "anthropic":
        import anthropic

        return SDKTransport(
            factory=lambda: anthropic.Anthropic(**common, http_client=http_client),
            async_factory=lambda: anthropic.AsyncAnthropic(**common, http_client=async_http_client),
        )
    import openai

    return SDKTransport(
        factory=lambda: openai.OpenAI(**common, http_client=http_client),
        async_factory=lambda: openai.AsyncOpenAI(**common, http_client=async_http_client),
    )


def _result(message: AIMessageChunk) -> ChatResult:
    from langchain_core.messages import message_chunk_to_message

    return ChatResult(generations=[ChatGeneration(message=message_chunk_to_message(message))])
