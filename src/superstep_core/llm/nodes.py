"""Chat nodes: model calls as ordinary engine nodes whose call is an effect.

    g.add_node("agent", chat_node(init("openai:gpt-4o-mini"), tools=[search]),
               retry=RetryPolicy(max_attempts=3))
    host = Host(llm_handlers(on_token=print_token))

A chat node reads the conversation from a channel, asks the host for one effect of kind
`CHAT_EFFECT` whose request is a `ChatCall` as plain data, and on its result writes the reply.
A stored call holds a model reference (``"provider:model"`` and non-secret settings), never
the model object or its credentials: the host resolves the reference when it performs the
call (`resolve_model`), so a durable thread can checkpoint it and continue it elsewhere. The model
call happens in the host (`llm_handlers`), never in the reducer, so it is recorded,
replayable and retried by the engine: a `RetryableLLMError` carries ``retryable = True``,
which the host classifies as a retryable failure, so the node's `RetryPolicy` and the host's
backoff apply. For that reason the builders copy a `ChatModel` with ``max_retries=0``: one
layer of retries, the engine's.

Tokens: the host has no stream multiplexer yet (DESIGN.md "Streams"), so the handler takes a
``on_token`` sink and streams the model into it when one is given; a retried attempt streams
again (transient chunks, as the design allows).

`chat_call` builds the same effect for code that is not a chat node (a task of
`superstep_core.task`).

Must never import `superstep_compat`, `superstep_core.host` or `superstep_core.runtime`.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    message_chunk_to_message,
)
from langchain_core.runnables import Runnable, RunnableBinding
from pydantic import BaseModel

from superstep_core.llm.model import ChatModel
from superstep_core.llm.redaction import redact_url
from superstep_core.llm.registry import init
from superstep_core.node import (
    Activated,
    CompleteActivation,
    Effect,
    EffectCompleted,
    Event,
    FailActivation,
    NodeContext,
    NodeFn,
    Reaction,
    RemainActive,
)

__all__ = [
    "CHAT_EFFECT",
    "ChatCall",
    "ModelResolver",
    "Token",
    "TokenSink",
    "chat_call",
    "chat_node",
    "llm_handlers",
    "model_key",
    "model_reference",
    "perform_chat",
    "resolve_model",
    "structured_output_node",
    "without_client_retries",
]

CHAT_EFFECT = "llm.chat"
"""The effect kind of a model call; `llm_handlers` maps it to its handler."""

Prompt: TypeAlias = str | Callable[[Mapping[str, Any]], Sequence[BaseMessage]] | None
Output: TypeAlias = Callable[[Any], Mapping[str, Any] | Sequence[tuple[str, Any]]]

# `ChatModel` fields that configure a call and hold no secret: a stored chat effect keeps these
# (and only these) beside the model reference. Credentials, headers, clients and transports
# stay with the host, which resolves the reference when it performs the effect.
_SETTINGS = (
    "temperature",
    "max_tokens",
    "stop",
    "timeout",
    "streaming",
    "base_url",
    "region",
    "project",
    "api_version",
    "deployment",
    "project_id",
    "space_id",
    "anthropic_version",
    "use_responses_api",
    "token_url",
    "extra_body",
    "replies",
)

_URL_SETTINGS = ("base_url", "token_url")

# Models a node was built with in this process, by `model_key`: a host resolving a reference
# prefers the very object the graph was given (its credentials and transport included). A new
# process that loads the same graph registers the same keys again. It is a cache of host-side
# objects, never state: the effect request is the same whether or not an entry exists. Two
# models with the same reference and settings share a key (the one used last is found); give
# the host `models=` to choose explicitly.
_LIVE: dict[str, BaseChatModel] = {}
_LIVE_LOCK = threading.Lock()


@dataclass(frozen=True)
class ChatCall:
    """The request of a `CHAT_EFFECT`, as plain data that a checkpoint can hold.

    ``model``: the reference ``"provider:model"`` (``"instance:<Class>"`` for a chat model
    that is not a `ChatModel`); ``settings``: its non-secret `ChatModel` fields (temperature,
    base_url, ...; never ``api_key``, headers, clients or transports); ``messages``;
    ``options``: call options (``tools`` as OpenAI tool dicts, ``tool_choice``, ...);
    ``schema``: a JSON Schema asking for structured output (by ``method``), the result then
    being a dict; ``stream``: whether tokens may be streamed. The effect's request is
    `as_request` (a dict); `from_request` reads it back.
    """

    model: str
    messages: tuple[BaseMessage, ...]
    settings: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    schema: Mapping[str, Any] | None = None
    method: str | None = None
    stream: bool = True

    @property
    def key(self) -> str:
        """`model_key` of this call's model."""
        return model_key(self.model, self.settings)

    def as_request(self) -> dict[str, Any]:
        """The effect request: a dict of plain values and chat messages."""
        return {
            "model": self.model,
            "settings": dict(self.settings),
            "messages": list(self.messages),
            "options": dict(self.options),
            "schema": None if self.schema is None else dict(self.schema),
            "method": self.method,
            "stream": self.stream,
        }

    @classmethod
    def from_request(cls, request: Any) -> ChatCall:
        """Read `as_request` back. Raises ``TypeError`` naming what is missing."""
        if isinstance(request, ChatCall):
            return request
        if not isinstance(request, Mapping) or not isinstance(request.get("model"), str):
            raise TypeError(
                f"a {CHAT_EFFECT!r} effect needs a chat request (build it with chat_call), "
                f"got {type(request).__name__}"
            )
        return cls(
            request["model"],
            tuple(request.get("messages") or ()),
            dict(request.get("settings") or {}),
            dict(request.get("options") or {}),
            request.get("schema"),
            request.get("method"),
            bool(request.get("stream", True)),
        )


def model_key(reference: str, settings: Mapping[str, Any]) -> str:
    """The key under which a host finds a model: the reference and a digest of its settings
    (the same in every process for the same model reference and settings)."""
    text = json.dumps(settings, sort_keys=True, default=repr, separators=(",", ":"))
    return f"{reference}#{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def model_reference(model: BaseChatModel) -> tuple[str, dict[str, Any]]:
    """``("provider:model", non-secret settings)`` of ``model``; another chat model is
    ``("instance:<Class>", {})`` (resolvable only where it was built or given to the host)."""
    if isinstance(model, ChatModel):
        settings = {
            name: getattr(model, name) for name in _SETTINGS if name in model.model_fields_set
        }
        for name in _URL_SETTINGS:  # a proxy's URL may carry a credential: never stored
            if isinstance(settings.get(name), str):
                settings[name] = redact_url(settings[name])
        return f"{model.provider}:{model.model}", settings
    return f"instance:{type(model).__qualname__}", {}


@dataclass(frozen=True)
class Token:
    """One streamed chunk of a model reply, with where it came from."""

    node: str
    activation_id: str
    effect_id: str
    text: str
    chunk: AIMessageChunk


TokenSink: TypeAlias = Callable[[Token], None]
ModelResolver: TypeAlias = Callable[[str, Mapping[str, Any]], BaseChatModel]
"""``resolver(reference, settings) -> chat model``: how a host turns a stored reference into
a model (with the host's own credentials)."""


class _EffectInfo(Protocol):
    # The host's `EffectContext`, structurally: this layer does not import the host.
    @property
    def idempotency_key(self) -> str: ...

    @property
    def node(self) -> str: ...

    @property
    def activation_id(self) -> str: ...


# --- models inside nodes --------------------------------------------------------------------


def without_client_retries(model: BaseChatModel | str) -> BaseChatModel:
    """``model`` (a `ChatModel` or an ``init`` string) with its own retries turned off, so
    that only the engine retries. Other chat models are returned as they are."""
    if isinstance(model, str):
        return init(model, max_retries=0)
    if isinstance(model, ChatModel) and model.max_retries != 0:
        # Only the fields that were set: langchain-core reads an explicitly set
        # ``streaming=False`` as "never stream", even under ``.stream()``.
        fields = {name: getattr(model, name) for name in model.model_fields_set}
        return ChatModel(**{**fields, "max_retries": 0})
    return model


def _unwrap(model: Runnable[Any, Any] | str) -> tuple[BaseChatModel, dict[str, Any]]:
    options: dict[str, Any] = {}
    if isinstance(model, str):
        model = init(model, max_retries=0)
    while isinstance(model, RunnableBinding):
        options = {**model.kwargs, **options}
        model = model.bound
    if not isinstance(model, BaseChatModel):
        raise TypeError(
            f"chat_call needs a chat model (optionally with bound options or tools), got "
            f"{type(model).__name__}; for structured output pass schema= instead of piping a "
            f"parser"
        )
    return model, options


def _json_schema(schema: Any) -> dict[str, Any]:
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_json_schema()
    if isinstance(schema, Mapping):
        out = dict(schema)
        out.setdefault("title", "output")
        return out
    from langchain_core.utils.function_calling import convert_to_json_schema

    return convert_to_json_schema(schema)


def chat_call(
    model: Runnable[Any, Any] | str,
    messages: Sequence[BaseMessage],
    *,
    stream: bool = True,
    tools: Sequence[Any] = (),
    schema: Any = None,
    method: str | None = None,
    **options: Any,
) -> Effect:
    """The effect that calls ``model`` (a chat model, one with bound options, or an ``init``
    string) on ``messages``. ``tools`` are bound (any form ``bind_tools`` takes); ``schema``
    (a pydantic class, TypedDict or JSON Schema) asks for structured output, the result being
    a dict; ``options`` are further call options. The request is plain data (`ChatCall`): a
    model reference, never the model or its credentials."""
    base, bound = _unwrap(model)
    reference, settings = model_reference(base)
    if tools:
        from langchain_core.utils.function_calling import convert_to_openai_tool

        bound["tools"] = [convert_to_openai_tool(t) for t in tools]
    call = ChatCall(
        reference,
        tuple(messages),
        settings,
        {**bound, **options},
        None if schema is None else _json_schema(schema),
        method,
        stream and schema is None,
    )
    with _LIVE_LOCK:
        _LIVE[call.key] = base
    return Effect(CHAT_EFFECT, call.as_request())


def _default_resolver(reference: str, settings: Mapping[str, Any]) -> BaseChatModel:
    if reference.startswith("instance:"):
        raise LookupError(
            f"chat model {reference!r} was built in another process and is not a ChatModel, "
            f"so it cannot be rebuilt from its reference: give it to the host with "
            f"llm_handlers(models={{{reference!r}: model}})"
        )
    return init(reference, **{**settings, "max_retries": 0})


def resolve_model(
    call: ChatCall,
    models: Mapping[str, BaseChatModel] | None = None,
    resolver: ModelResolver | None = None,
) -> BaseChatModel:
    """The model that performs ``call``: ``models[key]`` or ``models[reference]`` when the
    host was given one, else the model a node of this process was built with, else
    ``resolver(reference, settings)`` (default: ``init(reference, **settings)``, credentials
    from the environment)."""
    given = models or {}
    found = given.get(call.key) or given.get(call.model)
    if found is None:
        with _LIVE_LOCK:
            found = _LIVE.get(call.key)
    if found is None:
        found = (resolver or _default_resolver)(call.model, call.settings)
    return without_client_retries(found)


def _runnable(call: ChatCall, model: BaseChatModel) -> Runnable[Any, Any]:
    if call.schema is not None:
        extra: dict[str, Any] = {} if call.method is None else {"method": call.method}
        return model.with_structured_output(dict(call.schema), **extra)
    return model.bind(**call.options) if call.options else model


def perform_chat(
    call: ChatCall | Mapping[str, Any],
    info: _EffectInfo | None = None,
    on_token: TokenSink | None = None,
    *,
    models: Mapping[str, BaseChatModel] | None = None,
    resolver: ModelResolver | None = None,
) -> Any:
    """Perform ``call`` (see `resolve_model` for where the model comes from): stream into
    ``on_token`` when given and allowed, else invoke. The result is an `AIMessage` (a dict
    for structured output). Errors propagate: the host classifies them by their
    ``retryable`` attribute."""
    call = ChatCall.from_request(call)
    runnable = _runnable(call, resolve_model(call, models, resolver))
    messages = list(call.messages)
    if on_token is None or not call.stream or call.schema is not None:
        return runnable.invoke(messages)
    merged: AIMessageChunk | None = None
    for chunk in runnable.stream(messages):
        merged = chunk if merged is None else merged + chunk
        if chunk.text:
            node = info.node if info else ""
            aid = info.activation_id if info else ""
            key = info.idempotency_key if info else ""
            on_token(Token(node, aid, key, chunk.text, chunk))
    return message_chunk_to_message(merged) if merged is not None else AIMessage(content="")


def llm_handlers(
    *,
    on_token: TokenSink | None = None,
    models: Mapping[str, BaseChatModel] | None = None,
    resolver: ModelResolver | None = None,
) -> dict[str, Callable[[Any, Any], Any]]:
    """Host handlers for the llm layer's effects: ``Host({**llm_handlers(), ...})``.
    ``on_token`` receives every streamed chunk of chat nodes that stream; ``models`` (by
    reference ``"provider:model"`` or `model_key`) and ``resolver`` say how a stored model
    reference becomes a model (see `resolve_model`)."""

    def chat(request: Any, info: Any) -> Any:
        try:
            call = ChatCall.from_request(request)
        except TypeError as e:
            raise TypeError(f"node {getattr(info, 'node', '?')!r}: {e}") from None
        return perform_chat(call, info, on_token, models=models, resolver=resolver)

    return {CHAT_EFFECT: chat}


# --- node builders --------------------------------------------------------------------------


def _conversation(
    state: Mapping[str, Any], channel: str, prompt: Prompt, payload: Any
) -> list[BaseMessage]:
    if callable(prompt):
        return list(prompt(state))
    history: Any = state.get(channel)
    if history is None:
        history = payload  # a start node: the execution's input is the conversation
    if isinstance(history, str):
        history = [HumanMessage(history)]
    messages = list(history or ())
    if not all(isinstance(m, BaseMessage) for m in messages):
        raise TypeError(
            f"channel {channel!r} must hold chat messages (BaseMessage), got "
            f"{[type(m).__name__ for m in messages]}"
        )
    if isinstance(prompt, str):
        messages.insert(0, SystemMessage(prompt))
    return messages


def _model_node(
    model: BaseChatModel,
    *,
    name: str,
    messages_channel: str,
    prompt: Prompt,
    output: Output,
    stream: bool,
    options: Mapping[str, Any] | None = None,
    schema: Any = None,
    method: str | None = None,
) -> NodeFn:
    parse = _parser(schema)

    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            messages = _conversation(ctx.state, messages_channel, prompt, event.payload)
            effect = chat_call(
                model, messages, stream=stream, schema=schema, method=method, **(options or {})
            )
            return Reaction(effects=[effect], disposition=RemainActive())
        if isinstance(event, EffectCompleted):
            if event.error is not None:
                make = (
                    FailActivation.retryable if event.error.retryable else FailActivation.permanent
                )
                message = f"node {ctx.node!r}: model call failed: {event.error.message}"
                return Reaction(disposition=make(message, event.error.type))
            try:
                value = parse(event.result)
            except Exception as e:
                message = f"node {ctx.node!r}: the reply does not fit the schema: {e}"
                return Reaction(disposition=FailActivation.permanent(message, type(e).__name__))
            return Reaction(updates=output(value), disposition=CompleteActivation(value))
        return Reaction(disposition=RemainActive())

    react.__name__ = name
    return react


def _parser(schema: Any) -> Callable[[Any], Any]:
    # Structured results travel (and are recorded) as plain dicts; a pydantic schema gets its
    # instance back here, in the node, where the class is known.
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_validate
    return lambda value: value


def chat_node(
    model: BaseChatModel | str,
    *,
    messages_channel: str = "messages",
    prompt: Prompt = None,
    tools: Sequence[Any] = (),
    output: Output | None = None,
    stream: bool = True,
    **bind: Any,
) -> NodeFn:
    """A node that calls ``model`` on the conversation in ``messages_channel`` and appends
    the reply to it (an `Append` channel), completing with the reply as its output.

    ``model``: a chat model or an ``init`` string (its own retries are turned off: add a
    `RetryPolicy` to the node). ``prompt``: a system prompt, or ``state -> messages`` to
    build the whole input. ``tools`` are bound to the model; ``bind`` are further call options
    (``tool_choice``, ``temperature``…). ``output``: ``reply -> updates`` when the reply goes
    elsewhere. ``stream``: stream tokens to the host's sink when it has one.
    With no history in the channel, the activation payload (a string or messages) is used.

    The model call is an effect whose request is plain data (`ChatCall`: the model's
    reference and non-secret settings, the messages, the options), so a durable thread can
    store it; the host resolves the reference when it performs the call."""
    base = without_client_retries(model)
    options: dict[str, Any] = dict(bind)
    if tools:
        from langchain_core.utils.function_calling import convert_to_openai_tool

        options["tools"] = [convert_to_openai_tool(t) for t in tools]
    return _model_node(
        base,
        name="chat_node",
        messages_channel=messages_channel,
        prompt=prompt,
        output=output or (lambda reply: [(messages_channel, reply)]),
        stream=stream,
        options=options,
    )


def structured_output_node(
    model: BaseChatModel | str,
    schema: Any,
    *,
    messages_channel: str = "messages",
    output_channel: str = "structured_response",
    prompt: Prompt = None,
    method: str | None = None,
    output: Output | None = None,
) -> NodeFn:
    """A node that asks ``model`` for an instance of ``schema`` (a pydantic class, TypedDict
    or JSON schema) from the conversation in ``messages_channel`` and writes it to
    ``output_channel`` (or ``output(value)``), completing with it as its output. A reply that
    does not parse fails the activation permanently, naming the node. The effect carries
    the schema as JSON Schema; a pydantic class gets its instance back in the node."""
    base = without_client_retries(model)
    return _model_node(
        base,
        name="structured_output_node",
        messages_channel=messages_channel,
        prompt=prompt,
        output=output or (lambda value: {output_channel: value}),
        stream=False,
        schema=schema,
        method=method,
    )
